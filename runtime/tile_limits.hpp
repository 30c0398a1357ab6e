// Internal: what a TileMatrix can be, checked before it registers anything: the host memory a tile costs besides its
// entries, how far a caller's array may reach, and which arrays StarPU and the kernels can address as views.
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

/// Throws InvalidArgument from `function` naming `argument` when a column-major rows x cols array (rows, cols >= 0)
/// with leading dimension ld >= max(1, rows) spans more than 2^63 - 1 bytes ((cols - 1) * ld + rows entries of
/// `entry_bytes`): no array can, and its offsets would overflow.
void require_array_extent(const char* function, const char* argument, int64_t rows, int64_t cols, int64_t ld,
                          uint64_t entry_bytes);

/// The most entries one view tile may span: ld * (its columns) < 2^31. StarPU 1.3's matrix interface holds the
/// leading dimension in 32 bits, and the codelets pass it to BLAS, LAPACK(E), cuBLAS, cuSOLVER and the library's
/// own kernels as an int, which also index within a tile by int offsets j * ld.
constexpr int64_t kMaxViewSpan = (int64_t(1) << 31) - 1;
/// The largest pitch in bytes (ld * sizeof(T)) of a 2D copy CUDA takes (cudaMemcpy2D: cudaDeviceProp::memPitch,
/// 2^31 - 1 on the GPUs starfact runs on): StarPU moves a view tile between its array and a GPU that way. Copies of
/// wider arrays go column by column.
constexpr int64_t kMaxCopyPitch = (int64_t(1) << 31) - 1;

}  // namespace starfact::detail
