// The double solves a user would call instead of starfact's mixed-precision posv and gesv (reference_solve.hpp):
// cuSOLVER's dpotrf + dpotrs, dgetrf + dgetrs and its IRS gesv, timed with CUDA events; backward errors on the device.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "support/cuda_helpers.cuh"
#include "support/reference_solve.hpp"

namespace starfact::support {
namespace {

using namespace cuda;
using detail::Op;
using detail::Side;
namespace gpu = detail::gpu;

using IrsParams = Owned<cusolverDnIRSParams_t, cusolverDnIRSParamsDestroy>;
using IrsInfos = Owned<cusolverDnIRSInfos_t, cusolverDnIRSInfosDestroy>;

/// A, B and X on the device, A's original kept for the residual.
struct Problem {
    int64_t n, nrhs;
    size_t a_count, b_count;
    DevicePtr<double> A0, A, B0, X;
    Problem(int64_t n_, int64_t nrhs_, const double* A_host, const double* B_host)
        : n(n_), nrhs(nrhs_), a_count(static_cast<size_t>(n_ * n_)), b_count(static_cast<size_t>(n_ * nrhs_)) {
        A0 = device_alloc<double>(a_count, "cudaMalloc(A0)");
        A = device_alloc<double>(a_count, "cudaMalloc(A)");
        B0 = device_alloc<double>(b_count, "cudaMalloc(B0)");
        X = device_alloc<double>(b_count, "cudaMalloc(X)");
        ok(cudaMemcpy(A0.get(), A_host, a_count * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
        ok(cudaMemcpy(B0.get(), B_host, b_count * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy(B)");
    }
    /// Largest column backward error of X (infinity norms; ||A||_inf from A0's rows).
    double backward_error() const {
        std::vector<double> a(a_count), x(b_count), b(b_count);
        ok(cudaMemcpy(x.data(), X.get(), b_count * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(X)");
        BlasHandle h = new_blas();
        DevicePtr<double> R = device_alloc<double>(b_count, "cudaMalloc(R)");
        ok(cudaMemcpy(R.get(), B0.get(), b_count * sizeof(double), cudaMemcpyDeviceToDevice), "cudaMemcpy(R)");
        ok(gpu::gemm<double>(h.get(), Op::NoTrans, Op::NoTrans, static_cast<int>(n), static_cast<int>(nrhs),
                             static_cast<int>(n), -1.0, A0.get(), static_cast<int>(n), X.get(), static_cast<int>(n),
                             1.0, R.get(), static_cast<int>(n)),
           "cublas<t>gemm(residual)");
        ok(cudaMemcpy(b.data(), R.get(), b_count * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(R)");
        std::vector<double> b0(b_count);
        ok(cudaMemcpy(b0.data(), B0.get(), b_count * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(B0)");
        // ||A||_inf: the row sums of |A| (a general A: the LU's baselines), read one column at a time
        std::vector<double> col(static_cast<size_t>(n)), rows(static_cast<size_t>(n), 0.0);
        for (int64_t j = 0; j < n; ++j) {
            ok(cudaMemcpy(col.data(), A0.get() + j * n, static_cast<size_t>(n) * sizeof(double), cudaMemcpyDeviceToHost),
               "cudaMemcpy(A column)");
            for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] += std::fabs(col[static_cast<size_t>(i)]);
        }
        double anorm = 0;
        for (double v : rows) anorm = std::max(anorm, v);
        double worst = 0;
        for (int64_t c = 0; c < nrhs; ++c) {
            double r = 0, xn = 0, bn = 0;
            for (int64_t i = 0; i < n; ++i) {
                r = std::max(r, std::fabs(b[static_cast<size_t>(i + c * n)]));
                xn = std::max(xn, std::fabs(x[static_cast<size_t>(i + c * n)]));
                bn = std::max(bn, std::fabs(b0[static_cast<size_t>(i + c * n)]));
            }
            const double den = anorm * xn + bn;
            worst = std::max(worst, den > 0 ? r / den : r);
        }
        return worst;
    }
};

cusolverPrecType_t irs_precision(Precision p) {
    switch (p) {
        case Precision::Tf32:
        case Precision::Tf32x3: return CUSOLVER_R_TF32;  // the vendor has no split form: its nearest, TF32
        case Precision::Bf16: return CUSOLVER_R_16BF;
        case Precision::Fp16: return CUSOLVER_R_16F;
        default: return CUSOLVER_R_32F;
    }
}

}  // namespace

namespace {
/// The orthogonal factor Q of the QR of the n x n matrix G (on the device, cuSOLVER geqrf + orgqr).
DevicePtr<double> orthogonal_gpu(int64_t n, const std::vector<double>& G) {
    const size_t count = static_cast<size_t>(n * n);
    const int in = static_cast<int>(n);
    DevicePtr<double> Q = device_alloc<double>(count, "cudaMalloc(Q)");
    DevicePtr<double> tau = device_alloc<double>(static_cast<size_t>(std::max<int64_t>(n, 1)), "cudaMalloc(tau)");
    DevicePtr<int> info = device_alloc<int>(1, "cudaMalloc(info)");
    ok(cudaMemcpy(Q.get(), G.data(), count * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy(G)");
    cusolverDnHandle_t hs = nullptr;
    ok(cusolverDnCreate(&hs), "cusolverDnCreate");
    const SolverHandle handle(hs);
    int lwork = 0, lwork2 = 0;
    ok(gpu::geqrf_buffer_size<double>(hs, in, in, Q.get(), in, &lwork), "cusolverDn<t>geqrf_bufferSize");
    ok(gpu::orgqr_buffer_size<double>(hs, in, in, in, Q.get(), in, tau.get(), &lwork2),
       "cusolverDn<t>orgqr_bufferSize");
    DevicePtr<double> work = device_alloc<double>(static_cast<size_t>(std::max(lwork, lwork2)) + 1, "cudaMalloc(work)");
    ok(gpu::geqrf<double>(hs, in, in, Q.get(), in, tau.get(), work.get(), std::max(lwork, lwork2), info.get()),
       "cusolverDn<t>geqrf");
    ok(gpu::orgqr<double>(hs, in, in, in, Q.get(), in, tau.get(), work.get(), std::max(lwork, lwork2), info.get()),
       "cusolverDn<t>orgqr");
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return Q;
}

/// U diag(s) V^T (V null: U diag(s) U^T) on the device, s geometric from 1 down to 1/cond, copied to the host.
std::vector<double> conditioned_product(int64_t n, double cond, const DevicePtr<double>& U, const DevicePtr<double>* Vp) {
    const size_t count = static_cast<size_t>(n * n);
    const int in = static_cast<int>(n);
    const DevicePtr<double>& V = Vp ? *Vp : U;
    DevicePtr<double> W = device_alloc<double>(count, "cudaMalloc(W)"), A = device_alloc<double>(count, "cudaMalloc(A)");
    DevicePtr<double> s = device_alloc<double>(static_cast<size_t>(std::max<int64_t>(n, 1)), "cudaMalloc(s)");
    std::vector<double> spectrum(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
        spectrum[static_cast<size_t>(k)] = n > 1 ? std::pow(cond, -static_cast<double>(k) / static_cast<double>(n - 1)) : 1.0;
    ok(cudaMemcpy(s.get(), spectrum.data(), spectrum.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy(s)");
    BlasHandle h = new_blas();
    ok(gpu::dgmm<double>(h.get(), Side::Right, in, in, U.get(), in, s.get(), 1, W.get(), in), "cublas<t>dgmm");
    ok(gpu::gemm<double>(h.get(), Op::NoTrans, Op::Trans, in, in, in, 1.0, W.get(), in, V.get(), in, 0.0, A.get(), in),
       "cublas<t>gemm(U S V^T)");
    std::vector<double> out(count);
    ok(cudaMemcpy(out.data(), A.get(), count * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(A)");
    return out;
}
}  // namespace

std::vector<double> conditioned_general_gpu(int64_t n, double cond, const std::vector<double>& G1,
                                            const std::vector<double>& G2) {
    const DevicePtr<double> V = orthogonal_gpu(n, G2);
    return conditioned_product(n, cond, orthogonal_gpu(n, G1), &V);
}

std::vector<double> conditioned_spd_gpu(int64_t n, double cond, const std::vector<double>& G) {
    return conditioned_product(n, cond, orthogonal_gpu(n, G), nullptr);
}

VendorSolve cusolver_dposv(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                           int device) {
    const DeviceGuard on(device);
    VendorSolve r;
    r.name = "cusolver dpotrf+dpotrs";
    Problem p(n, nrhs, A, B);
    const Solver solver(true);
    cusolverDnHandle_t hs = solver.handle.get();
    cudaStream_t st = solver.stream.get();
    cusolverDnParams_t pp = solver.params.get();
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXpotrf_bufferSize(hs, pp, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, p.A.get(), n, CUDA_R_64F, &dev_bytes,
                                   &host_bytes),
       "cusolverDnXpotrf_bufferSize");
    const DevicePtr<char> work = device_alloc<char>(dev_bytes + 1, "cudaMalloc(work)");
    std::vector<char> host_work(host_bytes + 1);
    const DevicePtr<int> info = device_alloc<int>(1, "cudaMalloc(info)");
    r.seconds = timed_runs(
        st, warmup, repeat,
        [&] {
            ok(cudaMemcpyAsync(p.A.get(), p.A0.get(), p.a_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "A");
            ok(cudaMemcpyAsync(p.X.get(), p.B0.get(), p.b_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "X");
        },
        [&] {
            ok(cusolverDnXpotrf(hs, pp, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, p.A.get(), n, CUDA_R_64F, work.get(),
                                dev_bytes, host_work.data(), host_bytes, info.get()),
               "cusolverDnXpotrf");
            ok(cusolverDnXpotrs(hs, pp, CUBLAS_FILL_MODE_LOWER, n, nrhs, CUDA_R_64F, p.A.get(), n, CUDA_R_64F, p.X.get(),
                                n, info.get()),
               "cusolverDnXpotrs");
        });
    ok(cudaMemcpy(&r.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    if (r.info == 0) r.backward_error = p.backward_error();
    return r;
}

VendorSolve cusolver_dgesv(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                           int device) {
    const DeviceGuard on(device);
    VendorSolve r;
    r.name = "cusolver dgetrf+dgetrs";
    Problem p(n, nrhs, A, B);
    const Solver solver(true);
    cusolverDnHandle_t hs = solver.handle.get();
    cudaStream_t st = solver.stream.get();
    cusolverDnParams_t pp = solver.params.get();
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXgetrf_bufferSize(hs, pp, n, n, CUDA_R_64F, p.A.get(), n, CUDA_R_64F, &dev_bytes, &host_bytes),
       "cusolverDnXgetrf_bufferSize");
    const DevicePtr<char> work = device_alloc<char>(dev_bytes + 1, "cudaMalloc(work)");
    std::vector<char> host_work(host_bytes + 1);
    const DevicePtr<int> info = device_alloc<int>(1, "cudaMalloc(info)");
    const DevicePtr<int64_t> ipiv = device_alloc<int64_t>(static_cast<size_t>(std::max<int64_t>(n, 1)), "cudaMalloc(ipiv)");
    r.seconds = timed_runs(
        st, warmup, repeat,
        [&] {
            ok(cudaMemcpyAsync(p.A.get(), p.A0.get(), p.a_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "A");
            ok(cudaMemcpyAsync(p.X.get(), p.B0.get(), p.b_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "X");
        },
        [&] {
            ok(cusolverDnXgetrf(hs, pp, n, n, CUDA_R_64F, p.A.get(), n, ipiv.get(), CUDA_R_64F, work.get(), dev_bytes,
                                host_work.data(), host_bytes, info.get()),
               "cusolverDnXgetrf");
            ok(cusolverDnXgetrs(hs, pp, CUBLAS_OP_N, n, nrhs, CUDA_R_64F, p.A.get(), n, ipiv.get(), CUDA_R_64F,
                                p.X.get(), n, info.get()),
               "cusolverDnXgetrs");
        });
    ok(cudaMemcpy(&r.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    if (r.info == 0) r.backward_error = p.backward_error();
    return r;
}

VendorSolve cusolver_dposv_host(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                                int device) {
    const DeviceGuard on(device);
    VendorSolve r;
    r.name = "cusolver dpotrf+dpotrs from host arrays (copies in and out timed)";
    const size_t a_count = static_cast<size_t>(n * n), b_count = static_cast<size_t>(n * nrhs);
    const DevicePtr<double> dA = device_alloc<double>(a_count, "cudaMalloc(A)");
    const DevicePtr<double> dX = device_alloc<double>(b_count, "cudaMalloc(X)");
    const Solver solver(true);
    cusolverDnHandle_t hs = solver.handle.get();
    cudaStream_t st = solver.stream.get();
    cusolverDnParams_t pp = solver.params.get();
    size_t dev_bytes = 0, host_bytes = 0;
    ok(cusolverDnXpotrf_bufferSize(hs, pp, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA.get(), n, CUDA_R_64F, &dev_bytes,
                                   &host_bytes),
       "cusolverDnXpotrf_bufferSize");
    const DevicePtr<char> work = device_alloc<char>(dev_bytes + 1, "cudaMalloc(work)");
    std::vector<char> host_work(host_bytes + 1);
    const DevicePtr<int> info = device_alloc<int>(1, "cudaMalloc(info)");
    std::vector<double> X(b_count);
    for (int run = 0; run < warmup + repeat; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        ok(cudaMemcpyAsync(dA.get(), A, a_count * sizeof(double), cudaMemcpyHostToDevice, st), "cudaMemcpy(A)");
        ok(cudaMemcpyAsync(dX.get(), B, b_count * sizeof(double), cudaMemcpyHostToDevice, st), "cudaMemcpy(B)");
        ok(cusolverDnXpotrf(hs, pp, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA.get(), n, CUDA_R_64F, work.get(),
                            dev_bytes, host_work.data(), host_bytes, info.get()),
           "cusolverDnXpotrf");
        ok(cusolverDnXpotrs(hs, pp, CUBLAS_FILL_MODE_LOWER, n, nrhs, CUDA_R_64F, dA.get(), n, CUDA_R_64F, dX.get(), n,
                            info.get()),
           "cusolverDnXpotrs");
        ok(cudaMemcpyAsync(X.data(), dX.get(), b_count * sizeof(double), cudaMemcpyDeviceToHost, st), "cudaMemcpy(X)");
        ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (run >= warmup) r.seconds.push_back(sec);
    }
    ok(cudaMemcpy(&r.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    if (r.info == 0) r.backward_error = host_backward_error(n, nrhs, A, X.data(), B);
    return r;
}

VendorSolve cusolver_irs_gesv(int64_t n, int64_t nrhs, const double* A, const double* B, Precision lowest, bool gmres,
                              int warmup, int repeat, int device) {
    const DeviceGuard on(device);
    VendorSolve r;
    r.name = std::string("cusolver IRS gesv ") + to_string(lowest) + (gmres ? " gmres" : " classical");
    Problem p(n, nrhs, A, B);
    const Solver solver(false);
    cusolverDnHandle_t hs = solver.handle.get();
    cudaStream_t st = solver.stream.get();
    cusolverDnIRSParams_t pr = nullptr;
    ok(cusolverDnIRSParamsCreate(&pr), "cusolverDnIRSParamsCreate");
    const IrsParams params(pr);
    cusolverDnIRSInfos_t in = nullptr;
    ok(cusolverDnIRSInfosCreate(&in), "cusolverDnIRSInfosCreate");
    const IrsInfos infos(in);
    ok(cusolverDnIRSParamsSetSolverPrecisions(pr, CUSOLVER_R_64F, irs_precision(lowest)),
       "cusolverDnIRSParamsSetSolverPrecisions");
    ok(cusolverDnIRSParamsSetRefinementSolver(pr, gmres ? CUSOLVER_IRS_REFINE_GMRES : CUSOLVER_IRS_REFINE_CLASSICAL),
       "cusolverDnIRSParamsSetRefinementSolver");
    size_t bytes = 0;
    ok(cusolverDnIRSXgesv_bufferSize(hs, pr, n, nrhs, &bytes), "cusolverDnIRSXgesv_bufferSize");
    const DevicePtr<char> work = device_alloc<char>(bytes + 1, "cudaMalloc(work)");
    const DevicePtr<int> info = device_alloc<int>(1, "cudaMalloc(info)");
    const DevicePtr<double> Bw = device_alloc<double>(p.b_count, "cudaMalloc(B)");
    cusolver_int_t iters = 0;
    r.seconds = timed_runs(
        st, warmup, repeat,
        [&] {
            ok(cudaMemcpyAsync(p.A.get(), p.A0.get(), p.a_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "A");
            ok(cudaMemcpyAsync(Bw.get(), p.B0.get(), p.b_count * sizeof(double), cudaMemcpyDeviceToDevice, st), "B");
        },
        [&] {
            ok(cusolverDnIRSXgesv(hs, pr, in, n, nrhs, p.A.get(), n, Bw.get(), n, p.X.get(), n, work.get(), bytes,
                                  &iters, info.get()),
               "cusolverDnIRSXgesv");
        });
    r.iterations = static_cast<int>(iters);
    ok(cudaMemcpy(&r.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    if (r.info == 0) r.backward_error = p.backward_error();
    return r;
}

}  // namespace starfact::support
