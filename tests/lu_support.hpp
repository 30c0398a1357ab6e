// Shared by the tile-LU tests (CPU and GPU): LAPACK's getrf, the scaled residuals of a factorization and
// of a solve for general matrices, random general matrices.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "tests/support.hpp"

namespace starfact::test::lu {

template <typename T>
int lapack_getrf(int n, T* A, int lda, int* ipiv) {
    return starfact::detail::cpu::getrf<T>(n, n, A, lda, ipiv);
}

/// ||P A - L U||_1 / (||A||_1 n eps), computed in double independently of starfact::getrf_residual: L unit
/// lower and U upper from LU, P from LAPACK's 1-based ipiv.
template <typename T>
double lu_residual(int64_t n, const T* A, int64_t lda, const T* LU, int64_t ldlu, const std::vector<int64_t>& ipiv) {
    std::vector<double> PA(static_cast<size_t>(n * n));
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
            double s = 0;  // (L U)(i, j) = sum_{k <= min(i, j)} L(i, k) U(k, j)
            for (int64_t k = 0; k <= std::min(i, j); ++k)
                s += (k == i ? 1.0 : double(LU[i + k * ldlu])) * double(LU[k + j * ldlu]);
            col_r += std::abs(PA[i + j * n] - s);
            col_a += std::abs(double(A[i + j * lda]));
        }
        norm_r = std::max(norm_r, col_r);
        norm_a = std::max(norm_a, col_a);
    }
    const double eps = std::numeric_limits<T>::epsilon();
    return norm_a == 0 ? norm_r : norm_r / (norm_a * double(n) * eps);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) for a general A (in double).
template <typename T>
double general_solve_residual(int64_t n, int64_t nrhs, const T* A, const T* X, const T* B) {
    double norm_r = 0, norm_a = 0, norm_x = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double col_r = 0, col_x = 0;
        for (int64_t i = 0; i < n; ++i) {
            double s = 0;
            for (int64_t k = 0; k < n; ++k) s += double(A[i + k * n]) * double(X[k + j * n]);
            col_r += std::abs(s - double(B[i + j * n]));
            col_x += std::abs(double(X[i + j * n]));
        }
        norm_r = std::max(norm_r, col_r);
        norm_x = std::max(norm_x, col_x);
    }
    for (int64_t j = 0; j < n; ++j) {
        double col = 0;
        for (int64_t i = 0; i < n; ++i) col += std::abs(double(A[i + j * n]));
        norm_a = std::max(norm_a, col);
    }
    return norm_r / (norm_a * norm_x * double(n) * std::numeric_limits<T>::epsilon());
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
