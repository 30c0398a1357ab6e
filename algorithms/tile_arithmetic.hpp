// Internal: the arithmetic of each tile of a low-precision Cholesky factorization (Refinement::tile_tolerance): each
// tile's tasks take the cheapest arithmetic of a ladder (the factor's, TF32 above BF16 and FP16, float) whose unit
// roundoff the tile's norm allows (docs/mixed_precision.md, "Per-tile arithmetic").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "starfact/options.hpp"

namespace starfact::detail {

/// Which arithmetic (TaskOptions::compute) the tasks writing each lower tile (m, n) of an mt x mt tiled matrix take.
class TileArithmetic {
public:
    /// The rule of the tile-adaptive Cholesky (as in Abdulah et al., IEEE TPDS 33(4), 2022): tile A_mn may take an
    /// arithmetic of unit roundoff u when ||A_mn||_F mt / ||A||_F < tolerance / u. The ladder is `factor`'s
    /// arithmetic, then TF32 when `factor` is BF16 or FP16, then float; each tile takes the cheapest rung the rule
    /// allows (float when none does), a diagonal tile never below TF32. `sum_squares`: the sums of squares of the
    /// lower tiles, tile (m, n) at packed_index(m, n), a diagonal tile's of its symmetric tile (||A||_F^2 = the
    /// diagonal tiles' + twice the others'). A tile whose sum is not finite, or all of them when ||A||_F is not
    /// finite or zero, in float.
    TileArithmetic(int64_t mt, const std::vector<double>& sum_squares, double tolerance, Precision factor);

    /// Index of lower tile (m, n), n <= m, in a packed vector of the lower tiles.
    static int64_t packed_index(int64_t m, int64_t n) { return m * (m + 1) / 2 + n; }
    /// TaskOptions::compute of the tasks writing tile (m, n), n <= m.
    int compute(int64_t m, int64_t n) const { return compute_[static_cast<size_t>(packed_index(m, n))]; }
    /// Off-diagonal tiles in the factor's own arithmetic, and all off-diagonal tiles.
    int64_t low_tiles() const { return low_; }
    int64_t off_diagonal_tiles() const { return mt_ * (mt_ - 1) / 2; }
    /// How many off-diagonal and diagonal tiles each rung took, e.g. "per tile: bf16 20, tf32 6, fp32 2; diagonal
    /// tf32 8".
    std::string summary() const;

private:
    int64_t mt_;
    int64_t low_ = 0;
    std::vector<Precision> ladder_;
    std::vector<int> compute_;
};

}  // namespace starfact::detail
