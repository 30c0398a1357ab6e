// Internal: the arithmetic of each tile of a low-precision Cholesky factorization (Refinement::tile_tolerance): the
// tasks writing an off-diagonal tile whose norm is small relative to the matrix's run in the factor's tensor-core
// arithmetic, the others, and every diagonal tile's, in float (docs/mixed_precision.md, "Per-tile arithmetic").
#pragma once
#include <cstdint>
#include <vector>

#include "starfact/options.hpp"

namespace starfact::detail {

/// Which arithmetic (TaskOptions::compute) the tasks writing each lower tile (m, n) of an mt x mt tiled matrix take.
class TileArithmetic {
public:
    /// The rule of the tile-adaptive Cholesky (as in Abdulah et al., IEEE TPDS 33(4), 2022, after Higham and Mary,
    /// Acta Numerica 31, 2022): an off-diagonal tile A_mn is low when ||A_mn||_F mt / ||A||_F < tolerance / u, u the
    /// unit roundoff of `factor`'s arithmetic (factor_unit_roundoff): its tasks take `factor`'s arithmetic, the other
    /// tiles float's. `sum_squares`: the sums of squares of the lower tiles, tile (m, n) at packed_index(m, n), a
    /// diagonal tile's of its symmetric tile (||A||_F^2 = the diagonal tiles' + twice the others'). A tile whose sum is
    /// not finite stays in float.
    TileArithmetic(int64_t mt, const std::vector<double>& sum_squares, double tolerance, Precision factor);

    /// Index of lower tile (m, n), n <= m, in a packed vector of the lower tiles.
    static int64_t packed_index(int64_t m, int64_t n) { return m * (m + 1) / 2 + n; }
    /// TaskOptions::compute of the tasks writing tile (m, n), n <= m.
    int compute(int64_t m, int64_t n) const { return compute_[static_cast<size_t>(packed_index(m, n))]; }
    /// Off-diagonal tiles in the factor's arithmetic, and all off-diagonal tiles.
    int64_t low_tiles() const { return low_; }
    int64_t off_diagonal_tiles() const { return mt_ * (mt_ - 1) / 2; }

private:
    int64_t mt_;
    int64_t low_ = 0;
    std::vector<int> compute_;
};

}  // namespace starfact::detail
