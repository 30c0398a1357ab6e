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
// The block layout, factor_diag, the load and the store: potrf_frag_blocks.cuh; the steps (T) and (C):
// potrf_frag_panel.cuh.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/potrf_frag_blocks.cuh"
#include "kernels/batched_chol/potrf_frag_panel.cuh"
#include "kernels/batched_chol/potrf_kernel.cuh"

namespace starfact::batched::gpu {

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
