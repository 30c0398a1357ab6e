// The per-tile arithmetic rule of the mixed-precision Cholesky (tile_arithmetic.hpp).
#include "algorithms/tile_arithmetic.hpp"

#include <cmath>

#include "algorithms/mixed_ops.hpp"
#include "codelets/codelets.hpp"

namespace starfact::detail {

TileArithmetic::TileArithmetic(int64_t mt, const std::vector<double>& sum_squares, double tolerance,
                               Precision factor)
    : mt_(mt), compute_(static_cast<size_t>(mt * (mt + 1) / 2), 0) {
    double total = 0;
    for (int64_t m = 0; m < mt; ++m)
        for (int64_t n = 0; n <= m; ++n) total += (m == n ? 1.0 : 2.0) * sum_squares[static_cast<size_t>(packed_index(m, n))];
    const double anorm = std::sqrt(total);
    const double limit = tolerance / factor_unit_roundoff(factor);  // ||A_mn|| mt / ||A|| below it: low
    const int low = compute_of(factor);
    if (!(anorm > 0) || !std::isfinite(anorm)) return;  // nothing to compare with: every tile in float
    for (int64_t m = 0; m < mt; ++m)
        for (int64_t n = 0; n < m; ++n) {
            const double ratio = std::sqrt(sum_squares[static_cast<size_t>(packed_index(m, n))]) *
                                 static_cast<double>(mt) / anorm;
            if (ratio < limit) {  // false for NaN
                compute_[static_cast<size_t>(packed_index(m, n))] = low;
                ++low_;
            }
        }
}

}  // namespace starfact::detail
