// Device placement of device-resident tiles (docs/multigpu.md): the arithmetic of device_of and the device grid
// checks, which need no GPU (CPU suite).
#include <catch2/catch.hpp>
#include <starpu.h>

#include <set>
#include <string>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

TEST_CASE("device_of: 2D block-cyclic over the device grid, and (i + j) mod K", "[placement][cpu]") {
    // One device: every tile on it, whatever the placement.
    for (DevicePlacement p : {DevicePlacement::BlockCyclic2D, DevicePlacement::Cyclic}) {
        const Grid g = resolve_device_grid(p, Grid{0, 0}, 1, "test", "grid");
        CHECK(g == Grid{1, 1});
        for (int64_t i = 0; i < 7; ++i)
            for (int64_t j = 0; j < 7; ++j) CHECK(device_of(i, j, p, g, 1) == 0);
    }
    // Default grids: the most square with Pd <= Qd.
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 2, "test", "grid") == Grid{1, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 4, "test", "grid") == Grid{2, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 8, "test", "grid") == Grid{2, 4});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{4, 1}, 4, "test", "grid") == Grid{4, 1});
    // ... transposed for more tile rows than tile columns; one tile column (a tall and skinny matrix) spreads its tile
    // rows over every device, one tile row its tile columns; square and wide matrices keep Pd <= Qd; a given grid is
    // kept.
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 2, "test", "grid", 16, 1) == Grid{2, 1});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 4, "test", "grid", 16, 1) == Grid{4, 1});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 8, "test", "grid", 3, 1) == Grid{8, 1});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 4, "test", "grid", 1, 9) == Grid{1, 4});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 4, "test", "grid", 1, 1) == Grid{2, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 4, "test", "grid", 16, 2) == Grid{2, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 8, "test", "grid", 64, 4) == Grid{4, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 2, "test", "grid", 8, 8) == Grid{1, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 2, "test", "grid", 1, 5) == Grid{1, 2});
    CHECK(resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{1, 2}, 2, "test", "grid", 16, 1) == Grid{1, 2});
    CHECK(resolve_device_grid(DevicePlacement::Cyclic, Grid{0, 0}, 2, "test", "grid", 16, 1) == Grid{1, 2});
    {
        // A TileMatrix's placement: 16 tile rows of one column on two devices alternate between them.
        const Grid g = resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 2, "test", "grid", 16, 1);
        for (int64_t i = 0; i < 16; ++i) CHECK(device_of(i, 0, DevicePlacement::BlockCyclic2D, g, 2) == i % 2);
    }

    const Grid g22{2, 2};
    CHECK(device_of(0, 0, DevicePlacement::BlockCyclic2D, g22, 4) == 0);
    CHECK(device_of(0, 1, DevicePlacement::BlockCyclic2D, g22, 4) == 1);
    CHECK(device_of(1, 0, DevicePlacement::BlockCyclic2D, g22, 4) == 2);
    CHECK(device_of(1, 1, DevicePlacement::BlockCyclic2D, g22, 4) == 3);
    CHECK(device_of(5, 2, DevicePlacement::BlockCyclic2D, g22, 4) == 2);
    CHECK(device_of(6, 7, DevicePlacement::BlockCyclic2D, g22, 4) == 1);
    const Grid g24{2, 4};
    CHECK(device_of(3, 6, DevicePlacement::BlockCyclic2D, g24, 8) == 1 * 4 + 2);
    CHECK(device_of(2, 9, DevicePlacement::BlockCyclic2D, g24, 8) == 0 * 4 + 1);
    for (int64_t i = 0; i < 9; ++i)
        for (int64_t j = 0; j < 9; ++j) {
            CHECK(device_of(i, j, DevicePlacement::Cyclic, Grid{1, 3}, 3) == (i + j) % 3);
            const int d = device_of(i, j, DevicePlacement::BlockCyclic2D, g24, 8);
            CHECK(d == (i % 2) * 4 + j % 4);
        }

    // Each placement uses every device once per Pd x Qd block (2D) or per K consecutive tiles of a row (cyclic).
    for (int ndev : {1, 2, 3, 4, 6, 8}) {
        const Grid g = resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, ndev, "test", "grid");
        std::set<int> block, row;
        for (int64_t i = 0; i < g.p; ++i)
            for (int64_t j = 0; j < g.q; ++j) block.insert(device_of(i + 3 * g.p, j + 5 * g.q, DevicePlacement::BlockCyclic2D, g, ndev));
        for (int64_t j = 0; j < ndev; ++j) row.insert(device_of(4, j, DevicePlacement::Cyclic, Grid{1, ndev}, ndev));
        CHECK(block.size() == static_cast<size_t>(ndev));
        CHECK(row.size() == static_cast<size_t>(ndev));
    }

    // The diagonal tiles (the critical path): 2D over 2 x 2 puts them on devices 0 and 3 alternately, cyclic over 4
    // on devices 0 and 2 (2k mod 4), over 3 on every device.
    std::set<int> diag2d, diag_cyclic4, diag_cyclic3;
    for (int64_t k = 0; k < 12; ++k) {
        diag2d.insert(device_of(k, k, DevicePlacement::BlockCyclic2D, g22, 4));
        diag_cyclic4.insert(device_of(k, k, DevicePlacement::Cyclic, Grid{1, 4}, 4));
        diag_cyclic3.insert(device_of(k, k, DevicePlacement::Cyclic, Grid{1, 3}, 3));
    }
    CHECK(diag2d == std::set<int>{0, 3});
    CHECK(diag_cyclic4 == std::set<int>{0, 2});
    CHECK(diag_cyclic3 == std::set<int>{0, 1, 2});

    CHECK(std::string(to_string(DevicePlacement::BlockCyclic2D)) == "2d");
    CHECK(std::string(to_string(DevicePlacement::Cyclic)) == "cyclic");
    CHECK(parse_device_placement("2d", "--placement") == DevicePlacement::BlockCyclic2D);
    CHECK(parse_device_placement("cyclic", "--placement") == DevicePlacement::Cyclic);
}

namespace {
/// The argument an InvalidArgument from f names, and its message ("" if none thrown).
template <typename F>
std::string named_argument(F&& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        if (message) *message = e.what();
        return e.argument();
    }
    return "";
}
}  // namespace

TEST_CASE("an invalid device grid throws InvalidArgument naming the argument", "[placement][errors][cpu]") {
    std::string msg;
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{3, 1}, 4, "TileMatrix", "layout"); },
                         &msg) == "layout");
    CHECK(msg.find("device grid 3 x 1 has 3 device(s) but the runtime has 4 CUDA device(s)") != std::string::npos);
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{2, 2}, 2, "f", "device_grid"); }) ==
          "device_grid");
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 4}, 4, "f", "layout"); }, &msg) ==
          "layout");
    CHECK(msg.find("at least 1 x 1") != std::string::npos);
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{-1, -4}, 4, "f", "layout"); }) ==
          "layout");
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::Cyclic, Grid{1, 2}, 2, "f", "layout"); }, &msg) ==
          "layout");
    CHECK(msg.find("cyclic") != std::string::npos);
    CHECK(named_argument([] { resolve_device_grid(DevicePlacement::BlockCyclic2D, Grid{0, 0}, 0, "f", "layout"); }) ==
          "layout");
    CHECK(named_argument([] { parse_device_placement("diagonal", "--placement"); }, &msg) == "--placement");
    // Host-resident tiles have no device placement: a device grid there is not checked.
    TileLayout layout;
    layout.device_grid = Grid{3, 5};
    TileMatrix<double> host(runtime(), 10, 4, Residency::Host, layout);
    CHECK(host.home_node(0, 0) == static_cast<int>(STARPU_MAIN_RAM));
    CHECK(host.device_grid() == Grid{1, 1});
}
