// Instantiates the batched getrs / getri-from-factors kernels for float, n = 1..32 (one translation
// unit per operation and precision, so the build compiles them in parallel).
#include "codelets/cuda/batched_lu/dispatch.cuh"

template cudaError_t starfact::batched::kernels::getrs_dispatch<float>(int, BatchRef<float>, const int*, int64_t,
                                                                      BatchRef<float>, BatchRef<float>, int, bool, int64_t,
                                                                      cudaStream_t);
