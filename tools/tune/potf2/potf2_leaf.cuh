// Single-block potf2 leaves of the tuning tool (rejected for the library, docs/potf2.md "Tried and
// rejected"; the library's leaf is the replicated-diagonal kernel, kernels/potf2/potf2_rdiag.cuh).
// The left-looking kernel: the whole n x n tile (n <= NMAX) in shared memory, left-looking over panels of
// IB columns, one launch for the whole tile. Per panel, warp 0 updates the IB x IB diagonal block with the
// columns to its left and factors it (registers and shuffles) while the other warps (1) prefetch the next
// panel from global memory into registers and (2) update the rows below the diagonal block
// (register-blocked dot products from shared memory); then (4) every thread solves one row below against
// the diagonal block and (5) the prefetched panel is stored. Two barriers per panel. Also: a
// right-looking look-ahead variant of the same kernel (potf2_leaf_rl_kernel) and the device helpers both
// share; the failure protocol is the library's (kernels/potf2/potf2_protocol.cuh). Both run inside the
// library's multi-kernel forms (kernels/potf2/potf2_forms.cuh) through tools/tune/potf2/variants.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/potf2/potf2_protocol.cuh"

namespace starfact::detail::gpu::potf2_impl {

__device__ __forceinline__ float rsqrt_of(float x) { return rsqrtf(x); }
__device__ __forceinline__ double rsqrt_of(double x) { return rsqrt(x); }

/// (3) Factors the w x w diagonal block at (j0, j0) of S in warp 0 (lane = row): L in S, 1/L(c,c) in s_inv;
/// on a bad pivot at panel column c, columns < c are stored and s_state = j0 + c + 1.
template <typename T, int IB, bool LOOPED>
__device__ __forceinline__ void factor_diag_block(T* S, int n, int j0, int w, int lane, T* s_inv, int& s_state) {
    if constexpr (LOOPED) {
        // (3) factor the diagonal block in shared memory: runtime loop over its columns, lane = row.
        int fail = 0;  // 1-based column of the panel
        for (int c = 0; c < w; ++c) {
            const T piv = S[j0 + c + (j0 + c) * n];
            __syncwarp();
            if (!(piv > T(0)) || !isfinite(piv)) {
                fail = c + 1;
                break;
            }
            const T rs = rsqrt_of(piv);
            T l = T(0);
            if (lane >= c && lane < w) {
                l = lane == c ? piv * rs : S[j0 + lane + (j0 + c) * n] * rs;
                S[j0 + lane + (j0 + c) * n] = l;
            }
            if (lane == c) s_inv[c] = rs;
            __syncwarp();
            if (lane > c && lane < w)
                for (int j = c + 1; j <= lane; ++j)
                    S[j0 + lane + (j0 + j) * n] = fma(-l, S[j0 + j + (j0 + c) * n], S[j0 + lane + (j0 + j) * n]);
            __syncwarp();
        }
        if (lane == 0 && fail) s_state = j0 + fail;
    } else {
        // (3) factor the diagonal block: lane = row, right-looking over its columns, in registers.
        T r[IB];
#pragma unroll
        for (int c = 0; c < IB; ++c) r[c] = (lane < w && c <= lane) ? S[j0 + lane + (j0 + c) * n] : T(0);
        int fail = 0;  // 1-based column of the panel
#pragma unroll
        for (int c = 0; c < IB; ++c) {
            if (c < w && fail == 0) {
                const T piv = __shfl_sync(0xffffffffu, r[c], c);
                if (!(piv > T(0)) || !isfinite(piv)) {
                    fail = c + 1;
                } else {
                    const T rs = rsqrt_of(piv);
                    const T l = (lane == c) ? piv * rs : r[c] * rs;
                    r[c] = l;
                    if (lane == c) s_inv[c] = rs;
#pragma unroll
                    for (int j = c + 1; j < IB; ++j) {
                        const T ljc = __shfl_sync(0xffffffffu, l, j);
                        if (lane >= j) r[j] = fma(-l, ljc, r[j]);
                    }
                }
            }
        }
        const int done = fail ? fail - 1 : w;
#pragma unroll
        for (int c = 0; c < IB; ++c)
            if (c < done && lane >= c && lane < w) S[j0 + lane + (j0 + c) * n] = r[c];
        if (lane == 0 && fail) s_state = j0 + fail;
    }
}

/// (4) Rows below the diagonal block: L(i, panel) = S(i, panel) L_diag^{-T} for i >= j0 + w, one row per
/// thread, the first wv columns of the panel (all w, or those before a failure).
template <typename T, int IB, bool LOOPED, int NT>
__device__ __forceinline__ void solve_rows_below(T* S, int n, int j0, int w, int wv, int tid, const T* s_inv) {
    if constexpr (LOOPED) {
        for (int i = j0 + w + tid; i < n; i += NT) {
            T* row = S + i;
            for (int c = 0; c < wv; ++c) {
                const T x = row[(j0 + c) * n] * s_inv[c];
                row[(j0 + c) * n] = x;
                for (int j = c + 1; j < wv; ++j)
                    row[(j0 + j) * n] = fma(-x, S[j0 + j + (j0 + c) * n], row[(j0 + j) * n]);
            }
        }
    } else {
        for (int i = j0 + w + tid; i < n; i += NT) {
            T r[IB];
#pragma unroll
            for (int c = 0; c < IB; ++c) r[c] = c < wv ? S[i + (j0 + c) * n] : T(0);
#pragma unroll
            for (int c = 0; c < IB; ++c) {
                if (c < wv) {
                    const T x = r[c] * s_inv[c];
                    r[c] = x;
#pragma unroll
                    for (int j = c + 1; j < IB; ++j)
                        if (j < wv) r[j] = fma(-x, S[j0 + j + (j0 + c) * n], r[j]);
                }
            }
#pragma unroll
            for (int c = 0; c < IB; ++c)
                if (c < wv) S[i + (j0 + c) * n] = r[c];
        }
    }
}

/// Writes the lower triangle of the leaf back (L for the columns before a failure, the identity from
/// it on) and reports a failure into info (if still 0) and the tile's flag. st: final state (0 or f).
template <typename T, int NT>
__device__ __forceinline__ void write_back_and_report(const LeafParams<T>& p, const T* S, int st) {
    const int n = p.n;
    const int tid = static_cast<int>(threadIdx.x);
    const int fcol = st > 0 ? st - 1 : n;
    const int jstep = NT / n > 0 ? NT / n : 1;
    if (n <= NT && tid < jstep * n) {
        const int i = tid % n;
        for (int j = tid / n; j <= i; j += jstep)
            p.A[i + static_cast<int64_t>(j) * p.ld] = j < fcol ? S[i + j * n] : (i == j ? T(1) : T(0));
    }
    if (tid == 0 && st > 0) {
        if (*p.info == 0) *p.info = static_cast<int>(p.info_base + st);
        if (p.flag) *p.flag = p.leaf_off + st;
    }
}

template <typename T, int NMAX, int IB, int NW, bool LOOPED>
__global__ void __launch_bounds__(32 + NW, 1) potf2_leaf_kernel(LeafParams<T> p) {
    static_assert(IB == 8 || IB == 16, "IB: 8 or 16 (the diagonal block lives in registers of one warp)");
    constexpr int NT = 32 + NW;            // warp 0: diagonal blocks; warps 1..: the rows below
    constexpr int CPT = IB >= 16 ? 4 : 2;  // panel columns per worker thread in the update
    constexpr int TC = IB / CPT;           // column groups
    constexpr int TR = NW / TC;            // row slots (a warp = 32 consecutive rows, one column group)
    constexpr int RPT = (NMAX + TR - 1) / TR;
    constexpr int G = 32 / IB;             // diagonal-block update in warp 0: lane = (row, column group)
    constexpr int CG = IB / G;             // columns per lane
    static_assert(NW % TC == 0 && TR % 32 == 0, "thread layout");
    static_assert(NMAX <= NW, "prefetch: one row per worker thread");

    extern __shared__ __align__(16) unsigned char potf2_smem[];
    T* S = reinterpret_cast<T*>(potf2_smem);  // n x n, column-major, leading dimension n (lower part used)
    __shared__ T s_inv[IB];                    // 1/L(c,c) of the current panel
    __shared__ int s_state;                    // -1 skip, 0 running, f > 0 failed at leaf column f (1-based)

    const int n = p.n;
    const int ld = p.ld;
    const int tid = static_cast<int>(threadIdx.x);
    T* A = p.A;

    if (leaf_skipped<T, NT>(p, s_state)) return;

    // Panel 0 straight into shared memory (strictly upper entries of the diagonal block read as 0).
    {
        const int w = min(IB, n);
        for (int e = tid; e < n * w; e += NT) {
            const int i = e % n, c = e / n;
            S[i + c * n] = i >= c ? A[i + static_cast<int64_t>(c) * ld] : T(0);
        }
    }
    __syncthreads();

    const int lane = tid & 31;
    const int wt = tid - 32;  // worker index (valid for tid >= 32)
    T pf[IB];
    int st = 0;
    for (int j0 = 0; j0 < n; j0 += IB) {
        const int w = min(IB, n - j0);
        const int j1 = j0 + IB;
        const int m1 = n - j1;
        const int w1 = min(IB, m1);

        if (tid < 32) {
            // (2a) update of the diagonal block: S(j0+i, j0+c) -= sum_{k < j0} L(j0+i, k) L(j0+c, k).
            const int i = lane % IB, g = lane / IB;
            if (j0 > 0) {
                const int ic = j0 + min(i, w - 1);
                T acc[CG];
#pragma unroll
                for (int q = 0; q < CG; ++q) acc[q] = T(0);
#pragma unroll 2
                for (int k = 0; k < j0; ++k) {
                    const T* col = S + k * n;
                    const T a = col[ic];
#pragma unroll
                    for (int q = 0; q < CG; ++q) acc[q] = fma(a, col[j0 + min(g * CG + q, w - 1)], acc[q]);
                }
#pragma unroll
                for (int q = 0; q < CG; ++q) {
                    const int c = g * CG + q;
                    if (i < w && c <= i) S[j0 + i + (j0 + c) * n] -= acc[q];
                }
                __syncwarp();
            }
            factor_diag_block<T, IB, LOOPED>(S, n, j0, w, lane, s_inv, s_state);
        } else {
            // (1) prefetch the next panel (rows j1.., columns j1..j1+w1-1) into registers, one row per thread.
            const int ip = j1 + wt;
            if (ip < n) {
#pragma unroll
                for (int c = 0; c < IB; ++c)
                    if (c < w1) pf[c] = wt >= c ? A[ip + static_cast<int64_t>(j1 + c) * ld] : T(0);
            }
            // (2b) left-looking update of the rows below the diagonal block:
            //      S(i, c) -= sum_{k < j0} L(i, k) L(c, k), i >= j0 + w, c in the panel.
            const int rb = j0 + w;  // first row below the diagonal block
            if (j0 > 0 && rb < n) {
                const int tc = wt / TR, tr = wt % TR;
                const int cbase = j0 + tc * CPT;
                const int wbase = rb + (tr & ~31);  // the warp's first row
                int nr = 0;
#pragma unroll
                for (int r = 0; r < RPT; ++r)
                    if (wbase + r * TR < n) nr = r + 1;
                if (cbase < j0 + w && nr > 0) {
                    int ri[RPT], ci[CPT];
#pragma unroll
                    for (int r = 0; r < RPT; ++r) ri[r] = min(rb + tr + r * TR, n - 1);
#pragma unroll
                    for (int q = 0; q < CPT; ++q) ci[q] = min(cbase + q, j0 + w - 1);
                    T acc[RPT][CPT];
#pragma unroll
                    for (int r = 0; r < RPT; ++r)
#pragma unroll
                        for (int q = 0; q < CPT; ++q) acc[r][q] = T(0);
#pragma unroll 4
                    for (int k = 0; k < j0; ++k) {
                        const T* col = S + k * n;
                        T a[RPT], b[CPT];
#pragma unroll
                        for (int q = 0; q < CPT; ++q) b[q] = col[ci[q]];
#pragma unroll
                        for (int r = 0; r < RPT; ++r) a[r] = r < nr ? col[ri[r]] : T(0);
#pragma unroll
                        for (int r = 0; r < RPT; ++r)
#pragma unroll
                            for (int q = 0; q < CPT; ++q) acc[r][q] = fma(a[r], b[q], acc[r][q]);
                    }
#pragma unroll
                    for (int r = 0; r < RPT; ++r) {
                        const int i = rb + tr + r * TR;
#pragma unroll
                        for (int q = 0; q < CPT; ++q) {
                            const int c = cbase + q;
                            if (i < n && c < j0 + w) S[i + c * n] -= acc[r][q];
                        }
                    }
                }
            }
        }
        __syncthreads();
        st = s_state;
        const int wv = st > 0 ? st - 1 - j0 : w;  // valid columns of this panel

        // (4) rows below the diagonal block: L(i, panel) = S(i, panel) L_diag^{-T}, one row per thread.
        solve_rows_below<T, IB, LOOPED, NT>(S, n, j0, w, wv, tid, s_inv);

        // (5) the prefetched panel into shared memory.
        if (tid >= 32 && st == 0 && j1 + wt < n) {
#pragma unroll
            for (int c = 0; c < IB; ++c)
                if (c < w1) S[j1 + wt + (j1 + c) * n] = pf[c];
        }
        __syncthreads();
        if (st != 0) break;
    }

    write_back_and_report<T, NT>(p, S, st);
}

/// Right-looking variant with look-ahead, same storage and failure protocol: the whole lower triangle is
/// loaded once; per panel k, warp 0 factors the diagonal block while the workers apply panel k-1 to the
/// trailing columns beyond panel k (look-ahead: panel k itself was updated at the end of step k-1); then
/// every thread solves one row below the diagonal block; then panel k is applied to panel k+1 only.
/// Three barriers per panel, and no K-long dot products on the critical path (see docs/potf2.md).
template <typename T, int NMAX, int IB, int NW, bool LOOPED>
__global__ void __launch_bounds__(32 + NW, 1) potf2_leaf_rl_kernel(LeafParams<T> p) {
    static_assert(IB == 8 || IB == 16, "IB: 8 or 16 (the diagonal block lives in registers of one warp)");
    constexpr int NT = 32 + NW;  // warp 0: diagonal blocks; warps 1..: trailing update
    constexpr int RS = 64;       // trailing update: row slots (rows i and i + RS), NW / RS column phases
    constexpr int CS = NW / RS;
    constexpr int PR = 128;      // next-panel update: row slots (threads 0..2*PR-1, two column halves)
    static_assert(NW % RS == 0 && NMAX <= 2 * RS && NMAX <= PR && 2 * PR <= NT, "thread layout");

    extern __shared__ __align__(16) unsigned char potf2_smem[];
    T* S = reinterpret_cast<T*>(potf2_smem);  // n x n, column-major, leading dimension n (lower part used)
    __shared__ T s_inv[IB];
    __shared__ int s_state;

    const int n = p.n;
    const int ld = p.ld;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31;

    if (leaf_skipped<T, NT>(p, s_state)) return;

    // The whole lower triangle into shared memory (coalesced: consecutive threads, consecutive rows).
    {
        const int jstep = NT / n > 0 ? NT / n : 1;
        if (tid < jstep * n) {
            const int i = tid % n;
            for (int j = tid / n; j <= i; j += jstep) S[i + j * n] = p.A[i + static_cast<int64_t>(j) * ld];
        }
    }
    __syncthreads();

    int st = 0;
    for (int j0 = 0; j0 < n; j0 += IB) {
        const int w = min(IB, n - j0);
        const int j1 = j0 + w;
        const int w1 = min(IB, n - j1);

        if (tid < 32) {
            factor_diag_block<T, IB, LOOPED>(S, n, j0, w, lane, s_inv, s_state);
        } else if (j0 > 0 && j1 < n) {
            // Look-ahead update: S(i, j) -= sum_{q in panel k-1} L(i, q) L(j, q), j >= j1, i >= j.
            const int wt = tid - 32;
            const int ia = j1 + wt % RS, ib = ia + RS;
            const int q0 = j0 - IB;  // panel k-1 (full width)
            const int last = ib < n ? ib : ia;
            if (ia < n) {
                T a[IB], b[IB];
#pragma unroll
                for (int q = 0; q < IB; ++q) {
                    a[q] = S[ia + (q0 + q) * n];
                    b[q] = ib < n ? S[ib + (q0 + q) * n] : T(0);
                }
#pragma unroll 2
                for (int j = j1 + wt / RS; j <= last; j += CS) {
                    T sa = T(0), sb = T(0);
#pragma unroll
                    for (int q = 0; q < IB; ++q) {
                        const T lj = S[j + (q0 + q) * n];
                        sa = fma(a[q], lj, sa);
                        sb = fma(b[q], lj, sb);
                    }
                    if (ia >= j) S[ia + j * n] -= sa;
                    if (ib < n) S[ib + j * n] -= sb;
                }
            }
        }
        __syncthreads();
        st = s_state;
        const int wv = st > 0 ? st - 1 - j0 : w;
        solve_rows_below<T, IB, LOOPED, NT>(S, n, j0, w, wv, tid, s_inv);
        __syncthreads();
        if (st != 0) break;

        // Panel k applied to panel k+1: S(i, c) -= sum_{q in panel k} L(i, q) L(c, q), c in [j1, j1+w1), i >= c.
        if (j1 < n && tid < 2 * PR) {
            const int i = j1 + tid % PR;
            const int cb = j1 + (tid / PR) * (IB / 2);
            if (i < n && cb < j1 + w1 && cb <= i) {
                T a[IB];
#pragma unroll
                for (int q = 0; q < IB; ++q) a[q] = S[i + (j0 + q) * n];
#pragma unroll
                for (int c = 0; c < IB / 2; ++c) {
                    const int cc = cb + c;
                    if (cc < j1 + w1 && cc <= i) {
                        T sum = T(0);
#pragma unroll
                        for (int q = 0; q < IB; ++q) sum = fma(a[q], S[cc + (j0 + q) * n], sum);
                        S[i + cc * n] -= sum;
                    }
                }
            }
        }
        __syncthreads();
    }

    write_back_and_report<T, NT>(p, S, st);
}

}  // namespace starfact::detail::gpu::potf2_impl
