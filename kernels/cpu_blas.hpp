// Internal: the CPU side of the scalar layer's BLAS: one function template per operation over CBLAS (OpenBLAS), with
// the four specialisations s, d, c, z chosen by the element type (kernels/scalar.hpp). Complex operands reach CBLAS
// as the void pointers it takes (std::complex<R> is laid out as R[2]). The LAPACK routines (kernels/cpu_lapack.hpp)
// come with it.
#pragma once
#include <cblas.h>

#include <complex>
#include <type_traits>

#include "kernels/blas_types.hpp"
#include "kernels/cpu_lapack.hpp"
#include "kernels/scalar.hpp"

namespace starfact::detail::cpu {

/// A parameter of type T that takes no part in deducing T (alpha, beta: a literal 1.0 with float operands).
template <typename T>
struct NoDeduce {
    using type = T;
};
template <typename T>
using arg_t = typename NoDeduce<T>::type;

inline CBLAS_SIDE side(Side s) { return s == Side::Left ? CblasLeft : CblasRight; }
inline CBLAS_UPLO uplo(Uplo u) { return u == Uplo::Lower ? CblasLower : CblasUpper; }
inline CBLAS_TRANSPOSE op(Op o) { return o == Op::NoTrans ? CblasNoTrans : o == Op::Trans ? CblasTrans : CblasConjTrans; }
/// op(o) for a T operand: ConjTrans is Trans on real T.
template <typename T>
CBLAS_TRANSPOSE op_of(Op o) {
    return !is_complex_v<T> && o == Op::ConjTrans ? CblasTrans : op(o);
}
inline CBLAS_DIAG diag(Diag d) { return d == Diag::NonUnit ? CblasNonUnit : CblasUnit; }

template <typename T>
constexpr bool is_s = std::is_same<T, float>::value;
template <typename T>
constexpr bool is_d = std::is_same<T, double>::value;
template <typename T>
constexpr bool is_c = std::is_same<T, std::complex<float>>::value;

/// C := alpha op(A) op(B) + beta C.
template <typename T>
void gemm(Op a, Op b, int m, int n, int k, arg_t<T> alpha, const T* A, int lda, const T* B, int ldb, arg_t<T> beta,
          T* C, int ldc) {
    if constexpr (is_s<T>)
        cblas_sgemm(CblasColMajor, op_of<T>(a), op_of<T>(b), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else if constexpr (is_d<T>)
        cblas_dgemm(CblasColMajor, op_of<T>(a), op_of<T>(b), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else if constexpr (is_c<T>)
        cblas_cgemm(CblasColMajor, op_of<T>(a), op_of<T>(b), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else
        cblas_zgemm(CblasColMajor, op_of<T>(a), op_of<T>(b), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

/// y := alpha op(A) x + beta y.
template <typename T>
void gemv(Op a, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* x, int incx, arg_t<T> beta, T* y,
          int incy) {
    if constexpr (is_s<T>)
        cblas_sgemv(CblasColMajor, op_of<T>(a), m, n, alpha, A, lda, x, incx, beta, y, incy);
    else if constexpr (is_d<T>)
        cblas_dgemv(CblasColMajor, op_of<T>(a), m, n, alpha, A, lda, x, incx, beta, y, incy);
    else if constexpr (is_c<T>)
        cblas_cgemv(CblasColMajor, op_of<T>(a), m, n, &alpha, A, lda, x, incx, &beta, y, incy);
    else
        cblas_zgemv(CblasColMajor, op_of<T>(a), m, n, &alpha, A, lda, x, incx, &beta, y, incy);
}

/// x := alpha x.
template <typename T>
void scal(int n, arg_t<T> alpha, T* x, int incx) {
    if constexpr (is_s<T>)
        cblas_sscal(n, alpha, x, incx);
    else if constexpr (is_d<T>)
        cblas_dscal(n, alpha, x, incx);
    else if constexpr (is_c<T>)
        cblas_cscal(n, &alpha, x, incx);
    else
        cblas_zscal(n, &alpha, x, incx);
}

/// A := alpha x y^T + A (unconjugated: geru for complex T, as the LU's rank-one update needs).
template <typename T>
void ger(int m, int n, arg_t<T> alpha, const T* x, int incx, const T* y, int incy, T* A, int lda) {
    if constexpr (is_s<T>)
        cblas_sger(CblasColMajor, m, n, alpha, x, incx, y, incy, A, lda);
    else if constexpr (is_d<T>)
        cblas_dger(CblasColMajor, m, n, alpha, x, incx, y, incy, A, lda);
    else if constexpr (is_c<T>)
        cblas_cgeru(CblasColMajor, m, n, &alpha, x, incx, y, incy, A, lda);
    else
        cblas_zgeru(CblasColMajor, m, n, &alpha, x, incx, y, incy, A, lda);
}

/// C := alpha op(A) op(A)^T + beta C, the uplo triangle (complex symmetric for complex T; the Hermitian one is herk).
template <typename T>
void syrk(Uplo u, Op o, int n, int k, arg_t<T> alpha, const T* A, int lda, arg_t<T> beta, T* C, int ldc) {
    if constexpr (is_s<T>)
        cblas_ssyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
    else if constexpr (is_d<T>)
        cblas_dsyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
    else if constexpr (is_c<T>)
        cblas_csyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, &alpha, A, lda, &beta, C, ldc);
    else
        cblas_zsyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, &alpha, A, lda, &beta, C, ldc);
}

/// C := alpha op(A) op(A)^H + beta C, the uplo triangle, alpha and beta real: herk for complex T (o is NoTrans or
/// ConjTrans), syrk for real T (Trans and ConjTrans alike).
template <typename T>
void herk(Uplo u, Op o, int n, int k, real_t<T> alpha, const T* A, int lda, real_t<T> beta, T* C, int ldc) {
    if constexpr (is_s<T>)
        cblas_ssyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
    else if constexpr (is_d<T>)
        cblas_dsyrk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
    else if constexpr (is_c<T>)
        cblas_cherk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
    else
        cblas_zherk(CblasColMajor, uplo(u), op_of<T>(o), n, k, alpha, A, lda, beta, C, ldc);
}

/// C := alpha A B + beta C (Left) or alpha B A + beta C (Right), A symmetric (its uplo triangle).
template <typename T>
void symm(Side s, Uplo u, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* B, int ldb, arg_t<T> beta,
          T* C, int ldc) {
    if constexpr (is_s<T>)
        cblas_ssymm(CblasColMajor, side(s), uplo(u), m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    else if constexpr (is_d<T>)
        cblas_dsymm(CblasColMajor, side(s), uplo(u), m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    else if constexpr (is_c<T>)
        cblas_csymm(CblasColMajor, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else
        cblas_zsymm(CblasColMajor, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

/// symm with A Hermitian: hemm for complex T, symm for real T.
template <typename T>
void hemm(Side s, Uplo u, int m, int n, arg_t<T> alpha, const T* A, int lda, const T* B, int ldb, arg_t<T> beta,
          T* C, int ldc) {
    if constexpr (is_c<T>)
        cblas_chemm(CblasColMajor, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if constexpr (is_complex_v<T>)
        cblas_zhemm(CblasColMajor, side(s), uplo(u), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else
        symm<T>(s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
}

/// B := alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), A triangular.
template <typename T>
void trsm(Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha, const T* A, int lda, T* B, int ldb) {
    if constexpr (is_s<T>)
        cblas_strsm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, alpha, A, lda, B, ldb);
    else if constexpr (is_d<T>)
        cblas_dtrsm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, alpha, A, lda, B, ldb);
    else if constexpr (is_c<T>)
        cblas_ctrsm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, &alpha, A, lda, B, ldb);
    else
        cblas_ztrsm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, &alpha, A, lda, B, ldb);
}

/// B := alpha op(A) B (Left) or alpha B op(A) (Right), A triangular.
template <typename T>
void trmm(Side s, Uplo u, Op o, Diag d, int m, int n, arg_t<T> alpha, const T* A, int lda, T* B, int ldb) {
    if constexpr (is_s<T>)
        cblas_strmm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, alpha, A, lda, B, ldb);
    else if constexpr (is_d<T>)
        cblas_dtrmm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, alpha, A, lda, B, ldb);
    else if constexpr (is_c<T>)
        cblas_ctrmm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, &alpha, A, lda, B, ldb);
    else
        cblas_ztrmm(CblasColMajor, side(s), uplo(u), op_of<T>(o), diag(d), m, n, &alpha, A, lda, B, ldb);
}

}  // namespace starfact::detail::cpu
