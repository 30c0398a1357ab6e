// The compiled orders (size grouping: order n runs on the kernel for the smallest compiled N >= n,
// see potrf_kernel.cuh; potrf/posv and potrs have their own lists) and their split into translation units (instances_*.cu): one X-macro list
// used for the declarations here, the dispatch in launch.cpp and (checked at link time) the files.
#pragma once
#include "codelets/cuda/batched_chol/launch.hpp"
#include "codelets/cuda/batched_chol/tuned_table.hpp"

namespace starfact::batched::gpu {

enum class Op { Potrf, Potrs, Posv };

/// Orders with a compiled potrf kernel (ascending; the last is the largest order handled): n = 33 on
/// order 40 did 1.8x the flops of n = 33 (eighth session: 36 and 44 added); tenth session: 33, 34 and
/// step 2 up to 48 (the left-looking kernel's time follows its compiled order), 52. posv takes the
/// multiples of 4 among them (kPosvSizes). tools/tune_batched_chol.sh reads this list.
constexpr int kSizes[] = {4, 8, 12, 16, 20, 24, 28, 32, 33, 34, 36, 38, 40, 42, 44, 46, 48, 52, 56, 64, 80, 96, 112, 128};
constexpr int kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);

/// The compiled potrf order that serves n in precision T (0 if n is out of range): the smallest compiled
/// order >= n that T does not skip. A precision skips a compiled order whose tuned configuration is
/// zero (tools/tune_batched_chol.sh table writes one where the next compiled order's kernel measured at
/// least as fast; double 46 against 48, say).
template <typename T>
constexpr int padded_order(int n) {
    for (int i = 0; i < kNumSizes; ++i)
        if (n <= kSizes[i] && (sizeof(T) == 8 ? kTunedDouble : kTunedFloat)[kSizes[i]].nt > 0) return n >= 1 ? kSizes[i] : 0;
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

/// Handles the orders whose compiled order lies in LO..HI (defined by STARFACT_BATCHED_RANGE in one
/// instances_*.cu), false otherwise.
template <typename T, Op OP, int LO, int HI>
bool range(const Args<T>& a);

// X(OP, LO, HI) for every range; each exists for float and double.
#define STARFACT_BATCHED_RANGES(X) \
    X(Potrf, 1, 32)                \
    X(Potrf, 33, 64)               \
    X(Potrf, 65, 96)               \
    X(Potrf, 97, 128)              \
    X(Posv, 1, 32)                 \
    X(Posv, 33, 64)                \
    X(Posv, 65, 96)                \
    X(Posv, 97, 128)               \
    X(Potrs, 1, 128)

#define STARFACT_BATCHED_DECLARE(OP, LO, HI)                          \
    template <> bool range<float, Op::OP, LO, HI>(const Args<float>&); \
    template <> bool range<double, Op::OP, LO, HI>(const Args<double>&);
STARFACT_BATCHED_RANGES(STARFACT_BATCHED_DECLARE)
#undef STARFACT_BATCHED_DECLARE

}  // namespace starfact::batched::gpu
