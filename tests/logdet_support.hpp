// What the log-determinant tests share (tests/test_logdet.cpp, tests/test_logdet_gpu.cpp): an independent reference
// (LAPACK's double Cholesky of the matrix, logarithms summed in long double) and the tolerance of a comparison.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu_lapack.hpp"

namespace starfact::test::logdet {

/// LAPACK's info and log det A of the SPD n x n column-major A (lower triangle read, leading dimension ld), from
/// LAPACK's potrf on a double copy: 2 sum log L(i, i), summed in long double. The value is meaningless when info > 0.
struct Reference {
    int info;
    double value;
};
template <typename T>
Reference reference(int64_t n, const T* A, int64_t ld) {
    if (n == 0) return {0, 0.0};
    std::vector<double> L(static_cast<size_t>(n) * static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) L[i + j * n] = static_cast<double>(A[i + j * ld]);
    const int info = starfact::detail::cpu::potrf<double>(static_cast<int>(n), L.data(), static_cast<int>(n));
    long double sum = 0;
    for (int64_t i = 0; info == 0 && i < n; ++i) sum += std::log(static_cast<long double>(L[i + i * n]));
    return {info, static_cast<double>(2 * sum)};
}

/// How far a log-determinant computed in precision T may be from the reference for a well-conditioned matrix of
/// order n (the tests' SPD matrices, diagonal shift n): each log L(i, i) is off by a few units of T's roundoff (an
/// absolute error: log(x (1 + d)) = log x + d), and the sum, taken in double whatever T is, by a few units of
/// double's roundoff relative to |reference|.
template <typename T>
double tolerance(int64_t n, double reference_value) {
    return 16.0 * std::numeric_limits<T>::epsilon() * static_cast<double>(n) +
           16.0 * std::numeric_limits<double>::epsilon() * std::abs(reference_value);
}

/// The entries of the n x n leading block of A (leading dimension ld) times s.
template <typename T>
void scale(int64_t n, std::vector<T>& A, int64_t ld, double s) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) A[i + j * ld] = static_cast<T>(static_cast<double>(A[i + j * ld]) * s);
}

}  // namespace starfact::test::logdet
