// The complex GPU baselines of starpu_chol and starpu_lu --prec c|z (reference_complex.hpp): cusolverDnXpotrf and
// cusolverDnXgetrf on CUDA_C_32F / CUDA_C_64F device copies, timed with CUDA events, and the Hermitian factor's
// residual ||A - L L^H||_1 / (||A||_1 n eps) computed on the device (cublas<c|z>herk, column sums of the moduli).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "kernels/scalar.hpp"
#include "starfact/check.hpp"
#include "support/cuda_helpers.cuh"
#include "support/reference_complex.hpp"

namespace starfact::support {
namespace {

using namespace cuda;

using detail::gpu::cuda_type;

/// C := alpha L L^H + beta C (lower), alpha and beta real, all n x n with ld = n.
template <typename C>
cublasStatus_t herk(cublasHandle_t h, int64_t n, detail::real_t<C> alpha, const C* L, detail::real_t<C> beta, C* Cm) {
    using namespace detail;
    return gpu::herk<C>(h, Uplo::Lower, Op::NoTrans, n, n, alpha, L, n, beta, Cm, n);
}

/// The grid of the element-wise kernels over an n x n matrix (256 threads a block).
dim3 elementwise_grid(int64_t n) {
    return dim3(static_cast<unsigned>(std::min<int64_t>(64, (n + 255) / 256)),
                static_cast<unsigned>(std::min<int64_t>(65535, std::max<int64_t>(n, 1))));
}

/// Zeroes the strictly upper triangle of the n x n complex matrix A, given as its interleaved real and imaginary parts.
template <typename R>
__global__ void zero_upper_complex(R* A, int64_t n) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < j; i += gridDim.x * blockDim.x) {
            A[2 * (i + j * n)] = R(0);
            A[2 * (i + j * n) + 1] = R(0);
        }
}

/// col[j] += the moduli of column j of the Hermitian matrix whose lower triangle A holds (interleaved parts; one block
/// per column, 256 threads).
template <typename R>
__global__ void hermitian_colsums(const R* A, int64_t n, double* col) {
    const int64_t j = blockIdx.x;
    double own = 0;
    for (int64_t i = j + threadIdx.x; i < n; i += blockDim.x) {
        const double v = hypot(static_cast<double>(A[2 * (i + j * n)]), static_cast<double>(A[2 * (i + j * n) + 1]));
        own += v;
        if (i != j) atomicAdd(&col[i], v);  // the conjugate entry (j, i) belongs to column i
    }
    for (int off = 16; off > 0; off /= 2) own += __shfl_down_sync(0xffffffff, own, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(&col[j], own);
}

/// The 1-norm of the Hermitian n x n matrix whose lower triangle dA holds (device memory); NaN wins.
template <typename C>
double hermitian_norm1(const C* dA, int64_t n) {
    using R = detail::real_t<C>;
    std::vector<double> h(static_cast<size_t>(n));
    {
        const DevicePtr<double> col = device_alloc<double>(static_cast<size_t>(n), "cudaMalloc(column sums)");
        ok(cudaMemset(col.get(), 0, static_cast<size_t>(n) * sizeof(double)), "cudaMemset");
        hermitian_colsums<R><<<static_cast<unsigned>(n), 256>>>(reinterpret_cast<const R*>(dA), n, col.get());
        ok(cudaGetLastError(), "hermitian_colsums");
        ok(cudaMemcpy(h.data(), col.get(), h.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(sums)");
    }
    double norm = 0;
    for (double c : h) norm = std::isnan(c) || std::isnan(norm) ? NAN : std::max(norm, c);
    return norm;
}

}  // namespace

template <typename C>
ComplexDeviceReference<C>::ComplexDeviceReference(int64_t n, const C* A_host, int device) : n_(n), device_(device) {
    const DeviceGuard on(device_);
    const size_t count = static_cast<size_t>(n) * static_cast<size_t>(n);
    DevicePtr<C> orig = device_alloc<C>(std::max<size_t>(count, 1), "cudaMalloc(A)");
    DevicePtr<C> work = device_alloc<C>(std::max<size_t>(count, 1), "cudaMalloc(work)");
    ok(cudaMemcpy(orig.get(), A_host, count * sizeof(C), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
    // A copy from pageable host memory may return before its DMA lands: what reads orig_ later on other streams
    // (the baselines' own, StarPU's for device-resident tiles) must find it complete.
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize(A)");
    orig_ = orig.release();
    work_ = work.release();
}

template <typename C>
ComplexDeviceReference<C>::~ComplexDeviceReference() {
    const DeviceGuard on(device_);
    cudaFree(orig_);
    cudaFree(work_);
    cudaFree(tmp_);
}

template <typename C>
VendorRun ComplexDeviceReference<C>::cusolver_potrf(int warmup, int repeat, bool check, bool host_path) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = host_path ? "cusolver+copies" : "cusolver";
    {
        const Solver s(true);
        cudaStream_t st = s.stream.get();
        size_t dev_bytes = 0, host_bytes = 0;
        ok(cusolverDnXpotrf_bufferSize(s.handle.get(), s.params.get(), CUBLAS_FILL_MODE_LOWER, n_, cuda_type<C>(),
                                       work_, n_, cuda_type<C>(), &dev_bytes, &host_bytes),
           "cusolverDnXpotrf_bufferSize");
        const DevicePtr<char> dwork = device_alloc<char>(dev_bytes + 1, "cudaMalloc(workspace)");
        std::vector<char> hwork(host_bytes + 1);
        const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
        const size_t bytes = matrix_bytes<C>(n_);
        PinnedPtr<C> pinned;  // the host user's matrix (host_path)
        if (host_path) {
            C* p = nullptr;
            ok(cudaMallocHost(&p, std::max<size_t>(bytes, 1)), "cudaMallocHost");
            pinned.reset(p);
        }
        r.seconds = timed_runs(
            st, warmup, repeat,
            [&] {
                ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, st), "cudaMemcpy(D2D)");
                if (host_path) {  // the host user's matrix, complete before the clock starts
                    ok(cudaMemcpyAsync(pinned.get(), work_, bytes, cudaMemcpyDeviceToHost, st), "cudaMemcpy(D2H)");
                    ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
                }
            },
            [&] {
                if (host_path)
                    ok(cudaMemcpyAsync(work_, pinned.get(), bytes, cudaMemcpyHostToDevice, st), "cudaMemcpy(H2D)");
                ok(cusolverDnXpotrf(s.handle.get(), s.params.get(), CUBLAS_FILL_MODE_LOWER, n_, cuda_type<C>(),
                                    work_, n_, cuda_type<C>(), dwork.get(), dev_bytes, hwork.data(), host_bytes,
                                    dinfo.get()),
                   "cusolverDnXpotrf");
                if (host_path)
                    ok(cudaMemcpyAsync(pinned.get(), work_, bytes, cudaMemcpyDeviceToHost, st), "cudaMemcpy(D2H)");
            });
        ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
        ok(cudaMemcpy(&r.info, dinfo.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    }
    if (check && r.info == 0) r.residual = hermitian_residual_of_work();
    return r;
}

template <typename C>
VendorRun ComplexDeviceReference<C>::cusolver_potri(int warmup, int repeat, bool check, const C* A_host) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = "cusolver";
    {
        const Solver s(true);
        cudaStream_t st = s.stream.get();
        cusolverDnHandle_t h = s.handle.get();
        const int n = static_cast<int>(n_);
        int lwork_f = 0, lwork_i = 0;
        ok(detail::gpu::potrf_buffer_size<C>(h, n, work_, n, &lwork_f), "cusolverDn<c|z>potrf_bufferSize");
        ok(detail::gpu::potri_buffer_size<C>(h, n, work_, n, &lwork_i), "cusolverDn<c|z>potri_bufferSize");
        const int lwork = std::max(std::max(lwork_f, lwork_i), 1);
        const DevicePtr<C> dwork = device_alloc<C>(static_cast<size_t>(lwork), "cudaMalloc(workspace)");
        const DevicePtr<int> dinfo = device_alloc<int>(2, "cudaMalloc(info)");
        const size_t bytes = matrix_bytes<C>(n_);
        r.seconds = timed_runs(
            st, warmup, repeat,
            [&] { ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, st), "cudaMemcpy(D2D)"); },
            [&] {
                ok(detail::gpu::potrf<C>(h, n, work_, n, dwork.get(), lwork, dinfo.get()), "cusolverDn<c|z>potrf");
                ok(detail::gpu::potri<C>(h, n, work_, n, dwork.get(), lwork, dinfo.get() + 1), "cusolverDn<c|z>potri");
            });
        ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
        int infos[2] = {0, 0};
        ok(cudaMemcpy(infos, dinfo.get(), sizeof infos, cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
        r.info = infos[0] != 0 ? infos[0] : infos[1];
    }
    if (check && r.info == 0) {
        std::vector<C> X(static_cast<size_t>(n_) * static_cast<size_t>(n_));
        ok(cudaMemcpy(X.data(), work_, matrix_bytes<C>(n_), cudaMemcpyDeviceToHost), "cudaMemcpy(inverse)");
        r.residual = potri_residual<C>(n_, A_host, n_, X.data(), n_);
    }
    return r;
}

template <typename C>
VendorRun ComplexDeviceReference<C>::cusolver_getrf(int warmup, int repeat) {
    const DeviceGuard on(device_);
    VendorRun r;
    r.name = "cusolver";
    const Solver s(true);
    cudaStream_t st = s.stream.get();
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXgetrf_bufferSize(s.handle.get(), s.params.get(), n_, n_, cuda_type<C>(), work_, n_,
                                   cuda_type<C>(), &dev_bytes, &host_bytes),
       "cusolverDnXgetrf_bufferSize");
    const DevicePtr<char> dwork = device_alloc<char>(dev_bytes + 1, "cudaMalloc(workspace)");
    std::vector<char> hwork(host_bytes + 1);
    const DevicePtr<int> dinfo = device_alloc<int>(1, "cudaMalloc(info)");
    const DevicePtr<int64_t> dipiv = device_alloc<int64_t>(static_cast<size_t>(std::max<int64_t>(n_, 1)), "cudaMalloc(ipiv)");
    const size_t bytes = matrix_bytes<C>(n_);
    r.seconds = timed_runs(
        st, warmup, repeat,
        [&] { ok(cudaMemcpyAsync(work_, orig_, bytes, cudaMemcpyDeviceToDevice, st), "cudaMemcpy(D2D)"); },
        [&] {
            ok(cusolverDnXgetrf(s.handle.get(), s.params.get(), n_, n_, cuda_type<C>(), work_, n_, dipiv.get(),
                                cuda_type<C>(), dwork.get(), dev_bytes, hwork.data(), host_bytes, dinfo.get()),
               "cusolverDnXgetrf");
        });
    ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    ok(cudaMemcpy(&r.info, dinfo.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    return r;
}

template <typename C>
double ComplexDeviceReference<C>::residual_of(const TileMatrix<C>& L) {
    const DeviceGuard on(device_);
    L.export_to(work_, n_);
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize(export)");  // the export's copies complete before the checks
    return hermitian_residual_of_work();
}

template <typename C>
double ComplexDeviceReference<C>::hermitian_residual_of_work() {
    using R = detail::real_t<C>;
    if (!tmp_)
        tmp_ = device_alloc<C>(std::max<size_t>(static_cast<size_t>(n_) * n_, 1), "cudaMalloc(residual scratch)").release();
    // Everything below runs on the legacy default stream (the kernels and the cuBLAS handle's), in order; the
    // baselines' streams were synchronized before.
    zero_upper_complex<R><<<elementwise_grid(n_), 256>>>(reinterpret_cast<R*>(work_), n_);
    ok(cudaGetLastError(), "zero_upper_complex");
    ok(cudaMemcpy(tmp_, orig_, matrix_bytes<C>(n_), cudaMemcpyDeviceToDevice), "cudaMemcpy(D2D)");
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize(residual operands)");  // a D2D cudaMemcpy may return early
    {
        const BlasHandle h = new_blas();
        ok(herk(h.get(), n_, R(-1), work_, R(1), tmp_), "cublas<c|z>herk");  // tmp = A - L L^H (lower)
        ok(cudaDeviceSynchronize(), "herk");
    }
    const double num = hermitian_norm1(tmp_, n_), den = hermitian_norm1(orig_, n_);
    const double eps = std::numeric_limits<R>::epsilon();
    const double d = den * static_cast<double>(std::max<int64_t>(n_, 1)) * eps;
    if (std::isnan(num) || std::isnan(d)) return NAN;
    return d == 0.0 ? (num == 0.0 ? 0.0 : INFINITY) : num / d;
}

template class ComplexDeviceReference<std::complex<float>>;
template class ComplexDeviceReference<std::complex<double>>;

}  // namespace starfact::support
