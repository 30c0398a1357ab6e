// Internal: float/double overloads over the cuBLAS and cuSOLVER calls of the tile QR's CUDA codelets that
// kernels/cuda_blas.hpp does not carry (trmm, geam and the transpose by geam, geqrf; the strided batched gemm of
// the Cholesky QR's Gram matrices). No StarPU.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cusolverDn.h>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {

/// C := alpha op(A) B (left) with A triangular, out of place.
inline cublasStatus_t trmm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, float alpha, const float* A,
                           int lda, const float* B, int ldb, float* C, int ldc) {
    return cublasStrmm(h, side(s), uplo(u), op(o), diag(d), m, n, &alpha, A, lda, B, ldb, C, ldc);
}
inline cublasStatus_t trmm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, double alpha,
                           const double* A, int lda, const double* B, int ldb, double* C, int ldc) {
    return cublasDtrmm(h, side(s), uplo(u), op(o), diag(d), m, n, &alpha, A, lda, B, ldb, C, ldc);
}
/// C := alpha A + beta B (no transposes; C may be A).
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, float alpha, const float* A, int lda, float beta,
                           const float* B, int ldb, float* C, int ldc) {
    return cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &alpha, A, lda, &beta, B, ldb, C, ldc);
}
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, double alpha, const double* A, int lda, double beta,
                           const double* B, int ldb, double* C, int ldc) {
    return cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &alpha, A, lda, &beta, B, ldb, C, ldc);
}
/// B := A^T for the n x m matrix A (B: m x n).
inline cublasStatus_t geam_transpose(cublasHandle_t h, int m, int n, const float* A, int lda, float* B, int ldb) {
    const float one = 1, zero = 0;
    return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, A, lda, &zero, B, ldb, B, ldb);
}
inline cublasStatus_t geam_transpose(cublasHandle_t h, int m, int n, const double* A, int lda, double* B, int ldb) {
    const double one = 1, zero = 0;
    return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, A, lda, &zero, B, ldb, B, ldb);
}
/// C_b := alpha op(A_b) op(B_b) + beta C_b for b < batch, the operands strideA, strideB, strideC apart.
inline cublasStatus_t gemm_strided_batched(cublasHandle_t h, Op a, Op b, int m, int n, int k, float alpha,
                                           const float* A, int lda, long long strideA, const float* B, int ldb,
                                           long long strideB, float beta, float* C, int ldc, long long strideC,
                                           int batch) {
    return cublasSgemmStridedBatched(h, op(a), op(b), m, n, k, &alpha, A, lda, strideA, B, ldb, strideB, &beta, C, ldc,
                                     strideC, batch);
}
inline cublasStatus_t gemm_strided_batched(cublasHandle_t h, Op a, Op b, int m, int n, int k, double alpha,
                                           const double* A, int lda, long long strideA, const double* B, int ldb,
                                           long long strideB, double beta, double* C, int ldc, long long strideC,
                                           int batch) {
    return cublasDgemmStridedBatched(h, op(a), op(b), m, n, k, &alpha, A, lda, strideA, B, ldb, strideB, &beta, C, ldc,
                                     strideC, batch);
}
inline cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, float* A, int lda, int* lwork) {
    return cusolverDnSgeqrf_bufferSize(h, m, n, A, lda, lwork);
}
inline cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, double* A, int lda, int* lwork) {
    return cusolverDnDgeqrf_bufferSize(h, m, n, A, lda, lwork);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* A, int lda, float* tau, float* work,
                              int lwork, int* info) {
    return cusolverDnSgeqrf(h, m, n, A, lda, tau, work, lwork, info);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* A, int lda, double* tau, double* work,
                              int lwork, int* info) {
    return cusolverDnDgeqrf(h, m, n, A, lda, tau, work, lwork, info);
}

}  // namespace starfact::detail::gpu
#endif
