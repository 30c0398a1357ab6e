// CPU forms of the mixed-precision Hermitian solve's conversion kernels (convert_complex.hpp).
#include <cmath>
#include <limits>

#include "kernels/mixed/convert_complex.hpp"

namespace starfact::detail::cpu {

void diag_scale_pairs(int n, const std::complex<double>* A, int lda, double* d2) {
    for (int a = 0; a < n; ++a) {
        const double v = A[a + static_cast<int64_t>(a) * lda].real();
        d2[2 * a] = d2[2 * a + 1] =
            (v > 0 && std::isfinite(v)) ? 1.0 / std::sqrt(v) : std::numeric_limits<double>::quiet_NaN();
    }
}

void to_low_sums_complex(int m, int n, const std::complex<double>* X, int ldx, const double* dr2, const double* dc2,
                         bool diagonal, double shift, std::complex<float>* F, int ldf, double* s, double* t) {
    for (int b = 0; b < n; ++b) {
        const double c = diagonal ? dr2[2 * b] : dc2[2 * b];
        for (int a = 0; a < m; ++a) {
            const std::complex<double> x = X[a + static_cast<int64_t>(b) * ldx];
            std::complex<float>& f = F[a + static_cast<int64_t>(b) * ldf];
            if (!diagonal) {
                f = std::complex<float>(dr2[2 * a] * x * c);
                const double v = std::abs(x);
                s[a] += v;
                t[b] += v;
            } else if (a < b) {
                f = 0;
            } else if (a == b) {
                f = std::complex<float>(static_cast<float>(dr2[2 * a] * x.real() * c + shift), 0.0f);
                s[a] += std::fabs(x.real());
            } else {
                f = std::complex<float>(dr2[2 * a] * x * c);
                const double v = std::abs(x);
                s[a] += v;
                s[b] += v;  // the stored (a, b) is also the unstored (b, a), its conjugate
            }
        }
    }
}

}  // namespace starfact::detail::cpu
