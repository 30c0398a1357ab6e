// A kernel that keeps the GPU busy for a while on a stream of its own (tests only): thread blocks that
// fill most of an SM's shared memory and spin for staggered times, so that a kernel launched right after
// it on another stream gets its thread blocks scheduled one by one, tens of microseconds apart, as in a
// task graph with several streams. Used to expose inter-block ordering bugs that an idle GPU hides.
#include <cuda_runtime.h>

#include "tests/gpu_hog.hpp"

namespace starfact::test {
namespace {
__global__ void hog_kernel(long long base_cycles) {
    extern __shared__ unsigned char hog_smem[];
    const long long until = clock64() + base_cycles * (1 + (blockIdx.x * 37u) % 8u);
    while (clock64() < until) {
    }
    if (threadIdx.x == 0) hog_smem[0] = 1;  // (the shared memory is held, not used)
}
}  // namespace

bool launch_gpu_hog(cudaStream_t stream, double micro_seconds) {
    int device = 0, sms = 0, clock_khz = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) return false;
    const size_t smem = 100 * 1024;  // two blocks per SM at most, no room left for a 51 KB block
    if (cudaFuncSetAttribute(hog_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) !=
        cudaSuccess)
        return false;
    hog_kernel<<<3 * sms, 32, smem, stream>>>(static_cast<long long>(micro_seconds * clock_khz * 1e-3));
    return cudaGetLastError() == cudaSuccess;
}
}  // namespace starfact::test
