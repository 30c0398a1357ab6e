// CPU Cholesky QR (QrTree::Kind::Cholqr): geqrf, orgqr, ormqr from both sides and with both transposes, gels with one
// and several right-hand sides, both precisions, m % nb != 0, n = 1, m = n; residuals and orthogonality < 60
// (tests/qr_support.hpp), also on ill-conditioned matrices (cond = 1e10 in double); the breakdown on a rank-deficient
// matrix (gels' info, geqrf's exception, the Sequence's info); the shapes it refuses; the submit forms; the plan.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include <cblas.h>
#include <lapacke.h>

#include "algorithms/plan_tables.hpp"  // the QR rules behind the plan
#include "algorithms/qr_dag.hpp"      // qr_gpu_layout
#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;
using starfact::detail::qr_domain_rows;
using starfact::detail::qr_inner_block;
using starfact::detail::qr_uses_cholqr;
using starfact::detail::qr_uses_panel;
using starfact::detail::qr_tile_size;

namespace {

/// `ib` < n: the blocked form, panels of ib columns.
template <typename T>
void expect_cholqr(int64_t m, int64_t n, int64_t nb, Mapping mapping, int64_t ib = 0) {
    const uint64_t seed = fresh_seed();
    INFO("m=" << m << " n=" << n << " nb=" << nb << " ib=" << ib << " mapping=" << to_string(mapping)
              << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const QrCheck c = check_qr<T>(runtime(), m, n, nb, QrTree::parse("cholqr"), ib, on(mapping), on(mapping), seed);
    INFO("orthogonality=" << c.orthogonality << " factorization=" << c.factorization << " apply=" << c.apply
                          << " reduce=" << c.reduce);
    CHECK(c.failure().empty());
    const RightCheck r =
        check_ormqr_right<T>(runtime(), m, n, 3, nb, QrTree::parse("cholqr"), ib, on(mapping), on(mapping), seed + 5);
    INFO("right: orthogonality=" << r.orthogonality << " factorization=" << r.factorization << " C*Q=" << r.notrans
                                 << " C*Q^T=" << r.trans);
    CHECK(r.failure().empty());
}

/// The CPU Cholesky QR of A (m x n, tiles of nb rows, blocking form; ib < n: in panels of ib columns): orthogonality
/// and residual < 60, and the passes it ran (0: any).
void expect_cholqr_passes(const std::vector<double>& A, int64_t m, int64_t n, int64_t nb, int passes, int64_t ib = 0) {
    std::vector<double> F = A, Q(static_cast<size_t>(m * n));
    QRFactors<double> f(runtime(), m, n, nb, QrTree::parse("cholqr"), ib);
    TileMatrix<double> a(runtime(), m, n, nb);
    a.import(F.data(), m);
    RunStats stats;
    geqrf(a, f, on(Mapping::CpuOnly), stats);
    a.export_to(F.data(), m);
    if (passes > 0) CHECK(stats.qr_passes == passes);
    orgqr(runtime(), m, n, F.data(), m, f, Q.data(), m, on(Mapping::CpuOnly));
    const double orth = orthogonality_residual(m, n, Q.data(), m),
                 res = qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m);
    INFO("orthogonality=" << orth << " residual=" << res);
    CHECK(orth < kResidualLimit);
    CHECK(res < kResidualLimit);
}

}  // namespace

TEMPLATE_TEST_CASE("cholqr: geqrf, orgqr, ormqr (both sides, both transposes) residuals < 60 on CPU workers",
                   "[qr][cholqr][cpu]", float, double) {
    struct Shape {
        int64_t m, n, nb;
    };
    // n = 1, m = n (one tile, several), m % nb != 0, n = nb, one tile row, many tile rows.
    const Shape shapes[] = {{1, 1, 4},     {7, 1, 4},     {16, 16, 16},  {17, 17, 20},  {40, 13, 16}, {100, 37, 40},
                            {130, 20, 32}, {45, 3, 5},    {64, 64, 64},  {301, 24, 24}, {1000, 50, 96}};
    for (const Shape& s : shapes) expect_cholqr<TestType>(s.m, s.n, s.nb, Mapping::CpuOnly);
    expect_cholqr<TestType>(500, 40, 64, Mapping::Hybrid);
}

TEMPLATE_TEST_CASE("cholqr in panels (ib < n): geqrf, orgqr, ormqr residuals < 60, T in ib-column blocks",
                   "[qr][cholqr][cpu]", float, double) {
    struct Shape {
        int64_t m, n, nb, ib;
    };
    // panels of equal width and a narrower last one, panels of one column, m % nb != 0, one tile, several, m = n,
    // n < m < 2 n in two tiles whose last is shorter than n (and one row)
    const Shape shapes[] = {{40, 13, 16, 4},  {100, 37, 40, 10}, {301, 24, 24, 8}, {1000, 50, 96, 16},
                            {17, 17, 20, 5},  {45, 3, 5, 1},     {7, 2, 4, 1},     {130, 20, 32, 19},
                            {64, 64, 64, 32}, {500, 33, 33, 11}, {90, 60, 60, 16}, {61, 60, 60, 25}};
    for (const Shape& s : shapes) expect_cholqr<TestType>(s.m, s.n, s.nb, Mapping::CpuOnly, s.ib);
    expect_cholqr<TestType>(500, 40, 64, Mapping::Hybrid, 16);
    QRFactors<TestType> f(runtime(), 100, 37, 40, QrTree::parse("cholqr"), 10);
    TileMatrix<TestType> a(runtime(), 100, 37, 40);
    a.import(random_rect<TestType>(100, 37, 100, fresh_seed()).data(), 100);
    geqrf(a, f, on(Mapping::CpuOnly));
    CHECK(f.cholqr());
    CHECK(f.ib() == 10);
    CHECK(starfact::detail::qr_gpu_layout(f));  // (ormqr and orgqr keep GPU mappings)
}

TEST_CASE("cholqr in panels: conditioned matrices keep orthogonality and residual < 60", "[qr][cholqr][cpu]") {
    for (double cond : {1e3, 1e8, 1e12})
        for (int64_t ib : {7, 25}) {
            const uint64_t seed = fresh_seed();
            INFO("cond=" << cond << " ib=" << ib << " seed=" << seed);
            expect_cholqr_passes(conditioned(600, 50, cond, seed), 600, 50, 64, 0, ib);
        }
}

TEST_CASE("cholqr: a float column factored on its double copy (GPUs' path) keeps residuals < 60", "[qr][cholqr][cpu]") {
    // STARFACT_QR_WIDEN=force takes the GPUs' float path on CPU workers: the column and T widened, two passes in
    // double, narrowed back.
    setenv("STARFACT_QR_WIDEN", "force", 1);
    struct Shape {
        int64_t m, n, nb;
    };
    const Shape shapes[] = {{1, 1, 4}, {7, 1, 4}, {17, 17, 20}, {130, 20, 32}, {301, 24, 24}, {1000, 50, 96}};
    for (const Shape& s : shapes) expect_cholqr<float>(s.m, s.n, s.nb, Mapping::CpuOnly);
    // cond 1e5: the Gram matrix in float would hold nothing of the smallest singular values
    const int64_t m = 600, n = 40;
    TileMatrix<float> a(runtime(), m, n, 128);
    const std::vector<double> A = conditioned(m, n, 1e5, fresh_seed());
    std::vector<float> Af(A.begin(), A.end());
    a.import(Af.data(), m);
    QRFactors<float> f(a, QrTree::parse("cholqr"));
    RunStats stats;
    geqrf(a, f, on(Mapping::CpuOnly), stats);
    unsetenv("STARFACT_QR_WIDEN");
    TileMatrix<float> q(runtime(), m, n, 128);
    orgqr(a, f, q, on(Mapping::CpuOnly));
    std::vector<float> F(Af.size()), Q(Af.size());
    a.export_to(F.data(), m);
    q.export_to(Q.data(), m);
    const double orth = orthogonality_residual(m, n, Q.data(), m), res = qr_residual(m, n, Af.data(), m, Q.data(), m,
                                                                                     F.data(), m);
    INFO("orthogonality=" << orth << " residual=" << res);
    CHECK(orth < kResidualLimit);
    CHECK(res < kResidualLimit);
}

TEST_CASE("cholqr: conditioned matrices (cond 10 to 1e12) keep orthogonality and residual < 60, in 2 or 3 passes",
          "[qr][cholqr][cpu]") {
    // Two passes (CholeskyQR2 after the shifted first) when the second pass's input is orthonormal (well-conditioned
    // A), three otherwise.
    for (double cond : {1e1, 1e3, 1e6, 1e10, 1e12}) {
        for (const auto& [m, n, nb] : {std::tuple<int64_t, int64_t, int64_t>{600, 40, 64}, {2000, 100, 256}}) {
            const uint64_t seed = fresh_seed();
            INFO("cond=" << cond << " m=" << m << " n=" << n << " nb=" << nb << " seed=" << seed);
            expect_cholqr_passes(conditioned(m, n, cond, seed), m, n, nb, cond <= 1e3 ? 2 : 3);
        }
    }
}

TEST_CASE("cholqr: a first pass in TF32 (STARFACT_QR_FIRST_PASS=tf32) keeps orthogonality and residual < 60 to "
          "cond 1e12", "[qr][cholqr][cpu]") {
    // The CPU codelets round A to TF32 and sum in float, as the GPU's tensor cores do. Two passes for well-conditioned
    // A; beyond the TF32 first pass's range (cond about 1e10) the blocking form multiplies the first solve back and
    // starts over in double, so that the range is the double first pass's; A with entries beyond 2^50 (here 2^60)
    // has its first Gram matrix in double; a zero column is still reported.
    setenv("STARFACT_QR_FIRST_PASS", "tf32", 1);
    struct Unset {
        ~Unset() { unsetenv("STARFACT_QR_FIRST_PASS"); }
    } unset;
    for (double scale : {1.0, 0x1p60})
        for (double cond : {1.0, 1e2, 1e6, 1e9, 1e12}) {
            for (const auto& [m, n, nb] : {std::tuple<int64_t, int64_t, int64_t>{600, 40, 64}, {2000, 100, 256}}) {
                const uint64_t seed = fresh_seed();
                INFO("scale=" << scale << " cond=" << cond << " m=" << m << " n=" << n << " seed=" << seed);
                std::vector<double> A = conditioned(m, n, cond, seed);
                for (double& v : A) v *= scale;
                expect_cholqr_passes(A, m, n, nb, cond <= 1e2 ? 2 : 0);
            }
        }
    const int64_t m = 300, n = 20;
    std::vector<double> A = conditioned(m, n, 10, fresh_seed());
    for (int64_t i = 0; i < m; ++i) A[static_cast<size_t>(i + 7 * m)] = 0;
    TileMatrix<double> a(runtime(), m, n, 64);
    a.import(A.data(), m);
    QRFactors<double> f(a, QrTree::parse("cholqr"));
    std::string argument;
    try {
        geqrf(a, f, on(Mapping::CpuOnly));
    } catch (const InvalidArgument& e) {
        argument = e.argument();
    }
    CHECK(argument == "A");
}

TEST_CASE("cholqr: the third pass runs only when the second pass's input is not orthonormal in the 2-norm",
          "[qr][cholqr][cpu]") {
    // two_level matrices: after the shifted first pass, ||Q1^T Q1 - I||_2 is `distance` while its Frobenius norm and
    // its 1-norm are several times more. 0.05: the second pass's output is orthonormal, two passes (the power
    // method's estimate decides); 0.3: three.
    for (const double distance : {0.05, 0.3}) {
        const int64_t m = 2000, n = 200, nb = 256;
        const uint64_t seed = fresh_seed();
        INFO("distance=" << distance << " seed=" << seed);
        expect_cholqr_passes(two_level(m, n, two_level_small(m, n, distance), seed), m, n, nb, distance < 0.1 ? 2 : 3);
    }
}

TEMPLATE_TEST_CASE("cholqr: gels with one and several right-hand sides, residual < 60", "[qr][cholqr][cpu]", float,
                   double) {
    using T = TestType;
    struct Case {
        int64_t m, n, nrhs, nb;
    };
    for (Case c : {Case{1, 1, 1, 4}, Case{30, 30, 2, 32}, Case{57, 20, 1, 24}, Case{200, 31, 16, 32},
                   Case{90, 1, 3, 16}, Case{1000, 60, 5, 64}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << c.m << " n=" << c.n << " nrhs=" << c.nrhs << " nb=" << c.nb << " seed=" << seed);
        const int64_t lda = c.m + 1, ldb = c.m + 3;
        const std::vector<T> A = random_rect<T>(c.m, c.n, lda, seed), B = random_rect<T>(c.m, c.nrhs, ldb, seed + 7);
        TileMatrix<T> a(runtime(), c.m, c.n, c.nb), b(runtime(), c.m, c.nrhs, c.nb);
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        QRFactors<T> f(a, QrTree::parse("cholqr"));
        REQUIRE(gels(a, f, b, on(Mapping::CpuOnly)) == 0);
        CHECK(f.cholqr());
        std::vector<T> X(static_cast<size_t>(ldb * c.nrhs));
        b.export_to(X.data(), ldb);
        const double res = normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
        // The submit form, chained with an orgqr.
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        TileMatrix<T> q(runtime(), c.m, c.n, c.nb);
        Sequence seq(runtime());
        const int op = async::gels(a, f, b, seq, on(Mapping::Hybrid));
        async::orgqr(a, f, q, seq, on(Mapping::Hybrid));
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
        b.export_to(X.data(), ldb);
        CHECK(normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb) <
              kResidualLimit);
        std::vector<T> Q(static_cast<size_t>(c.m * c.n));
        q.export_to(Q.data(), c.m);
        CHECK(orthogonality_residual(c.m, c.n, Q.data(), c.m) < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("cholqr: a rank-deficient matrix is reported, not factored silently", "[qr][cholqr][cpu]", float,
                   double) {
    using T = TestType;
    const int64_t m = 120, n = 20, nrhs = 2, nb = 32;
    for (int64_t column : {0, 7, 19}) {
        const uint64_t seed = fresh_seed();
        INFO("zero column " << column << " seed=" << seed);
        std::vector<T> A = random_rect<T>(m, n, m, seed), B = random_rect<T>(m, nrhs, m, seed + 1);
        for (int64_t i = 0; i < m; ++i) A[i + column * m] = T(0);
        TileMatrix<T> a(runtime(), m, n, nb), b(runtime(), m, nrhs, nb);
        a.import(A.data(), m);
        b.import(B.data(), m);
        QRFactors<T> f(a, QrTree::parse("cholqr"));
        CHECK(gels(a, f, b, on(Mapping::CpuOnly)) > 0);
        a.import(A.data(), m);
        CHECK_THROWS_AS(geqrf(a, f, on(Mapping::CpuOnly)), InvalidArgument);
        a.import(A.data(), m);
        try {
            geqrf(a, f, on(Mapping::CpuOnly));
        } catch (const InvalidArgument& e) {
            CHECK(e.argument() == "A");
        }
        a.import(A.data(), m);
        Sequence seq(runtime());
        async::geqrf(a, f, seq, on(Mapping::CpuOnly));
        CHECK(seq.wait() > 0);
    }
}

TEST_CASE("cholqr in panels: a zero column is reported at its column of A, whichever panel holds it",
          "[qr][cholqr][cpu]") {
    const int64_t m = 120, n = 20, nb = 32;
    for (int64_t column : {0, 7, 8, 19}) {
        const uint64_t seed = fresh_seed();
        INFO("zero column " << column << " seed=" << seed);
        std::vector<double> A = random_rect<double>(m, n, m, seed);
        for (int64_t i = 0; i < m; ++i) A[i + column * m] = 0;
        TileMatrix<double> a(runtime(), m, n, nb);
        a.import(A.data(), m);
        QRFactors<double> f(a, QrTree::parse("cholqr"), 8);
        Sequence seq(runtime());
        async::geqrf(a, f, seq, on(Mapping::CpuOnly));
        CHECK(seq.wait() == column + 1);
        CHECK(f.breakdown_column() == column + 1);
    }
}

TEST_CASE("cholqr: refuses shapes of more than one tile column or m < n, naming tree", "[qr][cholqr][cpu]") {
    auto argument_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "";
    };
    TileMatrix<double> wide_tiles(runtime(), 100, 40, 16), wide(runtime(), 10, 20, 32);
    QRFactors<double> f1(wide_tiles, QrTree::parse("cholqr")), f2(wide, QrTree::parse("cholqr"));
    CHECK(argument_of([&] { geqrf(wide_tiles, f1); }) == "tree");
    CHECK(argument_of([&] { geqrf(wide, f2); }) == "tree");
    std::vector<double> a(200, 1.0);
    QRFactors<double> f3(runtime(), 10, 20, 32, QrTree::parse("cholqr"));
    CHECK(argument_of([&] { geqrf(runtime(), 10, 20, a.data(), 10, f3, on(Mapping::CpuOnly)); }) == "tree");
}

TEST_CASE("cholqr: the tree's name and when the plan picks it", "[qr][cholqr][cpu]") {
    CHECK(QrTree::parse("cholqr").kind == QrTree::Kind::Cholqr);
    CHECK(QrTree::parse("cholqr").name() == "cholqr");
    CHECK_THROWS_WITH(QrTree::parse("tsqr", "--tree"), Catch::Contains("cholqr"));
    const QrTree aut{}, cholqr = QrTree::parse("cholqr"), binary = QrTree::parse("binary");
    CHECK(qr_uses_cholqr(aut, 1 << 20, 256, 32768, Mapping::GpuOnly, true));
    CHECK(qr_uses_cholqr(aut, 1 << 20, 512, 32768, Mapping::Hybrid, true));
    CHECK_FALSE(qr_uses_cholqr(aut, 1 << 20, 256, 32768, Mapping::CpuOnly, true));  // no CUDA worker
    CHECK_FALSE(qr_uses_cholqr(aut, 1 << 20, 256, 32768, Mapping::GpuOnly, false));
    CHECK_FALSE(qr_uses_cholqr(aut, 40000, 256, 32768, Mapping::GpuOnly, true));  // one tile row or less than two
    // Wider: up to 4096 columns with at least 8 rows per column, in one tile column of at least two tile rows.
    CHECK(qr_uses_cholqr(aut, 1 << 20, 1024, 32768, Mapping::GpuOnly, true));
    CHECK(qr_uses_cholqr(aut, 8 * 4096, 4096, 16384, Mapping::GpuOnly, true));
    CHECK_FALSE(qr_uses_cholqr(aut, 8 * 4096 - 1, 4096, 16383, Mapping::GpuOnly, true));  // fewer than 8 n rows
    // Beyond 4096 columns, up to 16384: from m = 2 n, from 12000 columns m >= n (the blocked form).
    CHECK(qr_uses_cholqr(aut, 8194, 4097, 4097, Mapping::GpuOnly, true));
    CHECK(qr_uses_cholqr(aut, 16384, 8192, 8192, Mapping::Hybrid, true));
    CHECK(qr_uses_cholqr(aut, 1 << 19, 16384, 32768, Mapping::GpuOnly, true));
    CHECK_FALSE(qr_uses_cholqr(aut, 16383, 8192, 8192, Mapping::GpuOnly, true));         // fewer than 2 n rows
    CHECK_FALSE(qr_uses_cholqr(aut, 8192, 8192, 8192, Mapping::GpuOnly, true));          // square
    CHECK_FALSE(qr_uses_cholqr(aut, 23997, 11999, 11999, Mapping::GpuOnly, true));
    CHECK(qr_uses_cholqr(aut, 12000, 12000, 12000, Mapping::GpuOnly, true));
    CHECK(qr_uses_cholqr(aut, 16384, 16384, 16384, Mapping::GpuOnly, true));
    CHECK_FALSE(qr_uses_cholqr(aut, 16383, 16384, 16384, Mapping::GpuOnly, true));       // wide
    CHECK_FALSE(qr_uses_cholqr(aut, 1 << 19, 16385, 32768, Mapping::GpuOnly, true));     // wider than 16384
    CHECK_FALSE(qr_uses_cholqr(aut, 16384, 8192, 4096, Mapping::GpuOnly, true));         // several tile columns
    CHECK_FALSE(qr_uses_cholqr(aut, 16384, 8192, 8192, Mapping::CpuOnly, true));
    CHECK_FALSE(qr_uses_cholqr(binary, 16384, 8192, 8192, Mapping::GpuOnly, true));
    // which a distributed matrix does not take (one panel there): the trees instead
    using starfact::detail::qr_cholqr_panels_only;
    CHECK(qr_cholqr_panels_only(16384, 8192));
    CHECK(qr_cholqr_panels_only(12000, 12000));
    CHECK_FALSE(qr_cholqr_panels_only(16383, 8192));
    CHECK_FALSE(qr_cholqr_panels_only(1 << 20, 4096));
    CHECK_FALSE(qr_cholqr_panels_only(1 << 20, 16385));
    using starfact::detail::qr_distributed_plan;
    Plan p;
    p.tree = cholqr;
    p.nb = 32768;
    p.ib = 256;
    CHECK(qr_distributed_plan(p, 1 << 20, 4096, 32768, 2).tree.kind == QrTree::Kind::Cholqr);  // one panel there
    const Plan wide = qr_distributed_plan(p, 1 << 18, 8192, 32768, 2);
    CHECK(wide.tree.kind == QrTree::Kind::Domains);
    CHECK(wide.tree.domain == 4);  // 8 tile rows over 2 grid rows
    CHECK(wide.ib == 32768);
    p.tree = QrTree::parse("cholqr+fallback");  // (no fall-back across ranks)
    CHECK(qr_distributed_plan(p, 1 << 20, 256, 32768, 3).tree.kind == QrTree::Kind::Domains);
    CHECK(qr_distributed_plan(p, 1 << 20, 256, 32768, 3).tree.domain == 11);
    p.tree = QrTree::parse("panel");
    p.ib = p.nb = 2048;
    CHECK(qr_distributed_plan(p, 32768, 32768, 2048, 2).tree.kind == QrTree::Kind::Panel);
    p.tree = QrTree{};
    p.tree.kind = QrTree::Kind::Binary;
    CHECK(qr_distributed_plan(p, 4096, 100, 192, 4).tree.domain == 6);
    CHECK_FALSE(qr_uses_cholqr(aut, 1 << 20, 1024, 512, Mapping::GpuOnly, true));          // several tile columns
    CHECK_FALSE(qr_uses_cholqr(aut, 1 << 20, 1024, 32768, Mapping::CpuOnly, true));
    // The plan's tiles for them: 32768 rows, or two tile rows of m / 2 below 65536 rows; 2048 beyond the shapes.
    CHECK(qr_tile_size<double>(400000, 1000, Mapping::GpuOnly, Residency::Device, true) == 32768);
    // The panels' width: one panel below 512 columns and on CPUs; 256 from 64 rows per column; below that 1024 from
    // 2048 columns, one panel under.
    using starfact::detail::qr_cholqr_panel;
    CHECK(qr_cholqr_panel(1 << 20, 511, 0, Mapping::GpuOnly, true) == 511);
    CHECK(qr_cholqr_panel(1 << 20, 512, 0, Mapping::GpuOnly, true) == 256);
    CHECK(qr_cholqr_panel(64 * 1000, 1000, 0, Mapping::GpuOnly, true) == 256);
    CHECK(qr_cholqr_panel(64 * 1000 - 1, 1000, 0, Mapping::GpuOnly, true) == 1000);
    CHECK(qr_cholqr_panel(64 * 2048 - 1, 2048, 0, Mapping::Hybrid, true) == 1024);
    CHECK(qr_cholqr_panel(64 * 2048, 2048, 0, Mapping::Hybrid, true) == 256);
    CHECK(qr_cholqr_panel(64 * 2047 - 1, 2047, 0, Mapping::GpuOnly, true) == 2047);
    CHECK(qr_cholqr_panel(1 << 20, 1000, 0, Mapping::CpuOnly, true) == 1000);
    CHECK(qr_cholqr_panel(1 << 20, 1000, 0, Mapping::GpuOnly, false) == 1000);
    CHECK(qr_cholqr_panel(1 << 20, 1000, 100, Mapping::CpuOnly, false) == 100);  // asked for (QRFactors' ib)
    CHECK(qr_cholqr_panel(1 << 20, 100, 300, Mapping::GpuOnly, true) == 100);
    CHECK(qr_cholqr_panel(1 << 20, 4096, 0, Mapping::GpuOnly, true) == 256);
    CHECK(qr_cholqr_panel(65536, 4096, 0, Mapping::GpuOnly, true) == 1024);
    CHECK(qr_cholqr_panel(16384, 8192, 0, Mapping::GpuOnly, true) == 1024);
    CHECK(qr_cholqr_panel(1 << 19, 16384, 0, Mapping::GpuOnly, true) == 1024);
    // float: at most 16 tiles (its Cholesky QR's double copy on GPUs)
    CHECK(qr_tile_size<float>(1048576, 1000, Mapping::GpuOnly, Residency::Host, true) == 65536);
    CHECK(qr_tile_size<float>(786432, 1000, Mapping::GpuOnly, Residency::Host, true) == 65536);
    CHECK(qr_tile_size<float>(1048576, 256, Mapping::GpuOnly, Residency::Host, true) == 65536);
    CHECK(qr_tile_size<float>(4194304, 256, Mapping::GpuOnly, Residency::Host, true) == 262144);
    // 65536 rows from 16 of them on, up to 2048 columns
    CHECK(qr_tile_size<double>(1048576, 1000, Mapping::GpuOnly, Residency::Host, true) == 65536);
    CHECK(qr_tile_size<double>(1048576, 2048, Mapping::GpuOnly, Residency::Device, true) == 65536);
    CHECK(qr_tile_size<double>(1048575, 2048, Mapping::GpuOnly, Residency::Device, true) == 32768);
    CHECK(qr_tile_size<double>(1048576, 2049, Mapping::GpuOnly, Residency::Device, true) == 32768);
    CHECK(qr_tile_size<float>(32768, 2048, Mapping::GpuOnly, Residency::Host, true) == 16384);
    CHECK(qr_tile_size<double>(16384, 4096, Mapping::GpuOnly, Residency::Device, true) == 2048);
    // beyond 4096 columns: at least n rows, m / 2 up to 32768
    CHECK(qr_tile_size<double>(1 << 20, 8192, Mapping::GpuOnly, Residency::Device, true) == 32768);
    CHECK(qr_tile_size<double>(32768, 8192, Mapping::GpuOnly, Residency::Device, true) == 16384);
    CHECK(qr_tile_size<double>(16384, 8192, Mapping::GpuOnly, Residency::Device, true) == 8192);
    CHECK(qr_tile_size<double>(12000, 8192, Mapping::GpuOnly, Residency::Device, true) == 2048);  // the panel tree's
    CHECK(qr_tile_size<double>(12000, 12000, Mapping::GpuOnly, Residency::Device, true) == 12000);
    CHECK(qr_tile_size<float>(40000, 16384, Mapping::GpuOnly, Residency::Host, true) == 20000);
    CHECK(qr_tile_size<double>(8192, 8193, Mapping::GpuOnly, Residency::Device, true) == 2048);  // wide
    // the panel tree's float shapes: tiles of 1024 from n = 8192 and m = 2 n on (three-pass float panels), where
    // the Cholesky QR does not run
    CHECK(qr_tile_size<float>(1 << 19, 16385, Mapping::GpuOnly, Residency::Device, true) == 1024);
    CHECK(qr_tile_size<float>(32770, 16385, Mapping::GpuOnly, Residency::Host, true) == 1024);
    CHECK(qr_tile_size<float>(32769, 16385, Mapping::GpuOnly, Residency::Device, true) == 2048);  // below m = 2 n
    CHECK(qr_tile_size<float>(16385, 16385, Mapping::GpuOnly, Residency::Device, true) == 2048);  // square
    CHECK(qr_tile_size<float>(1 << 20, 16384, Mapping::GpuOnly, Residency::Device, true) == 65536);  // 16 tiles
    CHECK(qr_tile_size<float>(1 << 19, 8192, Mapping::CpuOnly, Residency::Host, false) == 192);
    CHECK(qr_uses_panel(QrTree{}, 1 << 19, 8192, 1024, Mapping::GpuOnly, true));
    CHECK(qr_tile_size<double>(1 << 20, 256, Mapping::GpuOnly, Residency::Device, true) == 65536);
    CHECK(qr_tile_size<double>(400000, 1000, Mapping::CpuOnly, Residency::Host, false) == 192);
    CHECK(qr_uses_cholqr(cholqr, 100, 10, 16, Mapping::CpuOnly, false));
    CHECK_FALSE(qr_uses_cholqr(binary, 1 << 20, 256, 32768, Mapping::GpuOnly, true));
}
