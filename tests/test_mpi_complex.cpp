// Distributed complex Cholesky, LU and QR (StarPU-MPI), run by ctest under mpirun with 2 and 4 ranks (mpi.complex.np2,
// mpi.complex.np4; grids 1x2 and 2x1, 2x2, and 4x1 for getrf's pivots), in c and z: potrf's scaled residual
// ||A - L L^H||_F / (||A||_F n eps), getrf's ||P A - L U||_F / (||A||_F n eps) and the solves' ||A X - B||_F /
// (||A||_F ||X||_F n eps) (potrs, posv, getrs, gesv, blocking and async) < 60 on fresh random matrices at orders 1,
// below the tile size and not a multiple of it; getrf's pivots equal to the same factorization in one process (and to
// LAPACK's) on a matrix whose pivots lead by a wide margin, so that no near tie can order them differently; a matrix
// that is not positive definite and a singular one report LAPACK's info on every rank; the QR (geqrf, orgqr, ormqr
// with Q^H, gels) over the flat, binary, domains, auto and panel trees: ||A - Q R||_1 / (||A||_1 m eps),
// ||I - Q^H Q||_1 / (m eps) and the least-squares residual < 60 (tests/complex_qr_checks.hpp); bad grids and data on
// another grid are refused naming the argument. Every rank runs every test case in the same order (the operations
// are collective).
//
// The set-up (shared seeds, grid names, the runtime and main: tests/mpi_support.hpp, tests/main_mpi.cpp) is the other
// MPI binaries'.
#include <mpi.h>

#include <catch2/catch.hpp>

#include <complex>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/qr_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/complex_qr_checks.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/lu_complex_checks.hpp"
#include "tests/mpi_checks.hpp"
#include "tests/mpi_support.hpp"
#include "tests/seeds.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::mpi;
using starfact::test::complex_letter;
using starfact::test::getrf_residual;
using starfact::test::hermitian_factor_residual;
using starfact::test::hpd_matrix;
using starfact::test::lapack_getrf;
using starfact::test::permuted_dominant;
using starfact::test::random_block;
using starfact::test::solve_residual;

namespace {

/// The grids a case runs on: the default (most square: 1x2 on two ranks, 2x2 on four) and, on two ranks, 2x1 (every
/// tile column over every rank: the LU's panel and interchanges cross ranks). Four ranks add 4x1 to getrf's pivots
/// only (their time on a small machine: the ranks share its cores).
std::vector<Grid> grids() {
    const int r = runtime().mpi_size();
    std::vector<Grid> out{Grid::square(r)};
    if (r == 2) out.push_back(Grid{r, 1});
    return out;
}

/// potrf on a distributed copy of a fresh Hermitian positive definite A (lower_only: only the lower tiles stored),
/// posv with a second copy, potrs with the first factor (async: potrf and potrs submitted into one Sequence).
template <typename C>
void check_cholesky(int64_t n, int64_t nb, const Grid& grid, bool lower_only, bool async_form) {
    const uint64_t seed = shared_seed();
    std::mt19937_64 g(seed);
    const int64_t nrhs = n % 2 == 0 ? 1 : 3;
    INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " grid=" << grid_name(grid) << " lower_only=" << lower_only
              << " async=" << async_form << " seed=" << seed << " prec=" << complex_letter<C>());
    const std::vector<C> A = hpd_matrix<C>(n, g);
    const std::vector<C> B = random_block<C>(n, nrhs, g);
    TileMatrix<C> a(runtime(), n, nb, Residency::Host, TileLayout{grid, lower_only});
    REQUIRE(a.distributed());
    a.import(A.data(), n);
    TileMatrix<C> b(runtime(), n, nrhs, nb, Residency::Host, TileLayout{grid, false});
    b.import(B.data(), n);
    std::vector<C> X(B.size());
    if (async_form) {
        Sequence seq(runtime());
        const int op = async::potrf(a, seq, cpu_only());
        async::potrs(a, b, seq, cpu_only());
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
    } else {
        REQUIRE(potrf(a, cpu_only()) == 0);
        potrs(a, b, cpu_only());
    }
    std::vector<C> F(A.size(), C(0));
    a.export_to(F.data(), n);
    const double factor = hermitian_factor_residual(A, F, n);
    b.export_to(X.data(), n);
    const double solve = solve_residual(A, X, B, n, nrhs);
    INFO("potrf residual=" << factor << " potrs residual=" << solve);
    CHECK(factor < kResidualLimit);
    CHECK(solve < kResidualLimit);

    TileMatrix<C> s(runtime(), n, nb, Residency::Host, TileLayout{grid, lower_only});
    TileMatrix<C> b2(runtime(), n, nrhs, nb, Residency::Host, TileLayout{grid, false});
    s.import(A.data(), n);
    b2.import(B.data(), n);
    if (async_form) {
        Sequence seq(runtime());
        const int op = async::posv(s, b2, seq, cpu_only());
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
    } else {
        REQUIRE(posv(s, b2, cpu_only()) == 0);
    }
    b2.export_to(X.data(), n);
    const double posv = solve_residual(A, X, B, n, nrhs);
    INFO("posv residual=" << posv);
    CHECK(posv < kResidualLimit);
}

/// getrf of a distributed copy of A: its residual; with `compare_pivots`, its pivots against one process's and
/// LAPACK's (A's pivots must not depend on rounding: permuted_dominant).
template <typename C>
void check_getrf(const std::vector<C>& A, int64_t n, int64_t nb, const Grid& grid, bool compare_pivots) {
    const DistributedLu<C> lu = distributed_getrf(A, n, nb, grid);
    CHECK(lu.info == 0);
    const double res = getrf_residual(A, lu.LU, lu.ipiv, n);
    INFO("getrf residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(same_on_every_rank(lu.ipiv));
    if (!compare_pivots) return;
    int local_info = -1;
    CHECK(lu.ipiv == local_pivots(A, n, nb, &local_info, grid.p));
    CHECK(local_info == 0);
    const auto [info, lapack] = lapack_getrf(A, n);
    CHECK(info == 0);
    CHECK(lu.ipiv == lapack);
}

/// getrs after getrf, and gesv (blocking or async), on distributed copies of a fresh random A.
template <typename C>
void check_lu_solves(int64_t n, int64_t nrhs, int64_t nb, const Grid& grid, bool async_form) {
    const uint64_t seed = shared_seed();
    std::mt19937_64 g(seed);
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " grid=" << grid_name(grid) << " async=" << async_form
              << " seed=" << seed << " prec=" << complex_letter<C>());
    const std::vector<C> A = random_block<C>(n, n, g);
    const std::vector<C> B = random_block<C>(n, nrhs, g);
    const TileLayout layout{grid, false};
    std::vector<C> X(B.size());
    {
        TileMatrix<C> a(runtime(), n, nb, Residency::Host, layout), b(runtime(), n, nrhs, nb, Residency::Host, layout);
        a.import(A.data(), n);
        b.import(B.data(), n);
        Pivots piv(a);
        if (async_form) {
            Sequence seq(runtime());
            const int op = async::getrf(a, piv, seq, cpu_only());
            async::getrs(a, piv, b, seq, cpu_only());
            CHECK(seq.wait() == 0);
            CHECK(seq.info(op) == 0);
        } else {
            REQUIRE(getrf(a, piv, cpu_only()) == 0);
            getrs(a, piv, b, cpu_only());
        }
        b.export_to(X.data(), n);
        const double res = solve_residual(A, X, B, n, nrhs);
        INFO("getrs residual=" << res);
        CHECK(res < kResidualLimit);
    }
    X = distributed_gesv(A, B, n, nrhs, nb, grid, async_form);
    const double res = solve_residual(A, X, B, n, nrhs);
    INFO("gesv residual=" << res);
    CHECK(res < kResidualLimit);
}

std::string argument_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const InvalidArgument& e) {
        return e.argument();
    }
    return "(no exception)";
}

}  // namespace

TEMPLATE_TEST_CASE("distributed complex potrf, potrs and posv: scaled residuals < 60", "[mpi][complex][cholesky]",
                   std::complex<float>, std::complex<double>) {
    const int64_t nb = 32;
    for (const Grid& grid : grids())
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7}) check_cholesky<TestType>(n, nb, grid, false, false);
    const Grid square = Grid::square(runtime().mpi_size());
    check_cholesky<TestType>(2 * nb + 9, nb, square, true, false);  // only the lower tiles stored
    check_cholesky<TestType>(2 * nb + 3, nb, square, false, true);  // async, one Sequence
}

TEMPLATE_TEST_CASE("distributed complex potrf of a matrix that is not positive definite: its info on every rank",
                   "[mpi][complex][cholesky][info]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 103, nb = 32;
    // The leading minor of order bad + 1 is the first one not positive definite: info = bad + 1, found by the potrf
    // task of whichever rank owns that diagonal tile. The other grids: one index.
    over_breakdowns(grids(), {int64_t(0), nb + 9, 2 * nb + 2, n - 1}, nb + 9,
                    [&](const Grid& grid, int64_t bad, uint64_t seed) {
        std::mt19937_64 g(seed);
        std::vector<C> A = hpd_matrix<C>(n, g);
        A[static_cast<size_t>(bad + bad * n)] = C(-1);
        INFO("grid " << grid_name(grid) << ", negative diagonal entry " << bad << ", on rank "
                     << grid.owner(bad / nb, bad / nb) << ", seed " << seed << ", prec " << complex_letter<C>());
        TileMatrix<C> a(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        a.import(A.data(), n);
        check_info_on_every_rank(potrf(a, cpu_only()), static_cast<int>(bad + 1));
        if (bad != nb + 9) return;
        // posv stops after the factorization, with the same info everywhere, and leaves B as it was.
        TileMatrix<C> s(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        TileMatrix<C> b(runtime(), n, 2, nb, Residency::Host, TileLayout{grid, false});
        s.import(A.data(), n);
        const std::vector<C> B = random_block<C>(n, 2, g);
        b.import(B.data(), n);
        check_info_on_every_rank(posv(s, b, cpu_only()), static_cast<int>(bad + 1));
        std::vector<C> X(B.size());
        b.export_to(X.data(), n);
        CHECK(X == B);
    });
}

TEMPLATE_TEST_CASE("distributed complex getrf: scaled residual < 60, pivots as in one process", "[mpi][complex][lu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t nb = 16;
    for (const Grid& grid : grids())
        for (int64_t n : {int64_t(1), nb - 3, 3 * nb + 5}) {
            const uint64_t seed = shared_seed();
            std::mt19937_64 g(seed);
            INFO("n=" << n << " nb=" << nb << " grid=" << grid_name(grid) << " seed=" << seed
                      << " prec=" << complex_letter<C>());
            // Pivots: a permuted dominant matrix, each step's pivot ahead of the others by a wide margin.
            const std::vector<C> D = permuted_dominant<C>(n, g);
            check_getrf(D, n, nb, grid, true);
            // Residual: a random matrix, whose pivoting is as the data has it.
            const std::vector<C> A = random_block<C>(n, n, g);
            check_getrf(A, n, nb, grid, false);
        }
    const int r = runtime().mpi_size();
    if (r > 2) {  // every tile column over the r ranks
        const uint64_t seed = shared_seed();
        std::mt19937_64 g(seed);
        const int64_t n = 4 * nb + 5;
        INFO("n=" << n << " nb=" << nb << " grid=" << r << "x1 seed=" << seed << " prec=" << complex_letter<C>());
        check_getrf(permuted_dominant<C>(n, g), n, nb, Grid{r, 1}, true);
    }
}

TEMPLATE_TEST_CASE("distributed complex getrs and gesv: solve residuals < 60", "[mpi][complex][lu]",
                   std::complex<float>, std::complex<double>) {
    const int64_t nb = 32;
    for (const Grid& grid : grids()) {
        check_lu_solves<TestType>(nb - 5, 1, nb, grid, false);
        check_lu_solves<TestType>(3 * nb + 3, nb + 7, nb, grid, false);
    }
    check_lu_solves<TestType>(2 * nb + 1, 3, nb, Grid::square(runtime().mpi_size()), true);
}

TEMPLATE_TEST_CASE("distributed complex getrf of a singular matrix: LAPACK's info on every rank",
                   "[mpi][complex][lu][info]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 103, nb = 32;
    // A zero column: U(c, c) is exactly zero, in tiles of different owners; the first one wins. The other grids: one
    // column.
    over_breakdowns(grids(), {int64_t(4), nb + 9, 2 * nb + 2, n - 1}, nb + 9,
                    [&](const Grid& grid, int64_t bad, uint64_t seed) {
        std::mt19937_64 g(seed);
        std::vector<C> A = random_block<C>(n, n, g);
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + bad * n)] = C(0);
        const int expected = lapack_getrf(A, n).first;
        INFO("grid " << grid_name(grid) << ", zero column " << bad << ", LAPACK info " << expected << ", seed "
                     << seed << ", prec " << complex_letter<C>());
        REQUIRE(expected == bad + 1);
        TileMatrix<C> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        tiles.import(A.data(), n);
        Pivots piv(tiles);
        check_info_on_every_rank(getrf(tiles, piv, cpu_only()), expected);
        if (bad != nb + 9) return;
        // gesv stops after the factorization, with the same info everywhere.
        TileMatrix<C> again(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        TileMatrix<C> b(runtime(), n, 2, nb, Residency::Host, TileLayout{grid, false});
        again.import(A.data(), n);
        const std::vector<C> B = random_block<C>(n, 2, g);
        b.import(B.data(), n);
        Pivots piv2(again);
        check_info_on_every_rank(gesv(again, piv2, b, cpu_only()), expected);
    });
}

TEMPLATE_TEST_CASE("distributed complex geqrf, orgqr, ormqr and gels: scaled residuals < 60, every tree",
                   "[mpi][complex][qr]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    namespace cq = starfact::test::complex_qr;
    const double e = starfact::test::eps<C>();
    struct Shape {
        int64_t m, n, nb;
    };
    for (const Grid& grid : grids())
        for (const QrTree& tree : {QrTree{QrTree::Kind::Flat, 0}, QrTree{QrTree::Kind::Binary, 0},
                                   QrTree{QrTree::Kind::Domains, 2}, QrTree{}, QrTree{QrTree::Kind::Panel, 0}})
            for (const Shape& s : {Shape{90, 37, 16}, Shape{37, 61, 16}}) {
                const int64_t m = s.m, n = s.n, nb = s.nb, k = std::min(m, n), rows = std::max(m, n);
                const uint64_t seed = shared_seed();
                std::mt19937_64 g(seed);
                INFO("m=" << m << " n=" << n << " nb=" << nb << " grid=" << grid_name(grid) << " tree=" << tree.name()
                          << " seed=" << seed << " prec=" << complex_letter<C>());
                const std::vector<C> A = random_block<C>(m, n, g), B = random_block<C>(rows, 2, g);
                const TileLayout layout{grid, false};
                TileMatrix<C> a(runtime(), m, n, nb, Residency::Host, layout);
                REQUIRE(a.distributed());
                a.import(A.data(), m);
                QRFactors<C> f(a, tree);
                geqrf(a, f, cpu_only());
                std::vector<C> F(A.size());
                a.export_to(F.data(), m);
                TileMatrix<C> q(runtime(), m, k, nb, Residency::Host, layout);
                orgqr(a, f, q, cpu_only());
                std::vector<C> Q(static_cast<size_t>(m * k));
                q.export_to(Q.data(), m);
                const cq::Mat am(A, m, n), qm(Q, m, k);
                const double qr = cq::qr_residual(am, qm, cq::upper(cq::Mat(F, m, n)), e),
                             orth = cq::orthogonality_residual(qm, e);
                // Q^H A from the left: its first k rows are (the thin Q)^H A
                TileMatrix<C> c(runtime(), m, n, nb, Residency::Host, layout);
                c.import(A.data(), m);
                ormqr(Side::Left, Trans::ConjTranspose, a, f, c, cpu_only());
                std::vector<C> QhA(A.size());
                c.export_to(QhA.data(), m);
                const double applied =
                    cq::product_residual(cq::block(cq::Mat(QhA, m, n), k, n), cq::adjoint(qm) * am, am, m, e);
                INFO("qr=" << qr << " orth=" << orth << " Q^H A=" << applied);
                CHECK(qr < kResidualLimit);
                CHECK(orth < kResidualLimit);
                CHECK(applied < kResidualLimit);

                TileMatrix<C> a2(runtime(), m, n, nb, Residency::Host, layout), b(runtime(), rows, 2, nb,
                                                                                   Residency::Host, layout);
                a2.import(A.data(), m);
                b.import(B.data(), rows);
                QRFactors<C> f2(runtime(), rows, k, nb, tree, 0, grid);  // of A, or of A^H
                REQUIRE(gels(a2, f2, b, cpu_only()) == 0);
                std::vector<C> Xb(B.size());
                b.export_to(Xb.data(), rows);
                const cq::Mat X = cq::block(cq::Mat(Xb, rows, 2), n, 2), bm(B, rows, 2);
                const double ls = m >= n ? cq::gels_residual(am, X, bm, e)
                                         : cq::solve_residual(am, X, cq::block(bm, m, 2), e);
                INFO("gels=" << ls);
                CHECK(ls < kResidualLimit);
            }
}

TEST_CASE("distributed complex: bad grids and data on another grid are refused, naming the argument",
          "[mpi][complex][errors]") {
    using C = std::complex<double>;
    const int r = runtime().mpi_size();
    const int64_t n = 100, nb = 32;
    for (const Grid& g : {Grid{r + 1, 1}, Grid{1, 2 * r}, Grid{0, r}}) {
        INFO("grid " << grid_name(g));
        CHECK(argument_of([&] { TileMatrix<C> a(runtime(), n, nb, Residency::Host, TileLayout{g, false}); }) ==
              "layout");
        CHECK(argument_of([&] { Pivots piv(runtime(), n, nb, g); }) == "grid");
    }
    const Grid grid = Grid::square(r);
    const Grid other = Grid{r, 1} != grid ? Grid{r, 1} : Grid{1, r};
    std::mt19937_64 gen(shared_seed());
    const std::vector<C> A = hpd_matrix<C>(n, gen);
    TileMatrix<C> a(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    a.import(A.data(), n);
    // Right-hand sides over another grid.
    REQUIRE(potrf(a, cpu_only()) == 0);
    TileMatrix<C> b(runtime(), n, 3, nb, Residency::Host, TileLayout{other, false});
    CHECK(argument_of([&] { potrs(a, b, cpu_only()); }) == "B");
    // Pivots of this process alone, or of another grid, for a distributed A; a lower_only A has no U.
    TileMatrix<C> g2(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    g2.import(A.data(), n);
    Pivots local(runtime(), n, nb);
    CHECK(argument_of([&] { getrf(g2, local, cpu_only()); }) == "piv");
    Pivots elsewhere(runtime(), n, nb, other);
    CHECK(argument_of([&] { getrf(g2, elsewhere, cpu_only()); }) == "piv");
    TileMatrix<C> lower(runtime(), n, nb, Residency::Host, TileLayout{grid, true});
    Pivots lower_piv(lower);
    CHECK(argument_of([&] { getrf(lower, lower_piv, cpu_only()); }) == "A");
    Pivots piv(g2);
    REQUIRE(getrf(g2, piv, cpu_only()) == 0);
    CHECK(argument_of([&] { getrs(g2, piv, b, cpu_only()); }) == "B");
    // What the complex factorizations refuse on one process they refuse distributed (the plan's complex rows).
    Options left = cpu_only();
    left.variant = Variant::parse("left");
    CHECK(argument_of([&] { potrf(a, left); }) == "variant");
}
