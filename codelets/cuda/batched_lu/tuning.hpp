// Tuning table of the batched getrf and inverse kernels: matrices per thread block (nFTB) and
// whether global memory is accessed through a shared-memory staging tile, per order n and
// precision. Chosen from tools/tune_batched_lu.sh's sweep on the H100 (docs/batched_lu.md keeps
// the table of measurements).
#pragma once
#include "codelets/cuda/batched_lu/launch.hpp"

namespace starfact::batched::kernels {

struct LuConfig {
    int nftb;    // matrices (segments of seg_lanes(n) lanes) per thread block
    bool stage;  // coalesced tile copies through shared memory (true) or direct row accesses (false)
};

/// nFTB giving `threads` lanes per block.
constexpr int nftb_for(int n, int threads) { return threads / seg_lanes(n); }

// Sweep of 2026-11-22 (H100, batch 10^6, docs/batched_lu.md): the direct register path beats
// the staged one at every size and precision (by 20-75%); nFTB matters little (< 6%).
template <typename T>
constexpr LuConfig getrf_config(int n) {
    return LuConfig{nftb_for(n, n <= 16 ? 64 : 256), false};
}

template <typename T>
constexpr LuConfig inverse_config(int n) {
    if (n <= 8) return LuConfig{nftb_for(n, 64), false};
    if (n <= 16) return LuConfig{nftb_for(n, sizeof(T) == 4 ? 128 : 256), false};
    return LuConfig{nftb_for(n, sizeof(T) == 4 ? 64 : 256), false};
}

}  // namespace starfact::batched::kernels
