// Merges a diagonal tile's factorization status into the matrix's LAPACK-style info, on the device,
// so that an asynchronous CUDA potrf task never waits for the host. Real and complex tiles (the diagonal's real
// parts: a Hermitian factor's diagonal is real).
#include <complex>
#include <cstdint>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {
namespace {

/// diag[j * step] is the (real part of the) j-th diagonal entry: step = ld + 1 for real tiles, 2 (ld + 1) for complex
/// ones read as pairs of reals (std::complex's layout: real part first).
template <typename R>
__global__ void potrf_info_kernel(const R* diag, int n, int64_t step, const int* dev_info, int* info, int64_t offset) {
    __shared__ int first_bad;
    if (threadIdx.x == 0) first_bad = n + 1;
    __syncthreads();
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const R d = diag[j * step];
        if (!(d > R(0)) || !isfinite(d)) atomicMin(&first_bad, j + 1);
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
    using R = real_t<T>;
    constexpr int64_t parts = is_complex_v<T> ? 2 : 1;
    const int64_t step = parts * (static_cast<int64_t>(ld) + 1);
    potrf_info_kernel<R><<<1, 256, 0, stream>>>(reinterpret_cast<const R*>(L), n, step, dev_info, info, offset);
}

template void launch_potrf_info<float>(const float*, int, int, const int*, int*, int64_t, cudaStream_t);
template void launch_potrf_info<double>(const double*, int, int, const int*, int*, int64_t, cudaStream_t);
template void launch_potrf_info<std::complex<float>>(const std::complex<float>*, int, int, const int*, int*, int64_t,
                                                     cudaStream_t);
template void launch_potrf_info<std::complex<double>>(const std::complex<double>*, int, int, const int*, int*, int64_t,
                                                      cudaStream_t);

}  // namespace starfact::detail::gpu
