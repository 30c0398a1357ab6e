// Merges a diagonal tile's factorization status into the matrix's LAPACK-style info, on the device,
// so that an asynchronous CUDA potrf task never waits for the host.
#include <cstdint>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {
namespace {

template <typename T>
__global__ void potrf_info_kernel(const T* L, int n, int ld, const int* dev_info, int* info, int64_t offset) {
    __shared__ int first_bad;
    if (threadIdx.x == 0) first_bad = n + 1;
    __syncthreads();
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const T d = L[j + static_cast<int64_t>(j) * ld];
        if (!(d > T(0)) || !isfinite(d)) atomicMin(&first_bad, j + 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int local = first_bad;
        const int reported = dev_info ? *dev_info : 0;
        if (reported > 0 && reported < local) local = reported;
        if (local <= n && *info == 0) *info = static_cast<int>(offset + local);
    }
}

}  // namespace

template <typename T>
void launch_potrf_info(const T* L, int n, int ld, const int* dev_info, int* info, int64_t offset,
                       cudaStream_t stream) {
    potrf_info_kernel<T><<<1, 256, 0, stream>>>(L, n, ld, dev_info, info, offset);
}

template void launch_potrf_info<float>(const float*, int, int, const int*, int*, int64_t, cudaStream_t);
template void launch_potrf_info<double>(const double*, int, int, const int*, int*, int64_t, cudaStream_t);

}  // namespace starfact::detail::gpu
