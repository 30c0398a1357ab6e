// GPU baselines: cusolverDnXpotrf (starpu_chol) and cusolverDnXgetrf (starpu_lu) on device-resident data,
// timed with CUDA events, and Cholesky residuals ||A - L L^T||_1 / (||A||_1 n eps) computed on the device
// with cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/reference.hpp"

namespace starfact::examples {
namespace {

void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
void ok(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(s));
}

template <typename T> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }

inline cublasStatus_t syrk(cublasHandle_t h, int64_t n, const float* A, float* C) {
    const float alpha = -1, beta = 1;
    return cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, n, &alpha, A, n, &beta, C, n);
}
inline cublasStatus_t syrk(cublasHandle_t h, int64_t n, const double* A, double* C) {
    const double alpha = -1, beta = 1;
    return cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, n, &alpha, A, n, &beta, C, n);
}

inline cusolverStatus_t potri_buffer_size(cusolverDnHandle_t h, int n, float* A, int* lwork) {
    return cusolverDnSpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lwork);
}
inline cusolverStatus_t potri_buffer_size(cusolverDnHandle_t h, int n, double* A, int* lwork) {
    return cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lwork);
}
inline cusolverStatus_t potrf_buffer_size(cusolverDnHandle_t h, int n, float* A, int* lwork) {
    return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lwork);
}
inline cusolverStatus_t potrf_buffer_size(cusolverDnHandle_t h, int n, double* A, int* lwork) {
    return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lwork);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* A, float* work, int lwork, int* info) {
    return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);
}
inline cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* A, double* work, int lwork, int* info) {
    return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);
}
inline cusolverStatus_t potri(cusolverDnHandle_t h, int n, float* A, float* work, int lwork, int* info) {
    return cusolverDnSpotri(h, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);
}
inline cusolverStatus_t potri(cusolverDnHandle_t h, int n, double* A, double* work, int lwork, int* info) {
    return cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);
}
/// C := B X + beta C with X symmetric (lower triangle read), all n x n with ld = n.
inline cublasStatus_t symm_right(cublasHandle_t h, int64_t n, const float* X, const float* B, float beta, float* C) {
    const float one = 1;
    return cublasSsymm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, n, n, &one, X, n, B, n, &beta, C, n);
}
inline cublasStatus_t symm_right(cublasHandle_t h, int64_t n, const double* X, const double* B, double beta,
                                 double* C) {
    const double one = 1;
    return cublasDsymm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, n, n, &one, X, n, B, n, &beta, C, n);
}

template <typename T>
__global__ void set_identity(T* A, int64_t n) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            A[i + j * n] = i == j ? T(1) : T(0);
}

/// col[j] = sum_i |A(i, j)| of a general n x n matrix (one block per column).
template <typename T>
__global__ void ge_colsums(const T* A, int64_t n, double* col) {
    const int64_t j = blockIdx.x;
    double own = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) own += fabs(static_cast<double>(A[i + j * n]));
    for (int off = 16; off > 0; off /= 2) own += __shfl_down_sync(0xffffffff, own, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(&col[j], own);
}

template <typename T>
__global__ void zero_upper(T* A, int64_t n) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < j; i += gridDim.x * blockDim.x) A[i + j * n] = T(0);
}

/// col[j] += sum over the symmetric matrix's column j, from its lower triangle.
template <typename T>
__global__ void sym_colsums(const T* A, int64_t n, double* col) {
    const int64_t j = blockIdx.x;
    double own = 0;
    for (int64_t i = j + threadIdx.x; i < n; i += blockDim.x) {
        const double v = fabs(static_cast<double>(A[i + j * n]));
        own += v;
        if (i != j) atomicAdd(&col[i], v);  // mirror entry (j, i) belongs to column i
    }
    for (int off = 16; off > 0; off /= 2) own += __shfl_down_sync(0xffffffff, own, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(&col[j], own);
}

/// max over columns of the column sums that `colsums` (one block per column, 256 threads) adds into col; NaN wins.
template <typename Launch>
double max_column_sum(int64_t n, Launch colsums) {
    double* col = nullptr;
    ok(cudaMalloc(&col, n * sizeof(double)), "cudaMalloc");
    ok(cudaMemset(col, 0, n * sizeof(double)), "cudaMemset");
    colsums(col);
    std::vector<double> h(n);
    ok(cudaMemcpy(h.data(), col, n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(col);
    double norm = 0;
    for (double c : h) norm = std::isnan(c) || std::isnan(norm) ? NAN : std::max(norm, c);
    return norm;
}

template <typename T>
double sym_norm1(const T* dA, int64_t n) {
    return max_column_sum(n, [&](double* col) { sym_colsums<T><<<n, 256>>>(dA, n, col); });
}

template <typename T>
double ge_norm1(const T* dA, int64_t n) {
    return max_column_sum(n, [&](double* col) { ge_colsums<T><<<n, 256>>>(dA, n, col); });
}

}  // namespace

template <typename T>
DeviceReference<T>::DeviceReference(int64_t n, const T* A_host) : n_(n) {
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(T);
    ok(cudaMalloc(&orig_, bytes), "cudaMalloc(A)");
    ok(cudaMalloc(&work_, bytes), "cudaMalloc(work)");
    ok(cudaMalloc(&tmp_, bytes), "cudaMalloc(tmp)");
    ok(cudaMemcpy(orig_, A_host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(A)");
}

template <typename T>
DeviceReference<T>::~DeviceReference() {
    cudaFree(orig_);
    cudaFree(work_);
    cudaFree(tmp_);
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_potrf(int warmup, int repeat, bool check, bool host_path) {
    VendorRun r;
    r.name = host_path ? "cusolver+copies" : "cusolver";
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    cudaStream_t stream;
    ok(cusolverDnCreate(&h), "cusolverDnCreate");
    ok(cusolverDnCreateParams(&params), "cusolverDnCreateParams");
    ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    ok(cusolverDnSetStream(h, stream), "cusolverDnSetStream");
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n_, cuda_type<T>(), work_, n_, cuda_type<T>(),
                                   &dev_bytes, &host_bytes),
       "cusolverDnXpotrf_bufferSize");
    void* dwork = nullptr;
    int* dinfo = nullptr;
    ok(cudaMalloc(&dwork, dev_bytes + 1), "cudaMalloc(workspace)");
    ok(cudaMalloc(&dinfo, sizeof(int)), "cudaMalloc(info)");
    std::vector<char> hwork(host_bytes + 1);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const size_t bytes = static_cast<size_t>(n_) * n_ * sizeof(T);
    T* pinned = nullptr;  // the host user's matrix (host_path)
    if (host_path) ok(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    for (int run = 0; run < warmup + repeat; ++run) {
        if (host_path) {
            ok(cudaMemcpy(pinned, orig_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");
        } else {
            ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy(D2D)");
        }
        cudaEventRecord(e0, stream);
        if (host_path) ok(cudaMemcpyAsync(work_, pinned, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpy(H2D)");
        ok(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n_, cuda_type<T>(), work_, n_, cuda_type<T>(), dwork,
                            dev_bytes, hwork.data(), host_bytes, dinfo),
           "cusolverDnXpotrf");
        if (host_path) ok(cudaMemcpyAsync(pinned, work_, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpy(D2H)");
        cudaEventRecord(e1, stream);
        ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (run >= warmup) r.seconds.push_back(ms * 1e-3);
    }
    ok(cudaMemcpy(&r.info, dinfo, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(dwork);
    cudaFree(dinfo);
    cudaFreeHost(pinned);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    cudaStreamDestroy(stream);
    if (check && r.info == 0) r.residual = residual_of_work();
    return r;
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_getrf(int warmup, int repeat) {
    VendorRun r;
    r.name = "cusolver";
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    cudaStream_t stream;
    ok(cusolverDnCreate(&h), "cusolverDnCreate");
    ok(cusolverDnCreateParams(&params), "cusolverDnCreateParams");
    ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    ok(cusolverDnSetStream(h, stream), "cusolverDnSetStream");
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXgetrf_bufferSize(h, params, n_, n_, cuda_type<T>(), work_, n_, cuda_type<T>(), &dev_bytes,
                                   &host_bytes),
       "cusolverDnXgetrf_bufferSize");
    void* dwork = nullptr;
    int* dinfo = nullptr;
    int64_t* dipiv = nullptr;
    ok(cudaMalloc(&dwork, dev_bytes + 1), "cudaMalloc(workspace)");
    ok(cudaMalloc(&dinfo, sizeof(int)), "cudaMalloc(info)");
    ok(cudaMalloc(&dipiv, static_cast<size_t>(n_) * sizeof(int64_t)), "cudaMalloc(ipiv)");
    std::vector<char> hwork(host_bytes + 1);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const size_t bytes = static_cast<size_t>(n_) * n_ * sizeof(T);
    for (int run = 0; run < warmup + repeat; ++run) {
        ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy(D2D)");
        cudaEventRecord(e0, stream);
        ok(cusolverDnXgetrf(h, params, n_, n_, cuda_type<T>(), work_, n_, dipiv, cuda_type<T>(), dwork, dev_bytes,
                            hwork.data(), host_bytes, dinfo),
           "cusolverDnXgetrf");
        cudaEventRecord(e1, stream);
        ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (run >= warmup) r.seconds.push_back(ms * 1e-3);
    }
    ok(cudaMemcpy(&r.info, dinfo, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(dwork);
    cudaFree(dinfo);
    cudaFree(dipiv);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    cudaStreamDestroy(stream);
    return r;
}

template <typename T>
double DeviceReference<T>::residual_of(const TileMatrix<T>& L) {
    L.export_to(work_, n_);
    return residual_of_work();
}

template <typename T>
double DeviceReference<T>::residual_of_device(const T* L, int64_t ld) {
    ok(cudaMemcpy2D(work_, n_ * sizeof(T), L, ld * sizeof(T), n_ * sizeof(T), n_, cudaMemcpyDeviceToDevice),
       "cudaMemcpy2D(L)");
    return residual_of_work();
}

template <typename T>
double DeviceReference<T>::residual_of_work() {
    const size_t bytes = static_cast<size_t>(n_) * n_ * sizeof(T);
    const unsigned gx = static_cast<unsigned>(std::min<int64_t>(64, (n_ + 255) / 256));
    const unsigned gy = static_cast<unsigned>(std::min<int64_t>(65535, n_));
    zero_upper<T><<<dim3(gx, gy), 256>>>(work_, n_);
    ok(cudaGetLastError(), "zero_upper");
    ok(cudaMemcpy(tmp_, orig_, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy(D2D)");
    cublasHandle_t h;
    ok(cublasCreate(&h), "cublasCreate");
    ok(syrk(h, n_, work_, tmp_), "cublas<t>syrk");  // tmp = A - L L^T (lower)
    ok(cudaDeviceSynchronize(), "syrk");
    cublasDestroy(h);
    const double num = sym_norm1(tmp_, n_), den = sym_norm1(orig_, n_);
    const double eps = std::numeric_limits<T>::epsilon();
    return num / (den * static_cast<double>(n_) * eps);
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_potri(int warmup, int repeat, bool check) {
    VendorRun r;
    r.name = "cusolver";
    cusolverDnHandle_t h;
    cudaStream_t stream;
    ok(cusolverDnCreate(&h), "cusolverDnCreate");
    ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    ok(cusolverDnSetStream(h, stream), "cusolverDnSetStream");
    const int n = static_cast<int>(n_);
    int lwork_f = 0, lwork_i = 0;
    ok(potrf_buffer_size(h, n, work_, &lwork_f), "cusolverDn<t>potrf_bufferSize");
    ok(potri_buffer_size(h, n, work_, &lwork_i), "cusolverDn<t>potri_bufferSize");
    const int lwork = std::max(std::max(lwork_f, lwork_i), 1);
    T* dwork = nullptr;
    int* dinfo = nullptr;
    ok(cudaMalloc(&dwork, static_cast<size_t>(lwork) * sizeof(T)), "cudaMalloc(workspace)");
    ok(cudaMalloc(&dinfo, 2 * sizeof(int)), "cudaMalloc(info)");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const size_t bytes = static_cast<size_t>(n_) * n_ * sizeof(T);
    int infos[2] = {0, 0};
    for (int run = 0; run < warmup + repeat; ++run) {
        ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy(D2D)");
        cudaEventRecord(e0, stream);
        ok(potrf(h, n, work_, dwork, lwork, dinfo), "cusolverDn<t>potrf");
        ok(potri(h, n, work_, dwork, lwork, dinfo + 1), "cusolverDn<t>potri");
        cudaEventRecord(e1, stream);
        ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (run >= warmup) r.seconds.push_back(ms * 1e-3);
    }
    ok(cudaMemcpy(infos, dinfo, 2 * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    r.info = infos[0] != 0 ? infos[0] : infos[1];
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(dwork);
    cudaFree(dinfo);
    cusolverDnDestroy(h);
    cudaStreamDestroy(stream);
    if (check && r.info == 0) r.residual = inverse_residual_of_work();
    return r;
}

template <typename T>
double DeviceReference<T>::inverse_residual_of(const TileMatrix<T>& X) {
    X.export_to(work_, n_);
    return inverse_residual_of_work();
}

template <typename T>
double DeviceReference<T>::inverse_residual_of_work() {
    const unsigned gx = static_cast<unsigned>(std::min<int64_t>(64, (n_ + 255) / 256));
    const unsigned gy = static_cast<unsigned>(std::min<int64_t>(65535, n_));
    set_identity<T><<<dim3(gx, gy), 256>>>(tmp_, n_);
    ok(cudaGetLastError(), "set_identity");
    cublasHandle_t h;
    ok(cublasCreate(&h), "cublasCreate");
    ok(symm_right(h, n_, work_, orig_, T(-1), tmp_), "cublas<t>symm");  // tmp = A X - I (orig_ holds all of A)
    ok(cudaDeviceSynchronize(), "symm");
    cublasDestroy(h);
    const double num = ge_norm1(tmp_, n_), den = sym_norm1(orig_, n_) * sym_norm1(work_, n_);
    const double eps = std::numeric_limits<T>::epsilon();
    return num / (den * static_cast<double>(n_) * eps);
}

template class DeviceReference<float>;
template class DeviceReference<double>;

inline cublasStatus_t gemm(cublasHandle_t h, int64_t n, const float* A, const float* B, float* C) {
    const float one = 1, zero = 0;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}
inline cublasStatus_t gemm(cublasHandle_t h, int64_t n, const double* A, const double* B, double* C) {
    const double one = 1, zero = 0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}

template <typename T>
double cublas_gemm_tflops(int64_t n, int repeat) {
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(T);
    T *A = nullptr, *C = nullptr;
    ok(cudaMalloc(&A, bytes), "cudaMalloc");
    ok(cudaMalloc(&C, bytes), "cudaMalloc");
    // Random-looking data (never time products of zeros): a non-trivial bit pattern, finite values.
    std::vector<T> h(static_cast<size_t>(n) * n);
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<T>((i * 2654435761u % 1000) / 1000.0 - 0.5);
    ok(cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    cublasHandle_t handle;
    ok(cublasCreate(&handle), "cublasCreate");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> t;
    for (int r = 0; r < repeat + 2; ++r) {
        cudaEventRecord(e0);
        ok(gemm(handle, n, A, A, C), "cublas<t>gemm");
        cudaEventRecord(e1);
        ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 2) t.push_back(ms * 1e-3);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cublasDestroy(handle);
    cudaFree(A);
    cudaFree(C);
    std::sort(t.begin(), t.end());
    return 2.0 * double(n) * double(n) * double(n) / t[t.size() / 2] * 1e-12;
}
template double cublas_gemm_tflops<float>(int64_t, int);
template double cublas_gemm_tflops<double>(int64_t, int);

}  // namespace starfact::examples
