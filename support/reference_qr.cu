// cuSOLVER's QR baselines of starpu_qr and the QR checks on the device (support/reference_qr.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "support/cuda_helpers.cuh"
#include "support/reference_qr.hpp"

namespace starfact::support {
namespace {

using namespace cuda;

template <typename T> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }

inline cusolverStatus_t ormqr_size(cusolverDnHandle_t h, int m, int n, int k, const float* A, const float* tau,
                                   const float* C, int* lwork) {
    return cusolverDnSormqr_bufferSize(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, k, A, m, tau, C, m, lwork);
}
inline cusolverStatus_t ormqr_size(cusolverDnHandle_t h, int m, int n, int k, const double* A, const double* tau,
                                   const double* C, int* lwork) {
    return cusolverDnDormqr_bufferSize(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, k, A, m, tau, C, m, lwork);
}
inline cusolverStatus_t ormqr(cusolverDnHandle_t h, int m, int n, int k, const float* A, const float* tau, float* C,
                              float* work, int lwork, int* info) {
    return cusolverDnSormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, k, A, m, tau, C, m, work, lwork, info);
}
inline cusolverStatus_t ormqr(cusolverDnHandle_t h, int m, int n, int k, const double* A, const double* tau, double* C,
                              double* work, int lwork, int* info) {
    return cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, k, A, m, tau, C, m, work, lwork, info);
}
inline cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, const float* A, const float* tau, int* lwork) {
    return cusolverDnSorgqr_bufferSize(h, m, n, n, A, m, tau, lwork);
}
inline cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, const double* A, const double* tau, int* lwork) {
    return cusolverDnDorgqr_bufferSize(h, m, n, n, A, m, tau, lwork);
}
inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, float* A, const float* tau, float* work, int lwork,
                              int* info) {
    return cusolverDnSorgqr(h, m, n, n, A, m, tau, work, lwork, info);
}
inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, double* A, const double* tau, double* work, int lwork,
                              int* info) {
    return cusolverDnDorgqr(h, m, n, n, A, m, tau, work, lwork, info);
}
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                           int64_t k, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                           float* C, int64_t ldc) {
    return cublasSgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                           int64_t k, double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                           double beta, double* C, int64_t ldc) {
    return cublasDgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
inline cublasStatus_t trsm(cublasHandle_t h, int64_t n, int64_t nrhs, const float* A, int64_t lda, float* B,
                           int64_t ldb) {
    const float one = 1;
    return cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs, &one, A,
                       lda, B, ldb);
}
inline cublasStatus_t trsm(cublasHandle_t h, int64_t n, int64_t nrhs, const double* A, int64_t lda, double* B,
                           int64_t ldb) {
    const double one = 1;
    return cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs, &one, A,
                       lda, B, ldb);
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
/// dst (n x n) := the upper triangle of src, zeros below; or the identity (`identity`).
template <typename T>
__global__ void upper_or_identity(const T* src, int64_t lds, T* dst, int64_t n, bool identity) {
    for (int64_t j = blockIdx.x; j < n; j += gridDim.x)
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
            dst[i + j * n] = identity ? (i == j ? T(1) : T(0)) : (i <= j ? src[i + j * lds] : T(0));
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
        ok(cudaMalloc(&b_, static_cast<size_t>(m * nrhs) * sizeof(T)), "cudaMalloc(B)");
        ok(cudaMemcpy(b_, B_host, static_cast<size_t>(m * nrhs) * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(B)");
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
VendorRun DeviceQrReference<T>::cusolver(QrOp op, int warmup, int repeat) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = "cusolver";
    const Solver s(true);
    const BlasHandle blas = new_blas();
    ok(cublasSetStream(blas.get(), s.stream.get()), "cublasSetStream");
    T* work = buffer(0, m_ * n_);
    T* rhs = op == QrOp::Gels ? buffer(1, m_ * nrhs_) : nullptr;
    const DevicePtr<T> tau = device_alloc<T>(static_cast<size_t>(std::max<int64_t>(n_, 1)), "cudaMalloc(tau)");
    const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXgeqrf_bufferSize(s.handle.get(), s.params.get(), m_, n_, cuda_type<T>(), work, m_, cuda_type<T>(),
                                   tau.get(), cuda_type<T>(), &dev_bytes, &host_bytes),
       "cusolverDnXgeqrf_bufferSize");
    int lwork = 0;
    if (op == QrOp::Gels)
        ok(ormqr_size(s.handle.get(), m_, nrhs_, n_, work, tau.get(), rhs, &lwork), "cusolverDn<t>ormqr_bufferSize");
    if (op == QrOp::Orgqr) ok(orgqr_size(s.handle.get(), m_, n_, work, tau.get(), &lwork), "cusolverDn<t>orgqr_bufferSize");
    const DevicePtr<char> dwork = device_alloc<char>(dev_bytes + 1, "cudaMalloc(workspace)");
    std::vector<char> hwork(host_bytes + 1);
    const DevicePtr<T> lwork_buf = device_alloc<T>(static_cast<size_t>(lwork) + 1, "cudaMalloc(workspace)");
    auto factor = [&] {
        ok(cusolverDnXgeqrf(s.handle.get(), s.params.get(), m_, n_, cuda_type<T>(), work, m_, cuda_type<T>(), tau.get(),
                            cuda_type<T>(), dwork.get(), dev_bytes, hwork.data(), host_bytes, dinfo.get()),
           "cusolverDnXgeqrf");
    };
    r.seconds = timed_runs(
        s.stream.get(), warmup, repeat,
        [&] {
            ok(cudaMemcpyAsync(work, a_, static_cast<size_t>(m_ * n_) * sizeof(T), cudaMemcpyDeviceToDevice,
                               s.stream.get()),
               "cudaMemcpy(A)");
            if (rhs)
                ok(cudaMemcpyAsync(rhs, b_, static_cast<size_t>(m_ * nrhs_) * sizeof(T), cudaMemcpyDeviceToDevice,
                                   s.stream.get()),
                   "cudaMemcpy(B)");
            if (op == QrOp::Orgqr) factor();
        },
        [&] {
            if (op != QrOp::Orgqr) factor();
            if (op == QrOp::Gels) {
                ok(ormqr(s.handle.get(), m_, nrhs_, n_, work, tau.get(), rhs, lwork_buf.get(), lwork, dinfo.get()),
                   "cusolverDn<t>ormqr");
                ok(trsm(blas.get(), n_, nrhs_, work, m_, rhs, m_), "cublas<t>trsm");
            }
            if (op == QrOp::Orgqr)
                ok(orgqr(s.handle.get(), m_, n_, work, tau.get(), lwork_buf.get(), lwork, dinfo.get()),
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
    T* f = buffer(0, m_ * n_);
    T* q = buffer(1, m_ * n_);
    T* w = buffer(2, m_ * n_);
    T* g = buffer(3, n_ * n_);
    F.export_to(f, m_);
    Q.export_to(q, m_);
    const BlasHandle h = new_blas();
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>(n_, 1), 65535));
    // I - Q^T Q
    upper_or_identity<T><<<blocks, 256>>>(nullptr, 1, g, n_, true);
    ok(gemm(h.get(), CUBLAS_OP_T, CUBLAS_OP_N, n_, n_, m_, T(-1), q, m_, q, m_, T(1), g, n_), "cublas<t>gemm(Q^T Q)");
    *orthogonality = norm1(g, n_, n_, n_) / (m * eps);
    // A - Q R
    upper_or_identity<T><<<blocks, 256>>>(f, m_, g, n_, false);
    ok(cudaMemcpy(w, a_, static_cast<size_t>(m_ * n_) * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy(A)");
    ok(gemm(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, m_, n_, n_, T(-1), q, m_, g, n_, T(1), w, m_), "cublas<t>gemm(Q R)");
    const double na = norm1(a_, m_, m_, n_);
    *factorization = norm1(w, m_, m_, n_) / ((na > 0 ? na : 1.0) * m * eps);
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <typename T>
double DeviceQrReference<T>::check_gels(const TileMatrix<T>& X) {
    const DeviceGuard on(device_);
    const double eps = std::numeric_limits<T>::epsilon(), m = static_cast<double>(m_);
    T* x = buffer(0, m_ * nrhs_);
    T* r = buffer(1, m_ * nrhs_);
    T* g = buffer(2, n_ * nrhs_);
    X.export_to(x, m_);
    const BlasHandle h = new_blas();
    ok(cudaMemcpy(r, b_, static_cast<size_t>(m_ * nrhs_) * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy(B)");
    ok(gemm(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, m_, nrhs_, n_, T(1), a_, m_, x, m_, T(-1), r, m_), "cublas<t>gemm(AX-B)");
    ok(gemm(h.get(), CUBLAS_OP_T, CUBLAS_OP_N, n_, nrhs_, m_, T(1), a_, m_, r, m_, T(0), g, n_), "cublas<t>gemm(A^T r)");
    const double na = norm1(a_, m_, m_, n_), nx = norm1(x, m_, n_, nrhs_), nb = norm1(b_, m_, m_, nrhs_);
    const double den = na * (na * nx + nb) * m * eps;
    return norm1(g, n_, n_, nrhs_) / (den > 0 ? den : 1.0);
}

template class DeviceQrReference<float>;
template class DeviceQrReference<double>;

}  // namespace starfact::support
