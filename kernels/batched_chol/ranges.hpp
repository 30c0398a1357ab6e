// The compiled orders of the per-order kernels (size grouping: order n runs on the kernel for the
// smallest compiled N >= n, see potrf_kernel.cuh; potrf/posv and potrs have their own lists) and their
// split into translation units: kRanges, which launch.cpp dispatches over and from which
// cmake/features/batched_chol.cmake generates one translation unit per range and precision.
#pragma once
#include <cstddef>

#include "kernels/batched_chol/launch.hpp"
#include "kernels/batched_chol/tuning.hpp"

namespace starfact::batched::gpu {

/// Orders with a compiled potrf kernel (ascending; the last is the largest order handled). The left-looking
/// kernel's time follows its compiled order, not n (n = 33 on order 40 did 1.8x the flops of n = 33), hence
/// the steps of 2 from 32 to 48, and 52. posv takes the multiples of 4 among them (kPosvSizes).
/// tools/tune_batched_chol.sh reads this list.
constexpr int kSizes[] = {4, 8, 12, 16, 20, 24, 28, 32, 33, 34, 36, 38, 40, 42, 44, 46, 48, 52, 56, 64, 80, 96, 112, 128};
constexpr int kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);

/// The left-looking kernel's configuration for compiled order n in precision T (tuning.hpp).
template <typename T>
constexpr LeftLookingConfig left_looking(int n) {
    return sizeof(T) == 8 ? kLeftLookingDouble[n] : kLeftLookingFloat[n];
}

/// The compiled potrf order that serves n in precision T (0 if n is out of range): the smallest compiled
/// order >= n that T does not skip. A precision skips a compiled order whose tuned configuration is
/// zero (tools/tune_batched_chol.sh table writes one where the next compiled order's kernel measured at
/// least as fast; double 46 against 48, say).
template <typename T>
constexpr int padded_order(int n) {
    for (int i = 0; i < kNumSizes; ++i)
        if (n <= kSizes[i] && left_looking<T>(kSizes[i]).nt > 0) return n >= 1 ? kSizes[i] : 0;
    return 0;
}

/// Orders with a compiled fused posv kernel: the multiples of 4 in kSizes (its staged solve reads L by
/// 16-byte pieces of columns; orders 33, 34, .. exist for potrf's left-looking kernel only).
constexpr int kNumPosvSizes = [] {
    int c = 0;
    for (int s : kSizes) c += s % 4 == 0;
    return c;
}();
struct PosvSizes {
    int v[kNumPosvSizes];
};
constexpr PosvSizes kPosvSizes = [] {
    PosvSizes p{};
    int c = 0;
    for (int s : kSizes)
        if (s % 4 == 0) p.v[c++] = s;
    return p;
}();

/// The compiled posv order that serves n (0 if n is out of range).
constexpr int padded_posv_order(int n) {
    for (int i = 0; i < kNumPosvSizes; ++i)
        if (n <= kPosvSizes.v[i]) return n >= 1 ? kPosvSizes.v[i] : 0;
    return 0;
}
static_assert(padded_posv_order(33) == 36 && padded_posv_order(128) == 128, "posv orders: multiples of 4");

/// Orders with a compiled potrs kernel: step 4 up to 48, then 8 (a solve instance is cheap to build, and
/// its serial chain and shared memory grow with the compiled order, not with n).
constexpr int kSolveSizes[] = {4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128};
constexpr int kNumSolveSizes = sizeof(kSolveSizes) / sizeof(kSolveSizes[0]);

/// The compiled potrs order that serves n (0 if n is out of range).
constexpr int padded_solve_order(int n) {
    for (int i = 0; i < kNumSolveSizes; ++i)
        if (n <= kSolveSizes[i]) return n >= 1 ? kSolveSizes[i] : 0;
    return 0;
}

enum class Op { Potrf, Potrs, Posv };

/// One translation unit's share of an operation's compiled orders: those in lo..hi.
struct Range {
    Op op;
    int lo, hi;
};
/// Every range exists for float and double. cmake/features/batched_chol.cmake reads this list (one
/// `{Op::..., lo, hi}` per line) and generates the translation units; a range missing there fails to link.
constexpr Range kRanges[] = {
    {Op::Potrf, 1, 32},
    {Op::Potrf, 33, 64},
    {Op::Potrf, 65, 96},
    {Op::Potrf, 97, 128},
    {Op::Posv, 1, 32},
    {Op::Posv, 33, 64},
    {Op::Posv, 65, 96},
    {Op::Posv, 97, 128},
    {Op::Potrs, 1, 128},
};
constexpr size_t kNumRanges = sizeof(kRanges) / sizeof(kRanges[0]);

/// Runs a.n's kernel when its compiled order lies in LO..HI (dispatch.cuh; explicitly instantiated, one
/// range per translation unit), false otherwise.
template <typename T, Op OP, int LO, int HI>
bool range(const Args<T>& a);

}  // namespace starfact::batched::gpu
