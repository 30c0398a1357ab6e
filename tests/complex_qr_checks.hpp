// The complex QR tests' checks (tests/test_qr_complex.cpp), computed here in complex<double>, element by element:
// one-norms, products with op(A) = A or A^H, and the scaled residuals of a QR, of Q's orthonormality, of a least
// squares solution (the normal equations) and of a minimum-norm solution (its distance from the row space of A); and
// the moves between the tests' host arrays and TileMatrix tiles.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "starfact/tile_matrix.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/support.hpp"

namespace starfact::test::complex_qr {

using Z = std::complex<double>;

/// A rows x cols column-major matrix in complex<double>.
struct Mat {
    int64_t rows = 0, cols = 0;
    std::vector<Z> a;
    Mat(int64_t r, int64_t c) : rows(r), cols(c), a(static_cast<size_t>(r * c)) {}
    template <typename C>
    Mat(const std::vector<C>& v, int64_t r, int64_t c) : Mat(r, c) {
        for (size_t i = 0; i < a.size(); ++i) a[i] = Z(v[i]);
    }
    Z& operator()(int64_t i, int64_t j) { return a[static_cast<size_t>(i + j * rows)]; }
    Z operator()(int64_t i, int64_t j) const { return a[static_cast<size_t>(i + j * rows)]; }
};

inline Mat identity(int64_t n) {
    Mat I(n, n);
    for (int64_t i = 0; i < n; ++i) I(i, i) = 1;
    return I;
}

/// The conjugate transpose.
inline Mat adjoint(const Mat& A) {
    Mat H(A.cols, A.rows);
    for (int64_t j = 0; j < A.cols; ++j)
        for (int64_t i = 0; i < A.rows; ++i) H(j, i) = std::conj(A(i, j));
    return H;
}

inline Mat operator*(const Mat& A, const Mat& B) {
    Mat C(A.rows, B.cols);
    for (int64_t j = 0; j < B.cols; ++j)
        for (int64_t k = 0; k < A.cols; ++k) {
            const Z b = B(k, j);
            for (int64_t i = 0; i < A.rows; ++i) C(i, j) += A(i, k) * b;
        }
    return C;
}

inline Mat operator-(Mat A, const Mat& B) {
    for (size_t i = 0; i < A.a.size(); ++i) A.a[i] -= B.a[i];
    return A;
}

/// The leading rows x cols block.
inline Mat block(const Mat& A, int64_t rows, int64_t cols) {
    Mat B(rows, cols);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) B(i, j) = A(i, j);
    return B;
}

/// ||A||_1, the largest column sum of moduli.
inline double norm1(const Mat& A) {
    double s = 0;
    for (int64_t j = 0; j < A.cols; ++j) {
        double c = 0;
        for (int64_t i = 0; i < A.rows; ++i) c += std::abs(A(i, j));
        s = std::max(s, c);
    }
    return s;
}

/// x / (scale) with 0 / 0 = 0 (an exact result on a zero input).
inline double scaled(double x, double scale) { return x == 0 ? 0.0 : x / scale; }

/// The upper trapezoid of the k x n leading block of the factored F (k = min(m, n)): R.
inline Mat upper(const Mat& F) {
    const int64_t k = std::min(F.rows, F.cols);
    Mat R(k, F.cols);
    for (int64_t j = 0; j < F.cols; ++j)
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i) R(i, j) = F(i, j);
    return R;
}

/// ||A - Q R||_1 / (||A||_1 m eps): Q m x k, R k x n.
inline double qr_residual(const Mat& A, const Mat& Q, const Mat& R, double eps) {
    return scaled(norm1(A - Q * R), norm1(A) * static_cast<double>(std::max<int64_t>(A.rows, 1)) * eps);
}

/// ||I - Q^H Q||_1 / (m eps) for the m x k Q.
inline double orthogonality_residual(const Mat& Q, double eps) {
    return scaled(norm1(identity(Q.cols) - adjoint(Q) * Q), static_cast<double>(std::max<int64_t>(Q.rows, 1)) * eps);
}

/// ||X - ref||_1 / (||C||_1 m eps): a product with Q (C the matrix it was applied to, Q m x m).
inline double product_residual(const Mat& X, const Mat& ref, const Mat& C, int64_t m, double eps) {
    return scaled(norm1(X - ref), norm1(C) * static_cast<double>(std::max<int64_t>(m, 1)) * eps);
}

/// The least-squares check of X (n x nrhs) for min ||A X - B||: ||A^H (A X - B)||_1 /
/// (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps).
inline double gels_residual(const Mat& A, const Mat& X, const Mat& B, double eps) {
    const double nA = norm1(A);
    return scaled(norm1(adjoint(A) * (A * X - B)),
                  nA * (nA * norm1(X) + norm1(B)) * static_cast<double>(std::max<int64_t>(A.rows, 1)) * eps);
}

/// W := H^-1 Y for the Hermitian positive definite H (Cholesky in complex<double>, unpivoted).
inline Mat hpd_solve(Mat H, Mat Y) {
    const int64_t n = H.rows;
    for (int64_t j = 0; j < n; ++j) {
        double d = H(j, j).real();
        for (int64_t k = 0; k < j; ++k) d -= std::norm(H(j, k));
        d = std::sqrt(d);
        H(j, j) = d;
        for (int64_t i = j + 1; i < n; ++i) {
            Z s = H(i, j);
            for (int64_t k = 0; k < j; ++k) s -= H(i, k) * std::conj(H(j, k));
            H(i, j) = s / d;
        }
    }
    for (int64_t c = 0; c < Y.cols; ++c) {
        for (int64_t i = 0; i < n; ++i) {  // L z = y
            Z s = Y(i, c);
            for (int64_t k = 0; k < i; ++k) s -= H(i, k) * Y(k, c);
            Y(i, c) = s / H(i, i);
        }
        for (int64_t i = n - 1; i >= 0; --i) {  // L^H w = z
            Z s = Y(i, c);
            for (int64_t k = i + 1; k < n; ++k) s -= std::conj(H(k, i)) * Y(k, c);
            Y(i, c) = s / H(i, i);
        }
    }
    return Y;
}

/// The minimum-norm check of X (n x nrhs) for the wide A (m < n) of full rank: X's distance from the row space of A,
/// ||X - A^H W||_1 with W = (A A^H)^-1 A X (the projection of X onto that space), over (||A||_1 ||W||_1 + ||X||_1)
/// n eps; a solution of A X = B outside the row space is longer than the minimum-norm one.
inline double minimum_norm_residual(const Mat& A, const Mat& X, double eps) {
    const Mat AH = adjoint(A), W = hpd_solve(A * AH, A * X);
    return scaled(norm1(X - AH * W),
                  (norm1(A) * norm1(W) + norm1(X)) * static_cast<double>(std::max<int64_t>(A.cols, 1)) * eps);
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps): a consistent system's residual.
inline double solve_residual(const Mat& A, const Mat& X, const Mat& B, double eps) {
    return scaled(norm1(A * X - B), norm1(A) * norm1(X) * static_cast<double>(std::max<int64_t>(A.cols, 1)) * eps);
}

/// The tile matrix of the m x n column-major A (ld m), in nb tiles of the test runtime, host- or device-resident.
template <typename C>
std::unique_ptr<TileMatrix<C>> tiles(const std::vector<C>& A, int64_t m, int64_t n, int64_t nb,
                                     Residency residency = Residency::Host) {
    auto t = std::make_unique<TileMatrix<C>>(runtime(), m, n, nb, residency);
    t->import(A.data(), std::max<int64_t>(m, 1));
    return t;
}

/// The tiles' entries, gathered into a Mat.
template <typename C>
Mat exported(const TileMatrix<C>& t) {
    std::vector<C> v(static_cast<size_t>(t.m() * t.n()));
    t.export_to(v.data(), std::max<int64_t>(t.m(), 1));
    return Mat(v, t.m(), t.n());
}

/// M's entries in the element type C.
template <typename C>
std::vector<C> entries(const Mat& M) {
    std::vector<C> v(M.a.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = C(M.a[i]);
    return v;
}

}  // namespace starfact::test::complex_qr
