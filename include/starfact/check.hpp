// Accuracy checks on host arrays (used by tests, the driver and users validating a run).
#pragma once
#include <cstdint>

namespace starfact {

/// ||A - L L^T||_1 / (||A||_1 * n * eps), A symmetric (lower triangle read), L lower (upper ignored).
/// Column-major, host memory. From order 512 on, the checks use multithreaded BLAS (OpenBLAS's process-wide
/// thread count, raised for their duration): call them while no tasks are running. Smaller ones run
/// single-threaded BLAS and may run from any thread, also while tasks run.
template <typename T>
double potrf_residual(int64_t n, const T* A, int64_t lda, const T* L, int64_t ldl);

/// ||A X - B||_1 / (||A||_1 * ||X||_1 * n * eps), A symmetric (lower triangle read).
template <typename T>
double solve_residual(int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx,
                      const T* B, int64_t ldb);

/// ||A X - I||_1 / (||A||_1 * ||X||_1 * n * eps) for X = A^-1 from potri: A and X symmetric, both given by
/// their lower triangles (upper parts ignored). T: float, double, std::complex<float>, std::complex<double>; on
/// complex T, A and X are Hermitian (their diagonals' imaginary parts taken as zero) and eps is that of T's real type.
template <typename T>
double potri_residual(int64_t n, const T* A, int64_t lda, const T* Ainv, int64_t ldi);
/// ||P A - L U||_1 / (||A||_1 * n * eps) for a general A and the output of getrf: L unit lower and U upper
/// in LU, P from LAPACK's 1-based ipiv (n entries).
template <typename T>
double getrf_residual(int64_t n, const T* A, int64_t lda, const T* LU, int64_t ldlu, const int64_t* ipiv);

/// ||A X - B||_1 / (||A||_1 * ||X||_1 * n * eps) for a general A (every entry read).
template <typename T>
double gesv_residual(int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                     int64_t ldb);

/// Fills the lower and upper triangles of the n x n column-major A with a random symmetric
/// matrix, entries uniform in [-0.5, 0.5], plus `shift` on the diagonal (shift = n makes it SPD
/// and well conditioned). Entry (i, j) depends only on (seed, i, j): any tiling or thread count
/// gives the same matrix. Multithreaded.
template <typename T>
void random_symmetric(int64_t n, T* A, int64_t lda, uint64_t seed, double shift);

/// Fills an m x n column-major array with uniform [-0.5, 0.5] entries from (seed, i, j).
template <typename T>
void random_matrix(int64_t m, int64_t n, T* A, int64_t lda, uint64_t seed);

}  // namespace starfact
