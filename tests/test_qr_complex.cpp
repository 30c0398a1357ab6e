// The complex tile QR on CPU workers [complex][qr][cpu]: geqrf, orgqr, ormqr from both sides with Q and Q^H, and gels
// (least squares for m >= n, the minimum-norm solution for m < n) on fresh random complex matrices (real and
// imaginary parts uniform in [-1, 1)), over the flat, binary, domains, panel and auto trees and several inner blockings;
// shapes tall, square and wide, with partial last tiles, one column, and fewer rows than a tile. Every check is a
// scaled residual < 60 computed here in complex<double> (tests/complex_qr_checks.hpp): ||A - Q R||_1 / (||A||_1 m
// eps), ||I - Q^H Q||_1 / (m eps) for the thin Q of orgqr and the full Q of ormqr applied to I, ormqr's products
// against the explicit Q, the normal equations of gels ||A^H (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1)
// m eps), and for a wide A the residual of A X = B and X's distance from A's row space (the minimum norm). Then
// gels' info on an exactly rank-deficient A, NaN and Inf input reported as the real QR reports them, and the arguments
// the calls refuse.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "starfact/qr_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/complex_qr_checks.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::eps;
using starfact::test::random_block;
namespace cq = starfact::test::complex_qr;

namespace {

const char* letter(bool single) { return single ? "c" : "z"; }

QrTree tree_of(const char* text) { return QrTree::parse(text); }

struct Shape {
    int64_t m, n;
    const char* tree;
    int64_t ib;  // 0: the default
};

}  // namespace

TEMPLATE_TEST_CASE("complex geqrf, orgqr and ormqr: scaled residuals < 60", "[complex][qr][cpu]", std::complex<float>,
                   std::complex<double>) {
    using C = TestType;
    constexpr bool single = std::is_same_v<C, std::complex<float>>;
    const int64_t nb = 16;
    const double e = eps<C>();
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    const Shape shapes[] = {{1, 1, "flat", 0},        {5, 1, "auto", 0},     {50, 1, "binary", 0},
                            {45, 27, "flat", 4},      {45, 27, "domains=2", 0}, {32, 32, "auto", 0},
                            {29, 29, "binary", 5},    {27, 45, "flat", 0},   {27, 45, "domains=2", 3},
                            {9, 5, "auto", 0},        {5, 9, "flat", 0},     {90, 10, "auto", 0},
                            {130, 40, "domains=2", 7},  // five domains: merges at distances 1, 2 and 4
                            {70, 40, "panel", 0},       {40, 70, "panel", 0}};
    int round = 0;
    for (const Shape& s : shapes) {
        const int64_t m = s.m, n = s.n, k = std::min(m, n), nrhs = round == 3 ? nb + 3 : 3;
        const Mapping mapping = round++ % 2 == 0 ? Mapping::CpuOnly : Mapping::Hybrid;
        INFO("m=" << m << " n=" << n << " nb=" << nb << " tree=" << s.tree << " ib=" << s.ib << " nrhs=" << nrhs
                  << " seed=" << seed << " prec=" << letter(single));
        const std::vector<C> A = random_block<C>(m, n, g);
        auto tA = cq::tiles(A, m, n, nb);
        QRFactors<C> f(*tA, tree_of(s.tree), s.ib);
        geqrf(*tA, f, on(mapping));
        REQUIRE(f.factored());
        CHECK(f.breakdown() == QrBreakdown::None);
        const cq::Mat a(A, m, n), F = cq::exported(*tA);

        TileMatrix<C> tQ(runtime(), m, k, nb);  // the thin Q
        orgqr(*tA, f, tQ, on(mapping));
        const cq::Mat Q = cq::exported(tQ);
        auto tI = cq::tiles(cq::entries<C>(cq::identity(m)), m, m, nb);  // the full Q, Q I
        ormqr(Side::Left, Trans::NoTrans, *tA, f, *tI, on(mapping));
        const cq::Mat Qf = cq::exported(*tI);
        const double qr = cq::qr_residual(a, Q, cq::upper(F), e), orth = cq::orthogonality_residual(Q, e),
                     orth_full = cq::orthogonality_residual(Qf, e),
                     thin = cq::product_residual(Q, cq::block(Qf, m, k), cq::identity(k), m, e);
        INFO("qr=" << qr << " orth=" << orth << " orth_full=" << orth_full << " thin=" << thin);
        CHECK(qr < kResidualLimit);
        CHECK(orth < kResidualLimit);
        CHECK(orth_full < kResidualLimit);
        CHECK(thin < kResidualLimit);

        // ormqr from the left and the right, Q and Q^H, against the explicit Q
        const cq::Mat Cl(random_block<C>(m, nrhs, g), m, nrhs), Cr(random_block<C>(nrhs, m, g), nrhs, m);
        for (Trans t : {Trans::NoTrans, Trans::ConjTranspose}) {
            const bool h = t == Trans::ConjTranspose;
            auto tl = cq::tiles(cq::entries<C>(Cl), m, nrhs, nb);
            ormqr(Side::Left, t, *tA, f, *tl, on(mapping));
            const double left = cq::product_residual(cq::exported(*tl), (h ? cq::adjoint(Qf) : Qf) * Cl, Cl, m, e);
            auto tr = cq::tiles(cq::entries<C>(Cr), nrhs, m, nb);
            ormqr(Side::Right, t, *tA, f, *tr, on(mapping));
            const double right = cq::product_residual(cq::exported(*tr), Cr * (h ? cq::adjoint(Qf) : Qf), Cr, m, e);
            INFO("op=" << (h ? "Q^H" : "Q") << " left=" << left << " right=" << right);
            CHECK(left < kResidualLimit);
            CHECK(right < kResidualLimit);
        }
    }
}

TEMPLATE_TEST_CASE("complex gels: least squares and minimum-norm solutions, scaled residuals < 60",
                   "[complex][qr][cpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    constexpr bool single = std::is_same_v<C, std::complex<float>>;
    const int64_t nb = 16;
    const double e = eps<C>();
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    const Shape shapes[] = {{45, 27, "flat", 0}, {50, 1, "binary", 0}, {29, 29, "auto", 4}, {5, 1, "flat", 0},
                            {1, 1, "auto", 0},   {70, 20, "domains=2", 0}, {27, 45, "flat", 0},
                            {20, 70, "binary", 6}, {5, 9, "auto", 0}, {1, 7, "flat", 0}};
    int round = 0;
    for (const Shape& s : shapes) {
        const int64_t m = s.m, n = s.n, rows = std::max(m, n), nrhs = round == 2 ? nb + 3 : 2;
        const Mapping mapping = round++ % 2 == 0 ? Mapping::Hybrid : Mapping::CpuOnly;
        INFO("m=" << m << " n=" << n << " nb=" << nb << " tree=" << s.tree << " ib=" << s.ib << " nrhs=" << nrhs
                  << " seed=" << seed << " prec=" << letter(single));
        const std::vector<C> A = random_block<C>(m, n, g), B = random_block<C>(rows, nrhs, g);
        auto tA = cq::tiles(A, m, n, nb);
        auto tB = cq::tiles(B, rows, nrhs, nb);
        QRFactors<C> f(runtime(), m >= n ? m : n, m >= n ? n : m, nb, tree_of(s.tree), s.ib);  // of A, or A^H
        REQUIRE(gels(*tA, f, *tB, on(mapping)) == 0);
        const cq::Mat a(A, m, n), X = cq::block(cq::exported(*tB), n, nrhs);
        if (m >= n) {
            const double r = cq::gels_residual(a, X, cq::Mat(B, rows, nrhs), e);
            INFO("least squares residual=" << r);
            CHECK(r < kResidualLimit);
        } else {
            const cq::Mat b = cq::block(cq::Mat(B, rows, nrhs), m, nrhs);
            const double r = cq::solve_residual(a, X, b, e), norm = cq::minimum_norm_residual(a, X, e);
            INFO("A X = B residual=" << r << " distance from the row space=" << norm);
            CHECK(r < kResidualLimit);
            CHECK(norm < kResidualLimit);
        }
    }
}

TEMPLATE_TEST_CASE("complex gels reports an exactly zero R(k, k) as its info", "[complex][qr][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{40, 23}, {23, 40}, {7, 7}}) {
        const int64_t k = std::uniform_int_distribution<int64_t>(0, std::min(m, n) - 1)(g);
        INFO("m=" << m << " n=" << n << " k=" << k << " seed=" << seed);
        std::vector<C> A = random_block<C>(m, n, g);
        if (m >= n)
            for (int64_t i = 0; i < m; ++i) A[static_cast<size_t>(i + k * m)] = C(0);  // column k of A
        else
            for (int64_t j = 0; j < n; ++j) A[static_cast<size_t>(k + j * m)] = C(0);  // row k: column k of A^H
        const std::vector<C> B = random_block<C>(std::max(m, n), 2, g);
        auto tA = cq::tiles(A, m, n, nb);
        auto tB = cq::tiles(B, std::max(m, n), 2, nb);
        QRFactors<C> f(runtime(), std::max(m, n), std::min(m, n), nb);
        CHECK(gels(*tA, f, *tB) == k + 1);
        CHECK(f.breakdown() == QrBreakdown::ZeroDiagonal);
        CHECK(f.breakdown_column() == k + 1);
        if (m < n) CHECK(cq::exported(*tB).a == cq::Mat(B, std::max(m, n), 2).a);  // untouched
    }
}

TEMPLATE_TEST_CASE("complex geqrf and gels report NaN and Inf in A at its column", "[complex][qr][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    using R = typename C::value_type;
    const int64_t m = 40, n = 21, nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    INFO("seed=" << seed);
    for (const char* tree : {"binary", "flat", "panel"})
        for (C bad : {C(std::numeric_limits<R>::quiet_NaN(), 0), C(0, std::numeric_limits<R>::infinity())}) {
            INFO("tree=" << tree << " bad=(" << bad.real() << ", " << bad.imag() << ")");
            std::vector<C> A = random_block<C>(m, n, g);
            A[static_cast<size_t>(3 + 17 * m)] = bad;  // column 17: info 18
            auto tA = cq::tiles(A, m, n, nb);
            QRFactors<C> f(*tA, tree_of(tree));
            std::string argument;
            try {
                geqrf(*tA, f);
            } catch (const InvalidArgument& e) {
                argument = e.argument();
            }
            CHECK(argument == "A");
            CHECK(f.breakdown() == QrBreakdown::NotFinite);
            CHECK(f.breakdown_column() == 18);
            CHECK_FALSE(f.factored());
            auto tA2 = cq::tiles(A, m, n, nb);
            auto tB = cq::tiles(random_block<C>(m, 1, g), m, 1, nb);
            QRFactors<C> f2(*tA2, tree_of(tree));
            CHECK(gels(*tA2, f2, *tB) == 18);
            CHECK(settled_pending_tasks(runtime()) == 0);
        }
}

TEST_CASE("complex geqrf, ormqr, orgqr and gels name their bad arguments", "[complex][qr][cpu][errors]") {
    using C = std::complex<double>;
    const auto argument_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(accepted)";
    };
    const int64_t nb = 16;
    TileMatrix<C> A(runtime(), 40, 20, nb), other(runtime(), 41, 20, nb), Cm(runtime(), 40, 3, nb),
        short_C(runtime(), 39, 3, nb), right_C(runtime(), 3, 40, nb), Q(runtime(), 40, 20, nb),
        wide_Q(runtime(), 40, 21, nb), B(runtime(), 40, 2, nb), short_B(runtime(), 20, 2, nb),
        C_nb(runtime(), 40, 3, 8), wide(runtime(), 20, 40, nb), wide_B(runtime(), 40, 2, nb);
    std::vector<C> zero(40 * 20, C(0.5, 0.25));
    A.import(zero.data(), 40);
    QRFactors<C> f(A), f_other(other), f_cholqr(A, tree_of("cholqr")), f_panel(A, tree_of("panel")),
        f_wide_as_is(wide), f_unfactored(A);
    Options lookahead;
    lookahead.variant = Variant::parse("lookahead=2");
    CHECK(argument_of([&] { geqrf(A, f_other); }) == "T");
    CHECK(argument_of([&] { geqrf(A, f_cholqr); }) == "tree");
    CHECK(argument_of([&] { geqrf(A, f, on(Mapping::GpuOnly)); }) == "mapping");  // (no CUDA worker here)
    CHECK(argument_of([&] { geqrf(A, f, lookahead); }) == "variant");
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::NoTrans, A, f_unfactored, Cm); }) == "T");
    geqrf(A, f, on(Mapping::CpuOnly));
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::Transpose, A, f, Cm); }) == "trans");
    CHECK(argument_of([&] { ormqr(Side::Right, Trans::Transpose, A, f, right_C); }) == "trans");
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::NoTrans, A, f, short_C); }) == "C");
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::ConjTranspose, A, f, C_nb); }) == "C");
    CHECK(argument_of([&] { ormqr(Side::Right, Trans::NoTrans, A, f, Cm); }) == "C");
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::NoTrans, A, f, Cm, on(Mapping::GpuOnly)); }) == "mapping");
    CHECK(argument_of([&] { ormqr(Side::Right, Trans::ConjTranspose, A, f, right_C); }) == "(accepted)");
    CHECK(argument_of([&] { orgqr(A, f, wide_Q); }) == "Q");
    CHECK(argument_of([&] { orgqr(A, f_other, Q); }) == "T");
    CHECK(argument_of([&] { orgqr(A, f, Q, on(Mapping::GpuOnly)); }) == "mapping");
    CHECK(argument_of([&] { gels(A, f, short_B); }) == "B");
    CHECK(argument_of([&] { gels(wide, f_wide_as_is, wide_B); }) == "T");  // a wide A's T is shaped for A^H
    CHECK(argument_of([&] { gels(A, f, B, on(Mapping::GpuOnly)); }) == "mapping");
    CHECK(argument_of([&] { gels(A, f, B); }) == "(accepted)");
    CHECK(argument_of([&] { geqrf(A, f_panel); }) == "(accepted)");  // the panel tree takes complex tiles
}

TEST_CASE("Trans::ConjTranspose applies Q^T to real matrices", "[complex][qr][cpu]") {
    const int64_t m = 37, n = 20, nb = 16;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> A(static_cast<size_t>(m * n)), Cm(static_cast<size_t>(m * 3));
    for (double& a : A) a = u(g);
    for (double& c : Cm) c = u(g);
    TileMatrix<double> tA(runtime(), m, n, nb), t1(runtime(), m, 3, nb), t2(runtime(), m, 3, nb);
    tA.import(A.data(), m);
    t1.import(Cm.data(), m);
    t2.import(Cm.data(), m);
    QRFactors<double> f(tA);
    geqrf(tA, f, on(Mapping::CpuOnly));
    ormqr(Side::Left, Trans::Transpose, tA, f, t1, on(Mapping::CpuOnly));
    ormqr(Side::Left, Trans::ConjTranspose, tA, f, t2, on(Mapping::CpuOnly));
    std::vector<double> X1(Cm.size()), X2(Cm.size());
    t1.export_to(X1.data(), m);
    t2.export_to(X2.data(), m);
    CHECK(X1 == X2);
    CHECK(X1 != Cm);
}
