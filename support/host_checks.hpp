// The drivers' random matrices and host residuals for any of the four scalar types (not part of the library API):
// the library's (starfact/check.hpp) for float and double, reference_complex.hpp's for std::complex<float> and
// std::complex<double>, chosen by the scalar traits (kernels/scalar.hpp). Square arrays have leading dimension n.
#pragma once
#include <cstdint>

#include "kernels/scalar.hpp"
#include "starfact/check.hpp"
#include "support/reference_complex.hpp"

namespace starfact::support {

/// Fills the m x n column-major A with entries uniform in [-0.5, 0.5] from (seed, i, j) (complex: both parts).
template <typename T>
void random_general(int64_t m, int64_t n, T* A, int64_t lda, uint64_t seed) {
    if constexpr (detail::is_complex_v<T>)
        random_complex<T>(m, n, A, lda, seed);
    else
        random_matrix<T>(m, n, A, lda, seed);
}

/// ||A - L L^T||_1 / (||A||_1 n eps) (complex: L L^H), A symmetric or Hermitian (lower triangle read), L lower (upper
/// part ignored). Multithreaded BLAS: call while no tasks run (Runtime::Paused).
template <typename T>
double cholesky_residual(int64_t n, const T* A, const T* L) {
    if constexpr (detail::is_complex_v<T>)
        return hermitian_factor_residual<T>(n, A, L);
    else
        return potrf_residual<T>(n, A, n, L, n);
}

/// ||P A - L U||_1 / (||A||_1 n eps) for getrf's output LU and LAPACK's 1-based ipiv. Multithreaded BLAS: call while
/// no tasks run.
template <typename T>
double lu_residual(int64_t n, const T* A, const T* LU, const int64_t* ipiv) {
    if constexpr (detail::is_complex_v<T>)
        return lu_factor_residual<T>(n, A, LU, ipiv);
    else
        return getrf_residual<T>(n, A, n, LU, n, ipiv);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) for the general n x n A (every entry read) and the n x nrhs X and B.
/// Multithreaded BLAS: call while no tasks run.
template <typename T>
double general_solve_residual(int64_t n, int64_t nrhs, const T* A, const T* X, const T* B) {
    if constexpr (detail::is_complex_v<T>)
        return complex_solve_residual<T>(n, nrhs, A, X, B);
    else
        return gesv_residual<T>(n, nrhs, A, n, X, n, B, n);
}

}  // namespace starfact::support
