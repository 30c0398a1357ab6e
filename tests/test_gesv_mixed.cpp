// The mixed-precision gesv (lu.hpp): double accuracy from a float LU (fp32 and the tensor-core precisions, which CPU
// workers compute in float), GMRES where classical refinement stalls, the fall-back to the double LU on matrices
// the float LU cannot serve, the report, the array and tile forms, bad arguments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tests/gesv_mixed_support.hpp"
#include "tests/lu_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::gesv_mixed::backward_error;
using starfact::test::gesv_mixed::check_refined;
using starfact::test::gesv_mixed::conditioned_general;
using starfact::test::gesv_mixed::Outcome;
using starfact::test::gesv_mixed::solve;

namespace {

Options low(Precision p, Mapping m = Mapping::CpuOnly) {
    Options o;
    o.mapping = m;
    o.factor = p;
    return o;
}

/// A random nonsymmetric system (entries uniform in [-0.5, 0.5]) with lda = n + 1, ldb = n + 2.
void check_random(int64_t n, int64_t nrhs, int64_t nb, Precision p, Mapping m) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " factor=" << to_string(p) << " seed=" << seed);
    const int64_t lda = n + 1, ldb = n + 2;
    const std::vector<double> A = test::lu::random_general<double>(n, lda, seed);
    std::vector<double> B(static_cast<size_t>(ldb * nrhs), -777.0);
    random_matrix<double>(n, nrhs, B.data(), ldb, seed + 1);
    const Outcome o = solve(A, lda, B, ldb, n, nrhs, low(p, m), Refinement{}, Tiling{nb});
    check_refined(o, A, lda, B, ldb, n, nrhs);
    CHECK(o.report.factor == p);
}

}  // namespace

TEST_CASE("mixed-precision gesv reaches double accuracy from a float LU", "[gesv_mixed][cpu]") {
    const int64_t nb = 32;
    for (Precision p : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16})
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7})
            for (int64_t nrhs : {int64_t(1), int64_t(3)}) check_random(n, nrhs, nb, p, Mapping::CpuOnly);
    check_random(150, 2, 48, Precision::Tf32, Mapping::Hybrid);
}

TEST_CASE("mixed-precision gesv through the tile and plain forms", "[gesv_mixed][cpu]") {
    const int64_t n = 150, nb = 40, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = test::lu::random_general<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    std::vector<double> X(B.size()), LU(A.size());
    {  // the tile form with a report: A unchanged, piv the float LU's
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        Pivots piv(a);
        SolveReport report;
        REQUIRE(gesv(a, piv, b, low(Precision::Bf16), report) == 0);
        CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
        CHECK(report.seconds >= report.factor_seconds);
        CHECK(report.factor_seconds > 0);
        b.export_to(X.data(), n);
        a.export_to(LU.data(), n);
        CHECK(LU == A);
        CHECK(backward_error(n, nrhs, A.data(), n, X.data(), B.data(), n) <= report.tolerance * 2);
        CHECK(piv.ipiv().size() == static_cast<size_t>(n));
    }
    {  // gesv without a report takes the same path
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        Pivots piv(a);
        REQUIRE(gesv(a, piv, b, low(Precision::Fp32)) == 0);
        b.export_to(X.data(), n);
        a.export_to(LU.data(), n);
        CHECK(LU == A);  // refined: A as it was (the plain double gesv would have factored it)
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), X.data(), B.data()) < kResidualLimit);
    }
    {  // the array form without a report too
        std::vector<double> Aa = A, Xa = B;
        std::vector<int64_t> ipiv(static_cast<size_t>(n));
        REQUIRE(gesv(runtime(), n, nrhs, Aa.data(), n, ipiv.data(), Xa.data(), n, low(Precision::Fp16), Tiling{nb}) == 0);
        CHECK(Aa == A);
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), Xa.data(), B.data()) < kResidualLimit);
    }
    {  // Native: the double gesv, reported as Direct; A holds its LU
        std::vector<double> Ad = A, Xd = B;
        std::vector<int64_t> ipiv(static_cast<size_t>(n));
        SolveReport report;
        REQUIRE(gesv(runtime(), n, nrhs, Ad.data(), n, ipiv.data(), Xd.data(), n, low(Precision::Native), report,
                     Refinement{}, Tiling{nb}) == 0);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK(test::lu::lu_residual<double>(n, A.data(), n, Ad.data(), n, ipiv) < kResidualLimit);
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), Xd.data(), B.data()) < kResidualLimit);
    }
}

TEST_CASE("mixed-precision gesv: GMRES preconditioned by the float LU reaches double accuracy", "[gesv_mixed][cpu]") {
    const int64_t n = 120, nb = 32, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    SECTION("no classical step: from X0 straight to GMRES-IR") {
        const std::vector<double> A = test::lu::random_general<double>(n, n, seed);
        std::vector<double> B(static_cast<size_t>(n * nrhs));
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        Refinement refine;
        refine.max_iterations = 0;
        refine.fallback = false;
        refine.time_budget = 0;
        const Outcome o = solve(A, n, B, n, n, nrhs, low(Precision::Fp32), refine, Tiling{nb});
        check_refined(o, A, n, B, n, n, nrhs);
        CHECK(o.report.path == SolveReport::Path::Gmres);
        CHECK(o.report.iterations == 0);
        CHECK(o.report.gmres_iterations > 0);
    }
    SECTION("condition 1e8: classical refinement with a float LU stalls, GMRES does not") {
        const std::vector<double> A = conditioned_general(n, 1e8, seed);
        std::vector<double> B(static_cast<size_t>(n * nrhs));
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        Refinement refine;
        refine.fallback = false;
        refine.time_budget = 0;
        const Outcome o = solve(A, n, B, n, n, nrhs, low(Precision::Fp32), refine, Tiling{nb});
        check_refined(o, A, n, B, n, n, nrhs);
        CHECK(o.report.path == SolveReport::Path::Gmres);
        CHECK(o.report.gmres_iterations > 0);
        // classical refinement alone stalls (or, on a lucky draw, crawls: 14 steps on one of eight seeds tried)
        Refinement classical = refine;
        classical.gmres_iterations = 0;
        const Outcome c = solve(A, n, B, n, n, nrhs, low(Precision::Fp32), classical, Tiling{nb});
        INFO("classical: path=" << to_string(c.report.path) << " iterations=" << c.report.iterations
                                << " backward error=" << c.report.backward_error);
        CHECK((c.report.path == SolveReport::Path::Failed || c.report.iterations > 5));
        if (c.report.path == SolveReport::Path::Failed) CHECK(c.X == B);  // left as it was
    }
}

TEST_CASE("mixed-precision gesv falls back to the double LU when the float one cannot serve", "[gesv_mixed][cpu]") {
    const int64_t n = 70, nb = 16, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // Block diagonal: [[1, 1], [1, 1 + 1e-10]] then a random block. The 2 x 2 block is singular once rounded to float
    // (1 + 1e-10 is 1 there; equilibrated, [[1, 1], [1/2, 1/2]]), not in double (condition about 4e10).
    std::vector<double> A(static_cast<size_t>(n * n), 0.0);
    const std::vector<double> G = test::lu::random_general<double>(n - 2, n - 2, seed);
    for (int64_t j = 0; j < n - 2; ++j)
        for (int64_t i = 0; i < n - 2; ++i) A[(i + 2) + (j + 2) * n] = G[i + j * (n - 2)] + (i == j ? 4.0 : 0.0);
    A[0] = A[n] = A[1] = 1.0;
    A[1 + n] = 1.0 + 1e-10;
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    for (Precision p : {Precision::Fp32, Precision::Tf32}) {
        INFO("factor=" << to_string(p));
        const Outcome o = solve(A, n, B, n, n, nrhs, low(p), Refinement{}, Tiling{nb});
        INFO("path=" << to_string(o.report.path) << " reason=" << o.report.reason);
        REQUIRE(o.info == 0);
        CHECK(o.report.path == SolveReport::Path::Fallback);
        CHECK(o.report.low_info == 2);
        CHECK_THAT(o.report.reason, Catch::Contains("LU broke down at column 2") && Catch::Contains("zero pivot"));
        CHECK(o.report.backward_error == 0);  // not measured
        // A holds the double LU, ipiv its interchanges; the answer is the double gesv's
        CHECK(test::lu::lu_residual<double>(n, A.data(), n, o.LU.data(), n, o.ipiv) < kResidualLimit);
        std::vector<double> Ad = A, Xd = B;
        std::vector<int> ip(static_cast<size_t>(n));
        const int in = static_cast<int>(n);
        REQUIRE(starfact::detail::cpu::gesv<double>(in, static_cast<int>(nrhs), Ad.data(), in, ip.data(), Xd.data(),
                                                    in) == 0);
        const double ours = backward_error(n, nrhs, A.data(), n, o.X.data(), B.data(), n);
        const double lapack = backward_error(n, nrhs, A.data(), n, Xd.data(), B.data(), n);
        INFO("backward error " << ours << ", LAPACK's dgesv " << lapack);
        CHECK(ours <= 10 * std::max(lapack, 1e-17));
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), o.X.data(), B.data()) < kResidualLimit);
    }
    {  // without the fall-back: reported as failed, B and A left as they were
        Refinement refine;
        refine.fallback = false;
        const Outcome o = solve(A, n, B, n, n, nrhs, low(Precision::Fp32), refine, Tiling{nb});
        CHECK(o.report.path == SolveReport::Path::Failed);
        CHECK(o.X == B);
        CHECK(o.LU == A);
    }
}

TEST_CASE("mixed-precision gesv: NaN and Inf in A go to the fall-back, in B are refused", "[gesv_mixed][cpu]") {
    const int64_t n = 40, nrhs = 2, nb = 16;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A0 = test::lu::random_general<double>(n, n, seed);
    std::vector<double> B0(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B0.data(), n, seed + 1);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), [](double a, double b) { return a == b || (a != a && b != b); });
    };
    for (Precision p : {Precision::Fp32, Precision::Fp16}) {
        INFO("factor=" << to_string(p));
        for (double bad : {nan, inf, -inf}) {
            {  // in B: refused by name, B and A left as they were (array and tile forms)
                std::vector<double> B = B0;
                B[static_cast<size_t>(n + 7)] = bad;
                Outcome o;
                CHECK_THROWS_WITH(o = solve(A0, n, B, n, n, nrhs, low(p), Refinement{}, Tiling{nb}),
                                  Catch::Contains("'B'") && Catch::Contains("column 2"));
                std::vector<double> A = A0, X = B;
                std::vector<int64_t> ipiv(static_cast<size_t>(n));
                SolveReport report;
                CHECK_THROWS_AS(gesv(runtime(), n, nrhs, A.data(), n, ipiv.data(), X.data(), n, low(p), report,
                                     Refinement{}, Tiling{nb}),
                                InvalidArgument);
                CHECK(same(X, B));
                CHECK(A == A0);
                TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
                a.import(A0.data(), n);
                b.import(B.data(), n);
                Pivots piv(a);
                CHECK_THROWS_AS(gesv(a, piv, b, low(p), report), InvalidArgument);
                std::vector<double> Xt(B.size());
                b.export_to(Xt.data(), n);
                CHECK(same(Xt, B));
            }
            {  // in A: never a refined or GMRES answer; the reason says why
                std::vector<double> A = A0;
                A[17 + 5 * n] = bad;
                const Outcome o = solve(A, n, B0, n, n, nrhs, low(p), Refinement{}, Tiling{nb});
                INFO("path=" << to_string(o.report.path) << " reason=" << o.report.reason);
                CHECK(o.report.path != SolveReport::Path::Refined);
                CHECK(o.report.path != SolveReport::Path::Gmres);
                CHECK_THAT(o.report.reason, Catch::Contains("NaN or Inf"));
                Refinement refine;
                refine.fallback = false;
                const Outcome f = solve(A, n, B0, n, n, nrhs, low(p), refine, Tiling{nb});
                CHECK(f.report.path == SolveReport::Path::Failed);
                CHECK(same(f.X, B0));
            }
        }
    }
}

TEST_CASE("mixed-precision gesv: badly scaled rows and columns are equilibrated", "[gesv_mixed][cpu]") {
    // Rows and columns scaled from 1e-30 to 1e30: float's range (1e-38 .. 3e38) would lose or overflow A's entries
    // without the power-of-two scales; FP16's (6e-8 .. 65504) would without any scale.
    const int64_t n = 60, nb = 16, nrhs = 1;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<double> A = test::lu::random_general<double>(n, n, seed);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            A[i + j * n] *= std::pow(10.0, 30.0 * (2.0 * i / (n - 1) - 1.0)) * std::pow(10.0, 20.0 * (1.0 - 2.0 * j / (n - 1)));
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    for (double& b : B) b *= 1e100;
    for (Precision p : {Precision::Fp32, Precision::Fp16}) {
        INFO("factor=" << to_string(p));
        Refinement refine;
        refine.time_budget = 0;
        const Outcome o = solve(A, n, B, n, n, nrhs, low(p), refine, Tiling{nb});
        INFO("path=" << to_string(o.report.path) << " reason=" << o.report.reason
                     << " backward error=" << o.report.backward_error);
        REQUIRE(o.info == 0);
        CHECK((o.report.path == SolveReport::Path::Refined || o.report.path == SolveReport::Path::Gmres));
        CHECK(backward_error(n, nrhs, A.data(), n, o.X.data(), B.data(), n) <= 2 * o.report.tolerance);
    }
}

TEST_CASE("mixed-precision gesv: arguments", "[gesv_mixed][cpu]") {
    const int64_t n = 20, nb = 8;
    std::vector<float> Af(static_cast<size_t>(n * n)), Bf(static_cast<size_t>(n));
    random_matrix<float>(n, n, Af.data(), n, 3);
    for (int64_t i = 0; i < n; ++i) Af[i + i * n] += 4;
    random_matrix<float>(n, 1, Bf.data(), n, 4);
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    SolveReport report;
    {  // a float matrix has no lower factor than its own but the tensor-core arithmetics: fp64 is refused
        std::vector<float> A = Af, X = Bf;
        CHECK_THROWS_WITH(gesv(runtime(), n, 1, A.data(), n, ipiv.data(), X.data(), n, low(Precision::Fp64), report),
                          Catch::Contains("'factor'"));
    }
    {  // a float matrix in tf32: the float LU with tensor-core updates (float arithmetic on CPU workers), not refined
        std::vector<float> A = Af, X = Bf;
        REQUIRE(gesv(runtime(), n, 1, A.data(), n, ipiv.data(), X.data(), n, low(Precision::Tf32), report,
                     Refinement{}, Tiling{nb}) == 0);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK(test::lu::general_solve_residual<float>(n, 1, Af.data(), X.data(), Bf.data()) < kResidualLimit);
    }
    {  // pivots shaped for another matrix, a bad refinement setting
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 1, nb);
        std::vector<double> A(static_cast<size_t>(n * n), 1.0);
        for (int64_t i = 0; i < n; ++i) A[i + i * n] = n;
        a.import(A.data(), n);
        b.import(A.data(), n);
        Pivots other(runtime(), n + 1, nb);
        CHECK_THROWS_WITH(gesv(a, other, b, low(Precision::Fp32), report), Catch::Contains("'piv'"));
        Pivots piv(a);
        Refinement refine;
        refine.stall_ratio = 2;
        CHECK_THROWS_WITH(gesv(a, piv, b, low(Precision::Fp32), report, refine), Catch::Contains("'refine.stall_ratio'"));
    }
    {  // the submit form has no refined solve: refused rather than run in double
        TileMatrix<double> a(runtime(), n, nb), b(runtime(), n, 1, nb);
        Pivots piv(a);
        Sequence seq(runtime());
        CHECK_THROWS_WITH(async::gesv(a, piv, b, seq, low(Precision::Tf32)), Catch::Contains("'factor'"));
    }
    {  // n = 0 and nrhs = 0
        std::vector<double> X(1);
        CHECK(gesv(runtime(), 0, 1, static_cast<double*>(nullptr), 1, static_cast<int64_t*>(nullptr), X.data(), 1,
                   low(Precision::Fp32), report) == 0);
        std::vector<double> A(4, 1.0);
        A[0] = 2;
        CHECK(gesv(runtime(), 2, 0, A.data(), 2, ipiv.data(), X.data(), 2, low(Precision::Fp32), report) == 0);
    }
}
