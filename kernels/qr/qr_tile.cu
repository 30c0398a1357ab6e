// The element-wise CUDA kernels of the tile QR (kernels/qr/qr_kernels.hpp). Complex tiles reach the kernels as
// kernels/device_complex.cuh's Cx (std::complex has no device code).
#include <complex>
#include <cstdint>

#include "kernels/device_complex.cuh"

#include "kernels/qr/qr_kernels.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 128;

inline unsigned blocks_for(int n) { return static_cast<unsigned>(n < 1 ? 1 : (n < 4096 ? n : 4096)); }

template <typename T>
__global__ void copy_upper_kernel(const T* src, int lds, T* dst, int ldd, int m, int n, bool zero) {
    for (int j = blockIdx.x; j < n; j += gridDim.x)
        for (int i = threadIdx.x; i < m; i += blockDim.x) {
            if (i <= j) dst[i + static_cast<int64_t>(j) * ldd] = src[i + static_cast<int64_t>(j) * lds];
            else if (zero) dst[i + static_cast<int64_t>(j) * ldd] = T(0);
        }
}

template <typename T>
__global__ void copy_unit_lower_kernel(const T* src, int lds, T* dst, int ldd, int m, int k) {
    for (int j = blockIdx.x; j < k; j += gridDim.x)
        for (int i = threadIdx.x; i < m; i += blockDim.x)
            dst[i + static_cast<int64_t>(j) * ldd] =
                i > j ? src[i + static_cast<int64_t>(j) * lds] : (i == j ? T(1) : T(0));
}

template <typename T>
__global__ void ut_triangle_kernel(T* W, int ldw, const T* tau, int k, T* Tm, int ldt) {
    for (int j = blockIdx.x; j < k; j += gridDim.x)
        for (int i = threadIdx.x; i < k; i += blockDim.x) {
            T& w = W[i + static_cast<int64_t>(j) * ldw];
            if (i == j) w = tau[i] == T(0) ? T(1) : T(1) / tau[i];
            else if (i > j || tau[i] == T(0) || tau[j] == T(0)) w = T(0);
            Tm[i + static_cast<int64_t>(j) * ldt] = i == j ? T(1) : T(0);
        }
}

template <typename T>
__global__ void fix_identity_kernel(T* Tm, int ldt, const T* tau, int k) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k; i += gridDim.x * blockDim.x)
        if (tau[i] == T(0)) Tm[i + static_cast<int64_t>(i) * ldt] = T(0);
}

template <typename T>
__global__ void laset_kernel(T* A, int ld, int m, int n, int64_t offset) {
    for (int j = blockIdx.x; j < n; j += gridDim.x)
        for (int i = threadIdx.x; i < m; i += blockDim.x)
            A[i + static_cast<int64_t>(j) * ld] = (i + offset == j) ? T(1) : T(0);
}

template <typename T>
__global__ void diag_info_kernel(const T* R, int ld, int k, int* info, int64_t offset) {
    __shared__ int first;
    if (threadIdx.x == 0) first = k;
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        if (R[i + static_cast<int64_t>(i) * ld] == T(0)) atomicMin(&first, i);
    __syncthreads();
    if (threadIdx.x == 0 && first < k && *info == 0) *info = static_cast<int>(offset + first + 1);
}

}  // namespace

template <typename T>
void launch_copy_upper(const T* src, int lds, T* dst, int ldd, int m, int n, Below below, cudaStream_t stream) {
    if (m > 0 && n > 0)
        copy_upper_kernel<<<blocks_for(n), kThreads, 0, stream>>>(on_device(src), lds, on_device(dst), ldd, m, n,
                                                                    below == Below::Zero);
}
template <typename T>
void launch_copy_unit_lower(const T* src, int lds, T* dst, int ldd, int m, int k, cudaStream_t stream) {
    if (m > 0 && k > 0)
        copy_unit_lower_kernel<<<blocks_for(k), kThreads, 0, stream>>>(on_device(src), lds, on_device(dst), ldd, m, k);
}
template <typename T>
void launch_qr_ut_triangle(T* W, int ldw, const T* tau, int k, T* Tm, int ldt, cudaStream_t stream) {
    if (k > 0) ut_triangle_kernel<<<blocks_for(k), kThreads, 0, stream>>>(on_device(W), ldw, on_device(tau), k,
                                                                       on_device(Tm), ldt);
}
template <typename T>
void launch_qr_fix_identity(T* Tm, int ldt, const T* tau, int k, cudaStream_t stream) {
    if (k > 0) fix_identity_kernel<<<(k + kThreads - 1) / kThreads, kThreads, 0, stream>>>(on_device(Tm), ldt,
                                                                                        on_device(tau), k);
}
template <typename T>
void launch_qr_laset(T* A, int ld, int m, int n, int64_t offset, cudaStream_t stream) {
    if (m > 0 && n > 0) laset_kernel<<<blocks_for(n), kThreads, 0, stream>>>(on_device(A), ld, m, n, offset);
}
template <typename T>
void launch_qr_diag_info(const T* R, int ld, int k, int* info, int64_t offset, cudaStream_t stream) {
    if (k > 0) diag_info_kernel<<<1, 256, 0, stream>>>(on_device(R), ld, k, info, offset);
}

#define STARFACT_QR_KERNELS(T)                                                                               \
    template void launch_copy_upper<T>(const T*, int, T*, int, int, int, Below, cudaStream_t);               \
    template void launch_copy_unit_lower<T>(const T*, int, T*, int, int, int, cudaStream_t);                 \
    template void launch_qr_ut_triangle<T>(T*, int, const T*, int, T*, int, cudaStream_t);                   \
    template void launch_qr_fix_identity<T>(T*, int, const T*, int, cudaStream_t);                           \
    template void launch_qr_laset<T>(T*, int, int, int, int64_t, cudaStream_t);                              \
    template void launch_qr_diag_info<T>(const T*, int, int, int*, int64_t, cudaStream_t);
STARFACT_QR_KERNELS(float)
STARFACT_QR_KERNELS(double)
STARFACT_QR_KERNELS(std::complex<float>)
STARFACT_QR_KERNELS(std::complex<double>)
#undef STARFACT_QR_KERNELS

}  // namespace starfact::detail::gpu
