// CPU forms of the mixed-precision solve's element-wise tile kernels (convert.hpp).
#include <cmath>
#include <limits>

#include "kernels/mixed/convert.hpp"

namespace starfact::detail::cpu {

void diag_scale(int n, const double* A, int lda, double* d) {
    for (int a = 0; a < n; ++a) {
        const double v = A[a + static_cast<int64_t>(a) * lda];
        d[a] = (v > 0 && std::isfinite(v)) ? 1.0 / std::sqrt(v) : std::numeric_limits<double>::quiet_NaN();
    }
}

void to_low(int m, int n, const double* X, int ldx, const double* dr, const double* dc, ColumnScale cs, float* F,
            int ldf) {
    for (int b = 0; b < n; ++b) {
        const double c = cs == ColumnScale::Own ? dc[b] : cs == ColumnScale::SameAsRows ? dr[b] : 1.0;
        for (int a = 0; a < m; ++a)
            F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(dr[a] * X[a + static_cast<int64_t>(b) * ldx] * c);
    }
}

void add_low(int m, int n, const float* Z, int ldz, const double* dr, double* X, int ldx) {
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < m; ++a)
            X[a + static_cast<int64_t>(b) * ldx] += dr[a] * static_cast<double>(Z[a + static_cast<int64_t>(b) * ldz]);
}

void abs_sums(int m, int n, const double* A, int lda, bool diagonal, double* s, double* t) {
    for (int b = 0; b < n; ++b)
        for (int a = diagonal ? b : 0; a < m; ++a) {
            const double v = std::fabs(A[a + static_cast<int64_t>(b) * lda]);
            s[a] += v;
            if (diagonal && a != b) s[b] += v;  // the stored (a, b) is also the unstored (b, a)
            if (t) t[b] += v;
        }
}

void to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal, float* F,
                 int ldf, double* s, double* t) {
    to_low(m, n, X, ldx, dr, diagonal ? nullptr : dc, diagonal ? ColumnScale::SameAsRows : ColumnScale::Own, F, ldf);
    abs_sums(m, n, X, ldx, diagonal, s, diagonal ? nullptr : t);
}

}  // namespace starfact::detail::cpu
