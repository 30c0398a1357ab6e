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

void abs_sums(int m, int n, const double* A, int lda, bool diagonal, double* s, double* t) {
    for (int b = 0; b < n; ++b)
        for (int a = diagonal ? b : 0; a < m; ++a) {
            const double v = std::fabs(A[a + static_cast<int64_t>(b) * lda]);
            s[a] += v;
            if (diagonal && a != b) s[b] += v;  // the stored (a, b) is also the unstored (b, a)
            if (t) t[b] += v;
        }
}

void to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal,
                 double shift, float* F, int ldf, double* s, double* t) {
    for (int b = 0; b < n; ++b) {
        const double c = diagonal ? dr[b] : dc[b];
        for (int a = 0; a < m; ++a) {
            const double v = dr[a] * X[a + static_cast<int64_t>(b) * ldx] * c + (diagonal && a == b ? shift : 0.0);
            F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(v);
        }
    }
    abs_sums(m, n, X, ldx, diagonal, s, diagonal ? nullptr : t);
}

void column_max(int m, int n, const double* X, int ldx, const double* dr, double* s) {
    for (int b = 0; b < n; ++b) {
        double top = s[b];
        for (int a = 0; a < m && !std::isnan(top); ++a) {
            const double v = std::fabs(dr[a] * X[a + static_cast<int64_t>(b) * ldx]);
            if (std::isnan(v) || v > top) top = v;
        }
        s[b] = top;
    }
}

void power_of_two(int n, double* s) {
    for (int b = 0; b < n; ++b) {
        if (!std::isfinite(s[b])) {
            s[b] = std::numeric_limits<double>::quiet_NaN();
        } else if (s[b] == 0) {
            s[b] = 1;
        } else {
            int e = 0;
            const double f = std::frexp(s[b], &e);  // s = f 2^e, f in [0.5, 1)
            if (f == 0.5) --e;
            // 2^e within [2^-1021, 2^1023], so that neither s nor 1 / s overflows
            s[b] = std::ldexp(1.0, e < -1021 ? -1021 : e > 1023 ? 1023 : e);
        }
    }
}

void to_low_scaled(int m, int n, const double* X, int ldx, const double* dr, const double* s, float* F, int ldf) {
    for (int b = 0; b < n; ++b) {
        const double inv = 1.0 / s[b];  // exact: s is a power of two
        for (int a = 0; a < m; ++a)
            F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(dr[a] * X[a + static_cast<int64_t>(b) * ldx] * inv);
    }
}

void add_low_scaled(int m, int n, const float* Z, int ldz, const double* dr, const double* s, double* X, int ldx) {
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < m; ++a)
            X[a + static_cast<int64_t>(b) * ldx] += dr[a] * s[b] * static_cast<double>(Z[a + static_cast<int64_t>(b) * ldz]);
}

void sum_squares(int m, int n, const float* F, int ldf, bool diagonal, double* out) {
    double sum = 0;
    for (int b = 0; b < n; ++b)
        for (int a = diagonal ? b : 0; a < m; ++a) {
            const double v = F[a + static_cast<int64_t>(b) * ldf];
            sum += (diagonal && a > b ? 2.0 : 1.0) * v * v;
        }
    *out = sum;
}

void widen(int m, int n, const float* F, int ldf, double* X, int ldx) {
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < m; ++a) X[a + static_cast<int64_t>(b) * ldx] = F[a + static_cast<int64_t>(b) * ldf];
}

void narrow(int m, int n, const double* X, int ldx, float* F, int ldf) {
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < m; ++a)
            F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(X[a + static_cast<int64_t>(b) * ldx]);
}

}  // namespace starfact::detail::cpu
