// The resident kernel's panel factorization, phase (A) (potrf_resident.cuh has the design): the diagonal block
// factored redundantly by every (A) thread, LDL^T-style with the scaling off the pivot chain, each thread's rows
// eliminated on the way; the two-panel step's next panel with the previous panel's update applied on the fly
// (KP = 2); the single-warp form with the rows below solved by substitution (W1).
#pragma once
#include <cuda_runtime.h>

#include "kernels/batched_chol/potrf_kernel.cuh"

namespace starfact::batched::gpu {

namespace resident {

constexpr int kIB = 8;       // inner block (panel width)
constexpr int kMaxOrder = 128;

/// 1 / p on the pivot chain.
template <bool FAST>
__device__ __forceinline__ double recip(double p) {
    if constexpr (FAST) {
        double y;
        asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(p));
        const double e = fma(-p, y, 1.0);
        return fma(fma(e, e, e), y, y);  // cubic Newton step: relative error ~ e^3
    } else {
        return 1.0 / p;
    }
}
template <bool FAST>
__device__ __forceinline__ float recip(float p) {
    if constexpr (FAST) {
        float y;
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(p));
        return y;
    } else {
        return 1.0f / p;
    }
}
/// 1 / sqrt(p), off the chain (the IEEE path uses sqrt(1 / p) instead: one division fewer).
template <bool FAST>
__device__ __forceinline__ double inv_sqrt(double p) {
    if constexpr (FAST) return rsqrt(p);
    else return 1.0 / sqrt(p);
}
template <bool FAST>
__device__ __forceinline__ float inv_sqrt(float p) {
    if constexpr (FAST) return rsqrtf(p);
    else return 1.0f / sqrtf(p);
}

/// One column c of the LDL^T-style elimination of the diagonal block d (lower part, d[j][i], j >= i):
/// records a bad pivot in `fail` (1-based column, first one kept), sets sc[c] = 1 / sqrt(p_c) (sqrt of
/// the reciprocal: IEEE, one division and one sqrt per column; or rsqrt; off the chain), updates the
/// columns to the right and returns 1 / p_c for the caller's rows.
template <typename T, bool FAST>
__device__ __forceinline__ T eliminate_column(T (&d)[kIB][kIB], int c, T (&sc)[kIB], int& fail) {
    const T piv = d[c][c];
    fail = (fail == 0 && !good_pivot(piv)) ? c + 1 : fail;
    const T inv = recip<FAST>(piv);
    sc[c] = FAST ? inv_sqrt<true>(piv) : sqrt(inv);
#pragma unroll
    for (int j = c + 1; j < kIB; ++j) {
        const T tj = d[j][c] * inv;
#pragma unroll
        for (int i = c + 1; i <= j; ++i) d[j][i] = fma(-tj, d[i][c], d[j][i]);
    }
    return inv;
}

/// LDL^T-style elimination shared by both (A) phases: factors the diagonal block d redundantly,
/// eliminates this thread's rows x on the way, then scales x (off the chain): L_rc = u_rc / sqrt(p_c).
/// Returns the first bad pivot column (1-based within the panel) or 0.
template <typename T, int RA, bool FAST>
__device__ __forceinline__ int eliminate(T (&d)[kIB][kIB], T (&x)[RA][kIB]) {
    int fail = 0;
    T sc[kIB];
#pragma unroll
    for (int c = 0; c < kIB; ++c) {
        const T inv = eliminate_column<T, FAST>(d, c, sc, fail);
#pragma unroll
        for (int s = 0; s < RA; ++s) {
            const T tx = x[s][c] * inv;
#pragma unroll
            for (int i = c + 1; i < kIB; ++i) x[s][i] = fma(-tx, d[i][c], x[s][i]);
        }
    }
#pragma unroll
    for (int s = 0; s < RA; ++s)
#pragma unroll
        for (int c = 0; c < kIB; ++c) x[s][c] *= sc[c];
    return fail;
}

/// Loads the diagonal block (lower part) of a panel into d and this thread's rows (t + AT s) into x.
template <typename T, int AT, int RA>
__device__ __forceinline__ void load_panel(const T* P, int ld, int rows, int t, T (&d)[kIB][kIB], T (&x)[RA][kIB]) {
#pragma unroll
    for (int i = 0; i < kIB; ++i)
#pragma unroll
        for (int j = i; j < kIB; ++j) d[j][i] = P[j + i * ld];
#pragma unroll
    for (int s = 0; s < RA; ++s) {
        const int r = t + AT * s;
#pragma unroll
        for (int c = 0; c < kIB; ++c) x[s][c] = r < rows ? P[r + c * ld] : T(0);
    }
}

/// Stores this thread's rows below the diagonal block (nobody else reads them during an (A) phase).
template <typename T, int AT, int RA>
__device__ __forceinline__ void store_below(T* P, int ld, int rows, int t, const T (&x)[RA][kIB]) {
#pragma unroll
    for (int s = 0; s < RA; ++s) {
        const int r = t + AT * s;
        if (r >= kIB && r < rows)
#pragma unroll
            for (int c = 0; c < kIB; ++c) P[r + c * ld] = x[s][c];
    }
}

/// (A) for panel p, by AT threads: factor the diagonal block redundantly, eliminate this thread's rows
/// (rows t + AT s, s < RA),
/// store the rows below the diagonal block; returns the first bad pivot column (1-based within the
/// panel) or 0. Rows of the diagonal block itself are returned in x (stored after the barrier).
template <typename T, int AT, int RA, bool FAST>
__device__ __forceinline__ int factor_panel(T* P, int ld, int rows, int t, T (&x)[RA][kIB]) {
    T d[kIB][kIB];
    load_panel<T, AT, RA>(P, ld, rows, t, d, x);
    const int fail = eliminate<T, RA, FAST>(d, x);
    store_below<T, AT, RA>(P, ld, rows, t, x);
    return fail;
}

/// (A') of the two-panel step (KP = 2): panel b = p + 1 right after panel a = p was factored (its rows
/// below its diagonal block are in shared memory; its diagonal block's rows are being stored by other
/// threads and are not read here). Applies panel a's rank-8 update to panel b on the fly (diagonal
/// block redundantly, this thread's rows; panel a row 8 + r is panel b row r), then factors as
/// factor_panel. rows = rows of panel b. Panel b's other blocks are updated later, together with
/// panel b's own contribution, by the rank-16 trailing update.
template <typename T, int AT, int RA, bool FAST>
__device__ __forceinline__ int factor_panel_next(const T* Pa, int lda, T* Pb, int ldb, int rows, int t,
                                                 T (&x)[RA][kIB]) {
    T d[kIB][kIB];
    load_panel<T, AT, RA>(Pb, ldb, rows, t, d, x);
#pragma unroll
    for (int c = 0; c < kIB; ++c) {
        T la[kIB];  // L(rows 0..7 of panel b, column c of panel a)
#pragma unroll
        for (int j = 0; j < kIB; ++j) la[j] = Pa[kIB + j + c * lda];
#pragma unroll
        for (int j = 0; j < kIB; ++j)
#pragma unroll
            for (int i = 0; i <= j; ++i) d[j][i] = fma(-la[j], la[i], d[j][i]);
#pragma unroll
        for (int s = 0; s < RA; ++s) {
            const int r = t + AT * s;
            const T xa = r < rows ? Pa[kIB + r + c * lda] : T(0);  // same bits as la[r] for r < 8
#pragma unroll
            for (int i = 0; i < kIB; ++i) x[s][i] = fma(-xa, la[i], x[s][i]);
        }
    }
    const int fail = eliminate<T, RA, FAST>(d, x);
    store_below<T, AT, RA>(Pb, ldb, rows, t, x);
    return fail;
}

/// (A) by one warp (W1 variant): the warp factors the diagonal block once (not once per warp), scales it
/// to L11 in registers, stores it (lanes 0..7, one row each, after a __syncwarp: every lane has read the
/// block), then solves the rows below by substitution, y_c = (a_c - sum_{k<c} y_k L_ck) / L_cc with
/// 1 / L_cc = sqrt(1 / p_c) (no division), rows lane + 32 s, RU of them in flight (register budget).
/// Returns the first bad pivot column (1-based within the panel) or 0.
template <typename T, bool FAST, int RU>
__device__ __forceinline__ int factor_panel_warp(T* P, int ld, int rows, int lane) {
    T d[kIB][kIB];  // lower part used: d[j][i], j >= i
#pragma unroll
    for (int i = 0; i < kIB; ++i)
#pragma unroll
        for (int j = i; j < kIB; ++j) d[j][i] = P[j + i * ld];
    int fail = 0;
    T sc[kIB];
#pragma unroll
    for (int c = 0; c < kIB; ++c) eliminate_column<T, FAST>(d, c, sc, fail);
#pragma unroll
    for (int c = 0; c < kIB; ++c)
#pragma unroll
        for (int j = c; j < kIB; ++j) d[j][c] *= sc[c];  // L11 = U diag(1 / sqrt(p))
    __syncwarp();  // every lane has read the diagonal block
#pragma unroll
    for (int r = 0; r < kIB; ++r)
        if (lane == r)
#pragma unroll
            for (int c = 0; c <= r; ++c) P[r + c * ld] = d[r][c];
    constexpr int RS = kMaxOrder / 32;  // row slots per lane
    static_assert(RS % RU == 0, "RU must divide the row slots");
#pragma unroll 1
    for (int s0 = 0; s0 < RS; s0 += RU) {
        T y[RU][kIB];
#pragma unroll
        for (int u = 0; u < RU; ++u) {
            const int r = lane + 32 * (s0 + u);
            const bool mine = r >= kIB && r < rows;
#pragma unroll
            for (int c = 0; c < kIB; ++c) y[u][c] = mine ? P[r + c * ld] : T(0);
        }
#pragma unroll
        for (int c = 0; c < kIB; ++c)
#pragma unroll
            for (int u = 0; u < RU; ++u) {
                T v = y[u][c];
#pragma unroll
                for (int k = 0; k < c; ++k) v = fma(-y[u][k], d[c][k], v);
                y[u][c] = v * sc[c];
            }
#pragma unroll
        for (int u = 0; u < RU; ++u) {
            const int r = lane + 32 * (s0 + u);
            if (r >= kIB && r < rows)
#pragma unroll
                for (int c = 0; c < kIB; ++c) P[r + c * ld] = y[u][c];
        }
    }
    return fail;
}

}  // namespace resident

}  // namespace starfact::batched::gpu
