// Accuracy checks of a computed QR (include/starfact/qr.hpp), in double on the host with OpenBLAS through the scalar
// layer (all its threads from order 512 on: syrk and gemm carry the work, the copies and norms are single passes):
// ||I - Q^T Q||_1 / (m eps), ||A - Q R||_1 / (||A||_1 m eps) and gels' ||A^T (A X - B)||_1 / (...), eps of the
// factorization's precision.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "algorithms/blas_threads.hpp"
#include "kernels/cpu_blas.hpp"
#include "starfact/qr.hpp"

namespace starfact {
namespace {

using detail::Diag;
using detail::Op;
using detail::Uplo;

template <typename T>
std::vector<double> to_double(int64_t m, int64_t n, const T* A, int64_t lda) {
    std::vector<double> D(static_cast<size_t>(m) * static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) D[static_cast<size_t>(i + j * m)] = static_cast<double>(A[i + j * lda]);
    return D;
}

/// The 1-norm (largest column sum) of an m x n column-major matrix.
double norm1(int64_t m, int64_t n, const double* A) {
    double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(A[i + j * m]);
        if (std::isnan(s)) return s;
        best = std::max(best, s);
    }
    return best;
}

}  // namespace

template <typename T>
double orthogonality_residual(int64_t m, int64_t n, const T* Q, int64_t ldq) {
    if (m == 0 || n == 0) return 0;
    const detail::AllBlasThreads threads(std::max(m, n));
    const std::vector<double> D = to_double(m, n, Q, ldq);
    std::vector<double> G(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) G[static_cast<size_t>(i + i * n)] = 1.0;
    detail::cpu::syrk<double>(Uplo::Upper, Op::Trans, static_cast<int>(n), static_cast<int>(m), -1.0, D.data(),
                              static_cast<int>(m), 1.0, G.data(), static_cast<int>(n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < n; ++i) G[static_cast<size_t>(i + j * n)] = G[static_cast<size_t>(j + i * n)];
    return norm1(n, n, G.data()) / (static_cast<double>(m) * std::numeric_limits<T>::epsilon());
}

template <typename T>
double qr_residual(int64_t m, int64_t n, const T* A, int64_t lda, const T* Q, int64_t ldq, const T* R, int64_t ldr) {
    if (m == 0 || n == 0) return 0;
    const detail::AllBlasThreads threads(std::max(m, n));
    std::vector<double> D = to_double(m, n, A, lda);
    const double na = norm1(m, n, D.data());
    // Q: m x k; R = [R1 R2]: k x n, R1 upper triangular (its lower part holds the reflectors, never read), R2 dense.
    const int64_t k = std::min(m, n);
    std::vector<double> Qd = to_double(m, k, Q, ldq);
    const std::vector<double> Rd = to_double(k, n, R, ldr);
    const int M = static_cast<int>(m), K = static_cast<int>(k);
    if (n > k)  // A(:, k:n) - Q R2
        detail::cpu::gemm<double>(Op::NoTrans, Op::NoTrans, M, static_cast<int>(n - k), K, -1.0, Qd.data(), M,
                                  Rd.data() + k * k, K, 1.0, D.data() + k * m, M);
    // A(:, 0:k) - Q R1: Q R1 by trmm in place (half the flops of a gemm with the triangle stored dense)
    detail::cpu::trmm<double>(detail::Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, M, K, 1.0, Rd.data(), K,
                              Qd.data(), M);
    for (size_t i = 0; i < Qd.size(); ++i) D[i] -= Qd[i];
    const double nr = norm1(m, n, D.data());
    return nr / ((na > 0 ? na : 1.0) * static_cast<double>(m) * std::numeric_limits<T>::epsilon());
}

template <typename T>
double gels_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                     int64_t ldb) {
    if (m == 0 || n == 0 || nrhs == 0) return 0;
    const detail::AllBlasThreads threads(std::max(m, n));
    const std::vector<double> Ad = to_double(m, n, A, lda), Xd = to_double(n, nrhs, X, ldx);
    std::vector<double> R = to_double(m, nrhs, B, ldb), G(static_cast<size_t>(n * nrhs), 0.0);
    const double nb = norm1(m, nrhs, R.data());
    detail::cpu::gemm<double>(Op::NoTrans, Op::NoTrans, static_cast<int>(m), static_cast<int>(nrhs),
                              static_cast<int>(n), 1.0, Ad.data(), static_cast<int>(m), Xd.data(), static_cast<int>(n),
                              -1.0, R.data(), static_cast<int>(m));
    detail::cpu::gemm<double>(Op::Trans, Op::NoTrans, static_cast<int>(n), static_cast<int>(nrhs), static_cast<int>(m),
                              1.0, Ad.data(), static_cast<int>(m), R.data(), static_cast<int>(m), 0.0, G.data(),
                              static_cast<int>(n));
    const double na = norm1(m, n, Ad.data()), nx = norm1(n, nrhs, Xd.data());
    const double den = na * (na * nx + nb) * static_cast<double>(m) * std::numeric_limits<T>::epsilon();
    return norm1(n, nrhs, G.data()) / (den > 0 ? den : 1.0);
}

template double gels_residual<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                                     const float*, int64_t);
template double gels_residual<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                      const double*, int64_t);
template double orthogonality_residual<float>(int64_t, int64_t, const float*, int64_t);
template double orthogonality_residual<double>(int64_t, int64_t, const double*, int64_t);
template double qr_residual<float>(int64_t, int64_t, const float*, int64_t, const float*, int64_t, const float*, int64_t);
template double qr_residual<double>(int64_t, int64_t, const double*, int64_t, const double*, int64_t, const double*,
                                    int64_t);

}  // namespace starfact
