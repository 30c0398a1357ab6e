// The all-vendor LS-SVM pipeline a user would write instead of a task graph: cuBLAS for the kernel matrix,
// one cuSOLVER potrf and one potrs, cuBLAS for the test products, phase after phase on one stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "codelets.hpp"
#include "lssvm.hpp"

namespace lssvm {
namespace {

void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("vendor pipeline: ") + what + ": " + cudaGetErrorString(e));
}
void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("vendor pipeline: ") + what + " failed (" + std::to_string(s) + ")");
}
void ok(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string("vendor pipeline: ") + what + " failed (" + std::to_string(s) + ")");
}

template <typename T>
struct Dev {
    T* p = nullptr;
    explicit Dev(size_t n, const char* what) { ok(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)), what); }
    ~Dev() { cudaFree(p); }
    Dev(const Dev&) = delete;
    Dev& operator=(const Dev&) = delete;
};
template <typename T>
struct Pinned {
    T* p = nullptr;
    explicit Pinned(size_t n) { ok(cudaMallocHost(&p, std::max<size_t>(n, 1) * sizeof(T)), "cudaMallocHost"); }
    ~Pinned() { cudaFreeHost(p); }
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;
};

/// A handle released by `Status destroy(Handle)`.
template <typename Handle, typename Status>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Status (*)(Handle)>;

/// The pipeline's stream and its cuBLAS and cuSOLVER handles (both on the stream), released on every exit path:
/// the params, the solver, cuBLAS, then the stream.
struct Handles {
    Owned<cudaStream_t, cudaError_t> stream{nullptr, cudaStreamDestroy};
    Owned<cublasHandle_t, cublasStatus_t> blas{nullptr, cublasDestroy};
    Owned<cusolverDnHandle_t, cusolverStatus_t> solver{nullptr, cusolverDnDestroy};
    Owned<cusolverDnParams_t, cusolverStatus_t> params{nullptr, cusolverDnDestroyParams};

    Handles() {
        cudaStream_t s = nullptr;
        ok(cudaStreamCreate(&s), "cudaStreamCreate");
        stream.reset(s);
        cublasHandle_t b = nullptr;
        ok(cublasCreate(&b), "cublasCreate");
        blas.reset(b);
        ok(cublasSetStream(b, s), "cublasSetStream");
        cusolverDnHandle_t h = nullptr;
        ok(cusolverDnCreate(&h), "cusolverDnCreate");
        solver.reset(h);
        ok(cusolverDnSetStream(h, s), "cusolverDnSetStream");
        cusolverDnParams_t p = nullptr;
        ok(cusolverDnCreateParams(&p), "cusolverDnCreateParams");
        params.reset(p);
    }
};

template <typename T>
void fill(const Dataset& d, Pinned<T>& x, Pinned<T>& norms) {
    for (size_t i = 0; i < d.X.size(); ++i) x.p[i] = static_cast<T>(d.X[i]);
    for (int64_t i = 0; i < d.n; ++i) {
        T s = 0;
        for (int64_t j = 0; j < d.d; ++j) s += x.p[i + j * d.n] * x.p[i + j * d.n];
        norms.p[i] = s;
    }
}

template <typename T>
cublasStatus_t syrk(cublasHandle_t h, int n, int k, const T* A, int lda, T* C, int ldc) {
    const T one = 1, zero = 0;
    if constexpr (std::is_same_v<T, float>)
        return cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &one, A, lda, &zero, C, ldc);
    else
        return cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &one, A, lda, &zero, C, ldc);
}
template <typename T>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t tb, int m, int n, int k, const T* A, int lda, const T* B,
                    int ldb, T* C, int ldc) {
    const T one = 1, zero = 0;
    if constexpr (std::is_same_v<T, float>)
        return cublasSgemm(h, CUBLAS_OP_N, tb, m, n, k, &one, A, lda, B, ldb, &zero, C, ldc);
    else
        return cublasDgemm(h, CUBLAS_OP_N, tb, m, n, k, &one, A, lda, B, ldb, &zero, C, ldc);
}
template <typename T> constexpr cudaDataType cuda_type() { return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F; }

}  // namespace

bool have_vendor_pipeline() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

template <typename T>
Result vendor_pipeline(const Dataset& train, const Dataset& test, const Hyper& h) {
    using Clock = std::chrono::steady_clock;
    auto secs = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    const int64_t n = train.n, nt = test.n, d = train.d, r = train.classes() + 1;
    const KernelArgs ka{h.kernel, effective_gamma(h, train), 1.0 / h.C};
    Pinned<T> hx(n * d), hxt(nt * d), hn(n), hnt(nt), hb(n * r), hs(nt * r);
    fill(train, hx, hn);
    fill(test, hxt, hnt);
    for (int64_t i = 0; i < n * r; ++i) hb.p[i] = -1;
    for (int64_t i = 0; i < n; ++i) hb.p[i] = 1, hb.p[i + (1 + train.y[i]) * n] = 1;

    Dev<T> x(n * d, "cudaMalloc(X)"), xt(nt * d, "cudaMalloc(X test)"), nrm(n, "cudaMalloc"), nrmt(nt, "cudaMalloc"),
        H(static_cast<size_t>(n) * n, "cudaMalloc(H)"), B(n * r, "cudaMalloc(B)"),
        Kt(static_cast<size_t>(nt) * n, "cudaMalloc(K test)"), S(nt * r, "cudaMalloc(S)");
    const Handles handles;
    cudaStream_t stream = handles.stream.get();
    cublasHandle_t blas = handles.blas.get();
    cusolverDnHandle_t solver = handles.solver.get();
    cusolverDnParams_t params = handles.params.get();
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXpotrf_bufferSize(solver, params, CUBLAS_FILL_MODE_LOWER, n, cuda_type<T>(), H.p, n, cuda_type<T>(),
                                   &dev_bytes, &host_bytes),
       "cusolverDnXpotrf_bufferSize");
    Dev<char> work(dev_bytes, "cudaMalloc(work)");
    std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
    Dev<int> info(1, "cudaMalloc(info)");
    Result res;
    auto sync = [&] { ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); };

    const auto t0 = Clock::now();
    ok(cudaMemcpyAsync(x.p, hx.p, n * d * sizeof(T), cudaMemcpyHostToDevice, stream), "copy X");
    ok(cudaMemcpyAsync(nrm.p, hn.p, n * sizeof(T), cudaMemcpyHostToDevice, stream), "copy norms");
    ok(syrk<T>(blas, static_cast<int>(n), static_cast<int>(d), x.p, static_cast<int>(n), H.p, static_cast<int>(n)), "syrk");
    finish_kernel_cuda<T>(H.p, static_cast<int>(n), static_cast<int>(n), static_cast<int>(n), nrm.p, nrm.p, ka, true,
                          stream, true);
    sync();
    const auto t1 = Clock::now();
    ok(cusolverDnXpotrf(solver, params, CUBLAS_FILL_MODE_LOWER, n, cuda_type<T>(), H.p, n, cuda_type<T>(), work.p,
                        dev_bytes, hwork.data(), host_bytes, info.p),
       "cusolverDnXpotrf");
    ok(cudaMemcpyAsync(&res.info, info.p, sizeof(int), cudaMemcpyDeviceToHost, stream), "copy info");
    sync();
    const auto t2 = Clock::now();
    if (res.info != 0) return res;
    ok(cudaMemcpyAsync(B.p, hb.p, n * r * sizeof(T), cudaMemcpyHostToDevice, stream), "copy B");
    ok(cusolverDnXpotrs(solver, params, CUBLAS_FILL_MODE_LOWER, n, r, cuda_type<T>(), H.p, n, cuda_type<T>(), B.p, n,
                        info.p),
       "cusolverDnXpotrs");
    sync();
    const auto t3 = Clock::now();
    if (nt > 0) {
        ok(cudaMemcpyAsync(xt.p, hxt.p, nt * d * sizeof(T), cudaMemcpyHostToDevice, stream), "copy X test");
        ok(cudaMemcpyAsync(nrmt.p, hnt.p, nt * sizeof(T), cudaMemcpyHostToDevice, stream), "copy norms test");
        ok(gemm<T>(blas, CUBLAS_OP_T, static_cast<int>(nt), static_cast<int>(n), static_cast<int>(d), xt.p,
                   static_cast<int>(nt), x.p, static_cast<int>(n), Kt.p, static_cast<int>(nt)),
           "gemm (test kernel)");
        const KernelArgs kp{ka.type, ka.gamma, 0.0};
        finish_kernel_cuda<T>(Kt.p, static_cast<int>(nt), static_cast<int>(n), static_cast<int>(nt), nrmt.p, nrm.p, kp,
                              false, stream);
        ok(gemm<T>(blas, CUBLAS_OP_N, static_cast<int>(nt), static_cast<int>(r), static_cast<int>(n), Kt.p,
                   static_cast<int>(nt), B.p, static_cast<int>(n), S.p, static_cast<int>(nt)),
           "gemm (test products)");
        ok(cudaMemcpyAsync(hs.p, S.p, nt * r * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy S");
    }
    ok(cudaMemcpyAsync(hb.p, B.p, n * r * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy solution");
    sync();
    std::vector<double> sol(hb.p, hb.p + n * r), Sd(hs.p, hs.p + nt * r);
    finish(res, sol, Sd, train, test, h.C);
    const auto t4 = Clock::now();
    res.t.assemble = secs(t0, t1);
    res.t.factor = secs(t1, t2);
    res.t.solve = secs(t2, t3);
    res.t.predict = secs(t3, t4);
    res.t.total = secs(t0, t4);
    res.solution = std::move(sol);
    return res;
}

template Result vendor_pipeline<float>(const Dataset&, const Dataset&, const Hyper&);
template Result vendor_pipeline<double>(const Dataset&, const Dataset&, const Hyper&);

}  // namespace lssvm
