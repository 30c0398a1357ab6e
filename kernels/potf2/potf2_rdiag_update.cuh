// The rdiag kernel's trailing update (C) (potf2_rdiag.cuh has the design): the static work splits and the
// accumulators kept in registers across panels, in double as 8 x 8 blocks on the FP64 tensor cores (RdiagSlots,
// RdiagAcc), in float as items of RI rows x 8 columns on the FMA units (RdiagItems, RdiagAccF).
#pragma once
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/potf2/mma_f64.cuh"

namespace starfact::detail::gpu::potf2_impl {

/// K consecutive T from 16-byte aligned shared memory.
template <typename T, int K>
__device__ __forceinline__ void load_vec(T (&v)[K], const T* src) {
    static_assert(K * sizeof(T) % 16 == 0, "vector of 16-byte words");
    constexpr int W = static_cast<int>(16 / sizeof(T));
    using V = typename std::conditional<sizeof(T) == 8, double2, float4>::type;
#pragma unroll
    for (int k = 0; k < K; k += W) {
        const V x = *reinterpret_cast<const V*>(src + k);
        const T* e = reinterpret_cast<const T*>(&x);
#pragma unroll
        for (int l = 0; l < W; ++l) v[k + l] = e[l];
    }
}

/// RI (2 or 4) consecutive floats of a column: one 8- or 16-byte shared-memory access.
template <int RI>
__device__ __forceinline__ void load_rows(float (&v)[RI], const float* src) {
    if constexpr (RI == 4) {
        const float4 x = *reinterpret_cast<const float4*>(src);
        v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    } else {
        const float2 x = *reinterpret_cast<const float2*>(src);
        v[0] = x.x, v[1] = x.y;
    }
}
template <int RI>
__device__ __forceinline__ void store_rows(float* dst, const float (&v)[RI]) {
    if constexpr (RI == 4)
        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    else
        *reinterpret_cast<float2*>(dst) = make_float2(v[0], v[1]);
}

/// The float trailing update's static work split (no exact FP32 tensor-core product: FMA items of RI
/// consecutive rows x 8 columns, every shared-memory access a vector). The items of the padded
/// (wp + rp) x wp lower triangle with column block cb >= 1 (block column 0 is never updated), row
/// groups from the diagonal down, enumerated column block by column block, item e to thread e mod NT:
/// the items a panel k updates (cb > k) are a suffix of that order, so every panel's update is balanced
/// to within one item, and consecutive threads take consecutive row groups of a column block (conflict-
/// free). RI = 4 for the 128-wide kernel, 2 for the smaller ones (their trailing matrices would leave
/// threads idle). Rows above the diagonal inside a diagonal block are computed but never read.
template <int WMAX, int RMAX, int NT, int RI>
struct RdiagItems {
    static constexpr int items_max() {
        int n = 0;
        for (int cb = 1; cb < WMAX / 8; ++cb) n += (WMAX + RMAX - 8 * cb) / RI;
        return n;
    }
    static constexpr int kSlots = (items_max() + NT - 1) / NT;
    int packed[kSlots > 0 ? kSlots : 1];  // (first shared-memory row << 8) | cb, or -1

    __device__ __forceinline__ RdiagItems(int tid, int wp, int rp) {
        const int nbc = wp / 8, nrows = wp + rp;
        int cb = 1, off = tid;  // item e = tid + s NT: column block cb, row group off from the diagonal
#pragma unroll
        for (int s = 0; s < kSlots; ++s) {
            if (s > 0) off += NT;
            while (cb < nbc && off >= (nrows - 8 * cb) / RI) {
                off -= (nrows - 8 * cb) / RI;
                ++cb;
            }
            packed[s] = cb < nbc ? ((8 * cb + RI * off) << 8) | cb : -1;
        }
    }
};

/// (C) in float with the static split above, accumulators in registers across panels (like double's
/// RdiagAcc): each thread keeps its items from the start to the panel before their column block, so
/// shared memory sees only the panel operands and, once, the store of an item when its column block
/// becomes the next panel. Panel kb = k0 / 8: S(i, j) -= sum_q P(i, q) P(j, q), P = columns k0 .. k0 + 7.
template <typename Items, int RI>
struct RdiagAccF {
    float c[Items::kSlots > 0 ? Items::kSlots : 1][8][RI];

    /// The owned items from shared memory (after the tile was loaded).
    __device__ __forceinline__ void load(const float* S, int lds, const Items& it) {
#pragma unroll
        for (int s = 0; s < Items::kSlots; ++s) {
            const int pk = it.packed[s];
            if (pk >= 0)
#pragma unroll
                for (int j = 0; j < 8; ++j) load_rows<RI>(c[s][j], S + (pk >> 8) + (8 * (pk & 0xff) + j) * lds);
        }
    }

    __device__ __forceinline__ void update(float* S, int lds, int k0, const Items& it) {
        const int kb = k0 / 8;
#pragma unroll
        for (int s = 0; s < Items::kSlots; ++s) {
            const int pk = it.packed[s];
            const int row = pk >> 8, col = 8 * (pk & 0xff);
            if (pk < 0 || (pk & 0xff) <= kb) continue;
#pragma unroll
            for (int q = 0; q < 8; ++q) {
                const float* pc = S + (k0 + q) * lds;
                float a[RI], b[8];
                load_rows<RI>(a, pc + row);
                load_vec(b, pc + col);  // the same address across the column block: a broadcast
#pragma unroll
                for (int j = 0; j < 8; ++j)
#pragma unroll
                    for (int i = 0; i < RI; ++i) c[s][j][i] = fma(-a[i], b[j], c[s][j][i]);
            }
            if ((pk & 0xff) == kb + 1)  // final: the next panel's (A) reads it
#pragma unroll
                for (int j = 0; j < 8; ++j) store_rows<RI>(S + row + (col + j) * lds, c[s][j]);
        }
    }
};

/// The double trailing update's static work split: the 8 x 8 blocks (br, bc) of the padded
/// (wp + rp) x wp lower block triangle with bc >= 1 (block column 0 is never updated), enumerated
/// column by column, block e to warp e mod NWARP. The blocks a panel k updates (bc > k) are a suffix of
/// that order, so every panel's update is balanced across the warps to within one block, and a warp
/// finds its blocks without any index arithmetic in the panel loop. Shared-memory row of block row br
/// is 8 br (the rows below the diagonal block are stored from row wp on).
template <int WMAX, int RMAX, int NWARP>
struct RdiagSlots {
    static constexpr int kBlocksMax = (WMAX / 8 - 1) * ((WMAX + RMAX) / 8) - (WMAX / 8 - 1) * (WMAX / 8) / 2;
    static constexpr int kSlots = (kBlocksMax + NWARP - 1) / NWARP;
    int packed[kSlots > 0 ? kSlots : 1];  // (br << 8) | bc, or -1

    __device__ __forceinline__ RdiagSlots(int warp, int wp, int rp) {
        const int nbc = wp / 8, nbr = (wp + rp) / 8;
        int bc = 1, off = warp;  // block e = warp + s NWARP: column bc, offset off in it
#pragma unroll
        for (int s = 0; s < kSlots; ++s) {
            if (s > 0) off += NWARP;
            while (bc < nbc && off >= nbr - bc) {
                off -= nbr - bc;
                ++bc;
            }
            packed[s] = bc < nbc ? ((bc + off) << 8) | bc : -1;
        }
    }
};

/// (C) in double with the static split above, accumulators in registers across panels: every warp
/// keeps the 8 x 8 blocks it owns as mma accumulator fragments (d0, d1: lane l = 4 g + t holds
/// rows g, columns 2t and 2t + 1) from the start to the panel before their block column, so shared
/// memory sees only the panel operands (2 x 2 loads per block and panel) and, once, the store of each
/// block when its column becomes the next panel. Panel kb = k0 / 8: every block with bc > kb gets
/// S(i, j) -= sum_q P(i, q) P(j, q) (P = columns k0 .. k0 + 7, on the FP64 tensor cores); the blocks of
/// column kb + 1 are then final and go to shared memory for (A). U blocks at a time, so that their
/// loads and mma chains overlap.
template <typename Slots>
struct RdiagAcc {
    double d0[Slots::kSlots > 0 ? Slots::kSlots : 1], d1[Slots::kSlots > 0 ? Slots::kSlots : 1];

    /// The owned blocks from shared memory (after the tile was loaded).
    __device__ __forceinline__ void load(const double* S, int lds, const Slots& sl, int lane) {
        const int g = lane >> 2, t = lane & 3;
#pragma unroll
        for (int s = 0; s < Slots::kSlots; ++s) {
            const int pk = sl.packed[s];
            const double* c = S + 8 * (pk >> 8) + g + (8 * (pk & 0xff) + 2 * t) * lds;
            d0[s] = pk >= 0 ? c[0] : 0.0;
            d1[s] = pk >= 0 ? c[lds] : 0.0;
        }
    }

    __device__ __forceinline__ void update(double* S, int lds, int k0, const Slots& sl, int lane) {
        const int g = lane >> 2, t = lane & 3, kb = k0 / 8;
        constexpr int U = 4, NS = Slots::kSlots;
#pragma unroll
        for (int s0 = 0; s0 < NS; s0 += U) {
            bool ok[U], any = false;
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int pk = s0 + u < NS ? sl.packed[s0 + u] : -1;
                ok[u] = pk >= 0 && (pk & 0xff) > kb;  // warp-uniform
                any = any || ok[u];
            }
            if (!any) continue;  // (the active slots are a suffix of the valid ones)
            double a[U][2], b[U][2];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int pk = s0 + u < NS ? sl.packed[s0 + u] : 0;
                const int row0 = ok[u] ? 8 * (pk >> 8) : 8 * kb + 8;  // inactive: a valid row, unused
                const int col0 = ok[u] ? 8 * (pk & 0xff) : 8 * kb + 8;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const double* pc = S + (k0 + 4 * h + t) * lds;
                    a[u][h] = -pc[row0 + g];
                    b[u][h] = pc[col0 + g];
                }
            }
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int u = 0; u < U; ++u)
                    if (s0 + u < NS && ok[u]) dmma_8x8x4(d0[s0 + u], d1[s0 + u], a[u][h], b[u][h]);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int pk = s0 + u < NS ? sl.packed[s0 + u] : -1;
                if (ok[u] && (pk & 0xff) == kb + 1) {  // final: the next panel's (A) reads it
                    double* c = S + 8 * (pk >> 8) + g + (8 * (pk & 0xff) + 2 * t) * lds;
                    c[0] = d0[s0 + u];
                    c[lds] = d1[s0 + u];
                }
            }
        }
    }
};

}  // namespace starfact::detail::gpu::potf2_impl
