// Shared by the mixed-precision Hermitian solve's tests (test_posv_mixed_complex.cpp on CPU workers,
// test_posv_mixed_complex_gpu.cpp on CUDA workers): Hermitian positive definite matrices of a chosen condition and
// the backward error of a solution, computed here in long double.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/complex_matrices.hpp"

namespace starfact::test {

using Z = std::complex<double>;

/// n x n (leading dimension lda) Hermitian positive definite Q diag(lambda) Q^H of condition about kappa: lambda
/// geometrically spaced from 1 down to 1 / kappa, Q unitary, a product of three random complex Householder
/// reflectors, then the rows and columns scaled by 2^e, e in [-3, 3] (the solve's diagonal scaling undoes it).
inline std::vector<Z> hpd_conditioned(int64_t n, int64_t lda, double kappa, std::mt19937_64& g) {
    std::vector<Z> A(static_cast<size_t>(lda * n), Z(0));
    auto at = [&](int64_t i, int64_t j) -> Z& { return A[static_cast<size_t>(i + j * lda)]; };
    for (int64_t i = 0; i < n; ++i)
        at(i, i) = n == 1 ? 1.0 : std::pow(kappa, -static_cast<double>(i) / static_cast<double>(n - 1));
    for (int r = 0; r < 3 && n > 1; ++r) {  // A := H A H, H = I - 2 v v^H / (v^H v)
        std::vector<Z> v(static_cast<size_t>(n));
        double vv = 0;
        for (Z& e : v) {
            e = draw<double>(g);
            vv += std::norm(e);
        }
        const double tau = 2.0 / vv;
        for (int64_t j = 0; j < n; ++j) {  // A := H A, column by column
            Z w = 0;
            for (int64_t i = 0; i < n; ++i) w += std::conj(v[static_cast<size_t>(i)]) * at(i, j);
            for (int64_t i = 0; i < n; ++i) at(i, j) -= tau * v[static_cast<size_t>(i)] * w;
        }
        for (int64_t i = 0; i < n; ++i) {  // A := A H, row by row
            Z w = 0;
            for (int64_t j = 0; j < n; ++j) w += at(i, j) * v[static_cast<size_t>(j)];
            for (int64_t j = 0; j < n; ++j) at(i, j) -= tau * w * std::conj(v[static_cast<size_t>(j)]);
        }
    }
    std::uniform_int_distribution<int> e(-3, 3);
    std::vector<double> s(static_cast<size_t>(n));
    for (double& x : s) x = std::ldexp(1.0, e(g));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) at(i, j) *= s[static_cast<size_t>(i)] * s[static_cast<size_t>(j)];
    for (int64_t i = 0; i < n; ++i) {  // exactly Hermitian
        at(i, i) = Z(at(i, i).real(), 0);
        for (int64_t j = i + 1; j < n; ++j) at(i, j) = std::conj(at(j, i));
    }
    return A;
}

/// The largest column's backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) (moduli), in long double.
inline double backward_error(const std::vector<Z>& A, int64_t lda, const std::vector<Z>& X, int64_t ldx,
                             const std::vector<Z>& B, int64_t ldb, int64_t n, int64_t nrhs) {
    using L = std::complex<long double>;
    long double anorm = 0;
    for (int64_t i = 0; i < n; ++i) {
        long double row = 0;
        for (int64_t j = 0; j < n; ++j) row += std::abs(L(A[static_cast<size_t>(i + j * lda)]));
        anorm = std::max(anorm, row);
    }
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        long double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < n; ++i) {
            L r = L(B[static_cast<size_t>(i + c * ldb)]);
            for (int64_t j = 0; j < n; ++j)
                r -= L(A[static_cast<size_t>(i + j * lda)]) * L(X[static_cast<size_t>(j + c * ldx)]);
            rn = std::max(rn, std::abs(r));
            xn = std::max(xn, std::abs(L(X[static_cast<size_t>(i + c * ldx)])));
            bn = std::max(bn, std::abs(L(B[static_cast<size_t>(i + c * ldb)])));
        }
        worst = std::max(worst, static_cast<double>(rn / (anorm * xn + bn)));
    }
    return worst;
}

/// The n x n leading block of an lda-strided matrix, packed (for solve_residual).
inline std::vector<Z> packed(const std::vector<Z>& A, int64_t lda, int64_t n, int64_t cols) {
    std::vector<Z> P(static_cast<size_t>(n * cols));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < n; ++i) P[static_cast<size_t>(i + j * n)] = A[static_cast<size_t>(i + j * lda)];
    return P;
}

}  // namespace starfact::test
