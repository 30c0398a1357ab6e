// Distributed tile LU (StarPU-MPI), run by ctest under mpirun with 2 and 4 ranks: getrf's scaled residual and its
// pivots against the same factorization in one process, gesv's and getrs' solve residuals, the same LAPACK info on
// every rank for a singular matrix, and the grid checks. Every rank runs every test case in the same order (the
// operations are collective).
#include <mpi.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/mpi.hpp"
#include "tests/lu_support.hpp"
#include "tests/mpi_checks.hpp"
#include "tests/mpi_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::mpi;
using namespace starfact::test::lu;

namespace {

/// The grids a case runs on: the default (most square) one, ranks x 1 (every tile column over every rank: the panel
/// and the interchanges cross the most ranks), and 1 x ranks when it is not the default (a grid of one row keeps a
/// tile column on one rank; 2 ranks cover it, more add nothing to it).
std::vector<Grid> grids() {
    const int r = runtime().mpi_size();
    std::vector<Grid> out{Grid::square(r)};
    if (Grid{r, 1} != out.front()) out.push_back(Grid{r, 1});
    if (Grid{1, r} != out.front() && r == 2) out.push_back(Grid{1, r});
    return out;
}

/// Factors a fresh random matrix distributed over `grid`, gathers the factors and the pivots, checks the scaled
/// residual and that the pivots are those of the same factorization in one process.
template <typename T>
void check_getrf(int64_t n, int64_t nb, const Grid& grid) {
    const uint64_t seed = shared_seed();
    INFO("n=" << n << " nb=" << nb << " grid=" << grid_name(grid) << " seed=" << seed
              << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = random_general<T>(n, n, seed);
    RunStats stats;
    const DistributedLu<T> lu = distributed_getrf(A, n, nb, grid, &stats);
    CHECK(lu.info == 0);
    const double res = lu_residual<T>(n, A.data(), n, lu.LU.data(), n, lu.ipiv);
    INFO("residual=" << res << " tasks on this rank=" << stats.tasks);
    CHECK(res < kResidualLimit);
    int local_info = -1;
    const std::vector<int64_t> expected = local_pivots(A, n, nb, &local_info, grid.p);
    CHECK(local_info == 0);
    CHECK(lu.ipiv == expected);
    CHECK(same_on_every_rank(lu.ipiv));
}

template <typename T>
void check_gesv(int64_t n, int64_t nrhs, int64_t nb, const Grid& grid, bool async_form) {
    const uint64_t seed = shared_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " grid=" << grid_name(grid) << " async=" << async_form
              << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = random_general<T>(n, n, seed);
    std::vector<T> B(static_cast<size_t>(n * nrhs));
    random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
    const std::vector<T> X = distributed_gesv(A, B, n, nrhs, nb, grid, async_form);
    const double res = general_solve_residual<T>(n, nrhs, A.data(), X.data(), B.data());
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
}

}  // namespace

TEMPLATE_TEST_CASE("distributed getrf: scaled residual < 60, pivots as in one process", "[mpi][lu][getrf]", float,
                   double) {
    const int64_t nb = 32;
    for (const Grid& grid : grids())
        for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7}) check_getrf<TestType>(n, nb, grid);
    check_getrf<TestType>(5 * nb + 13, nb, Grid::square(runtime().mpi_size()));
}

TEMPLATE_TEST_CASE("distributed gesv: solve residual < 60", "[mpi][lu][gesv]", float, double) {
    const int64_t nb = 32;
    for (const Grid& grid : grids()) {
        check_gesv<TestType>(nb - 5, 1, nb, grid, false);
        check_gesv<TestType>(3 * nb + 3, nb + 7, nb, grid, false);
    }
    check_gesv<TestType>(2 * nb + 1, 3, nb, Grid::square(runtime().mpi_size()), true);
}

TEST_CASE("distributed getrs with the factors of getrf, twice", "[mpi][lu][getrs]") {
    // Two solves with the same factors: the second reads tiles and pivots StarPU-MPI already sent (its cache).
    const int64_t n = 157, nb = 24;
    const Grid grid = Grid::square(runtime().mpi_size());
    const uint64_t seed = shared_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = random_general<double>(n, n, seed);
    TileMatrix<double> a(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    a.import(A.data(), n);
    Pivots piv(a);
    REQUIRE(getrf(a, piv, cpu_only()) == 0);
    for (int64_t nrhs : {int64_t(2), int64_t(30)}) {
        std::vector<double> B(static_cast<size_t>(n * nrhs)), X(B.size());
        random_matrix<double>(n, nrhs, B.data(), n, seed + static_cast<uint64_t>(nrhs));
        TileMatrix<double> b(runtime(), n, nrhs, nb, Residency::Host, TileLayout{grid, false});
        b.import(B.data(), n);
        getrs(a, piv, b, cpu_only());
        b.export_to(X.data(), n);
        const double res = general_solve_residual<double>(n, nrhs, A.data(), X.data(), B.data());
        INFO("nrhs=" << nrhs << " residual=" << res);
        CHECK(res < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("distributed getrf of a singular matrix: LAPACK's info on every rank", "[mpi][lu][info]", float,
                   double) {
    const int64_t n = 103, nb = 32;
    const Grid square = Grid::square(runtime().mpi_size());
    // A zero column: U(c, c) is exactly zero, in tiles of different owners; the first one wins. The other grids: one
    // column.
    over_breakdowns(grids(), {int64_t(4), nb + 9, 2 * nb + 2, n - 1}, nb + 9,
                [&](const Grid& grid, int64_t bad, uint64_t seed) {
        std::vector<TestType> A = random_general<TestType>(n, n, seed);
        for (int64_t i = 0; i < n; ++i) A[i + bad * n] = TestType(0);
        std::vector<TestType> ref(A);
        std::vector<int> ref_piv(static_cast<size_t>(n));
        const int expected = starfact::test::lu::lapack_getrf<TestType>(static_cast<int>(n), ref.data(),
                                                                         static_cast<int>(n), ref_piv.data());
        INFO("grid " << grid_name(grid) << ", zero column " << bad << ", panel on rank "
                     << grid.owner(bad / nb, bad / nb) << ", LAPACK info " << expected << ", seed " << seed);
        REQUIRE(expected == bad + 1);
        TileMatrix<TestType> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        tiles.import(A.data(), n);
        Pivots piv(tiles);
        check_info_on_every_rank(getrf(tiles, piv, cpu_only()), expected);
        // gesv stops after the factorization, with the same info everywhere.
        if (grid != square || bad != n - 1) return;
        TileMatrix<TestType> again(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        TileMatrix<TestType> b(runtime(), n, 2, nb, Residency::Host, TileLayout{grid, false});
        again.import(A.data(), n);
        std::vector<TestType> B(static_cast<size_t>(2 * n), TestType(1));
        b.import(B.data(), n);
        Pivots piv2(again);
        CHECK(gesv(again, piv2, b, cpu_only()) == expected);
    });
}

TEST_CASE("distributed getrf: broadcast trees and row exchanges leave the factor as direct sends and tiles do",
          "[mpi][lu][getrf][trees]") {
    // On 1 x r and r x 1 grids (r = 4: three ranks read each L tile along a grid row, or each U tile and diagonal tile
    // along a grid column, so the copies go along a chain, algorithms/tile_broadcast.hpp, every rank taken for a
    // node of its own): the same factor and pivots, bit for bit, with STARFACT_BROADCAST=direct and
    // STARFACT_LU_EXCHANGE=tiles (the tiles' own sends and the tile-by-tile exchange); and the pivots of one process
    // split as for the grid's rows.
    const int r = runtime().mpi_size();
    const int64_t nb = 16, n = 6 * nb + 5;
    for (const Grid& grid : {Grid{1, r}, Grid{r, 1}}) {
        const uint64_t seed = shared_seed();
        INFO("grid " << grid_name(grid) << " seed " << seed);
        const std::vector<double> A = random_general<double>(n, n, seed);
        const int64_t before = starfact::detail::mpi_forwards_received().load();
        starfact::detail::each_rank_a_node_for_tests() = true;  // as with one rank per node
        const DistributedLu<double> trees = distributed_getrf(A, n, nb, grid);
        starfact::detail::each_rank_a_node_for_tests() = false;
        int64_t forwards = starfact::detail::mpi_forwards_received().load() - before, all = 0;
        ::setenv("STARFACT_BROADCAST", "direct", 1);
        const DistributedLu<double> sends = distributed_getrf(A, n, nb, grid);
        ::setenv("STARFACT_LU_EXCHANGE", "tiles", 1);
        const DistributedLu<double> direct = distributed_getrf(A, n, nb, grid);
        ::unsetenv("STARFACT_BROADCAST");
        ::unsetenv("STARFACT_LU_EXCHANGE");
        MPI_Allreduce(&forwards, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);  // the chains' messages, all ranks
        CHECK((all > 0) == (r >= 4));  // three readers or more
        CHECK(sends.LU == trees.LU);
        CHECK(trees.info == 0);
        CHECK(direct.info == 0);
        CHECK(trees.ipiv == direct.ipiv);
        CHECK(trees.LU == direct.LU);
        CHECK(lu_residual<double>(n, A.data(), n, trees.LU.data(), n, trees.ipiv) < kResidualLimit);
        int local_info = -1;
        CHECK(trees.ipiv == local_pivots(A, n, nb, &local_info, grid.p));
    }
}

TEST_CASE("distributed getrf_nopiv of a diagonally dominant matrix", "[mpi][lu][getrf]") {
    const int64_t n = 131, nb = 32;
    for (const Grid& grid : grids()) {
        const uint64_t seed = shared_seed();
        INFO("grid " << grid_name(grid) << " seed " << seed);
        std::vector<double> A = random_general<double>(n, n, seed);
        for (int64_t i = 0; i < n; ++i) A[i + i * n] += double(n);
        TileMatrix<double> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        tiles.import(A.data(), n);
        CHECK(getrf_nopiv(tiles, cpu_only()) == 0);
        std::vector<double> LU(A);
        tiles.export_to(LU.data(), n);
        std::vector<int64_t> identity(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) identity[static_cast<size_t>(i)] = i + 1;
        CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, identity) < kResidualLimit);
    }
}

TEST_CASE("distributed LU: bad grids and mismatched data are rejected, naming the argument", "[mpi][lu][errors]") {
    const int r = runtime().mpi_size();
    const int64_t n = 100, nb = 32;
    for (const Grid& g : {Grid{r + 1, 1}, Grid{1, 2 * r}, Grid{0, r}}) {
        INFO("grid " << grid_name(g));
        try {
            Pivots piv(runtime(), n, nb, g);
            FAIL("no exception");
        } catch (const InvalidArgument& e) {
            CHECK(e.argument() == "grid");
        }
    }
    const Grid grid = Grid::square(r);
    TileMatrix<double> a(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    const std::vector<double> A = random_general<double>(n, n, 7);
    a.import(A.data(), n);
    auto argument_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(no exception)";
    };
    // Pivots of this process alone, or of another grid, for a distributed A.
    Pivots local(runtime(), n, nb);
    CHECK(argument_of([&] { getrf(a, local, cpu_only()); }) == "piv");
    Pivots other(runtime(), n, nb, Grid{r, 1} != grid ? Grid{r, 1} : Grid{1, r});
    CHECK(argument_of([&] { getrf(a, other, cpu_only()); }) == "piv");
    // A lower_only matrix has no U.
    TileMatrix<double> lower(runtime(), n, nb, Residency::Host, TileLayout{grid, true});
    Pivots piv(lower);
    CHECK(argument_of([&] { getrf(lower, piv, cpu_only()); }) == "A");
    // Right-hand sides over another grid.
    Pivots pa(a);
    REQUIRE(getrf(a, pa, cpu_only()) == 0);
    TileMatrix<double> b(runtime(), n, 3, nb, Residency::Host, TileLayout{Grid{r, 1} != grid ? Grid{r, 1} : Grid{1, r}});
    CHECK(argument_of([&] { getrs(a, pa, b, cpu_only()); }) == "B");
}

TEST_CASE("ranks that factor different matrices get an error naming it on every rank", "[mpi][lu][agree]") {
    const int r = runtime().mpi_size();
    const bool last = runtime().mpi_rank() == r - 1;
    const int64_t n = 96, nb = 32;
    const Grid grid = Grid::square(r);
    TileMatrix<double> a(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    TileMatrix<double> a2(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    Pivots piv(a);
    try {
        getrf(last ? a2 : a, piv, cpu_only());
        FAIL("no exception on rank " << runtime().mpi_rank());
    } catch (const RuntimeError& e) {
        CHECK_THAT(e.what(), Catch::Contains("starfact::getrf: ranks disagree on A ("));
    }
    // They still work together afterwards.
    const uint64_t seed = shared_seed();
    const std::vector<double> A = random_general<double>(n, n, seed);
    a.import(A.data(), n);
    CHECK(getrf(a, piv, cpu_only()) == 0);
    std::vector<double> LU(A);
    a.export_to(LU.data(), n);
    CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, piv.ipiv()) < kResidualLimit);
}
