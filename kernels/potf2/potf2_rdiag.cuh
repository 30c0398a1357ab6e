// The replicated-diagonal potf2 kernel ("rdiag"): right-looking Cholesky of a w x w diagonal block
// (w <= WMAX <= 128) held in shared memory, fused with the triangular solve of up to RMAX rows below it
// (L21 = A21 L11^{-T}), one launch. Per panel of IB columns:
//   (A) every thread that owns a row of the panel (a row of the diagonal block or a row below) loads
//       the IB x IB diagonal block into registers and factors it *redundantly* (same instructions, same
//       inputs, so the same bits in every thread), solving its own row on the way: no shuffles, no
//       single-warp phase, no barrier between the diagonal factorization and the rows below; the
//       pivot chain uses a branch-free reciprocal square root (rsqrt_ftz);
//   (B) one barrier (the diagonal block's own rows are stored after it); (C) the trailing update with
//       the panel: in double 8 x 8 blocks on the FP64 tensor cores (mma.m8n8k4) split statically over
//       the warps, in float items of RI rows x 8 columns on the FMA units split statically over the
//       threads; in both, the accumulators stay in registers across panels; one barrier.
// With RMAX > 0 each thread block owns RMAX rows below the diagonal block and factors the diagonal block
// itself (redundantly across thread blocks); the last block to read A11 (a device-wide count) alone
// writes L11 over it, info and the failure flag. The tile is padded to a multiple of 8 columns
// with the identity, the rows below with zero rows, so the math has no bounds checks. Loads go global ->
// shared through cp.async. Design notes and measurements: docs/potf2.md.
// The trailing update (C), its work splits and register accumulators: potf2_rdiag_update.cuh.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "kernels/potf2/pdl.cuh"
#include "kernels/potf2/potf2_protocol.cuh"
#include "kernels/potf2/potf2_rdiag_update.cuh"

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
/// enough warps to spread the trailing update (C); kBC = columns of a float update item. Double at
/// WMAX = 128 uses 256 threads (not 384): its update keeps the accumulators in registers (up to ~90
/// per thread on top of the ~100 of (A)), which needs the 255-register cap of a 256-thread block.
template <typename T, int WMAX, int RMAX>
struct RdiagShape {
    static constexpr int kBC = 8;
    static constexpr int round32(int x) { return 32 * ((x + 31) / 32); }
    static constexpr int kMinThreads = WMAX >= 128 ? (sizeof(T) == 8 ? 256 : 384) : WMAX >= 64 ? 192 : 64;
    static constexpr int kThreads = round32(WMAX + RMAX) > kMinThreads ? round32(WMAX + RMAX) : kMinThreads;
    __host__ __device__ static constexpr int pad8(int x) { return (x + 7) / 8 * 8; }
    /// Leading dimension in shared memory: 4 (mod 8) elements, so that the 8 x 4 operand and 8 x 8
    /// accumulator fragments of the FP64 tensor-core update hit every bank pair once.
    __host__ __device__ static constexpr int lds(int wp, int rp) { return wp + rp + 4; }
    /// Shared memory for a w x w block with `rows` rows below (padded as the kernel pads them).
    static size_t smem_bytes(int w, int rows) {
        const int wp = pad8(w), rp = rows > 0 ? RMAX : 0;
        return static_cast<size_t>(lds(wp, rp)) * wp * sizeof(T);
    }
};

/// Reciprocal square root on the pivot chain, without the range check (and its branch) of rsqrt():
/// MUFU.RSQ64H (`rsqrt.approx.ftz.f64`) refined by one cubic step e = 1 - x y^2, y += y e (1/2 + 3e/8)
/// (the same correction CUDA's rsqrt applies on its fast path), or MUFU.RSQ (`rsqrt.approx.ftz.f32`,
/// what rsqrtf uses for normal inputs). Flushes subnormal inputs to zero: rdiag_factor_row redoes a panel
/// with a positive pivot below the smallest normal number with rsqrt_full.
__device__ __forceinline__ double rsqrt_ftz(double x) {
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    const double e = fma(-x, y * y, 1.0);
    return fma(fma(e, 0.375, 0.5), y * e, y);
}
__device__ __forceinline__ float rsqrt_ftz(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/// rsqrt_ftz over the whole positive range: subnormal x is scaled by 2^(2s) first (exact), the result
/// by 2^s (s = 54 in double, 24 in float). Branch-free and call-free (rsqrt() would add both).
template <typename T>
__device__ __forceinline__ T rsqrt_full(T x) {
    constexpr bool kD = sizeof(T) == 8;
    const bool sub = x < (kD ? T(DBL_MIN) : T(FLT_MIN));
    const T y = rsqrt_ftz(sub ? x * (kD ? T(0x1p108) : T(0x1p48)) : x);
    return sub ? y * (kD ? T(0x1p54) : T(0x1p24)) : y;
}

/// Stores the first `valid` of the IB values x to dst[0], dst[lds], ...: unconditional stores in the
/// common case (a whole panel), one predicate per element only after a failure.
template <typename T, int IB>
__device__ __forceinline__ void store_row(T* dst, int lds, const T (&x)[IB], int valid) {
    if (valid == IB) {
#pragma unroll
        for (int c = 0; c < IB; ++c) dst[c * lds] = x[c];
    } else {
#pragma unroll
        for (int c = 0; c < IB; ++c)
            if (c < valid) dst[c * lds] = x[c];
    }
}

/// The factorization of (A): loads the IB x IB diagonal block at k0 and row r of the panel into
/// registers and factors the block, solving the row on the way (x = L(r, panel)); returns the number of
/// valid columns (a bad pivot: its 0-based column; what follows it is garbage and never stored).
/// kFullRange = false: the pivot chain uses rsqrt_ftz and `tiny` tells whether a positive pivot fell
/// below the smallest normal number (the panel must then be redone with kFullRange = true).
template <typename T, int IB, bool kFullRange>
__device__ __forceinline__ int rdiag_factor_panel(const T* S, int lds, int k0, int r, T (&x)[IB], bool& tiny) {
    T d[IB][IB];
#pragma unroll
    for (int i = 0; i < IB; ++i)
#pragma unroll
        for (int j = i; j < IB; ++j) d[j][i] = S[k0 + j + (k0 + i) * lds];
#pragma unroll
    for (int c = 0; c < IB; ++c) x[c] = S[r + (k0 + c) * lds];
    int fail = 0;
    tiny = false;
#pragma unroll
    for (int c = 0; c < IB; ++c) {
        const T piv = d[c][c];
        const bool bad = !(piv > T(0)) || !isfinite(piv);
        fail = (fail == 0 && bad) ? c + 1 : fail;
        tiny = tiny || (piv > T(0) && piv < (sizeof(T) == 8 ? T(DBL_MIN) : T(FLT_MIN)));
        const T rs = kFullRange ? rsqrt_full(piv) : rsqrt_ftz(piv);
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
    return fail ? fail - 1 : IB;
}

/// (A) for row r of the panel at column k0: every calling thread factors the diagonal block the same
/// way (so all hold the same bits) and solves its own row, x = L(r, panel). Branch-free on the pivot
/// chain; the uniform branch to the full-range rsqrt is taken only for pivots below the smallest normal
/// number. Stores the row at once if it lies below the diagonal block (no one reads it during the
/// phase); returns the number of valid columns.
template <typename T, int IB>
__device__ __forceinline__ int rdiag_factor_row(T* S, int lds, int k0, int r, T (&x)[IB]) {
    bool tiny;
    int valid = rdiag_factor_panel<T, IB, false>(S, lds, k0, r, x, tiny);
    if (tiny) {
        // The redo's loads must not be hoisted above the branch (that would double the live registers).
        const T* S2;
        asm volatile("mov.b64 %0, %1;" : "=l"(S2) : "l"(S));
        valid = rdiag_factor_panel<T, IB, true>(S2, lds, k0, r, x, tiny);
    }
    if (r >= k0 + IB) store_row<T, IB>(S + r + k0 * lds, lds, x, valid);
    return valid;
}

template <typename T, int WMAX, int RMAX, int IB>
__global__ void __launch_bounds__(RdiagShape<T, WMAX, RMAX>::kThreads, 1) potf2_rdiag_kernel(LeafParams<T> p) {
    using Shape = RdiagShape<T, WMAX, RMAX>;
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

    pdl_wait();  // before any global access: the previous kernel of the tile may still run
    if (p.mode & kAllowNext) pdl_allow_next();
    STARFACT_RDIAG_MARK(0);

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
    // The failure flag's round trip (an earlier leaf of the tile failed?) overlaps the loads.
    if (leaf_skipped<T, NT>(p, s_state)) {
        __pipeline_wait_prior(0);
        return;
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    // This block has read A11: count it (a device-wide count). The block that completes the count is
    // the last to read A11 and alone overwrites it with L11 at its end (see there); the count's value
    // is needed only then, so its round trip hides behind the factorization.
    const bool counted = RMAX > 0 && gridDim.x > 1;
    int arrival = 0;
    if (counted && tid == 0) arrival = atomicAdd(p.arrivals, 1);
    STARFACT_RDIAG_MARK(1);

    // Panel k0's (A) by the row threads, its barrier, then the diagonal rows' stores (after the barrier:
    // other threads may have been reading the unfactored block). Returns the failure state.
    T x[IB];
    auto panel = [&](int k0) {
        const int r = k0 + tid;
        int valid = 0;
        if (r < lds) {
            valid = rdiag_factor_row<T, IB>(S, lds, k0, r, x);
            if (tid == 0 && valid < IB) s_state = k0 + valid + 1;
        }
        __syncthreads();
        if (r < k0 + IB)  // lower part of the diagonal block (not read again before the write-back)
            store_row<T, IB>(S + r + k0 * lds, lds, x, min(valid, r - k0 + 1));
        STARFACT_RDIAG_MARK(2 + 2 * (k0 / IB));
        return s_state;
    };

    // (C)'s static split and register accumulators: double's on the tensor cores, float's FMA items.
    constexpr int RI = WMAX >= 128 ? 4 : 2;
    using Slots = std::conditional_t<sizeof(T) == 8, RdiagSlots<WMAX, RMAX, NWARP>, RdiagItems<WMAX, RMAX, NT, RI>>;
    using Acc = std::conditional_t<sizeof(T) == 8, RdiagAcc<Slots>, RdiagAccF<Slots, RI>>;
    const Slots slots(sizeof(T) == 8 ? warp : tid, wp, rp);
    Acc acc;
    if constexpr (sizeof(T) == 8)
        acc.load(S, lds, slots, lane);
    else
        acc.load(S, lds, slots);
    int st = panel(0);
    for (int k0 = 0; st == 0 && k0 + IB < wp; k0 += IB) {
        const int k1 = k0 + IB;
        if constexpr (sizeof(T) == 8)
            acc.update(S, lds, k0, slots, lane);  // (C)
        else
            acc.update(S, lds, k0, slots);
        __syncthreads();
        STARFACT_RDIAG_MARK(3 + 2 * (k0 / IB));
        st = panel(k1);
    }
    __shared__ int s_writer;
    if (tid == 0) {
        s_writer = !counted || arrival == static_cast<int>(gridDim.x) - 1;
        if (counted && s_writer) *p.arrivals = 0;  // every block has counted: reset for the next launch
    }
    __syncthreads();  // (also: the last diagonal rows were stored after the last barrier)

    // Write back: L for the columns before a failure; from it on the identity (diagonal block) and
    // zeros (rows below). Every block writes its rows below; the writer (the last block to read A11,
    // so no block can still be about to read it: with other kernels on the GPU the blocks of a grid
    // need not be resident together) writes the diagonal block and reports. (All blocks hold the same
    // bits of L11.)
    const int fcol = st > 0 ? st - 1 : n;
    for (int j = warp; j < n; j += NWARP)
        for (int i = lane; i < rows; i += 32)
            p.A[n + r0 + i + static_cast<int64_t>(j) * ld] = j < fcol ? S[wp + i + j * lds] : T(0);
    STARFACT_RDIAG_MARK(2 + 2 * 128 / 8 + 1);
    if (!s_writer) return;
    for (int j = warp; j < n; j += NWARP) {
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
    if (tid == 0 && st > 0) {
        if (*p.info == 0) *p.info = static_cast<int>(p.info_base + st);
        if (p.flag) *p.flag = p.leaf_off + st;
    }
}

}  // namespace starfact::detail::gpu::potf2_impl
