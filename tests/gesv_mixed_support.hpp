// The checks the CPU and GPU tests of the mixed-precision gesv share: matrices of a chosen condition number, the
// backward error of an answer computed independently (long double), the refined solve through the array form.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "tests/lu_support.hpp"
#include "tests/support.hpp"

namespace starfact::test::gesv_mixed {

/// n x n nonsymmetric matrix U diag(s) V^T with U and V orthogonal (QRs of Gaussian matrices) and s geometric from
/// 1 down to 1/cond: its 2-norm condition number is cond.
inline std::vector<double> conditioned_general(int64_t n, double cond, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    const int in = static_cast<int>(n);
    auto orthogonal = [&] {
        std::vector<double> Q(static_cast<size_t>(n * n)), tau(static_cast<size_t>(n));
        for (double& v : Q) v = g(rng);
        starfact::detail::cpu::geqrf<double>(in, in, Q.data(), in, tau.data());
        starfact::detail::cpu::orgqr<double>(in, in, in, Q.data(), in, tau.data());
        return Q;
    };
    const std::vector<double> U = orthogonal(), V = orthogonal();
    std::vector<double> A(static_cast<size_t>(n * n), 0.0);
    for (int64_t k = 0; k < n; ++k) {
        const double t = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0;
        const double s = std::pow(cond, -t);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] += U[i + k * n] * s * V[j + k * n];
    }
    return A;
}

/// Largest column backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) in long double (A n x n with
/// leading dimension lda; X, B n x nrhs with ldb).
inline double backward_error(int64_t n, int64_t nrhs, const double* A, int64_t lda, const double* X, const double* B,
                             int64_t ldb) {
    long double anorm = 0;
    for (int64_t i = 0; i < n; ++i) {
        long double s = 0;
        for (int64_t j = 0; j < n; ++j) s += std::fabs(static_cast<long double>(A[i + j * lda]));
        anorm = std::max(anorm, s);
    }
    long double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        long double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < n; ++i) {
            long double r = B[i + c * ldb];
            for (int64_t j = 0; j < n; ++j) r -= static_cast<long double>(A[i + j * lda]) * X[j + c * ldb];
            rn = std::max(rn, std::fabs(r));
            xn = std::max(xn, std::fabs(static_cast<long double>(X[i + c * ldb])));
            bn = std::max(bn, std::fabs(static_cast<long double>(B[i + c * ldb])));
        }
        if (!(rn == rn) || !(xn == xn)) return INFINITY;
        const long double den = anorm * xn + bn;
        worst = std::max(worst, den > 0 ? rn / den : rn);
    }
    return static_cast<double>(worst);
}

/// A packed (ld = n) copy of an n x cols array with leading dimension ld.
inline std::vector<double> packed(int64_t n, int64_t cols, const std::vector<double>& a, int64_t ld) {
    std::vector<double> p(static_cast<size_t>(n * cols));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i + j * n)] = a[static_cast<size_t>(i + j * ld)];
    return p;
}

/// What one refined solve through the array form returned.
struct Outcome {
    int info = 0;
    SolveReport report;
    std::vector<double> LU, X;     // A and B after the call
    std::vector<int64_t> ipiv;
};

/// gesv(rt, n, nrhs, A, lda, ipiv, B, ldb, opts, report, refine, tiling) on copies of A and B.
inline Outcome solve(const std::vector<double>& A, int64_t lda, const std::vector<double>& B, int64_t ldb, int64_t n,
                     int64_t nrhs, const Options& opts, const Refinement& refine, const Tiling& tiling) {
    Outcome o;
    o.LU = A;
    o.X = B;
    o.ipiv.assign(static_cast<size_t>(std::max<int64_t>(n, 1)), 0);
    o.info = gesv(runtime(), n, nrhs, o.LU.data(), lda, o.ipiv.data(), o.X.data(), ldb, opts, o.report, refine, tiling);
    return o;
}

/// The refined answer's checks: the path, the report's backward error within its tolerance and the independent one
/// too, the scaled residual below 60, A unchanged, ipiv LAPACK's (1-based, within [i + 1, n]).
inline void check_refined(const Outcome& o, const std::vector<double>& A, int64_t lda, const std::vector<double>& B,
                          int64_t ldb, int64_t n, int64_t nrhs) {
    INFO("path=" << to_string(o.report.path) << " iterations=" << o.report.iterations
                 << " gmres=" << o.report.gmres_iterations << " backward error=" << o.report.backward_error
                 << " reason=" << o.report.reason);
    REQUIRE(o.info == 0);
    CHECK((o.report.path == SolveReport::Path::Refined || o.report.path == SolveReport::Path::Gmres));
    CHECK(o.report.low_info == 0);
    CHECK(o.report.factorizations == 1);
    CHECK(o.report.backward_error <= o.report.tolerance);
    CHECK(o.report.tolerance == Approx(std::sqrt(static_cast<double>(n)) * 0x1p-53));
    const double be = backward_error(n, nrhs, A.data(), lda, o.X.data(), B.data(), ldb);
    INFO("independent backward error=" << be);
    CHECK(be <= 2 * o.report.tolerance);
    const std::vector<double> Ap = packed(n, n, A, lda), Xp = packed(n, nrhs, o.X, ldb), Bp = packed(n, nrhs, B, ldb);
    CHECK(lu::general_solve_residual<double>(n, nrhs, Ap.data(), Xp.data(), Bp.data()) < kResidualLimit);
    CHECK(o.LU == A);  // a refined solve leaves A as it was
    for (int64_t i = 0; i < n; ++i) {
        CHECK(o.ipiv[static_cast<size_t>(i)] >= i + 1);
        CHECK(o.ipiv[static_cast<size_t>(i)] <= n);
    }
}

}  // namespace starfact::test::gesv_mixed
