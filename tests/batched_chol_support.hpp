// Helpers shared by the batched Cholesky tests (test_batched_chol_cpu.cpp, test_batched_chol_gpu.cpp):
// the LAPACKE reference calls, the error tolerance, the largest deviation from a reference, and the
// name of the argument an InvalidArgument names.
#pragma once
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "starfact/error.hpp"

namespace starfact::test::batched_chol {

inline int lapack_potrf(int n, float* A, int lda) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda); }
inline int lapack_potrf(int n, double* A, int lda) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda); }
inline int lapack_potrs(int n, int nrhs, const float* L, int lda, float* B, int ldb) {
    return LAPACKE_spotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, lda, B, ldb);
}
inline int lapack_potrs(int n, int nrhs, const double* L, int lda, double* B, int ldb) {
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, lda, B, ldb);
}

/// Relative tolerance for factors and solutions of order n: 30 n epsilon.
template <typename T>
double tolerance(int n) {
    return 30.0 * std::max(n, 1) * std::numeric_limits<T>::epsilon();
}

/// max |x - ref| and max |ref| over the lower triangle of n x n matrices (leading dimension ld).
struct Deviation {
    double err = 0, scale = 0;
};
template <typename T, typename R>
Deviation lower_deviation(int n, const T* x, const R* ref, int64_t ld) {
    Deviation d;
    for (int c = 0; c < n; ++c)
        for (int r = c; r < n; ++r) {
            const int64_t k = r + static_cast<int64_t>(c) * ld;
            d.err = std::max(d.err, std::abs(static_cast<double>(x[k]) - static_cast<double>(ref[k])));
            d.scale = std::max(d.scale, std::abs(static_cast<double>(ref[k])));
        }
    return d;
}

/// The argument named by the InvalidArgument that f() throws, "" when it throws none.
template <typename F>
std::string thrown_argument(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.argument();
    }
    return "";
}

}  // namespace starfact::test::batched_chol
