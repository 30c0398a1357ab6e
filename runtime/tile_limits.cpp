// What a TileMatrix can be (runtime/tile_limits.hpp): the tile grid's limit and the extent of a caller's array.
#include "runtime/tile_limits.hpp"

#include <algorithm>
#include <string>

#include "runtime/memory.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {
namespace {

int64_t tiles_of(int64_t size, int64_t nb) { return size / nb + (size % nb != 0); }

/// mt * nt * min(mt, nt) of an m x n matrix in nb x nb tiles; UINT64_MAX when it does not fit in 64 bits.
uint64_t tile_work(int64_t m, int64_t n, int64_t nb) {
    const auto mt = static_cast<uint64_t>(tiles_of(m, nb)), nt = static_cast<uint64_t>(tiles_of(n, nb));
    uint64_t tiles = 0, work = 0;
    if (!checked_mul(mt, nt, &tiles) || !checked_mul(tiles, std::min(mt, nt), &work)) return UINT64_MAX;
    return work;
}

bool within_limits(int64_t m, int64_t n, int64_t nb) {
    const uint64_t work = tile_work(m, n, nb);
    return work <= kMaxTileWork && (nb >= kSmallTile || work <= kMaxSmallTileWork);
}

}  // namespace

void require_tile_grid(const char* function, int64_t m, int64_t n, int64_t nb) {
    if (within_limits(m, n, nb)) return;
    // The smallest tile size within the limits (the work only falls as nb grows, so that a tile size within them
    // stays within them when it grows; one tile always is).
    int64_t lo = nb + 1, hi = std::max<int64_t>({m, n, nb + 1});
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (within_limits(m, n, mid)) hi = mid;
        else lo = mid + 1;
    }
    const uint64_t work = tile_work(m, n, nb);
    const std::string grid = std::to_string(tiles_of(m, nb)) + " x " + std::to_string(tiles_of(n, nb));
    throw InvalidArgument(
        function, "nb",
        "= " + std::to_string(nb) + " cuts the " + std::to_string(m) + " x " + std::to_string(n) + " matrix into " +
            grid + " tiles, too many to factor: an operation on them submits on the order of mt * nt * min(mt, nt) = " +
            (work == UINT64_MAX ? std::string("more than 2^64") : std::to_string(work)) +
            " tasks (potrf a sixth of it, getrf and geqrf a third), and StarPU would spend minutes to hours scheduling "
            "them. A tile grid may have at most 2^30 of this work (1024 x 1024 tiles of a square matrix), and at most "
            "2^24 (256 x 256 tiles) with tiles smaller than 16 x 16, whose tasks cost more to schedule than to run: "
            "use nb >= " + std::to_string(lo) + ", or nb = 0 where the API takes it (the plan's tile size)");
}

void require_array_extent(const char* function, const char* argument, int64_t rows, int64_t cols, int64_t ld,
                          uint64_t entry_bytes) {
    uint64_t bytes = 0;
    if (array_bytes(rows, cols, ld, entry_bytes, &bytes)) return;
    throw InvalidArgument(function, argument,
                          "= " + std::to_string(ld) + " makes the " + std::to_string(rows) + " x " +
                              std::to_string(cols) + " array span (cols - 1) * ld + rows entries of " +
                              std::to_string(entry_bytes) + " bytes, more than 2^63 - 1 bytes: no array is that large");
}

}  // namespace starfact::detail
