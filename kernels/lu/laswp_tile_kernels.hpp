// Internal: the kernels of the row interchanges applied tile by tile (laswp_tile.cu), which the compose and
// gather / spread / top codelets (codelets/laswp_compose.cpp, codelets/laswp_tile.cpp) launch on CUDA workers. The
// composed permutation is the vector codelets/lu_codelets.hpp describes (composed_size(kb) ints, device memory).
#pragma once
#include <cstdint>
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/lu/lu_kernels.hpp"

namespace starfact::detail::gpu {

/// Composes the kb interchanges of one step (piv: global 1-based rows, the first at global row `offset`) into
/// `composed`, as compose_interchanges does on the host (the same vector, entry for entry). One block; kb <= 4096.
void launch_compose_interchanges(const int* piv, int kb, int64_t offset, int* composed, cudaStream_t stream);

/// Gather: row i of E (leading dimension lde) := row top[i] - first of the tile (rows x cols, ld) for every i < kb
/// whose source lies in the tile (first: the tile's first row in the column).
template <typename T>
void launch_laswp_gather(T* e, int64_t lde, const T* tile, int64_t ld, int rows, int cols, const int* composed, int kb,
                         int64_t first, cudaStream_t stream);

/// Spread: every row x of the tile (rows x cols, ld; first row `first` of the column) listed below the top tile
/// := the row of the top tile (ld_top) it receives.
template <typename T>
void launch_laswp_spread(T* tile, int64_t ld, int rows, int cols, const T* top, int64_t ld_top, const int* composed,
                         int kb, int64_t first, cudaStream_t stream);

/// The exchange buffers a top task reads: those of the tiles k+1 .. k+count (the rows of tile k + d sit in e[(d - 1)
/// mod p]).
template <typename T>
struct ExchangeBuffers {
    const T* e[kLaswpMaxTiles];
    int ld[kLaswpMaxTiles];
    int count;
};

/// Top: row i of the top tile (rows x cols, ld; rows <= 4096) := its original row top[i] when that lies in the
/// tile, else row i of the exchange buffer of the tile holding top[i] (tiles of nb rows, p grid rows).
template <typename T>
void launch_laswp_top(T* a, int64_t ld, int rows, int cols, const int* composed, int kb, int64_t nb, int p,
                      const ExchangeBuffers<T>& ex, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif
