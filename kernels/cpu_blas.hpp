// Internal: float/double overloads over CBLAS and LAPACKE for the CPU codelets.
#pragma once
#include <cblas.h>
#include <lapacke.h>

#include "kernels/blas_types.hpp"

namespace starfact::detail::cpu {

inline CBLAS_SIDE side(Side s) { return s == Side::Left ? CblasLeft : CblasRight; }
inline CBLAS_UPLO uplo(Uplo u) { return u == Uplo::Lower ? CblasLower : CblasUpper; }
inline CBLAS_TRANSPOSE op(Op o) { return o == Op::NoTrans ? CblasNoTrans : CblasTrans; }
inline CBLAS_DIAG diag(Diag d) { return d == Diag::NonUnit ? CblasNonUnit : CblasUnit; }

inline void gemm(Op a, Op b, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {
    cblas_sgemm(CblasColMajor, op(a), op(b), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void gemm(Op a, Op b, int m, int n, int k, double alpha, const double* A, int lda, const double* B,
                 int ldb, double beta, double* C, int ldc) {
    cblas_dgemm(CblasColMajor, op(a), op(b), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void syrk(Uplo u, Op o, int n, int k, float alpha, const float* A, int lda, float beta, float* C, int ldc) {
    cblas_ssyrk(CblasColMajor, uplo(u), op(o), n, k, alpha, A, lda, beta, C, ldc);
}
inline void syrk(Uplo u, Op o, int n, int k, double alpha, const double* A, int lda, double beta, double* C,
                 int ldc) {
    cblas_dsyrk(CblasColMajor, uplo(u), op(o), n, k, alpha, A, lda, beta, C, ldc);
}
inline void trsm(Side s, Uplo u, Op o, Diag d, int m, int n, float alpha, const float* A, int lda, float* B,
                 int ldb) {
    cblas_strsm(CblasColMajor, side(s), uplo(u), op(o), diag(d), m, n, alpha, A, lda, B, ldb);
}
inline void trsm(Side s, Uplo u, Op o, Diag d, int m, int n, double alpha, const double* A, int lda, double* B,
                 int ldb) {
    cblas_dtrsm(CblasColMajor, side(s), uplo(u), op(o), diag(d), m, n, alpha, A, lda, B, ldb);
}
// The _work variants skip LAPACKE's NaN scan of the input: the codelets check the diagonal instead.
inline int potrf(int n, float* A, int lda) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda); }
inline int potrf(int n, double* A, int lda) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda); }

}  // namespace starfact::detail::cpu
