// Internal: the CUDA side of the scalar layer's BLAS and LAPACK: one function template per operation over cuBLAS and
// cuSOLVER, with the four specialisations s, d, c, z chosen by the element type (kernels/scalar.hpp; complex
// operands reach cuBLAS as cuComplex/cuDoubleComplex, which share std::complex's layout), plus the launchers of the
// small tile kernels (kernels/potrf_info.cu, zero_upper.cu, merge_info.cu). No StarPU here: the codelets pass the
// stream and handles (runtime/cuda_contexts.hpp, WorkerStream).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <complex>
#include <cstdint>
#include <type_traits>

#include "kernels/blas_types.hpp"
#include "kernels/cuda_scalar.hpp"
#include "kernels/scalar.hpp"

namespace starfact::detail::gpu {

/// A parameter of type T that takes no part in deducing T (alpha, beta: a literal 1.0 with float operands).
template <typename T>
struct NoDeduce {
    using type = T;
};
template <typename T>
using arg_t = typename NoDeduce<T>::type;

inline cublasSideMode_t side(Side s) { return s == Side::Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
inline cublasFillMode_t uplo(Uplo u) { return u == Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }
inline cublasOperation_t op(Op o) { return o == Op::NoTrans ? CUBLAS_OP_N : o == Op::Trans ? CUBLAS_OP_T : CUBLAS_OP_C; }
inline cublasDiagType_t diag(Diag d) { return d == Diag::NonUnit ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT; }
/// op(o) for a T operand: ConjTrans is Trans on real T.
template <typename T>
cublasOperation_t op_of(Op o) {
    return !is_complex_v<T> && o == Op::ConjTrans ? CUBLAS_OP_T : op(o);
}

/// T's pointers as cuBLAS's: float and double as they are, the complex types as cuComplex and cuDoubleComplex.
inline float* dev(float* p) { return p; }
inline double* dev(double* p) { return p; }
inline cuComplex* dev(std::complex<float>* p) { return reinterpret_cast<cuComplex*>(p); }
inline cuDoubleComplex* dev(std::complex<double>* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
inline const float* dev(const float* p) { return p; }
inline const double* dev(const double* p) { return p; }
inline const cuComplex* dev(const std::complex<float>* p) { return reinterpret_cast<const cuComplex*>(p); }
inline const cuDoubleComplex* dev(const std::complex<double>* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }

template <typename T>
constexpr char letter = lapack_letter<T>();

/// C := alpha op(A) op(B) + beta C.
template <typename T>
cublasStatus_t gemm(cublasHandle_t h, Op a, Op b, int m, int n, int k, arg_t<T> alpha, const T* A, int lda,
                    const T* B, int ldb, arg_t<T> beta, T* C, int ldc) {
    const cublasOperation_t oa = op_of<T>(a), ob = op_of<T>(b);
    if constexpr (letter<T> == 's') return cublasSgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if constexpr (letter<T> == 'd') return cublasDgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCgemm(h, oa, ob, m, n, k, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
    else return cublasZgemm(h, oa, ob, m, n, k, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
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
    return cublasGemmEx(h, op_of<float>(a), op_of<float>(b), m, n, k, &alpha, A, cuda_type<float>(), lda, B,
                        cuda_type<float>(), ldb, &beta, C, cuda_type<float>(), ldc, fast_compute(compute),
                        CUBLAS_GEMM_DEFAULT);
}
/// *result := ||x||_2 (unit stride; host pointer mode: waits for the handle's stream).
/// The same for std::complex<float> tiles (the mixed-precision Hermitian solve's factor, algorithms/
/// mixed_complex_ops.cpp): compute 1 is TF32 on tensor cores (cublasGemmEx on CUDA_C_32F with
/// CUBLAS_COMPUTE_32F_FAST_TF32: cuBLAS rounds the inputs' real and imaginary parts to TF32, float accumulation), 0
/// plain complex float (cublasCgemm's arithmetic). The other tensor-core arithmetics are not taken for complex tiles.
inline cublasStatus_t gemm_fast(cublasHandle_t h, int compute, Op a, Op b, int m, int n, int k,
                                std::complex<float> alpha, const std::complex<float>* A, int lda,
                                const std::complex<float>* B, int ldb, std::complex<float> beta, std::complex<float>* C,
                                int ldc) {
    return cublasGemmEx(h, op(a), op(b), m, n, k, dev(&alpha), A, cuda_type<std::complex<float>>(), lda, B,
                        cuda_type<std::complex<float>>(), ldb, dev(&beta), C, cuda_type<std::complex<float>>(), ldc,
                        compute == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

template <typename T>
cublasStatus_t nrm2(cublasHandle_t h, int n, const T* x, real_t<T>* result) {
    if constexpr (letter<T> == 's') return cublasSnrm2(h, n, x, 1, result);
    else if constexpr (letter<T> == 'd') return cublasDnrm2(h, n, x, 1, result);
    else if constexpr (letter<T> == 'c') return cublasScnrm2(h, n, dev(x), 1, result);
    else return cublasDznrm2(h, n, dev(x), 1, result);
}
/// x := alpha x (unit stride).
template <typename T>
cublasStatus_t scal(cublasHandle_t h, int n, arg_t<T> alpha, T* x) {
    if constexpr (letter<T> == 's') return cublasSscal(h, n, &alpha, x, 1);
    else if constexpr (letter<T> == 'd') return cublasDscal(h, n, &alpha, x, 1);
    else if constexpr (letter<T> == 'c') return cublasCscal(h, n, dev(&alpha), dev(x), 1);
    else return cublasZscal(h, n, dev(&alpha), dev(x), 1);
}
/// y := alpha op(A) x + beta y (unit strides).
template <typename T>
cublasStatus_t gemv(cublasHandle_t h, Op a, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* x,
                    arg_t<T> beta, T* y) {
    const cublasOperation_t oa = op_of<T>(a);
    if constexpr (letter<T> == 's') return cublasSgemv(h, oa, m, n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'd') return cublasDgemv(h, oa, m, n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'c')
        return cublasCgemv(h, oa, m, n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
    else return cublasZgemv(h, oa, m, n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
}
/// y_i := alpha op(A_i) x_i + beta y_i for i < batch, A_i = A + i * stride_a and so on (x and y with strides incx,
/// incy inside one product).
template <typename T>
cublasStatus_t gemv_strided_batched(cublasHandle_t h, Op a, int m, int n, arg_t<T> alpha, const T* A, int lda,
                                    long long stride_a, const T* x, int incx, long long stride_x, arg_t<T> beta, T* y,
                                    int incy, long long stride_y, int batch) {
    const cublasOperation_t oa = op_of<T>(a);
    if constexpr (letter<T> == 's')
        return cublasSgemvStridedBatched(h, oa, m, n, &alpha, A, lda, stride_a, x, incx, stride_x, &beta, y, incy,
                                         stride_y, batch);
    else if constexpr (letter<T> == 'd')
        return cublasDgemvStridedBatched(h, oa, m, n, &alpha, A, lda, stride_a, x, incx, stride_x, &beta, y, incy,
                                         stride_y, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCgemvStridedBatched(h, oa, m, n, dev(&alpha), dev(A), lda, stride_a, dev(x), incx, stride_x,
                                         dev(&beta), dev(y), incy, stride_y, batch);
    else
        return cublasZgemvStridedBatched(h, oa, m, n, dev(&alpha), dev(A), lda, stride_a, dev(x), incx, stride_x,
                                         dev(&beta), dev(y), incy, stride_y, batch);
}
/// C := A diag(x) (Right) or diag(x) A (Left); C may be A.
template <typename T>
cublasStatus_t dgmm(cublasHandle_t h, Side s, int m, int n, const T* A, int lda, const T* x, int incx, T* C,
                    int ldc) {
    if constexpr (letter<T> == 's') return cublasSdgmm(h, side(s), m, n, A, lda, x, incx, C, ldc);
    else if constexpr (letter<T> == 'd') return cublasDdgmm(h, side(s), m, n, A, lda, x, incx, C, ldc);
    else if constexpr (letter<T> == 'c') return cublasCdgmm(h, side(s), m, n, dev(A), lda, dev(x), incx, dev(C), ldc);
    else return cublasZdgmm(h, side(s), m, n, dev(A), lda, dev(x), incx, dev(C), ldc);
}
/// C := alpha op(A) op(A)^T + beta C, the uplo triangle (complex symmetric for complex T; the Hermitian one is herk).
template <typename T>
cublasStatus_t syrk(cublasHandle_t h, Uplo u, Op o, int n, int k, arg_t<T> alpha, const T* A, int lda, arg_t<T> beta,
                    T* C, int ldc) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's') return cublasSsyrk(h, uplo(u), oo, n, k, &alpha, A, lda, &beta, C, ldc);
    else if constexpr (letter<T> == 'd') return cublasDsyrk(h, uplo(u), oo, n, k, &alpha, A, lda, &beta, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCsyrk(h, uplo(u), oo, n, k, dev(&alpha), dev(A), lda, dev(&beta), dev(C), ldc);
    else return cublasZsyrk(h, uplo(u), oo, n, k, dev(&alpha), dev(A), lda, dev(&beta), dev(C), ldc);
}
/// C := alpha op(A) op(A)^H + beta C, the uplo triangle, alpha and beta real: herk for complex T (o is NoTrans or
/// ConjTrans), syrk for real T.
template <typename T>
cublasStatus_t herk(cublasHandle_t h, Uplo u, Op o, int n, int k, real_t<T> alpha, const T* A, int lda,
                    real_t<T> beta, T* C, int ldc) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's') return cublasSsyrk(h, uplo(u), oo, n, k, &alpha, A, lda, &beta, C, ldc);
    else if constexpr (letter<T> == 'd') return cublasDsyrk(h, uplo(u), oo, n, k, &alpha, A, lda, &beta, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCherk(h, uplo(u), oo, n, k, &alpha, dev(A), lda, &beta, dev(C), ldc);
    else return cublasZherk(h, uplo(u), oo, n, k, &alpha, dev(A), lda, &beta, dev(C), ldc);
}
/// C := alpha A B + beta C (Left) or alpha B A + beta C (Right), A symmetric (its uplo triangle).
template <typename T>
cublasStatus_t symm(cublasHandle_t h, Side s, Uplo u, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* B,
                    int ldb, arg_t<T> beta, T* C, int ldc) {
    if constexpr (letter<T> == 's')
        return cublasSsymm(h, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if constexpr (letter<T> == 'd')
        return cublasDsymm(h, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCsymm(h, side(s), uplo(u), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
    else return cublasZsymm(h, side(s), uplo(u), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
}
/// C := alpha A B + beta C (Left) or alpha B A + beta C (Right), A Hermitian (its `u` triangle; the imaginary parts
/// of its diagonal taken as zero); symm on the real types.
template <typename T>
cublasStatus_t hemm(cublasHandle_t h, Side s, Uplo u, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* B,
                    int ldb, arg_t<T> beta, T* C, int ldc) {
    if constexpr (!is_complex_v<T>) return symm(h, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasChemm(h, side(s), uplo(u), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
    else return cublasZhemm(h, side(s), uplo(u), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(&beta), dev(C), ldc);
}
/// y := alpha A x + beta y, A symmetric (its uplo triangle), unit strides.
template <typename T>
cublasStatus_t symv(cublasHandle_t h, Uplo u, int n, arg_t<T> alpha, const T* A, int lda, const T* x, arg_t<T> beta,
                    T* y) {
    if constexpr (letter<T> == 's') return cublasSsymv(h, uplo(u), n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'd') return cublasDsymv(h, uplo(u), n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'c')
        return cublasCsymv(h, uplo(u), n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
    else return cublasZsymv(h, uplo(u), n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
}
/// B := alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), A triangular.
template <typename T>
cublasStatus_t trsm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha, const T* A, int lda,
                    T* B, int ldb) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's')
        return cublasStrsm(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb);
    else if constexpr (letter<T> == 'd')
        return cublasDtrsm(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb);
    else if constexpr (letter<T> == 'c')
        return cublasCtrsm(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev(A), lda, dev(B), ldb);
    else return cublasZtrsm(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev(A), lda, dev(B), ldb);
}
/// C := alpha op(A) B (Left) or alpha B op(A) (Right), A triangular, out of place.
template <typename T>
cublasStatus_t trmm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha, const T* A, int lda,
                    const T* B, int ldb, T* C, int ldc) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's')
        return cublasStrmm(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb, C, ldc);
    else if constexpr (letter<T> == 'd')
        return cublasDtrmm(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCtrmm(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(C), ldc);
    else
        return cublasZtrmm(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev(A), lda, dev(B), ldb, dev(C), ldc);
}
/// B := alpha op(A) B (Left) or alpha B op(A) (Right), A triangular, in place (cuBLAS's trmm writes its C: B here).
template <typename T>
cublasStatus_t trmm(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha, const T* A, int lda,
                    T* B, int ldb) {
    return trmm<T>(h, s, u, o, d, m, n, alpha, A, lda, B, ldb, B, ldb);
}
/// C := alpha op(A) + beta op(B) (C may be A or B when its op is NoTrans).
template <typename T>
cublasStatus_t geam(cublasHandle_t h, Op a, Op b, int m, int n, arg_t<T> alpha, const T* A, int lda, arg_t<T> beta,
                    const T* B, int ldb, T* C, int ldc) {
    const cublasOperation_t oa = op_of<T>(a), ob = op_of<T>(b);
    if constexpr (letter<T> == 's') return cublasSgeam(h, oa, ob, m, n, &alpha, A, lda, &beta, B, ldb, C, ldc);
    else if constexpr (letter<T> == 'd') return cublasDgeam(h, oa, ob, m, n, &alpha, A, lda, &beta, B, ldb, C, ldc);
    else if constexpr (letter<T> == 'c')
        return cublasCgeam(h, oa, ob, m, n, dev(&alpha), dev(A), lda, dev(&beta), dev(B), ldb, dev(C), ldc);
    else return cublasZgeam(h, oa, ob, m, n, dev(&alpha), dev(A), lda, dev(&beta), dev(B), ldb, dev(C), ldc);
}
/// C := alpha A + beta B (no transposes; C may be A or B).
template <typename T>
cublasStatus_t geam(cublasHandle_t h, int m, int n, arg_t<T> alpha, const T* A, int lda, arg_t<T> beta, const T* B,
                    int ldb, T* C, int ldc) {
    return geam<T>(h, Op::NoTrans, Op::NoTrans, m, n, alpha, A, lda, beta, B, ldb, C, ldc);
}
/// B := A^T for the n x m matrix A (B: m x n; not conjugated).
template <typename T>
cublasStatus_t geam_transpose(cublasHandle_t h, int m, int n, const T* A, int lda, T* B, int ldb) {
    return geam<T>(h, Op::Trans, Op::NoTrans, m, n, T(1), A, lda, T(0), B, ldb, B, ldb);
}
/// C_b := alpha op(A_b) op(B_b) + beta C_b for b < batch, the operands strideA, strideB, strideC apart.
template <typename T>
cublasStatus_t gemm_strided_batched(cublasHandle_t h, Op a, Op b, int m, int n, int k, arg_t<T> alpha, const T* A,
                                    int lda, long long strideA, const T* B, int ldb, long long strideB, arg_t<T> beta,
                                    T* C, int ldc, long long strideC, int batch) {
    const cublasOperation_t oa = op_of<T>(a), ob = op_of<T>(b);
    if constexpr (letter<T> == 's')
        return cublasSgemmStridedBatched(h, oa, ob, m, n, k, &alpha, A, lda, strideA, B, ldb, strideB, &beta, C, ldc,
                                         strideC, batch);
    else if constexpr (letter<T> == 'd')
        return cublasDgemmStridedBatched(h, oa, ob, m, n, k, &alpha, A, lda, strideA, B, ldb, strideB, &beta, C, ldc,
                                         strideC, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCgemmStridedBatched(h, oa, ob, m, n, k, dev(&alpha), dev(A), lda, strideA, dev(B), ldb, strideB,
                                         dev(&beta), dev(C), ldc, strideC, batch);
    else
        return cublasZgemmStridedBatched(h, oa, ob, m, n, k, dev(&alpha), dev(A), lda, strideA, dev(B), ldb, strideB,
                                         dev(&beta), dev(C), ldc, strideC, batch);
}
/// The workspace (elements of T) of geqrf on an m x n matrix.
template <typename T>
cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, T* A, int lda, int* lwork) {
    if constexpr (letter<T> == 's') return cusolverDnSgeqrf_bufferSize(h, m, n, A, lda, lwork);
    else if constexpr (letter<T> == 'd') return cusolverDnDgeqrf_bufferSize(h, m, n, A, lda, lwork);
    else if constexpr (letter<T> == 'c') return cusolverDnCgeqrf_bufferSize(h, m, n, dev(A), lda, lwork);
    else return cusolverDnZgeqrf_bufferSize(h, m, n, dev(A), lda, lwork);
}
/// A = Q R (Householder, LAPACK's layout: R on and above the diagonal, the reflectors below, tau); *info (device).
template <typename T>
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* A, int lda, T* tau, T* work, int lwork, int* info) {
    if constexpr (letter<T> == 's') return cusolverDnSgeqrf(h, m, n, A, lda, tau, work, lwork, info);
    else if constexpr (letter<T> == 'd') return cusolverDnDgeqrf(h, m, n, A, lda, tau, work, lwork, info);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCgeqrf(h, m, n, dev(A), lda, dev(tau), dev(work), lwork, info);
    else return cusolverDnZgeqrf(h, m, n, dev(A), lda, dev(tau), dev(work), lwork, info);
}
/// The workspace (elements of T) of potrf on an n x n lower tile.
template <typename T>
cusolverStatus_t potrf_buffer_size(cusolverDnHandle_t h, int n, T* A, int lda, int* lwork) {
    if constexpr (letter<T> == 's') return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lwork);
    else if constexpr (letter<T> == 'd') return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lwork);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dev(A), lda, lwork);
    else return cusolverDnZpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dev(A), lda, lwork);
}
/// A = L L^H of the lower triangle of the n x n A; *info (device) as LAPACK's.
template <typename T>
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, T* A, int lda, T* work, int lwork, int* info) {
    if constexpr (letter<T> == 's') return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lwork, info);
    else if constexpr (letter<T> == 'd') return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lwork, info);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dev(A), lda, dev(work), lwork, info);
    else return cusolverDnZpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dev(A), lda, dev(work), lwork, info);
}
/// The workspace (elements of T) of getrf on an m x n panel.
template <typename T>
cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int m, int n, T* A, int lda, int* lwork) {
    if constexpr (letter<T> == 's') return cusolverDnSgetrf_bufferSize(h, m, n, A, lda, lwork);
    else if constexpr (letter<T> == 'd') return cusolverDnDgetrf_bufferSize(h, m, n, A, lda, lwork);
    else if constexpr (letter<T> == 'c') return cusolverDnCgetrf_bufferSize(h, m, n, dev(A), lda, lwork);
    else return cusolverDnZgetrf_bufferSize(h, m, n, dev(A), lda, lwork);
}
/// P A = L U of the m x n A with partial pivoting; ipiv (device) 1-based, *info (device) as LAPACK's.
template <typename T>
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* A, int lda, T* work, int* ipiv, int* info) {
    if constexpr (letter<T> == 's') return cusolverDnSgetrf(h, m, n, A, lda, work, ipiv, info);
    else if constexpr (letter<T> == 'd') return cusolverDnDgetrf(h, m, n, A, lda, work, ipiv, info);
    else if constexpr (letter<T> == 'c') return cusolverDnCgetrf(h, m, n, dev(A), lda, dev(work), ipiv, info);
    else return cusolverDnZgetrf(h, m, n, dev(A), lda, dev(work), ipiv, info);
}

// ---- batched routines (pointer arrays in device memory; the batched API's vendor path, kernels/batched_vendor/) ----

/// T's device pointer arrays as cuBLAS's and cuSOLVER's (the routines take them with their own constness).
template <typename T>
auto dev_array(T* const* p) {
    using D = std::remove_pointer_t<decltype(dev(static_cast<T*>(nullptr)))>;
    return const_cast<D**>(reinterpret_cast<D* const*>(p));
}
template <typename T>
auto dev_array(const T* const* p) {
    using D = std::remove_pointer_t<decltype(dev(static_cast<const T*>(nullptr)))>;
    return reinterpret_cast<D* const*>(p);
}

/// A_i = L_i L_i^H of the lower triangle of each n x n A[i]; infoArray[i] (device) as LAPACK's.
template <typename T>
cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int n, T* const* A, int lda, int* info, int batch) {
    constexpr cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    if constexpr (letter<T> == 's') return cusolverDnSpotrfBatched(h, lo, n, dev_array(A), lda, info, batch);
    else if constexpr (letter<T> == 'd') return cusolverDnDpotrfBatched(h, lo, n, dev_array(A), lda, info, batch);
    else if constexpr (letter<T> == 'c') return cusolverDnCpotrfBatched(h, lo, n, dev_array(A), lda, info, batch);
    else return cusolverDnZpotrfBatched(h, lo, n, dev_array(A), lda, info, batch);
}
/// B[i] := A_i^-1 B[i] from potrf_batched's lower factors L[i]; cuSOLVER takes one right-hand side only (nrhs = 1),
/// and writes the upper triangle of L[i] (seen on an H200 with CUDA 13: the batched API solves with trsm_batched).
/// *info (device, one int) reports a wrong argument.
template <typename T>
cusolverStatus_t potrs_batched(cusolverDnHandle_t h, int n, int nrhs, T* const* L, int lda, T* const* B, int ldb,
                               int* info, int batch) {
    constexpr cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    if constexpr (letter<T> == 's')
        return cusolverDnSpotrsBatched(h, lo, n, nrhs, dev_array(L), lda, dev_array(B), ldb, info, batch);
    else if constexpr (letter<T> == 'd')
        return cusolverDnDpotrsBatched(h, lo, n, nrhs, dev_array(L), lda, dev_array(B), ldb, info, batch);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCpotrsBatched(h, lo, n, nrhs, dev_array(L), lda, dev_array(B), ldb, info, batch);
    else return cusolverDnZpotrsBatched(h, lo, n, nrhs, dev_array(L), lda, dev_array(B), ldb, info, batch);
}
/// B[i] := alpha op(A[i])^-1 B[i] (Left) or alpha B[i] op(A[i])^-1 (Right), A[i] triangular.
template <typename T>
cublasStatus_t trsm_batched(cublasHandle_t h, Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha,
                            const T* const* A, int lda, T* const* B, int ldb, int batch) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's')
        return cublasStrsmBatched(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb, batch);
    else if constexpr (letter<T> == 'd')
        return cublasDtrsmBatched(h, side(s), uplo(u), oo, diag(d), m, n, &alpha, A, lda, B, ldb, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCtrsmBatched(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev_array(A), lda,
                                  dev_array(B), ldb, batch);
    else
        return cublasZtrsmBatched(h, side(s), uplo(u), oo, diag(d), m, n, dev(&alpha), dev_array(A), lda,
                                  dev_array(B), ldb, batch);
}
/// P_i A_i = L_i U_i of each n x n A[i]; the 1-based pivots of member i at piv + i * n, info[i] (device) as LAPACK's.
template <typename T>
cublasStatus_t getrf_batched(cublasHandle_t h, int n, T* const* A, int lda, int* piv, int* info, int batch) {
    if constexpr (letter<T> == 's') return cublasSgetrfBatched(h, n, A, lda, piv, info, batch);
    else if constexpr (letter<T> == 'd') return cublasDgetrfBatched(h, n, A, lda, piv, info, batch);
    else if constexpr (letter<T> == 'c') return cublasCgetrfBatched(h, n, dev_array(A), lda, piv, info, batch);
    else return cublasZgetrfBatched(h, n, dev_array(A), lda, piv, info, batch);
}
/// B[i] := op(A_i)^-1 B[i] from getrf_batched's factors and pivots (piv + i * n); *info (host) reports a wrong
/// argument.
template <typename T>
cublasStatus_t getrs_batched(cublasHandle_t h, Op o, int n, int nrhs, const T* const* LU, int lda, const int* piv,
                             T* const* B, int ldb, int* info, int batch) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's') return cublasSgetrsBatched(h, oo, n, nrhs, LU, lda, piv, B, ldb, info, batch);
    else if constexpr (letter<T> == 'd') return cublasDgetrsBatched(h, oo, n, nrhs, LU, lda, piv, B, ldb, info, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCgetrsBatched(h, oo, n, nrhs, dev_array(LU), lda, piv, dev_array(B), ldb, info, batch);
    else return cublasZgetrsBatched(h, oo, n, nrhs, dev_array(LU), lda, piv, dev_array(B), ldb, info, batch);
}
/// C[i] := A_i^-1 from getrf_batched's factors LU[i] and pivots (out of place); info[i] (device).
template <typename T>
cublasStatus_t getri_batched(cublasHandle_t h, int n, const T* const* LU, int lda, const int* piv, T* const* C,
                             int ldc, int* info, int batch) {
    if constexpr (letter<T> == 's') return cublasSgetriBatched(h, n, LU, lda, piv, C, ldc, info, batch);
    else if constexpr (letter<T> == 'd') return cublasDgetriBatched(h, n, LU, lda, piv, C, ldc, info, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCgetriBatched(h, n, dev_array(LU), lda, piv, dev_array(C), ldc, info, batch);
    else return cublasZgetriBatched(h, n, dev_array(LU), lda, piv, dev_array(C), ldc, info, batch);
}

/// Zeroes the strictly upper triangle of the n x n tile A on `stream`. T: s, d, c, z.
template <typename T>
void launch_zero_upper(T* A, int n, int ld, cudaStream_t stream);
/// Sets the n x n tile A to the identity on `stream`.
template <typename T>
void launch_identity(T* A, int n, int ld, cudaStream_t stream);

/// After a tile potrf: local = min(devInfo if > 0, first column whose diagonal (its real part, for complex T) is not
/// finite and > 0); if local > 0 and *info == 0, *info = offset + local. One block, on `stream`. T: s, d, c, z.
template <typename T>
void launch_potrf_info(const T* L, int n, int ld, const int* dev_info, int* info, int64_t offset,
                       cudaStream_t stream);

/// if (*dev_info > 0 && *info == 0) *info = offset + *dev_info; one thread, on `stream`.
void launch_merge_info(const int* dev_info, int* info, int64_t offset, cudaStream_t stream);


// ---- 64-bit-index BLAS 1 and 2 (cuBLAS's _64 entry points: vectors and matrices past 2^31 entries) and the batched
// inverse ----

/// *result := ||x||_2 over `count` entries (unit stride; host pointer mode).
template <typename T>
cublasStatus_t nrm2_64(cublasHandle_t h, int64_t count, const T* x, real_t<T>* result) {
    if constexpr (letter<T> == 's') return cublasSnrm2_64(h, count, x, 1, result);
    else if constexpr (letter<T> == 'd') return cublasDnrm2_64(h, count, x, 1, result);
    else if constexpr (letter<T> == 'c') return cublasScnrm2_64(h, count, dev(x), 1, result);
    else return cublasDznrm2_64(h, count, dev(x), 1, result);
}
/// y += alpha x over `count` entries (unit strides).
template <typename T>
cublasStatus_t axpy_64(cublasHandle_t h, int64_t count, arg_t<T> alpha, const T* x, T* y) {
    if constexpr (letter<T> == 's') return cublasSaxpy_64(h, count, &alpha, x, 1, y, 1);
    else if constexpr (letter<T> == 'd') return cublasDaxpy_64(h, count, &alpha, x, 1, y, 1);
    else if constexpr (letter<T> == 'c') return cublasCaxpy_64(h, count, dev(&alpha), dev(x), 1, dev(y), 1);
    else return cublasZaxpy_64(h, count, dev(&alpha), dev(x), 1, dev(y), 1);
}
/// y := alpha op(A) x + beta y, A m x n (unit strides).
template <typename T>
cublasStatus_t gemv_64(cublasHandle_t h, Op a, int64_t m, int64_t n, arg_t<T> alpha, const T* A, int64_t lda,
                       const T* x, arg_t<T> beta, T* y) {
    const cublasOperation_t oa = op_of<T>(a);
    if constexpr (letter<T> == 's') return cublasSgemv_64(h, oa, m, n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'd') return cublasDgemv_64(h, oa, m, n, &alpha, A, lda, x, 1, &beta, y, 1);
    else if constexpr (letter<T> == 'c')
        return cublasCgemv_64(h, oa, m, n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
    else return cublasZgemv_64(h, oa, m, n, dev(&alpha), dev(A), lda, dev(x), 1, dev(&beta), dev(y), 1);
}
/// C[i] := A[i]^-1 for each n x n A[i] (out of place, n <= 32); info[i] (device) as LAPACK's getrf's.
template <typename T>
cublasStatus_t matinv_batched(cublasHandle_t h, int n, const T* const* A, int lda, T* const* C, int ldc, int* info,
                              int batch) {
    if constexpr (letter<T> == 's') return cublasSmatinvBatched(h, n, A, lda, C, ldc, info, batch);
    else if constexpr (letter<T> == 'd') return cublasDmatinvBatched(h, n, A, lda, C, ldc, info, batch);
    else if constexpr (letter<T> == 'c')
        return cublasCmatinvBatched(h, n, dev_array(A), lda, dev_array(C), ldc, info, batch);
    else return cublasZmatinvBatched(h, n, dev_array(A), lda, dev_array(C), ldc, info, batch);
}

// ---- the references' routines: the vendor baselines (support/) and the tests' cuSOLVER answers ----

/// The workspace (elements of T) of potri on an n x n lower factor.
template <typename T>
cusolverStatus_t potri_buffer_size(cusolverDnHandle_t h, int n, T* A, int lda, int* lwork) {
    constexpr cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    if constexpr (letter<T> == 's') return cusolverDnSpotri_bufferSize(h, lo, n, A, lda, lwork);
    else if constexpr (letter<T> == 'd') return cusolverDnDpotri_bufferSize(h, lo, n, A, lda, lwork);
    else if constexpr (letter<T> == 'c') return cusolverDnCpotri_bufferSize(h, lo, n, dev(A), lda, lwork);
    else return cusolverDnZpotri_bufferSize(h, lo, n, dev(A), lda, lwork);
}
/// A := A^-1 (its lower triangle) of the SPD n x n A from potrf's lower factor in A; *info (device) as LAPACK's.
template <typename T>
cusolverStatus_t potri(cusolverDnHandle_t h, int n, T* A, int lda, T* work, int lwork, int* info) {
    constexpr cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    if constexpr (letter<T> == 's') return cusolverDnSpotri(h, lo, n, A, lda, work, lwork, info);
    else if constexpr (letter<T> == 'd') return cusolverDnDpotri(h, lo, n, A, lda, work, lwork, info);
    else if constexpr (letter<T> == 'c') return cusolverDnCpotri(h, lo, n, dev(A), lda, dev(work), lwork, info);
    else return cusolverDnZpotri(h, lo, n, dev(A), lda, dev(work), lwork, info);
}
/// The workspace (elements of T) of ormqr with the same arguments.
template <typename T>
cusolverStatus_t ormqr_buffer_size(cusolverDnHandle_t h, Side s, Op o, int m, int n, int k, const T* A, int lda,
                                   const T* tau, const T* C, int ldc, int* lwork) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's')
        return cusolverDnSormqr_bufferSize(h, side(s), oo, m, n, k, A, lda, tau, C, ldc, lwork);
    else if constexpr (letter<T> == 'd')
        return cusolverDnDormqr_bufferSize(h, side(s), oo, m, n, k, A, lda, tau, C, ldc, lwork);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCunmqr_bufferSize(h, side(s), oo, m, n, k, dev(A), lda, dev(tau), dev(C), ldc, lwork);
    else return cusolverDnZunmqr_bufferSize(h, side(s), oo, m, n, k, dev(A), lda, dev(tau), dev(C), ldc, lwork);
}
/// C (m x n) := op(Q) C (Left) or C op(Q) (Right), Q the product of geqrf's k reflectors in A and tau (ormqr;
/// unmqr for complex T, whose o is NoTrans or ConjTrans); *info (device) as LAPACK's.
template <typename T>
cusolverStatus_t ormqr(cusolverDnHandle_t h, Side s, Op o, int m, int n, int k, const T* A, int lda, const T* tau,
                       T* C, int ldc, T* work, int lwork, int* info) {
    const cublasOperation_t oo = op_of<T>(o);
    if constexpr (letter<T> == 's')
        return cusolverDnSormqr(h, side(s), oo, m, n, k, A, lda, tau, C, ldc, work, lwork, info);
    else if constexpr (letter<T> == 'd')
        return cusolverDnDormqr(h, side(s), oo, m, n, k, A, lda, tau, C, ldc, work, lwork, info);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCunmqr(h, side(s), oo, m, n, k, dev(A), lda, dev(tau), dev(C), ldc, dev(work), lwork, info);
    else return cusolverDnZunmqr(h, side(s), oo, m, n, k, dev(A), lda, dev(tau), dev(C), ldc, dev(work), lwork, info);
}
/// The workspace (elements of T) of orgqr with the same arguments.
template <typename T>
cusolverStatus_t orgqr_buffer_size(cusolverDnHandle_t h, int m, int n, int k, const T* A, int lda, const T* tau,
                                   int* lwork) {
    if constexpr (letter<T> == 's') return cusolverDnSorgqr_bufferSize(h, m, n, k, A, lda, tau, lwork);
    else if constexpr (letter<T> == 'd') return cusolverDnDorgqr_bufferSize(h, m, n, k, A, lda, tau, lwork);
    else if constexpr (letter<T> == 'c') return cusolverDnCungqr_bufferSize(h, m, n, k, dev(A), lda, dev(tau), lwork);
    else return cusolverDnZungqr_bufferSize(h, m, n, k, dev(A), lda, dev(tau), lwork);
}
/// A := the first n columns (m >= n >= k) of the m x m Q of geqrf's k reflectors in A and tau (orgqr; ungqr for
/// complex T); *info (device) as LAPACK's.
template <typename T>
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* A, int lda, const T* tau, T* work, int lwork,
                       int* info) {
    if constexpr (letter<T> == 's') return cusolverDnSorgqr(h, m, n, k, A, lda, tau, work, lwork, info);
    else if constexpr (letter<T> == 'd') return cusolverDnDorgqr(h, m, n, k, A, lda, tau, work, lwork, info);
    else if constexpr (letter<T> == 'c')
        return cusolverDnCungqr(h, m, n, k, dev(A), lda, dev(tau), dev(work), lwork, info);
    else return cusolverDnZungqr(h, m, n, k, dev(A), lda, dev(tau), dev(work), lwork, info);
}

}  // namespace starfact::detail::gpu
#endif
