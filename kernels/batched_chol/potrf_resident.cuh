// Batched small Cholesky, *resident* variant (orders up to 128, meant for n >= 65): one matrix per
// thread block of NT threads, its padded lower triangle loaded once into shared memory (cp.async,
// coalesced per column), factored there by a blocked right-looking algorithm with inner block IB = 8,
// written back once. The order is a runtime argument: the matrix is padded with the identity to
// wp = 8 ceil(n / 8), so one instantiation serves every n and the cost follows wp (no size grouping
// by 16 as the left-looking kernel of potrf_kernel.cuh has).
//
// Shared-memory layout ("panel-packed"): only the 8-column panels' rows on and below their diagonal
// block are kept; panel p (columns 8p .. 8p+7, rows 8p .. wp-1) is column-major with leading dimension
// ldp(p) = wp - 8p + 4 (4 mod 8 elements: the FP64 tensor-core operand fragments hit distinct bank
// pairs) at offset off(p) = sum_{q<p} 8 ldp(q). 128 x 128 double: 72 KiB (3 blocks per SM), 96 x 96:
// 42 KiB (5 blocks), float half of that.
//
// Per panel p (k0 = 8p):
//   (A) the first AT threads (AT = 32 with 4 rows each under OCC = 256; under the 128-register cap of
//       OCC = 512, 64 threads with 2 rows each in float, up to 128 with 1 row each in double; thread t:
//       rows k0 + t + AT s) each load the 8 x 8 diagonal block into registers and factor it
//       redundantly (same inputs, same instructions, same bits everywhere: no shuffles, no single-warp
//       phase), LDL^T-style with unscaled columns: per column c the pivot p_c, its reciprocal (the only
//       step on the serial chain: 1/p_c, then a multiply and an FMA), u_jc stay unscaled,
//       d_ji -= (u_jc / p_c) u_ic; their own rows are eliminated on the way; the scaling by
//       1/sqrt(p_c) = sqrt(1/p_c) (off the chain) comes last: L_rc = u_rc sqrt(1/p_c),
//       L_cc = p_c sqrt(1/p_c). Rows below the diagonal block are stored at once (nobody else reads
//       them in this phase). One barrier; then the diagonal block's own rows are stored (it was being
//       read by every thread before the barrier; the update below does not read it).
//   (C) trailing update S(i, j) -= sum_c L(i, c) L(j, c) over the lower 8 x 8 blocks of the panels to
//       the right, spread over all warps: double on the FP64 tensor cores (mma.m8n8k4, two steps per
//       block), float in items of RI rows x 8 columns on the FMA units (the 8 panel values of a column
//       block are one broadcast float4 pair). One barrier.
// Variants (template arguments): KP = 2 takes two panels per step (IB = 16: (A) of panel p, (A') of
// panel p + 1 with p's rank-8 update applied on the fly, one rank-16 (C); 3 barriers per 16 columns);
// W1 runs (A) on warp 0 alone (one diagonal factorization per block instead of one per (A) warp; L11
// kept in registers, the rows below solved by substitution without divisions).
// Per-matrix info: the first (1-based) column whose pivot is not a positive finite number (every
// thread computes the same pivots; thread 0 reports); the math goes on with NaNs, no early exit.
// FAST: reciprocal by rcp.approx + one cubic Newton step (double; rcp.approx.ftz.f32 in float) and
// rsqrt for the scaling, instead of IEEE division and sqrt.
// The panel factorization (A), the two-panel step's (A') and the single-warp (A): potrf_resident_panel.cuh.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/potrf_kernel.cuh"
#include "kernels/batched_chol/potrf_resident_panel.cuh"

namespace starfact::batched::gpu {

namespace resident {

__host__ __device__ constexpr int pad8(int n) { return (n + 7) / 8 * 8; }
/// Leading dimension of panel p for padded order wp.
__host__ __device__ constexpr int ldp(int wp, int p) { return wp - 8 * p + 4; }
/// Offset of panel p (elements).
__host__ __device__ constexpr int off(int wp, int p) { return 8 * p * (wp + 4) - 32 * p * (p - 1); }
/// Shared-memory elements for order n.
__host__ __device__ constexpr int smem_elems(int n) { return off(pad8(n), pad8(n) / 8); }

/// D = A B + D on the FP64 tensor cores, one m8n8k4 step (lane 4g + t: A(g, t), B(t, g), D(g, 2t..2t+1)).
__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

/// (C), double: the lower 8 x 8 blocks (rb, q), p + K <= q <= rb < np, minus the product of the K
/// panels p .. p + K - 1 (K = 1: IB = 8; K = 2: the rank-16 update of a two-panel step), on the FP64
/// tensor cores (two m8n8k4 steps per block and panel). Work unit of a warp: up to QB blocks of one
/// block row (QB = 4, or 2 under the 128-register cap of OCC = 512), so that the row block's panel
/// fragments are loaded once per unit; units go round-robin over the warps.
template <int NT, int QB, int K>
__device__ __forceinline__ void update_trailing(double* S, int wp, int p, int t) {
    constexpr int NW = NT / 32;
    const int np = wp / 8;
    const int lane = t & 31, w = t >> 5, g = lane >> 2, tq = lane & 3;
    const double* P[K];  // this lane's fragment position in each panel
    int k0[K], ldP[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        k0[k] = 8 * (p + k);
        ldP[k] = ldp(wp, p + k);
        P[k] = S + off(wp, p + k) + g + tq * ldP[k];
    }
    int u = 0;
    for (int rb = p + K; rb < np; ++rb) {
        for (int q0 = p + K; q0 <= rb; q0 += QB, ++u) {
            if (u % NW != w) continue;  // warp-uniform
            double a0[K], a1[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                a0[k] = -P[k][8 * rb - k0[k]];
                a1[k] = -P[k][8 * rb - k0[k] + 4 * ldP[k]];
            }
            double d0[QB], d1[QB], b0[K][QB], b1[K][QB];
            double* c[QB];
            int ldq[QB];
#pragma unroll
            for (int j = 0; j < QB; ++j) {
                const bool ok = q0 + j <= rb;  // warp-uniform
                const int q = ok ? q0 + j : q0;
                ldq[j] = ldp(wp, q);
                c[j] = S + off(wp, q) + (8 * rb - 8 * q) + g + 2 * tq * ldq[j];
                d0[j] = ok ? c[j][0] : 0.0;
                d1[j] = ok ? c[j][ldq[j]] : 0.0;
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    b0[k][j] = P[k][8 * q - k0[k]];
                    b1[k][j] = P[k][8 * q - k0[k] + 4 * ldP[k]];
                }
            }
#pragma unroll
            for (int k = 0; k < K; ++k)
#pragma unroll
                for (int j = 0; j < QB; ++j) {
                    dmma(d0[j], d1[j], a0[k], b0[k][j]);
                    dmma(d0[j], d1[j], a1[k], b1[k][j]);
                }
#pragma unroll
            for (int j = 0; j < QB; ++j)
                if (q0 + j <= rb) {
                    c[j][0] = d0[j];
                    c[j][ldq[j]] = d1[j];
                }
        }
    }
}

/// (C), float: items of RI rows x 8 columns; column block q (p + K <= q < np; rows 8q .. wp-1, R = wp - 8q
/// of them) has H = R / RI items, item g taking rows 8q + g + H s: consecutive threads, consecutive rows
/// (conflict-free), one broadcast of the column block's 8 panel values per panel column; the K panels
/// p .. p + K - 1 are applied in turn while the item stays in registers.
template <int NT, int RI, int K>
__device__ __forceinline__ void update_trailing(float* S, int wp, int p, int t) {
    const int np = wp / 8, m = np - p - K;
    const int items = (8 / RI) * m * (m + 1) / 2;  // sum over a of 8 (m - a) / RI
    int a = 0, start = 0, H = 8 * m / RI;           // current column block (a = q - p - K)
    for (int e = t; e < items; e += NT) {
        while (e >= start + H) {
            start += H;
            ++a;
            H = 8 * (m - a) / RI;
        }
        const int g = e - start, q = p + K + a, ldq = ldp(wp, q);
        float* C = S + off(wp, q) + g;
        float acc[RI][8];
#pragma unroll
        for (int s = 0; s < RI; ++s)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[s][j] = C[H * s + j * ldq];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int k0 = 8 * (p + k), ldP = ldp(wp, p + k);
            const float* P = S + off(wp, p + k);
            const float* A0 = P + (8 * q - k0) + g;  // rows 8q + g + H s of the panel
#pragma unroll
            for (int kk = 0; kk < kIB; ++kk) {
                const float4 b0 = *reinterpret_cast<const float4*>(P + (8 * q - k0) + kk * ldP);
                const float4 b1 = *reinterpret_cast<const float4*>(P + (8 * q - k0) + kk * ldP + 4);
                const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int s = 0; s < RI; ++s) {
                    const float av = A0[H * s + kk * ldP];
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[s][j] = fmaf(-av, bv[j], acc[s][j]);
                }
            }
        }
#pragma unroll
        for (int s = 0; s < RI; ++s)
#pragma unroll
            for (int j = 0; j < 8; ++j) C[H * s + j * ldq] = acc[s][j];
    }
}

/// Loads A (order n) into the panel-packed layout, padded with the identity to order wp: one warp per
/// column (coalesced), one cp.async per element, branch-free: elements outside the lower n x n triangle
/// (the upper part of a diagonal block, the padding) are zero-filled by the copy itself (source size
/// 0), and the padding's unit diagonal is written by the thread that zero-filled it, after its own
/// copies have landed. Waits for the copies (the caller's barrier publishes them).
template <typename T, int NT>
__device__ __forceinline__ void load_matrix(const T* A, int n, int lda, int wp, T* S, int t) {
    constexpr int NW = NT / 32;
    const int lane = t & 31;
    for (int j = t >> 5; j < wp; j += NW) {
        const int p = j >> 3, k0 = 8 * p, ld = ldp(wp, p);
        T* col = S + off(wp, p) + (j - k0) * ld;
        const T* src = A + static_cast<int64_t>(j) * lda;
#pragma unroll
        for (int s = 0; s < kMaxOrder / 32; ++s) {
            const int i = k0 + lane + 32 * s;
            if (i < wp) {
                const bool in = i >= j && i < n;  // j <= i < n
                __pipeline_memcpy_async(col + (i - k0), in ? src + i : A, sizeof(T), in ? 0 : sizeof(T));
            }
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    // Padding columns j >= n of this warp (j = warp mod NW, as above): the unit diagonal.
    for (int j = (t >> 5) + (n - (t >> 5) + NW - 1) / NW * NW; j < wp; j += NW)
        if (lane == (j & 7)) S[off(wp, j >> 3) + (j & 7) * ldp(wp, j >> 3) + (j & 7)] = T(1);
}

/// Stores the lower n x n triangle of S back into A (coalesced per column; all loads of a column
/// first, then its stores).
template <typename T, int NT>
__device__ __forceinline__ void store_matrix(T* A, int n, int lda, int wp, const T* S, int t) {
    constexpr int NW = NT / 32;
    const int lane = t & 31;
    for (int j = t >> 5; j < n; j += NW) {
        const int p = j >> 3, k0 = 8 * p, ld = ldp(wp, p);
        const T* col = S + off(wp, p) + (j - k0) * ld;
        T* dst = A + static_cast<int64_t>(j) * lda;
        T v[kMaxOrder / 32];
#pragma unroll
        for (int s = 0; s < kMaxOrder / 32; ++s) {
            const int i = k0 + lane + 32 * s;
            v[s] = i < wp ? col[i - k0] : T(0);
        }
#pragma unroll
        for (int s = 0; s < kMaxOrder / 32; ++s) {
            const int i = k0 + lane + 32 * s;
            if (i >= j && i < n) dst[i] = v[s];
        }
    }
}

}  // namespace resident

/// Blocks per SM asked of the register allocator for the resident kernel (OCC resident threads).
template <int NT, int OCC>
constexpr int kResidentMinBlocks = NT >= OCC ? 1 : OCC / NT;

/// potrf_batched, resident variant, orders n <= 128: one matrix per block of NT threads (grid-stride
/// over the batch), dynamic shared memory resident::smem_elems(n) elements. KP panels per step: 1 (IB = 8:
/// (A), barrier, rank-8 (C), barrier) or 2 (IB = 16: (A) of panel p, barrier, (A') of panel p + 1 with
/// panel p's update applied on the fly, barrier, rank-16 (C) of the rest, barrier: 3 barriers and one
/// pass over the trailing matrix per 16 columns instead of 4 and two).
template <typename T, int NT, int OCC, bool FAST, int KP = 1, bool W1 = false>
__global__ void __launch_bounds__(NT, kResidentMinBlocks<NT, OCC>)
    potrf_resident_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    using namespace resident;
    static_assert(NT % 32 == 0 && NT >= 64 && NT <= 512, "NT: whole warps, 64..512");
    static_assert(KP == 1 || KP == 2, "KP: panels per step, 1 or 2");
    static_assert(!W1 || KP == 1, "W1: one panel per step");
    // (A) runs on the first AT threads, RA = 128 / AT rows each: one warp (fewest redundant diagonal
    // factorizations) when OCC <= 256 leaves room for its ~160..200 registers; under the 128-register
    // cap of OCC = 512, 64 threads (float, 2 rows each) or up to 128 (double, 1 row each).
    constexpr int AT_CAP = OCC <= 256 ? 32 : sizeof(T) == 8 ? 128 : 64;
    constexpr int AT = AT_CAP < NT ? AT_CAP : NT, RA = kMaxOrder / AT;
    constexpr int QB = sizeof(T) == 8 ? (OCC <= 256 ? 4 : 2) : 4;  // double: blocks per unit; float: rows per item
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int t = static_cast<int>(threadIdx.x);
    const int wp = pad8(n), np = wp / 8;
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x) {
        T* Ai = A.get(i);
        load_matrix<T, NT>(Ai, n, lda, wp, S, t);
        __pipeline_wait_prior(0);
        __syncthreads();
        int info_i = 0;
        for (int p = 0; p < np; p += KP) {
            const int k0 = 8 * p, ld = ldp(wp, p), rows = wp - k0;
            T* P = S + off(wp, p);
            if constexpr (W1) {  // (A) by warp 0 alone, the diagonal block stored inside
                int fail = 0;
                if (t < 32) fail = factor_panel_warp<T, FAST, sizeof(T) == 8 ? 1 : 4>(P, ld, rows, t);
                if (info_i == 0 && fail) info_i = k0 + fail;
                __syncthreads();  // the panel is final
            } else {
                T x[RA][kIB];
                int fail = 0;
                if (t < AT && t < rows) fail = factor_panel<T, AT, RA, FAST>(P, ld, rows, t, x);
                if (info_i == 0 && fail) info_i = k0 + fail;
                __syncthreads();  // every thread has read the diagonal block; rows below are stored
                if (t < kIB)      // the diagonal block's rows, lower part (RA >= 1, row t)
#pragma unroll
                    for (int c = 0; c < kIB; ++c)
                        if (c <= t) P[t + c * ld] = x[0][c];
            }
            if constexpr (KP == 2) {
                if (p + 1 < np) {  // block-uniform
                    const int k1 = k0 + kIB, ld1 = ldp(wp, p + 1), rows1 = rows - kIB;
                    T* P1 = S + off(wp, p + 1);
                    T x[RA][kIB];
                    int fail = 0;
                    if (t < AT && t < rows1) fail = factor_panel_next<T, AT, RA, FAST>(P, ld, P1, ld1, rows1, t, x);
                    if (info_i == 0 && fail) info_i = k1 + fail;
                    __syncthreads();  // panel p + 1's diagonal block read by all; its rows below stored
                    if (t < kIB)
#pragma unroll
                        for (int c = 0; c < kIB; ++c)
                            if (c <= t) P1[t + c * ld1] = x[0][c];
                }
            }
            if (p + KP < np) resident::update_trailing<NT, QB, KP>(S, wp, p, t);
            __syncthreads();
        }
        store_matrix<T, NT>(Ai, n, lda, wp, S, t);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}

}  // namespace starfact::batched::gpu
