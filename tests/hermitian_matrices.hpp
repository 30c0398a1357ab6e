// Shared by the complex Cholesky's tests (test_cholesky_complex.cpp on CPU workers, test_cholesky_complex_gpu.cpp on
// CUDA workers): random Hermitian positive definite matrices and the scaled residual of a factor L L^H, computed
// here element by element in double precision (the entries, norms and solve residual: tests/complex_matrices.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "tests/complex_matrices.hpp"

namespace starfact::test {

/// n x n Hermitian positive definite: random complex entries below the diagonal (draw), their conjugates above, and
/// a real diagonal of 3 sqrt(n) + 1 + a uniform draw in [0, 1). The off-diagonal part's norm is near
/// 2 sqrt(2 n / 3), below 3 sqrt(n): the shift keeps A definite without making it diagonally dominant.
template <typename C>
std::vector<C> hpd_matrix(int64_t n, std::mt19937_64& g) {
    using R = typename C::value_type;
    std::vector<C> A(static_cast<size_t>(n * n), C(0));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j + 1; i < n; ++i) {
            A[static_cast<size_t>(i + j * n)] = draw<R>(g);
            A[static_cast<size_t>(j + i * n)] = std::conj(A[static_cast<size_t>(i + j * n)]);
        }
        A[static_cast<size_t>(j + j * n)] = C(static_cast<R>(3.0 * std::sqrt(static_cast<double>(n)) + 1.0 + u(g)), 0);
    }
    return A;
}

/// ||A - L L^H||_F / (||A||_F n eps), L the lower triangle of F, both n x n (A Hermitian: all of it compared).
template <typename C>
double hermitian_factor_residual(const std::vector<C>& A, const std::vector<C>& F, int64_t n) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            std::complex<double> llh = 0;
            for (int64_t k = 0; k <= std::min(i, j); ++k)
                llh += std::complex<double>(F[static_cast<size_t>(i + k * n)]) *
                       std::conj(std::complex<double>(F[static_cast<size_t>(j + k * n)]));
            s += std::norm(std::complex<double>(A[static_cast<size_t>(i + j * n)]) - llh);
        }
    return std::sqrt(s) / (frobenius(A) * static_cast<double>(std::max<int64_t>(n, 1)) * eps<C>());
}

}  // namespace starfact::test
