// The per-tile arithmetic rule of the mixed-precision Cholesky (tile_arithmetic.hpp).
#include "algorithms/tile_arithmetic.hpp"

#include <cmath>

#include "algorithms/mixed_ops.hpp"
#include "codelets/codelets.hpp"

namespace starfact::detail {

TileArithmetic::TileArithmetic(int64_t mt, const std::vector<double>& sum_squares, double tolerance,
                               Precision factor)
    : mt_(mt), compute_(static_cast<size_t>(mt * (mt + 1) / 2), 0) {
    ladder_.push_back(factor);
    if (factor == Precision::Bf16 || factor == Precision::Fp16) ladder_.push_back(Precision::Tf32);
    ladder_.push_back(Precision::Fp32);
    double total = 0;
    for (int64_t m = 0; m < mt; ++m)
        for (int64_t n = 0; n <= m; ++n) total += (m == n ? 1.0 : 2.0) * sum_squares[static_cast<size_t>(packed_index(m, n))];
    const double anorm = std::sqrt(total);
    if (!(anorm > 0) || !std::isfinite(anorm)) return;  // nothing to compare with: every tile in float
    const int factor_compute = compute_of(factor);
    for (int64_t m = 0; m < mt; ++m)
        for (int64_t n = 0; n <= m; ++n) {
            const double ratio = std::sqrt(sum_squares[static_cast<size_t>(packed_index(m, n))]) *
                                 static_cast<double>(mt) / anorm;
            int& c = compute_[static_cast<size_t>(packed_index(m, n))];
            for (Precision p : ladder_) {
                if (p == Precision::Fp32) break;  // the top rung: c stays float
                if (m == n && (p == Precision::Bf16 || p == Precision::Fp16)) continue;  // a diagonal tile: TF32 at least
                if (ratio < tolerance / factor_unit_roundoff(p)) {  // false for NaN
                    c = compute_of(p);
                    break;
                }
            }
            if (m != n && c == factor_compute && c != 0) ++low_;
        }
}

std::string TileArithmetic::summary() const {
    std::string off = "per tile:", diag = "; diagonal";
    for (Precision p : ladder_) {
        const int c = p == Precision::Fp32 ? 0 : compute_of(p);
        int64_t o = 0, d = 0;
        for (int64_t m = 0; m < mt_; ++m)
            for (int64_t n = 0; n <= m; ++n)
                if (compute(m, n) == c) ++(m == n ? d : o);
        if (o > 0) off += std::string(" ") + to_string(p) + " " + std::to_string(o) + ",";
        if (d > 0) diag += std::string(" ") + to_string(p) + " " + std::to_string(d) + ",";
    }
    if (off.back() == ',') off.pop_back();
    if (diag.back() == ',') diag.pop_back();
    return off + diag;
}

}  // namespace starfact::detail
