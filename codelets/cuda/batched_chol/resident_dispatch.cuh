// Host launch of the resident potrf kernel (potrf_resident.cuh) and the switch from a runtime
// variant (NT, OCC) to the compiled ones; included by instances_potrf_resident_*.cu (the library's
// variants), the bench (fast-math variants) and the sweep.
#pragma once
#include <cuda_runtime.h>

#include "codelets/cuda/batched_chol/dispatch.cuh"
#include "codelets/cuda/batched_chol/potrf_resident.cuh"

namespace starfact::batched::gpu {

/// The resident variants compiled into the library (and swept): (threads per block, OCC); OCC also
/// sets how many threads run phase (A) (potrf_resident.cuh: AT).
constexpr ResidentConfig kResidentVariants[] = {{64, 256}, {64, 512}, {128, 512}, {256, 512}};

/// Launches the resident potrf kernel for a.n <= 128, one block per matrix (grid-stride beyond INT_MAX).
template <typename T, int NT, int OCC, bool FAST>
void run_resident(const Args<T>& a) {
    const size_t smem = static_cast<size_t>(resident::smem_elems(a.n)) * sizeof(T);
    auto k = potrf_resident_kernel<T, NT, OCC, FAST>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 1), NT, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
}

/// Runs variant (nt, occ) if it is one of kResidentVariants; false otherwise or for n outside 1..128.
template <typename T, bool FAST>
bool run_resident_variant(const Args<T>& a, int nt, int occ) {
    if (a.n < 1 || a.n > resident::kMaxOrder) return false;
    if (nt == 64 && occ == 256) return run_resident<T, 64, 256, FAST>(a), true;
    if (nt == 64 && occ == 512) return run_resident<T, 64, 512, FAST>(a), true;
    if (nt == 128 && occ == 512) return run_resident<T, 128, 512, FAST>(a), true;
    if (nt == 256 && occ == 512) return run_resident<T, 256, 512, FAST>(a), true;
    return false;
}

}  // namespace starfact::batched::gpu
