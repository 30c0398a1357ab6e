// Internal: what a TileMatrix can be, checked before it registers anything: the host memory a tile costs besides its
// entries, the limit on how finely a matrix may be tiled, how far a caller's array may reach, and which arrays
// StarPU and the kernels can address as views.
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

/// The most tile work a matrix may have. Tile work, mt * nt * min(mt, nt), is the order of the task count of a
/// factorization of an mt x nt grid of tiles (potrf submits about nt^3 / 6 tasks, getrf and geqrf about nt^3 / 3),
/// and StarPU costs microseconds per task whatever the tile holds. At most 2^30, 1024 x 1024 tiles of a square
/// matrix (about 2 x 10^8 potrf tasks: minutes of scheduling, what grids that large are used for: hundreds of
/// ranks), whatever the tile size; the plans' tile sizes reach it only for matrices of hundreds of gigabytes on
/// CPUs (tiles of 192 to 256), terabytes on GPUs.
constexpr uint64_t kMaxTileWork = uint64_t(1) << 30;
/// Tiles smaller than kSmallTile x kSmallTile do less work than their task costs to schedule (a 15 x 15 gemm is
/// 7,000 flops, a microsecond): their grid may have at most 2^24 of tile work, 256 x 256 tiles of a square matrix
/// (about 3 x 10^6 potrf tasks, seconds). 1 x 1 tiles of a 3000 x 3000 matrix would make billions of tasks, 3 x 3
/// tiles hundreds of millions.
constexpr int64_t kSmallTile = 16;
constexpr uint64_t kMaxSmallTileWork = uint64_t(1) << 24;

/// Throws InvalidArgument from `function` naming 'nb' when an m x n matrix in nb x nb tiles (m, n >= 0, nb > 0)
/// has more tile work than kMaxTileWork, or than kMaxSmallTileWork with nb < kSmallTile; the message gives the
/// tile grid, the task count it implies, and the smallest nb within the limits.
void require_tile_grid(const char* function, int64_t m, int64_t n, int64_t nb);

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
/// A device tile's leading dimension is a multiple of this many entries (256 bytes in double), so that each of its
/// columns starts aligned for the tensor-core kernels (TileMatrix's own device tiles; views keep the array's).
constexpr int64_t kDeviceLdMultiple = 32;

}  // namespace starfact::detail
