// The complex tile QR on CUDA workers [gpu][complex][qr]: geqrf over the flat, binary, domains and panel trees (the
// tile codelets' cuSOLVER geqrf, the UT transform's T from V^H V, the panel tree's whole-panel tasks and block
// reflector updates), orgqr, ormqr from both sides with Q and Q^H, and gels (least squares and the minimum-norm
// solution of a wide A) in c and z, under the gpu-only and hybrid mappings, on host- and device-resident tiles. Every
// check is a scaled residual < 60 computed in complex<double> (tests/complex_qr_checks.hpp) on fresh random complex
// matrices; shapes tall, square and wide, with partial last tiles and fewer rows than a tile. Then NaN input reported
// at its column from the GPU. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "starfact/qr_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/complex_qr_checks.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::complex_letter;
using starfact::test::eps;
using starfact::test::random_block;
namespace cq = starfact::test::complex_qr;

namespace {

struct Shape {
    int64_t m, n, nb;
    const char* tree;
};

}  // namespace

TEMPLATE_TEST_CASE("complex geqrf, orgqr, ormqr and gels on CUDA workers: scaled residuals < 60",
                   "[gpu][complex][qr]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const double e = eps<C>();
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    const Shape shapes[] = {{1, 1, 64, "auto"},        {70, 1, 64, "auto"},     {200, 45, 64, "flat"},
                            {200, 45, 64, "binary"},   {300, 70, 64, "domains=2"}, {193, 193, 64, "auto"},
                            {300, 130, 64, "panel"},   {257, 257, 96, "panel"}, {45, 200, 64, "flat"},
                            {130, 300, 64, "panel"},   {40, 33, 64, "auto"}};
    int round = 0;
    for (const Shape& s : shapes) {
        const Mapping mapping = round % 2 == 0 ? Mapping::GpuOnly : Mapping::Hybrid;
        const Residency residency = round / 2 % 2 == 0 ? Residency::Device : Residency::Host;
        ++round;
        const int64_t m = s.m, n = s.n, nb = s.nb, k = std::min(m, n), nrhs = round % 3 == 0 ? nb + 3 : 3;
        INFO("m=" << m << " n=" << n << " nb=" << nb << " tree=" << s.tree << " mapping=" << to_string(mapping)
                  << " residency=" << to_string(residency) << " seed=" << seed << " prec=" << complex_letter<C>());
        const std::vector<C> A = random_block<C>(m, n, g);
        auto tA = cq::tiles(A, m, n, nb, residency);
        QRFactors<C> f(*tA, QrTree::parse(s.tree));
        geqrf(*tA, f, on(mapping));
        REQUIRE(f.factored());
        const cq::Mat a(A, m, n), F = cq::exported(*tA);

        TileMatrix<C> tQ(runtime(), m, k, nb, residency);
        orgqr(*tA, f, tQ, on(mapping));
        const cq::Mat Q = cq::exported(tQ);
        auto tI = cq::tiles(cq::entries<C>(cq::identity(m)), m, m, nb, residency);
        ormqr(Side::Left, Trans::NoTrans, *tA, f, *tI, on(mapping));
        const cq::Mat Qf = cq::exported(*tI);
        const double qr = cq::qr_residual(a, Q, cq::upper(F), e), orth = cq::orthogonality_residual(Q, e),
                     orth_full = cq::orthogonality_residual(Qf, e);
        INFO("qr=" << qr << " orth=" << orth << " orth_full=" << orth_full);
        CHECK(qr < kResidualLimit);
        CHECK(orth < kResidualLimit);
        CHECK(orth_full < kResidualLimit);

        const cq::Mat Cl(random_block<C>(m, nrhs, g), m, nrhs), Cr(random_block<C>(nrhs, m, g), nrhs, m);
        for (Trans t : {Trans::NoTrans, Trans::ConjTranspose}) {
            const bool h = t == Trans::ConjTranspose;
            auto tl = cq::tiles(cq::entries<C>(Cl), m, nrhs, nb, residency);
            ormqr(Side::Left, t, *tA, f, *tl, on(mapping));
            const double left = cq::product_residual(cq::exported(*tl), (h ? cq::adjoint(Qf) : Qf) * Cl, Cl, m, e);
            auto tr = cq::tiles(cq::entries<C>(Cr), nrhs, m, nb, residency);
            ormqr(Side::Right, t, *tA, f, *tr, on(mapping));
            const double right = cq::product_residual(cq::exported(*tr), Cr * (h ? cq::adjoint(Qf) : Qf), Cr, m, e);
            INFO("op=" << (h ? "Q^H" : "Q") << " left=" << left << " right=" << right);
            CHECK(left < kResidualLimit);
            CHECK(right < kResidualLimit);
        }

        // gels: least squares (m >= n) or the minimum-norm solution (m < n)
        const int64_t rows = std::max(m, n);
        const std::vector<C> B = random_block<C>(rows, 2, g);
        auto tA2 = cq::tiles(A, m, n, nb, residency);
        auto tB = cq::tiles(B, rows, 2, nb, residency);
        QRFactors<C> f2(runtime(), rows, k, nb, QrTree::parse(s.tree));  // of A, or of A^H
        REQUIRE(gels(*tA2, f2, *tB, on(mapping)) == 0);
        const cq::Mat X = cq::block(cq::exported(*tB), n, 2), b(B, rows, 2);
        if (m >= n) {
            const double ls = cq::gels_residual(a, X, b, e);
            INFO("least squares residual=" << ls);
            CHECK(ls < kResidualLimit);
        } else {
            const double r = cq::solve_residual(a, X, cq::block(b, m, 2), e), norm = cq::minimum_norm_residual(a, X, e);
            INFO("A X = B residual=" << r << " distance from the row space=" << norm);
            CHECK(r < kResidualLimit);
            CHECK(norm < kResidualLimit);
        }
        CHECK(settled_pending_tasks(runtime()) == 0);
    }
}

TEMPLATE_TEST_CASE("complex geqrf on CUDA workers reports NaN in A at its column", "[gpu][complex][qr]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    using R = typename C::value_type;
    const int64_t m = 300, n = 100, nb = 64;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (const char* tree : {"flat", "panel"}) {
        INFO("tree=" << tree);
        std::vector<C> A = random_block<C>(m, n, g);
        A[static_cast<size_t>(11 + 70 * m)] = C(0, std::numeric_limits<R>::quiet_NaN());
        auto tA = cq::tiles(A, m, n, nb, Residency::Device);
        QRFactors<C> f(*tA, QrTree::parse(tree));
        std::string argument;
        try {
            geqrf(*tA, f, on(Mapping::GpuOnly));
        } catch (const InvalidArgument& e) {
            argument = e.argument();
        }
        CHECK(argument == "A");
        CHECK(f.breakdown() == QrBreakdown::NotFinite);
        CHECK(f.breakdown_column() == 71);
    }
}
