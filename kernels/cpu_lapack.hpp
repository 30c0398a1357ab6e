// Internal: the CPU side of the scalar layer's LAPACK: one function template per routine over LAPACKE's _work
// variants (no NaN scan of the input: the codelets check what they compute), with the four specialisations s, d, c,
// z chosen by the element type (kernels/scalar.hpp). Column-major; the return value is LAPACK's info.
#pragma once
#include <lapacke.h>

#include <complex>
#include <type_traits>

#include "kernels/scalar.hpp"

namespace starfact::detail::cpu {

namespace lapack {
/// T's array as LAPACKE's complex type (std::complex<R> and LAPACKE's complex have R[2]'s layout); real arrays as is.
inline float* in(float* p) { return p; }
inline double* in(double* p) { return p; }
inline lapack_complex_float* in(std::complex<float>* p) { return reinterpret_cast<lapack_complex_float*>(p); }
inline lapack_complex_double* in(std::complex<double>* p) { return reinterpret_cast<lapack_complex_double*>(p); }
inline const float* in(const float* p) { return p; }
inline const double* in(const double* p) { return p; }
inline const lapack_complex_float* in(const std::complex<float>* p) {
    return reinterpret_cast<const lapack_complex_float*>(p);
}
inline const lapack_complex_double* in(const std::complex<double>* p) {
    return reinterpret_cast<const lapack_complex_double*>(p);
}
template <typename T>
constexpr char letter = lapack_letter<T>();
}  // namespace lapack

/// A = L L^H of the lower triangle of the n x n A (L L^T for real T).
template <typename T>
int potrf(int n, T* A, int lda) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'd') return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'c') return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
}

/// B := A^-1 B from potrf's lower factor L of A.
template <typename T>
int potrs(int n, int nrhs, const T* L, int lda, T* B, int ldb) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_spotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(L), lda, in(B), ldb);
    else if constexpr (letter<T> == 'd') return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(L), lda, in(B), ldb);
    else if constexpr (letter<T> == 'c') return LAPACKE_cpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(L), lda, in(B), ldb);
    else return LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(L), lda, in(B), ldb);
}

/// P A = L U of the m x n A with partial pivoting; ipiv 1-based.
template <typename T>
int getrf(int m, int n, T* A, int lda, lapack_int* ipiv) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, in(A), lda, ipiv);
    else if constexpr (letter<T> == 'd') return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, in(A), lda, ipiv);
    else if constexpr (letter<T> == 'c') return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n, in(A), lda, ipiv);
    else return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, in(A), lda, ipiv);
}

/// A := A^-1 from getrf's factors; work holds lwork elements.
template <typename T>
int getri(int n, T* A, int lda, const lapack_int* ipiv, T* work, int lwork) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgetri_work(LAPACK_COL_MAJOR, n, in(A), lda, ipiv, in(work), lwork);
    else if constexpr (letter<T> == 'd') return LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, in(A), lda, ipiv, in(work), lwork);
    else if constexpr (letter<T> == 'c') return LAPACKE_cgetri_work(LAPACK_COL_MAJOR, n, in(A), lda, ipiv, in(work), lwork);
    else return LAPACKE_zgetri_work(LAPACK_COL_MAJOR, n, in(A), lda, ipiv, in(work), lwork);
}

/// B := op(A)^-1 B from getrf's factors.
template <typename T>
int getrs(char trans, int n, int nrhs, const T* A, int lda, const lapack_int* ipiv, T* B, int ldb) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else if constexpr (letter<T> == 'd') return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else if constexpr (letter<T> == 'c') return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, in(A), lda, ipiv, in(B), ldb);
}

/// A := A^-1 of the lower triangular, non-unit n x n A.
template <typename T>
int trtri(int n, T* A, int lda) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, in(A), lda);
    else if constexpr (letter<T> == 'd') return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, in(A), lda);
    else if constexpr (letter<T> == 'c') return LAPACKE_ctrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, in(A), lda);
    else return LAPACKE_ztrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, in(A), lda);
}

/// A := L^H L of the lower triangle L of the n x n A (L^T L for real T).
template <typename T>
int lauum(int n, T* A, int lda) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_slauum_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'd') return LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'c') return LAPACKE_clauum_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else return LAPACKE_zlauum_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
}

/// The QR of the m x n A in place in blocks of ib reflectors (V below the diagonal, R on and above it), their
/// triangular factors in Tm (ib x min(m, n)). work: ib * n.
template <typename T>
int geqrt(int m, int n, int ib, T* A, int lda, T* Tm, int ldt, T* work) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, in(A), lda, in(Tm), ldt, in(work));
    else if constexpr (letter<T> == 'd') return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, in(A), lda, in(Tm), ldt, in(work));
    else if constexpr (letter<T> == 'c') return LAPACKE_cgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, in(A), lda, in(Tm), ldt, in(work));
    else return LAPACKE_zgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, in(A), lda, in(Tm), ldt, in(work));
}

/// C (m x n) := op(Q) C (side 'L', V m x k) or C op(Q) (side 'R', V n x k) with the Q of geqrt's k reflectors
/// (V, Tm); trans 'N', or 'T' for real T and 'C' for complex T. work: ib * n (left) or ib * m (right).
template <typename T>
int gemqrt(char side, char trans, int m, int n, int k, int ib, const T* V, int ldv, const T* Tm, int ldt, T* C,
           int ldc, T* work) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, in(V), ldv, in(Tm), ldt, in(C), ldc, in(work));
    else if constexpr (letter<T> == 'd') return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, in(V), ldv, in(Tm), ldt, in(C), ldc, in(work));
    else if constexpr (letter<T> == 'c') return LAPACKE_cgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, in(V), ldv, in(Tm), ldt, in(C), ldc, in(work));
    else return LAPACKE_zgemqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, ib, in(V), ldv, in(Tm), ldt, in(C), ldc, in(work));
}

/// The QR of [A; B], A n x n upper triangular, B m x n with its last l rows upper trapezoidal (l = 0: a full B, the
/// TS kernel; l = min(m, n): a triangular one, the TT kernel): A := the new R, B := the reflectors, Tm (ib x n) their
/// triangular factors. work: ib * n.
template <typename T>
int tpqrt(int m, int n, int l, int ib, T* A, int lda, T* B, int ldb, T* Tm, int ldt, T* work) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, in(A), lda, in(B), ldb, in(Tm), ldt, in(work));
    else if constexpr (letter<T> == 'd') return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, in(A), lda, in(B), ldb, in(Tm), ldt, in(work));
    else if constexpr (letter<T> == 'c') return LAPACKE_ctpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, in(A), lda, in(B), ldb, in(Tm), ldt, in(work));
    else return LAPACKE_ztpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, in(A), lda, in(B), ldb, in(Tm), ldt, in(work));
}

/// [A; B] := op(Q) [A; B] (side 'L': V m x k with tpqrt's l, A k x n, B m x n) or [A B] := [A B] op(Q) (side 'R':
/// V n x k, A m x k, B m x n) with the Q of tpqrt's k reflectors (V, Tm); trans as gemqrt's. work: ib * n (left) or
/// ib * m (right).
template <typename T>
int tpmqrt(char side, char trans, int m, int n, int k, int l, int ib, const T* V, int ldv, const T* Tm, int ldt, T* A,
           int lda, T* B, int ldb, T* work) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, in(V), ldv, in(Tm), ldt, in(A), lda, in(B), ldb, in(work));
    else if constexpr (letter<T> == 'd') return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, in(V), ldv, in(Tm), ldt, in(A), lda, in(B), ldb, in(work));
    else if constexpr (letter<T> == 'c') return LAPACKE_ctpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, in(V), ldv, in(Tm), ldt, in(A), lda, in(B), ldb, in(work));
    else return LAPACKE_ztpmqrt_work(LAPACK_COL_MAJOR, side, trans, m, n, k, l, ib, in(V), ldv, in(Tm), ldt, in(A), lda, in(B), ldb, in(work));
}


// ---- the references' routines: the vendor baselines (support/) and the tests' LAPACK answers ----

/// A := A^-1 of the SPD n x n A from potrf's lower factor L in A (the inverse's lower triangle).
template <typename T>
int potri(int n, T* A, int lda) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_spotri_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'd') return LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else if constexpr (letter<T> == 'c') return LAPACKE_cpotri_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
    else return LAPACKE_zpotri_work(LAPACK_COL_MAJOR, 'L', n, in(A), lda);
}

/// B := A^-1 B of the SPD (Hermitian for complex T) n x n A, its lower triangle read; A := potrf's factor L.
template <typename T>
int posv(int n, int nrhs, T* A, int lda, T* B, int ldb) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sposv_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(A), lda, in(B), ldb);
    else if constexpr (letter<T> == 'd') return LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(A), lda, in(B), ldb);
    else if constexpr (letter<T> == 'c') return LAPACKE_cposv_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(A), lda, in(B), ldb);
    else return LAPACKE_zposv_work(LAPACK_COL_MAJOR, 'L', n, nrhs, in(A), lda, in(B), ldb);
}

/// B := A^-1 B of the general n x n A with partial pivoting; A := getrf's factors, ipiv (1-based) their interchanges.
template <typename T>
int gesv(int n, int nrhs, T* A, int lda, lapack_int* ipiv, T* B, int ldb) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgesv_work(LAPACK_COL_MAJOR, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else if constexpr (letter<T> == 'd') return LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else if constexpr (letter<T> == 'c') return LAPACKE_cgesv_work(LAPACK_COL_MAJOR, n, nrhs, in(A), lda, ipiv, in(B), ldb);
    else return LAPACKE_zgesv_work(LAPACK_COL_MAJOR, n, nrhs, in(A), lda, ipiv, in(B), ldb);
}

/// The row interchanges ipiv[k1 - 1 .. k2 - 1] (1-based, ipiv's stride incx) applied to the n columns of A.
template <typename T>
int laswp(int n, T* A, int lda, int k1, int k2, const lapack_int* ipiv, int incx) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_slaswp_work(LAPACK_COL_MAJOR, n, in(A), lda, k1, k2, ipiv, incx);
    else if constexpr (letter<T> == 'd') return LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, n, in(A), lda, k1, k2, ipiv, incx);
    else if constexpr (letter<T> == 'c') return LAPACKE_claswp_work(LAPACK_COL_MAJOR, n, in(A), lda, k1, k2, ipiv, incx);
    else return LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, n, in(A), lda, k1, k2, ipiv, incx);
}

// The QR routines below go through LAPACKE's high-level interface, which sizes and allocates the optimal workspace
// itself (and scans the input for NaN where LAPACKE's check is on), as a caller of LAPACK without a workspace of its
// own would: the baselines time that call.

/// A = Q R of the m x n A (R on and above the diagonal, the reflectors below it and in tau, min(m, n) of them).
template <typename T>
int geqrf(int m, int n, T* A, int lda, T* tau) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, in(A), lda, in(tau));
    else if constexpr (letter<T> == 'd') return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, in(A), lda, in(tau));
    else if constexpr (letter<T> == 'c') return LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, in(A), lda, in(tau));
    else return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, in(A), lda, in(tau));
}

/// A := the first n columns of the m x m Q of geqrf's k reflectors in A and tau (orgqr; ungqr for complex T).
template <typename T>
int orgqr(int m, int n, int k, T* A, int lda, const T* tau) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, in(A), lda, in(tau));
    else if constexpr (letter<T> == 'd') return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, in(A), lda, in(tau));
    else if constexpr (letter<T> == 'c') return LAPACKE_cungqr(LAPACK_COL_MAJOR, m, n, k, in(A), lda, in(tau));
    else return LAPACKE_zungqr(LAPACK_COL_MAJOR, m, n, k, in(A), lda, in(tau));
}

/// The least-squares (m >= n) or minimum-norm (m < n) solutions of op(A) X = B for the full-rank m x n A (trans 'N',
/// or 'T' for real T and 'C' for complex T), in B's first rows (ldb >= max(m, n)); A := its QR or LQ factors.
template <typename T>
int gels(char trans, int m, int n, int nrhs, T* A, int lda, T* B, int ldb) {
    using namespace lapack;
    if constexpr (letter<T> == 's') return LAPACKE_sgels(LAPACK_COL_MAJOR, trans, m, n, nrhs, in(A), lda, in(B), ldb);
    else if constexpr (letter<T> == 'd') return LAPACKE_dgels(LAPACK_COL_MAJOR, trans, m, n, nrhs, in(A), lda, in(B), ldb);
    else if constexpr (letter<T> == 'c') return LAPACKE_cgels(LAPACK_COL_MAJOR, trans, m, n, nrhs, in(A), lda, in(B), ldb);
    else return LAPACKE_zgels(LAPACK_COL_MAJOR, trans, m, n, nrhs, in(A), lda, in(B), ldb);
}

}  // namespace starfact::detail::cpu
