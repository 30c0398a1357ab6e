// Internal: what a TileMatrix can be, checked before it registers anything: the host memory a tile costs besides its
// entries.
#pragma once
#include <starpu.h>

#include <cstdint>

namespace starfact::detail {

/// Host memory a tile costs besides its entries: its slots in the handle, storage and home vectors, and the StarPU
/// handle registered for it (StarPU 1.3's data state keeps a replicate and an interface per memory node: 4,539
/// bytes measured per matrix handle with the StarPU that deps/setup.sh builds, --enable-maxnodes=16). Tiny tiles
/// make this the larger part: a double matrix in 1 x 1 tiles needs ~580 times its entries.
constexpr uint64_t kBookkeepingBytes = sizeof(starpu_data_handle_t) + sizeof(void*) + sizeof(unsigned);
constexpr uint64_t kHandleBytes = 4608;

}  // namespace starfact::detail
