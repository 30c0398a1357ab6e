// Shared by the tile-LU tests (CPU and GPU): LAPACK's getrf, the scaled residuals of a factorization and
// of a solve for general matrices, random general matrices.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "kernels/scalar.hpp"
#include "tests/support.hpp"

namespace starfact::test::lu {

template <typename T>
int lapack_getrf(int n, T* A, int lda, int* ipiv) {
    return starfact::detail::cpu::getrf<T>(n, n, A, lda, ipiv);
}

/// Real T in double, complex T in complex double: what the residuals below compute in.
template <typename T>
using Wide = std::conditional_t<starfact::detail::is_complex_v<T>, std::complex<double>, double>;

/// ||P A - L U||_1 / (||A||_1 n eps), computed in double (complex double for complex T) independently of
/// starfact::getrf_residual: L unit lower and U upper from LU, P from LAPACK's 1-based ipiv.
template <typename T>
double lu_residual(int64_t n, const T* A, int64_t lda, const T* LU, int64_t ldlu, const std::vector<int64_t>& ipiv) {
    using W = Wide<T>;
    std::vector<W> PA(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) PA[i + j * n] = A[i + j * lda];
    for (int64_t i = 0; i < n; ++i) {
        const int64_t p = ipiv[i] - 1;
        if (p != i)
            for (int64_t j = 0; j < n; ++j) std::swap(PA[i + j * n], PA[p + j * n]);
    }
    double norm_r = 0, norm_a = 0;
    for (int64_t j = 0; j < n; ++j) {
        double col_r = 0, col_a = 0;
        for (int64_t i = 0; i < n; ++i) {
            W s = 0;  // (L U)(i, j) = sum_{k <= min(i, j)} L(i, k) U(k, j)
            for (int64_t k = 0; k <= std::min(i, j); ++k)
                s += (k == i ? W(1) : W(LU[i + k * ldlu])) * W(LU[k + j * ldlu]);
            col_r += std::abs(PA[i + j * n] - s);
            col_a += std::abs(W(A[i + j * lda]));
        }
        norm_r = std::max(norm_r, col_r);
        norm_a = std::max(norm_a, col_a);
    }
    const double eps = starfact::detail::epsilon<T>();
    return norm_a == 0 ? norm_r : norm_r / (norm_a * double(n) * eps);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) for a general A (in double; complex double for complex T).
template <typename T>
double general_solve_residual(int64_t n, int64_t nrhs, const T* A, const T* X, const T* B) {
    using W = Wide<T>;
    double norm_r = 0, norm_a = 0, norm_x = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double col_r = 0, col_x = 0;
        for (int64_t i = 0; i < n; ++i) {
            W s = 0;
            for (int64_t k = 0; k < n; ++k) s += W(A[i + k * n]) * W(X[k + j * n]);
            col_r += std::abs(s - W(B[i + j * n]));
            col_x += std::abs(W(X[i + j * n]));
        }
        norm_r = std::max(norm_r, col_r);
        norm_x = std::max(norm_x, col_x);
    }
    for (int64_t j = 0; j < n; ++j) {
        double col = 0;
        for (int64_t i = 0; i < n; ++i) col += std::abs(W(A[i + j * n]));
        norm_a = std::max(norm_a, col);
    }
    return norm_r / (norm_a * norm_x * double(n) * double(starfact::detail::epsilon<T>()));
}

template <typename T>
std::vector<T> random_general(int64_t n, int64_t ld, uint64_t seed) {
    std::vector<T> A(static_cast<size_t>(ld * std::max<int64_t>(n, 1)), T(-777));
    random_matrix<T>(n, n, A.data(), ld, seed);
    return A;
}

/// A random general system of order n with nrhs right-hand sides (from `seed`), and the copies gesv overwrites:
/// LU (A, then its factors), X (B, then the solution), ipiv.
template <typename T>
struct GesvProblem {
    std::vector<T> A, B, LU, X;
    std::vector<int64_t> ipiv;
    GesvProblem(int64_t n, int64_t nrhs, uint64_t seed)
        : A(random_general<T>(n, n, seed)), B(static_cast<size_t>(n * nrhs)), ipiv(static_cast<size_t>(n)) {
        random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
        LU = A;
        X = B;
    }
};

inline bool all_finite(const std::vector<float>& v) {
    for (float x : v) if (!std::isfinite(x)) return false;
    return true;
}
inline bool all_finite(const std::vector<double>& v) {
    for (double x : v) if (!std::isfinite(x)) return false;
    return true;
}

}  // namespace starfact::test::lu
