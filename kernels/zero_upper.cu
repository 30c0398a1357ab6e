// Triangle helpers on a stream: zeroes the strictly upper triangle of a column-major tile (used after inverting a
// lower-triangular tile, so that a plain gemm can apply it), and writes an identity tile (the right-hand side from
// which the recursive inversion's leaves are solved, kernels/trtri_recursive.hpp). zero_upper also on complex tiles
// (the complex lauum_tile's copy of L), through their device type (kernels/device_complex.cuh).
#include <complex>
#include <cstdint>

#include "kernels/cuda_blas.hpp"
#include "kernels/device_complex.cuh"

namespace starfact::detail::gpu {
namespace {

template <typename T>
__global__ void zero_upper_kernel(T* A, int n, int ld) {
    for (int j = blockIdx.x; j < n; j += gridDim.x)
        for (int i = threadIdx.x; i < j; i += blockDim.x) A[i + static_cast<int64_t>(j) * ld] = T(0);
}

template <typename T>
__global__ void identity_kernel(T* A, int n, int ld) {
    for (int j = blockIdx.x; j < n; j += gridDim.x)
        for (int i = threadIdx.x; i < n; i += blockDim.x) A[i + static_cast<int64_t>(j) * ld] = i == j ? T(1) : T(0);
}

}  // namespace

template <typename T>
void launch_identity(T* A, int n, int ld, cudaStream_t stream) {
    if (n > 0) identity_kernel<T><<<n < 1024 ? n : 1024, 128, 0, stream>>>(A, n, ld);
}

template <typename T>
void launch_zero_upper(T* A, int n, int ld, cudaStream_t stream) {
    if (n > 1) zero_upper_kernel<device_t<T>><<<n < 1024 ? n : 1024, 128, 0, stream>>>(on_device(A), n, ld);
}

template void launch_zero_upper<float>(float*, int, int, cudaStream_t);
template void launch_zero_upper<double>(double*, int, int, cudaStream_t);
template void launch_zero_upper<std::complex<float>>(std::complex<float>*, int, int, cudaStream_t);
template void launch_zero_upper<std::complex<double>>(std::complex<double>*, int, int, cudaStream_t);
template void launch_identity<float>(float*, int, int, cudaStream_t);
template void launch_identity<double>(double*, int, int, cudaStream_t);

}  // namespace starfact::detail::gpu
