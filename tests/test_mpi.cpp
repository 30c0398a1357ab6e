// Distributed tile Cholesky (StarPU-MPI), run by ctest under mpirun with 2 and 4 ranks: residuals of potrf and
// posv on tiles spread 2D block-cyclically, the same LAPACK info on every rank for a matrix that is not SPD,
// the grid checks. Every rank runs every test case in the same order (the operations are collective).
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>

#include <memory>

#include "tests/support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

using namespace starfact::test::prelude;

namespace {

/// A fresh seed, the same on every rank (rank 0's).
uint64_t shared_seed() {
    uint64_t seed = fresh_seed();
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return seed;
}

/// Every rank's value of x, in rank order.
std::vector<int> gather_all(int x) {
    std::vector<int> all(static_cast<size_t>(runtime().mpi_size()));
    MPI_Allgather(&x, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    return all;
}

/// The grids a case runs on: the default (most square) one, and 1 x ranks and ranks x 1 when different.
std::vector<Grid> grids() {
    const int r = runtime().mpi_size();
    std::vector<Grid> out{Grid::square(r)};
    for (const Grid& g : {Grid{1, r}, Grid{r, 1}})
        if (g != out.front()) out.push_back(g);
    return out;
}

std::string grid_name(const Grid& g) { return std::to_string(g.p) + "x" + std::to_string(g.q); }

/// Factors a fresh SPD matrix distributed over `grid`, gathers the factor, checks the scaled residual.
template <typename T>
void check_potrf(int64_t n, int64_t nb, const Grid& grid, const Variant& variant, bool lower_only) {
    const uint64_t seed = shared_seed();
    INFO("n=" << n << " nb=" << nb << " grid=" << grid_name(grid) << " variant=" << variant.name()
              << " lower_only=" << lower_only << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    TileMatrix<T> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, lower_only});
    REQUIRE(tiles.distributed());
    tiles.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.variant = variant;
    RunStats stats;
    const int info = potrf(tiles, opts, stats);
    CHECK(info == 0);
    std::vector<T> L(A);  // the strictly upper tiles keep A's entries when lower_only: the check reads the lower part
    tiles.export_to(L.data(), n);
    const double res = potrf_residual<T>(n, A.data(), n, L.data(), n);
    INFO("residual=" << res << " tasks on this rank=" << stats.tasks);
    CHECK(res < kResidualLimit);
    // Owner computes: each rank ran only its own tasks, and together they ran the whole graph once.
    int64_t tasks = stats.tasks, all = 0;
    MPI_Allreduce(&tasks, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    const int64_t mt = (n + nb - 1) / nb;
    const int64_t expected = variant.kind == Variant::Kind::LeftCoarse ? mt * (mt + 1) / 2 + mt * (mt - 1) / 2
                                                                        : mt + mt * (mt - 1) + mt * (mt - 1) * (mt - 2) / 6;
    CHECK(all == expected);
}

}  // namespace

TEMPLATE_TEST_CASE("distributed potrf: scaled residual < 60", "[mpi][potrf]", float, double) {
    const int64_t nb = 64;
    for (const Grid& grid : grids())
        for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7, int64_t(500)})
            check_potrf<TestType>(n, nb, grid, Variant::parse("right"), false);
}

TEMPLATE_TEST_CASE("distributed potrf: every variant, lower triangle only", "[mpi][potrf]", float, double) {
    const Grid grid = Grid::square(runtime().mpi_size());
    for (const char* v : {"right", "lookahead=1", "left", "left-coarse", "noprio"})
        for (bool lower_only : {false, true}) check_potrf<TestType>(333, 48, grid, Variant::parse(v), lower_only);
}

TEMPLATE_TEST_CASE("distributed posv: solve residual < 60", "[mpi][potrs]", float, double) {
    for (const Grid& grid : grids())
        for (int64_t n : {int64_t(1), int64_t(50), int64_t(300)})
            for (int64_t nrhs : {int64_t(1), int64_t(70)}) {
                const int64_t nb = 64;
                const uint64_t seed = shared_seed();
                INFO("n=" << n << " nrhs=" << nrhs << " grid=" << grid_name(grid) << " seed=" << seed);
                const std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
                std::vector<TestType> B(static_cast<size_t>(n * nrhs)), X(B.size());
                random_matrix<TestType>(n, nrhs, B.data(), n, seed + 1);
                TileMatrix<TestType> a(runtime(), n, nb, Residency::Host, TileLayout{grid, true});
                TileMatrix<TestType> b(runtime(), n, nrhs, nb, Residency::Host, TileLayout{grid, false});
                a.import(A.data(), n);
                b.import(B.data(), n);
                Options opts;
                opts.mapping = Mapping::CpuOnly;
                CHECK(posv(a, b, opts) == 0);
                b.export_to(X.data(), n);
                const double res = solve_residual<TestType>(n, nrhs, A.data(), n, X.data(), n, B.data(), n);
                INFO("residual=" << res);
                CHECK(res < kResidualLimit);
            }
}

TEST_CASE("distributed async posv: one sequence, potrf then potrs", "[mpi][potrs]") {
    const int64_t n = 400, nrhs = 5, nb = 64;
    const uint64_t seed = shared_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs)), X(B.size());
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    const TileLayout layout{Grid::square(runtime().mpi_size()), false};
    TileMatrix<double> a(runtime(), n, nb, Residency::Host, layout), b(runtime(), n, nrhs, nb, Residency::Host, layout);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    Sequence seq(runtime());
    const int op = async::posv(a, b, seq, opts);
    CHECK(seq.wait() == 0);
    CHECK(seq.info(op) == 0);
    b.export_to(X.data(), n);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
}

TEST_CASE("distributed potrs with factors imported one after the other uses the new one", "[mpi][potrs]") {
    // The factors come from LAPACK, not from tasks: after the first solve, other ranks hold copies of its tiles in
    // StarPU-MPI's cache, which the second import must drop.
    const int64_t n = 260, nrhs = 3, nb = 64;
    const TileLayout layout{Grid::square(runtime().mpi_size()), true};
    TileMatrix<double> L(runtime(), n, nb, Residency::Host, layout);
    TileMatrix<double> b(runtime(), n, nrhs, nb, Residency::Host, TileLayout{layout.grid, false});
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    for (int round = 0; round < 2; ++round) {
        const uint64_t seed = shared_seed();
        INFO("round " << round << " seed " << seed);
        const std::vector<double> A = spd_matrix<double>(n, n, seed);
        std::vector<double> F(A), B(static_cast<size_t>(n * nrhs)), X(B.size());
        REQUIRE(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), F.data(), static_cast<int>(n)) == 0);
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        L.import(F.data(), n);
        b.import(B.data(), n);
        potrs(L, b, opts);
        b.export_to(X.data(), n);
        CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("distributed potrf of a matrix that is not SPD: LAPACK's info on every rank", "[mpi][potrf][info]",
                   float, double) {
    const int64_t n = 300, nb = 64;
    const Grid grid = Grid::square(runtime().mpi_size());
    // Columns in tiles owned by rank 0 and by the last rank of the grid's first row/column: the first one wins.
    for (int64_t bad : {int64_t(5), nb + 9, 3 * nb + 2, n - 1}) {
        const uint64_t seed = shared_seed();
        std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
        A[bad + bad * n] = TestType(-1);
        std::vector<TestType> ref(A);
        int expected;
        if constexpr (std::is_same_v<TestType, float>)
            expected = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), ref.data(), static_cast<int>(n));
        else
            expected = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), ref.data(), static_cast<int>(n));
        INFO("bad column " << bad << ", tile owner " << grid.owner(bad / nb, bad / nb) << ", LAPACK info " << expected
                           << ", seed " << seed);
        REQUIRE(expected == bad + 1);
        TileMatrix<TestType> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        tiles.import(A.data(), n);
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        const int info = potrf(tiles, opts);
        CHECK(info == expected);
        const std::vector<int> infos = gather_all(info);
        for (int i : infos) CHECK(i == info);
    }
}

TEST_CASE("a grid that is not the number of ranks is rejected, naming the argument", "[mpi][errors]") {
    const int r = runtime().mpi_size();
    for (const Grid& g : {Grid{r + 1, 1}, Grid{1, 2 * r}, Grid{0, r}}) {
        INFO("grid " << grid_name(g));
        try {
            TileMatrix<double> t(runtime(), 100, 32, Residency::Host, TileLayout{g, false});
            FAIL("no exception");
        } catch (const InvalidArgument& e) {
            CHECK(e.argument() == "layout");
            CHECK_THAT(e.what(), Catch::Contains("grid"));
        }
    }
    // A distributed B must use A's grid.
    if (r > 1) {
        TileMatrix<double> a(runtime(), 64, 32, Residency::Host, TileLayout{Grid{1, r}, false});
        TileMatrix<double> b(runtime(), 64, 2, 32, Residency::Host, TileLayout{Grid{r, 1}, false});
        CHECK_THROWS_AS(potrs(a, b), InvalidArgument);
        CHECK_THROWS_WITH(potri(a), Catch::Contains("distributed"));
    }
}

TEST_CASE("a 1 x 1 grid in an MPI run is this process's own matrix", "[mpi][local]") {
    // Different matrices and orders on different ranks: nothing is shared, no rank waits for another.
    const int64_t n = 200 + 37 * runtime().mpi_rank(), nb = 48;
    const uint64_t seed = fresh_seed();
    INFO("rank " << runtime().mpi_rank() << " n=" << n << " seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> tiles(runtime(), n, nb);
    CHECK_FALSE(tiles.distributed());
    tiles.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    CHECK(potrf(tiles, opts) == 0);
    std::vector<double> L(A);
    tiles.export_to(L.data(), n);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
    runtime().barrier();
}

TEST_CASE("lower_only: tiles above the diagonal do not exist", "[mpi][layout]") {
    const Grid grid = Grid::square(runtime().mpi_size());
    TileMatrix<float> t(runtime(), 200, 64, Residency::Host, TileLayout{grid, true});
    CHECK(t.stored(3, 1));
    CHECK_FALSE(t.stored(1, 3));
    CHECK_THROWS_AS(t.tile(1, 3), InvalidArgument);
    CHECK(t.tile(3, 1) != nullptr);
    // This rank stores only its own tiles of the lower triangle.
    size_t mine = 0;
    for (int64_t j = 0; j < t.nt(); ++j)
        for (int64_t i = j; i < t.mt(); ++i)
            if (grid.owner(i, j) == runtime().mpi_rank())
                mine += static_cast<size_t>(t.tile_rows(i) * t.tile_cols(j)) * sizeof(float);
    CHECK(t.stored_bytes() == mine);
}

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rc = 0;
    {
        starfact::RuntimeConfig cfg;
        cfg.ncuda = 0;
        cfg.mpi = true;
        g_runtime = std::make_unique<starfact::Runtime>(cfg);
        if (g_runtime->mpi_rank() == 0) std::printf("%s\n", g_runtime->describe().c_str());
        Catch::Session session;
        rc = session.run(argc, argv);
        // Every rank's status: a failure on one rank fails them all.
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        g_runtime.reset();
    }
    MPI_Finalize();
    return rc;
}
