// The drivers' complex matrices on the host (reference_complex.hpp): the random Hermitian positive definite and
// general test matrices and the residuals of a Hermitian factor, an LU and a solve, through the scalar layer
// (kernels/cpu_blas.hpp). The LAPACKE c/z baselines are reference_cpu.cpp's, with the s/d ones.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/cpu_blas.hpp"
#include "kernels/random_entry.hpp"
#include "kernels/scalar.hpp"
#include "support/reference_complex.hpp"

namespace starfact::support {
namespace {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

/// The seed of the imaginary parts: another stream of the same hash.
uint64_t imaginary_seed(uint64_t seed) { return detail::splitmix64(seed ^ 0x5DEECE66Dull); }

/// Runs body(j0, j1) over column ranges on all hardware threads.
template <typename F>
void parallel_columns(int64_t n, F body) {
    const int64_t nthreads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n / 64 + 1));
    if (nthreads == 1) return body(0, n);
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < nthreads; ++t) pool.emplace_back([=] { body(n * t / nthreads, n * (t + 1) / nthreads); });
    for (auto& th : pool) th.join();
}

/// All OpenBLAS threads for the guard's lifetime (the Runtime's workers run it single-threaded).
class AllThreads {
public:
    AllThreads() : before_(openblas_get_num_threads()) {
        openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    }
    ~AllThreads() { openblas_set_num_threads(before_); }
    AllThreads(const AllThreads&) = delete;
    AllThreads& operator=(const AllThreads&) = delete;

private:
    int before_;
};

/// NaN wins a maximum (a residual of NaN entries must not pass as 0).
double max_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

/// The 1-norm of the Hermitian n x n matrix whose lower triangle A holds (ld = n).
template <typename C>
double hermitian_norm1(int64_t n, const C* A) {
    std::vector<double> col(static_cast<size_t>(n), 0.0);
    for (int64_t j = 0; j < n; ++j) {
        col[j] += std::abs(std::complex<double>(A[j + j * n]));
        for (int64_t i = j + 1; i < n; ++i) {
            const double v = std::abs(std::complex<double>(A[i + j * n]));
            col[j] += v;  // (i, j)
            col[i] += v;  // its conjugate (j, i), in column i
        }
    }
    double norm = 0.0;
    for (double c : col) norm = max_nan(norm, c);
    return norm;
}

/// The 1-norm of the general m x n matrix A (ld = m).
template <typename C>
double general_norm1(int64_t m, int64_t n, const C* A) {
    double norm = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        double c = 0.0;
        for (int64_t i = 0; i < m; ++i) c += std::abs(std::complex<double>(A[i + j * m]));
        norm = max_nan(norm, c);
    }
    return norm;
}

/// num / (den n eps) with C's real epsilon; NaN stays NaN, 0 / 0 is 0.
template <typename C>
double scaled(double num, double den, int64_t n) {
    const double eps = std::numeric_limits<detail::real_t<C>>::epsilon();
    const double d = den * static_cast<double>(std::max<int64_t>(n, 1)) * eps;
    if (std::isnan(num) || std::isnan(d)) return NAN;
    if (d == 0.0) return num == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    return num / d;
}

}  // namespace

template <typename C>
void random_hermitian(int64_t n, C* A, int64_t lda, uint64_t seed, double shift) {
    using R = detail::real_t<C>;
    const uint64_t im = imaginary_seed(seed);
    parallel_columns(n, [=](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const int64_t r = std::max(i, j), c = std::min(i, j);  // the lower entry this one mirrors
                const double re = detail::uniform_entry(seed, r, c);
                const double imag = i == j ? 0.0 : detail::uniform_entry(im, r, c);
                A[i + j * lda] = C(static_cast<R>(i == j ? re + shift : re), static_cast<R>(i >= j ? imag : -imag));
            }
    });
}

template <typename C>
void random_complex(int64_t m, int64_t n, C* A, int64_t lda, uint64_t seed) {
    using R = detail::real_t<C>;
    const uint64_t im = imaginary_seed(seed);
    parallel_columns(n, [=](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < m; ++i)
                A[i + j * lda] = C(static_cast<R>(detail::uniform_entry(seed, i, j)),
                                   static_cast<R>(detail::uniform_entry(im, i, j)));
    });
}

template <typename C>
double hermitian_factor_residual(int64_t n, const C* A, const C* L) {
    if (n == 0) return 0.0;
    std::vector<C> W(static_cast<size_t>(n) * n, C(0)), Lc(static_cast<size_t>(n) * n, C(0));
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = j; i < n; ++i) {
                W[i + j * n] = A[i + j * n];
                Lc[i + j * n] = L[i + j * n];
            }
    });
    {
        const AllThreads threads;
        detail::cpu::herk<C>(Uplo::Lower, Op::NoTrans, int(n), int(n), -1, Lc.data(), int(n), 1, W.data(),
                             int(n));  // W = A - L L^H (lower)
    }
    return scaled<C>(hermitian_norm1(n, W.data()), hermitian_norm1(n, A), n);
}

template <typename C>
double lu_factor_residual(int64_t n, const C* A, const C* LU, const int64_t* ipiv) {
    if (n == 0) return 0.0;
    std::vector<C> W(static_cast<size_t>(n) * n, C(0)), PA(static_cast<size_t>(n) * n);
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j) {
            for (int64_t i = 0; i <= j; ++i) W[i + j * n] = LU[i + j * n];  // U
            for (int64_t i = 0; i < n; ++i) PA[i + j * n] = A[i + j * n];
            for (int64_t i = 0; i < n; ++i) std::swap(PA[i + j * n], PA[ipiv[i] - 1 + j * n]);  // in order
        }
    });
    {
        const AllThreads threads;
        detail::cpu::trmm<C>(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, int(n), int(n), C(1), LU, int(n),
                             W.data(), int(n));  // W = L U
    }
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < n; ++i) W[i + j * n] = PA[i + j * n] - W[i + j * n];
    });
    return scaled<C>(general_norm1(n, n, W.data()), general_norm1(n, n, A), n);
}

template <typename C>
double complex_solve_residual(int64_t n, int64_t nrhs, const C* A, const C* X, const C* B) {
    if (n == 0 || nrhs == 0) return 0.0;
    std::vector<C> R(B, B + static_cast<size_t>(n) * nrhs);
    {
        const AllThreads threads;
        detail::cpu::gemm<C>(Op::NoTrans, Op::NoTrans, int(n), int(nrhs), int(n), C(-1), A, int(n), X, int(n), C(1),
                             R.data(), int(n));  // R = B - A X
    }
    return scaled<C>(general_norm1(n, nrhs, R.data()), general_norm1(n, n, A) * general_norm1(n, nrhs, X), n);
}

#define STARFACT_COMPLEX_REFERENCE(C)                                                                 \
    template void random_hermitian<C>(int64_t, C*, int64_t, uint64_t, double);                        \
    template void random_complex<C>(int64_t, int64_t, C*, int64_t, uint64_t);                         \
    template double hermitian_factor_residual<C>(int64_t, const C*, const C*);                        \
    template double lu_factor_residual<C>(int64_t, const C*, const C*, const int64_t*);               \
    template double complex_solve_residual<C>(int64_t, int64_t, const C*, const C*, const C*);
STARFACT_COMPLEX_REFERENCE(std::complex<float>)
STARFACT_COMPLEX_REFERENCE(std::complex<double>)
#undef STARFACT_COMPLEX_REFERENCE

}  // namespace starfact::support
