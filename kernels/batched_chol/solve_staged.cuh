// Triangular solves L L^T X = B for one small system by a group of G lanes of one warp (G a power of
// two, 4..32), with the factor staged in shared memory first:
//   1. stage: every load of the lower triangle is issued up front as cp.async copies straight into
//      shared memory (no registers, so every load is in flight), one commit group per block of G
//      columns: the forward solve waits for block jb just before its steps, so the copies of the
//      later columns overlap the first steps. Layout: column c holds rows r0(c) .. N-1, r0(c) = c
//      rounded down to a multiple of V = 16 / sizeof(T), columns 16-byte aligned one after the other
//      (S(r, c) = S[col_origin(c) + r]; rows r0(c) .. c-1 are padding that no step uses). When the
//      member's address and lda * sizeof(T) are multiples of 16 (vec), the copies are 16-byte vectors
//      (4 floats / 2 doubles per lane and instruction: a quarter / half of the copy instructions of
//      one element per copy), otherwise one element per copy. Per block, lane l keeps
//      D_i = 1 / L[i][i] of its row i = jb G + l in a register (dr[jb]).
//   2. forward L y = b (axpy form): lane l holds rows l, l+G, ... of the right-hand side in
//      registers; step j broadcasts x_j and D_j by shuffles and every row i > j does
//      x_i -= (L_ij D_j) x_j (the coefficient off the chain); y = x * D afterwards.
//   3. backward L^T z = y (axpy form on rows of L): step j (descending) broadcasts w_j and D_j,
//      every row i < j does w_i -= (L_ji D_j) w_j; z = w * D afterwards.
// The serial chain of a step is one shuffle and one FMA; the shared-memory reads are unconditional
// (the backward's 16-byte reads at 16-byte boundaries: S must start on one, as the layout keeps it)
// (rows a step must not touch get a select to 0 after the read, only in the diagonal register block),
// so no branch splits a step and the reads of the next steps are scheduled ahead of the chain.
// Orders n <= N: rows/columns n..N-1 are the identity extension (S = 0 off the diagonal, D = 1,
// right-hand side 0, never stored). Rows >= N of a short last register block compute values that are
// never used (the forward reads row N - 1 for them, the backward column 0: staged, in bounds).
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::batched::gpu {

/// Elements per 16-byte copy.
template <typename T>
constexpr int kSolveVec = 16 / static_cast<int>(sizeof(T));

/// First stored row of column c (c rounded down to a multiple of the vector width).
template <typename T>
__host__ __device__ constexpr int first_row(int c) {
    return c / kSolveVec<T> * kSolveVec<T>;
}

/// Offset of column c's first stored row: the lengths N - first_row(c') of the columns before it.
template <typename T, int N>
__host__ __device__ constexpr int col_start(int c) {
    constexpr int V = kSolveVec<T>;
    const int q = c / V, m = c % V;
    return c * N - V * (V * q * (q - 1) / 2 + m * q);
}

/// S(r, c) = S[col_origin(c) + r] for r >= first_row(c).
template <typename T, int N>
__host__ __device__ constexpr int col_origin(int c) {
    return col_start<T, N>(c) - first_row<T>(c);
}

/// Shared-memory elements one system needs: its columns (a multiple of 16 bytes).
template <typename T, int N>
__host__ __device__ constexpr int solve_smem_elems() {
    static_assert(N % kSolveVec<T> == 0 && N % 4 == 0, "compiled orders are multiples of 4");
    return col_start<T, N>(N);
}

/// Waits until at most `pending` commit groups of this thread's cp.async copies are in flight
/// (cp.async.wait_group takes an immediate: a uniform switch over the counts a solve can leave).
__device__ __forceinline__ void wait_copies_but(int pending) {
    switch (pending) {
        case 0: __pipeline_wait_prior(0); break;
        case 1: __pipeline_wait_prior(1); break;
        case 2: __pipeline_wait_prior(2); break;
        default: __pipeline_wait_prior(3); break;
    }
}

/// Number of steps (columns) of register block jb: G, or N mod G for a short last block.
template <int N, int G>
__device__ __forceinline__ constexpr int block_steps(int jb) {
    return (jb == (N + G - 1) / G - 1 && N % G != 0) ? N % G : G;
}

/// Issues the copies of L (order n <= N, leading dimension lda) into S, one commit group per block of
/// G columns (ceil(N / G) groups); the identity extension and inactive members (`go` false) are
/// zero-filled here. vec: L and lda * sizeof(T) are multiples of 16 bytes (16-byte copies). Every
/// lane of the warp calls it; L written by this block must be ordered before the call by a barrier.
/// Complete with stage_wait_block for every block (or one wait for all).
template <typename T, int N, int G>
__device__ __forceinline__ void stage_issue(const T* L, int n, int lda, bool go, bool vec, T* S, int lane) {
    constexpr int RR = (N + G - 1) / G, V = kSolveVec<T>;
    static_assert(G % V == 0 && N % V == 0, "column blocks and groups start on vector boundaries");
    static_assert(G * RR <= 2 * N, "unconditional reads of the last register block stay inside S");
    static_assert(RR <= 4, "wait_copies_but handles up to 4 commit groups");
    const int ne = go ? n : 0;
    // Column group q = columns V q .. V q + V - 1: all start at row r0 = V q and hold Q - q vectors
    // (Q = N / V). The group's G lanes split into V columns of LPC = G / V lanes each, so every copy
    // instruction of the group moves up to G vectors (column-by-column issue would leave most lanes
    // idle on the short columns).
    constexpr int Q = N / V, LPC = G / V;
    const int cq = lane / LPC, vq = lane % LPC;  // this lane's column within a group, first vector
#pragma unroll
    for (int jb = 0; jb < RR; ++jb) {
#pragma unroll 2
        for (int qq = 0; qq < block_steps<N, G>(jb) / V; ++qq) {
            const int q = jb * LPC + qq;
            const int c = V * q + cq, r0 = V * q;
            T* dcol = S + col_origin<T, N>(c);
            const bool have_col = c < ne;
            const T* scol = have_col ? L + static_cast<long long>(c) * lda : nullptr;
#pragma unroll
            for (int k = 0; k < (Q - jb * LPC + LPC - 1) / LPC; ++k) {
                const int v = vq + k * LPC;
                const int r = r0 + V * v;
                if (v < Q - q) {
                    if (vec && have_col && r + V <= ne) {
                        __pipeline_memcpy_async(dcol + r, scol + r, 16);
                    } else {
#pragma unroll
                        for (int e = 0; e < V; ++e) {
                            if (have_col && r + e < ne)
                                __pipeline_memcpy_async(dcol + r + e, scol + r + e, sizeof(T));
                            else
                                dcol[r + e] = T(0);
                        }
                    }
                }
            }
        }
        __pipeline_commit();
    }
}

/// Waits for the copies of column block jb (blocks in ascending order; at most ceil(N / G) - 1 - jb
/// groups stay in flight) and makes them visible to the group. Every lane of the warp calls it.
template <int N, int G>
__device__ __forceinline__ void stage_wait_block(int jb) {
    wait_copies_but((N + G - 1) / G - 1 - jb);
    __syncwarp();
}

/// 1 / L[i][i] of row i = jb G + lane of the staged factor (1 on the identity extension, 0 past N).
template <typename T, int N, int G>
__device__ __forceinline__ T staged_diag_recip(const T* S, int n, bool go, int lane, int jb) {
    const int i = jb * G + lane;
    if (i >= N) return T(0);
    return (go && i < n) ? T(1) / S[col_origin<T, N>(i) + i] : T(1);
}

/// Stages L completely (all copies waited for). Every lane of the warp
/// must call it (it ends with __syncwarp). `go` false stages the identity.
template <typename T, int N, int G>
__device__ __forceinline__ void stage_lower(const T* L, int n, int lda, bool go, bool vec, T* S, int lane) {
    stage_issue<T, N, G>(L, n, lda, go, vec, S, lane);
    __pipeline_wait_prior(0);
    __syncwarp();
}

/// v[0 .. V-1] = p[0 .. V-1], one 16-byte shared-memory read (p 16-byte aligned).
__device__ __forceinline__ void load16(const float* p, float (&v)[4]) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
}
__device__ __forceinline__ void load16(const double* p, double (&v)[2]) {
    const double2 t = *reinterpret_cast<const double2*>(p);
    v[0] = t.x; v[1] = t.y;
}

/// Whether member L can be staged with 16-byte copies (its address and lda * sizeof(T) multiples of 16).
template <typename T>
__device__ __forceinline__ bool stage_vec_ok(const T* L, int lda) {
    return ((reinterpret_cast<uintptr_t>(L) | (static_cast<uintptr_t>(lda) * sizeof(T))) & 15u) == 0;
}

/// Solves with the staged factor for the nrhs columns of B (leading dimension ldb). Every lane of
/// the warp must call it (full-warp shuffles); `go` false skips loads and stores. LAZY: S was only
/// issued (stage_issue); the forward solve of the first right-hand side waits for column block jb
/// just before its steps (stage_wait_block), and all copies are complete when it returns.
template <typename T, int N, int G, bool LAZY>
__device__ __forceinline__ void solve_staged(T* S, int n, T* B, int ldb, int nrhs, bool go, int lane) {
    static_assert(G == 4 || G == 8 || G == 16 || G == 32, "G must be a power of two, 4..32");
    constexpr int RR = (N + G - 1) / G, V = kSolveVec<T>;
    constexpr unsigned kMask = 0xffffffffu;
    // dr[r] = D_i of row i = lane + r G (LAZY: set per block by the first right-hand side's forward)
    T dr[RR];
#pragma unroll
    for (int r = 0; r < RR; ++r) dr[r] = LAZY ? T(0) : staged_diag_recip<T, N, G>(S, n, go, lane, r);
    // S(j, i) for the backward step = S[rowbase[r] + j], i = lane + r G (0 for rows >= N: in bounds)
    int rowbase[RR];
#pragma unroll
    for (int r = 0; r < RR; ++r) {
        const int i = lane + r * G;
        rowbase[r] = i < N ? col_origin<T, N>(i) : 0;
    }
    for (int c = 0; c < nrhs; ++c) {
        T* b = go ? B + static_cast<long long>(c) * ldb : nullptr;
        T x[RR];
#pragma unroll
        for (int r = 0; r < RR; ++r) {
            const int i = lane + G * r;
            x[r] = (go && i < n) ? b[i] : T(0);
        }
        // forward: L y = b; step j = jb G + jl: register block jb (compile time), lane jl (a short
        // runtime loop, partly unrolled: enough look-ahead for the shared-memory reads, few registers)
#pragma unroll
        for (int jb = 0; jb < RR; ++jb) {
            if (LAZY && c == 0) {
                stage_wait_block<N, G>(jb);
                dr[jb] = staged_diag_recip<T, N, G>(S, n, go, lane, jb);
            }
#pragma unroll 4
            for (int jl = 0; jl < block_steps<N, G>(jb); ++jl) {
                const int j = jb * G + jl;
                const T xj = __shfl_sync(kMask, x[jb], jl, G);
                const T dj = __shfl_sync(kMask, dr[jb], jl, G);
                const T* col = S + col_origin<T, N>(j);  // S(i, j) = col[i]
#pragma unroll
                for (int r = jb; r < RR; ++r) {
                    const int i = lane + G * r;
                    // rows >= N (short last block) read row N - 1 of the same column: already staged
                    const int ic = (N % G != 0 && r == RR - 1 && i >= N) ? N - 1 : i;
                    T s = col[ic];
                    if (r == jb) s = i > j ? s : T(0);
                    x[r] = fma(-(s * dj), xj, x[r]);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RR; ++r) x[r] *= dr[r];  // y
        // backward: L^T z = y, steps j descending, in groups of V steps j0 .. j0 + V - 1: one 16-byte
        // read per register block gives a lane S(j0 .. j0 + V - 1, i) (rows of L are columns of S:
        // row reads of the aligned layout conflict, 16-byte reads cut the wavefronts and instructions)
#pragma unroll
        for (int jb = RR - 1; jb >= 0; --jb) {
#pragma unroll 2
            for (int g = block_steps<N, G>(jb) / V - 1; g >= 0; --g) {
                const int j0 = jb * G + g * V;
                T sv[RR][V];
#pragma unroll
                for (int r = 0; r <= jb; ++r) load16(S + rowbase[r] + j0, sv[r]);
#pragma unroll
                for (int e = V - 1; e >= 0; --e) {
                    const int j = j0 + e;
                    const T wj = __shfl_sync(kMask, x[jb], g * V + e, G);
                    const T dj = __shfl_sync(kMask, dr[jb], g * V + e, G);
#pragma unroll
                    for (int r = 0; r <= jb; ++r) {
                        T s = sv[r][e];
                        if (r == jb) s = lane + G * r < j ? s : T(0);
                        x[r] = fma(-(s * dj), wj, x[r]);
                    }
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RR; ++r) x[r] *= dr[r];  // z
        if (go) {
#pragma unroll
            for (int r = 0; r < RR; ++r) {
                const int i = lane + G * r;
                if (i < n) b[i] = x[r];
            }
        }
    }
    if (LAZY && nrhs <= 0) {  // nothing waited for the copies yet
        __pipeline_wait_prior(0);
        __syncwarp();
    }
}

}  // namespace starfact::batched::gpu
