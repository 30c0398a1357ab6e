// Instantiates the batched getrs / getri-from-factors kernels for double, n = 1..32 (one translation
// unit per operation and precision, so the build compiles them in parallel).
#include "codelets/cuda/batched_lu/dispatch.cuh"

template cudaError_t starfact::batched::kernels::getrs_dispatch<double>(int, BatchRef<double>, const int*, int64_t,
                                                                      BatchRef<double>, BatchRef<double>, int, bool, int64_t,
                                                                      cudaStream_t);
