// Shared by the tile-QR tests (CPU and GPU): random rectangular matrices, and one call that factors, forms Q,
// applies Q and Q^T and checks every scaled residual: ||I - Q^T Q|| / (m eps), ||A - Q R|| / (||A|| m eps),
// ||Q (Q^T C) - C|| / (||C|| m eps), ||Q^T A - [R; 0]|| / (||A|| m eps), each < 60; another for ormqr from the right:
// C Q and C Q^T against the products with the explicit m x m Q (itself checked), by rows (Q acts on C's rows):
// ||C op(Q) - ref||_inf / (||C||_inf m eps); the least-squares residuals of gels: the normal equations' (tall A) and
// the system's (wide A).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu_blas.hpp"
#include "tests/support.hpp"

namespace starfact::test::qr {

/// m x n entries uniform in [-0.5, 0.5], leading dimension ld (the padding rows hold a marker value).
template <typename T>
std::vector<T> random_rect(int64_t m, int64_t n, int64_t ld, uint64_t seed) {
    std::vector<T> A(static_cast<size_t>(ld * std::max<int64_t>(n, 1)), T(-777));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) A[static_cast<size_t>(i + j * ld)] = static_cast<T>(u(rng));
    return A;
}

/// An m x n matrix U diag(sigma) V^T with orthonormal U, V (LAPACK's QR of random matrices) and the singular values
/// sigma(j), j < n.
template <typename Sigma>
std::vector<double> with_singular_values(int64_t m, int64_t n, Sigma sigma, uint64_t seed) {
    auto orthonormal = [](int64_t r, int64_t c, uint64_t s) {
        std::vector<double> Q = random_rect<double>(r, c, r, s), tau(static_cast<size_t>(c));
        const int ir = static_cast<int>(r), ic = static_cast<int>(c);
        REQUIRE(starfact::detail::cpu::geqrf<double>(ir, ic, Q.data(), ir, tau.data()) == 0);
        REQUIRE(starfact::detail::cpu::orgqr<double>(ir, ic, ic, Q.data(), ir, tau.data()) == 0);
        return Q;
    };
    const std::vector<double> U = orthonormal(m, n, seed), V = orthonormal(n, n, seed + 1);
    std::vector<double> US = U, A(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double s = sigma(j);
        for (int64_t i = 0; i < m; ++i) US[i + j * m] *= s;
    }
    using starfact::detail::Op;
    starfact::detail::cpu::gemm<double>(Op::NoTrans, Op::Trans, static_cast<int>(m), static_cast<int>(n),
                                        static_cast<int>(n), 1.0, US.data(), static_cast<int>(m), V.data(),
                                        static_cast<int>(n), 0.0, A.data(), static_cast<int>(m));
    return A;
}

/// with_singular_values from 1 down to 1 / cond, geometrically.
inline std::vector<double> conditioned(int64_t m, int64_t n, double cond, uint64_t seed) {
    return with_singular_values(
        m, n, [&](int64_t j) { return n == 1 ? 1.0 : std::pow(cond, -double(j) / double(n - 1)); }, seed);
}

/// with_singular_values 1 (the first n / 2) and `small` (the rest): after the Cholesky QR's shifted first pass
/// (shift s), Q1^T Q1 - I has n - n / 2 eigenvalues of about -s / (small^2 + s) and the rest near 0, so that its
/// 2-norm is about s / (small^2 + s) while its Frobenius norm is about sqrt(n / 2) times that.
inline std::vector<double> two_level(int64_t m, int64_t n, double small, uint64_t seed) {
    return with_singular_values(m, n, [&](int64_t j) { return j < n / 2 ? 1.0 : small; }, seed);
}
/// The `small` of two_level for which the 2-norm above is `distance` in double: s / small^2 = distance / (1 -
/// distance), s the shift of the first pass (codelets/cholqr_impl.hpp: 11 (m n + n (n + 1)) u ||A||_F^2, with
/// ||A||_F^2 about n / 2).
inline double two_level_small(int64_t m, int64_t n, double distance) {
    const double u = std::numeric_limits<double>::epsilon() / 2, N = static_cast<double>(n);
    const double s = 11.0 * (static_cast<double>(m) * N + N * (N + 1)) * u * (N / 2);
    return std::sqrt(s * (1 - distance) / distance);
}

/// ||X - Y||_1 / (||Y||_1 m eps) over m x n blocks (X's leading dimension ldx, Y's ldy).
template <typename T>
double scaled_difference(int64_t m, int64_t n, const T* X, int64_t ldx, const T* Y, int64_t ldy) {
    double nd = 0, ny = 0;
    for (int64_t j = 0; j < n; ++j) {
        double sd = 0, sy = 0;
        for (int64_t i = 0; i < m; ++i) {
            sd += std::abs(double(X[i + j * ldx]) - double(Y[i + j * ldy]));
            sy += std::abs(double(Y[i + j * ldy]));
        }
        if (std::isnan(sd)) return sd;
        nd = std::max(nd, sd);
        ny = std::max(ny, sy);
    }
    return nd / ((ny > 0 ? ny : 1.0) * double(std::max<int64_t>(m, 1)) * std::numeric_limits<T>::epsilon());
}

/// The residuals of one QR; `failure` names what went wrong (empty: all < 60).
struct QrCheck {
    double orthogonality = -1, factorization = -1, apply = -1, reduce = -1;
    bool padding_untouched = true;
    std::string failure() const {
        std::ostringstream s;
        if (!(orthogonality < 60)) s << " orthogonality=" << orthogonality;
        if (!(factorization < 60)) s << " factorization=" << factorization;
        if (!(apply < 60)) s << " apply=" << apply;
        if (!(reduce < 60)) s << " reduce=" << reduce;
        if (!padding_untouched) s << " padding rows written";
        return s.str();
    }
};

/// Factors a random m x n matrix (array form, tiles of nb, `tree`, `ib`) under `factor`, then forms the thin Q (orgqr,
/// m x min(m, n)) and applies Q^T and Q (ormqr) under `apply`, and measures every residual.
template <typename T>
QrCheck check_qr(Runtime& rt, int64_t m, int64_t n, int64_t nb, QrTree tree, int64_t ib, const Options& factor,
                 const Options& apply, uint64_t seed) {
    const int64_t ld = m + 2, nrhs = 3;
    const std::vector<T> A = random_rect<T>(m, n, ld, seed);
    std::vector<T> F = A;
    QRFactors<T> f(rt, m, n, nb, tree, ib);
    geqrf(rt, m, n, F.data(), ld, f, factor);
    QrCheck c;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = m; i < ld; ++i) c.padding_untouched = c.padding_untouched && F[i + j * ld] == T(-777);
    const int64_t k = std::min(m, n);  // Q's columns
    std::vector<T> Q(static_cast<size_t>(ld * std::max<int64_t>(k, 1)), T(5));
    orgqr(rt, m, n, F.data(), ld, f, Q.data(), ld, apply);
    c.orthogonality = orthogonality_residual(m, k, Q.data(), ld);
    c.factorization = qr_residual(m, n, A.data(), ld, Q.data(), ld, F.data(), ld);
    const std::vector<T> C = random_rect<T>(m, nrhs, ld, seed + 1);
    std::vector<T> D = C;
    ormqr(rt, Side::Left, Trans::Transpose, m, nrhs, F.data(), ld, f, D.data(), ld, apply);
    ormqr(rt, Side::Left, Trans::NoTrans, m, nrhs, F.data(), ld, f, D.data(), ld, apply);
    c.apply = scaled_difference(m, nrhs, D.data(), ld, C.data(), ld);
    std::vector<T> E = A, R(static_cast<size_t>(ld * std::max<int64_t>(n, 1)), T(0));
    ormqr(rt, Side::Left, Trans::Transpose, m, n, F.data(), ld, f, E.data(), ld, apply);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i) R[i + j * ld] = F[i + j * ld];
    // Q^T A against [R; 0] (m < n: R upper trapezoidal), relative to A.
    double nd = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(double(E[i + j * ld]) - double(R[i + j * ld]));
        nd = std::max(nd, s);
    }
    const double na = [&] {
        double best = 0;
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t i = 0; i < m; ++i) s += std::abs(double(A[i + j * ld]));
            best = std::max(best, s);
        }
        return best > 0 ? best : 1.0;
    }();
    c.reduce = m * n == 0 ? 0 : nd / (na * double(m) * std::numeric_limits<T>::epsilon());
    return c;
}

/// The residuals of ormqr from the right; `failure` names what went wrong (empty: all < 60).
struct RightCheck {
    double orthogonality = -1, factorization = -1, notrans = -1, trans = -1;
    bool padding_untouched = true;
    std::string failure() const {
        std::ostringstream s;
        if (!(orthogonality < 60)) s << " orthogonality=" << orthogonality;
        if (!(factorization < 60)) s << " factorization=" << factorization;
        if (!(notrans < 60)) s << " C*Q=" << notrans;
        if (!(trans < 60)) s << " C*Q^T=" << trans;
        if (!padding_untouched) s << " padding rows written";
        return s.str();
    }
};

/// Factors a random m x n matrix (array form, tiles of nb, `tree`, `ib`) under `factor`; under `apply`
/// forms the explicit m x m Q (ormqr from the left on the identity; its orthogonality and ||A - Q R|| checked) and
/// applies Q and Q^T from the right to a random k x m C, each against C op(Q) computed in double with that Q.
template <typename T>
RightCheck check_ormqr_right(Runtime& rt, int64_t m, int64_t n, int64_t k, int64_t nb, QrTree tree, int64_t ib,
                             const Options& factor, const Options& apply, uint64_t seed) {
    const int64_t ld = m + 2, ldc = k + 1;
    const std::vector<T> A = random_rect<T>(m, n, ld, seed);
    std::vector<T> F = A;
    QRFactors<T> f(rt, m, n, nb, tree, ib);
    geqrf(rt, m, n, F.data(), ld, f, factor);
    std::vector<T> Q(static_cast<size_t>(ld * std::max<int64_t>(m, 1)), T(0));
    for (int64_t i = 0; i < m; ++i) Q[static_cast<size_t>(i + i * ld)] = T(1);
    ormqr(rt, Side::Left, Trans::NoTrans, m, m, F.data(), ld, f, Q.data(), ld, apply);
    RightCheck c;
    c.orthogonality = orthogonality_residual(m, m, Q.data(), ld);
    c.factorization = qr_residual(m, n, A.data(), ld, Q.data(), ld, F.data(), ld);
    const std::vector<T> C = random_rect<T>(k, m, ldc, seed + 1);
    for (Trans t : {Trans::NoTrans, Trans::Transpose}) {
        std::vector<T> D = C;
        ormqr(rt, Side::Right, t, m, k, F.data(), ld, f, D.data(), ldc, apply);
        for (int64_t j = 0; j < m; ++j) c.padding_untouched = c.padding_untouched && D[k + j * ldc] == T(-777);
        std::vector<double> ref(static_cast<size_t>(k * m), 0.0);  // C op(Q), leading dimension k
        for (int64_t j = 0; j < m; ++j)
            for (int64_t l = 0; l < m; ++l) {
                const double q = double(t == Trans::NoTrans ? Q[l + j * ld] : Q[j + l * ld]);
                for (int64_t i = 0; i < k; ++i) ref[static_cast<size_t>(i + j * k)] += double(C[i + l * ldc]) * q;
            }
        double nd = 0, nc = 0;
        for (int64_t i = 0; i < k; ++i) {
            double sd = 0, sc = 0;
            for (int64_t j = 0; j < m; ++j) {
                sd += std::abs(double(D[i + j * ldc]) - ref[static_cast<size_t>(i + j * k)]);
                sc += std::abs(double(C[i + j * ldc]));
            }
            nd = std::isnan(sd) ? sd : std::max(nd, sd);
            nc = std::max(nc, sc);
        }
        (t == Trans::NoTrans ? c.notrans : c.trans) =
            m * k == 0 ? 0 : nd / ((nc > 0 ? nc : 1.0) * double(m) * std::numeric_limits<T>::epsilon());
    }
    return c;
}

/// The 1-norm (the largest column sum of moduli, in double) of the rows x cols block X with leading dimension ld;
/// NaN when a column sum is NaN.
template <typename M>
double one_norm(int64_t rows, int64_t cols, const M* X, int64_t ld) {
    double best = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += std::abs(double(X[i + j * ld]));
        if (std::isnan(s)) return s;
        best = std::max(best, s);
    }
    return best;
}

/// The normal equations' scaled residual of a least-squares solution X (n x nrhs, ldx):
/// ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps).
template <typename T>
double normal_equations_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                     int64_t ldb) {
    std::vector<double> Rr(static_cast<size_t>(m * nrhs)), G(static_cast<size_t>(n * nrhs), 0.0);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double s = -double(B[i + j * ldb]);
            for (int64_t k = 0; k < n; ++k) s += double(A[i + k * lda]) * double(X[k + j * ldx]);
            Rr[static_cast<size_t>(i + j * m)] = s;
        }
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t k = 0; k < n; ++k) {
            double s = 0;
            for (int64_t i = 0; i < m; ++i) s += double(A[i + k * lda]) * Rr[static_cast<size_t>(i + j * m)];
            G[static_cast<size_t>(k + j * n)] = s;
        }
    const double na = one_norm(m, n, A, lda), nx = one_norm(n, nrhs, X, ldx), nb = one_norm(m, nrhs, B, ldb);
    const double den = na * (na * nx + nb) * double(m) * std::numeric_limits<T>::epsilon();
    return one_norm(n, nrhs, G.data(), n) / (den > 0 ? den : 1.0);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) (A m x n, X n x nrhs): the backward error of a consistent system (gels'
/// minimum-norm solution of a wide A).
template <typename T>
double system_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx,
                       const T* B, int64_t ldb) {
    double nr = 0, na = 0, nx = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double s = 0, sx = 0;
        for (int64_t i = 0; i < m; ++i) {
            double r = -double(B[i + j * ldb]);
            for (int64_t k = 0; k < n; ++k) r += double(A[i + k * lda]) * double(X[k + j * ldx]);
            s += std::abs(r);
        }
        for (int64_t k = 0; k < n; ++k) sx += std::abs(double(X[k + j * ldx]));
        nr = std::isnan(s) ? s : std::max(nr, s);
        nx = std::max(nx, sx);
    }
    for (int64_t k = 0; k < n; ++k) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(double(A[i + k * lda]));
        na = std::max(na, s);
    }
    const double den = na * nx * double(n) * std::numeric_limits<T>::epsilon();
    return nr / (den > 0 ? den : 1.0);
}

}  // namespace starfact::test::qr
