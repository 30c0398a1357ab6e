// Leaf launches of the fused potf2 (potf2.cu, potf2_forms.cuh): their parameters, their mode bits and the
// failure protocol of the multi-kernel forms (the tile's flag in the workspace), shared by the
// replicated-diagonal kernel (potf2_rdiag.cuh) and the single-block leaves of the tuning tool
// (tools/tune/potf2/potf2_leaf.cuh).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::detail::gpu::potf2_impl {

/// Mode bits of one leaf launch in the recursive form (0 = the tile is a single leaf, no flag).
enum LeafMode : int {
    kFirst = 1,  // first leaf: resets the tile's failure flag
    kCheck = 2,  // skip if an earlier leaf of the tile failed (flag != 0)
    kLast = 4,   // last leaf: if skipped, sets the lower triangle of columns >= failure to the identity
    kAllowNext = 8,  // rdiag kernel: the next kernel of the stream is ours and waits (pdl.cuh): let it launch
};

template <typename T>
struct LeafParams {
    T* A;               // the leaf's first element
    int n;              // leaf order (<= NMAX)
    int ld;             // leading dimension (of the tile)
    int* info;          // LAPACK-style info of the matrix (device)
    int64_t info_base;  // offset of the tile + leaf offset inside the tile
    int* flag;          // tile failure flag (device; 0 or first failing tile column, 1-based); null if single leaf
    int leaf_off;       // leaf offset inside the tile
    int mode;           // LeafMode bits
    T* tile;            // the tile's first element (for the clean-up by the last leaf)
    int n_tile;         // tile order
    int m = 0;          // rows below the leaf solved in the same launch (rdiag kernel only, potf2_rdiag.cuh)
    int* arrivals = nullptr;  // rdiag kernel with m > 0: thread blocks that read the leaf (device, 0 at launch; left 0)
};

/// Lower triangle of columns [j_from, n) of the n x n matrix A set to the identity (block-wide loop).
template <typename T, int NT>
__device__ void set_identity_columns(T* A, int n, int ld, int j_from) {
    for (int j = j_from; j < n; ++j)
        for (int i = j + static_cast<int>(threadIdx.x); i < n; i += NT)
            A[i + static_cast<int64_t>(j) * ld] = (i == j) ? T(1) : T(0);
}

/// Start of every leaf: flag protocol of the recursive form. Returns true if the leaf must not run (an
/// earlier leaf of the tile failed; the last leaf then sets the columns from the failure on to the identity).
template <typename T, int NT>
__device__ __forceinline__ bool leaf_skipped(const LeafParams<T>& p, int& s_state) {
    if (threadIdx.x == 0) {
        int st = 0;
        if ((p.mode & kCheck) && *p.flag != 0) st = -1;
        if ((p.mode & kFirst) && blockIdx.x == 0) *p.flag = 0;  // block 0 only: others must not undo its report
        s_state = st;
    }
    __syncthreads();
    if (s_state < 0) {
        if (p.mode & kLast) set_identity_columns<T, NT>(p.tile, p.n_tile, p.ld, *p.flag - 1);
        return true;
    }
    return false;
}

}  // namespace starfact::detail::gpu::potf2_impl
