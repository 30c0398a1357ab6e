// Internal: the CUDA side of the scalar layer (kernels/scalar.hpp): per element type, the cudaDataType of its
// arrays and the cuBLAS compute type of its plain (not tensor-core) arithmetic, as the cuBLAS/cuSOLVER
// 64-bit and Ex interfaces take them.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <library_types.h>

#include <complex>

namespace starfact::detail::gpu {

template <typename T>
struct CudaScalar;

template <>
struct CudaScalar<float> {
    static constexpr cudaDataType_t type = CUDA_R_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <>
struct CudaScalar<double> {
    static constexpr cudaDataType_t type = CUDA_R_64F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};
template <>
struct CudaScalar<std::complex<float>> {
    static constexpr cudaDataType_t type = CUDA_C_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <>
struct CudaScalar<std::complex<double>> {
    static constexpr cudaDataType_t type = CUDA_C_64F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};

/// The cudaDataType_t of an array of T.
template <typename T>
constexpr cudaDataType_t cuda_type() {
    return CudaScalar<T>::type;
}
/// The cuBLAS compute type of T's plain arithmetic.
template <typename T>
constexpr cublasComputeType_t cuda_compute_type() {
    return CudaScalar<T>::compute;
}

}  // namespace starfact::detail::gpu
#endif
