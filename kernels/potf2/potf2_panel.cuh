// The trailing update of the blocked form of the fused potf2 (tiles larger than the cut-off, see
// potf2_forms.cuh): after the fused launch factored the diagonal block L11 (b x b, b <= 128) and solved
// the panel below it, L21 = A21 L11^{-T}, potf2_syrk_kernel applies A22 -= L21 L21^T on the lower triangle
// (one block per 32 x 32 tile). It reads the tile's failure flag first and skips work that an earlier
// failure made pointless. PanelParams also serves the panel trsm of the tuning tool's single-block leaves
// (tools/tune/potf2/potf2_trsm.cuh).
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/potf2/mma_f64.cuh"
#include "kernels/potf2/pdl.cuh"

namespace starfact::detail::gpu::potf2_impl {

template <typename T>
struct PanelParams {
    const T* L;     // L11 (b x b, lower), leading dimension ld
    T* B;           // A21 (m x b) in, L21 out
    T* C;           // A22 (m x m, lower)
    int b;          // panel width (<= BMAX)
    int m;          // rows below the diagonal block
    int ld;
    const int* flag;  // tile failure flag (0 or first failing tile column, 1-based)
    int k0;           // tile column of the panel
};

/// Syrk kernel geometry: a TS x TS tile of C per thread block, the two TS-row slices of L21 in shared
/// memory k-major with leading dimension TS + 4 (the FP64 mma fragments then hit every bank once per
/// half-warp; float rows stay 16-byte aligned), k padded with zeros to a multiple of 8.
struct SyrkShape {
    static constexpr int kTS = 32, kLds = kTS + 4, kThreads = 256;
    __host__ __device__ static constexpr int kpad(int b) { return (b + 7) / 8 * 8; }
    /// The slices, or (after them, in the same space) the partial sums: 2 (double) / 4 (float) tiles.
    template <typename T>
    static size_t smem_bytes(int b) {
        const size_t slices = 2 * static_cast<size_t>(kpad(b)) * kLds;
        const size_t partials = (sizeof(T) == 8 ? 2 : 4) * static_cast<size_t>(kTS) * (kTS + 1);
        return (slices > partials ? slices : partials) * sizeof(T);
    }
};

/// A22 -= L21 L21^T, lower triangle, one 32 x 32 tile per block (blockIdx.x enumerates the lower tiles
/// row by row), for every width of A22 (measured faster than cublas<t>syrk, docs/potf2.md). On the
/// critical path of the blocked form, so built for latency: the tile's C entries are fetched into
/// registers at the start, the two slices of L21 arrive in one batch of cp.async copies, and the k range
/// is split over the warps (partial sums added through shared memory at the end). Double: 8 warps = 4
/// sub-tiles of 16 x 16 (2 x 2 FP64 mma blocks) x 2 halves of k, two accumulator sets each. Float: 4
/// groups of 64 threads, each thread 4 x 4 outputs on every 4th k (vector loads, FMA). Skipped after a
/// failure.
template <typename T, int KMAX>
__global__ void __launch_bounds__(SyrkShape::kThreads) potf2_syrk_kernel(PanelParams<T> p) {
    constexpr int TS = SyrkShape::kTS, LDS = SyrkShape::kLds, NT = SyrkShape::kThreads;
    constexpr int EPT = TS * TS / NT;  // C entries fetched and stored per thread
    extern __shared__ __align__(16) unsigned char potf2_syrk_smem[];
    T* Xi = reinterpret_cast<T*>(potf2_syrk_smem);  // Xi[k * LDS + i] = L21(i0 + i, k)
    pdl_wait();  // launched as a programmatic dependent of the kernel before it (potf2.cu)
    pdl_allow_next();
    // Tile (I, J), I >= J, from the linear index t = I (I + 1) / 2 + J.
    const int t = static_cast<int>(blockIdx.x);
    int I = static_cast<int>((sqrtf(8.0f * t + 1.0f) - 1.0f) * 0.5f);
    while (I * (I + 1) / 2 > t) --I;
    while ((I + 1) * (I + 2) / 2 <= t) ++I;
    const int J = t - I * (I + 1) / 2;
    const int i0 = I * TS, j0 = J * TS;
    const int tid = static_cast<int>(threadIdx.x);
    const int ld = p.ld, m = p.m, b = p.b, kp = SyrkShape::kpad(b);
    T* Xj = I == J ? Xi : Xi + kp * LDS;  // a diagonal tile reads one slice twice

    // This thread's C entries e = tid + NT s: row e % TS, column e / TS (coalesced), fetched now.
    T c[EPT];
#pragma unroll
    for (int s = 0; s < EPT; ++s) {
        const int e = tid + NT * s, i = i0 + e % TS, j = j0 + e / TS;
        c[s] = i < m && j < m && i >= j ? p.C[i + static_cast<int64_t>(j) * ld] : T(0);
    }
    // The slices: thread (row li, k group lk) copies rows li of columns lk, lk + NT / TS, ...
    const T* X = p.B;
    const int li = tid % TS, lk = tid / TS;
#pragma unroll
    for (int s = 0; s < KMAX / (NT / TS); ++s) {
        const int k = lk + (NT / TS) * s;
        if (k < kp) {
            T* di = Xi + k * LDS + li;
            if (i0 + li < m && k < b)
                __pipeline_memcpy_async(di, X + (i0 + li) + static_cast<int64_t>(k) * ld, sizeof(T));
            else
                *di = T(0);
            if (I != J) {
                T* dj = Xj + k * LDS + li;
                if (j0 + li < m && k < b)
                    __pipeline_memcpy_async(dj, X + (j0 + li) + static_cast<int64_t>(k) * ld, sizeof(T));
                else
                    *dj = T(0);
            }
        }
    }
    __pipeline_commit();
    // After a failure of the tile nothing is stored (the flag is read once the loads are under way:
    // its round trip overlaps theirs; it is the same for every thread, no kernel of this launch writes it).
    const bool failed = *p.flag != 0;
    __pipeline_wait_prior(0);
    if (failed) return;
    __syncthreads();

    // Partial sums: R[h * TS * (TS + 1) + j * (TS + 1) + i] for k part h (over the slices, after a barrier).
    T* R = Xi;
    constexpr int RS = TS * (TS + 1);
    if constexpr (sizeof(T) == 8) {
        const int lane = tid & 31, warp = tid >> 5, g = lane >> 2, tq = lane & 3;
        const int q = warp & 3, h = warp >> 2;                // sub-tile, k half
        const int r0 = 16 * (q & 1), col0 = 16 * (q >> 1);   // sub-tile origin in the tile
        double d[2][2][2][2] = {};                            // [set][bi][bj][2]
        const int ns = kp / 4;                                // k steps of 4 (kp is a multiple of 8)
        for (int s = h; s < ns; s += 4) {
#pragma unroll
            for (int set = 0; set < 2; ++set) {
                const int ks = s + 2 * set;
                if (ks < ns) {
                    const T* xi = Xi + (4 * ks + tq) * LDS;
                    const T* xj = Xj + (4 * ks + tq) * LDS;
                    const double a0 = xi[r0 + g], a1 = xi[r0 + 8 + g];
                    const double b0 = xj[col0 + g], b1 = xj[col0 + 8 + g];
                    dmma_8x8x4(d[set][0][0][0], d[set][0][0][1], a0, b0);
                    dmma_8x8x4(d[set][0][1][0], d[set][0][1][1], a0, b1);
                    dmma_8x8x4(d[set][1][0][0], d[set][1][0][1], a1, b0);
                    dmma_8x8x4(d[set][1][1][0], d[set][1][1][1], a1, b1);
                }
            }
        }
        __syncthreads();  // everyone is done with the slices: R overwrites them
#pragma unroll
        for (int bi = 0; bi < 2; ++bi)
#pragma unroll
            for (int bj = 0; bj < 2; ++bj)
#pragma unroll
                for (int v = 0; v < 2; ++v) {
                    const int i = r0 + 8 * bi + g, j = col0 + 8 * bj + 2 * tq + v;
                    R[h * RS + j * (TS + 1) + i] = d[0][bi][bj][v] + d[1][bi][bj][v];
                }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < EPT; ++s) {
            const int e = tid + NT * s, i = e % TS, j = e / TS;
            c[s] -= R[j * (TS + 1) + i] + R[RS + j * (TS + 1) + i];
        }
    } else {
        const int grp = tid / 64, gt = tid % 64, tx = gt % 8, ty = gt / 8;  // k group, 4 x 4 outputs
        T acc[4][4] = {};
        for (int k = grp; k < kp; k += 4) {
            const float4 a = *reinterpret_cast<const float4*>(Xi + k * LDS + 4 * tx);
            const float4 bb = *reinterpret_cast<const float4*>(Xj + k * LDS + 4 * ty);
            const T av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {bb.x, bb.y, bb.z, bb.w};
#pragma unroll
            for (int x = 0; x < 4; ++x)
#pragma unroll
                for (int y = 0; y < 4; ++y) acc[x][y] = fma(av[x], bv[y], acc[x][y]);
        }
        __syncthreads();  // everyone is done with the slices: R overwrites them
#pragma unroll
        for (int x = 0; x < 4; ++x)
#pragma unroll
            for (int y = 0; y < 4; ++y) R[grp * RS + (4 * ty + y) * (TS + 1) + 4 * tx + x] = acc[x][y];
        __syncthreads();
#pragma unroll
        for (int s = 0; s < EPT; ++s) {
            const int e = tid + NT * s, o = (e / TS) * (TS + 1) + e % TS;
            c[s] -= (R[o] + R[RS + o]) + (R[2 * RS + o] + R[3 * RS + o]);
        }
    }
#pragma unroll
    for (int s = 0; s < EPT; ++s) {
        const int e = tid + NT * s, i = i0 + e % TS, j = j0 + e / TS;
        if (i < m && j < m && i >= j) p.C[i + static_cast<int64_t>(j) * ld] = c[s];
    }
}

}  // namespace starfact::detail::gpu::potf2_impl
