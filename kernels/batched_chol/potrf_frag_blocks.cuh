// The fragment-layout kernel's blocks (potrf_frag.cuh has the design): the lower triangle as 8 x 8 row-major
// blocks (bidx, smem_elems), the pivot's full-range reciprocal square root, the FP64 tensor-core step, a lane's
// element pair of a block, the diagonal block's factorization and inverse on every lane of a warp (factor_diag),
// and the load and the store of a matrix in that layout.
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

}  // namespace starfact::batched::gpu
