// The distributed LU's row interchanges on CUDA workers [gpu][lu][laswp] (codelets/laswp_compose.cpp,
// codelets/laswp_tile.cpp, kernels/lu/laswp_tile.cu), in one process on tiles split as for grids of 1 to 3 rows:
// the compose task's permutation equals compose_interchanges' (up to the largest step of the CUDA form, 4096
// pivots), the gather, spread and top tasks under the GPU-only mapping equal LAPACK's laswp on host- and
// device-resident tiles, with pivots taking rows twice, and a GPU-only getrf and getrs through those tasks
// (tile_interchange_rows_for_tests; the panels then by tournament pivoting, codelets/getrf_tournament.cpp) reach scaled
// residuals < 60; float, double and complex<double>. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <complex>
#include <random>
#include <utility>

#include "tests/laswp_tile_checks.hpp"

using namespace starfact::test::prelude;
namespace lt = starfact::test::laswp_tile;

TEMPLATE_TEST_CASE("GPU interchanges applied tile by tile equal LAPACK's laswp", "[gpu][lu][laswp]", float, double,
                   std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    for (Residency r : {Residency::Device, Residency::Host})
        for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{100, 16}, {37, 8}, {9, 16}, {700, 256}, {2600, 1024}})
            lt::check_tile_interchanges<TestType>(Mapping::GpuOnly, r, n, nb, rng);
}

TEST_CASE("GPU compose task: the permutation of compose_interchanges, up to 4096 pivots", "[gpu][lu][laswp]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    const int64_t nb = starfact::detail::kLaswpTileCudaMaxRows;
    for (int64_t kb : {int64_t(1), int64_t(2), int64_t(33), int64_t(1000), int64_t(1024), int64_t(1025), nb})
        for (int64_t below : {int64_t(0), int64_t(7), 3 * nb}) {
            const int64_t offset = nb, m = kb + below;  // step 1: the column's rows from global row nb
            INFO("kb=" << kb << " rows below=" << m - kb);
            Pivots pivots(runtime(), offset + kb, nb);  // step 1 holds kb pivots
            const std::vector<int64_t> piv = lt::pivots_taking_rows_twice(rng, offset, kb, m);
            lt::set_pivots(pivots.step(1), piv);
            CHECK(lt::run_compose(Mapping::GpuOnly, pivots.step(1), kb, offset, nb) == lt::expected_composed(piv, offset));
        }
}

TEMPLATE_TEST_CASE("GPU-only getrf and getrs with the interchanges tile by tile: residuals < 60", "[gpu][lu][laswp]",
                   float, double, std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    // n = 1, below, at and not multiple of the tile size; up to 6 tile rows (exchange buffers shared by two tiles);
    // 22 tile rows: the tournament's grid rows in several leaves (algorithms/lu_tournament.hpp)
    const std::pair<int64_t, int64_t> sizes[] = {{1, 64}, {63, 64}, {64, 64}, {3 * 64 + 7, 64}, {5 * 64 + 3, 64},
                                                 {255, 256}, {2 * 256 + 7, 256}, {21 * 16 + 5, 16}};
    for (Residency r : {Residency::Device, Residency::Host})
        for (int rows : {2, 3})
            for (const auto& [n, nb] : sizes)
                lt::check_lu_tile_by_tile<TestType>(Mapping::GpuOnly, r, n, nb, n % 2 == 0 ? 1 : 5, rows, rng);
}

TEMPLATE_TEST_CASE("small GPU tile-by-tile interchanges for the sanitizers", "[gpu][lu][laswp][sanitize]", float,
                   std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    lt::check_tile_interchanges<TestType>(Mapping::GpuOnly, Residency::Device, 37, 8, rng);
    lt::check_tile_interchanges<TestType>(Mapping::GpuOnly, Residency::Device, 80, 32, rng);
    lt::check_lu_tile_by_tile<TestType>(Mapping::GpuOnly, Residency::Device, 45, 16, 2, 2, rng);
}

TEMPLATE_TEST_CASE("GPU LU by tournament pivoting for the sanitizers", "[gpu][lu][tournament][sanitize]", float,
                   std::complex<double>) {
    // 9 tile rows split as on a grid of 2 rows: a grid row in two leaves, a tree of three merges
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    lt::check_lu_tile_by_tile<TestType>(Mapping::GpuOnly, Residency::Device, 70, 8, 2, 2, rng);
}
