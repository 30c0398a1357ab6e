// The fragment-layout kernel's panel steps (potrf_frag.cuh has the design): (T), the solve of a panel's block
// rows against the inverse of its diagonal block (double on the tensor cores with one refinement step, float on
// the FMA units), and (C), the trailing update in units of blocks of one block row: warp 0's next block column,
// the other warps' round-robin share, the DYN variant's units handed out by a shared counter.
#pragma once
#include <cuda_runtime.h>

#include "kernels/batched_chol/potrf_frag_blocks.cuh"

namespace starfact::batched::gpu {

namespace frag {

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

}  // namespace frag

}  // namespace starfact::batched::gpu
