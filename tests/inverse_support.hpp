// Shared by the inverse tests (CPU and GPU, real and complex): LAPACK's potrf, trtri and lauum on the four element
// types, and the relative difference of two lower triangles.
#pragma once
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace starfact::test::inverse {

/// T's array as LAPACKE's (std::complex<R> has the layout of LAPACKE's complex types).
inline float* lapacke_array(float* p) { return p; }
inline double* lapacke_array(double* p) { return p; }
inline lapack_complex_float* lapacke_array(std::complex<float>* p) {
    return reinterpret_cast<lapack_complex_float*>(p);
}
inline lapack_complex_double* lapacke_array(std::complex<double>* p) {
    return reinterpret_cast<lapack_complex_double*>(p);
}

template <typename T>
int lapacke_potrf(int64_t n, T* A, int64_t ld) {
    const int in = static_cast<int>(n), il = static_cast<int>(ld);
    if constexpr (std::is_same_v<T, float>) return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', in, A, il);
    else if constexpr (std::is_same_v<T, double>) return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', in, A, il);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, 'L', in, lapacke_array(A), il);
    else return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', in, lapacke_array(A), il);
}
template <typename T>
int lapacke_trtri(int64_t n, T* A, int64_t ld) {
    const int in = static_cast<int>(n), il = static_cast<int>(ld);
    if constexpr (std::is_same_v<T, float>) return LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'L', 'N', in, A, il);
    else if constexpr (std::is_same_v<T, double>) return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', in, A, il);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_ctrtri_work(LAPACK_COL_MAJOR, 'L', 'N', in, lapacke_array(A), il);
    else return LAPACKE_ztrtri_work(LAPACK_COL_MAJOR, 'L', 'N', in, lapacke_array(A), il);
}
/// A := L^T L (L^H L on complex T), lower.
template <typename T>
int lapacke_lauum(int64_t n, T* A, int64_t ld) {
    const int in = static_cast<int>(n), il = static_cast<int>(ld);
    if constexpr (std::is_same_v<T, float>) return LAPACKE_slauum_work(LAPACK_COL_MAJOR, 'L', in, A, il);
    else if constexpr (std::is_same_v<T, double>) return LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', in, A, il);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_clauum_work(LAPACK_COL_MAJOR, 'L', in, lapacke_array(A), il);
    else return LAPACKE_zlauum_work(LAPACK_COL_MAJOR, 'L', in, lapacke_array(A), il);
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
