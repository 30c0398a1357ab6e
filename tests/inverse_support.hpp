// Shared by the inverse tests (CPU and GPU, real and complex): LAPACK's potrf, trtri and lauum on the four element
// types, and the relative difference of two lower triangles.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/cpu_lapack.hpp"

namespace starfact::test::inverse {

template <typename T>
int lapacke_potrf(int64_t n, T* A, int64_t ld) {
    return starfact::detail::cpu::potrf<T>(static_cast<int>(n), A, static_cast<int>(ld));
}
template <typename T>
int lapacke_trtri(int64_t n, T* A, int64_t ld) {
    return starfact::detail::cpu::trtri<T>(static_cast<int>(n), A, static_cast<int>(ld));
}
/// A := L^T L (L^H L on complex T), lower.
template <typename T>
int lapacke_lauum(int64_t n, T* A, int64_t ld) {
    return starfact::detail::cpu::lauum<T>(static_cast<int>(n), A, static_cast<int>(ld));
}

/// x in double complex (a real x with a zero imaginary part), whose std::abs is |x|.
template <typename T>
std::complex<double> widened(T x) {
    return std::complex<double>(x);
}

/// max |X - Y| over the lower triangles of the leading n x n blocks (leading dimension ld), relative to max |Y|.
template <typename T>
double lower_rel_diff(int64_t n, const std::vector<T>& X, const std::vector<T>& Y, int64_t ld) {
    double diff = 0, scale = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) {
            diff = std::max(diff, std::abs(widened(X[i + j * ld]) - widened(Y[i + j * ld])));
            scale = std::max(scale, std::abs(widened(Y[i + j * ld])));
        }
    return scale > 0 ? diff / scale : diff;
}

}  // namespace starfact::test::inverse
