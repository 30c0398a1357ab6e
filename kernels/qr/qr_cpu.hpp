// Internal: float/double overloads over LAPACKE's tile-QR kernels (geqrt, gemqrt, tpqrt, tpmqrt) for the CPU
// codelets of codelets/qr_tile.cpp. The _work variants: the workspace comes from the caller, and no NaN scan.
#pragma once
#include <lapacke.h>

namespace starfact::detail::cpu {

/// QR of an m x n tile in place, T (ib x min(m, n)) of blocks of ib reflectors. work: ib * n.
inline int geqrt(int m, int n, int ib, float* A, int lda, float* T, int ldt, float* work) {
    return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, A, lda, T, ldt, work);
}
inline int geqrt(int m, int n, int ib, double* A, int lda, double* T, int ldt, double* work) {
    return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, A, lda, T, ldt, work);
}
/// C (m x n) := op(Q) C (side 'L', V m x k) or C op(Q) (side 'R', V n x k), Q of geqrt's k reflectors.
/// work: ib * n (left) or ib * m (right).
inline int gemqrt(char side, char trans, int m, int n, int k, int ib, const float* V, int ldv, const float* T,
                  int ldt, float* C, int ldc, float* work) {
    return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, V, ldv, T, ldt, C, ldc, work);
}
inline int gemqrt(char side, char trans, int m, int n, int k, int ib, const double* V, int ldv, const double* T,
                  int ldt, double* C, int ldc, double* work) {
    return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, V, ldv, T, ldt, C, ldc, work);
}
/// QR of [A; B], A n x n upper triangular, B m x n with its last l rows upper trapezoidal (l = 0: full, the TS
/// kernel; l = min(m, n): triangular, the TT kernel). work: ib * n.
inline int tpqrt(int m, int n, int l, int ib, float* A, int lda, float* B, int ldb, float* T, int ldt, float* work) {
    return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, A, lda, B, ldb, T, ldt, work);
}
inline int tpqrt(int m, int n, int l, int ib, double* A, int lda, double* B, int ldb, double* T, int ldt,
                 double* work) {
    return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, A, lda, B, ldb, T, ldt, work);
}
/// [A; B] := op(Q) [A; B] (side 'L': V m x k, l as tpqrt's, A k x n, B m x n) or [A B] := [A B] op(Q) (side 'R':
/// V n x k, A m x k, B m x n), Q of tpqrt's k reflectors. work: ib * n (left) or ib * m (right).
inline int tpmqrt(char side, char trans, int m, int n, int k, int l, int ib, const float* V, int ldv, const float* T,
                  int ldt, float* A, int lda, float* B, int ldb, float* work) {
    return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, V, ldv, T, ldt, A, lda, B, ldb, work);
}
inline int tpmqrt(char side, char trans, int m, int n, int k, int l, int ib, const double* V, int ldv,
                  const double* T, int ldt, double* A, int lda, double* B, int ldb, double* work) {
    return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, V, ldv, T, ldt, A, lda, B, ldb, work);
}

}  // namespace starfact::detail::cpu
