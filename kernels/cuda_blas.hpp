// Internal: float/double overloads over cuBLAS and cuSOLVER for the CUDA codelets, plus the launchers of
// the small tile kernels (kernels/potrf_info.cu, zero_upper.cu, merge_info.cu). No StarPU here: the
// codelets pass the stream and handles (runtime/cuda_contexts.hpp, WorkerStream).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdint>

#include "kernels/blas_types.hpp"

namespace starfact::detail::gpu {

inline cublasSideMode_t side(Side s) { return s == Side::Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
inline cublasFillMode_t uplo(Uplo u) { return u == Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }
inline cublasOperation_t op(Op o) { return o == Op::NoTrans ? CUBLAS_OP_N : CUBLAS_OP_T; }
inline cublasDiagType_t diag(Diag d) { return d == Diag::NonUnit ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT; }

inline cublasStatus_t gemm(cublasHandle_t h, Op a, Op b, int m, int n, int k, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc) {
    return cublasSgemm(h, op(a), op(b), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, Op a, Op b, int m, int n, int k, double alpha, const double* A,
                           int lda, const double* B, int ldb, double beta, double* C, int ldc) {
    return cublasDgemm(h, op(a), op(b), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
/// Tensor-core arithmetic for float tiles (TaskOptions::compute): 1 TF32, 2 BF16 inputs, 3 FP16 inputs, each with
/// float accumulation; cuBLAS rounds the float inputs itself. 4 (3xTF32) is three TF32 gemms (gemm_tf32x3).
inline cublasComputeType_t fast_compute(int compute) {
    return compute == 1 || compute == 4 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                        : compute == 2 ? CUBLAS_COMPUTE_32F_FAST_16BF : CUBLAS_COMPUTE_32F_FAST_16F;
}
/// C := alpha op(A) op(B) + beta C as three TF32 tensor-core gemms of operands split into high and low TF32 parts
/// (kernels/gemm_tf32x3.cu): about float accuracy.
cublasStatus_t gemm_tf32x3(cublasHandle_t h, Op a, Op b, int m, int n, int k, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc);
inline cublasStatus_t gemm_fast(cublasHandle_t h, int compute, Op a, Op b, int m, int n, int k, float alpha,
                                const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
    if (compute == 4) return gemm_tf32x3(h, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return cublasGemmEx(h, op(a), op(b), m, n, k, &alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, &beta, C, CUDA_R_32F,
                        ldc, fast_compute(compute), CUBLAS_GEMM_DEFAULT);
}
/// *result := ||x||_2 (unit stride; host pointer mode: waits for the handle's stream).
inline cublasStatus_t nrm2(cublasHandle_t h, int n, const float* x, float* result) { return cublasSnrm2(h, n, x, 1, result); }
inline cublasStatus_t nrm2(cublasHandle_t h, int n, const double* x, double* result) {
    return cublasDnrm2(h, n, x, 1, result);
}
/// x := alpha x (unit stride).
inline cublasStatus_t scal(cublasHandle_t h, int n, float alpha, float* x) { return cublasSscal(h, n, &alpha, x, 1); }
inline cublasStatus_t scal(cublasHandle_t h, int n, double alpha, double* x) { return cublasDscal(h, n, &alpha, x, 1); }
/// y := alpha op(A) x + beta y (unit strides).
inline cublasStatus_t gemv(cublasHandle_t h, Op a, int m, int n, float alpha, const float* A, int lda, const float* x,
                           float beta, float* y) {
    return cublasSgemv(h, op(a), m, n, &alpha, A, lda, x, 1, &beta, y, 1);
}
inline cublasStatus_t gemv(cublasHandle_t h, Op a, int m, int n, double alpha, const double* A, int lda,
                           const double* x, double beta, double* y) {
    return cublasDgemv(h, op(a), m, n, &alpha, A, lda, x, 1, &beta, y, 1);
}
inline cublasStatus_t syrk(cublasHandle_t h, Uplo u, Op o, int n, int k, float alpha, const float* A, int lda,
                           float beta, float* C, int ldc) {
    return cublasSsyrk(h, uplo(u), op(o), n, k, &alpha, A, lda, &beta, C, ldc);
}
inline cublasStatus_t syrk(cublasHandle_t h, Uplo u, Op o, int n, int k, double alpha, const double* A, int lda,
                           double beta, double* C, int ldc) {
    return cublasDsyrk(h, uplo(u), op(o), n, k, &alpha, A, lda, &beta, C, ldc);
}
inline cublasStatus_t trsm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, float alpha,
                           const float* A, int lda, float* B, int ldb) {
    return cublasStrsm(h, side(s), uplo(u), op(o), diag(d), m, n, &alpha, A, lda, B, ldb);
}
inline cublasStatus_t trsm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, double alpha,
                           const double* A, int lda, double* B, int ldb) {
    return cublasDtrsm(h, side(s), uplo(u), op(o), diag(d), m, n, &alpha, A, lda, B, ldb);
}
inline cusolverStatus_t potrf_buffer_size(cusolverDnHandle_t h, int n, float* A, int lda, int* lwork) {
    return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lwork);
}
inline cusolverStatus_t potrf_buffer_size(cusolverDnHandle_t h, int n, double* A, int lda, int* lwork) {
    return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lwork);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* A, int lda, float* work, int lwork, int* info) {
    return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lwork, info);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* A, int lda, double* work, int lwork, int* info) {
    return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lwork, info);
}

template <typename T> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }

/// Zeroes the strictly upper triangle of the n x n tile A on `stream`.
template <typename T>
void launch_zero_upper(T* A, int n, int ld, cudaStream_t stream);
/// Sets the n x n tile A to the identity on `stream`.
template <typename T>
void launch_identity(T* A, int n, int ld, cudaStream_t stream);

/// After a tile potrf: local = min(devInfo if > 0, first column whose diagonal is not finite and > 0);
/// if local > 0 and *info == 0, *info = offset + local. One block, on `stream`.
template <typename T>
void launch_potrf_info(const T* L, int n, int ld, const int* dev_info, int* info, int64_t offset,
                       cudaStream_t stream);

/// if (*dev_info > 0 && *info == 0) *info = offset + *dev_info; one thread, on `stream`.
void launch_merge_info(const int* dev_info, int* info, int64_t offset, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif
