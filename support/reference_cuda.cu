// GPU baselines: cusolverDnXpotrf (starpu_chol) and cusolverDnXgetrf (starpu_lu) on device-resident data,
// timed with CUDA events, and Cholesky residuals ||A - L L^T||_1 / (||A||_1 n eps) computed on the device
// with cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "kernels/random_symmetric.hpp"
#include "support/cuda_helpers.cuh"
#include "support/reference.hpp"

namespace starfact::support {
namespace {

using namespace cuda;

/// The device and host workspaces of a cusolverDnX routine, sized by `query(&dev_bytes, &host_bytes)` (one byte
/// more than asked for, so neither is empty).
struct XWorkspace {
    size_t dev_bytes = 0, host_bytes = 0;
    DevicePtr<char> dev;
    std::vector<char> host;

    template <typename Query>
    XWorkspace(Query query, const char* what) {
        ok(query(&dev_bytes, &host_bytes), what);
        dev = device_alloc<char>(dev_bytes + 1, "cudaMalloc(workspace)");
        host.resize(host_bytes + 1);
    }
};

void read_info(int* host, const int* dev, int count) {
    ok(cudaMemcpy(host, dev, count * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
}

/// The grid of the element-wise kernels over an n x n matrix (256 threads a block).
dim3 elementwise_grid(int64_t n) {
    return dim3(static_cast<unsigned>(std::min<int64_t>(64, (n + 255) / 256)),
                static_cast<unsigned>(std::min<int64_t>(65535, n)));
}

/// `call(handle)` on a cuBLAS handle of its own (default stream), then a device-wide wait.
template <typename Call>
void blas_and_wait(Call call, const char* what, const char* wait_what) {
    const BlasHandle h = new_blas();
    ok(call(h.get()), what);
    ok(cudaDeviceSynchronize(), wait_what);
}

/// A residual's norm num over den, scaled by n eps.
template <typename T>
double scaled_residual(double num, double den, int64_t n) {
    const double eps = std::numeric_limits<T>::epsilon();
    return num / (den * static_cast<double>(n) * eps);
}

using detail::gpu::cuda_type;

/// C := C - A A^T (lower triangle), all n x n with ld = n.
template <typename T>
cublasStatus_t syrk(cublasHandle_t h, int64_t n, const T* A, T* C) {
    using namespace detail;
    return gpu::syrk<T>(h, Uplo::Lower, Op::NoTrans, n, n, T(-1), A, n, T(1), C, n);
}
/// C := B X + beta C with X symmetric (lower triangle read), all n x n with ld = n.
template <typename T>
cublasStatus_t symm_right(cublasHandle_t h, int64_t n, const T* X, const T* B, T beta, T* C) {
    using namespace detail;
    return gpu::symm<T>(h, Side::Right, Uplo::Lower, n, n, T(1), X, n, B, n, beta, C, n);
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
    std::vector<double> h(n);
    {
        const DevicePtr<double> col = device_alloc<double>(n, "cudaMalloc");
        ok(cudaMemset(col.get(), 0, n * sizeof(double)), "cudaMemset");
        colsums(col.get());
        ok(cudaMemcpy(h.data(), col.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
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
DeviceReference<T>::DeviceReference(int64_t n, const T* A_host, int device) : n_(n), device_(device) {
    const DeviceGuard on(device_);
    const size_t count = static_cast<size_t>(n) * n;
    DevicePtr<T> orig = device_alloc<T>(count, "cudaMalloc(A)");
    DevicePtr<T> work = device_alloc<T>(count, "cudaMalloc(work)");
    ok(cudaMemcpy(orig.get(), A_host, matrix_bytes<T>(n), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
    orig_ = orig.release();
    work_ = work.release();
}

template <typename T>
DeviceReference<T>::DeviceReference(int64_t n, uint64_t seed, double shift, int device)
    : n_(n), device_(device), seed_(seed), shift_(shift) {
    const DeviceGuard on(device_);
    work_ = device_alloc<T>(static_cast<size_t>(n) * n, "cudaMalloc(work)").release();
}

template <typename T>
DeviceReference<T>::~DeviceReference() {
    const DeviceGuard on(device_);
    cudaFree(orig_);
    cudaFree(work_);
    cudaFree(tmp_);
}

template <typename T>
void DeviceReference<T>::restore(void* stream) {
    const auto st = static_cast<cudaStream_t>(stream);
    if (orig_)
        ok(cudaMemcpyAsync(work_, orig_, matrix_bytes<T>(n_), cudaMemcpyDeviceToDevice, st), "cudaMemcpy(D2D)");
    else
        ok(detail::gpu::launch_random_symmetric<T>(work_, n_, n_, n_, 0, 0, seed_, shift_, st), "random_symmetric");
}

template <typename T>
T* DeviceReference<T>::scratch() {
    if (!orig_) throw std::runtime_error("DeviceReference: residuals need the original matrix (not kept)");
    if (!tmp_) tmp_ = device_alloc<T>(static_cast<size_t>(n_) * n_, "cudaMalloc(residual scratch)").release();
    return tmp_;
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_potrf(int warmup, int repeat, bool check, bool host_path) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = host_path ? "cusolver+copies" : "cusolver";
    {
        const Solver s(true);
        XWorkspace ws(
            [&](size_t* dev_bytes, size_t* host_bytes) {
                return cusolverDnXpotrf_bufferSize(s.handle.get(), s.params.get(), CUBLAS_FILL_MODE_LOWER, n_,
                                                   cuda_type<T>(), work_, n_, cuda_type<T>(), dev_bytes, host_bytes);
            },
            "cusolverDnXpotrf_bufferSize");
        const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
        const size_t bytes = matrix_bytes<T>(n_);
        PinnedPtr<T> pinned;  // the host user's matrix (host_path)
        if (host_path) {
            T* p = nullptr;
            ok(cudaMallocHost(&p, bytes), "cudaMallocHost");
            pinned.reset(p);
        }
        r.seconds = timed_runs(
            s.stream.get(), warmup, repeat,
            [&] {
                restore(s.stream.get());
                if (host_path) {
                    ok(cudaStreamSynchronize(s.stream.get()), "cudaStreamSynchronize");
                    ok(cudaMemcpy(pinned.get(), work_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");
                }
            },
            [&] {
                if (host_path)
                    ok(cudaMemcpyAsync(work_, pinned.get(), bytes, cudaMemcpyHostToDevice, s.stream.get()),
                       "cudaMemcpy(H2D)");
                ok(cusolverDnXpotrf(s.handle.get(), s.params.get(), CUBLAS_FILL_MODE_LOWER, n_, cuda_type<T>(), work_,
                                    n_, cuda_type<T>(), ws.dev.get(), ws.dev_bytes, ws.host.data(), ws.host_bytes,
                                    dinfo.get()),
                   "cusolverDnXpotrf");
                if (host_path)
                    ok(cudaMemcpyAsync(pinned.get(), work_, bytes, cudaMemcpyDeviceToHost, s.stream.get()),
                       "cudaMemcpy(D2H)");
            });
        read_info(&r.info, dinfo.get(), 1);
    }
    if (check && r.info == 0) r.residual = residual_of_work();
    return r;
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_getrf(int warmup, int repeat) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = "cusolver";
    const Solver s(true);
    XWorkspace ws(
        [&](size_t* dev_bytes, size_t* host_bytes) {
            return cusolverDnXgetrf_bufferSize(s.handle.get(), s.params.get(), n_, n_, cuda_type<T>(), work_, n_,
                                               cuda_type<T>(), dev_bytes, host_bytes);
        },
        "cusolverDnXgetrf_bufferSize");
    const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
    const DevicePtr<int64_t> dipiv = device_alloc<int64_t>(static_cast<size_t>(n_), "cudaMalloc(ipiv)");
    r.seconds = timed_runs(s.stream.get(), warmup, repeat, [&] { restore(s.stream.get()); }, [&] {
        ok(cusolverDnXgetrf(s.handle.get(), s.params.get(), n_, n_, cuda_type<T>(), work_, n_, dipiv.get(),
                            cuda_type<T>(), ws.dev.get(), ws.dev_bytes, ws.host.data(), ws.host_bytes, dinfo.get()),
           "cusolverDnXgetrf");
    });
    read_info(&r.info, dinfo.get(), 1);
    return r;
}

template <typename T>
double DeviceReference<T>::residual_of(const TileMatrix<T>& L) {
    const DeviceGuard on(device_);
    L.export_to(work_, n_);
    return residual_of_work();
}

template <typename T>
double DeviceReference<T>::residual_of_device(const T* L, int64_t ld) {
    const DeviceGuard on(device_);
    ok(cudaMemcpy2D(work_, n_ * sizeof(T), L, ld * sizeof(T), n_ * sizeof(T), n_, cudaMemcpyDeviceToDevice),
       "cudaMemcpy2D(L)");
    return residual_of_work();
}

template <typename T>
double DeviceReference<T>::residual_of_work() {
    T* tmp = scratch();
    zero_upper<T><<<elementwise_grid(n_), 256>>>(work_, n_);
    ok(cudaGetLastError(), "zero_upper");
    ok(cudaMemcpy(tmp, orig_, matrix_bytes<T>(n_), cudaMemcpyDeviceToDevice), "cudaMemcpy(D2D)");
    // tmp = A - L L^T (lower)
    blas_and_wait([&](cublasHandle_t h) { return syrk(h, n_, work_, tmp); }, "cublas<t>syrk", "syrk");
    const double num = sym_norm1(tmp, n_), den = sym_norm1(orig_, n_);
    return scaled_residual<T>(num, den, n_);
}

template <typename T>
VendorRun DeviceReference<T>::cusolver_potri(int warmup, int repeat, bool check) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = "cusolver";
    {
        const Solver s(false);
        cusolverDnHandle_t h = s.handle.get();
        const int n = static_cast<int>(n_);
        int lwork_f = 0, lwork_i = 0;
        ok(detail::gpu::potrf_buffer_size<T>(h, n, work_, n, &lwork_f), "cusolverDn<t>potrf_bufferSize");
        ok(detail::gpu::potri_buffer_size<T>(h, n, work_, n, &lwork_i), "cusolverDn<t>potri_bufferSize");
        const int lwork = std::max(std::max(lwork_f, lwork_i), 1);
        const DevicePtr<T> dwork = device_alloc<T>(static_cast<size_t>(lwork), "cudaMalloc(workspace)");
        const DevicePtr<int> dinfo = device_alloc<int>(2, "cudaMalloc(info)");
        r.seconds = timed_runs(s.stream.get(), warmup, repeat, [&] { restore(s.stream.get()); }, [&] {
            ok(detail::gpu::potrf<T>(h, n, work_, n, dwork.get(), lwork, dinfo.get()), "cusolverDn<t>potrf");
            ok(detail::gpu::potri<T>(h, n, work_, n, dwork.get(), lwork, dinfo.get() + 1), "cusolverDn<t>potri");
        });
        int infos[2] = {0, 0};
        read_info(infos, dinfo.get(), 2);
        r.info = infos[0] != 0 ? infos[0] : infos[1];
    }
    if (check && r.info == 0) r.residual = inverse_residual_of_work();
    return r;
}

template <typename T>
double DeviceReference<T>::inverse_residual_of(const TileMatrix<T>& X) {
    const DeviceGuard on(device_);
    X.export_to(work_, n_);
    return inverse_residual_of_work();
}

template <typename T>
double DeviceReference<T>::inverse_residual_of_work() {
    T* tmp = scratch();
    set_identity<T><<<elementwise_grid(n_), 256>>>(tmp, n_);
    ok(cudaGetLastError(), "set_identity");
    // tmp = A X - I (orig_ holds all of A)
    blas_and_wait([&](cublasHandle_t h) { return symm_right(h, n_, work_, orig_, T(-1), tmp); }, "cublas<t>symm",
                  "symm");
    const double num = ge_norm1(tmp, n_), den = sym_norm1(orig_, n_) * sym_norm1(work_, n_);
    return scaled_residual<T>(num, den, n_);
}

template class DeviceReference<float>;
template class DeviceReference<double>;

}  // namespace starfact::support
