// Distributed tile Cholesky (StarPU-MPI), run by ctest under mpirun with 2 and 4 ranks: residuals of potrf and
// posv on tiles spread 2D block-cyclically, the same LAPACK info on every rank for a matrix that is not SPD,
// the grid checks, and the error every rank gets when the ranks disagree on a distributed call. Every rank runs
// every test case in the same order (the operations are collective).
#include <mpi.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/mpi.hpp"
#include "tests/mpi_support.hpp"
#include "tests/support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

using namespace starfact::test::prelude;
using namespace starfact::test::mpi;

namespace {

/// The grids a case runs on: the default (most square) one, and 1 x ranks and ranks x 1 when different.
std::vector<Grid> grids() {
    const int r = runtime().mpi_size();
    std::vector<Grid> out{Grid::square(r)};
    for (const Grid& g : {Grid{1, r}, Grid{r, 1}})
        if (g != out.front()) out.push_back(g);
    return out;
}

/// How a disagreement names the ranks' values when the last rank alone has `last`: "rank 0 has 300, rank 1 has
/// 310" with 2 ranks, "ranks 0-2 have 300, rank 3 has 310" with 4.
std::string last_rank_differs(const std::string& first, const std::string& last, const std::string& has = "has",
                              const std::string& have = "have") {
    const int r = runtime().mpi_size();
    return (r == 2 ? "rank 0 " + has : "ranks 0-" + std::to_string(r - 2) + " " + have) + " " + first + ", rank " +
           std::to_string(r - 1) + " " + has + " " + last;
}

/// Runs `call`, which every rank makes with values that differ between the ranks, and checks the RuntimeError it
/// must throw on every rank, before any communication: its message has `report`.
template <typename Call>
void check_disagreement(Call&& call, const std::string& report) {
    INFO("rank " << runtime().mpi_rank() << " expects: " << report);
    try {
        call();
    } catch (const RuntimeError& e) {
        CHECK_THAT(e.what(), Catch::Contains(report));
        return;
    }
    FAIL("no exception on this rank");
}

/// potrf on CPU workers of `tiles` filled with the n x n SPD A, then the scaled residual of the gathered factor.
void check_potrf_of(TileMatrix<double>& tiles, const std::vector<double>& A, int64_t n) {
    tiles.import(A.data(), n);
    CHECK(potrf(tiles, cpu_only()) == 0);
    std::vector<double> L(A);
    tiles.export_to(L.data(), n);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
}

/// A distributed factorization every rank makes alike: after a disagreement, the ranks still work together.
void check_ranks_work_together() {
    const int64_t n = 150, nb = 48;
    const uint64_t seed = shared_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> tiles(runtime(), n, nb, Residency::Host, TileLayout{Grid::square(runtime().mpi_size()), true});
    check_potrf_of(tiles, A, n);
}

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
    Options opts = cpu_only();
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
        for (bool lower_only : {false, true}) check_potrf<TestType>(333, 64, grid, Variant::parse(v), lower_only);
}

TEST_CASE("distributed potrf: chains, binomial trees and direct sends give the same factor",
          "[mpi][potrf][broadcast]") {
    // STARFACT_BROADCAST: the L and diagonal tiles along chains of forwarded copies (the default), binomial trees,
    // or the owners' own sends; the arithmetic is the same, so is the factor, bit for bit. Both forward where three
    // ranks or more on other nodes than the owner's read a tile: with every rank taken for a node of its own, on 4
    // ranks the grids 1 x 4 and 4 x 1; with the ranks as they are (one machine), never.
    const int r = runtime().mpi_size();
    const int64_t nb = 16, n = 7 * nb + 3;
    {
        const std::vector<double> A = spd_matrix<double>(n, n, shared_seed());
        TileMatrix<double> tiles(runtime(), n, nb, Residency::Host, TileLayout{Grid{1, r}, false});
        tiles.import(A.data(), n);
        const int64_t before = starfact::detail::mpi_forwards_received().load();
        CHECK(potrf(tiles, cpu_only()) == 0);
        int64_t mine = starfact::detail::mpi_forwards_received().load() - before, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all == 0);  // the ranks of one node read from the owner
    }
    starfact::detail::each_rank_a_node_for_tests() = true;
    for (const Grid& grid : grids()) {
        const uint64_t seed = shared_seed();
        INFO("grid " << grid_name(grid) << " seed " << seed);
        const std::vector<double> A = spd_matrix<double>(n, n, seed);
        std::vector<std::vector<double>> L;
        std::vector<int64_t> forwards;
        for (const char* shape : {"chain", "binomial", "direct"}) {
            ::setenv("STARFACT_BROADCAST", shape, 1);
            TileMatrix<double> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
            tiles.import(A.data(), n);
            const int64_t before = starfact::detail::mpi_forwards_received().load();
            CHECK(potrf(tiles, cpu_only()) == 0);
            L.emplace_back(A);
            tiles.export_to(L.back().data(), n);
            int64_t mine = starfact::detail::mpi_forwards_received().load() - before, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            forwards.push_back(all);
        }
        ::unsetenv("STARFACT_BROADCAST");
        CHECK(L[0] == L[2]);
        CHECK(L[1] == L[2]);
        CHECK(potrf_residual<double>(n, A.data(), n, L[0].data(), n) < kResidualLimit);
        CHECK((forwards[0] > 0) == (r >= 4 && (grid.p == 1 || grid.q == 1)));
        CHECK((forwards[1] > 0) == (r >= 4 && (grid.p == 1 || grid.q == 1)));
        CHECK(forwards[2] == 0);
    }
    starfact::detail::each_rank_a_node_for_tests() = false;
    ::setenv("STARFACT_BROADCAST", "ring", 1);
    TileMatrix<double> tiles(runtime(), n, nb, Residency::Host, TileLayout{Grid::square(r), false});
    tiles.import(spd_matrix<double>(n, n, shared_seed()).data(), n);
    CHECK_THROWS_WITH(potrf(tiles, cpu_only()), Catch::Contains("STARFACT_BROADCAST"));
    ::unsetenv("STARFACT_BROADCAST");
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
                Options opts = cpu_only();
                CHECK(posv(a, b, opts) == 0);
                b.export_to(X.data(), n);
                const double res = solve_residual<TestType>(n, nrhs, A.data(), n, X.data(), n, B.data(), n);
                INFO("residual=" << res);
                CHECK(res < kResidualLimit);
            }
}

TEST_CASE("ranks bound to fewer cores than their share of the node get that share", "[mpi][cores]") {
    using starfact::detail::node_core_share;
    // mpirun's bind-to-core with 2 ranks on 32 cores: 16 each, in rank order.
    CHECK(node_core_share(1, 32, 0, 2).first == 0);
    CHECK(node_core_share(1, 32, 0, 2).count == 16);
    CHECK(node_core_share(1, 32, 1, 2).first == 16);
    CHECK(node_core_share(1, 32, 1, 2).count == 16);
    // Odd counts: the share rounds down, the last rank does not run past the node.
    CHECK(node_core_share(1, 7, 2, 3).first == 4);
    CHECK(node_core_share(1, 7, 2, 3).count == 2);
    // A launcher's binding at least as wide as the share is kept (bind-to-socket, --bind-to none, PE=n).
    CHECK(node_core_share(32, 64, 3, 4).count == 0);
    CHECK(node_core_share(64, 64, 0, 4).count == 0);
    // More ranks than cores (oversubscribed): one core each, wrapping around.
    CHECK(node_core_share(0, 2, 3, 4).first == 1);
    CHECK(node_core_share(0, 2, 3, 4).count == 1);
    CHECK(node_core_share(1, 2, 3, 4).count == 0);
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
    Options opts = cpu_only();
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
    Options opts = cpu_only();
    for (int round = 0; round < 2; ++round) {
        const uint64_t seed = shared_seed();
        INFO("round " << round << " seed " << seed);
        const std::vector<double> A = spd_matrix<double>(n, n, seed);
        std::vector<double> F(A), B(static_cast<size_t>(n * nrhs)), X(B.size());
        REQUIRE(starfact::detail::cpu::potrf<double>(static_cast<int>(n), F.data(), static_cast<int>(n)) == 0);
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
        const int in = static_cast<int>(n);
        const int expected = starfact::detail::cpu::potrf<TestType>(in, ref.data(), in);
        INFO("bad column " << bad << ", tile owner " << grid.owner(bad / nb, bad / nb) << ", LAPACK info " << expected
                           << ", seed " << seed);
        REQUIRE(expected == bad + 1);
        TileMatrix<TestType> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
        tiles.import(A.data(), n);
        Options opts = cpu_only();
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

TEST_CASE("ranks that disagree on a distributed matrix get an error naming it on every rank", "[mpi][agree]") {
    // Unchecked, different orders or tile sizes failed inside StarPU-MPI (MPI_ERR_TRUNCATE) or waited forever for
    // tiles, and a grid that is not the rank count on one rank threw there alone.
    const int r = runtime().mpi_size();
    const bool last = runtime().mpi_rank() == r - 1;  // the rank that differs
    const Grid grid = Grid::square(r);
    const TileLayout layout{grid, false};
    check_disagreement([&] { TileMatrix<double> t(runtime(), last ? 310 : 300, 64, Residency::Host, layout); },
                       "starfact::TileMatrix: ranks disagree on n: " + last_rank_differs("300", "310"));
    std::string every_m;  // every rank its own m
    for (int k = 0; k < r; ++k) every_m += (k ? ", rank " : "rank ") + std::to_string(k) + " has " + std::to_string(300 + 10 * k);
    check_disagreement(
        [&] { TileMatrix<double> t(runtime(), 300 + 10 * runtime().mpi_rank(), 300, 64, Residency::Host, layout); },
        "ranks disagree on m: " + every_m);
    check_disagreement([&] { TileMatrix<double> t(runtime(), 300, last ? 96 : 64, Residency::Host, layout); },
                       "ranks disagree on nb: " + last_rank_differs("64", "96"));
    check_disagreement(
        [&] { TileMatrix<double> t(runtime(), 300, 64, Residency::Host, TileLayout{last ? Grid{r, 1} : Grid{1, r}}); },
        "ranks disagree on grid: " + last_rank_differs(grid_name(Grid{1, r}), grid_name(Grid{r, 1})));
    // One rank's grid is not the rank count: it used to throw there alone, leaving the others waiting.
    check_disagreement(
        [&] {
            TileMatrix<double> t(runtime(), 300, 64, Residency::Host, TileLayout{last ? Grid{1, r + 1} : Grid{1, r}});
        },
        "ranks disagree on grid: " + last_rank_differs(grid_name(Grid{1, r}), grid_name(Grid{1, r + 1})));
    check_disagreement([&] { TileMatrix<double> t(runtime(), 300, 64, Residency::Host, TileLayout{grid, last}); },
                       "ranks disagree on lower_only: " + last_rank_differs("false", "true"));
    check_disagreement(
        [&] {
            if (last) TileMatrix<float> t(runtime(), 300, 64, Residency::Host, layout);
            else TileMatrix<double> t(runtime(), 300, 64, Residency::Host, layout);
        },
        "ranks disagree on precision (bytes per entry): " + last_rank_differs("8", "4"));
    check_ranks_work_together();
}

TEST_CASE("ranks that make different distributed calls get an error naming them on every rank", "[mpi][agree]") {
    const int r = runtime().mpi_size();
    const bool last = runtime().mpi_rank() == r - 1;  // the rank that differs
    const int64_t n = 200, nb = 64;
    const Grid grid = Grid::square(r);
    const uint64_t seed = shared_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> a(runtime(), n, nb, Residency::Host, TileLayout{grid, true});
    TileMatrix<double> a2(runtime(), n, nb, Residency::Host, TileLayout{grid, true});
    TileMatrix<double> b3(runtime(), n, 3, nb, Residency::Host, TileLayout{grid, false});
    TileMatrix<double> c3(runtime(), n, 3, nb, Residency::Host, TileLayout{grid, false});
    TileMatrix<double> b5(runtime(), n, 5, nb, Residency::Host, TileLayout{grid, false});
    a.import(A.data(), n);
    a2.import(A.data(), n);
    Options opts = cpu_only();
    // Every call below fails its check before any task: the right-hand sides' contents do not matter.
    const std::string potrf_or_posv = last_rank_differs("potrf", "posv", "is in", "are in");
    check_disagreement([&] { last ? posv(a, b3, opts) : potrf(a, opts); },
                       "ranks disagree on the operation: " + potrf_or_posv);
    check_disagreement(
        [&] {
            Sequence seq(runtime());
            last ? async::posv(a, b3, seq, opts) : async::potrf(a, seq, opts);
        },
        "ranks disagree on the operation: " + potrf_or_posv);
    check_disagreement([&] { potrs(a, last ? b5 : b3, opts); },
                       "starfact::potrs: ranks disagree on nrhs: " + last_rank_differs("3", "5"));
    check_disagreement([&] { posv(a, last ? b5 : b3, opts); },
                       "starfact::posv: ranks disagree on nrhs: " + last_rank_differs("3", "5"));
    // The same shapes, different matrices: StarPU-MPI would match one rank's tiles with another's.
    check_disagreement([&] { potrs(a, last ? c3 : b3, opts); }, "ranks disagree on B (");
    check_disagreement([&] { potrf(last ? a2 : a, opts); }, "ranks disagree on A (");
    for (const auto& v : {std::make_pair("right", "left"), std::make_pair("lookahead=1", "lookahead=2"),
                          std::make_pair("right", "left-coarse")}) {
        Options o = opts;
        o.variant = Variant::parse(last ? v.second : v.first);
        check_disagreement([&] { potrf(a, o); }, "ranks disagree on variant: " + last_rank_differs(v.first, v.second));
    }
    // One more factorization in one rank's sequence: the others are already gathering the infos.
    check_disagreement(
        [&] {
            Sequence seq(runtime());
            async::potrf(a, seq, opts);
            if (!last) async::potrf(a2, seq, opts);
            seq.wait();
        },
        "ranks disagree on the operation: " + last_rank_differs("potrf", "Sequence::wait", "is in", "are in"));
    check_ranks_work_together();
}

TEST_CASE("a 1 x 1 grid in an MPI run is this process's own matrix", "[mpi][local]") {
    // Different matrices and orders on different ranks: nothing is shared, no rank waits for another.
    const int64_t n = 200 + 37 * runtime().mpi_rank(), nb = 48;
    const uint64_t seed = fresh_seed() + static_cast<uint64_t>(runtime().mpi_rank());
    INFO("rank " << runtime().mpi_rank() << " n=" << n << " seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> tiles(runtime(), n, nb);
    CHECK_FALSE(tiles.distributed());
    check_potrf_of(tiles, A, n);
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

namespace {

/// test_mpi --rank-failure MODE: the last rank fails where the others go on, as in an application; the job must end
/// within seconds with the error on stderr and a non-zero status, never hang (ctest mpi.rank_failure.*, through
/// tests/expect_output.sh). MODE: import (a bad lda on the last rank: the exception leaves the Runtime's scope),
/// sequence (the application's own exception on the last rank, with a distributed factorization in a Sequence),
/// caught (the last rank catches the import error and returns: it destroys its Runtime while the others factor).
int rank_failure(const std::string& mode) {
    try {
        starfact::RuntimeConfig cfg;
        cfg.ncuda = 0;
        cfg.mpi = true;
        Runtime rt(cfg);
        const bool last = rt.mpi_rank() == rt.mpi_size() - 1;
        const int64_t n = 200, nb = 64;
        const std::vector<double> A = spd_matrix<double>(n, n, 1);
        TileMatrix<double> tiles(rt, n, nb, Residency::Host, TileLayout{Grid::square(rt.mpi_size()), true});
        Options opts = cpu_only();
        if (mode == "import") {
            tiles.import(A.data(), last ? 10 : n);
        } else if (mode == "caught") {
            try {
                tiles.import(A.data(), last ? 10 : n);
            } catch (const InvalidArgument& e) {
                std::fprintf(stderr, "rank %d goes on after: %s\n", rt.mpi_rank(), e.what());
                return 1;
            }
        } else if (mode == "sequence") {
            tiles.import(A.data(), n);
            Sequence seq(rt);
            async::potrf(tiles, seq, opts);
            if (last) throw std::runtime_error("the application gives up on this rank");
            seq.wait();
        } else {
            std::fprintf(stderr, "test_mpi: --rank-failure takes import, caught or sequence (got '%s')\n", mode.c_str());
            return 2;
        }
        potrf(tiles, opts);
    } catch (const std::exception& e) {
        // The application's handler: an exception on one rank only never gets here, the Runtime's destructor ends
        // the job first (printing the error).
        std::fprintf(stderr, "test_mpi --rank-failure: %s\n", e.what());
        return 1;
    }
    std::printf("test_mpi --rank-failure %s: no rank failed\n", mode.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc == 3 && std::string(argv[1]) == "--rank-failure") {
        const int rc = rank_failure(argv[2]);
        MPI_Finalize();
        return rc;
    }
    const int rc = starfact::test::mpi::run_tests(argc, argv, g_runtime);
    MPI_Finalize();
    return rc;
}
