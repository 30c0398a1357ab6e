// The replicated-diagonal potf2 kernel ("rdiag"): right-looking Cholesky of a w x w diagonal block
// (w <= WMAX <= 128) held in shared memory, fused with the triangular solve of up to RMAX rows below it
// (L21 = A21 L11^{-T}), one launch. Per panel of IB columns:
//   (A) every thread that owns a row of the panel (a row of the diagonal block or a row below) loads
//       the IB x IB diagonal block into registers and factors it *redundantly* (same instructions, same
//       inputs, so the same bits in every thread), solving its own row on the way: no shuffles, no
//       single-warp phase, no barrier between the diagonal factorization and the rows below;
//   (B) one barrier (the diagonal block's own rows are stored after it); (C) the trailing update with
//       the panel, spread over all threads afresh every panel: 8 x 8 blocks on the FP64 tensor cores
//       (mma.m8n8k4) in double, items of 2 rows x 8 columns on the FMA units in float; one barrier.
// With RMAX > 0 each thread block owns RMAX rows below the diagonal block and factors the diagonal block
// itself (redundantly across thread blocks: no inter-block synchronisation); block 0 alone writes L11,
// info and the failure flag. The tile is padded to a multiple of 8 columns with the identity, the rows
// below with zero rows, so the math has no bounds checks. Loads go global -> shared through cp.async.
// Design notes and measurements: docs/potf2.md.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

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
/// enough warps to spread the trailing update (C); kBC = columns of a float update item.
template <int WMAX, int RMAX>
struct RdiagShape {
    static constexpr int kBC = 8;
    static constexpr int round32(int x) { return 32 * ((x + 31) / 32); }
    static constexpr int kMinThreads = WMAX >= 128 ? 384 : WMAX >= 64 ? 192 : 64;
    static constexpr int kThreads = round32(WMAX + RMAX) > kMinThreads ? round32(WMAX + RMAX) : kMinThreads;
    __host__ __device__ static constexpr int pad8(int x) { return (x + 7) / 8 * 8; }
    /// Leading dimension in shared memory: 4 (mod 8) elements, so that the 8 x 4 operand and 8 x 8
    /// accumulator fragments of the FP64 tensor-core update hit every bank pair once.
    __host__ __device__ static constexpr int lds(int wp, int rp) { return wp + rp + 4; }
    /// Shared memory for a w x w block with `rows` rows below (padded as the kernel pads them).
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
/// (A) for row r of the panel at column k0: loads the IB x IB diagonal block and factors it in registers
/// (every calling thread the same way, so all hold the same bits), solving row r on the way: x = L(r,
/// panel). Branch-free: a bad pivot only records its 1-based panel column in `fail` (what follows it is
/// garbage and never stored). Stores the row at once if it lies below the diagonal block (no one reads
/// it during the phase); returns the number of valid columns.
template <typename T, int IB>
__device__ __forceinline__ int rdiag_factor_row(T* S, int lds, int k0, int r, T (&x)[IB], int& fail) {
    T d[IB][IB];
#pragma unroll
    for (int i = 0; i < IB; ++i)
#pragma unroll
        for (int j = i; j < IB; ++j) d[j][i] = S[k0 + j + (k0 + i) * lds];
#pragma unroll
    for (int c = 0; c < IB; ++c) x[c] = S[r + (k0 + c) * lds];
    fail = 0;
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
    const int valid = fail ? fail - 1 : IB;
    if (r >= k0 + IB)
#pragma unroll
        for (int c = 0; c < IB; ++c)
            if (c < valid) S[r + (k0 + c) * lds] = x[c];
    return valid;
}

/// (C) S(i, j) -= sum_q P(i, q) P(j, q) for the columns j in [cfirst, cfirst + ncols) and the rows
/// i >= j of the diagonal block (wp rows) plus the rp rows below it (stored from row wp on), with the
/// panel P = columns k0 .. k0 + IB - 1; by the gn threads gt = 0 .. gn - 1 of a group (whole warps).
/// Double: 8 x 8 blocks on the FP64 tensor cores, one warp per block, U blocks per pass so that their
/// loads and mma chains overlap. Float (no exact FP32 tensor-core product): items of RI rows x BC
/// columns, rows g, g + H, ...: consecutive threads take consecutive rows of one column block, so row
/// accesses are conflict-free and the column block's panel rows are a broadcast shared by the RI rows.
/// Blocks/rows entirely above the diagonal are skipped; the upper part of a diagonal block is computed
/// and stored but never read.
template <typename T, int IB, int BC>
__device__ __forceinline__ void rdiag_update(T* S, int lds, int wp, int rp, int k0, int cfirst, int ncols, int gt,
                                             int gn) {
    if (ncols <= 0) return;
    const int nd = wp - cfirst;  // rows of the diagonal block from cfirst on
    const int nr = nd + rp;      // + the rows below (a multiple of 8)
    if constexpr (sizeof(T) == 8) {
        const int lane = gt & 31, gw = gt >> 5, gnw = gn >> 5;
        const int g = lane >> 2, t = lane & 3;
        const int nbr = nr / 8, nblocks = nbr * (ncols / 8);
        constexpr int U = 4;
        for (int base = gw; base < nblocks; base += U * gnw) {
            bool ok[U];
            int row0[U], col0[U];
            double d0[U], d1[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int blk = base + u * gnw;
                const int bc = blk / nbr, br = blk - bc * nbr;
                ok[u] = blk < nblocks && !(br * 8 < nd && bc > br);  // warp-uniform
                row0[u] = ok[u] ? (br * 8 < nd ? cfirst + br * 8 : wp + (br * 8 - nd)) : cfirst;
                col0[u] = ok[u] ? cfirst + bc * 8 : cfirst;
                const T* c = S + row0[u] + g + (col0[u] + 2 * t) * lds;
                d0[u] = ok[u] ? c[0] : T(0);  // no read where another warp may write
                d1[u] = ok[u] ? c[lds] : T(0);
            }
#pragma unroll
            for (int kk = 0; kk < IB; kk += 4) {
                const T* pc = S + (k0 + kk + t) * lds;
#pragma unroll
                for (int u = 0; u < U; ++u) dmma_8x8x4(d0[u], d1[u], -pc[row0[u] + g], pc[col0[u] + g]);
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (ok[u]) {
                    T* c = S + row0[u] + g + (col0[u] + 2 * t) * lds;
                    c[0] = d0[u];
                    c[lds] = d1[u];
                }
        }
    } else {
        constexpr int RI = 2;
        const int H = nr / RI;
        const int items = H * (ncols / BC);
        const float inv_h = 1.0f / static_cast<float>(H);
        for (int e = gt; e < items; e += gn) {
            int cb = static_cast<int>((static_cast<float>(e) + 0.5f) * inv_h);
            int g = e - cb * H;
            if (g < 0) { --cb; g += H; }
            if (g >= H) { ++cb; g -= H; }
            const int col = cfirst + BC * cb;
            const int last = g + (RI - 1) * H;          // the item's lowest row
            if (last < nd && BC * cb > last) continue;  // every row above the diagonal
            int row[RI];
#pragma unroll
            for (int i = 0; i < RI; ++i) {
                const int rr = g + i * H;
                row[i] = rr < nd ? cfirst + rr : wp + (rr - nd);
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

    // Panel k0's (A) by the row threads, its barrier, then the diagonal rows' stores (after the barrier:
    // other threads may have been reading the unfactored block). Returns the failure state.
    T x[IB];
    auto panel = [&](int k0) {
        const int r = k0 + tid;
        int valid = 0, fail = 0;
        if (r < lds) {
            valid = rdiag_factor_row<T, IB>(S, lds, k0, r, x, fail);
            if (tid == 0 && fail) s_state = k0 + fail;
        }
        __syncthreads();
        if (r < k0 + IB)  // lower part of the diagonal block (not read again before the write-back)
#pragma unroll
            for (int c = 0; c < IB; ++c)
                if (c < valid && c <= r - k0) S[r + (k0 + c) * lds] = x[c];
        STARFACT_RDIAG_MARK(2 + 2 * (k0 / IB));
        return s_state;
    };

    int st = panel(0);
    for (int k0 = 0; st == 0 && k0 + IB < wp; k0 += IB) {
        const int k1 = k0 + IB;
        rdiag_update<T, IB, BC>(S, lds, wp, rp, k0, k1, wp - k1, tid, NT);  // (C)
        __syncthreads();
        STARFACT_RDIAG_MARK(3 + 2 * (k0 / IB));
        st = panel(k1);
    }
    __syncthreads();  // the last diagonal rows were stored after the last barrier

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
