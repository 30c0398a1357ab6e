// cuSOLVER's QR baselines of starpu_qr and the QR checks on the device (support/reference_qr.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "support/cuda_helpers.cuh"
#include "support/reference_qr.hpp"

namespace starfact::support {
namespace {

using namespace cuda;

using detail::Op;
using detail::gpu::cuda_type;
using detail::gpu::gemm;

// cuSOLVER's and cuBLAS's calls of the scalar layer (kernels/cuda_blas.hpp), with this file's fixed arguments.
/// The workspace of ormqr below.
template <typename T>
cusolverStatus_t ormqr_size(cusolverDnHandle_t h, Op op, int m, int n, int k, const T* A, int lda, const T* tau,
                            const T* C, int ldc, int* lwork) {
    return detail::gpu::ormqr_buffer_size<T>(h, detail::Side::Left, op, m, n, k, A, lda, tau, C, ldc, lwork);
}
/// C (m x n) := op(Q) C, Q the product of the k reflectors in A (m x k, lda) and tau.
template <typename T>
cusolverStatus_t ormqr(cusolverDnHandle_t h, Op op, int m, int n, int k, const T* A, int lda, const T* tau, T* C,
                       int ldc, T* work, int lwork, int* info) {
    return detail::gpu::ormqr<T>(h, detail::Side::Left, op, m, n, k, A, lda, tau, C, ldc, work, lwork, info);
}
/// The first k columns of the m x m Q of k reflectors (cuSOLVER's orgqr takes m >= n >= k: n = k here).
template <typename T>
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int k, const T* A, const T* tau, int* lwork) {
    return detail::gpu::orgqr_buffer_size<T>(h, m, k, k, A, m, tau, lwork);
}
template <typename T>
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int k, T* A, const T* tau, T* work, int lwork, int* info) {
    return detail::gpu::orgqr<T>(h, m, k, k, A, m, tau, work, lwork, info);
}
/// B (n x nrhs) := op(R)^-1 B, R the n x n upper triangle of A (lda).
template <typename T>
cublasStatus_t trsm(cublasHandle_t h, Op op, int64_t n, int64_t nrhs, const T* A, int64_t lda, T* B, int64_t ldb) {
    using namespace detail;
    return gpu::trsm<T>(h, Side::Left, Uplo::Upper, op, Diag::NonUnit, n, nrhs, T(1), A, lda, B, ldb);
}
/// B (n x m, ldb) := A^T, A m x n (lda).
template <typename T>
cublasStatus_t transpose(cublasHandle_t h, int64_t m, int64_t n, const T* A, int64_t lda, T* B, int64_t ldb) {
    return detail::gpu::geam_transpose<T>(h, n, m, A, lda, B, ldb);
}

/// out[j] = sum_i |A(i, j)| (m x n, ld), one block per column.
template <typename T>
__global__ void column_abs_sums(const T* A, int64_t ld, int64_t m, int64_t n, double* out) {
    __shared__ double partial[256];
    for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
        double s = 0;
        for (int64_t i = threadIdx.x; i < m; i += blockDim.x) s += fabs(static_cast<double>(A[i + j * ld]));
        partial[threadIdx.x] = s;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w /= 2) {
            if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[j] = partial[0];
        __syncthreads();
    }
}
/// dst (rows x cols, ld rows) := the upper trapezoid of src (i <= j), zeros below; or the identity pattern
/// (`identity`).
template <typename T>
__global__ void upper_or_identity(const T* src, int64_t lds, T* dst, int64_t rows, int64_t cols, bool identity) {
    for (int64_t j = blockIdx.x; j < cols; j += gridDim.x)
        for (int64_t i = threadIdx.x; i < rows; i += blockDim.x)
            dst[i + j * rows] = identity ? (i == j ? T(1) : T(0)) : (i <= j ? src[i + j * lds] : T(0));
}

inline unsigned grid_for(int64_t columns) {
    return static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>(columns, 1), 65535));
}

template <typename T>
double norm1(const T* A, int64_t ld, int64_t m, int64_t n) {
    if (m == 0 || n == 0) return 0;
    DevicePtr<double> sums = device_alloc<double>(static_cast<size_t>(n), "cudaMalloc(sums)");
    column_abs_sums<T><<<static_cast<unsigned>(std::min<int64_t>(n, 65535)), 256>>>(A, ld, m, n, sums.get());
    std::vector<double> h(static_cast<size_t>(n));
    ok(cudaMemcpy(h.data(), sums.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(sums)");
    double best = 0;
    for (double v : h) {
        if (std::isnan(v)) return v;
        best = std::max(best, v);
    }
    return best;
}

}  // namespace

template <typename T>
DeviceQrReference<T>::DeviceQrReference(int64_t m, int64_t n, const T* A_host, int64_t nrhs, const T* B_host, int device)
    : m_(m), n_(n), nrhs_(nrhs), device_(device) {
    const DeviceGuard on(device_);
    ok(cudaMalloc(&a_, std::max<size_t>(1, static_cast<size_t>(m * n)) * sizeof(T)), "cudaMalloc(A)");
    ok(cudaMemcpy(a_, A_host, static_cast<size_t>(m * n) * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
    if (B_host && nrhs > 0) {
        const size_t count = static_cast<size_t>(ldb() * nrhs);
        ok(cudaMalloc(&b_, count * sizeof(T)), "cudaMalloc(B)");
        ok(cudaMemcpy(b_, B_host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(B)");
    }
}

template <typename T>
DeviceQrReference<T>::~DeviceQrReference() {
    const DeviceGuard on(device_);
    cudaFree(a_);
    cudaFree(b_);
    for (T* p : scratch_) cudaFree(p);
}

template <typename T>
T* DeviceQrReference<T>::buffer(int i, int64_t count) {
    if (scratch_count_[i] < count) {
        cudaFree(scratch_[i]);
        scratch_[i] = nullptr;
        ok(cudaMalloc(&scratch_[i], static_cast<size_t>(count) * sizeof(T)), "cudaMalloc(scratch)");
        scratch_count_[i] = count;
    }
    return scratch_[i];
}

template <typename T>
VendorRun DeviceQrReference<T>::cusolver(QrOp op, int warmup, int repeat, bool from_host) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = from_host ? "cusolver+copies" : "cusolver";
    const Solver s(true);
    const BlasHandle blas = new_blas();
    ok(cublasSetStream(blas.get(), s.stream.get()), "cublasSetStream");
    // gels of a wide A (the minimum-norm solution) factors A^T (n x m): QR of the matrix `work` holds, fm x fn.
    const bool wide_gels = op == QrOp::Gels && m_ < n_;
    const int64_t fm = wide_gels ? n_ : m_, fn = wide_gels ? m_ : n_, k = std::min(m_, n_), ldb = this->ldb();
    T* work = buffer(0, m_ * n_);
    T* rhs = op == QrOp::Gels ? buffer(1, ldb * nrhs_) : nullptr;
    const DevicePtr<T> tau = device_alloc<T>(static_cast<size_t>(std::max<int64_t>(k, 1)), "cudaMalloc(tau)");
    const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXgeqrf_bufferSize(s.handle.get(), s.params.get(), fm, fn, cuda_type<T>(), work, fm, cuda_type<T>(),
                                   tau.get(), cuda_type<T>(), &dev_bytes, &host_bytes),
       "cusolverDnXgeqrf_bufferSize");
    // Tall gels: Q^T B (m x nrhs); wide: Q [Y; 0] (n x nrhs), Q the n x n one of A^T's m reflectors.
    const Op apply = wide_gels ? Op::NoTrans : detail::adjoint_op<detail::is_complex_v<T>>();
    int lwork = 0;
    if (op == QrOp::Gels)
        ok(ormqr_size(s.handle.get(), apply, static_cast<int>(fm), static_cast<int>(nrhs_), static_cast<int>(k), work,
                      static_cast<int>(fm), tau.get(), rhs, static_cast<int>(ldb), &lwork),
           "cusolverDn<t>ormqr_bufferSize");
    if (op == QrOp::Orgqr)
        ok(orgqr_size(s.handle.get(), static_cast<int>(m_), static_cast<int>(k), work, tau.get(), &lwork),
           "cusolverDn<t>orgqr_bufferSize");
    const DevicePtr<char> dwork = device_alloc<char>(dev_bytes + 1, "cudaMalloc(workspace)");
    std::vector<char> hwork(host_bytes + 1);
    const DevicePtr<T> lwork_buf = device_alloc<T>(static_cast<size_t>(lwork) + 1, "cudaMalloc(workspace)");
    auto factor = [&] {
        ok(cusolverDnXgeqrf(s.handle.get(), s.params.get(), fm, fn, cuda_type<T>(), work, fm, cuda_type<T>(), tau.get(),
                            cuda_type<T>(), dwork.get(), dev_bytes, hwork.data(), host_bytes, dinfo.get()),
           "cusolverDnXgeqrf");
    };
    // The host user's arrays (from_host): A, then B, pinned.
    from_host = from_host && (op == QrOp::Geqrf || (op == QrOp::Gels && !wide_gels));
    const size_t a_bytes = static_cast<size_t>(m_ * n_) * sizeof(T), b_bytes = rhs ? static_cast<size_t>(ldb * nrhs_) * sizeof(T) : 0;
    PinnedPtr<T> pinned;
    if (from_host) {
        T* p = nullptr;
        ok(cudaMallocHost(&p, a_bytes + b_bytes), "cudaMallocHost");
        pinned.reset(p);
        ok(cudaMemcpy(p, a_, a_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(A)");
        if (rhs) ok(cudaMemcpy(p + m_ * n_, b_, b_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(B)");
    }
    auto copy = [&](void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
        ok(cudaMemcpyAsync(to, from, bytes, kind, s.stream.get()), "cudaMemcpy(host arrays)");
    };
    if (from_host) {
        r.seconds = timed_runs(
            s.stream.get(), warmup, repeat, [] {},
            [&] {
                copy(work, pinned.get(), a_bytes, cudaMemcpyHostToDevice);
                if (rhs) copy(rhs, pinned.get() + m_ * n_, b_bytes, cudaMemcpyHostToDevice);
                factor();
                if (rhs) {
                    ok(ormqr(s.handle.get(), apply, m_, nrhs_, n_, work, m_, tau.get(), rhs, ldb, lwork_buf.get(),
                             lwork, dinfo.get()),
                       "cusolverDn<t>ormqr");
                    ok(trsm(blas.get(), Op::NoTrans, n_, nrhs_, work, m_, rhs, ldb), "cublas<t>trsm");
                    copy(pinned.get() + m_ * n_, rhs, b_bytes, cudaMemcpyDeviceToHost);
                } else {
                    copy(pinned.get(), work, a_bytes, cudaMemcpyDeviceToHost);
                }
            });
        ok(cudaMemcpy(&r.info, dinfo.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
        return r;
    }
    r.seconds = timed_runs(
        s.stream.get(), warmup, repeat,
        [&] {
            if (!wide_gels)
                ok(cudaMemcpyAsync(work, a_, static_cast<size_t>(m_ * n_) * sizeof(T), cudaMemcpyDeviceToDevice,
                                   s.stream.get()),
                   "cudaMemcpy(A)");
            if (rhs)
                ok(cudaMemcpyAsync(rhs, b_, static_cast<size_t>(ldb * nrhs_) * sizeof(T), cudaMemcpyDeviceToDevice,
                                   s.stream.get()),
                   "cudaMemcpy(B)");
            if (op == QrOp::Orgqr) factor();
        },
        [&] {
            if (wide_gels) ok(transpose(blas.get(), m_, n_, a_, m_, work, n_), "cublas<t>geam(A^T)");
            if (op != QrOp::Orgqr) factor();
            if (op == QrOp::Gels && !wide_gels) {  // X = R^-1 (Q^T B)
                ok(ormqr(s.handle.get(), apply, m_, nrhs_, n_, work, m_, tau.get(), rhs, ldb, lwork_buf.get(), lwork,
                         dinfo.get()),
                   "cusolverDn<t>ormqr");
                ok(trsm(blas.get(), Op::NoTrans, n_, nrhs_, work, m_, rhs, ldb), "cublas<t>trsm");
            }
            if (wide_gels) {  // A = R^T Q^T: Y = R^-T B(0:m), then X = Q [Y; 0]
                ok(trsm(blas.get(), Op::Trans, m_, nrhs_, work, n_, rhs, ldb), "cublas<t>trsm(R^T)");
                ok(cudaMemset2DAsync(rhs + m_, sizeof(T) * ldb, 0, sizeof(T) * (n_ - m_), nrhs_, s.stream.get()),
                   "cudaMemset2D(B(m:n))");
                ok(ormqr(s.handle.get(), apply, n_, nrhs_, m_, work, n_, tau.get(), rhs, ldb, lwork_buf.get(), lwork,
                         dinfo.get()),
                   "cusolverDn<t>ormqr");
            }
            if (op == QrOp::Orgqr)
                ok(orgqr(s.handle.get(), m_, k, work, tau.get(), lwork_buf.get(), lwork, dinfo.get()),
                   "cusolverDn<t>orgqr");
        });
    ok(cudaMemcpy(&r.info, dinfo.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    return r;
}

template <typename T>
void DeviceQrReference<T>::check_qr(const TileMatrix<T>& F, const TileMatrix<T>& Q, double* orthogonality,
                                    double* factorization) {
    const DeviceGuard on(device_);
    const double eps = std::numeric_limits<T>::epsilon(), m = static_cast<double>(m_);
    const int64_t k = std::min(m_, n_);  // Q: m x k; R: k x n, upper trapezoidal
    T* f = buffer(0, m_ * n_);
    T* q = buffer(1, m_ * k);
    T* w = buffer(2, m_ * n_);
    T* g = buffer(3, k * std::max(k, n_));
    F.export_to(f, m_);
    Q.export_to(q, m_);
    const BlasHandle h = new_blas();
    // I - Q^T Q
    upper_or_identity<T><<<grid_for(k), 256>>>(nullptr, 1, g, k, k, true);
    ok(gemm<T>(h.get(), Op::Trans, Op::NoTrans, k, k, m_, T(-1), q, m_, q, m_, T(1), g, k), "cublas<t>gemm(Q^T Q)");
    *orthogonality = norm1(g, k, k, k) / (m * eps);
    // A - Q R
    upper_or_identity<T><<<grid_for(n_), 256>>>(f, m_, g, k, n_, false);
    ok(cudaMemcpy(w, a_, static_cast<size_t>(m_ * n_) * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy(A)");
    ok(gemm<T>(h.get(), Op::NoTrans, Op::NoTrans, m_, n_, k, T(-1), q, m_, g, k, T(1), w, m_), "cublas<t>gemm(Q R)");
    const double na = norm1(a_, m_, m_, n_);
    *factorization = norm1(w, m_, m_, n_) / ((na > 0 ? na : 1.0) * m * eps);
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <typename T>
double DeviceQrReference<T>::check_gels(const TileMatrix<T>& X) {
    const DeviceGuard on(device_);
    const double eps = std::numeric_limits<T>::epsilon(), m = static_cast<double>(m_);
    const int64_t ldb = this->ldb();  // X: n x nrhs in the first rows of ldb
    T* x = buffer(0, ldb * nrhs_);
    T* r = buffer(1, m_ * nrhs_);
    T* g = buffer(2, n_ * nrhs_);
    X.export_to(x, ldb);
    const BlasHandle h = new_blas();
    ok(cudaMemcpy2D(r, sizeof(T) * m_, b_, sizeof(T) * ldb, sizeof(T) * m_, nrhs_, cudaMemcpyDeviceToDevice),
       "cudaMemcpy(B)");
    ok(gemm<T>(h.get(), Op::NoTrans, Op::NoTrans, m_, nrhs_, n_, T(1), a_, m_, x, ldb, T(-1), r, m_),
       "cublas<t>gemm(AX-B)");
    ok(gemm<T>(h.get(), Op::Trans, Op::NoTrans, n_, nrhs_, m_, T(1), a_, m_, r, m_, T(0), g, n_),
       "cublas<t>gemm(A^T r)");
    const double na = norm1(a_, m_, m_, n_), nx = norm1(x, ldb, n_, nrhs_), nb = norm1(b_, ldb, m_, nrhs_);
    const double den = na * (na * nx + nb) * m * eps;
    return norm1(g, n_, n_, nrhs_) / (den > 0 ? den : 1.0);
}

template class DeviceQrReference<float>;
template class DeviceQrReference<double>;

}  // namespace starfact::support
