// CPU: gels scales as LAPACK's gels does: A and B near the underflow or overflow threshold (1e-300, 1e+300 in
// double, 1e-36 and 1e+36 in float), tall (least squares, the residual's rows scaled back too) and wide (minimum
// norm), the Householder trees and the Cholesky QR, the array form (with the plan's tree), the tile form and the
// submit form: X against LAPACKE's gels on the same data.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;

namespace {

template <typename T>
int lapacke_gels(int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb) {
    return starfact::detail::cpu::gels<T>('N', static_cast<int>(m), static_cast<int>(n), static_cast<int>(nrhs), A,
                                          static_cast<int>(lda), B, static_cast<int>(ldb));
}

/// max |X - Y| / max |Y| over the rows x cols leading blocks, in long double (the values may be near the ends of
/// T's range).
template <typename T>
long double relative_difference(int64_t rows, int64_t cols, const T* X, int64_t ldx, const T* Y, int64_t ldy) {
    long double d = 0, y = 0;
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            const long double a = X[i + j * ldx], b = Y[i + j * ldy];
            if (!std::isfinite(static_cast<double>(a))) return INFINITY;
            d = std::max(d, std::fabs(a - b));
            y = std::max(y, std::fabs(b));
        }
    return y > 0 ? d / y : d;
}

/// The 2-norm of column j of B - A X (long double), against the residual's rows of gels' B.
template <typename T>
long double residual_norm(int64_t m, int64_t n, const T* A, const T* X, int64_t ldx, const T* B, int64_t j) {
    long double s = 0;
    for (int64_t i = 0; i < m; ++i) {
        long double r = B[i + j * m];
        for (int64_t k = 0; k < n; ++k) r -= static_cast<long double>(A[i + k * m]) * X[k + j * ldx];
        s += r * r;
    }
    return std::sqrt(s);
}

template <typename T>
void expect_scaled_gels(int64_t m, int64_t n, int64_t nrhs, int64_t nb, const char* tree, double sa, double sb) {
    const uint64_t seed = fresh_seed();
    const int64_t rows = std::max(m, n), k = std::min(m, n);
    INFO("m=" << m << " n=" << n << " tree=" << tree << " A scaled by " << sa << ", B by " << sb << " prec="
              << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    // A well-conditioned A (cond 10), so that X is accurate to a few eps relative to its largest entry.
    const std::vector<double> A0 = m >= n ? conditioned(m, n, 10, seed) : [&] {
        const std::vector<double> At = conditioned(n, m, 10, seed);
        std::vector<double> W(static_cast<size_t>(m * n));
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) W[static_cast<size_t>(i + j * m)] = At[static_cast<size_t>(j + i * n)];
        return W;
    }();
    const std::vector<double> B0 = random_rect<double>(rows, nrhs, rows, seed + 3);
    std::vector<T> A(A0.size()), B(B0.size());
    for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<T>(A0[i] * sa);
    for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<T>(B0[i] * sb);
    std::vector<T> La = A, Lb = B;
    REQUIRE(lapacke_gels<T>(m, n, nrhs, La.data(), m, Lb.data(), rows) == 0);
    const double tol = 1000 * std::numeric_limits<T>::epsilon();
    const Options cpu = on(Mapping::CpuOnly);
    for (int form = 0; form < 3; ++form) {
        INFO("form " << (form == 0 ? "array (the plan's tree)" : form == 1 ? "tiles" : "submit"));
        std::vector<T> X = B, F = A;
        int info = 0;
        Tiling tiling;
        tiling.nb = nb;
        if (form == 0) {
            info = gels(runtime(), m, n, nrhs, F.data(), m, X.data(), rows, cpu, tiling);
        } else {
            TileMatrix<T> a(runtime(), m, n, nb), b(runtime(), rows, nrhs, nb);
            a.import(A.data(), m);
            b.import(B.data(), rows);
            QRFactors<T> f(runtime(), rows, k, nb, QrTree::parse(tree));
            if (form == 1) {
                info = gels(a, f, b, cpu);
            } else {
                Sequence seq(runtime());
                const int op = async::gels(a, f, b, seq, cpu);
                seq.wait();
                info = seq.info(op);
            }
            b.export_to(X.data(), rows);
        }
        CHECK(info == 0);
        if (info != 0) continue;
        const long double d = relative_difference(n, nrhs, X.data(), rows, Lb.data(), rows);
        INFO("|X - X_lapack| / |X_lapack| = " << static_cast<double>(d));
        CHECK(d < tol);
        if (m > n)  // the residual's rows: ||B(n:m, j)|| = ||B - A X||
            for (int64_t j = 0; j < nrhs; ++j) {
                long double s = 0;
                for (int64_t i = n; i < m; ++i) s += static_cast<long double>(X[i + j * rows]) * X[i + j * rows];
                const long double r = residual_norm(m, n, A.data(), X.data(), rows, B.data(), j);
                CHECK(std::fabs(std::sqrt(s) - r) <= tol * r);
            }
    }
}

}  // namespace

TEMPLATE_TEST_CASE("gels scales A and B near the ends of the range as LAPACK's gels, and matches it",
                   "[qr][gels][scaling][cpu]", float, double) {
    using T = TestType;
    const double big = sizeof(T) == 4 ? 1e36 : 1e300;
    for (double sa : {1 / big, 1.0, big})
        for (double sb : {1 / big, 1.0, big}) {
            if (sa != 1 && sb != 1 && sa != sb) continue;  // X would be of magnitude big^2 or 1 / big^2
            expect_scaled_gels<T>(90, 20, 3, 16, "flat", sa, sb);
            expect_scaled_gels<T>(90, 20, 2, 32, "cholqr", sa, sb);
            expect_scaled_gels<T>(20, 50, 2, 16, "binary", sa, sb);
        }
    expect_scaled_gels<T>(200, 37, 1, 24, "panel", big, big);
    // Nearer still: the smallest normal numbers and below (subnormal entries), the largest ones.
    const double tiny = std::numeric_limits<T>::min();
    for (double sa : {tiny * 8, tiny / 64, static_cast<double>(std::numeric_limits<T>::max()) / 16}) {
        expect_scaled_gels<T>(90, 20, 2, 16, "flat", sa, sa);
        expect_scaled_gels<T>(20, 50, 2, 16, "flat", sa, sa);
    }
}
