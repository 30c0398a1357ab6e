// The mixed-precision Hermitian solve (mixed.hpp with complex<double> A and B, factor fp32 or tf32) on CPU workers,
// which compute the complex<float> factor in complex<float> whatever the factor precision: complex<double> accuracy
// (the report's backward error and one computed here in long double, a scaled residual < 60) on fresh random
// Hermitian positive definite matrices of condition 1e1, 1e4, 1e7 and 1e12 (the last by GMRES or the fall-back;
// without GMRES, the fall-back), n = 1, n < nb, n not a multiple of nb, one and three right-hand sides, lda and ldb above n; a
// matrix singular in complex<float> (its factorization stopped at the breakdown, shifted retries, then GMRES or the
// fall-back); a matrix that is not definite
// (info > 0 from the complex<double> factorization); the submit form; bad arguments refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "starfact/mixed.hpp"
#include "tests/mixed_complex_checks.hpp"
#include "tests/mixed_complex_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::backward_error;
using starfact::test::hpd_conditioned;
using starfact::test::mixed_complex::check_refined_report;
using starfact::test::mixed_complex::check_tile_answer;
using starfact::test::mixed_complex::mixed_options;
using starfact::test::packed;
using starfact::test::random_block;
using starfact::test::solve_residual;
using Z = std::complex<double>;

namespace {

struct Solved {
    SolveReport report;
    int info = 0;
    double backward = 0, residual = 0;
    bool a_unchanged = false;
};

/// posv (array form) of a fresh matrix of condition kappa with `nrhs` random right-hand sides; A and B with leading
/// dimensions above n.
Solved solve(int64_t n, int64_t nrhs, int64_t nb, double kappa, Precision factor, Mapping mapping,
             const Refinement& refine = {}) {
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " kappa=" << kappa << " factor=" << to_string(factor)
              << " seed=" << seed);
    const int64_t lda = n + 3, ldb = n + 1;
    const std::vector<Z> A = hpd_conditioned(n, lda, kappa, g);
    std::vector<Z> B(static_cast<size_t>(ldb * nrhs));
    for (Z& b : B) b = starfact::test::draw<double>(g);
    std::vector<Z> F = A, X = B;
    const Options opts = mixed_options(mapping, factor);
    Solved s;
    s.info = posv(runtime(), n, nrhs, F.data(), lda, X.data(), ldb, opts, s.report, refine, Tiling{nb});
    s.backward = backward_error(A, lda, X, ldb, B, ldb, n, nrhs);
    s.residual = solve_residual(packed(A, lda, n, n), packed(X, ldb, n, nrhs), packed(B, ldb, n, nrhs), n, nrhs);
    s.a_unchanged = F == A;
    return s;
}

void check_refined(const Solved& s, Precision factor) {
    INFO("path=" << to_string(s.report.path) << " iterations=" << s.report.iterations << " gmres="
                 << s.report.gmres_iterations << " report backward error=" << s.report.backward_error
                 << " backward error=" << s.backward << " residual=" << s.residual << " reason=" << s.report.reason);
    REQUIRE(s.info == 0);
    check_refined_report(s.report, factor, s.backward);
    CHECK(s.report.factorizations == 1);
    CHECK(s.report.tolerance > 0);
    CHECK(s.residual < kResidualLimit);
    CHECK(s.report.seconds >= s.report.factor_seconds);
    CHECK(s.report.factor_seconds > 0);
    CHECK(s.a_unchanged);  // a refined solve leaves A as it was
}

}  // namespace

TEST_CASE("mixed-precision complex posv reaches complex<double> accuracy from a complex<float> factor",
          "[mixed][complex][cpu]") {
    const int64_t nb = 32;
    for (Precision p : {Precision::Fp32, Precision::Tf32})
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7})
            for (int64_t nrhs : {int64_t(1), int64_t(3)}) check_refined(solve(n, nrhs, nb, 10, p, Mapping::CpuOnly), p);
    check_refined(solve(150, 2, 40, 10, Precision::Tf32, Mapping::Hybrid), Precision::Tf32);
}

TEST_CASE("mixed-precision complex posv on ill-conditioned matrices: refinement, GMRES, the fall-back",
          "[mixed][complex][cpu]") {
    const int64_t n = 120, nb = 32;
    // kappa 1e4: kappa u = 6e-4 in complex<float> (CPU workers): classical refinement converges
    check_refined(solve(n, 2, nb, 1e4, Precision::Tf32, Mapping::CpuOnly), Precision::Tf32);
    {  // kappa 1e7 (kappa u = 0.6 at worst): refined, GMRES or the fall-back, complex<double> accuracy either way
        const Solved s = solve(n, 2, nb, 1e7, Precision::Fp32, Mapping::CpuOnly);
        INFO("path=" << to_string(s.report.path) << " reason=" << s.report.reason << " backward error=" << s.backward
                     << " residual=" << s.residual);
        REQUIRE(s.info == 0);
        CHECK(s.report.path != SolveReport::Path::Failed);
        CHECK(s.residual < kResidualLimit);
        if (s.report.path != SolveReport::Path::Fallback) CHECK(s.backward <= 2 * s.report.tolerance);
        else CHECK(!s.report.reason.empty());
    }
    {  // kappa 1e12 (kappa u = 6e4): no refinement from a complex<float> factor; GMRES or the fall-back
        const Solved s = solve(n, 2, nb, 1e12, Precision::Fp32, Mapping::CpuOnly);
        INFO("path=" << to_string(s.report.path) << " reason=" << s.report.reason << " backward error=" << s.backward
                     << " residual=" << s.residual << " factorizations=" << s.report.factorizations);
        REQUIRE(s.info == 0);
        CHECK((s.report.path == SolveReport::Path::Gmres || s.report.path == SolveReport::Path::Fallback));
        CHECK(s.residual < kResidualLimit);
        if (s.report.path == SolveReport::Path::Gmres) CHECK(s.backward <= 2 * s.report.tolerance);
        else CHECK(!s.report.reason.empty());
    }
    {  // the same without GMRES: classical refinement cannot converge, the fall-back solves
        Refinement no_gmres;
        no_gmres.gmres_iterations = 0;
        const Solved s = solve(n, 3, nb, 1e12, Precision::Fp32, Mapping::CpuOnly, no_gmres);
        INFO("path=" << to_string(s.report.path) << " reason=" << s.report.reason << " iterations="
                     << s.report.iterations);
        REQUIRE(s.info == 0);
        CHECK(s.report.path == SolveReport::Path::Fallback);
        CHECK(!s.report.reason.empty());  // refinement stalled, or the factorization broke down (after its shifts)
        CHECK(s.report.backward_error == 0);  // the fall-back's answer is not measured
        CHECK(s.report.gmres_iterations == 0);
        CHECK(s.residual < kResidualLimit);
        CHECK(!s.a_unchanged);  // A holds the complex<double> factor, as LAPACK's zcposv leaves it
    }
}

TEST_CASE("mixed-precision complex posv: singular in complex<float>, shifted retries, then GMRES or the fall-back",
          "[mixed][complex][cpu]") {
    // [1 w; conj(w) 1 + 1e-10] with |w| = 1 is definite, its pivot 1e-10 lost in complex<float>: the factorization
    // breaks down at column 2, is repeated with a diagonal shift, and GMRES against A itself or the fall-back solves.
    const int64_t n = 40, nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    INFO("seed=" << seed);
    const std::vector<Z> A = starfact::test::mixed_complex::singular_in_complex_float(n, g);
    const std::vector<Z> B = random_block<Z>(n, 2, g);
    for (bool fallback : {true, false}) {
        INFO("fallback=" << fallback);
        std::vector<Z> F = A, X = B;
        const Options opts = mixed_options(Mapping::CpuOnly, Precision::Fp32);
        Refinement refine;
        refine.fallback = fallback;
        refine.time_budget = 0;
        SolveReport report;
        const int info = posv(runtime(), n, 2, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb});
        INFO("path=" << to_string(report.path) << " reason=" << report.reason << " factorizations="
                     << report.factorizations << " shift=" << report.shift);
        REQUIRE(info == 0);
        CHECK(report.factorizations >= 2);  // broke down, retried with a shift
        CHECK(report.skipped_tasks >= 2);   // the first attempt stopped at its first tile: the later ones skipped
        if (report.path == SolveReport::Path::Gmres || report.path == SolveReport::Path::Refined) {
            CHECK(report.shift > 0);
            CHECK(backward_error(A, n, X, n, B, n, n, 2) <= 2 * report.tolerance);
        } else if (fallback) {
            CHECK(report.path == SolveReport::Path::Fallback);
            CHECK(solve_residual(A, X, B, n, 2) < kResidualLimit);
        } else {
            CHECK(report.path == SolveReport::Path::Failed);
            CHECK(X == B);  // B as it was
            CHECK(F == A);
        }
    }
}

TEST_CASE("mixed-precision complex posv of a matrix that is not definite: info from the complex<double> factorization",
          "[mixed][complex][cpu]") {
    const int64_t n = 50, nb = 16, k = 21;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    INFO("seed=" << seed);
    std::vector<Z> A = hpd_conditioned(n, n, 10, g);
    A[static_cast<size_t>(k + k * n)] = -1;  // pivot k + 1 not positive (and d_k not defined)
    const std::vector<Z> B = random_block<Z>(n, 1, g);
    for (bool fallback : {true, false}) {
        INFO("fallback=" << fallback);
        std::vector<Z> F = A, X = B;
        const Options opts = mixed_options(Mapping::CpuOnly, Precision::Tf32);
        Refinement refine;
        refine.fallback = fallback;
        SolveReport report;
        const int info = posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb});
        INFO("path=" << to_string(report.path) << " reason=" << report.reason);
        CHECK(report.path == SolveReport::Path::Failed);
        CHECK(report.reason.find("real part is not positive") != std::string::npos);
        CHECK(X == B);  // untouched
        if (fallback) {
            CHECK(info > 0);
            CHECK(info <= k + 1);
        } else {
            CHECK(info == 0);
            CHECK(F == A);
        }
    }
}

TEST_CASE("mixed-precision complex posv: tile and submit forms, native factor", "[mixed][complex][cpu][async]") {
    const int64_t n = 100, nb = 24, nrhs = 2;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    INFO("seed=" << seed);
    const std::vector<Z> A = hpd_conditioned(n, n, 100, g);
    const std::vector<Z> B = random_block<Z>(n, nrhs, g);
    const Options opts = mixed_options(Mapping::CpuOnly, Precision::Tf32);
    {  // blocking tile form
        TileMatrix<Z> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        SolveReport report;
        REQUIRE(posv(a, b, opts, report) == 0);
        check_tile_answer(A, B, b, n, nrhs, report);
    }
    {  // submit form, then a complex<double> potrs on A's tiles in another sequence: it sees A unchanged
        TileMatrix<Z> a(runtime(), n, nb), b(runtime(), n, nrhs, nb), d(runtime(), n, 1, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        SolveReport report;
        Sequence seq(runtime());
        const int op = async::posv(a, b, seq, opts, report);
        Sequence other(runtime());
        async::potrf(a, other, on(Mapping::CpuOnly));  // waits for the solve's gate on A
        REQUIRE(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
        REQUIRE(other.wait() == 0);
        check_tile_answer(A, B, b, n, nrhs, report);
        // a's tiles now hold the factor of the A the solve left unchanged
        const std::vector<Z> B1 = random_block<Z>(n, 1, g);
        d.import(B1.data(), n);
        potrs(a, d, on(Mapping::CpuOnly));
        std::vector<Z> X1(B1.size());
        d.export_to(X1.data(), n);
        CHECK(solve_residual(A, X1, B1, n, 1) < kResidualLimit);
    }
    {  // native: the complex<double> solve, reported Direct
        std::vector<Z> F = A, X = B;
        Options native;
        native.mapping = Mapping::CpuOnly;
        SolveReport report;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, native, report, Refinement{}, Tiling{nb}) == 0);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK(solve_residual(A, X, B, n, nrhs) < kResidualLimit);
    }
}

TEST_CASE("mixed-precision complex posv names its bad arguments", "[mixed][complex][cpu][errors]") {
    const int64_t n = 20, nb = 8;
    TileMatrix<Z> a(runtime(), n, nb), b(runtime(), n, 2, nb), short_b(runtime(), n - 1, 2, nb);
    std::mt19937_64 g(fresh_seed());
    const std::vector<Z> A = hpd_conditioned(n, n, 10, g);
    a.import(A.data(), n);
    auto refusal = [&](const Options& o, const Refinement& r, TileMatrix<Z>& B) -> std::string {
        SolveReport report;
        try {
            posv(a, B, o, report, r);
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "";
    };
    Options o;
    o.mapping = Mapping::CpuOnly;
    for (Precision p : {Precision::Bf16, Precision::Fp16, Precision::Tf32x3, Precision::Fp64}) {
        o.factor = p;
        INFO("factor=" << to_string(p));
        CHECK(refusal(o, {}, b) == "factor");
    }
    o.factor = Precision::Tf32;
    CHECK(refusal(o, {}, short_b) == "B");
    Refinement r;
    r.tile_tolerance = 1e-3;
    CHECK(refusal(o, r, b) == "refine.tile_tolerance");
    r = Refinement{};
    r.max_iterations = -1;
    CHECK(refusal(o, r, b) == "refine.max_iterations");
    r = Refinement{};
    r.gmres_restart = 0;
    CHECK(refusal(o, r, b) == "refine.gmres_restart");
    {  // B with a NaN: refused naming B, B as it was
        std::vector<Z> Bn = random_block<Z>(n, 2, g);
        Bn[3] = Z(std::numeric_limits<double>::quiet_NaN(), 0);
        b.import(Bn.data(), n);
        CHECK(refusal(o, {}, b) == "B");
        std::vector<Z> after(Bn.size());
        b.export_to(after.data(), n);
        CHECK(std::isnan(after[3].real()));
        CHECK(after[4] == Bn[4]);
    }
    {  // a complex<float> matrix has no lower factor
        TileMatrix<std::complex<float>> ca(runtime(), n, nb), cb(runtime(), n, 1, nb);
        SolveReport report;
        for (Precision p : {Precision::Fp32, Precision::Tf32}) {
            Options co;
            co.factor = p;
            try {
                posv(ca, cb, co, report);
                FAIL("a complex<float> posv took a lower factor");
            } catch (const InvalidArgument& e) {
                CHECK(e.argument() == "factor");
            }
        }
    }
    // the plan: a lower factor is the c128 posv's only
    Request req;
    req.element = Precision::C128;
    req.n = req.m = 100;
    req.options.factor = Precision::Tf32;
    req.op = Operation::Potrf;
    CHECK_THROWS_AS(plan(req, Machine{2, 0, 0}), InvalidArgument);
    req.op = Operation::Posv;
    req.nrhs = 1;
    const Plan p = plan(req, Machine{2, 0, 0});
    CHECK(p.refined);
    CHECK(p.arithmetic == Precision::Tf32);
    req.element = Precision::C64;
    try {
        plan(req, Machine{2, 0, 0});
        FAIL("a c64 posv took a lower factor");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "factor");
    }
}
