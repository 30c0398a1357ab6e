// What a TileMatrix can be (runtime/tile_limits.hpp): the extent of a caller's array.
#include "runtime/tile_limits.hpp"

#include <string>

#include "runtime/memory.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {

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
