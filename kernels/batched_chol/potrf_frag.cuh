// Batched small Cholesky, *fragment-layout* resident kernel (orders up to 128, meant for n >= 65): one
// matrix per thread block of NT threads, its lower triangle (padded with the identity to
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
//   (C) warps 1..NW-1: S(rb, q) -= L(rb, p) L(q, p)^T for p + 1 <= q <= rb, rb >= p + 2 (units of up to
//       4 blocks of one block row, round-robin); warp 0 meanwhile updates the diagonal block (p + 1,
//       p + 1) and factors it (look-ahead): every lane of warp 0 runs the same 8 x 8 Cholesky in
//       registers (branch-free full-range rsqrt + one refinement step per pivot: no division, no sqrt),
//       then the triangular inverse, one column per lane; lane 0 writes L11, lanes 0..7 inv(L11)
//       (with a single update warp, NW = 2, warp 0 updates the whole block column p + 1);     barrier
// Two barriers per panel (static split; the DYN template argument hands the update out by a shared
// counter instead; potrf_frag_pipe_kernel below overlaps the solve with warp 0's chain). Warp 0's chain
// (diagonal update, factorization, inverse) is the critical path: Nsight Compute (double n = 128)
// found the update warps waiting at the barrier for it 22 % of the time, hence its light share. The
// diagonal factorization runs once per panel and block (not once per thread or warp), and the rows
// below it are a product, not a substitution (the "invert the diagonal block, then multiply" TRSM of
// batched GPU Cholesky codes, e.g. Abdelfattah, Haidar, Tomov, Dongarra, "Factorization and inversion
// of a million matrices using GPUs", ICCS 2017, and MAGMA's batched routines; alone its error grows with
// cond(L11) instead of being backward stable per row, which the double refinement step repairs
// (solve_panel); an update through inv(A11) without such a repair (a "Schur" variant) was not backward
// stable and was removed: docs/batched_cholesky.md, "Tried and rejected").
// info: first (1-based) column whose pivot is not a positive finite number (warp 0 computes every pivot;
// thread 0 reports); the math goes on with NaNs. Only the lower n x n triangle is read and written.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "kernels/batched_chol/potrf_kernel.cuh"

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
/// X_ij = -(1 / L_ii) sum_{j <= k < i} L_ik X_kj; lane l computes column l mod 8). Lane 0 writes L to Sd
/// (by rows, the upper part as zeros); lanes 0..7 write their columns of X to Si (the upper part as zeros). Returns the first bad pivot column
/// (1-based) or 0. The caller orders the warp's earlier writes of Sd before the call (__syncwarp).
template <typename T>
__device__ __forceinline__ int factor_diag(T* Sd, T* Si, int lane) {
    T a[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)  // the lower part of row i, in 16-byte reads
#pragma unroll
        for (int j = 0; j <= i; j += 16 / static_cast<int>(sizeof(T))) {
            if constexpr (sizeof(T) == 8) {
                const double2 v = *reinterpret_cast<const double2*>(Sd + 8 * i + j);
                a[i][j] = v.x;
                if (j + 1 <= i) a[i][j + 1] = v.y;
            } else {
                const float4 v = *reinterpret_cast<const float4*>(Sd + 8 * i + j);
                const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int k = 0; k < 4; ++k)
                    if (j + k <= i) a[i][j + k] = e[k];
            }
        }
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
    // X by columns, one column per lane (j = lane mod 8; lanes 8.. repeat lanes 0..7, which store),
    // with x_k = 0 above the diagonal (k < j) so that every lane runs the same instructions; the products
    // and their order are those of the column-by-column substitution (s starts at +0, the first nonzero
    // term is rounded alone), so X is the same.
    const int j = lane & 7;
    T x[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        T s = T(0);
#pragma unroll
        for (int k = 0; k < i; ++k) s = fma(a[i][k], x[k], s);
        const T xi = -a[i][i] * s;
        x[i] = i < j ? T(0) : i == j ? a[i][i] : xi;
    }
    if (lane < 8)
#pragma unroll
        for (int i = 0; i < 8; ++i) Si[8 * i + j] = x[i];  // the upper part as the zeros it holds
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
/// The solve of one or two blocks held as pairs a0, a1 (d0, d1 out; x, l: this lane's pairs of X and
/// L(p, p)), double, as above. Both chains of six dependent DMMA steps are issued stage by stage (asm
/// volatile keeps the source order): one block's step hides the other's tensor-core latency.
__device__ __forceinline__ void solve2_regs(double2 a0, double2 a1, bool two, double2 x, double2 l, double2& d0,
                                            double2& d1) {
    double d[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    double r[2][2] = {{a0.x, a0.y}, {a1.x, a1.y}};  // R = A - L21 L11^T (accumulator pairs are operand pairs)
    dmma(d[0][0], d[0][1], a0.x, x.x);
    if (two) dmma(d[1][0], d[1][1], a1.x, x.x);
    dmma(d[0][0], d[0][1], a0.y, x.y);
    if (two) dmma(d[1][0], d[1][1], a1.y, x.y);
    dmma(r[0][0], r[0][1], -d[0][0], l.x);
    if (two) dmma(r[1][0], r[1][1], -d[1][0], l.x);
    dmma(r[0][0], r[0][1], -d[0][1], l.y);
    if (two) dmma(r[1][0], r[1][1], -d[1][1], l.y);
    dmma(d[0][0], d[0][1], r[0][0], x.x);  // L21 += R X^T
    if (two) dmma(d[1][0], d[1][1], r[1][0], x.x);
    dmma(d[0][0], d[0][1], r[0][1], x.y);
    if (two) dmma(d[1][0], d[1][1], r[1][1], x.y);
    d0 = make_double2(d[0][0], d[0][1]);
    d1 = make_double2(d[1][0], d[1][1]);
}
/// Solves the blocks A0 -> D0 and, if two, A1 -> D1 (D = A in place, or elsewhere), double (only two
/// blocks' operands live: all of a warp's blocks at once spilled under the register caps).
__device__ __forceinline__ void solve2(const double* A0, const double* A1, double* D0, double* D1, bool two,
                                       const double* Si, const double* Ld, int lane) {
    const double2 a0 = pair(const_cast<double*>(A0), lane), a1 = pair(const_cast<double*>(two ? A1 : A0), lane);
    double2 d0, d1;
    solve2_regs(a0, a1, two, pair(const_cast<double*>(Si), lane), pair(const_cast<double*>(Ld), lane), d0, d1);
    pair(D0, lane) = d0;
    if (two) pair(D1, lane) = d1;
}
/// (T) of panel p on block rows rb = r0 + ws + NS s (< np), in place, two at a time.
template <int NS>
__device__ __forceinline__ void solve_rows(double* S, const double* Si, int np, int p, int r0, int ws, int lane) {
    constexpr int R = (kMaxBlocks - 1 + NS - 1) / NS;
    const double* Ld = S + 64 * bidx(p, p);
#pragma unroll
    for (int s = 0; s < R; s += 2) {
        const int rb = r0 + ws + NS * s, rb2 = rb + NS;
        if (rb >= np) break;  // warp-uniform
        const bool two = s + 1 < R && rb2 < np;
        double* B0 = S + 64 * bidx(rb, p);
        double* B1 = S + 64 * bidx(two ? rb2 : rb, p);
        solve2(B0, B1, B0, B1, two, Si, Ld, lane);
    }
}
/// One block of panel p, A -> D (D not in S: the pipelined kernel's private copy of L(p + 1, p)).
__device__ __forceinline__ void solve_block(const double* S, const double* Si, int p, const double* A, double* D,
                                            int lane) {
    solve2(A, A, D, D, false, Si, S + 64 * bidx(p, p), lane);
}
template <int NW>
__device__ __forceinline__ void solve_panel(double* S, const double* Si, int np, int p, int w, int lane) {
    solve_rows<NW>(S, Si, np, p, p + 1, w, lane);
}
/// (T), float: lane (g, t) computes L(g, 2t + e) = sum_k A(g, k) X(2t + e, k) (row g of A, rows 2t,
/// 2t + 1 of X, broadcast 16-byte reads).
/// Rows of X (this lane's 2t, 2t + 1), for the float solves.
__device__ __forceinline__ void load_x_rows(const float* Si, int lane, float (&x)[2][8]) {
    const int t2 = 2 * (lane & 3);
#pragma unroll
    for (int e = 0; e < 2; ++e)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float4 v = *reinterpret_cast<const float4*>(Si + 8 * (t2 + e) + 4 * h);
            x[e][4 * h] = v.x, x[e][4 * h + 1] = v.y, x[e][4 * h + 2] = v.z, x[e][4 * h + 3] = v.w;
        }
}
/// Row g of block B (two 16-byte reads).
__device__ __forceinline__ void load_row8(const float* B, int g, float (&a)[8]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(B + 8 * g + 4 * h);
        a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
    }
}
__device__ __forceinline__ float2 solve_row(const float (&a)[8], const float (&x)[2][8]) {
    float y0 = 0.0f, y1 = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        y0 = fmaf(a[k], x[0][k], y0);
        y1 = fmaf(a[k], x[1][k], y1);
    }
    return make_float2(y0, y1);
}
template <int NS>
__device__ __forceinline__ void solve_rows(float* S, const float* Si, int np, int p, int r0, int ws, int lane) {
    constexpr int R = (kMaxBlocks - 1 + NS - 1) / NS;
    const int g = lane >> 2;
    float x[2][8];
    load_x_rows(Si, lane, x);
    float a[R][8];
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = r0 + ws + NS * s;
        if (rb < np) load_row8(S + 64 * bidx(rb, p), g, a[s]);
    }
    __syncwarp();  // the rows are read by 4 lanes each before any lane overwrites its pair
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int rb = r0 + ws + NS * s;
        if (rb < np) pair(S + 64 * bidx(rb, p), lane) = solve_row(a[s], x);
    }
}
__device__ __forceinline__ void solve_block(const float* S, const float* Si, int p, const float* A, float* D, int lane) {
    float x[2][8], a[8];
    load_x_rows(Si, lane, x);
    load_row8(A, lane >> 2, a);
    pair(D, lane) = solve_row(a, x);
}
template <int NW>
__device__ __forceinline__ void solve_panel(float* S, const float* Si, int np, int p, int w, int lane) {
    solve_rows<NW>(S, Si, np, p, p + 1, w, lane);
}

/// (C) of panel p on blocks (rb, q0 .. q0 + QB - 1) (those <= rb), double: acc -= L(rb, p) L(q, p)^T,
/// L(rb, p) from La, L(q0, p) from B0 (the others from S).
/// FULL: all QB blocks exist (q0 + QB - 1 <= rb): no per-block tests (and no warp re-convergence before
/// each predicated DMMA step).
template <int QB, bool FULL>
__device__ __forceinline__ void update_unit_core(double* S, const double* La, const double* B0, int p, int rb,
                                                 int q0, int lane) {
    const double2 a = pair(const_cast<double*>(La), lane);
    const double a0 = -a.x, a1 = -a.y;
    double2 b[QB], c[QB];
    const double* Bs = S + 64 * bidx(q0, p);  // L(q0 + j, p): running pointer, bidx(q + 1, p) = bidx(q, p) + q + 1
    double* C = S + 64 * bidx(rb, q0);        // S(rb, q0 + j): contiguous
#pragma unroll
    for (int j = 0; j < QB; ++j) {
        if (j > 0) Bs += 64 * (q0 + j);
        if (FULL || q0 + j <= rb) {  // warp-uniform
            b[j] = pair(const_cast<double*>(j == 0 ? B0 : Bs), lane);
            c[j] = pair(C + 64 * j, lane);
        }
    }
    // Step 0 of every block, then step 1 (independent accumulators between the dependent steps).
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (FULL || q0 + j <= rb) dmma(c[j].x, c[j].y, a0, b[j].x);
#pragma unroll
    for (int j = 0; j < QB; ++j)
        if (FULL || q0 + j <= rb) {
            dmma(c[j].x, c[j].y, a1, b[j].y);
            pair(C + 64 * j, lane) = c[j];
        }
}
/// Float: lane (g, t): acc(g, 2t + e) -= sum_k L(rb, p)(g, k) L(q, p)(2t + e, k).
template <int QB, bool FULL>
__device__ __forceinline__ void update_unit_core(float* S, const float* La, const float* B0, int p, int rb, int q0,
                                                 int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    float a[8];
    load_row8(La, g, a);
    const float* Bs = S + 64 * bidx(q0, p);  // as in the double version
    float* C = S + 64 * bidx(rb, q0);
#pragma unroll
    for (int j = 0; j < QB; ++j) {
        if (j > 0) Bs += 64 * (q0 + j);
        if (FULL || q0 + j <= rb) {  // warp-uniform
            const float* Bq = j == 0 ? B0 : Bs;
            float2 c = pair(C + 64 * j, lane);
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
            pair(C + 64 * j, lane) = c;
        }
    }
}
/// Dispatch on whether the unit is full.
template <int QB, typename T>
__device__ __forceinline__ void update_unit(T* S, const T* La, const T* B0, int p, int rb, int q0, int lane) {
    if (q0 + QB - 1 <= rb) update_unit_core<QB, true>(S, La, B0, p, rb, q0, lane);
    else update_unit_core<QB, false>(S, La, B0, p, rb, q0, lane);
}
/// The same with every operand in S.
template <int QB, typename T>
__device__ __forceinline__ void update_unit(T* S, int p, int rb, int q0, int lane) {
    update_unit<QB>(S, S + 64 * bidx(rb, p), S + 64 * bidx(q0, p), p, rb, q0, lane);
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
                if (r0 + s < np) dmma(c[s].x, c[s].y, -a[s].x, b.x);
#pragma unroll
            for (int s = 0; s < 4; ++s)
                if (r0 + s < np) {
                    dmma(c[s].x, c[s].y, -a[s].y, b.y);
                    pair(S + 64 * bidx(r0 + s, q), lane) = c[s];
                }
        }
    } else {
        for (int rb = q; rb < np; ++rb) update_unit<1>(S, p, rb, q, lane);
    }
}

/// (C) of panel p, the other warps' share: blocks (rb, q), qf <= q <= rb, p + 2 <= rb < np, in units of
/// QB blocks of one block row, round-robin over warps 1..NW-1 in row order. Each warp steps straight
/// from one of its units to the next (per row: its first unit from the running unit count modulo
/// NW - 1), instead of walking every unit: the walk cost ~40 % of the kernel's instructions (ncu,
/// double n = 128). Bf: where L(qf, p) is read (the pipelined kernel's private copy), S when null.
template <typename T, int NW, int QB>
__device__ __forceinline__ void update_rest(T* S, int np, int p, int qf, int w, int lane, const T* Bf = nullptr) {
    constexpr int NR = NW - 1;
    int first = 0;  // unit count before row rb, modulo NR
    for (int rb = p + 2; rb < np; ++rb) {
        const int units = (rb - qf + QB) / QB;  // blocks qf .. rb
        int c = w - 1 - first;
        if (c < 0) c += NR;
        for (; c < units; c += NR) {
            const int q0 = qf + QB * c;
            update_unit<QB>(S, S + 64 * bidx(rb, p), c == 0 && Bf ? Bf : S + 64 * bidx(q0, p), p, rb, q0, lane);
        }
        first = (first + units) % NR;
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

/// Block column of the k-th column taken by warp w (of NW): a snake, w, 2 NW - 1 - w, 2 NW + w, ...,
/// so that long and short columns (block column q holds np - q blocks) even out over the warps.
template <int NW>
__device__ __forceinline__ int snake_column(int w, int k) {
    return (k & 1) ? NW * (k + 1) - 1 - w : NW * k + w;
}

/// Loads A (order n, padded with the identity) into the block layout: lane pair (g, 2t + e) of block
/// (rb, q) <- A(8 rb + g, 8 q + 2t + e); cp.async for the lower n x n triangle, the identity's values
/// (and zeros above the diagonal) stored directly. Warps take whole block columns (snake_column) and walk
/// down them with running pointers (the source moves by 8 rows, the block by rb + 1 blocks); only the
/// diagonal block and the last block row need per-element tests. Commits.
template <typename T, int NW>
__device__ __forceinline__ void load_blocks(const T* A, int n, int lda, int np, T* S, int w, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    for (int k = 0;; ++k) {
        const int q = snake_column<NW>(w, k);
        if (q >= np) {
            if (NW * k >= np) break;
            continue;
        }
        const int j = 8 * q + t2;  // this lane's columns j, j + 1
        T* dst = S + 64 * bidx(q, q) + 2 * lane;
        {  // diagonal block: rows i = 8q + g
            const int i = 8 * q + g;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                if (i < n && j + e <= i)
                    __pipeline_memcpy_async(dst + e, A + static_cast<int64_t>(j + e) * lda + i, sizeof(T));
                else dst[e] = i == j + e ? T(1) : T(0);
            }
        }
        const T* src = A + static_cast<int64_t>(j) * lda + 8 * q + g;
        for (int rb = q + 1; rb < np; ++rb) {
            dst += 64 * rb;  // bidx(rb, q) - bidx(rb - 1, q) = rb
            src += 8;
            if (8 * rb + g < n) {  // j < 8 rb <= i: inside the lower triangle
                __pipeline_memcpy_async(dst, src, sizeof(T));
                __pipeline_memcpy_async(dst + 1, src + lda, sizeof(T));
            } else {
                dst[0] = T(0), dst[1] = T(0);
            }
        }
    }
    __pipeline_commit();
}

/// Stores the lower n x n triangle back from the block layout (same walk as load_blocks).
template <typename T, int NW>
__device__ __forceinline__ void store_blocks(T* A, int n, int lda, int np, const T* S, int w, int lane) {
    const int g = lane >> 2, t2 = 2 * (lane & 3);
    for (int k = 0;; ++k) {
        const int q = snake_column<NW>(w, k);
        if (q >= np) {
            if (NW * k >= np) break;
            continue;
        }
        const int j = 8 * q + t2;
        const T* blk = S + 64 * bidx(q, q);
        {
            const int i = 8 * q + g;
            const typename Pair<T>::V v = pair(const_cast<T*>(blk), lane);
            if (i < n && j <= i) A[static_cast<int64_t>(j) * lda + i] = v.x;
            if (i < n && j + 1 <= i) A[static_cast<int64_t>(j + 1) * lda + i] = v.y;
        }
        T* dst = A + static_cast<int64_t>(j) * lda + 8 * q + g;
        for (int rb = q + 1; rb < np; ++rb) {
            blk += 64 * rb;
            dst += 8;
            if (8 * rb + g < n) {
                const typename Pair<T>::V v = pair(const_cast<T*>(blk), lane);
                dst[0] = v.x;
                dst[lda] = v.y;
            }
        }
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
                // With two or more update warps, warp 0 (the serial diagonal factorization: the
                // critical path) updates only the next diagonal block; with one, the whole next column.
                if constexpr (NW >= 3) update_unit<1>(S, p, p + 1, p + 1, lane);
                else update_next_column<T>(S, np, p, lane);
                __syncwarp();  // block (p + 1, p + 1) written by every lane, read by every lane below
                const int fail = factor_diag<T>(S + 64 * bidx(p + 1, p + 1), Si, lane);
                if (info_i == 0 && fail) info_i = 8 * (p + 1) + fail;
            } else {
                update_rest<T, NW, 4>(S, np, p, NW >= 3 ? p + 1 : p + 2, w, lane);
            }
            __syncthreads();
        }
        store_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}


namespace frag {

/// Shared-memory elements of the pipelined variant with NW warps: the lower blocks, two X blocks
/// (X(p) = inv(L(p, p)) at p mod 2), one private block per warp (its copy of L(p + 1, p)).
__host__ __device__ constexpr int pipe_smem_elems(int n, int nw) { return (nblocks((n + 7) / 8) + 2 + nw) * 64; }

}  // namespace frag

/// potrf_batched, fragment layout, *pipelined* variant: the solve of panel p and the
/// serial chain of the next diagonal block overlap. Phase p (X(p) = inv(L(p, p)) factored in phase p - 1):
///   warp 0:        L(p + 1, p) = A(p + 1, p) X(p)^T (with refinement) into its private block, S(p + 1,
///                  p + 1) -= L(p + 1, p) L(p + 1, p)^T;                                   barrier
///                  factor_diag -> L(p + 1, p + 1), X(p + 1) (the other X buffer); its private L(p + 1, p)
///                  is written into S at the start of phase p + 1 (the other warps read A(p + 1, p)
///                  from S during phase p);                                                 barrier
///   warps 1..NW-1: each its own L(p + 1, p) (same inputs, same bits), then the solve of block rows
///                  p + 2.. of panel p in place (split over them);                          barrier
///                  the update of every block (rb, q), p + 1 <= q <= rb, rb >= p + 2, in units of 4
///                  blocks of one row, round-robin (L(p + 1, p) from the private copy);     barrier
/// Against potrf_frag_kernel: warp 0 no longer waits for the solve before its diagonal update, and it
/// carries no update of column p + 1. Block-wide barriers only: a first version synchronized the solving
/// warps among themselves with a named barrier (bar.sync 1, 32 (NW - 1)) and warp 0 with them once per
/// phase; racecheck reported read-after-write hazards on the next diagonal block between an update warp
/// (phase p) and warp 0 (phase p + 1) across the block-wide barrier (docs/batched_cholesky.md).
/// Same arithmetic as potrf_frag_kernel (L(p + 1, p) computed by several warps with identical bits).
template <typename T, int NT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
    potrf_frag_pipe_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    using namespace frag;
    static_assert(NT % 32 == 0 && NT >= 64 && NT <= 512, "NT: whole warps, 64..512");
    constexpr int NW = NT / 32, NR = NW - 1, QB = 4;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int t = static_cast<int>(threadIdx.x), w = t >> 5, lane = t & 31;
    const int np = (n + 7) / 8;
    T* Xb = S + 64 * nblocks(np);  // X(p) at Xb + 64 (p & 1)
    T* Lw = Xb + 128 + 64 * w;     // this warp's L(p + 1, p)
    for (int k = t; k < 128; k += NT) Xb[k] = T(0);  // the upper parts stay zero
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x) {
        T* Ai = A.get(i);
        load_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        __pipeline_wait_prior(0);
        __syncthreads();
        int info_i = 0;
        if (w == 0) info_i = factor_diag<T>(S, Xb, lane);
        __syncthreads();
        for (int p = 0; p + 1 < np; ++p) {
            const T* X = Xb + 64 * (p & 1);
            const int q = p + 1;
            if (w == 0) {
                if (p > 0) pair(S + 64 * bidx(p, p - 1), lane) = pair(Lw, lane);  // phase p - 1's L(p, p - 1)
                solve_block(S, X, p, S + 64 * bidx(q, p), Lw, lane);
                __syncwarp();  // float: the rows of Lw are read by 4 lanes each
                update_unit<1>(S, Lw, Lw, p, q, q, lane);
            } else if (q + 1 < np) {
                solve_block(S, X, p, S + 64 * bidx(q, p), Lw, lane);
                solve_rows<NR>(S, X, np, p, p + 2, w - 1, lane);
            }
            __syncthreads();  // panel p's rows p + 2.. final; block (q, q) updated; every Lw written
            if (w == 0) {
                const int fail = factor_diag<T>(S + 64 * bidx(q, q), Xb + 64 * (q & 1), lane);
                if (info_i == 0 && fail) info_i = 8 * q + fail;
            } else if (q + 1 < np) {
                update_rest<T, NW, QB>(S, np, p, q, w, lane, Lw);
            }
            __syncthreads();
        }
        if (w == 0 && np >= 2) pair(S + 64 * bidx(np - 1, np - 2), lane) = pair(Lw, lane);
        __syncthreads();
        store_blocks<T, NW>(Ai, n, lda, np, S, w, lane);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}

}  // namespace starfact::batched::gpu
