// Distributed tile Householder QR (StarPU-MPI), run by ctest under mpirun with 2 and 4 ranks: geqrf over every tree
// that runs distributed (its scaled residuals on the gathered factors, and R as the same tree's in one process),
// ormqr from both sides, gels (least squares and minimum norm), the Cholesky QR with its Gram matrices summed across
// the ranks (two and three passes, the submit form), the same info and breakdown on every rank, and the refusals.
// Every rank runs every test case in the same order (the operations are collective).
#include <mpi.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/qr_dag.hpp"
#include "algorithms/qr_fallback.hpp"
#include "runtime/sequence_state.hpp"
#include "tests/mpi_support.hpp"
#include "tests/qr_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::mpi;
using namespace starfact::test::qr;

namespace {

/// Two ranks: 1 x 2 (a tile column on one rank) and 2 x 1 (every tile column over both); four: 2 x 2.
std::vector<Grid> grids() {
    const int r = runtime().mpi_size();
    if (r == 2) return {Grid{1, 2}, Grid{2, 1}};
    return {Grid::square(r)};
}

/// The trees that run distributed: flat and binary as in one process (StarPU-MPI moves the tiles), domains of two
/// tile rows within each grid row (the hierarchical tree), auto (one domain per grid row), and the panel tree (each
/// panel gathered on the rank of its diagonal tile, the updates owner computes).
std::vector<QrTree> trees() {
    return {QrTree{QrTree::Kind::Flat, 0}, QrTree{QrTree::Kind::Binary, 0}, QrTree{QrTree::Kind::Domains, 2},
            QrTree{}, QrTree{QrTree::Kind::Panel, 0}};
}

const char* prec(double) { return "d"; }
const char* prec(float) { return "s"; }

/// The largest distance in units in the last place between the upper trapezoids (R) of two m x n factorizations.
template <typename T>
int64_t r_ulps(int64_t m, int64_t n, const std::vector<T>& X, const std::vector<T>& Y) {
    int64_t worst = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i) {
            T x = X[static_cast<size_t>(i + j * m)], y = Y[static_cast<size_t>(i + j * m)];
            int64_t d = 0;
            while (x != y && d < 1000) {  // (small distances: a step at a time)
                x = std::nextafter(x, y);
                ++d;
            }
            worst = std::max(worst, d);
        }
    return worst;
}

/// The same factorization in this process alone (a 1 x 1 grid): the plan the distributed call ran, its rows grouped
/// as the distributed tree groups them (QRFactors::row_cycle).
template <typename T>
std::vector<T> local_factorization(const std::vector<T>& A, int64_t m, int64_t n, int64_t nb, const Plan& plan,
                                   int64_t row_cycle) {
    TileMatrix<T> local(runtime(), m, n, nb);
    local.import(A.data(), m);
    QRFactors<T> f(runtime(), m, n, nb, plan.tree);
    {
        Sequence seq(runtime());
        detail::submit_geqrf_dag(local, f, cpu_only(), plan, nullptr, &detail::SequenceAccess::state(seq), nullptr,
                                 row_cycle);
        REQUIRE(seq.wait() == 0);
    }
    std::vector<T> out(A.size());
    local.export_to(out.data(), m);
    return out;
}

/// geqrf of a fresh random m x n matrix distributed over `grid`: ||A - Q R|| and ||I - Q^T Q|| on the gathered
/// factors (Q from orgqr on the grid: Q [I; 0]), R as in one process, Q^T A = [R; 0] and A^T Q = [R^T 0] by ormqr
/// from both sides, and (A^T Q) Q^T = A^T (`apply`; else geqrf and orgqr only).
template <typename T>
void check_geqrf(int64_t m, int64_t n, int64_t nb, const Grid& grid, const QrTree& tree, bool apply = true) {
    const uint64_t seed = shared_seed();
    INFO("m=" << m << " n=" << n << " nb=" << nb << " grid=" << grid_name(grid) << " tree=" << tree.name()
              << " seed=" << seed << " prec=" << prec(T{}));
    const Options opts = cpu_only();
    const TileLayout layout{grid, false};
    const int64_t k = std::min(m, n);
    const std::vector<T> A = random_rect<T>(m, n, m, seed);
    TileMatrix<T> a(runtime(), m, n, nb, Residency::Host, layout);
    REQUIRE(a.distributed());
    a.import(A.data(), m);
    QRFactors<T> f(a, tree);
    REQUIRE(f.distributed());
    const Plan plan = detail::qr_plan_for(a, f, opts, detail::plan_qr_tiles(f, opts));
    RunStats stats;
    geqrf(a, f, opts, stats);
    CHECK(f.breakdown() == QrBreakdown::None);
    INFO("tree run=" << plan.tree.name() << " row cycle=" << f.row_cycle() << " tasks on this rank=" << stats.tasks);
    CHECK(f.row_cycle() == (plan.tree.kind == QrTree::Kind::Domains ? grid.p : 1));
    std::vector<T> QR(A.size());
    a.export_to(QR.data(), m);

    TileMatrix<T> q(runtime(), m, k, nb, Residency::Host, layout);
    orgqr(a, f, q, opts);
    std::vector<T> Q(static_cast<size_t>(m * k));
    q.export_to(Q.data(), m);
    const double orth = orthogonality_residual<T>(m, k, Q.data(), m);
    const double res = qr_residual<T>(m, n, A.data(), m, Q.data(), m, QR.data(), m);
    INFO("||A - QR||=" << res << " ||I - Q^T Q||=" << orth);
    CHECK(res < kResidualLimit);
    CHECK(orth < kResidualLimit);

    // R as the same tree's in one process: the same kernels on the same tiles in the same order.
    const std::vector<T> reference = local_factorization(A, m, n, nb, plan, f.row_cycle());
    CHECK(r_ulps(m, n, QR, reference) <= 4);
    if (!apply) return;

    // Q^T A = [R; 0] (from the left) and A^T Q = [R^T 0] (from the right), against the factorization's R.
    std::vector<T> R(static_cast<size_t>(m * n), T(0)), Rt(static_cast<size_t>(n * m), T(0));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i) {
            R[static_cast<size_t>(i + j * m)] = QR[static_cast<size_t>(i + j * m)];
            Rt[static_cast<size_t>(j + i * n)] = QR[static_cast<size_t>(i + j * m)];
        }
    TileMatrix<T> c(runtime(), m, n, nb, Residency::Host, layout);
    c.import(A.data(), m);
    ormqr(Side::Left, Trans::Transpose, a, f, c, opts);
    std::vector<T> QtA(A.size());
    c.export_to(QtA.data(), m);
    std::vector<T> At(static_cast<size_t>(n * m));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) At[static_cast<size_t>(j + i * n)] = A[static_cast<size_t>(i + j * m)];
    TileMatrix<T> ct(runtime(), n, m, nb, Residency::Host, layout);
    ct.import(At.data(), n);
    ormqr(Side::Right, Trans::NoTrans, a, f, ct, opts);
    std::vector<T> AtQ(At.size());
    ct.export_to(AtQ.data(), n);
    // ||Q^T A - [R; 0]||_1 / (||A||_1 m eps), ||A^T Q - [R^T 0]||_1 / (||A||_1 m eps).
    auto diff1 = [](int64_t rows, int64_t cols, const T* X, const T* Y) {
        std::vector<double> D(static_cast<size_t>(rows * cols));
        for (size_t i = 0; i < D.size(); ++i) D[i] = double(X[i]) - double(Y[i]);
        return one_norm(rows, cols, D.data(), rows);
    };
    const double scale = one_norm(m, n, A.data(), m) * double(m) * std::numeric_limits<T>::epsilon();
    const double qta = diff1(m, n, QtA.data(), R.data()) / scale;
    const double atq = diff1(n, m, AtQ.data(), Rt.data()) / scale;
    INFO("||Q^T A - [R; 0]||=" << qta << " ||A^T Q - [R^T 0]||=" << atq);
    CHECK(qta < kResidualLimit);
    CHECK(atq < kResidualLimit);

    // And back from the right: [R^T 0] Q^T = A^T.
    ormqr(Side::Right, Trans::Transpose, a, f, ct, opts);
    std::vector<T> At2(At.size());
    ct.export_to(At2.data(), n);
    const double back = scaled_difference(n, m, At2.data(), n, At.data(), n);
    INFO("||(A^T Q) Q^T - A^T||=" << back);
    CHECK(back < kResidualLimit);
}

/// gels of a fresh random m x n A and B (max(m, n) x nrhs) distributed over `grid`: the normal equations' residual
/// (m >= n) or the system's (m < n, the minimum-norm solution).
template <typename T>
void check_gels(int64_t m, int64_t n, int64_t nrhs, int64_t nb, const Grid& grid, const QrTree& tree, bool async_form) {
    const uint64_t seed = shared_seed();
    INFO("gels m=" << m << " n=" << n << " nrhs=" << nrhs << " nb=" << nb << " grid=" << grid_name(grid)
                   << " tree=" << tree.name() << " async=" << async_form << " seed=" << seed << " prec=" << prec(T{}));
    const int64_t rows = std::max(m, n);
    const TileLayout layout{grid, false};
    const std::vector<T> A = random_rect<T>(m, n, m, seed);
    std::vector<T> B = random_rect<T>(rows, nrhs, rows, seed + 1);
    TileMatrix<T> a(runtime(), m, n, nb, Residency::Host, layout), b(runtime(), rows, nrhs, nb, Residency::Host, layout);
    a.import(A.data(), m);
    b.import(B.data(), rows);
    QRFactors<T> f(runtime(), rows, std::min(m, n), nb, tree, 0, grid);  // m < n: A^T's
    if (async_form) {
        Sequence seq(runtime());
        const int op = async::gels(a, f, b, seq, cpu_only());
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
    } else {
        CHECK(gels(a, f, b, cpu_only()) == 0);
    }
    std::vector<T> X(B.size());
    b.export_to(X.data(), rows);
    const double res = m >= n ? normal_equations_residual(m, n, nrhs, A.data(), m, X.data(), rows, B.data(), rows)
                              : system_residual(m, n, nrhs, A.data(), m, X.data(), rows, B.data(), rows);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
}

}  // namespace

TEMPLATE_TEST_CASE("distributed geqrf: residuals < 60 and R as in one process, every tree", "[mpi][qr][geqrf]", float,
                   double) {
    // (four ranks on a small machine: ormqr with the hierarchical trees only, which two ranks cover for every tree)
    const bool every = runtime().mpi_size() == 2;
    for (const Grid& grid : grids())
        for (const QrTree& tree : trees())
            check_geqrf<TestType>(203, 117, 32, grid, tree, every || tree.kind == QrTree::Kind::Domains ||
                                                               tree.kind == QrTree::Kind::Auto ||
                                                               tree.kind == QrTree::Kind::Panel);
    // Wide (and one tile row short), or one tile column: the hierarchical tree of the square grid, a shape per
    // precision.
    const Grid square = Grid::square(runtime().mpi_size());
    if (std::is_same_v<TestType, float>) check_geqrf<TestType>(70, 150, 32, square, QrTree{});
    else check_geqrf<TestType>(100, 20, 32, square, QrTree{QrTree::Kind::Domains, 1});
}

TEMPLATE_TEST_CASE("distributed Cholesky QR: residuals < 60 and R as in one process, the Gram sums across ranks",
                   "[mpi][qr][cholqr]", float, double) {
    const QrTree cholqr{QrTree::Kind::Cholqr, 0};
    // 16 tiles of 64 rows (37 columns) over every grid: on 2 x 1 the tiles alternate between the ranks, on 1 x 2 one
    // rank owns the column; one column in 13 tiles of 8 rows on the square grid.
    for (const Grid& grid : grids()) check_geqrf<TestType>(1001, 37, 64, grid, cholqr);
    const Grid square = Grid::square(runtime().mpi_size());
    check_geqrf<TestType>(97, 1, 8, square, cholqr, false);
    // (the submit form on a grid whose tile column spans the ranks: a random matrix, which the blocking form factors
    // in two passes, takes three on every rank)
    check_gels<TestType>(777, 29, 3, 32, square, cholqr, false);
    check_gels<TestType>(301, 30, 2, 32, grids().back(), cholqr, true);
}

TEST_CASE("distributed Cholesky QR: three passes at cond 1e10, the submit form, a zero column on every rank",
          "[mpi][qr][cholqr]") {
    const int64_t m = 1200, n = 40, nb = 64;
    const QrTree cholqr{QrTree::Kind::Cholqr, 0};
    for (const Grid& grid : grids()) {
        const uint64_t seed = shared_seed();
        INFO("grid " << grid_name(grid) << " seed " << seed);
        const TileLayout layout{grid, false};
        const std::vector<double> A = conditioned(m, n, 1e10, seed);
        auto residuals = [&](TileMatrix<double>& a, QRFactors<double>& f) {
            std::vector<double> QR(A.size()), Q(A.size());
            a.export_to(QR.data(), m);
            TileMatrix<double> q(runtime(), m, n, nb, Residency::Host, layout);
            orgqr(a, f, q, cpu_only());
            q.export_to(Q.data(), m);
            const double orth = orthogonality_residual<double>(m, n, Q.data(), m);
            const double res = qr_residual<double>(m, n, A.data(), m, Q.data(), m, QR.data(), m);
            INFO("||A - QR||=" << res << " ||I - Q^T Q||=" << orth);
            CHECK(res < kResidualLimit);
            CHECK(orth < kResidualLimit);
        };
        // The blocking form: the second pass does not orthogonalise at cond 1e10, its rank tells the others, and
        // every rank runs the third.
        TileMatrix<double> a(runtime(), m, n, nb, Residency::Host, layout);
        a.import(A.data(), m);
        QRFactors<double> f(a, cholqr);
        RunStats stats;
        geqrf(a, f, cpu_only(), stats);
        if (runtime().mpi_rank() == a.owner(0, 0)) CHECK(stats.qr_passes == 3);
        residuals(a, f);
        // The submit form (every rank runs three passes: nobody waits for the second one's decision).
        a.import(A.data(), m);
        {
            Sequence seq(runtime());
            async::geqrf(a, f, seq, cpu_only());
            CHECK(seq.wait() == 0);
        }
        residuals(a, f);
        // A matrix whose second pass leaves Q^T Q - I at 0.05: two passes in the blocking form, decided on the first
        // tile's rank for all; three in the submit form. A rank that ran a pass the others skipped would leave its
        // tiles off by that much.
        const std::vector<double> B = two_level(m, n, two_level_small(m, n, 0.05), seed + 2);
        for (const bool submit : {false, true}) {
            INFO("two-level matrix, submit form " << submit);
            a.import(B.data(), m);
            if (submit) {
                Sequence seq(runtime());
                async::geqrf(a, f, seq, cpu_only());
                CHECK(seq.wait() == 0);
            } else {
                RunStats two;
                geqrf(a, f, cpu_only(), two);
                if (runtime().mpi_rank() == a.owner(0, 0)) CHECK(two.qr_passes == 2);
            }
            std::vector<double> QR(B.size()), Q(B.size());
            a.export_to(QR.data(), m);
            TileMatrix<double> q(runtime(), m, n, nb, Residency::Host, layout);
            orgqr(a, f, q, cpu_only());
            q.export_to(Q.data(), m);
            CHECK(orthogonality_residual<double>(m, n, Q.data(), m) < kResidualLimit);
            CHECK(qr_residual<double>(m, n, B.data(), m, Q.data(), m, QR.data(), m) < kResidualLimit);
        }
        // A zero column: the same info and breakdown on every rank, in both forms.
        std::vector<double> Z = random_rect<double>(m, n, m, seed + 1);
        for (int64_t i = 0; i < m; ++i) Z[static_cast<size_t>(i + 23 * m)] = 0.0;
        a.import(Z.data(), m);
        try {
            geqrf(a, f, cpu_only());
            FAIL("no exception on rank " << runtime().mpi_rank());
        } catch (const InvalidArgument& e) {
            CHECK(e.argument() == "A");
        }
        for (int kind : gather_all(static_cast<int>(f.breakdown()))) {
            CHECK(kind == static_cast<int>(f.breakdown()));
            CHECK(kind != static_cast<int>(QrBreakdown::None));
        }
        a.import(Z.data(), m);
        Sequence seq(runtime());
        async::geqrf(a, f, seq, cpu_only());
        const int info = seq.wait();
        CHECK(info > 0);
        for (int i : gather_all(info)) CHECK(i == info);
    }
}

TEMPLATE_TEST_CASE("distributed gels: least squares and minimum norm, residual < 60", "[mpi][qr][gels]", float,
                   double) {
    for (const Grid& grid : grids()) check_gels<TestType>(203, 117, 5, 32, grid, QrTree{}, false);
    const Grid square = Grid::square(runtime().mpi_size());
    check_gels<TestType>(150, 61, 2, 32, square, QrTree{QrTree::Kind::Binary, 0}, true);
    check_gels<TestType>(61, 150, 3, 32, square, QrTree{}, false);  // the minimum-norm solution
}

TEMPLATE_TEST_CASE("distributed QR breakdowns: the same info and reason on every rank", "[mpi][qr][info]", float,
                   double) {
    const int64_t m = 150, n = 100, nb = 32;
    const Grid square = Grid::square(runtime().mpi_size());
    for (const Grid& grid : grids())
        for (int64_t bad : {nb + 9, n - 1}) {
            const uint64_t seed = shared_seed();
            INFO("grid " << grid_name(grid) << " column " << bad << " seed " << seed);
            // NaN in column `bad`: R is not finite from there on, found by the checks of R's tile columns on the ranks
            // owning their tiles (several ranks find a column: the first one wins on every rank).
            std::vector<TestType> A = random_rect<TestType>(m, n, m, seed);
            A[static_cast<size_t>(m / 2 + bad * m)] = std::numeric_limits<TestType>::quiet_NaN();
            TileMatrix<TestType> a(runtime(), m, n, nb, Residency::Host, TileLayout{grid, false});
            a.import(A.data(), m);
            QRFactors<TestType> f(a);
            if (bad == nb + 9) {
                Sequence seq(runtime());
                async::geqrf(a, f, seq, cpu_only());
                const int info = seq.wait();
                CHECK(info == bad + 1);
                for (int i : gather_all(info)) CHECK(i == info);
                for (int kind : gather_all(static_cast<int>(f.breakdown())))
                    CHECK(kind == static_cast<int>(QrBreakdown::NotFinite));
                CHECK(f.breakdown_column() == bad + 1);
                continue;
            }
            if (grid != square) continue;
            // The blocking form throws on every rank, naming A.
            try {
                geqrf(a, f, cpu_only());
                FAIL("no exception");
            } catch (const InvalidArgument& e) {
                CHECK(e.argument() == "A");
            }
            for (int kind : gather_all(static_cast<int>(f.breakdown())))
                CHECK(kind == static_cast<int>(QrBreakdown::NotFinite));
            // A zero column: gels finds R(bad, bad) exactly zero, on the rank owning that diagonal tile.
            std::vector<TestType> Z = random_rect<TestType>(m, n, m, seed + 1);
            for (int64_t i = 0; i < m; ++i) Z[static_cast<size_t>(i + bad * m)] = TestType(0);
            TileMatrix<TestType> z(runtime(), m, n, nb, Residency::Host, TileLayout{grid, false});
            TileMatrix<TestType> b(runtime(), m, 2, nb, Residency::Host, TileLayout{grid, false});
            z.import(Z.data(), m);
            const std::vector<TestType> B(static_cast<size_t>(2 * m), TestType(1));
            b.import(B.data(), m);
            QRFactors<TestType> g(z);
            const int gels_info = gels(z, g, b, cpu_only());
            CHECK(gels_info == bad + 1);
            for (int i : gather_all(gels_info)) CHECK(i == gels_info);
            for (int kind : gather_all(static_cast<int>(g.breakdown())))
                CHECK(kind == static_cast<int>(QrBreakdown::ZeroDiagonal));
        }
}

TEST_CASE("distributed QR: bad grids and trees are refused on every rank, naming the argument", "[mpi][qr][errors]") {
    const int r = runtime().mpi_size();
    const int64_t m = 100, n = 60, nb = 32;
    const Grid grid = Grid::square(r), other = Grid{r, 1} != grid ? Grid{r, 1} : Grid{1, r};
    auto argument_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(no exception)";
    };
    TileMatrix<double> a(runtime(), m, n, nb, Residency::Host, TileLayout{grid, false});
    const std::vector<double> A = random_rect<double>(m, n, m, 11);
    a.import(A.data(), m);
    // Factors of one process, or of another grid, for a distributed A.
    QRFactors<double> local(runtime(), m, n, nb);
    CHECK(argument_of([&] { geqrf(a, local, cpu_only()); }) == "T");
    QRFactors<double> elsewhere(runtime(), m, n, nb, QrTree{}, 0, other);
    CHECK(argument_of([&] { geqrf(a, elsewhere, cpu_only()); }) == "T");
    // The Cholesky QR that falls back to a tree runs on one process; the Cholesky QR factors one tile column.
    CHECK(argument_of([&] { QRFactors<double> f(a, QrTree{QrTree::Kind::Cholqr, 0, true}); }) == "tree");
    QRFactors<double> wide(a, QrTree{QrTree::Kind::Cholqr, 0});
    CHECK(argument_of([&] { geqrf(a, wide, cpu_only()); }) == "tree");
    // A grid that is not the rank count.
    CHECK(argument_of([&] { QRFactors<double> f(runtime(), m, n, nb, QrTree{}, 0, Grid{r + 1, 1}); }) == "grid");
    // C, Q and B on another grid (or on one process) than A.
    QRFactors<double> f(a);
    geqrf(a, f, cpu_only());
    TileMatrix<double> c_other(runtime(), m, 2, nb, Residency::Host, TileLayout{other, false});
    TileMatrix<double> c_local(runtime(), m, 2, nb);
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::Transpose, a, f, c_other, cpu_only()); }) == "C");
    CHECK(argument_of([&] { ormqr(Side::Left, Trans::NoTrans, a, f, c_local, cpu_only()); }) == "C");
    TileMatrix<double> q_other(runtime(), m, n, nb, Residency::Host, TileLayout{other, false});
    CHECK(argument_of([&] { orgqr(a, f, q_other, cpu_only()); }) == "Q");
    TileMatrix<double> b_other(runtime(), m, 2, nb, Residency::Host, TileLayout{other, false});
    CHECK(argument_of([&] { gels(a, f, b_other, cpu_only()); }) == "B");
    // They still work together afterwards.
    TileMatrix<double> b(runtime(), m, 2, nb, Residency::Host, TileLayout{grid, false});
    const std::vector<double> B = random_rect<double>(m, 2, m, 12);
    b.import(B.data(), m);
    a.import(A.data(), m);
    CHECK(gels(a, f, b, cpu_only()) == 0);
    std::vector<double> X(B.size());
    b.export_to(X.data(), m);
    CHECK(normal_equations_residual(m, n, 2, A.data(), m, X.data(), m, B.data(), m) < kResidualLimit);
}

TEST_CASE("ranks that factor different matrices get an error naming it on every rank", "[mpi][qr][agree]") {
    const int r = runtime().mpi_size();
    const bool last = runtime().mpi_rank() == r - 1;
    const Grid grid = Grid::square(r);
    TileMatrix<double> a(runtime(), 96, 64, 32, Residency::Host, TileLayout{grid, false});
    TileMatrix<double> a2(runtime(), 96, 64, 32, Residency::Host, TileLayout{grid, false});
    QRFactors<double> f(a);
    try {
        geqrf(last ? a2 : a, f, cpu_only());
        FAIL("no exception on rank " << runtime().mpi_rank());
    } catch (const RuntimeError& e) {
        CHECK_THAT(e.what(), Catch::Contains("starfact::geqrf: ranks disagree on A ("));
    }
}
