// Shared by the complex factorizations' tests: random complex entries and blocks, norms and the scaled residual of a
// solve, computed here element by element in double precision.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace starfact::test {

/// "c" or "z".
template <typename C>
const char* complex_letter() {
    return std::is_same<C, std::complex<float>>::value ? "c" : "z";
}

/// A complex entry whose real and imaginary parts are uniform in [-1, 1).
template <typename R>
std::complex<R> draw(std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double re = u(g), im = u(g);
    return {static_cast<R>(re), static_cast<R>(im)};
}

/// ||A||_F, in double.
template <typename C>
double frobenius(const std::vector<C>& A) {
    double s = 0;
    for (const C& a : A) s += std::norm(std::complex<double>(a));
    return std::sqrt(s);
}

/// The unit roundoff of C's real type.
template <typename C>
double eps() {
    return static_cast<double>(std::numeric_limits<typename C::value_type>::epsilon());
}

/// ||A X - B||_F / (||A||_F ||X||_F n eps) for n x nrhs X and B.
template <typename C>
double solve_residual(const std::vector<C>& A, const std::vector<C>& X, const std::vector<C>& B, int64_t n,
                      int64_t nrhs) {
    double s = 0;
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) {
            std::complex<double> ax = 0;
            for (int64_t k = 0; k < n; ++k)
                ax += std::complex<double>(A[static_cast<size_t>(i + k * n)]) *
                      std::complex<double>(X[static_cast<size_t>(k + j * n)]);
            s += std::norm(ax - std::complex<double>(B[static_cast<size_t>(i + j * n)]));
        }
    return std::sqrt(s) / (frobenius(A) * frobenius(X) * static_cast<double>(std::max<int64_t>(n, 1)) * eps<C>());
}

/// A rows x cols column-major block of entries drawn by draw().
template <typename C>
std::vector<C> random_block(int64_t rows, int64_t cols, std::mt19937_64& g) {
    std::vector<C> B(static_cast<size_t>(rows * cols));
    for (C& b : B) b = draw<typename C::value_type>(g);
    return B;
}

}  // namespace starfact::test
