// Device-resident tiles spread over every GPU of the process (docs/multigpu.md): each placement puts each tile on
// the device device_of names, and potrf / posv on such matrices pass their residual checks. Runs with whatever
// number of GPUs is present (one on a one-GPU machine: every tile on it).
#include <catch2/catch.hpp>

#include <string>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

/// Every stored tile's home node is the memory node of the device the placement names.
template <typename T>
void check_homes(const TileMatrix<T>& A) {
    const auto& nodes = A.runtime().cuda_memory_nodes();
    const int ndev = static_cast<int>(nodes.size());
    const TileLayout& l = A.layout();
    const Grid g = resolve_device_grid(l.placement, l.device_grid, ndev, "test", "layout", A.mt(), A.nt());
    CHECK(A.device_grid() == g);
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            if (!A.stored(i, j)) continue;
            INFO("tile (" << i << ", " << j << ") placement " << to_string(l.placement));
            CHECK(A.home_node(i, j) == static_cast<int>(nodes[static_cast<size_t>(device_of(i, j, l.placement, g, ndev))]));
        }
}

/// potrf of A on device-resident tiles laid out as `layout` (homes checked first); the scaled residual.
template <typename T>
double factor_placed(Runtime& rt, const TileLayout& layout, int64_t n, int64_t nb, const std::vector<T>& A) {
    Options o;
    o.mapping = Mapping::GpuOnly;
    TileMatrix<T> tiles(rt, n, nb, Residency::Device, layout);
    check_homes(tiles);
    tiles.import(A.data(), n);
    REQUIRE(potrf(tiles, o) == 0);
    std::vector<T> L(A.size());
    tiles.export_to(L.data(), n);
    return potrf_residual<T>(n, A.data(), n, L.data(), n);
}

std::vector<TileLayout> placements(int ndev, bool lower_only) {
    std::vector<TileLayout> out;
    TileLayout l;
    l.lower_only = lower_only;
    out.push_back(l);  // the default: 2D block-cyclic, the most square grid
    l.placement = DevicePlacement::Cyclic;
    out.push_back(l);
    if (ndev > 1) {  // a grid other than the default: one column of devices
        l.placement = DevicePlacement::BlockCyclic2D;
        l.device_grid = Grid{ndev, 1};
        out.push_back(l);
    }
    return out;
}

}  // namespace

TEMPLATE_TEST_CASE("device-resident potrf and posv over every GPU, each placement", "[gpu][multigpu]", float, double) {
    using T = TestType;
    Runtime& rt = runtime();
    const int ndev = rt.cuda_devices();
    Options o;
    o.mapping = Mapping::GpuOnly;
    for (const TileLayout& layout : placements(ndev, false)) {
        for (int64_t nb : {64, 200}) {
            const int64_t n = 9 * nb + 13, nrhs = 3;
            const uint64_t seed = fresh_seed();
            INFO("ndev=" << ndev << " placement=" << to_string(layout.placement) << " grid=" << layout.device_grid.p << "x"
                         << layout.device_grid.q << " n=" << n << " nb=" << nb << " seed=" << seed);
            const std::vector<T> A = spd_matrix<T>(n, n, seed);
            const double potrf_res = factor_placed(rt, layout, n, nb, A);
            INFO("potrf residual=" << potrf_res);
            CHECK(potrf_res < kResidualLimit);
            {  // posv, the right-hand sides placed alike
                std::vector<T> B(static_cast<size_t>(n * nrhs)), X(B.size());
                random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
                TileMatrix<T> a(rt, n, nb, Residency::Device, layout), b(rt, n, nrhs, nb, Residency::Device, layout);
                check_homes(a);
                check_homes(b);
                a.import(A.data(), n);
                b.import(B.data(), n);
                REQUIRE(posv(a, b, o) == 0);
                b.export_to(X.data(), n);
                const double res = solve_residual<T>(n, nrhs, A.data(), n, X.data(), n, B.data(), n);
                INFO("posv residual=" << res);
                CHECK(res < kResidualLimit);
            }
            CHECK(settled_pending_tasks(rt) == 0);
        }
    }
    // The lower triangle of tiles only (what starpu_chol generates tile by tile).
    for (const TileLayout& layout : placements(ndev, true)) {
        const int64_t nb = 128, n = 7 * nb + 5;
        const uint64_t seed = fresh_seed();
        INFO("lower_only placement=" << to_string(layout.placement) << " seed=" << seed);
        CHECK(factor_placed(rt, layout, n, nb, spd_matrix<T>(n, n, seed)) < kResidualLimit);
    }
}

TEST_CASE("a device grid that is not the GPU count throws InvalidArgument naming 'layout'", "[gpu][multigpu][errors]") {
    Runtime& rt = runtime();
    const int ndev = rt.cuda_devices();
    TileLayout bad;
    bad.device_grid = Grid{1, ndev + 1};
    try {
        TileMatrix<double> t(rt, 100, 16, Residency::Device, bad);
        FAIL("no exception for a " << ndev + 1 << "-device grid on " << ndev << " GPU(s)");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "layout");
        CHECK(std::string(e.what()).find("Pd * Qd must be the device count") != std::string::npos);
    }
    TileLayout cyclic_with_grid;
    cyclic_with_grid.placement = DevicePlacement::Cyclic;
    cyclic_with_grid.device_grid = Grid{1, ndev};
    CHECK_THROWS_AS((TileMatrix<double>(rt, 100, 16, Residency::Device, cyclic_with_grid)), InvalidArgument);
}

TEMPLATE_TEST_CASE("random_symmetric on device-resident tiles over every GPU equals the host array's matrix",
                   "[gpu][multigpu][generate]", float, double) {
    using T = TestType;
    Runtime& rt = runtime();
    const int ndev = rt.cuda_devices();
    for (const bool lower_only : {false, true}) {
        for (const TileLayout& layout : placements(ndev, lower_only)) {
            const int64_t nb = 96, n = 5 * nb + 17;
            const uint64_t seed = fresh_seed();
            INFO("ndev=" << ndev << " placement=" << to_string(layout.placement) << " lower_only=" << lower_only
                         << " seed=" << seed);
            std::vector<T> want(static_cast<size_t>(n * n)), got(want.size(), T(-777));
            random_symmetric<T>(n, want.data(), n, seed, static_cast<double>(n));
            TileMatrix<T> A(rt, n, nb, Residency::Device, layout);
            random_symmetric(A, seed, static_cast<double>(n));
            A.export_to(got.data(), n);
            int64_t wrong = 0;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i)
                    if (A.stored(i / nb, j / nb) && got[i + j * n] != want[i + j * n]) ++wrong;
            CHECK(wrong == 0);
            // The generated matrix factors like the imported one.
            Options o;
            o.mapping = Mapping::GpuOnly;
            REQUIRE(potrf(A, o) == 0);
            A.export_to(got.data(), n);
            CHECK(potrf_residual<T>(n, want.data(), n, got.data(), n) < kResidualLimit);
        }
    }
}

TEMPLATE_TEST_CASE("every operation's array form over every GPU, host- and device-resident tiles",
                   "[gpu][multigpu]", float, double) {
    using T = TestType;
    Runtime& rt = runtime();
    Options o;
    o.mapping = Mapping::GpuOnly;
    for (const Residency residency : {Residency::Host, Residency::Device}) {
        const int64_t nb = 128, n = 6 * nb + 29, nrhs = 4;
        const Tiling tiling{nb, residency};
        const uint64_t seed = fresh_seed();
        INFO("ndev=" << rt.cuda_devices() << " residency=" << to_string(residency) << " n=" << n << " seed=" << seed);
        const std::vector<T> A = spd_matrix<T>(n, n, seed);
        std::vector<T> B(static_cast<size_t>(n * nrhs));
        random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
        {
            std::vector<T> L = A;
            REQUIRE(potrf(rt, n, L.data(), n, o, tiling) == 0);
            CHECK(potrf_residual<T>(n, A.data(), n, L.data(), n) < kResidualLimit);
        }
        {
            std::vector<T> F = A, X = B;
            REQUIRE(posv(rt, n, nrhs, F.data(), n, X.data(), n, o, tiling) == 0);
            CHECK(solve_residual<T>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        }
        {
            std::vector<T> Ainv = A;
            REQUIRE(potri(rt, n, Ainv.data(), n, o, tiling) == 0);
            CHECK(potri_residual<T>(n, A.data(), n, Ainv.data(), n) < kResidualLimit);
        }
        {  // a general matrix: LU with partial pivoting
            std::vector<T> G(static_cast<size_t>(n * n));
            random_matrix<T>(n, n, G.data(), n, seed + 2);
            std::vector<T> LU = G, F = G, X = B;
            std::vector<int64_t> ipiv(static_cast<size_t>(n));
            REQUIRE(getrf(rt, n, LU.data(), n, ipiv.data(), o, tiling) == 0);
            CHECK(getrf_residual<T>(n, G.data(), n, LU.data(), n, ipiv.data()) < kResidualLimit);
            REQUIRE(gesv(rt, n, nrhs, F.data(), n, ipiv.data(), X.data(), n, o, tiling) == 0);
            CHECK(gesv_residual<T>(n, nrhs, G.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        }
        CHECK(settled_pending_tasks(rt) == 0);
    }
}
