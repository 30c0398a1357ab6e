// The checks the CPU and GPU tests of the mixed-precision solve share.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "tests/support.hpp"

namespace starfact::test {

/// n x n SPD matrix Q diag(s) Q^T with Q orthogonal (QR of a Gaussian matrix) and s geometric from 1 down to
/// 1/cond; `tiny_half`: half of the spectrum at 1/cond, the rest spread (a float copy is then indefinite).
inline std::vector<double> conditioned_spd(int64_t n, double cond, bool tiny_half, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<double> Q(static_cast<size_t>(n * n)), tau(static_cast<size_t>(n));
    for (double& v : Q) v = g(rng);
    const int in = static_cast<int>(n);
    starfact::detail::cpu::geqrf<double>(in, in, Q.data(), in, tau.data());
    starfact::detail::cpu::orgqr<double>(in, in, in, Q.data(), in, tau.data());
    std::vector<double> s(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
        const double t = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0;
        s[static_cast<size_t>(k)] = tiny_half && k >= n / 2 ? 1.0 / cond : std::pow(cond, -t);
    }
    std::vector<double> A(static_cast<size_t>(n * n), 0.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double v = 0;
            for (int64_t k = 0; k < n; ++k) v += Q[i + k * n] * s[static_cast<size_t>(k)] * Q[j + k * n];
            A[static_cast<size_t>(i + j * n)] = v;
        }
    return A;
}


/// The submit form's ordering: async::posv with factor p, then, into another sequence while it refines, a double
/// posv on A and another right-hand side C (it overwrites A with its factor, which the refinement's residuals must
/// not see) and potrs on B with that factor (it must read the solution). B ends as A^-1 X with X = A^-1 B.
inline void check_submit_form_order(int64_t n, int64_t nb, Precision p, Mapping mapping, Residency residency) {
    const int64_t nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " factor=" << to_string(p) << " residency=" << to_string(residency)
              << " seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs)), C(static_cast<size_t>(n));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    random_matrix<double>(n, 1, C.data(), n, seed + 2);
    TileMatrix<double> a(runtime(), n, nb, residency), b(runtime(), n, nrhs, nb, residency),
        c(runtime(), n, 1, nb, residency);
    a.import(A.data(), n);
    b.import(B.data(), n);
    c.import(C.data(), n);
    Options opts;
    opts.mapping = mapping;
    opts.factor = p;
    SolveReport report;
    Sequence seq(runtime()), later(runtime());
    Refinement low;
    low.always_low = true;  // the tensor-core path at orders where the plan would run the double one
    const int op = async::posv(a, b, seq, opts, report, low);
    Options plain;
    plain.mapping = mapping;
    const int op2 = async::posv(a, c, later, plain);
    async::potrs(a, b, later, plain);
    REQUIRE(later.wait() == 0);  // another sequence: it waits for the solve through the data
    CHECK(later.info(op2) == 0);
    REQUIRE(seq.wait() == 0);
    CHECK(seq.info(op) == 0);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations
                 << " backward error=" << report.backward_error);
    CHECK(report.path == SolveReport::Path::Refined);
    CHECK(report.factor == p);
    CHECK(report.backward_error <= report.tolerance);
    CHECK(report.seconds >= report.factor_seconds);
    std::vector<double> Xref = B, Aref = A, X2(B.size()), Cx(C.size()), L(A.size());
    REQUIRE(starfact::detail::cpu::posv<double>(static_cast<int>(n), static_cast<int>(nrhs), Aref.data(),
                                                static_cast<int>(n), Xref.data(), static_cast<int>(n)) == 0);
    b.export_to(X2.data(), n);
    c.export_to(Cx.data(), n);
    a.export_to(L.data(), n);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X2.data(), n, Xref.data(), n) < kResidualLimit);
    CHECK(solve_residual<double>(n, 1, A.data(), n, Cx.data(), n, C.data(), n) < kResidualLimit);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
}

/// The submit form's fall-back on A, a matrix the low-precision factorization cannot serve: the path reported, A
/// receiving the double factor and B the solution of a random right-hand side.
inline void check_submit_form_fallback(const std::vector<double>& A, int64_t n, int64_t nb, Precision p,
                                       Mapping mapping, Residency residency) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " factor=" << to_string(p) << " residency=" << to_string(residency)
              << " seed=" << seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed);
    TileMatrix<double> a(runtime(), n, nb, residency), b(runtime(), n, 1, nb, residency);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Options opts;
    opts.mapping = mapping;
    opts.factor = p;
    SolveReport report;
    Refinement refine;
    refine.shift_retries = 0;  // no shifted factorizations: straight to the fallback
    refine.always_low = true;
    Sequence seq(runtime());
    const int op = async::posv(a, b, seq, opts, report, refine);
    REQUIRE(seq.wait() == 0);
    CHECK(seq.info(op) == 0);
    CHECK(report.path == SolveReport::Path::Fallback);
    std::vector<double> X(B.size()), L(A.size());
    b.export_to(X.data(), n);
    a.export_to(L.data(), n);
    CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
}

}  // namespace starfact::test
