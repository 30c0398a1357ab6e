// The vendor baselines of starpu_qr (not part of the library API): LAPACKE geqrf / gels / orgqr on the host, and
// cuSOLVER's on a device copy of the matrix (tall, square and wide), and the QR checks computed on the GPU with
// cuBLAS (the host checks of include/starfact/qr.hpp take seconds from n = 16384 on).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "starfact/tile_matrix.hpp"
#include "support/reference.hpp"

namespace starfact::support {

/// The QR operations starpu_qr times: geqrf; gels (geqrf, Q^T B, R X = B); orgqr (the thin Q after geqrf).
enum class QrOp { Geqrf, Gels, Orgqr };
const char* to_string(QrOp op);
/// The cuSOLVER / cuBLAS calls of DeviceQrReference::cusolver for op on an m x n matrix, for the driver's note.
std::string cusolver_qr_calls(QrOp op, int64_t m, int64_t n);

/// LAPACKE's op (multithreaded OpenBLAS) on copies of the host arrays (A m x n; for gels B max(m, n) x nrhs, its
/// first m rows the right-hand sides, as LAPACK's), one call per run: dgeqrf, dgels (m < n: the minimum-norm
/// solution), dorgqr (the first min(m, n) columns of Q, after an untimed dgeqrf).
template <typename T>
VendorRun lapacke_qr(QrOp op, int64_t m, int64_t n, int64_t nrhs, const T* A, const T* B, int warmup, int repeat);

#ifdef STARFACT_HAVE_CUDA
/// A (m x n, any shape) and B (max(m, n) x nrhs, its first m rows the right-hand sides, as LAPACK's gels takes it)
/// in the memory of one GPU (`device`), the cuSOLVER baselines timed with CUDA events, and the checks on the
/// device: ||I - Q^T Q||_1 / (m eps), ||A - Q R||_1 / (||A||_1 m eps), and for gels
/// ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps).
template <typename T>
class DeviceQrReference {
public:
    DeviceQrReference(int64_t m, int64_t n, const T* A_host, int64_t nrhs, const T* B_host, int device = 0);
    ~DeviceQrReference();
    DeviceQrReference(const DeviceQrReference&) = delete;
    DeviceQrReference& operator=(const DeviceQrReference&) = delete;

    int device() const { return device_; }
    /// A (ld m) and B (ld max(m, n)) on the device, column-major.
    const T* a() const { return a_; }
    const T* b() const { return b_; }
    int64_t ldb() const { return std::max(m_, n_); }
    /// What a cuSOLVER user would call, on the same data. geqrf: cusolverDnXgeqrf (m < n too: R upper trapezoidal).
    /// gels, m >= n: Xgeqrf + cusolverDn<t>ormqr (Q^T B) + cublas<t>trsm (R X = Q^T B); m < n (the minimum-norm
    /// solution through the QR of A^T, as starfact computes it): cublas<t>geam (A^T) + Xgeqrf of the n x m A^T +
    /// cublas<t>trsm (R^T Y = B) + B(m:n) := 0 + cusolverDn<t>ormqr (X = Q [Y; 0]). orgqr: cusolverDn<t>orgqr of
    /// the first min(m, n) columns of Q (m x m when m < n) after an untimed Xgeqrf.
    /// `from_host` (geqrf, and gels with m >= n): what a user with host arrays does instead, the copies timed: A (and
    /// B) from pinned host memory to the device, the calls, the factors and tau (gels: the solution) back.
    VendorRun cusolver(QrOp op, int warmup, int repeat, bool from_host = false);
    /// The orthogonality and factorization residuals of the factored tiles F (R in its upper trapezoid) and the
    /// thin Q (m x min(m, n)) in Q's tiles (both exported on the device).
    void check_qr(const TileMatrix<T>& F, const TileMatrix<T>& Q, double* orthogonality, double* factorization);
    /// The least-squares residual of the solution in the first n rows of X's tiles (max(m, n) rows).
    double check_gels(const TileMatrix<T>& X);

private:
    T* buffer(int i, int64_t count);  // device scratch i (0..3) of at least `count` entries
    int64_t m_, n_, nrhs_;
    int device_;
    T* a_ = nullptr;
    T* b_ = nullptr;
    T* scratch_[4] = {nullptr, nullptr, nullptr, nullptr};
    int64_t scratch_count_[4] = {0, 0, 0, 0};
};
#endif

}  // namespace starfact::support
