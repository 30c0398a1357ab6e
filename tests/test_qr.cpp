// CPU tile QR: geqrf, orgqr, ormqr (Q and Q^T, from the left and the right) for both precisions, every reduction
// tree, tile sizes that do not divide the order, n = 1, m = n, n < nb, inner blockings; residuals < 60
// (tests/qr_support.hpp), and those checks against LAPACK's own factors; the plan's reduction trees. Least squares:
// tests/test_qr_gels.cpp; the TileMatrix and async:: forms, bad arguments, threads: tests/test_qr_forms.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "algorithms/plan_tables.hpp"  // the QR rules behind the plan
#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;
using starfact::detail::qr_domain_rows;
using starfact::detail::qr_uses_cholqr;
using starfact::detail::qr_uses_panel;

namespace {

template <typename T>
void expect_qr(int64_t m, int64_t n, int64_t nb, const std::string& tree, int64_t ib, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("m=" << m << " n=" << n << " nb=" << nb << " tree=" << tree << " ib=" << ib << " mapping="
              << to_string(mapping) << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const QrCheck c = check_qr<T>(runtime(), m, n, nb, QrTree::parse(tree), ib, on(mapping), on(mapping), seed);
    INFO("orthogonality=" << c.orthogonality << " factorization=" << c.factorization << " apply=" << c.apply
                          << " reduce=" << c.reduce);
    CHECK(c.failure().empty());
}

template <typename T>
void expect_right(int64_t m, int64_t n, int64_t k, int64_t nb, const std::string& tree, int64_t ib, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("m=" << m << " n=" << n << " k=" << k << " nb=" << nb << " tree=" << tree << " ib=" << ib << " mapping="
              << to_string(mapping) << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const RightCheck c =
        check_ormqr_right<T>(runtime(), m, n, k, nb, QrTree::parse(tree), ib, on(mapping), on(mapping), seed);
    INFO("orthogonality=" << c.orthogonality << " factorization=" << c.factorization << " C*Q=" << c.notrans
                          << " C*Q^T=" << c.trans);
    CHECK(c.failure().empty());
}

}  // namespace

TEMPLATE_TEST_CASE("geqrf, orgqr, ormqr residuals < 60 on CPU workers, every tree", "[qr][cpu]", float, double) {
    struct Shape {
        int64_t m, n, nb;
    };
    // m < n too: R upper trapezoidal, Q m x m.
    const Shape shapes[] = {{1, 1, 4},    {7, 1, 4},    {16, 16, 4},  {17, 17, 4},  {40, 13, 8},  {50, 7, 16},
                            {64, 64, 16}, {67, 30, 16}, {100, 37, 9}, {130, 20, 32}, {33, 33, 40}, {45, 3, 5},
                            {1, 6, 4},    {4, 9, 4},    {13, 40, 8},  {23, 41, 16}, {5, 70, 16},  {32, 50, 16}};
    for (const char* tree : {"flat", "binary", "domains=2", "domains=3", "auto", "panel"})
        for (const Shape& s : shapes) expect_qr<TestType>(s.m, s.n, s.nb, tree, 0, Mapping::CpuOnly);
    // The panel tree with its inner blocking asked for (nb), under the hybrid mapping, of several tile columns.
    expect_qr<TestType>(70, 45, 16, "panel", 16, Mapping::CpuOnly);
    expect_qr<TestType>(150, 100, 16, "panel", 0, Mapping::Hybrid);
    // Inner blockings: 1, one that does not divide nb, nb itself (the CUDA kernels' layout).
    for (int64_t ib : {1, 3, 16}) {
        expect_qr<TestType>(70, 45, 16, "flat", ib, Mapping::CpuOnly);
        expect_qr<TestType>(70, 45, 16, "binary", ib, Mapping::Hybrid);
    }
    expect_qr<TestType>(300, 200, 64, "auto", 0, Mapping::Hybrid);
    expect_qr<TestType>(2000, 40, 32, "auto", 0, Mapping::CpuOnly);  // tall: domains from the plan
}

TEMPLATE_TEST_CASE("QR checks: below 60 on LAPACK's factors, above it once they are perturbed", "[qr][cpu]", float,
                   double) {
    // The checks the tests and starpu_qr trust: each must pass LAPACK's own results and fail on a perturbation of
    // the size of a few thousand rounding errors (in R's triangle and in its rectangle beside it, which the check
    // multiplies apart; in Q; in X); the reflectors below R's diagonal must not count. Order 700: threaded BLAS.
    using T = TestType;
    const double eps = std::numeric_limits<T>::epsilon();
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{50, 30}, {40, 40}, {30, 70}, {700, 600}, {300, 700}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << m << " n=" << n << " seed=" << seed);
        const int64_t k = std::min(m, n);
        const std::vector<T> A = random_rect<T>(m, n, m, seed);
        std::vector<T> F = A, tau(static_cast<size_t>(k));
        REQUIRE(starfact::detail::cpu::geqrf<T>(m, n, F.data(), m, tau.data()) == 0);
        std::vector<T> Q(F.begin(), F.begin() + m * k);
        REQUIRE(starfact::detail::cpu::orgqr<T>(m, k, k, Q.data(), m, tau.data()) == 0);
        CHECK(orthogonality_residual(m, k, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
        std::vector<T> G = F;  // other values below the diagonal: not read
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = j + 1; i < m; ++i) G[i + j * m] = T(1e3);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, G.data(), m) < kResidualLimit);
        // ||A||_1 ~ m / 4 and Q's entries ~ 1 / sqrt(m): a kick of 1e4 ||A||_1 sqrt(m) eps moves the residual to ~1e4.
        const T kick = static_cast<T>(1e4 * (double(m) / 4) * std::sqrt(double(m)) * eps);
        for (int64_t j : {int64_t(0), k - 1, n - 1}) {  // R1's corner and diagonal, R2's last column (m < n)
            INFO("R(0, " << j << ") perturbed");
            G = F;
            G[j * m] += kick;
            CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, G.data(), m) > kResidualLimit);
        }
        std::vector<T> P = Q;
        P[m - 1] += static_cast<T>(1e4 * double(m) * eps);
        CHECK(orthogonality_residual(m, k, P.data(), m) > kResidualLimit);
    }
    // gels: LAPACK's solution passes, one moved by 1e3 m^2 eps (1 + ||X||) in one entry fails.
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{50, 30}, {700, 600}, {30, 70}}) {
        const uint64_t seed = fresh_seed();
        INFO("gels m=" << m << " n=" << n << " seed=" << seed);
        const int64_t nrhs = 3, ldb = std::max(m, n);
        const std::vector<T> A = random_rect<T>(m, n, m, seed), B = random_rect<T>(m, nrhs, ldb, seed + 1);
        std::vector<T> F = A, X = B;
        REQUIRE(starfact::detail::cpu::gels<T>('N', m, n, nrhs, F.data(), m, X.data(), ldb) == 0);
        CHECK(gels_residual(m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb) < kResidualLimit);
        double nx = 0;
        for (int64_t i = 0; i < n; ++i) nx += std::abs(double(X[i]));
        X[n / 2] += static_cast<T>(1e3 * double(m) * double(m) * eps * (1 + nx));
        CHECK(gels_residual(m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb) > kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("ormqr from the right: C Q and C Q^T against the explicit Q, every tree", "[qr][cpu]", float,
                   double) {
    struct Shape {
        int64_t m, n, k, nb;
    };
    // k = 1, m = n, m < nb, orders that tile sizes do not divide, one tile column of several tile rows, m < n.
    const Shape shapes[] = {{1, 1, 1, 4},    {7, 1, 3, 4},     {17, 17, 1, 4}, {40, 13, 5, 8}, {33, 33, 2, 40},
                            {67, 30, 20, 16}, {45, 3, 9, 5},   {13, 40, 4, 8}, {5, 70, 3, 16}};  // m < n too
    for (const char* tree : {"flat", "binary", "domains=3", "auto", "panel"})
        for (const Shape& s : shapes) expect_right<TestType>(s.m, s.n, s.k, s.nb, tree, 0, Mapping::CpuOnly);
    for (int64_t ib : {1, 3, 16}) expect_right<TestType>(70, 45, 6, 16, "binary", ib, Mapping::Hybrid);
}

TEST_CASE("QR reduction trees: domains from the plan", "[qr][cpu]") {
    CHECK(qr_domain_rows(QrTree::parse("flat"), 10, 3, 8) == 10);
    CHECK(qr_domain_rows(QrTree::parse("binary"), 10, 3, 8) == 1);
    CHECK(qr_domain_rows(QrTree::parse("domains=4"), 10, 3, 8) == 4);
    CHECK(qr_domain_rows(QrTree::parse("domains=40"), 10, 3, 8) == 10);
    CHECK(qr_domain_rows(QrTree{}, 6, 3, 8) == 6);     // square-ish: flat
    CHECK(qr_domain_rows(QrTree{}, 512, 1, 4) == 64);  // tall: two domains per worker
    CHECK(QrTree::parse("domains=7").name() == "domains=7");
    CHECK(QrTree::parse("panel").kind == QrTree::Kind::Panel);
    CHECK(QrTree::parse("panel").name() == "panel");
    CHECK(qr_domain_rows(QrTree::parse("panel"), 10, 3, 8) == 10);
    // The plan's choice of whole-panel tasks: always when asked for; auto only on GPU mappings, for matrices of
    // several tile columns, m >= n, that the Cholesky QR does not take.
    CHECK(qr_uses_panel(QrTree::parse("panel"), 100, 10, 16, Mapping::CpuOnly, false));
    CHECK(qr_uses_panel(QrTree{}, 16384, 16384, 2048, Mapping::GpuOnly, true));
    CHECK_FALSE(qr_uses_panel(QrTree{}, 16384, 16384, 2048, Mapping::CpuOnly, true));
    CHECK_FALSE(qr_uses_panel(QrTree{}, 16384, 16384, 2048, Mapping::GpuOnly, false));
    CHECK_FALSE(qr_uses_panel(QrTree{}, 8192, 16384, 2048, Mapping::GpuOnly, true));   // wide
    CHECK(qr_uses_panel(QrTree{}, 1 << 20, 4096, 2048, Mapping::GpuOnly, true));         // tall, tiles narrower than n
    CHECK(qr_uses_panel(QrTree{}, 1 << 20, 8192, 2048, Mapping::GpuOnly, true));         // tall and wider than 4096
    CHECK_FALSE(qr_uses_panel(QrTree{}, 1 << 20, 4096, 32768, Mapping::GpuOnly, true));  // the Cholesky QR's
    CHECK_FALSE(qr_uses_panel(QrTree{}, 4096, 2048, 2048, Mapping::GpuOnly, true));     // one tile column
    CHECK_FALSE(qr_uses_panel(QrTree::parse("flat"), 16384, 16384, 2048, Mapping::GpuOnly, true));
    CHECK_THROWS_WITH(QrTree::parse("greedy", "--tree"), Catch::Contains("'--tree' must be one of auto, flat, binary"));
    CHECK_THROWS_WITH(QrTree::parse("greedy"), Catch::Contains("cholqr, panel"));
    CHECK_THROWS_WITH(QrTree::parse("domains=0"), Catch::Contains("domains=A needs a whole A >= 1"));
}
