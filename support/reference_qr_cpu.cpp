// LAPACKE's QR baselines of starpu_qr (support/reference_qr.hpp).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "support/reference_qr.hpp"

namespace starfact::support {

const char* to_string(QrOp op) {
    switch (op) {
        case QrOp::Geqrf: return "geqrf";
        case QrOp::Gels: return "gels";
        case QrOp::Orgqr: return "orgqr";
    }
    return "geqrf";
}

std::string cusolver_qr_calls(QrOp op, int64_t m, int64_t n) {
    switch (op) {
        case QrOp::Geqrf: return "cusolverDnXgeqrf";
        case QrOp::Gels:
            return m < n ? "cublas<t>geam A^T + Xgeqrf of A^T + cublas<t>trsm R^T Y = B + <t>ormqr X = Q [Y; 0]"
                         : "Xgeqrf + <t>ormqr + cublas<t>trsm";
        case QrOp::Orgqr: return "<t>orgqr after an untimed Xgeqrf";
    }
    return "";
}

namespace {
// LAPACKE's calls through the scalar layer (kernels/cpu_lapack.hpp), the m x n A with lda = m.
template <typename T>
int geqrf(int m, int n, T* A, T* tau) {
    return detail::cpu::geqrf<T>(m, n, A, m, tau);
}
// The first k = min(m, n) columns of Q (the factors of an m x n A, lda = m).
template <typename T>
int orgqr(int m, int k, T* A, const T* tau) {
    return detail::cpu::orgqr<T>(m, k, k, A, m, tau);
}
// B of ldb = max(m, n) rows, as LAPACK's gels wants.
template <typename T>
int gels(int m, int n, int r, T* A, T* B, int ldb) {
    return detail::cpu::gels<T>('N', m, n, r, A, m, B, ldb);
}
}  // namespace

template <typename T>
VendorRun lapacke_qr(QrOp op, int64_t m, int64_t n, int64_t nrhs, const T* A, const T* B, int warmup, int repeat) {
    VendorRun r;
    r.name = "lapacke";
    const int M = static_cast<int>(m), N = static_cast<int>(n), R = static_cast<int>(nrhs);
    const int64_t ldb = std::max(m, n);
    std::vector<T> a(static_cast<size_t>(m * n)), b(op == QrOp::Gels ? static_cast<size_t>(ldb * nrhs) : 0),
        tau(static_cast<size_t>(std::max<int64_t>(std::min(m, n), 1)));
    // All OpenBLAS threads for the baseline (the Runtime leaves OpenBLAS single-threaded for its CPU codelets).
    const int before = openblas_get_num_threads();
    openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    for (int run = 0; run < warmup + repeat; ++run) {
        std::copy(A, A + m * n, a.begin());
        if (op == QrOp::Gels) std::copy(B, B + ldb * nrhs, b.begin());
        if (op == QrOp::Orgqr) r.info = geqrf(M, N, a.data(), tau.data());
        const auto t0 = std::chrono::steady_clock::now();
        switch (op) {
            case QrOp::Geqrf: r.info = geqrf(M, N, a.data(), tau.data()); break;
            case QrOp::Gels: r.info = gels(M, N, R, a.data(), b.data(), static_cast<int>(ldb)); break;
            case QrOp::Orgqr: r.info = orgqr(M, std::min(M, N), a.data(), tau.data()); break;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (run >= warmup) r.seconds.push_back(s);
    }
    openblas_set_num_threads(before);
    return r;
}

template VendorRun lapacke_qr<float>(QrOp, int64_t, int64_t, int64_t, const float*, const float*, int, int);
template VendorRun lapacke_qr<double>(QrOp, int64_t, int64_t, int64_t, const double*, const double*, int, int);

}  // namespace starfact::support
