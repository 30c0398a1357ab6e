// Instantiates the batched getrf kernels for double, n = 1..32 (one translation unit per operation
// and precision, so the build compiles them in parallel).
#include "codelets/cuda/batched_lu/dispatch.cuh"

template cudaError_t starfact::batched::kernels::getrf_dispatch<double>(int, BatchRef<double>, int*, int64_t, int*, int64_t,
                                                                      cudaStream_t);
