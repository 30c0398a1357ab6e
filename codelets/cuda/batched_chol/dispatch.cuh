// Compile-time dispatch from a runtime order n to the kernel compiled for padded_order<T>(n) with the
// tuned configuration, and the macro that instantiates one range of compiled orders in one
// translation unit (instances_*.cu): spread over several files so that builds parallelize.
#pragma once
#include <climits>
#include <cstdint>
#include <utility>

#include "codelets/cuda/batched_chol/launch.hpp"
#include "codelets/cuda/batched_chol/potrf_kernel.cuh"
#include "codelets/cuda/batched_chol/potrs_kernel.cuh"
#include "codelets/cuda/batched_chol/ranges.hpp"
#include "codelets/cuda/batched_chol/tuned_table.hpp"

namespace starfact::batched::gpu {

#ifdef STARFACT_BATCHED_FAST_MATH
constexpr bool kFastMath = true;  // rsqrt-based pivots (cmake -DSTARFACT_BATCHED_CHOL_FAST_MATH=ON)
#else
constexpr bool kFastMath = false;  // IEEE sqrt and division (default)
#endif

template <typename T>
BatchRef<T> ref(const Layout<T>& l) {
    return BatchRef<T>{l.base, l.ptrs, l.stride};
}

inline unsigned grid_for(int64_t batch, int per_block) {
    const int64_t blocks = (batch + per_block - 1) / per_block;
    return static_cast<unsigned>(blocks < INT_MAX ? blocks : INT_MAX);  // grid-stride loops do the rest
}

template <typename T> constexpr PotrfConfig tuned(int n) {
    return sizeof(T) == 8 ? kTunedDouble[n] : kTunedFloat[n];
}

/// Launches potrf (POSV = false) or the fused posv (POSV = true) for order N with configuration
/// (NB, NT, MPB, OCC).
template <typename T, int N, int NB, int NT, int MPB, int OCC, bool FAST, bool POSV>
void run_factor(const Args<T>& a) {
    static_assert((NT * MPB) % 32 == 0 && NT * MPB <= 1024, "block must be whole warps");
    constexpr int per_matrix = [] {  // posv's needs a staged solve of order N: only for posv orders
        if constexpr (POSV) return posv_smem_elems<T, N, NB, NT>();
        else return potrf_smem_elems<N, NB, NT>();
    }();
    const size_t smem = static_cast<size_t>(MPB) * per_matrix * sizeof(T);
    const dim3 block(NT, MPB);
    const unsigned grid = grid_for(a.batch, MPB);
    if constexpr (POSV) {
        auto k = posv_batched_kernel<T, N, NB, NT, MPB, OCC, FAST>;
        if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        k<<<grid, block, smem, a.stream>>>(ref(a.A), a.n, a.lda, ref(a.B), a.ldb, a.nrhs, a.info, a.batch);
    } else {
        auto k = potrf_batched_kernel<T, N, NB, NT, MPB, OCC, FAST>;
        if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        k<<<grid, block, smem, a.stream>>>(ref(a.A), a.n, a.lda, a.info, a.batch);
    }
}

template <typename T, int N, bool FAST, bool POSV>
void run_factor_tuned(const Args<T>& a) {
    constexpr PotrfConfig c = tuned<T>(N);
    run_factor<T, N, c.nb, c.nt, c.mpb, c.occ, FAST, POSV>(a);
}

template <typename T, int N>
void run_potrs(const Args<T>& a) {
    constexpr int G = potrs_group_for<T>(N), WPB = potrs_warps<T, N>();
    const size_t smem = static_cast<size_t>(32 * WPB / G) * solve_smem_elems<T, N>() * sizeof(T);
    auto k = potrs_batched_kernel<T, N, G, WPB>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    k<<<grid_for(a.batch, 32 * WPB / G), 32 * WPB, smem, a.stream>>>(ref(a.A), a.n, a.lda, ref(a.B), a.ldb, a.nrhs,
                                                                   a.info, a.batch);
}

template <typename T, Op OP, int N>
void run_one(const Args<T>& a) {
    if constexpr (OP == Op::Potrf) run_factor_tuned<T, N, kFastMath, false>(a);
    else if constexpr (OP == Op::Posv) run_factor_tuned<T, N, kFastMath, true>(a);
    else run_potrs<T, N>(a);
}

/// The compiled orders of an operation (potrs has its own, finer list; posv the multiples of 4 of potrf's).
template <Op OP> constexpr int size_at(int i) {
    return OP == Op::Potrs ? kSolveSizes[i] : OP == Op::Posv ? kPosvSizes.v[i] : kSizes[i];
}
template <Op OP> constexpr int num_sizes() {
    return OP == Op::Potrs ? kNumSolveSizes : OP == Op::Posv ? kNumPosvSizes : kNumSizes;
}
template <typename T, Op OP> constexpr int padded_for(int n) {
    return OP == Op::Potrs ? padded_solve_order(n) : OP == Op::Posv ? padded_posv_order(n) : padded_order<T>(n);
}

template <typename T, Op OP, int LO, int HI, int I>
bool try_size(const Args<T>& a) {
    constexpr int N = size_at<OP>(I);
    if constexpr (N >= LO && N <= HI && (OP != Op::Potrf || tuned<T>(N).nt > 0)) {  // not skipped by T
        if (padded_for<T, OP>(a.n) == N) {
            run_one<T, OP, N>(a);
            return true;
        }
    }
    return false;
}

template <typename T, Op OP, int LO, int HI, int... I>
bool dispatch_range(const Args<T>& a, std::integer_sequence<int, I...>) {
    return (try_size<T, OP, LO, HI, I>(a) || ...);
}

}  // namespace starfact::batched::gpu

#define STARFACT_BATCHED_RANGE(T, OP, LO, HI)                                                          \
    namespace starfact::batched::gpu {                                                                 \
    template <>                                                                                        \
    bool range<T, Op::OP, LO, HI>(const Args<T>& a) {                                                  \
        return dispatch_range<T, Op::OP, LO, HI>(a, std::make_integer_sequence<int, num_sizes<Op::OP>()>{}); \
    }                                                                                                  \
    }
