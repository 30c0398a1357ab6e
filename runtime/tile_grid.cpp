// The grids of TileMatrix's layouts: MPI rank grids, and the placement of device-resident tiles over the CUDA
// devices of a process (docs/multigpu.md).
#include <string>

#include "starfact/error.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

Grid Grid::square(int ranks) {
    require(ranks >= 1, "Grid::square", "ranks", "must be >= 1 (got " + std::to_string(ranks) + ")");
    Grid g;
    for (int p = 1; p * p <= ranks; ++p)
        if (ranks % p == 0) g = {p, ranks / p};
    return g;
}

const char* to_string(DevicePlacement placement) {
    return placement == DevicePlacement::Cyclic ? "cyclic" : "2d";
}

DevicePlacement parse_device_placement(const std::string& text, const char* argument) {
    if (text == "2d") return DevicePlacement::BlockCyclic2D;
    if (text == "cyclic") return DevicePlacement::Cyclic;
    throw InvalidArgument("parse_device_placement", argument, "must be 2d or cyclic (got '" + text + "')");
}

Grid resolve_device_grid(DevicePlacement placement, const Grid& requested, int ndev, const char* function,
                         const char* argument, int64_t mt, int64_t nt) {
    require(ndev >= 1, function, argument, "needs at least one CUDA device (got " + std::to_string(ndev) + ")");
    const bool given = requested.p != 0 || requested.q != 0;
    const std::string text = std::to_string(requested.p) + " x " + std::to_string(requested.q);
    if (placement == DevicePlacement::Cyclic) {
        require(!given, function, argument, "device grid " + text + " given with the cyclic placement, which has none");
        return Grid{1, ndev};
    }
    if (!given) {
        // Most square, its longer side along the matrix's longer side of tiles: a tall matrix spreads its tile rows
        // over the devices instead of leaving them all on the first. One tile column (a tall and skinny QR's) or one
        // tile row: every device along it (on a square grid of devices only one column of them would hold tiles).
        if (nt == 1 && mt > 1) return Grid{ndev, 1};
        if (mt == 1 && nt > 1) return Grid{1, ndev};
        const Grid g = Grid::square(ndev);
        return mt > nt ? Grid{g.q, g.p} : g;
    }
    require(requested.p >= 1 && requested.q >= 1, function, argument,
            "device grid must be at least 1 x 1 (got " + text + ")");
    require(requested.ranks() == ndev, function, argument,
            "device grid " + text + " has " + std::to_string(requested.ranks()) + " device(s) but the runtime has " +
                std::to_string(ndev) + " CUDA device(s) (Pd * Qd must be the device count)");
    return requested;
}

}  // namespace starfact
