// The replicated-diagonal potf2 kernel ("rdiag"): right-looking Cholesky of a w x w diagonal block
// (w <= WMAX <= 128) held in shared memory, fused with the triangular solve of up to RMAX rows below it
// (L21 = A21 L11^{-T}), one launch. Per panel of IB columns:
//   (A) every thread that owns a row of the panel (a row of the diagonal block or a row below) loads
//       the IB x IB diagonal block into registers and factors it *redundantly* (same instructions, same
//       inputs, so the same bits in every thread), solving its own row on the way: no shuffles, no
//       single-warp phase, no barrier between the diagonal factorization and the rows below;
//   (B) one barrier; (C) the trailing update with the panel, in items of one row x 8 columns spread
//       over all threads afresh every panel (conflict-free rows, broadcast columns); one barrier.
// With RMAX > 0 each thread block owns RMAX rows below the diagonal block and factors the diagonal block
// itself (redundantly across thread blocks: no inter-block synchronisation); block 0 alone writes L11,
// info and the failure flag. The tile is padded to a multiple of 8 columns with the identity, the rows
// below with zero rows, so the math has no bounds checks. Loads go global -> shared through cp.async.
// Design notes and measurements: docs/potf2.md.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "codelets/cuda/potf2/potf2_leaf.cuh"

namespace starfact::detail::gpu::potf2_impl {

#ifdef STARFACT_POTF2_PROFILE
/// Developer instrumentation (bench_potf2_prof only): SM clock of thread 0 of block 0 at the phase
/// boundaries: [0] start, [1] tile loaded, then per panel k: [2 + 2k] after (A), [3 + 2k] after (C).
__device__ long long g_rdiag_clock[2 + 2 * 128 / 8 + 2];
#define STARFACT_RDIAG_MARK(i) \
    if (threadIdx.x == 0 && blockIdx.x == 0) g_rdiag_clock[(i)] = clock64()
#else
#define STARFACT_RDIAG_MARK(i)
#endif

/// Thread-block shape of the rdiag kernel: enough threads for one row each in (A) (WMAX + RMAX) and
/// enough warps to spread the trailing update (C), whose work items are 1 row x kBC columns.
template <int WMAX, int RMAX>
struct RdiagShape {
    static constexpr int kBC = 8;
    static constexpr int round32(int x) { return 32 * ((x + 31) / 32); }
    static constexpr int kMinThreads = WMAX >= 128 ? 384 : WMAX >= 64 ? 192 : 64;
    static constexpr int kThreads = round32(WMAX + RMAX) > kMinThreads ? round32(WMAX + RMAX) : kMinThreads;
    /// Shared memory for a w x w block with `rows` rows below (padded as the kernel pads them).
    __host__ __device__ static constexpr int pad8(int x) { return (x + 7) / 8 * 8; }
    /// Leading dimension in shared memory: 4 (mod 8) elements, so that the 8 x 4 operand and 8 x 8
    /// accumulator fragments of the FP64 tensor-core update hit every bank pair once.
    __host__ __device__ static constexpr int lds(int wp, int rp) { return wp + rp + 4; }
    template <typename T>
    static size_t smem_bytes(int w, int rows) {
        const int wp = pad8(w), rp = rows > 0 ? RMAX : 0;
        return static_cast<size_t>(lds(wp, rp)) * wp * sizeof(T);
    }
};

/// D = A B + D on the FP64 tensor cores, one 8 x 8 x 4 step for the warp (PTX mma.m8n8k4.f64: lane
/// l = 4 g + t holds A(g, t), B(t, g) and D(g, 2t), D(g, 2t + 1)).
__device__ __forceinline__ void dmma_8x8x4(double& d0, double& d1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

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
template <typename T, int WMAX, int RMAX, int IB>
__global__ void __launch_bounds__(RdiagShape<WMAX, RMAX>::kThreads, 1) potf2_rdiag_kernel(LeafParams<T> p) {
    using Shape = RdiagShape<WMAX, RMAX>;
    constexpr int NT = Shape::kThreads, BC = Shape::kBC;
    constexpr int NWARP = NT / 32;
    static_assert(IB == 8, "IB: 8 (the diagonal block lives in 36 registers per thread)");
    static_assert(WMAX % 8 == 0 && WMAX <= 128 && RMAX % 8 == 0 && IB % BC == 0, "shape");

    extern __shared__ __align__(16) unsigned char potf2_rdiag_smem[];
    T* S = reinterpret_cast<T*>(potf2_rdiag_smem);
    __shared__ int s_state;

    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;
    const int n = p.n, ld = p.ld;
    const int wp = Shape::pad8(n);
    const int r0 = static_cast<int>(blockIdx.x) * RMAX;              // first row below owned by this block
    const int rows = RMAX > 0 ? max(0, min(RMAX, p.m - r0)) : 0;      // rows below owned by this block
    const int rp = rows > 0 ? RMAX : 0;
    const int lds = Shape::lds(wp, rp);
    const bool leader = blockIdx.x == 0;

    STARFACT_RDIAG_MARK(0);
    if (leaf_skipped<T, NT>(p, s_state)) return;

    // Global -> shared (cp.async, no register round trip): lower triangle of the diagonal block padded
    // with the identity; the rows below padded with zeros. The strictly upper triangle is not read.
    for (int j = warp; j < wp; j += NWARP) {
        const T* src = p.A + static_cast<int64_t>(j) * ld;
#pragma unroll
        for (int s = 0; s < WMAX / 32; ++s) {  // unrolled: independent copies in flight
            const int i = j + lane + 32 * s;
            if (i < wp) {
                T* dst = S + i + j * lds;
                if (i < n && j < n)
                    __pipeline_memcpy_async(dst, src + i, sizeof(T));
                else
                    *dst = i == j ? T(1) : T(0);
            }
        }
        for (int i = lane; i < rp; i += 32) {
            T* dst = S + wp + i + j * lds;
            if (i < rows && j < n)
                __pipeline_memcpy_async(dst, p.A + n + r0 + i + static_cast<int64_t>(j) * ld, sizeof(T));
            else
                *dst = T(0);
        }
    }
    __pipeline_commit();

    __pipeline_wait_prior(0);
    __syncthreads();
    STARFACT_RDIAG_MARK(1);

    int st = 0;
    for (int k0 = 0; k0 < wp; k0 += IB) {
        // (A) rows k0 .. lds-1 of the panel, one per thread; the diagonal block factored redundantly.
        const int r = k0 + tid;
        T x[IB];
        int valid = 0;  // columns of x that hold L
        if (r < lds) {
            T d[IB][IB];
#pragma unroll
            for (int i = 0; i < IB; ++i)
#pragma unroll
                for (int j = i; j < IB; ++j) d[j][i] = S[k0 + j + (k0 + i) * lds];
#pragma unroll
            for (int c = 0; c < IB; ++c) x[c] = S[r + (k0 + c) * lds];
            // Branch-free: a bad pivot only records its column (off the critical path); what is computed
            // after it is never stored.
            int fail = 0;  // 1-based panel column of the first bad pivot
#pragma unroll
            for (int c = 0; c < IB; ++c) {
                const T piv = d[c][c];
                const bool bad = !(piv > T(0)) || !isfinite(piv);
                fail = (fail == 0 && bad) ? c + 1 : fail;
                const T rs = rsqrt_of(piv);
                d[c][c] = piv * rs;
                x[c] *= rs;
#pragma unroll
                for (int j = c + 1; j < IB; ++j) d[j][c] *= rs;
#pragma unroll
                for (int i = c + 1; i < IB; ++i) {
#pragma unroll
                    for (int j = i; j < IB; ++j) d[j][i] = fma(-d[j][c], d[i][c], d[j][i]);
                    x[i] = fma(-x[c], d[i][c], x[i]);
                }
            }
            valid = fail ? fail - 1 : IB;
            // Rows below now; the diagonal block's own rows only after the barrier: other threads may
            // still be reading the unfactored block there.
            if (r >= k0 + IB)
#pragma unroll
                for (int c = 0; c < IB; ++c)
                    if (c < valid) S[r + (k0 + c) * lds] = x[c];
            if (tid == 0 && fail) s_state = k0 + fail;
        }
        __syncthreads();
        if (r < k0 + IB)  // lower part of the diagonal block (not read again before the write-back)
#pragma unroll
            for (int c = 0; c < IB; ++c)
                if (c < valid && c <= r - k0) S[r + (k0 + c) * lds] = x[c];
        STARFACT_RDIAG_MARK(2 + 2 * (k0 / IB));
        st = s_state;
        if (st != 0 || k0 + IB >= wp) break;

        // (C) trailing update with the panel: S(r, c) -= sum_q P(r, q) P(c, q), P = columns k0..k0+IB-1.
        // Float (no exact FP32 tensor-core product): work items of RI rows x BC columns (rows g, g + H, ...: consecutive threads take consecutive
        // rows of one column block, so row accesses are conflict-free and the column block's panel rows
        // are a broadcast shared by the item's RI rows), re-spread over all threads every panel. Rows
        // entirely above the diagonal are computed but not stored (the upper triangle is never read).
        if constexpr (sizeof(T) == 8) {
            // Double: 8 x 8 blocks on the FP64 tensor cores, one warp per block (IB / 4 mma steps).
            const int k1 = k0 + IB;
            const int nd = wp - k1, nr = nd + rp;
            const int nbr = nr / 8, nblocks = nbr * (nd / 8);
            const int g = lane >> 2, t = lane & 3;
            for (int blk = warp; blk < nblocks; blk += NWARP) {
                const int bc = blk / nbr, br = blk - bc * nbr;
                if (br * 8 < nd && bc > br) continue;  // above the diagonal (warp-uniform)
                const int row0 = br * 8 < nd ? k1 + br * 8 : wp + (br * 8 - nd);
                const int col0 = k1 + bc * 8;
                T* c = S + row0 + g + (col0 + 2 * t) * lds;
                double d0 = c[0], d1 = c[lds];
#pragma unroll
                for (int kk = 0; kk < IB; kk += 4) {
                    const T* pc = S + (k0 + kk + t) * lds;
                    dmma_8x8x4(d0, d1, -pc[row0 + g], pc[col0 + g]);
                }
                c[0] = d0;
                c[lds] = d1;
            }
        } else {
            constexpr int RI = 2;
            const int k1 = k0 + IB;
            const int nd = wp - k1;      // trailing rows of the diagonal block
            const int nr = nd + rp;      // + the rows below (nr is a multiple of 8)
            const int H = nr / RI;
            const int items = H * (nd / BC);
            const float inv_h = 1.0f / static_cast<float>(H);
            for (int e = tid; e < items; e += NT) {
                int cb = static_cast<int>((static_cast<float>(e) + 0.5f) * inv_h);
                int g = e - cb * H;
                if (g < 0) { --cb; g += H; }
                if (g >= H) { ++cb; g -= H; }
                const int col = k1 + BC * cb;
                const int last = g + (RI - 1) * H;                // the item's lowest row
                if (last < nd && BC * cb > last) continue;        // every row above the diagonal
                int row[RI];
#pragma unroll
                for (int i = 0; i < RI; ++i) {
                    const int rr = g + i * H;
                    row[i] = rr < nd ? k1 + rr : wp + (rr - nd);
                }
                T acc[RI][BC];
#pragma unroll
                for (int i = 0; i < RI; ++i)
#pragma unroll
                    for (int j = 0; j < BC; ++j) acc[i][j] = T(0);
#pragma unroll
                for (int q = 0; q < IB; ++q) {
                    const T* pc = S + (k0 + q) * lds;
                    T b[BC];
                    load_vec(b, pc + col);  // the same address across the column block: a broadcast
#pragma unroll
                    for (int i = 0; i < RI; ++i) {
                        const T a = pc[row[i]];
#pragma unroll
                        for (int j = 0; j < BC; ++j) acc[i][j] = fma(a, b[j], acc[i][j]);
                    }
                }
#pragma unroll
                for (int i = 0; i < RI; ++i) {
                    const int rr = g + i * H;
                    if (rr < nd && BC * cb > rr) continue;
#pragma unroll
                    for (int j = 0; j < BC; ++j) S[row[i] + (col + j) * lds] -= acc[i][j];
                }
            }
        }
        __syncthreads();
        STARFACT_RDIAG_MARK(3 + 2 * (k0 / IB));
    }

    __syncthreads();  // the last diagonal rows were stored after the loop's last barrier

    // Write back: L for the columns before a failure; from it on the identity (diagonal block) and
    // zeros (rows below). Block 0 writes the diagonal block and reports.
    const int fcol = st > 0 ? st - 1 : n;
    for (int j = warp; j < n; j += NWARP) {
        if (leader) {
            T* dst = p.A + static_cast<int64_t>(j) * ld;
            T v[WMAX / 32];
#pragma unroll
            for (int s = 0; s < WMAX / 32; ++s) {  // all loads first, then the stores
                const int i = j + lane + 32 * s;
                v[s] = i < n ? S[i + j * lds] : T(0);
            }
#pragma unroll
            for (int s = 0; s < WMAX / 32; ++s) {
                const int i = j + lane + 32 * s;
                if (i < n) dst[i] = j < fcol ? v[s] : (i == j ? T(1) : T(0));
            }
        }
        for (int i = lane; i < rows; i += 32)
            p.A[n + r0 + i + static_cast<int64_t>(j) * ld] = j < fcol ? S[wp + i + j * lds] : T(0);
    }
    if (leader && tid == 0 && st > 0) {
        if (*p.info == 0) *p.info = static_cast<int>(p.info_base + st);
        if (p.flag) *p.flag = p.leaf_off + st;
    }
    STARFACT_RDIAG_MARK(2 + 2 * 128 / 8 + 1);
}

}  // namespace starfact::detail::gpu::potf2_impl
