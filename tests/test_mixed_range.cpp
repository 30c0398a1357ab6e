// The mixed-precision solve on data at the edges of the low precision's reach (mixed.hpp): matrices and right-hand
// sides scaled far beyond float's range, NaN and Inf in A or B, matrices whose float factorization breaks down and
// which the diagonal shift keeps on the low-precision path. No case may come back as a success with a wrong answer:
// each returned solution is checked against a backward error computed here, in long double.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tests/mixed_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

/// max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf), A symmetric from its lower triangle, in long
/// double (its exponent range holds every product of two doubles); infinity for a non-finite x.
double backward_error(int64_t n, int64_t nrhs, const std::vector<double>& A, const std::vector<double>& X,
                      const std::vector<double>& B) {
    auto a = [&](int64_t i, int64_t j) -> long double { return i >= j ? A[i + j * n] : A[j + i * n]; };
    long double anorm = 0;
    for (int64_t i = 0; i < n; ++i) {
        long double row = 0;
        for (int64_t j = 0; j < n; ++j) row += std::fabs(a(i, j));
        anorm = std::max(anorm, row);
    }
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        long double rmax = 0, xmax = 0, bmax = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double x = X[i + c * n];
            if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
            long double r = B[i + c * n];
            for (int64_t j = 0; j < n; ++j) r -= a(i, j) * static_cast<long double>(X[j + c * n]);
            rmax = std::max(rmax, std::fabs(r));
            xmax = std::max(xmax, std::fabs(static_cast<long double>(x)));
            bmax = std::max(bmax, std::fabs(static_cast<long double>(B[i + c * n])));
        }
        const long double den = anorm * xmax + bmax;
        worst = std::max(worst, static_cast<double>(den > 0 ? rmax / den : (rmax > 0 ? 1.0L : 0.0L)));
    }
    return worst;
}

struct Outcome {
    int info;
    SolveReport report;
    std::vector<double> X;
};

Outcome solve(const std::vector<double>& A, const std::vector<double>& B, int64_t n, int64_t nrhs, Precision p,
              const Refinement& refine = {}) {
    std::vector<double> F = A;
    Outcome o{0, {}, B};
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = p;
    o.info = posv(runtime(), n, nrhs, F.data(), n, o.X.data(), n, opts, o.report, refine, Tiling{16});
    return o;
}

/// A solve that reports success returns an answer of double accuracy.
void check_never_wrong(const Outcome& o, int64_t n, int64_t nrhs, const std::vector<double>& A,
                       const std::vector<double>& B) {
    INFO("info=" << o.info << " path=" << to_string(o.report.path) << " reason=" << o.report.reason
                 << " reported backward error=" << o.report.backward_error);
    if (o.info != 0 || o.report.path == SolveReport::Path::Failed) return;
    const double berr = backward_error(n, nrhs, A, o.X, B);
    INFO("backward error (long double) " << berr);
    CHECK(berr <= 8 * std::sqrt(static_cast<double>(n)) * 0x1p-53 * n);
    if (o.report.path == SolveReport::Path::Refined || o.report.path == SolveReport::Path::Gmres)
        CHECK(o.report.backward_error <= o.report.tolerance);
}

}  // namespace

TEST_CASE("mixed-precision posv: matrices and right-hand sides far outside float's range", "[mixed][range][cpu]") {
    const int64_t n = 45, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A0 = spd_matrix<double>(n, n, seed);
    std::vector<double> B0(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B0.data(), n, seed + 1);
    // (scale of A, scale of B): float overflows above 3.4e38 and flushes below 1.2e-38 (FP16: 65504, 6e-8)
    const std::pair<double, double> scales[] = {{1e-200, 1},   {1e200, 1},      {1, 1e100},  {1, 1e-100},
                                                {1e150, 1e-150}, {1e-150, 1e150}, {1e300, 1e300}, {1e-300, 1e-290}};
    for (Precision p : {Precision::Fp32, Precision::Fp16})
        for (const auto& [sa, sb] : scales) {
            INFO("factor=" << to_string(p) << " A scaled by " << sa << ", B by " << sb);
            std::vector<double> A = A0, B = B0;
            for (double& v : A) v *= sa;
            for (double& v : B) v *= sb;
            const Outcome o = solve(A, B, n, nrhs, p);
            REQUIRE(o.info == 0);
            CHECK((o.report.path == SolveReport::Path::Refined || o.report.path == SolveReport::Path::Gmres));
            check_never_wrong(o, n, nrhs, A, B);
        }
    {  // a diagonal scaling from 1e-120 to 1e120: D A D, which the solve's own scaling undoes
        std::vector<double> A = A0, d(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) d[static_cast<size_t>(i)] = std::pow(10.0, -120.0 + 240.0 * i / (n - 1));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) A[i + j * n] *= d[static_cast<size_t>(i)] * d[static_cast<size_t>(j)];
        const Outcome o = solve(A, B0, n, nrhs, Precision::Tf32);
        REQUIRE(o.info == 0);
        check_never_wrong(o, n, nrhs, A, B0);
    }
}

TEST_CASE("mixed-precision posv: NaN and Inf in A or B never come back as a success", "[mixed][range][cpu]") {
    const int64_t n = 40, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A0 = spd_matrix<double>(n, n, seed);
    std::vector<double> B0(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B0.data(), n, seed + 1);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (Precision p : {Precision::Fp32, Precision::Bf16}) {
        INFO("factor=" << to_string(p));
        for (double bad : {nan, inf, -inf}) {  // in B: refused by name, B left as it was
            std::vector<double> A = A0, B = B0;
            B[static_cast<size_t>(n + 7)] = bad;
            std::vector<double> X = B;
            Options opts;
            opts.mapping = Mapping::CpuOnly;
            opts.factor = p;
            SolveReport report;
            CHECK_THROWS_WITH(posv(runtime(), n, nrhs, A.data(), n, X.data(), n, opts, report, Refinement{}, Tiling{16}),
                              Catch::Contains("'B'") && Catch::Contains("column 2"));
            CHECK(std::equal(X.begin(), X.end(), B.begin(), [](double x, double y) { return x == y || (x != x && y != y); }));
            CHECK(A == A0);
            // the submit form: its wait() throws the same, and B is left as it was
            TileMatrix<double> a(runtime(), n, 16), b(runtime(), n, nrhs, 16);
            a.import(A0.data(), n);
            b.import(B.data(), n);
            Sequence seq(runtime());
            async::posv(a, b, seq, opts, report);
            CHECK_THROWS_AS(seq.wait(), InvalidArgument);
            std::vector<double> Xs(B.size());
            b.export_to(Xs.data(), n);
            CHECK(std::equal(Xs.begin(), Xs.end(), B.begin(), [](double x, double y) { return x == y || (x != x && y != y); }));
        }
        // in A: below the diagonal, on it; the double factorization's info says where
        for (const auto& [i, j, v] : {std::tuple<int64_t, int64_t, double>{20, 3, nan}, {33, 33, nan}, {25, 10, inf},
                                      {17, 17, inf}, {8, 8, -1.0}}) {
            INFO("A(" << i << "," << j << ") = " << v);
            std::vector<double> A = A0;
            A[i + j * n] = v;
            const Outcome o = solve(A, B0, n, nrhs, p);
            CHECK(o.report.path != SolveReport::Path::Refined);
            CHECK(o.report.path != SolveReport::Path::Gmres);
            CHECK(!o.report.reason.empty());
            CHECK((o.info > 0 || o.report.path == SolveReport::Path::Failed));
        }
    }
}

TEST_CASE("mixed-precision posv: a diagonal shift keeps an ill-conditioned matrix on the low-precision path",
          "[mixed][shift][cpu]") {
    const int64_t n = 96;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // Condition 1e10, the spectrum geometric: rounded to float, D A D is indefinite and its factorization breaks down.
    const std::vector<double> A = test::conditioned_spd(n, 1e10, false, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Refinement refine;
    refine.fallback = false;
    refine.time_budget = 0;  // however long the shifted factorizations and GMRES take here
    refine.gmres_restart = 120;  // the whole Krylov space: GMRES is exact on this order
    refine.gmres_iterations = 1000;
    const Outcome o = solve(A, B, n, 1, Precision::Fp32, refine);
    INFO("path=" << to_string(o.report.path) << " factorizations=" << o.report.factorizations << " shift="
                 << o.report.shift << " iterations=" << o.report.iterations << " gmres=" << o.report.gmres_iterations
                 << " backward error=" << o.report.backward_error << " reason=" << o.report.reason);
    REQUIRE(o.info == 0);
    CHECK(o.report.factorizations >= 2);  // the unshifted factorization broke down
    CHECK(o.report.shift > 0);
    CHECK(o.report.low_info == 0);
    CHECK(o.report.path == SolveReport::Path::Gmres);
    CHECK(o.report.backward_error <= o.report.tolerance);
    check_never_wrong(o, n, 1, A, B);
    // Asked for from the start: one factorization, the given multiple of float's unit roundoff
    refine.shift = 64;
    const Outcome s = solve(A, B, n, 1, Precision::Fp32, refine);
    INFO("given shift: path=" << to_string(s.report.path) << " gmres=" << s.report.gmres_iterations
                              << " backward error=" << s.report.backward_error);
    CHECK(s.report.factorizations == 1);
    CHECK(s.report.shift == 64 * 0x1p-24);
    CHECK(s.report.path == SolveReport::Path::Gmres);
    check_never_wrong(s, n, 1, A, B);
    // No retries: the breakdown goes to the (here disabled) fallback, reported
    refine = Refinement{};
    refine.shift_retries = 0;
    refine.fallback = false;
    const Outcome f = solve(A, B, n, 1, Precision::Fp32, refine);
    CHECK(f.report.path == SolveReport::Path::Failed);
    CHECK(f.report.low_info > 0);
    CHECK_THAT(f.report.reason, Catch::Contains("broke down"));
    CHECK(f.X == B);
}

TEST_CASE("mixed-precision posv: the time budget sends an ill-conditioned solve to the fallback, reported",
          "[mixed][shift][cpu]") {
    const int64_t n = 96;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = test::conditioned_spd(n, 1e10, false, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Refinement refine;
    refine.time_budget = 1e-9;  // no time after the first factorization: no shifted one, no GMRES
    refine.time_floor = 0;
    const Outcome o = solve(A, B, n, 1, Precision::Fp32, refine);
    INFO("path=" << to_string(o.report.path) << " reason=" << o.report.reason);
    REQUIRE(o.info == 0);
    CHECK(o.report.path == SolveReport::Path::Fallback);
    CHECK(o.report.factorizations == 1);
    CHECK(!o.report.reason.empty());
    check_never_wrong(o, n, 1, A, B);
    refine.time_budget = -1;
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Fp32;
    std::vector<double> F = A, X = B;
    SolveReport report;
    CHECK_THROWS_WITH(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, refine, Tiling{16}),
                      Catch::Contains("refine.time_budget"));
}
