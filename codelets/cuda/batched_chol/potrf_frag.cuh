// Batched small Cholesky, *fragment-layout* resident kernel (orders up to 128, meant for n >= 65; fifth
// session): one matrix per thread block of NT threads, its lower triangle (padded with the identity to
// 8 ceil(n / 8)) kept in shared memory as 8 x 8 blocks, each block row-major, so that the 16 bytes of lane
// l at offset 2 l (double) are exactly the lane's element pair (g, 2t), (g, 2t + 1) (g = l / 4, t = l % 4)
// of the accumulator of the FP64 tensor-core step mma.m8n8k4. With the reduction index permuted
// (step 0: columns 0, 2, 4, 6; step 1: columns 1, 3, 5, 7), that same pair is the lane's A operand of
// both steps and its B operand of both steps of a product X Y^T: every operand and accumulator of
// the trailing update is one conflict-free 16-byte shared-memory access per lane, no index math.
//
// Per panel p (np = number of block rows):
//   (T) all warps: L(rb, p) = A(rb, p) inv(L(p, p))^T for rb > p, two DMMA steps per block (float: 16
//       FMAs per lane) with inv(L(p, p)) from an 8 x 8 scratch block; double adds one refinement step
//       (R = A - L L(p, p)^T, L += R inv(L(p, p))^T: four more DMMA steps);             barrier
//   (C) warps 1..NW-1: S(rb, q) -= L(rb, p) L(q, p)^T for p + 2 <= q <= rb (units of up to 4 blocks of
//       one block row); warp 0 meanwhile updates block column p + 1 and factors the diagonal block
//       (p + 1, p + 1) (look-ahead): every lane of warp 0 runs the same 8 x 8 Cholesky in registers
//       (branch-free full-range rsqrt + one refinement step per pivot: no division, no sqrt), then the
//       triangular inverse; lane 0 writes L11 and inv(L11);                               barrier
// Two barriers per panel (static split; the DYN template argument hands the update out by a shared
// counter instead, and potrf_frag_schur_kernel below needs one barrier per panel: measured slower
// except double n = 65..80, docs/batched_cholesky.md); the diagonal factorization runs once per panel
// and block (not once per thread or warp), and the rows below it are a product, not a substitution
// (the "invert the diagonal block, then multiply" TRSM of batched GPU Cholesky codes, e.g. Abdelfattah,
// Haidar, Tomov, Dongarra, "Factorization and inversion of a million matrices using GPUs", ICCS 2017,
// and MAGMA's batched routines; alone its error grows with cond(L11) instead of being backward stable
// per row, which the double refinement step repairs (solve_panel); the Schur variant's update through
// inv(A11) has no such repair and is never the library's choice: docs/batched_cholesky.md).
// info: first (1-based) column whose pivot is not a positive finite number (warp 0 computes every pivot;
// thread 0 reports); the math goes on with NaNs. Only the lower n x n triangle is read and written.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "codelets/cuda/batched_chol/potrf_kernel.cuh"

namespace starfact::batched::gpu {

namespace frag {

constexpr int kMaxBlocks = 16;  // 128 / 8

__host__ __device__ constexpr int nblocks(int np) { return np * (np + 1) / 2; }
/// Index of lower block (rb, q), q <= rb (row-major over the lower triangle of blocks).
__host__ __device__ constexpr int bidx(int rb, int q) { return rb * (rb + 1) / 2 + q; }
/// Shared-memory elements for order n: the lower blocks, one 8 x 8 scratch block (the inverse) and 16
/// ints (the DYN variant's work counters; 16 elements cover them in both precisions).
__host__ __device__ constexpr int smem_elems(int n) { return (nblocks((n + 7) / 8) + 1) * 64 + 16; }

__device__ __forceinline__ double rsqrt_approx(double x) {
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}
__device__ __forceinline__ float rsqrt_approx(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/// 1 / sqrt(x) for every positive x, subnormals included, branch-free: subnormal x is scaled by 2^108
/// (2^48 in float; exact) and the result by 2^54 (2^24). The hardware approximation is refined by one
/// step of the series (1 - e)^(-1/2) = 1 + e/2 + 3e^2/8 (double; e = 1 - x y^2) or one Newton step
/// (float). NaN for x <= 0, Inf or NaN (such a pivot is reported through info anyway).
__device__ __forceinline__ double pivot_rsqrt(double x) {
    const bool sub = x < DBL_MIN;
    const double xs = sub ? x * 0x1p108 : x;
    const double y = rsqrt_approx(xs);
    const double e = fma(-xs, y * y, 1.0);
    const double r = fma(fma(e, 0.375, 0.5), y * e, y);
    return sub ? r * 0x1p54 : r;
}
__device__ __forceinline__ float pivot_rsqrt(float x) {
    const bool sub = x < FLT_MIN;
    const float xs = sub ? x * 0x1p48f : x;
    const float y = rsqrt_approx(xs);
    const float e = fmaf(-xs, y * y, 1.0f);
    const float r = fmaf(0.5f * y, e, y);
    return sub ? r * 0x1p24f : r;
}

/// D += A B on the FP64 tensor cores, one m8n8k4 step.
__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

template <typename T> struct Pair;
template <> struct Pair<double> { using V = double2; };
template <> struct Pair<float> { using V = float2; };
/// This lane's element pair (g, 2t), (g, 2t + 1) of the block at B.
template <typename T>
__device__ __forceinline__ typename Pair<T>::V& pair(T* B, int lane) {
    return reinterpret_cast<typename Pair<T>::V*>(B)[lane];
}

/// Stores row i of the lower triangle x (elements 0..i, zeros to the right: the whole row) to row i of
/// the row-major block D, in 16-byte vectors. The zeros make D exactly L, so the refinement step of
/// solve_panel can use its fragments as an operand.
template <typename T>
__device__ __forceinline__ void store_lower_row(T* D, int i, const T (&x)[8][8]) {
    constexpr int V = 16 / sizeof(T);
#pragma unroll
    for (int j0 = 0; j0 < 8; j0 += V) {
        T v[V];
#pragma unroll
        for (int e = 0; e < V; ++e) v[e] = j0 + e <= i ? x[i][j0 + e] : T(0);
        if constexpr (sizeof(T) == 8) *reinterpret_cast<double2*>(D + 8 * i + j0) = make_double2(v[0], v[1]);
        else *reinterpret_cast<float4*>(D + 8 * i + j0) = make_float4(v[0], v[1], v[2], v[3]);
    }
}

/// Factors the diagonal block Sd (row-major 8 x 8, lower part read) on every lane of the calling warp
/// (same inputs, same instructions, same bits): right-looking Cholesky with 1 / L_cc = pivot_rsqrt(p_c)
/// (L_cc = p_c / sqrt(p_c), L_ic = a_ic / sqrt(p_c)), then X = inv(L) by columns (X_jj = 1 / L_jj,
/// X_ij = -(1 / L_ii) sum_{j <= k < i} L_ik X_kj). Lane 0 writes L to Sd (by rows) and X to Si (by
/// columns; lower parts, the upper part of Si stays zero, that of Sd is written as zeros). Returns the first bad pivot column
/// (1-based) or 0. The caller orders the warp's earlier writes of Sd before the call (__syncwarp).
template <typename T>
__device__ __forceinline__ int factor_diag(T* Sd, T* Si, int lane) {
    T a[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j <= i; ++j) a[i][j] = Sd[8 * i + j];
    int fail = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        const T piv = a[c][c];
        fail = (fail == 0 && !good_pivot(piv)) ? c + 1 : fail;
        const T r = pivot_rsqrt(piv);
        a[c][c] = piv * r;
#pragma unroll
        for (int i = c + 1; i < 8; ++i) a[i][c] *= r;
#pragma unroll
        for (int i = c + 1; i < 8; ++i)
#pragma unroll
            for (int j = c + 1; j <= i; ++j) a[i][j] = fma(-a[i][c], a[j][c], a[i][j]);
        if (c == 0) __syncwarp();  // every lane has read Sd
        if (lane == 0) store_lower_row(Sd, c, a);  // row c of L is final
        a[c][c] = r;  // from here on the diagonal holds 1 / L_cc
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) {  // column j of X, stored at once (only one column live)
        T x[8];
        x[j] = a[j][j];
#pragma unroll
        for (int i = j + 1; i < 8; ++i) {
            T s = a[i][j] * x[j];
#pragma unroll
            for (int k = j + 1; k < i; ++k) s = fma(a[i][k], x[k], s);
            x[i] = -a[i][i] * s;
        }
        if (lane == 0)
#pragma unroll
            for (int i = j; i < 8; ++i) Si[8 * i + j] = x[i];
    }
    return fail;
}

/// (T), double: L(rb, p) = A(rb, p) X^T for rb = p + 1 + w + NW s (X = inv(L(p, p)) in Si): A's pair
/// is the A operand of both steps, X's pair the B operand (B(k, n) = X(n, 2k + step)). Then one step
/// of refinement in working precision, R = A(rb, p) - L(rb, p) L(p, p)^T and L(rb, p) += R X^T (two
/// DMMA steps each; L(p, p) from the diagonal block, whose upper part factor_diag zeroed): without it the
/// error of L(rb, p) grows with cond(L(p, p)), and double matrices with ill-conditioned diagonal blocks
/// (Gaussian-kernel matrices with small nuggets) gave scaled residuals up to ~130 (simulated; LAPACK
/// ~0.01); with it they stay in LAPACK's class (one step of fixed-precision iterative refinement:
/// Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 12.2). Float's range of
/// conditioning keeps the plain product within ~0.5 there, so float skips the step.
template <int NW>
__device__ __forceinline__ void solve_panel(double* S, const double* Si, int np, int p, int w, int lane) {
    constexpr int R = (kMaxBlocks - 1 + NW - 1) / NW;
    const double2 x = pair(const_cast<double*>(Si), lane);
    const double2 l = pair(S + 64 * bidx(p, p), lane);
    double2 a[R];
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = p + 1 + w + NW * s;
        if (rb < np) a[s] = pair(S + 64 * bidx(rb, p), lane);
    }
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = p + 1 + w + NW * s;
        if (rb < np) {  // warp-uniform
            double d0 = 0.0, d1 = 0.0;
            dmma(d0, d1, a[s].x, x.x);
            dmma(d0, d1, a[s].y, x.y);
            double r0 = a[s].x, r1 = a[s].y;  // R = A - L21 L11^T (the accumulator pair is an operand pair)
            dmma(r0, r1, -d0, l.x);
            dmma(r0, r1, -d1, l.y);
            dmma(d0, d1, r0, x.x);  // L21 += R X^T
            dmma(d0, d1, r1, x.y);
            pair(S + 64 * bidx(rb, p), lane) = make_double2(d0, d1);
        }
    }
}
/// (T), float: lane (g, t) computes L(g, 2t + e) = sum_k A(g, k) X(2t + e, k) (row g of A, rows 2t,
/// 2t + 1 of X, broadcast 16-byte reads).
template <int NW>
__device__ __forceinline__ void solve_panel(float* S, const float* Si, int np, int p, int w, int lane) {
    constexpr int R = (kMaxBlocks - 1 + NW - 1) / NW;
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    float x[2][8];
#pragma unroll
    for (int e = 0; e < 2; ++e)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float4 v = *reinterpret_cast<const float4*>(Si + 8 * (t2 + e) + 4 * h);
            x[e][4 * h] = v.x, x[e][4 * h + 1] = v.y, x[e][4 * h + 2] = v.z, x[e][4 * h + 3] = v.w;
        }
    float a[R][8];
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = p + 1 + w + NW * s;
        if (rb < np)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 v = *reinterpret_cast<const float4*>(S + 64 * bidx(rb, p) + 8 * g + 4 * h);
                a[s][4 * h] = v.x, a[s][4 * h + 1] = v.y, a[s][4 * h + 2] = v.z, a[s][4 * h + 3] = v.w;
            }
    }
    __syncwarp();  // the rows are read by 4 lanes each before any lane overwrites its pair
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = p + 1 + w + NW * s;
        if (rb < np) {
            float y0 = 0.0f, y1 = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                y0 = fmaf(a[s][k], x[0][k], y0);
                y1 = fmaf(a[s][k], x[1][k], y1);
            }
            pair(S + 64 * bidx(rb, p), lane) = make_float2(y0, y1);
        }
    }
}

/// (C) of panel p on blocks (rb, q0 .. q0 + QB - 1) (those <= rb), double: acc -= L(rb, p) L(q, p)^T.
template <int QB>
__device__ __forceinline__ void update_unit(double* S, int p, int rb, int q0, int lane) {
    const double2 a = pair(S + 64 * bidx(rb, p), lane);
    const double a0 = -a.x, a1 = -a.y;
    double2 b[QB], c[QB];
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {  // warp-uniform
            b[j] = pair(S + 64 * bidx(q0 + j, p), lane);
            c[j] = pair(S + 64 * bidx(rb, q0 + j), lane);
        }
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {
            dmma(c[j].x, c[j].y, a0, b[j].x);
            dmma(c[j].x, c[j].y, a1, b[j].y);
            pair(S + 64 * bidx(rb, q0 + j), lane) = c[j];
        }
}
/// Float: lane (g, t): acc(g, 2t + e) -= sum_k L(rb, p)(g, k) L(q, p)(2t + e, k).
template <int QB>
__device__ __forceinline__ void update_unit(float* S, int p, int rb, int q0, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    float a[8];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(S + 64 * bidx(rb, p) + 8 * g + 4 * h);
        a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {  // warp-uniform
            const float* Bq = S + 64 * bidx(q0 + j, p);
            float2 c = pair(S + 64 * bidx(rb, q0 + j), lane);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 u = *reinterpret_cast<const float4*>(Bq + 8 * t2 + 4 * h);
                const float4 v = *reinterpret_cast<const float4*>(Bq + 8 * (t2 + 1) + 4 * h);
                const float* A = a + 4 * h;
                c.x = fmaf(-A[0], u.x, c.x), c.y = fmaf(-A[0], v.x, c.y);
                c.x = fmaf(-A[1], u.y, c.x), c.y = fmaf(-A[1], v.y, c.y);
                c.x = fmaf(-A[2], u.z, c.x), c.y = fmaf(-A[2], v.z, c.y);
                c.x = fmaf(-A[3], u.w, c.x), c.y = fmaf(-A[3], v.w, c.y);
            }
            pair(S + 64 * bidx(rb, q0 + j), lane) = c;
        }
}

/// (C) of panel p, warp 0's share: block column p + 1 (its diagonal block included), in units of 4 rows.
template <typename T>
__device__ __forceinline__ void update_next_column(T* S, int np, int p, int lane) {
    const int q = p + 1;
    if constexpr (sizeof(T) == 8) {
        const double2 b = pair(S + 64 * bidx(q, p), lane);
        for (int r0 = q; r0 < np; r0 += 4) {
            double2 a[4], c[4];
#pragma unroll
            for (int s = 0; s < 4; ++s)
                if (r0 + s < np) {
                    a[s] = pair(S + 64 * bidx(r0 + s, p), lane);
                    c[s] = pair(S + 64 * bidx(r0 + s, q), lane);
                }
#pragma unroll
            for (int s = 0; s < 4; ++s)
                if (r0 + s < np) {
                    dmma(c[s].x, c[s].y, -a[s].x, b.x);
                    dmma(c[s].x, c[s].y, -a[s].y, b.y);
                    pair(S + 64 * bidx(r0 + s, q), lane) = c[s];
                }
        }
    } else {
        for (int rb = q; rb < np; ++rb) update_unit<1>(S, p, rb, q, lane);
    }
}

/// (C) of panel p, the other warps' share: blocks (rb, q), p + 2 <= q <= rb < np, in units of QB blocks
/// of one block row, round-robin over warps 1..NW-1.
template <typename T, int NW, int QB>
__device__ __forceinline__ void update_rest(T* S, int np, int p, int w, int lane) {
    int turn = 0;
    for (int rb = p + 2; rb < np; ++rb)
        for (int q0 = p + 2; q0 <= rb; q0 += QB) {
            if (turn == w - 1) update_unit<QB>(S, p, rb, q0, lane);
            turn = turn + 1 == NW - 1 ? 0 : turn + 1;
        }
}

/// (C) of panel p with dynamic scheduling (DYN variant): the units (rb, q0 .. q0 + QB - 1) of every block
/// (rb, q), p + 1 <= q <= rb < np, except the diagonal block (p + 1, p + 1) (warp 0 updates it before
/// factoring it), in row order, handed out one at a time by a shared counter; warp 0 joins after its
/// diagonal factorization, so the warps finish together whatever the split.
template <typename T, int QB>
__device__ __forceinline__ void update_dynamic(T* S, int np, int p, int lane, int* counter) {
    auto grab = [&]() {
        int v = 0;
        if (lane == 0) v = atomicAdd(counter, 1);
        return __shfl_sync(0xffffffffu, v, 0);
    };
    int u = grab(), k = 0, rb = p + 2, q0 = p + 1;
    for (;;) {
        while (k < u) {  // advance to unit u (u only grows)
            q0 += QB;
            if (q0 > rb) {
                ++rb;
                q0 = p + 1;
            }
            ++k;
        }
        if (rb >= np) break;
        const int next = grab();  // in flight during the unit
        update_unit<QB>(S, p, rb, q0, lane);
        u = next;
    }
}

/// Loads A (order n, padded with the identity) into the block layout: lane pair (g, 2t + e) of block
/// (rb, q) <- A(8 rb + g, 8 q + 2t + e); cp.async for the lower n x n triangle, the identity's values
/// (and zeros above the diagonal) stored directly. Blocks round-robin over the warps. Commits.
template <typename T, int NW>
__device__ __forceinline__ void load_blocks(const T* A, int n, int lda, int np, T* S, int w, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3), nb = nblocks(np);
    int rb = 0, q = w;
    while (q > rb) q -= ++rb;  // block w
    for (int b = w; b < nb; b += NW) {
        const int i = 8 * rb + g;
        T* dst = S + 64 * b + 2 * lane;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const int j = 8 * q + t2 + e;
            if (i < n && j <= i) __pipeline_memcpy_async(dst + e, A + static_cast<int64_t>(j) * lda + i, sizeof(T));
            else dst[e] = i == j ? T(1) : T(0);
        }
        q += NW;
        while (q > rb) q -= ++rb;
    }
    __pipeline_commit();
}

/// Stores the lower n x n triangle back from the block layout (same mapping as load_blocks).
template <typename T, int NW>
__device__ __forceinline__ void store_blocks(T* A, int n, int lda, int np, const T* S, int w, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3), nb = nblocks(np);
    int rb = 0, q = w;
    while (q > rb) q -= ++rb;
    for (int b = w; b < nb; b += NW) {
        const int i = 8 * rb + g;
        const typename Pair<T>::V v = pair(const_cast<T*>(S) + 64 * b, lane);
        const int j = 8 * q + t2;
        if (i < n && j <= i) A[static_cast<int64_t>(j) * lda + i] = v.x;
        if (i < n && j + 1 <= i) A[static_cast<int64_t>(j + 1) * lda + i] = v.y;
        q += NW;
        while (q > rb) q -= ++rb;
    }
}

}  // namespace frag

/// potrf_batched, fragment-layout resident kernel (the design at the top of this file), orders n <= 128: one matrix per
/// block of NT threads (grid-stride over the batch), dynamic shared memory frag::smem_elems(n) elements;
/// MINB blocks per SM asked of ptxas. DYN: (C) handed out by a shared counter, warp 0 updating only the
/// next diagonal block before factoring it (update_dynamic); else a static split (warp 0: the next block
/// column, warps 1..NW-1 the rest, round-robin).
template <typename T, int NT, int MINB, bool DYN = false>
__global__ void __launch_bounds__(NT, MINB)
    potrf_frag_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    using namespace frag;
    static_assert(NT % 32 == 0 && NT >= 64 && NT <= 512, "NT: whole warps, 64..512");
    constexpr int NW = NT / 32;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int t = static_cast<int>(threadIdx.x), w = t >> 5, lane = t & 31;
    const int np = (n + 7) / 8;
    T* Si = S + 64 * nblocks(np);
    int* counters = reinterpret_cast<int*>(Si + 64);  // DYN: one per panel
    for (int k = t; k < 64; k += NT) Si[k] = T(0);  // its upper part stays zero
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x) {
        T* Ai = A.get(i);
        load_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        if (DYN && t < kMaxBlocks) counters[t] = 0;
        __pipeline_wait_prior(0);
        __syncthreads();
        int info_i = 0;
        if (w == 0) info_i = factor_diag<T>(S, Si, lane);
        __syncthreads();
        for (int p = 0; p + 1 < np; ++p) {
            solve_panel<NW>(S, Si, np, p, w, lane);
            __syncthreads();  // panel p final; Si free
            if constexpr (DYN) {
                if (w == 0) {
                    update_unit<1>(S, p, p + 1, p + 1, lane);
                    __syncwarp();  // block (p + 1, p + 1) written by every lane, read by every lane below
                    const int fail = factor_diag<T>(S + 64 * bidx(p + 1, p + 1), Si, lane);
                    if (info_i == 0 && fail) info_i = 8 * (p + 1) + fail;
                }
                update_dynamic<T, 4>(S, np, p, lane, counters + p);
            } else if (w == 0) {
                update_next_column<T>(S, np, p, lane);
                __syncwarp();  // block (p + 1, p + 1) written by every lane, read by every lane below
                const int fail = factor_diag<T>(S + 64 * bidx(p + 1, p + 1), Si, lane);
                if (info_i == 0 && fail) info_i = 8 * (p + 1) + fail;
            } else {
                update_rest<T, NW, 4>(S, np, p, w, lane);
            }
            __syncthreads();
        }
        store_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}


namespace frag {

/// Shared-memory elements of the Schur variant: the lower blocks, 3 scratch blocks for X(p) =
/// inv(L(p, p)) (p mod 3), 2 for -W(p) = -inv(A(p, p)) (p mod 2), 16 work counters (16 elements).
__host__ __device__ constexpr int schur_smem_elems(int n) { return (nblocks((n + 7) / 8) + 5) * 64 + 16; }

/// Row r of a row-major 8 x 8 block into registers (two or four 16-byte reads).
template <typename T>
__device__ __forceinline__ void load_row(const T* B, int r, T (&v)[8]) {
    if constexpr (sizeof(T) == 8) {
#pragma unroll
        for (int h = 0; h < 4; ++h) {
            const double2 x = reinterpret_cast<const double2*>(B + 8 * r)[h];
            v[2 * h] = x.x, v[2 * h + 1] = x.y;
        }
    } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float4 x = reinterpret_cast<const float4*>(B + 8 * r)[h];
            v[4 * h] = x.x, v[4 * h + 1] = x.y, v[4 * h + 2] = x.z, v[4 * h + 3] = x.w;
        }
    }
}

/// -W = -(X^T X) (= -inv(A(p, p)), symmetric) into Wd by the calling warp. Double, on the tensor cores:
/// lane (g, t) holds X(2t + s, g) as the A operand (X^T, reduction index permuted) and as the B
/// operand (X) of step s. Float: lane (g, t) sums its pair over k (the upper part of X is zero).
__device__ __forceinline__ void schur_weight(const double* X, double* Wd, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    const double x0 = X[8 * t2 + g], x1 = X[8 * (t2 + 1) + g];
    double w0 = 0.0, w1 = 0.0;
    dmma(w0, w1, x0, x0);
    dmma(w0, w1, x1, x1);
    pair(Wd, lane) = make_double2(-w0, -w1);
}
__device__ __forceinline__ void schur_weight(const float* X, float* Wd, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    float w0 = 0.0f, w1 = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const float xg = X[8 * k + g];
        w0 = fmaf(xg, X[8 * k + t2], w0);
        w1 = fmaf(xg, X[8 * k + t2 + 1], w1);
    }
    pair(Wd, lane) = make_float2(-w0, -w1);
}

/// Schur-variant update of blocks (rb, q0 .. q0 + QB - 1) (those <= rb) with the unscaled panel p:
/// Y = A(rb, p) (-W), then S(rb, q) += Y A(q, p)^T. Double: two DMMA steps for Y, which comes out in the
/// accumulator layout, again an A operand. Float: lane (g, t) computes Y(g, 2t), Y(g, 2t + 1) (rows 2t,
/// 2t + 1 of the symmetric W), the row Y(g, 0..7) is gathered from the 4 lanes of g by shuffles.
template <int QB>
__device__ __forceinline__ void schur_unit(double* S, const double* Wd, int p, int rb, int q0, int lane) {
    const double2 wm = pair(const_cast<double*>(Wd), lane);
    const double2 a = pair(S + 64 * bidx(rb, p), lane);
    double2 b[QB], c[QB];
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {  // warp-uniform
            b[j] = pair(S + 64 * bidx(q0 + j, p), lane);
            c[j] = pair(S + 64 * bidx(rb, q0 + j), lane);
        }
    double y0 = 0.0, y1 = 0.0;
    dmma(y0, y1, a.x, wm.x);
    dmma(y0, y1, a.y, wm.y);
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {
            dmma(c[j].x, c[j].y, y0, b[j].x);
            dmma(c[j].x, c[j].y, y1, b[j].y);
            pair(S + 64 * bidx(rb, q0 + j), lane) = c[j];
        }
}
template <int QB>
__device__ __forceinline__ void schur_unit(float* S, const float* Wd, int p, int rb, int q0, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    float a[8], w0[8], w1[8];
    load_row(S + 64 * bidx(rb, p), g, a);
    load_row(Wd, t2, w0);
    load_row(Wd, t2 + 1, w1);
    float y0 = 0.0f, y1 = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        y0 = fmaf(a[k], w0[k], y0);
        y1 = fmaf(a[k], w1[k], y1);
    }
    float y[8];
#pragma unroll
    for (int tt = 0; tt < 4; ++tt) {
        y[2 * tt] = __shfl_sync(0xffffffffu, y0, (lane & ~3) | tt);
        y[2 * tt + 1] = __shfl_sync(0xffffffffu, y1, (lane & ~3) | tt);
    }
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (q0 + j <= rb) {  // warp-uniform
            const float* Bq = S + 64 * bidx(q0 + j, p);
            float u[8], v[8];
            load_row(Bq, t2, u);
            load_row(Bq, t2 + 1, v);
            float2 c = pair(S + 64 * bidx(rb, q0 + j), lane);
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                c.x = fmaf(y[k], u[k], c.x);
                c.y = fmaf(y[k], v[k], c.y);
            }
            pair(S + 64 * bidx(rb, q0 + j), lane) = c;
        }
}

/// L(rb, p) = A(rb, p) X^T for rb = r0 .. min(r0 + 4, np) - 1 (the deferred (T) of the Schur variant),
/// stored straight to the matrix in global memory (nobody reads these blocks in shared memory again):
/// the factor leaves during the factorization, not in one burst at its end.
__device__ __forceinline__ void schur_solve(const double* S, const double* X, int np, int p, int r0, int lane,
                                            double* A, int n, int lda) {
    const int g = lane >> 2, j = 8 * p + 2 * (lane & 3);
    const double2 x = pair(const_cast<double*>(X), lane);
    double2 a[4];
#pragma unroll
    for (int s = 0; s < 4; ++s)
        if (r0 + s < np) a[s] = pair(const_cast<double*>(S) + 64 * bidx(r0 + s, p), lane);
#pragma unroll
    for (int s = 0; s < 4; ++s)
        if (r0 + s < np) {
            double d0 = 0.0, d1 = 0.0;
            dmma(d0, d1, a[s].x, x.x);
            dmma(d0, d1, a[s].y, x.y);
            const int i = 8 * (r0 + s) + g;  // > j + 1: below the diagonal block
            if (i < n) {
                A[static_cast<int64_t>(j) * lda + i] = d0;
                A[static_cast<int64_t>(j + 1) * lda + i] = d1;
            }
        }
}
__device__ __forceinline__ void schur_solve(const float* S, const float* X, int np, int p, int r0, int lane, float* A,
                                            int n, int lda) {
    const int g = lane >> 2, t2 = 2 * (lane & 3), j = 8 * p + t2;
    float x0[8], x1[8];
    load_row(X, t2, x0);
    load_row(X, t2 + 1, x1);
#pragma unroll
    for (int s = 0; s < 4; ++s)
        if (r0 + s < np) {
            float a[8];
            load_row(S + 64 * bidx(r0 + s, p), g, a);
            float y0 = 0.0f, y1 = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                y0 = fmaf(a[k], x0[k], y0);
                y1 = fmaf(a[k], x1[k], y1);
            }
            const int i = 8 * (r0 + s) + g;
            if (i < n) {
                A[static_cast<int64_t>(j) * lda + i] = y0;
                A[static_cast<int64_t>(j + 1) * lda + i] = y1;
            }
        }
}

/// Stores the diagonal blocks' lower n x n part (the Schur variant's other blocks left in schur_solve).
template <typename T>
__device__ __forceinline__ void store_diag_blocks(T* A, int n, int lda, int np, const T* S, int w, int nw, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    for (int b = w; b < np; b += nw) {
        const int i = 8 * b + g, j = 8 * b + t2;
        const typename Pair<T>::V v = pair(const_cast<T*>(S) + 64 * bidx(b, b), lane);
        if (i < n && j <= i) A[static_cast<int64_t>(j) * lda + i] = v.x;
        if (i < n && j + 1 <= i) A[static_cast<int64_t>(j + 1) * lda + i] = v.y;
    }
}

}  // namespace frag

/// potrf_batched, fragment layout, *Schur* variant (fifth session): the trailing update uses the
/// unscaled panel, S(rb, q) -= A(rb, p) inv(A(p, p)) A(q, p)^T (inv(A(p, p)) = X^T X, X = inv(L(p, p))),
/// so the rows below the diagonal block need not be solved before the update: their solve L(rb, p) =
/// A(rb, p) X^T is deferred to the next phase, as extra work units. One barrier per panel: phase p =
/// { warp 0: update of the diagonal block (p + 1, p + 1), its factorization, X(p + 1), W(p + 1), then
/// joins; every warp: dynamically handed-out units of the update with panel p (4 blocks of one block
/// row) and of the solve of panel p - 1 (4 block rows, stored straight to global memory) }. The cost:
/// Y = A(rb, p) (-W) once per unit (double: two DMMA steps; float: 16 FMAs and 8 shuffles per lane).
template <typename T, int NT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
    potrf_frag_schur_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    using namespace frag;
    static_assert(NT % 32 == 0 && NT >= 64 && NT <= 512, "NT: whole warps, 64..512");
    constexpr int NW = NT / 32, QB = 4;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int t = static_cast<int>(threadIdx.x), w = t >> 5, lane = t & 31;
    const int np = (n + 7) / 8;
    T* Xb = S + 64 * nblocks(np);  // 3 blocks: X(p) at Xb + 64 (p % 3)
    T* Wb = Xb + 3 * 64;           // 2 blocks: -W(p) at Wb + 64 (p % 2)
    int* counters = reinterpret_cast<int*>(Wb + 2 * 64);
    for (int k = t; k < 3 * 64; k += NT) Xb[k] = T(0);  // the upper parts stay zero
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x) {
        T* Ai = A.get(i);
        load_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        if (t < kMaxBlocks) counters[t] = 0;
        __pipeline_wait_prior(0);
        __syncthreads();
        int info_i = 0;
        if (w == 0) {
            info_i = factor_diag<T>(S, Xb, lane);
            __syncwarp();
            schur_weight(Xb, Wb, lane);
        }
        __syncthreads();
        for (int p = 0; p + 1 < np; ++p) {
            const T* Wp = Wb + 64 * (p & 1);
            if (w == 0) {
                const int q = p + 1;
                schur_unit<1>(S, Wp, p, q, q, lane);
                __syncwarp();  // block (q, q) written by every lane, read by every lane below
                T* X = Xb + 64 * (q % 3);
                const int fail = factor_diag<T>(S + 64 * bidx(q, q), X, lane);
                if (info_i == 0 && fail) info_i = 8 * q + fail;
                __syncwarp();
                schur_weight(X, Wb + 64 * (q & 1), lane);
            }
            // Units: update with panel p (rows p + 2 .. np - 1, chunks of QB from column p + 1), then the
            // solve of panel p - 1 (rows p .. np - 1, 4 per unit; none when p = 0).
            const T* Xm = Xb + 64 * ((p + 2) % 3);  // X(p - 1)
            int* counter = counters + p;
            auto grab = [&]() {
                int v = 0;
                if (lane == 0) v = atomicAdd(counter, 1);
                return __shfl_sync(0xffffffffu, v, 0);
            };
            int u = grab(), k = 0, rb = p + 2, q0 = p + 1, tr = p > 0 ? p : np;
            for (;;) {
                while (k < u) {
                    if (rb < np) {
                        q0 += QB;
                        if (q0 > rb) {
                            ++rb;
                            q0 = p + 1;
                        }
                    } else {
                        tr += 4;
                    }
                    ++k;
                }
                if (rb >= np && tr >= np) break;
                const int next = grab();
                if (rb < np) schur_unit<QB>(S, Wp, p, rb, q0, lane);
                else schur_solve(S, Xm, np, p - 1, tr, lane, Ai, n, lda);
                u = next;
            }
            __syncthreads();
        }
        if (np >= 2 && w == 0) schur_solve(S, Xb + 64 * ((np - 2) % 3), np, np - 2, np - 1, lane, Ai, n, lda);
        store_diag_blocks<T>(Ai, n, lda, np, S, w, NW, lane);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}

}  // namespace starfact::batched::gpu
