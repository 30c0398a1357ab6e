// The compiled orders (size grouping: order n runs on the kernel for the smallest compiled N >= n,
// see potrf_kernel.cuh; potrf/posv and potrs have their own lists) and their split into translation units (instances_*.cu): one X-macro list
// used for the declarations here, the dispatch in launch.cpp and (checked at link time) the files.
#pragma once
#include "codelets/cuda/batched_chol/launch.hpp"

namespace starfact::batched::gpu {

enum class Op { Potrf, Potrs, Posv };

/// Orders with a compiled kernel (ascending; the last is the largest order handled). Step 4 up to 48:
/// n = 33 on order 40 did 1.8x the flops of n = 33 (eighth session: 36 and 44 added).
constexpr int kSizes[] = {4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 80, 96, 112, 128};
constexpr int kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);

/// The compiled order that serves n (0 if n is out of range).
constexpr int padded_order(int n) {
    for (int i = 0; i < kNumSizes; ++i)
        if (n <= kSizes[i]) return n >= 1 ? kSizes[i] : 0;
    return 0;
}

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
