// Tuning table of the batched getrf and inverse kernels, per order n and precision: matrices per
// thread block (nFTB), shared-memory staging tile or direct row accesses, pivot search, look-ahead
// and the register cap (minimum resident blocks per SM handed to __launch_bounds__). Chosen from
// tools/tune_batched_lu.sh's sweep on the H100 (docs/batched_lu.md keeps the measurements).
#pragma once
#include "kernels/batched_lu/launch.hpp"

namespace starfact::batched::gpu {

/// The configuration of a getrf or inverse kernel instance (template arguments of run_getrf, run_inverse).
struct LuConfig {
    int nftb;        // matrices (segments of seg_lanes(n) lanes) per thread block
    bool stage;      // coalesced tile copies through shared memory (true) or direct row accesses (false)
    int search;      // pivot search: 0 butterfly of shuffles, 1 warp reductions (n > 8 only; common.cuh)
    bool lookahead;  // update column k+1 and start step k+1's search before the rest of step k's update
    int minb;        // __launch_bounds__ minimum blocks per SM (0: none), i.e. a register cap
};

/// nFTB giving `threads` lanes per block.
constexpr int nftb_for(int n, int threads) { return threads / seg_lanes(n); }

// Sweep on the H100 (batch 10^6, docs/batched_lu.md, "Retuning"): the direct register path beats the
// staged one everywhere; the warp-reduction pivot search beats the butterfly at n = 16 and 32 by
// 10-25%; the look-ahead costs registers (occupancy) and does not pay (kept as a sweep variant);
// nFTB matters little except through occupancy. Double getrf at n >= 25 needs ~128
// registers unbounded (16 resident warps per SM): capped to 96 (5 blocks of 128 lanes, 20 warps).
template <typename T>
constexpr LuConfig getrf_config(int n) {
    constexpr bool dbl = sizeof(T) == 8;
    if (n <= 16) return LuConfig{nftb_for(n, dbl ? 64 : 256), false, 1, false, 0};
    if (dbl && n >= 25) return LuConfig{nftb_for(n, 128), false, 1, false, 5};
    return LuConfig{nftb_for(n, 256), false, 1, false, 0};
}

template <typename T>
constexpr LuConfig inverse_config(int n) {
    constexpr bool dbl = sizeof(T) == 8;
    if (n <= 8) return LuConfig{nftb_for(n, 64), false, 1, false, 0};
    return LuConfig{nftb_for(n, dbl ? 256 : 64), false, 1, false, 0};
}

}  // namespace starfact::batched::gpu
