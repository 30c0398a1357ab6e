// CPU forms of the equilibration kernels (equilibrate.hpp).
#include <cmath>
#include <cstdint>

#include "kernels/mixed/convert.hpp"
#include "kernels/mixed/equilibrate.hpp"

namespace starfact::detail::cpu {

void row_max(int m, int n, const double* X, int ldx, double* r) {
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < m; ++a) {
            const double v = std::fabs(X[a + static_cast<int64_t>(b) * ldx]);
            if (std::isnan(r[a])) continue;
            if (std::isnan(v) || v > r[a]) r[a] = v;
        }
}

void inverse_power_of_two(int n, double* s) {
    power_of_two(n, s);  // NaN stays NaN, 0 becomes 1
    for (int a = 0; a < n; ++a) s[a] = 1.0 / s[a];  // exact: a power of two in [2^-1021, 2^1023]
}

}  // namespace starfact::detail::cpu
