// Host launch of the resident potrf kernels (potrf_resident.cuh, potrf_frag.cuh, potrf_vec.cuh) and the
// switch from a runtime Variant to the compiled variants of a list: the library's (tuning.hpp,
// kLibraryVariants; STARFACT_BATCHED_CHOL_VARIANTS(T) instantiates them in one translation unit, generated
// by cmake/features/batched_chol.cmake), the bench's fast-math copies of them, and the other candidates of
// the tuning space (tools/tune/batched_chol/).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <iterator>
#include <utility>

#include "kernels/batched_chol/dispatch.cuh"
#include "kernels/batched_chol/potrf_frag.cuh"
#include "kernels/batched_chol/potrf_resident.cuh"
#include "kernels/batched_chol/potrf_vec.cuh"
#include "kernels/batched_chol/tuning.hpp"

namespace starfact::batched::gpu {

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

/// Launches resident variant (F, NT, OCC) for a.n <= 128; FAST: rcp + Newton and rsqrt pivots in
/// potrf_resident.cuh's kernel (the fragment-layout and vector-row kernels always take the refined
/// hardware rsqrt). Inner block IB 16 = two panels per step (KP = 2).
template <typename T, bool FAST, Family F, int NT, int OCC>
void run_variant(const Args<T>& a) {
    static_assert(F != Family::LeftLooking, "the left-looking kernel is instantiated per order (dispatch.cuh)");
    if constexpr (F == Family::Resident) run_resident<T, NT, OCC, FAST, 1>(a);
    else if constexpr (F == Family::ResidentTwoPanels) run_resident<T, NT, OCC, FAST, 2>(a);
    else if constexpr (F == Family::ResidentWarpA) run_resident<T, NT, OCC, FAST, 1, true>(a);
    else if constexpr (F == Family::Fragment) run_frag<T, NT, OCC, false>(a);
    else if constexpr (F == Family::FragmentDynamic) run_frag<T, NT, OCC, true>(a);
    else if constexpr (F == Family::FragmentPipelined) run_frag_pipe<T, NT, OCC>(a);
    else run_vec<T, NT, OCC>(a);
}

/// Whether v is one of LIST's variants.
template <const auto& LIST>
constexpr bool listed(const Variant& v) {
    for (const Variant& x : LIST)
        if (x == v) return true;
    return false;
}

/// Runs v if it is LIST[I] (never when EXCEPT_LIBRARY and LIST[I] is one of the library's variants).
template <typename T, bool FAST, const auto& LIST, bool EXCEPT_LIBRARY, size_t I>
bool run_if(const Args<T>& a, const Variant& v) {
    constexpr Variant c = LIST[I];
    if constexpr (EXCEPT_LIBRARY && listed<kLibraryVariants>(c)) {
        return false;
    } else {
        if (v != c) return false;
        run_variant<T, FAST, c.family, c.nt, c.occ>(a);
        return true;
    }
}
template <typename T, bool FAST, const auto& LIST, bool EXCEPT_LIBRARY, size_t... I>
bool run_listed(const Args<T>& a, const Variant& v, std::index_sequence<I...>) {
    return (run_if<T, FAST, LIST, EXCEPT_LIBRARY, I>(a, v) || ...);
}

/// Runs v if it is one of LIST's variants (EXCEPT_LIBRARY: and not one of kLibraryVariants); false
/// otherwise or for n outside 1..128.
template <typename T, bool FAST, const auto& LIST, bool EXCEPT_LIBRARY = false>
bool run_variant_of(const Args<T>& a, const Variant& v) {
    if (a.n < 1 || a.n > resident::kMaxOrder) return false;
    return run_listed<T, FAST, LIST, EXCEPT_LIBRARY>(a, v, std::make_index_sequence<std::size(LIST)>{});
}

template <typename T>
bool launch_resident_variant(const Args<T>& a, const Variant& v) {
    return a.batch == 0 || run_variant_of<T, kFastMath, kLibraryVariants>(a, v);
}

}  // namespace starfact::batched::gpu

/// Instantiates the library's resident variants (launch_resident_variant) for precision T.
#define STARFACT_BATCHED_CHOL_VARIANTS(T)                                                   \
    template bool starfact::batched::gpu::launch_resident_variant<T>(const starfact::batched::gpu::Args<T>&, \
                                                                     const starfact::batched::gpu::Variant&);
