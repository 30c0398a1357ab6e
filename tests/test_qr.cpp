// CPU tile QR: geqrf, orgqr, ormqr (Q and Q^T, from the left and the right) and gels for both precisions, every
// reduction tree, tile sizes that do not divide the order, n = 1, m = n, n < nb, inner blockings; residuals < 60
// (tests/qr_support.hpp); gels' info on rank-deficient matrices as LAPACK's; the TileMatrix and async:: forms; bad
// arguments; threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>

#include "algorithms/plan_tables.hpp"  // the QR rules behind the plan
#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;
using starfact::detail::qr_domain_rows;
using starfact::detail::qr_inner_block;
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
        if constexpr (sizeof(T) == 4) REQUIRE(LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, F.data(), m, tau.data()) == 0);
        else REQUIRE(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, F.data(), m, tau.data()) == 0);
        std::vector<T> Q(F.begin(), F.begin() + m * k);
        if constexpr (sizeof(T) == 4) REQUIRE(LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, k, k, Q.data(), m, tau.data()) == 0);
        else REQUIRE(LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, Q.data(), m, tau.data()) == 0);
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
        if constexpr (sizeof(T) == 4)
            REQUIRE(LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, F.data(), m, X.data(), ldb) == 0);
        else
            REQUIRE(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, F.data(), m, X.data(), ldb) == 0);
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

TEMPLATE_TEST_CASE("gels solves least squares with residual < 60", "[qr][cpu]", float, double) {
    using T = TestType;
    struct Case {
        int64_t m, n, nrhs, nb;
        const char* tree;
    };
    for (Case c : {Case{1, 1, 1, 4, "flat"}, Case{30, 30, 2, 8, "flat"}, Case{57, 20, 5, 8, "binary"},
                   Case{200, 31, 16, 32, "domains=2"}, Case{90, 1, 3, 16, "auto"}, Case{64, 10, 1, 128, "flat"},
                   Case{30, 30, 1, 8, "panel"}, Case{57, 20, 5, 8, "panel"}, Case{200, 31, 16, 32, "panel"},
                   Case{90, 1, 3, 16, "panel"}, Case{64, 10, 1, 128, "panel"}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << c.m << " n=" << c.n << " nrhs=" << c.nrhs << " nb=" << c.nb << " tree=" << c.tree
                  << " seed=" << seed);
        const int64_t lda = c.m + 1, ldb = c.m + 3;
        const std::vector<T> A = random_rect<T>(c.m, c.n, lda, seed), B = random_rect<T>(c.m, c.nrhs, ldb, seed + 7);
        // The TileMatrix form with the tree of the case.
        TileMatrix<T> a(runtime(), c.m, c.n, c.nb), b(runtime(), c.m, c.nrhs, c.nb);
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        QRFactors<T> f(a, QrTree::parse(c.tree));
        REQUIRE(gels(a, f, b, on(Mapping::CpuOnly)) == 0);
        std::vector<T> X(static_cast<size_t>(ldb * c.nrhs));
        b.export_to(X.data(), ldb);
        const double res = normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
        // The array form.
        std::vector<T> A2 = A, B2 = B;
        REQUIRE(gels(runtime(), c.m, c.n, c.nrhs, A2.data(), lda, B2.data(), ldb, on(Mapping::Hybrid),
                     Tiling{c.nb}) == 0);
        CHECK(normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, B2.data(), ldb, B.data(), ldb) < kResidualLimit);
    }
}

namespace {

/// LAPACKE's gels ('N') of A (m x n, lda) and B (max(m, n) x nrhs, ldb) in place; its info.
template <typename T>
int lapack_gels(int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb) {
    if constexpr (sizeof(T) == 4)
        return LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, A, lda, B, ldb);
    else
        return LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, A, lda, B, ldb);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) (A m x n, X n x nrhs): the backward error of a consistent system.
template <typename T>
double system_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx,
                       const T* B, int64_t ldb) {
    double nr = 0, na = 0, nx = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double s = 0, sx = 0;
        for (int64_t i = 0; i < m; ++i) {
            double r = -double(B[i + j * ldb]);
            for (int64_t k = 0; k < n; ++k) r += double(A[i + k * lda]) * double(X[k + j * ldx]);
            s += std::abs(r);
        }
        for (int64_t k = 0; k < n; ++k) sx += std::abs(double(X[k + j * ldx]));
        nr = std::isnan(s) ? s : std::max(nr, s);
        nx = std::max(nx, sx);
    }
    for (int64_t k = 0; k < n; ++k) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(double(A[i + k * lda]));
        na = std::max(na, s);
    }
    const double den = na * nx * double(n) * std::numeric_limits<T>::epsilon();
    return nr / (den > 0 ? den : 1.0);
}

}  // namespace

TEMPLATE_TEST_CASE("gels of a wide matrix: the minimum-norm solution, as LAPACK's", "[qr][cpu]", float, double) {
    using T = TestType;
    struct Case {
        int64_t m, n, nrhs, nb;
        const char* tree;
    };
    for (Case c : {Case{1, 5, 1, 4, "flat"}, Case{7, 30, 2, 8, "binary"}, Case{20, 57, 3, 8, "domains=2"},
                   Case{16, 64, 1, 16, "flat"}, Case{5, 70, 4, 16, "auto"}, Case{31, 200, 16, 32, "binary"},
                   Case{20, 57, 3, 8, "panel"}, Case{31, 200, 16, 32, "panel"}, Case{1, 5, 1, 4, "panel"}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << c.m << " n=" << c.n << " nrhs=" << c.nrhs << " nb=" << c.nb << " tree=" << c.tree
                  << " seed=" << seed);
        const int64_t lda = c.m + 1, ldb = c.n + 3;  // B: max(m, n) rows
        const std::vector<T> A = random_rect<T>(c.m, c.n, lda, seed), B = random_rect<T>(c.m, c.nrhs, ldb, seed + 7);
        std::vector<T> ref_a = A, ref = B;
        REQUIRE(lapack_gels(c.m, c.n, c.nrhs, ref_a.data(), lda, ref.data(), ldb) == 0);
        auto check = [&](const std::vector<T>& X, const char* form) {
            INFO(form);
            const double res = system_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
            const double diff = scaled_difference(c.n, c.nrhs, X.data(), ldb, ref.data(), ldb);  // the minimum norm
            INFO("residual=" << res << " against LAPACK's=" << diff);
            CHECK(res < kResidualLimit);
            CHECK(diff < kResidualLimit);
        };
        // The TileMatrix form: the factors are A^T's.
        TileMatrix<T> a(runtime(), c.m, c.n, c.nb), b(runtime(), c.n, c.nrhs, c.nb);
        a.import(A.data(), lda);
        b.import(B.data(), ldb);  // rows m .. n-1 are input too (LAPACK ignores them): here the marker values
        QRFactors<T> f(runtime(), c.n, c.m, c.nb, QrTree::parse(c.tree));
        REQUIRE(gels(a, f, b, on(Mapping::CpuOnly)) == 0);
        std::vector<T> X(static_cast<size_t>(ldb * c.nrhs));
        b.export_to(X.data(), ldb);
        check(X, "TileMatrix form");
        // A holds the factors of A^T transposed: L = R^T on and below its diagonal, as LAPACK's L up to signs.
        std::vector<T> LQ(A.size());
        a.export_to(LQ.data(), lda);
        for (int64_t i = 0; i < c.m; ++i) CHECK(std::abs(std::abs(double(LQ[i + i * lda])) -
                                                     std::abs(double(ref_a[i + i * lda]))) <
                                            1e3 * c.n * std::numeric_limits<T>::epsilon());
        // The array form and the submit form.
        std::vector<T> A2 = A, B2 = B;
        REQUIRE(gels(runtime(), c.m, c.n, c.nrhs, A2.data(), lda, B2.data(), ldb, on(Mapping::Hybrid),
                     Tiling{c.nb}) == 0);
        check(B2, "array form");
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        Sequence seq(runtime());
        const int op = async::gels(a, f, b, seq, on(Mapping::Hybrid));
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
        b.export_to(X.data(), ldb);
        check(X, "submit form");
    }
}

TEMPLATE_TEST_CASE("gels reports an exactly zero diagonal of R as LAPACK's info, tall and wide", "[qr][cpu]", float,
                   double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    for (int64_t column : {0, 5, 12, 19}) {
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 45, n = 20, nrhs = 2;
            INFO("zero column " << column << " tree " << tree);
            std::vector<T> A = random_rect<T>(m, n, m, seed + column), B = random_rect<T>(m, nrhs, m, seed + 1);
            for (int64_t i = 0; i < m; ++i) A[i + column * m] = T(0);
            std::vector<T> ref = A, ref_b = B;
            int ref_info;
            if constexpr (sizeof(T) == 4)
                ref_info = LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, ref.data(), m, ref_b.data(), m);
            else
                ref_info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, ref.data(), m, ref_b.data(), m);
            CHECK(ref_info == column + 1);
            TileMatrix<T> a(runtime(), m, n, 8), b(runtime(), m, nrhs, 8);
            a.import(A.data(), m);
            b.import(B.data(), m);
            QRFactors<T> f(a, QrTree::parse(tree));
            CHECK(gels(a, f, b, on(Mapping::CpuOnly)) == ref_info);
            // The submit form: the same info from the Sequence.
            a.import(A.data(), m);
            b.import(B.data(), m);
            Sequence seq(runtime());
            const int op = async::gels(a, f, b, seq, on(Mapping::CpuOnly));
            CHECK(seq.wait() == ref_info);
            CHECK(seq.info(op) == ref_info);
        }
    }
    // A wide matrix with a zero row: R of A^T (LAPACK: L of A) has a zero diagonal entry there.
    for (int64_t row : {0, 5, 12, 19}) {
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 20, n = 45, nrhs = 2;
            INFO("zero row " << row << " tree " << tree);
            std::vector<T> A = random_rect<T>(m, n, m, seed + row), B = random_rect<T>(n, nrhs, n, seed + 1);
            for (int64_t j = 0; j < n; ++j) A[row + j * m] = T(0);
            std::vector<T> ref = A, ref_b = B;
            const int ref_info = lapack_gels(m, n, nrhs, ref.data(), m, ref_b.data(), n);
            CHECK(ref_info == row + 1);
            TileMatrix<T> a(runtime(), m, n, 8), b(runtime(), n, nrhs, 8);
            a.import(A.data(), m);
            b.import(B.data(), n);
            QRFactors<T> f(runtime(), n, m, 8, QrTree::parse(tree));
            CHECK(gels(a, f, b, on(Mapping::CpuOnly)) == ref_info);
            std::vector<T> A2 = A, B2 = B;
            CHECK(gels(runtime(), m, n, nrhs, A2.data(), m, B2.data(), n, on(Mapping::CpuOnly), Tiling{8}) == ref_info);
            a.import(A.data(), m);
            Sequence seq(runtime());
            const int op = async::gels(a, f, b, seq, on(Mapping::CpuOnly));
            CHECK(seq.wait() == ref_info);
            CHECK(seq.info(op) == ref_info);
        }
    }
}

TEMPLATE_TEST_CASE("QR: TileMatrix and async forms chain in one graph", "[qr][cpu]", float, double) {
    using T = TestType;
    for (const char* tree : {"domains=2", "panel"}) {
        const uint64_t seed = fresh_seed();
        const bool panel = std::string(tree) == "panel";
        INFO("seed=" << seed << " tree=" << tree);
        const int64_t m = 150, n = 70, nb = 32;
        const std::vector<T> A = random_rect<T>(m, n, m, seed);
        TileMatrix<T> a(runtime(), m, n, nb), q(runtime(), m, n, nb), c(runtime(), m, 4, nb);
        a.import(A.data(), m);
        const std::vector<T> C = random_rect<T>(m, 4, m, seed + 3);
        c.import(C.data(), m);
        QRFactors<T> f(a, QrTree::parse(tree));
        CHECK_FALSE(f.factored());
        Sequence seq(runtime());
        async::geqrf(a, f, seq, on(Mapping::CpuOnly));
        async::orgqr(a, f, q, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Left, Trans::Transpose, a, f, c, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Left, Trans::NoTrans, a, f, c, seq, on(Mapping::CpuOnly));
        // From the right on a 5 x m matrix: (W Q) Q^T = W.
        const std::vector<T> W = random_rect<T>(5, m, 5, seed + 5);
        TileMatrix<T> w(runtime(), 5, m, nb);
        w.import(W.data(), 5);
        async::ormqr(Side::Right, Trans::NoTrans, a, f, w, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Right, Trans::Transpose, a, f, w, seq, on(Mapping::CpuOnly));
        CHECK(seq.wait() == 0);
        CHECK(f.factored());
        CHECK(f.domain_rows() == (panel ? a.mt() : 2));
        CHECK(f.panel() == panel);
        CHECK(f.ib() == (panel ? nb : qr_inner_block(nb, Mapping::CpuOnly, false)));
        std::vector<T> F(A.size()), Q(A.size()), D(C.size());
        a.export_to(F.data(), m);
        q.export_to(Q.data(), m);
        c.export_to(D.data(), m);
        CHECK(orthogonality_residual(m, n, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
        CHECK(scaled_difference(m, 4, D.data(), m, C.data(), m) < kResidualLimit);
        std::vector<T> V(W.size());
        w.export_to(V.data(), 5);
        CHECK(scaled_difference(5, m, V.data(), 5, W.data(), 5) < kResidualLimit);
        // The blocking forms with stats.
        a.import(A.data(), m);
        RunStats stats;
        geqrf(a, f, on(Mapping::CpuOnly), stats);
        CHECK(stats.tasks > 0);
    }
}

TEST_CASE("QR: bad arguments throw InvalidArgument naming them", "[qr][cpu][errors]") {
    Runtime& rt = runtime();
    auto names = [](const std::string& argument) {
        return Catch::Predicate<const InvalidArgument&>(
            [argument](const InvalidArgument& e) { return e.argument() == argument; }, "names " + argument);
    };
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, -1, 0, 4), InvalidArgument, names("m"));
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, -2), InvalidArgument, names("nb"));
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, 4, QrTree{}, 5), InvalidArgument, names("ib"));
    // The panel tree forms one T per panel: an inner blocking below min(nb, n) is refused.
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, 4, QrTree::parse("panel"), 2), InvalidArgument, names("ib"));
    CHECK_THROWS_WITH(QRFactors<double>(rt, 10, 5, 4, QrTree::parse("panel"), 2), Catch::Contains("panel tree"));
    TileMatrix<double> wide(rt, 10, 20, 4), a(rt, 20, 10, 4), other(rt, 21, 10, 4), c(rt, 20, 3, 4), c_bad(rt, 19, 3, 4),
        c_nb(rt, 20, 3, 5);
    QRFactors<double> f(a), g(other);
    CHECK_THROWS_MATCHES(geqrf(wide, f), InvalidArgument, names("T"));  // f is shaped for a, not for the wide one
    CHECK_THROWS_MATCHES(geqrf(a, g), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c), InvalidArgument, names("T"));  // not factored
    Options bad_variant;
    bad_variant.variant = Variant::parse("left");
    CHECK_THROWS_MATCHES(geqrf(a, f, bad_variant), InvalidArgument, names("variant"));
    {  // a's tiles hold whatever their memory held: give it values, so that geqrf factors rather than breaks down
        std::vector<double> values(static_cast<size_t>(20 * 10));
        random_matrix<double>(20, 10, values.data(), 20, fresh_seed());
        a.import(values.data(), 20);
    }
    geqrf(a, f, on(Mapping::CpuOnly));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c_bad), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c_nb), InvalidArgument, names("C"));
    // From the right C must have A's m columns: c (20 x 3) has not, c_wide (3 x 19) neither; another tile size.
    TileMatrix<double> c_wide(rt, 3, 19, 4), c_right_nb(rt, 3, 20, 5), c_right(rt, 3, 20, 4);
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::NoTrans, a, f, c), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::Transpose, a, f, c_wide), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::NoTrans, a, f, c_right_nb), InvalidArgument, names("C"));
    CHECK_THROWS_WITH(ormqr(Side::Right, Trans::NoTrans, a, f, c), Catch::Contains("as many columns as A has rows"));
    ormqr(Side::Right, Trans::NoTrans, a, f, c_right, on(Mapping::CpuOnly));
    CHECK_THROWS_MATCHES(orgqr(a, f, c), InvalidArgument, names("Q"));
    CHECK_THROWS_MATCHES(gels(a, f, c_bad), InvalidArgument, names("B"));
    // A wide A's least squares factor A^T: T shaped for it (f is: a is wide^T's shape), B of max(m, n) rows.
    CHECK_THROWS_MATCHES(gels(wide, g, c), InvalidArgument, names("T"));
    CHECK_THROWS_WITH(gels(wide, g, c), Catch::Contains("shaped for A^T"));
    CHECK_THROWS_MATCHES(gels(wide, f, c_bad), InvalidArgument, names("B"));
    Options gpu;
    gpu.mapping = Mapping::GpuOnly;
    CHECK_THROWS_MATCHES(geqrf(a, f, gpu), InvalidArgument, names("mapping"));
    // Array forms.
    std::vector<double> A(400, 1.0), B(400, 1.0);
    CHECK_THROWS_MATCHES(gels(rt, 10, 20, 1, A.data(), 10, B.data(), 10), InvalidArgument, names("ldb"));  // < n
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, 1, A.data(), 19, B.data(), 20), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, 1, A.data(), 20, B.data(), 19), InvalidArgument, names("ldb"));
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, -1, A.data(), 20, B.data(), 20), InvalidArgument, names("nrhs"));
    CHECK_THROWS_MATCHES(gels<double>(rt, 20, 10, 1, nullptr, 20, B.data(), 20), InvalidArgument, names("A"));
    QRFactors<double> h(rt, 20, 10, 4);
    CHECK_THROWS_MATCHES(geqrf(rt, 20, 9, A.data(), 20, h), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(geqrf(rt, 20, 10, A.data(), 20, h, {}, Tiling{8}), InvalidArgument, names("tiling"));
    CHECK_THROWS_MATCHES(geqrf(rt, 10, 20, A.data(), 10, h), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(orgqr(rt, 20, 10, A.data(), 20, h, B.data(), 19), InvalidArgument, names("ldq"));
    CHECK_THROWS_MATCHES(ormqr(rt, Side::Left, Trans::NoTrans, 20, 1, A.data(), 20, h, B.data(), 20), InvalidArgument,
                         names("T"));
    std::vector<double> F(400, 0.0);
    for (int64_t i = 0; i < 20; ++i) F[static_cast<size_t>(i * 21)] = 1.0;
    geqrf(rt, 20, 10, F.data(), 20, h, on(Mapping::CpuOnly));
    // From the right C is nrhs x m: ldc >= nrhs (3), not m.
    CHECK_THROWS_MATCHES(ormqr(rt, Side::Right, Trans::NoTrans, 20, 3, F.data(), 20, h, B.data(), 2), InvalidArgument,
                         names("ldc"));
    ormqr(rt, Side::Right, Trans::NoTrans, 20, 3, F.data(), 20, h, B.data(), 3, on(Mapping::CpuOnly));
    // Empty problems are no-ops.
    QRFactors<double> empty(rt, 0, 0, 4);
    geqrf<double>(rt, 0, 0, nullptr, 1, empty);
    CHECK(gels<double>(rt, 5, 0, 2, nullptr, 5, B.data(), 5) == 0);
    // A 0 x 4 A: the minimum-norm solution is 0, as LAPACK's (B has max(m, n) = 4 rows).
    CHECK(gels<double>(rt, 0, 4, 2, nullptr, 1, B.data(), 4) == 0);
    CHECK(std::all_of(B.begin(), B.begin() + 8, [](double x) { return x == 0.0; }));
}

TEST_CASE("QR from several threads at once", "[qr][cpu][threads]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    constexpr int kThreads = 4;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                const char* trees[] = {"flat", "binary", "domains=2", "auto"};
                Options o;
                o.mapping = Mapping::CpuOnly;
                for (int rep = 0; rep < 3; ++rep) {
                    const QrCheck c = check_qr<double>(runtime(), 60 + 11 * t, 25 + 3 * rep, 8,
                                                       QrTree::parse(trees[t]), 0, o, o, seed + 100 * t + rep);
                    if (!c.failure().empty()) failures[static_cast<size_t>(t)] += c.failure();
                }
            } catch (const std::exception& e) {
                failures[static_cast<size_t>(t)] += e.what();
            }
        });
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
        INFO("thread " << t);
        CHECK(failures[static_cast<size_t>(t)].empty());
    }
}
