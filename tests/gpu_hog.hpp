// A GPU-hogging kernel for tests (tests/gpu_hog.cu): see there.
#pragma once
#include <cuda_runtime.h>

namespace starfact::test {
/// Launches on `stream` thread blocks that hold most of each SM's shared memory and spin for
/// micro_seconds x (1..8); returns false if the launch failed.
bool launch_gpu_hog(cudaStream_t stream, double micro_seconds);
}  // namespace starfact::test
