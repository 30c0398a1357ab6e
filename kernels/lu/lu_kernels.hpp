// Internal: the tile-LU kernels (laswp.cu, panel_pivots.cu, gather_rows.cu) that the LU codelets (codelets/laswp.cpp,
// codelets/getrf_panel.cpp) launch, and the limit of a row-interchange task.
#pragma once
#include <cstdint>
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

/// Largest number of tiles in one column that a CUDA row-interchange task takes (its tile pointers
/// travel as a kernel argument): a GPU mapping needs ceil(n / nb) <= this.
constexpr int64_t kLaswpMaxTiles = 256;

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
/// After cuSOLVER's getrf of a panel: piv[i] = offset + dev_ipiv[i] (global, 1-based) for i < kb when
/// piv is not null, and if *dev_info > 0 and *info == 0, *info = offset + *dev_info. One block.
void launch_panel_pivots(const int* dev_ipiv, int kb, const int* dev_info, int* piv, int* info, int64_t offset,
                         cudaStream_t stream);
/// out(r, c) := S(rows[r], c) for r < count, c < cols (column-major, leading dimensions lds and ldo; rows on the
/// device), elements of element_bytes bytes (4, 8 or 16: the four element types): the rows a tournament keeps.
void launch_gather_rows(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo,
                        int element_bytes, cudaStream_t stream);
/// out(to[r], c) := S(rows[r], c) for r < count (rows and to on the device, no two `to` alike): a row exchange's copy.
void launch_copy_rows(const void* S, int64_t lds, const int* rows, const int* to, int count, int cols, void* out,
                      int64_t ldo, int element_bytes, cudaStream_t stream);
/// The tiles of one tile column (tiles k .. mt-1) in a CUDA codelet: the row-interchange kernel takes
/// them by value; the panel gathers them.
template <typename T>
struct ColumnTiles {
    T* tile[kLaswpMaxTiles];
    int count;  ///< tiles
    int nb;     ///< rows of every tile but the last (the row stride between tiles)
    int ld;     ///< leading dimension of every tile but the last
    int ld_last;
    int cols;   ///< columns of the tile column
};
/// One thread per column: swaps row i (of tile 0) with row piv[i] - 1 - offset (of the column), i < kb.
template <typename T>
void launch_laswp(const ColumnTiles<T>& tiles, const int* piv, int kb, int64_t offset, cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail
