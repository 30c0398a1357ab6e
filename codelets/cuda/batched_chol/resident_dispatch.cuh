// Host launch of the resident potrf kernel (potrf_resident.cuh) and the switch from a runtime
// variant (NT, OCC) to the compiled ones; included by instances_potrf_resident_*.cu (the library's
// variants), the bench (fast-math variants) and the sweep.
#pragma once
#include <cuda_runtime.h>

#include "codelets/cuda/batched_chol/dispatch.cuh"
#include "codelets/cuda/batched_chol/potrf_frag.cuh"
#include "codelets/cuda/batched_chol/potrf_resident.cuh"
#include "codelets/cuda/batched_chol/potrf_vec.cuh"

namespace starfact::batched::gpu {

/// The resident variants compiled into the library (and swept): (threads per block, OCC, inner block, W1);
/// OCC also sets how many threads run phase (A) (potrf_resident.cuh: AT) unless W1 = 1 (one warp);
/// inner block 16 = two panels per step (KP = 2). IB 16 with NT = 64 (OCC 256 and 512) was measured
/// and dropped (slower everywhere; docs/batched_cholesky.md). W1 = 2: the fragment-layout kernel
/// (potrf_frag.cuh; fifth session), OCC / NT blocks per SM asked of ptxas; W1 = 3: the same with the
/// trailing update handed out dynamically (DYN); W1 = 4: the pipelined variant (potrf_frag_pipe_kernel,
/// sixth session: warp 0's next diagonal block overlaps the panel solve; it replaced the fifth session's
/// Schur variant, whose update through inv(A11) was not backward stable). NT = 96 (OCC 384): three warps,
/// four blocks per SM (sixth session). W1 = 5: the vector-row kernel (potrf_vec.cuh, seventh session: one
/// diagonal factorization per panel, 16-byte items in the update), OCC / NT blocks per SM asked of ptxas;
/// (The kernel's RI = 32-byte items were measured and dropped: docs/batched_cholesky.md.)
constexpr ResidentConfig kResidentVariants[] = {{64, 256, 8, 0},  {64, 512, 8, 0},  {128, 512, 8, 0},
                                                {256, 512, 8, 0}, {128, 512, 16, 0}, {64, 512, 8, 1},
                                                {128, 512, 8, 1}, {64, 512, 8, 2},  {128, 384, 8, 2},
                                                {256, 512, 8, 2}, {64, 512, 8, 3},  {128, 384, 8, 3},
                                                {256, 512, 8, 3}, {64, 512, 8, 4},  {128, 384, 8, 4},
                                                {256, 512, 8, 4}, {96, 384, 8, 2},  {96, 384, 8, 4},
                                                {96, 576, 8, 5},  {128, 768, 8, 5}, {128, 1024, 8, 5},
                                                {256, 1024, 8, 5}, {64, 1024, 8, 5},
                                                {128, 384, 8, 5}, {160, 480, 8, 5}, {96, 480, 8, 5},
                                                {128, 512, 8, 5}};

/// Launches the resident potrf kernel for a.n <= 128, one block per matrix (grid-stride beyond INT_MAX).
template <typename T, int NT, int OCC, bool FAST, int KP, bool W1 = false>
void run_resident(const Args<T>& a) {
    const size_t smem = static_cast<size_t>(resident::smem_elems(a.n)) * sizeof(T);
    auto k = potrf_resident_kernel<T, NT, OCC, FAST, KP, W1>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 1), NT, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
}

/// Launches the fragment-layout potrf kernel (potrf_frag.cuh) for a.n <= 128 (FAST changes nothing: its
/// pivots always take the refined hardware rsqrt).
template <typename T, int NT, int OCC, bool DYN>
void run_frag(const Args<T>& a) {
    const size_t smem = static_cast<size_t>(frag::smem_elems(a.n)) * sizeof(T);
    auto k = potrf_frag_kernel<T, NT, kResidentMinBlocks<NT, OCC>, DYN>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 1), NT, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
}

/// Launches the pipelined variant of the fragment-layout kernel (potrf_frag_pipe_kernel).
template <typename T, int NT, int OCC>
void run_frag_pipe(const Args<T>& a) {
    const size_t smem = static_cast<size_t>(frag::pipe_smem_elems(a.n, NT / 32)) * sizeof(T);
    auto k = potrf_frag_pipe_kernel<T, NT, kResidentMinBlocks<NT, OCC>>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 1), NT, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
}

/// Launches the vector-row potrf kernel (potrf_vec.cuh).
template <typename T, int NT, int OCC, int RI = 16 / sizeof(T)>
void run_vec(const Args<T>& a) {
    const size_t smem = static_cast<size_t>(vec::smem_elems<T>(a.n)) * sizeof(T);
    auto k = potrf_vec_kernel<T, NT, kResidentMinBlocks<NT, OCC>, RI>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 1), NT, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
}

/// Runs variant v if it is one of kResidentVariants; false otherwise or for n outside 1..128.
template <typename T, bool FAST>
bool run_resident_variant(const Args<T>& a, const ResidentConfig& v) {
    if (a.n < 1 || a.n > resident::kMaxOrder) return false;
    const int nt = v.nt, occ = v.occ;
    if (v.ib == 8 && v.w1 == 0) {
        if (nt == 64 && occ == 256) return run_resident<T, 64, 256, FAST, 1>(a), true;
        if (nt == 64 && occ == 512) return run_resident<T, 64, 512, FAST, 1>(a), true;
        if (nt == 128 && occ == 512) return run_resident<T, 128, 512, FAST, 1>(a), true;
        if (nt == 256 && occ == 512) return run_resident<T, 256, 512, FAST, 1>(a), true;
    } else if (v.ib == 16 && v.w1 == 0) {
        if (nt == 128 && occ == 512) return run_resident<T, 128, 512, FAST, 2>(a), true;
    } else if (v.ib == 8 && v.w1 == 1) {
        if (nt == 64 && occ == 512) return run_resident<T, 64, 512, FAST, 1, true>(a), true;
        if (nt == 128 && occ == 512) return run_resident<T, 128, 512, FAST, 1, true>(a), true;
    } else if (v.ib == 8 && v.w1 == 2) {
        if (nt == 64 && occ == 512) return run_frag<T, 64, 512, false>(a), true;
        if (nt == 128 && occ == 384) return run_frag<T, 128, 384, false>(a), true;
        if (nt == 256 && occ == 512) return run_frag<T, 256, 512, false>(a), true;
        if (nt == 96 && occ == 384) return run_frag<T, 96, 384, false>(a), true;
    } else if (v.ib == 8 && v.w1 == 3) {
        if (nt == 64 && occ == 512) return run_frag<T, 64, 512, true>(a), true;
        if (nt == 128 && occ == 384) return run_frag<T, 128, 384, true>(a), true;
        if (nt == 256 && occ == 512) return run_frag<T, 256, 512, true>(a), true;
    } else if (v.ib == 8 && v.w1 == 4) {
        if (nt == 64 && occ == 512) return run_frag_pipe<T, 64, 512>(a), true;
        if (nt == 128 && occ == 384) return run_frag_pipe<T, 128, 384>(a), true;
        if (nt == 256 && occ == 512) return run_frag_pipe<T, 256, 512>(a), true;
        if (nt == 96 && occ == 384) return run_frag_pipe<T, 96, 384>(a), true;
    } else if (v.ib == 8 && v.w1 == 5) {
        if (nt == 96 && occ == 576) return run_vec<T, 96, 576>(a), true;
        if (nt == 128 && occ == 768) return run_vec<T, 128, 768>(a), true;
        if (nt == 128 && occ == 1024) return run_vec<T, 128, 1024>(a), true;
        if (nt == 256 && occ == 1024) return run_vec<T, 256, 1024>(a), true;
        if (nt == 64 && occ == 1024) return run_vec<T, 64, 1024>(a), true;
        // fewer blocks per SM, more registers: for double, whose shared memory allows 3..5 blocks anyway
        if (nt == 128 && occ == 384) return run_vec<T, 128, 384>(a), true;
        if (nt == 160 && occ == 480) return run_vec<T, 160, 480>(a), true;
        if (nt == 96 && occ == 480) return run_vec<T, 96, 480>(a), true;
        if (nt == 128 && occ == 512) return run_vec<T, 128, 512>(a), true;
    }
    return false;
}

}  // namespace starfact::batched::gpu
