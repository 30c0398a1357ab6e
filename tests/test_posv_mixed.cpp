// The mixed-precision solve (mixed.hpp): double accuracy from a float factor (every factor precision; CPU workers
// compute them all in float), the fall-back on matrices the float factor cannot handle, the report, bad arguments.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/mixed_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

const Precision kLowPrecisions[] = {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16,
                                    Precision::Tf32x3};

void check_refined(int64_t n, int64_t nrhs, int64_t nb, Precision factor, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " factor=" << to_string(factor) << " seed=" << seed);
    const int64_t lda = n + 1, ldb = n + 2;
    const std::vector<double> A = spd_matrix<double>(n, lda, seed);
    std::vector<double> B(static_cast<size_t>(ldb) * std::max<int64_t>(nrhs, 1));
    random_matrix<double>(n, nrhs, B.data(), ldb, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = mapping;
    opts.factor = factor;
    SolveReport report;
    REQUIRE(posv(runtime(), n, nrhs, F.data(), lda, X.data(), ldb, opts, report, Refinement{}, Tiling{nb}) == 0);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                 << report.gmres_iterations << " backward error=" << report.backward_error);
    CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
    CHECK(report.factor == factor);
    CHECK(report.low_info == 0);
    CHECK(report.skipped_tasks == 0);  // nothing broke down: the whole factorization ran
    CHECK(report.backward_error <= report.tolerance);
    const double res = solve_residual<double>(n, nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(F == A);  // a refined solve leaves A as it was
}

}  // namespace

TEST_CASE("mixed-precision posv reaches double accuracy from every lower factor precision", "[mixed][cpu]") {
    const int64_t nb = 32;
    for (Precision p : kLowPrecisions)
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7})
            for (int64_t nrhs : {int64_t(1), int64_t(3)}) check_refined(n, nrhs, nb, p, Mapping::CpuOnly);
    check_refined(200, 2, 48, Precision::Tf32, Mapping::Hybrid);
}

TEST_CASE("mixed-precision posv through the tile and plain forms", "[mixed][cpu]") {
    const int64_t n = 150, nb = 40;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n) * 2);
    random_matrix<double>(n, 2, B.data(), n, seed + 1);
    TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 2, nb);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    // posv without a report takes the same path
    REQUIRE(posv(a, b, opts) == 0);
    std::vector<double> X(B.size());
    b.export_to(X.data(), n);
    CHECK(solve_residual<double>(n, 2, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    // Native: the plain solve, reported as Direct
    TileMatrix<double> a2(runtime(), n, nb), b2(runtime(), n, 2, nb);
    a2.import(A.data(), n);
    b2.import(B.data(), n);
    opts.factor = Precision::Native;
    SolveReport report;
    REQUIRE(posv(a2, b2, opts, report) == 0);
    CHECK(report.path == SolveReport::Path::Direct);
}

TEST_CASE("mixed-precision posv falls back to the double factorization when the float one cannot serve",
          "[mixed][cpu]") {
    const int64_t n = 96, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // Half the spectrum at 1e-13: rounded to float (6e-8 relative) the matrix is indefinite.
    const std::vector<double> A = test::conditioned_spd(n, 1e13, true, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    Refinement no_shift;
    no_shift.shift_retries = 0;  // the shifted factorizations would serve (test_mixed_range.cpp): not here
    {
        std::vector<double> F = A, X = B;
        SolveReport report;
        REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, no_shift, Tiling{nb}) == 0);
        INFO("path=" << to_string(report.path) << " low info=" << report.low_info << " iterations=" << report.iterations
                     << " gmres=" << report.gmres_iterations);
        CHECK(report.path == SolveReport::Path::Fallback);
        CHECK_THAT(report.reason, Catch::Contains("broke down"));
        CHECK(report.backward_error == 0);  // not measured
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        CHECK(potrf_residual<double>(n, A.data(), n, F.data(), n) < kResidualLimit);  // A holds the double factor
    }
    {  // without the fall-back: reported as failed, never a silent answer
        std::vector<double> F = A, X = B;
        SolveReport report;
        Refinement refine = no_shift;
        refine.fallback = false;
        REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
        CHECK(report.path == SolveReport::Path::Failed);
        CHECK(X == B);  // B is left as it was
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 1, nb);  // the tile form too
        a.import(A.data(), n);
        b.import(B.data(), n);
        REQUIRE(posv(a, b, opts, report, refine) == 0);
        CHECK(report.path == SolveReport::Path::Failed);
        std::vector<double> Xt(B.size());
        b.export_to(Xt.data(), n);
        CHECK(Xt == B);
    }
}

TEST_CASE("a low-precision factorization stops at its breakdown, and the fall-back still solves", "[mixed][cpu]") {
    const int64_t nb = 24, mt = 10, n = mt * nb - 5;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // SPD in double, but its leading 2 x 2 block [1, 1 - 1e-10; 1 - 1e-10, 1] is singular once rounded to float: the
    // float factorization breaks down at column 2, in the first diagonal tile, before any other task of it can run.
    std::vector<double> A = spd_matrix<double>(n, n, seed);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            if ((i < 2 || j < 2) && i != j) A[static_cast<size_t>(i + j * n)] = 0;
    const double d0 = A[0], d1 = A[static_cast<size_t>(1 + n)];
    A[1] = A[static_cast<size_t>(n)] = (1 - 1e-10) * std::sqrt(d0 * d1);
    std::vector<double> B(static_cast<size_t>(n) * 2);
    random_matrix<double>(n, 2, B.data(), n, seed + 1);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    Refinement no_shift;
    no_shift.shift_retries = 0;
    std::vector<double> F = A, X = B;
    SolveReport report;
    REQUIRE(posv(runtime(), n, 2, F.data(), n, X.data(), n, opts, report, no_shift, Tiling{nb}) == 0);
    INFO("path=" << to_string(report.path) << " low info=" << report.low_info << " skipped=" << report.skipped_tasks
                 << " reason=" << report.reason);
    CHECK(report.path == SolveReport::Path::Fallback);
    CHECK(report.low_info == 2);
    // every later diagonal factorization, panel solve and update of F: at least the mt (mt - 1) / 2 panel tiles
    CHECK(report.skipped_tasks >= mt * (mt - 1) / 2);
    CHECK(solve_residual<double>(n, 2, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(potrf_residual<double>(n, A.data(), n, F.data(), n) < kResidualLimit);  // A holds the double factor
    // A shifted retry factors again from the start (the watch is reset), and its factor serves
    Refinement shifted;
    shifted.time_budget = 0;
    F = A;
    X = B;
    REQUIRE(posv(runtime(), n, 2, F.data(), n, X.data(), n, opts, report, shifted, Tiling{nb}) == 0);
    INFO("shifted: path=" << to_string(report.path) << " factorizations=" << report.factorizations);
    CHECK(report.factorizations >= 2);
    CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
    CHECK(report.backward_error <= report.tolerance);
    CHECK(solve_residual<double>(n, 2, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(F == A);
}

TEST_CASE("mixed-precision posv: GMRES preconditioned by the float factor reaches double accuracy", "[mixed][cpu]") {
    // No classical step allowed: the solve goes from X0 = M^-1 B straight to GMRES-IR.
    const int64_t n = 130, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n) * 2);
    random_matrix<double>(n, 2, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    Refinement refine;
    refine.max_iterations = 0;
    refine.fallback = false;
    refine.time_budget = 0;  // however long GMRES takes here
    SolveReport report;
    REQUIRE(posv(runtime(), n, 2, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
    INFO("path=" << to_string(report.path) << " gmres=" << report.gmres_iterations << " backward error="
                 << report.backward_error);
    CHECK(report.path == SolveReport::Path::Gmres);
    CHECK(report.iterations == 0);
    CHECK(report.gmres_iterations > 0);
    CHECK(report.backward_error <= report.tolerance);
    CHECK(solve_residual<double>(n, 2, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
}

TEST_CASE("mixed-precision posv over a condition sweep: double accuracy or the fall-back, reported", "[mixed][cpu]") {
    const int64_t n = 120, nb = 32;
    for (double cond : {1e2, 1e4, 1e6, 1e8, 1e10, 1e12}) {
        const uint64_t seed = fresh_seed();
        INFO("cond=" << cond << " seed=" << seed);
        const std::vector<double> A = test::conditioned_spd(n, cond, false, seed);
        std::vector<double> B(static_cast<size_t>(n));
        random_matrix<double>(n, 1, B.data(), n, seed + 1);
        std::vector<double> F = A, X = B;
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        opts.factor = Precision::Fp32;
        SolveReport report;
        REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, Refinement{}, Tiling{nb}) == 0);
        INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                     << report.gmres_iterations << " backward error=" << report.backward_error);
        CHECK(report.path != SolveReport::Path::Failed);
        if (report.path != SolveReport::Path::Fallback) CHECK(report.backward_error <= report.tolerance);
        if (cond <= 1e4) CHECK(report.path == SolveReport::Path::Refined);  // well within float's reach
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEST_CASE("mixed-precision arguments are refused naming them", "[mixed][cpu][errors]") {
    CHECK_THROWS_AS(parse_precision("fp8"), InvalidArgument);
    CHECK_THROWS_WITH(parse_precision("fp8", "--factor-prec"), Catch::Contains("--factor-prec") && Catch::Contains("tf32"));
    CHECK(parse_precision("bf16") == Precision::Bf16);
    CHECK(parse_precision("d") == Precision::Fp64);
    for (Precision p : {Precision::Tf32x3, Precision::Auto}) CHECK(parse_precision(to_string(p)) == p);
    const int64_t n = 40;
    TileMatrix<double> a(runtime(), n, 16), b(runtime(), n, 1, 16);
    TileMatrix<float> af(runtime(), n, 16), bf(runtime(), n, 1, 16);
    std::vector<double> A = spd_matrix<double>(n, n, fresh_seed());
    a.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Tf32;
    CHECK_THROWS_WITH(potrf(a, opts), Catch::Contains("'factor'"));  // a double factorization runs in double
    opts.factor = Precision::Fp64;
    CHECK_THROWS_WITH(posv(af, bf, opts), Catch::Contains("'factor'"));  // float matrices have no fp64 factor
    opts.factor = Precision::Fp32;
    SolveReport report;
    Refinement refine;
    refine.gmres_restart = 0;
    CHECK_THROWS_WITH(posv(a, b, opts, report, refine), Catch::Contains("refine.gmres_restart"));
    {  // the submit form checks the same, before any task is submitted
        Sequence seq(runtime());
        CHECK_THROWS_WITH(async::posv(a, b, seq, opts, report, refine), Catch::Contains("refine.gmres_restart"));
        TileMatrix<double> b3(runtime(), n + 1, 1, 16);
        CHECK_THROWS_WITH(async::posv(a, b3, seq, opts, report), Catch::Contains("'B'"));
        CHECK(seq.submitted() == 0);
    }
    refine = Refinement{};
    refine.tolerance = -1;
    CHECK_THROWS_WITH(posv(a, b, opts, report, refine), Catch::Contains("refine.tolerance"));
}

TEST_CASE("the submit form of the mixed-precision solve: refined, and ordered before later work on A and B",
          "[mixed][async][cpu]") {
    const int64_t nb = 32;
    for (Precision p : {Precision::Fp32, Precision::Bf16})
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7})
            test::check_submit_form_order(n, nb, p, Mapping::CpuOnly, Residency::Host);
}

TEST_CASE("the submit form of the mixed-precision solve: fall-back, failure, no report, a Sequence left unwaited",
          "[mixed][async][cpu]") {
    const int64_t n = 96, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = test::conditioned_spd(n, 1e13, true, seed);  // indefinite in float
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    // the fall-back: A receives the double factor, B the solution
    test::check_submit_form_fallback(A, n, nb, opts.factor, opts.mapping, Residency::Host);
    {  // without the fall-back: failed, A and B as they were
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 1, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        SolveReport report;
        Refinement refine;
        refine.fallback = false;
        refine.shift_retries = 0;
        Sequence seq(runtime());
        async::posv(a, b, seq, opts, report, refine);
        REQUIRE(seq.wait() == 0);
        CHECK(report.path == SolveReport::Path::Failed);
        std::vector<double> X(B.size()), F(A.size());
        b.export_to(X.data(), n);
        a.export_to(F.data(), n);
        CHECK(X == B);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = j; i < n; ++i) CHECK(F[static_cast<size_t>(i + j * n)] == A[static_cast<size_t>(i + j * n)]);
    }
    {  // the form without a report; its Sequence destroyed without a wait (the destructor waits)
        const std::vector<double> S = spd_matrix<double>(n, n, seed + 2);
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 1, nb);
        a.import(S.data(), n);
        b.import(B.data(), n);
        {
            Sequence seq(runtime());
            async::posv(a, b, seq, opts);
        }
        std::vector<double> X(B.size());
        b.export_to(X.data(), n);
        CHECK(solve_residual<double>(n, 1, S.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEST_CASE("mixed-precision posv: GMRES on groups of right-hand sides, restarted, to double accuracy", "[mixed][cpu]") {
    // A matrix of condition 1e6, no classical step: GMRES-IR from X0 = M^-1 B. The Krylov panels are one tile wide, so the right-hand sides iterate in groups: of 1 (nb = 16, 15 vectors per
    // cycle, B over two column tiles), of 2 (nb = 64, restart 30), of 10 (nb = 64, restart 5: several cycles).
    struct Case {
        int64_t n, nrhs, nb;
        int restart;
    };
    for (const Case& k : {Case{90, 20, 16, 30}, Case{150, 5, 64, 30}, Case{150, 20, 64, 5}}) {
        const uint64_t seed = fresh_seed();
        INFO("n=" << k.n << " nrhs=" << k.nrhs << " nb=" << k.nb << " restart=" << k.restart << " seed=" << seed);
        const std::vector<double> A = test::conditioned_spd(k.n, 1e6, false, seed);
        std::vector<double> B(static_cast<size_t>(k.n * k.nrhs));
        random_matrix<double>(k.n, k.nrhs, B.data(), k.n, seed + 1);
        std::vector<double> F = A, X = B;
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        opts.factor = Precision::Fp32;
        Refinement refine;
        refine.max_iterations = 0;
        refine.fallback = false;
        refine.time_budget = 0;
        refine.gmres_restart = k.restart;
        refine.gmres_iterations = 200;
        SolveReport report;
        REQUIRE(posv(runtime(), k.n, k.nrhs, F.data(), k.n, X.data(), k.n, opts, report, refine, Tiling{k.nb}) == 0);
        INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                     << report.gmres_iterations << " backward error=" << report.backward_error);
        CHECK(report.path == SolveReport::Path::Gmres);
        CHECK(report.gmres_iterations > 0);
        CHECK(report.backward_error <= report.tolerance);
        for (int64_t j = 0; j < k.nrhs; ++j) {
            INFO("column " << j);
            CHECK(solve_residual<double>(k.n, 1, A.data(), k.n, X.data() + j * k.n, k.n, B.data() + j * k.n, k.n) <
                  kResidualLimit);
        }
    }
}

namespace {

/// J + eps I (J all ones), column-major n x n: SPD in double; rounded to float it is J, of rank one, so that every
/// float factorization breaks down.
std::vector<double> ones_plus_diagonal(int64_t n, double eps) {
    std::vector<double> A(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] = 1.0 + (i == j ? eps : 0.0);
    return A;
}

Refinement climbing() {
    Refinement r;
    r.climb = true;
    return r;
}

SolveReport solve_auto(const std::vector<double>& A, int64_t n, int64_t nb, std::vector<double>& X,
                       const std::vector<double>& B, Refinement refine = climbing()) {
    std::vector<double> F = A;
    X = B;
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Auto;
    SolveReport report;
    refine.time_budget = 0;  // the ladder's decisions, not the clock's
    REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
    return report;
}

}  // namespace

TEST_CASE("mixed-precision posv, automatic precision: the ladder from tf32 to tf32x3, reported", "[mixed][cpu]") {
    // CPU workers compute every rung in float: what is tested here is the ladder's logic (the GPU tests and
    // docs/mixed_precision.md measure the rungs' arithmetic).
    const int64_t n = 100, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<double> B(static_cast<size_t>(n)), X;
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    {  // well conditioned: the first rung refines
        const std::vector<double> A = spd_matrix<double>(n, n, seed);
        const SolveReport r = solve_auto(A, n, nb, X, B);
        INFO("rungs=" << r.rungs << " path=" << to_string(r.path));
        CHECK(r.path == SolveReport::Path::Refined);
        CHECK(r.factor == Precision::Tf32);
        CHECK(r.rungs == "tf32");
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
    {  // every float factor breaks down: tf32, then tf32x3 and its shifted retries, then GMRES or the fall-back
        const std::vector<double> A = ones_plus_diagonal(n, 1e-9);
        const SolveReport r = solve_auto(A, n, nb, X, B);
        INFO("rungs=" << r.rungs << " path=" << to_string(r.path) << " reason=" << r.reason);
        CHECK(r.rungs.rfind("tf32 > tf32x3 (tf32 broke down at column ", 0) == 0);
        CHECK(r.factor == Precision::Tf32x3);
        CHECK(r.factorizations >= 2);
        CHECK(r.path != SolveReport::Path::Failed);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
    {  // beyond float's reach: tf32's refinement stalls, tf32x3 is tried, then the double fall-back
        const std::vector<double> A = test::conditioned_spd(n, 1e14, false, seed);
        const SolveReport r = solve_auto(A, n, nb, X, B);
        INFO("rungs=" << r.rungs << " path=" << to_string(r.path) << " reason=" << r.reason);
        CHECK(r.rungs.find(" > tf32x3 (") != std::string::npos);
        CHECK((r.path == SolveReport::Path::Fallback || r.path == SolveReport::Path::Gmres));
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
    {  // one classical step and no GMRES cannot reach the tolerance: the climb after tf32's refinement, then the
       // fall-back
        const std::vector<double> A = test::conditioned_spd(n, 1e6, false, seed);
        Refinement one = climbing();
        one.max_iterations = 1;
        one.gmres_iterations = 0;
        const SolveReport r = solve_auto(A, n, nb, X, B, one);
        INFO("rungs=" << r.rungs << " path=" << to_string(r.path) << " reason=" << r.reason);
        CHECK(r.rungs.rfind("tf32 > tf32x3 (tf32 refinement reached ", 0) == 0);
        CHECK(r.factorizations == 2);
        CHECK(r.path == SolveReport::Path::Fallback);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
    {  // without the climb (the default): a tf32 breakdown goes to the double factorization at once, unshifted
        const std::vector<double> A = ones_plus_diagonal(n, 1e-9);
        Refinement direct;
        direct.climb = false;
        const SolveReport r = solve_auto(A, n, nb, X, B, direct);
        INFO("rungs=" << r.rungs << " path=" << to_string(r.path) << " reason=" << r.reason);
        CHECK(r.rungs == "tf32");
        CHECK(r.factorizations == 1);
        CHECK(r.shift == 0);
        CHECK(r.path == SolveReport::Path::Fallback);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEST_CASE("automatic precision elsewhere is the matrix's own", "[mixed][cpu]") {
    const int64_t n = 70, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Auto;
    std::vector<double> A = spd_matrix<double>(n, n, seed), L = A;
    CHECK(potrf(runtime(), n, L.data(), n, opts, Tiling{nb}) == 0);
    std::vector<float> Af(A.begin(), A.end()), Bf(static_cast<size_t>(n), 1.0f), Xf = Bf, Ff = Af;
    SolveReport report;
    CHECK(posv(runtime(), n, 1, Ff.data(), n, Xf.data(), n, opts, report) == 0);
    CHECK(report.path == SolveReport::Path::Direct);
    CHECK(solve_residual<float>(n, 1, Af.data(), n, Xf.data(), n, Bf.data(), n) < kResidualLimit);
}
