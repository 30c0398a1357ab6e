// The complex part of the batched benches (bench_batched_chol --prec c|z, bench_batched_lu --prec c|z): the batched
// API on std::complex<float> or std::complex<double> device batches (starfact::batched::device, whose GPU path for
// complex types is the vendor's batched routines, kernels/batched_vendor/) against the bare vendor routines on the
// same data in the same run, so that the cost of the API around them (its pointer arrays built on the device, the
// info rule's kernel, pivot copies, the inverse's copy of A) shows:
//   Cholesky: potrf vs cusolverDn<t>potrfBatched; posv with 1 and 4 right-hand sides vs potrfBatched + potrsBatched
//             (one) or + two cublas<t>trsmBatched (four)
//   LU:       getrf vs cublas<t>getrfBatched; getrs (one right-hand side) vs getrsBatched; the inverse (out of place)
//             vs getrfBatched + getriBatched and vs matinvBatched
// Inputs are generated on the device (Hermitian diagonally dominant members, or general ones); the input is
// restored, untimed, before every run. Median times of CUDA events after warm-up; GFLOP/s count a complex
// multiply-add as four real flops (LAWN 41 counts times 4).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "bench/common.hpp"
#include "kernels/cuda_blas.hpp"
#include "starfact/batched_cholesky.hpp"
#include "starfact/batched_lu.hpp"
#include "starfact/cholesky.hpp"

namespace starfact::bench::complex_batched {

namespace dg = starfact::detail::gpu;

__device__ inline double hashed_uniform(uint64_t i, uint64_t seed) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;  // [-1, 1)
}

/// `batch` n x n matrices (ld n, packed): hermitian: entries below the diagonal uniform in the unit square, their
/// conjugates above, a real diagonal of 2 n (positive definite); else `total` entries uniform in the unit square.
template <typename R>
__global__ void fill_kernel(R* a, int n, int64_t total, bool hermitian, uint64_t seed) {
    for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
        const int64_t b = k / (int64_t(n) * n);
        const int e = int(k - b * n * n), i = e % n, j = e / n;
        double re, im;
        if (hermitian && i == j) {
            re = 2.0 * n;
            im = 0;
        } else {
            const bool upper = hermitian && i < j;
            const int64_t src = b * n * n + (upper ? j + int64_t(i) * n : e);  // the lower entry mirrored
            re = hashed_uniform(2 * src, seed);
            im = hashed_uniform(2 * src + 1, seed);
            if (upper) im = -im;
        }
        a[2 * k] = R(re);
        a[2 * k + 1] = R(im);
    }
}
template <typename C>
void fill(C* a, int n, int64_t total, bool hermitian, uint64_t seed, cudaStream_t st) {
    using R = typename C::value_type;
    fill_kernel<R><<<4096, 256, 0, st>>>(reinterpret_cast<R*>(a), n, total, hermitian, seed);
    STARFACT_BENCH_CUDA(cudaGetLastError());
}

/// Device arrays of one case: the batch, its pristine copy, its pointer array; right-hand sides; outputs; infos.
template <typename C>
struct Arrays {
    int n;
    int64_t batch, nn;
    C *A = nullptr, *A0 = nullptr, *B = nullptr, *B0 = nullptr, *X = nullptr;
    C **pA = nullptr, **pB = nullptr, **pX = nullptr;
    int *info = nullptr, *piv = nullptr;
    Arrays(int order, int64_t members, int64_t nrhs, bool hermitian, cudaStream_t st)
        : n(order), batch(members), nn(int64_t(order) * order) {
        STARFACT_BENCH_CUDA(cudaMalloc(&A, sizeof(C) * batch * nn));
        STARFACT_BENCH_CUDA(cudaMalloc(&A0, sizeof(C) * batch * nn));
        STARFACT_BENCH_CUDA(cudaMalloc(&X, sizeof(C) * batch * nn));
        STARFACT_BENCH_CUDA(cudaMalloc(&B, sizeof(C) * batch * n * nrhs));
        STARFACT_BENCH_CUDA(cudaMalloc(&B0, sizeof(C) * batch * n * nrhs));
        STARFACT_BENCH_CUDA(cudaMalloc(&pA, sizeof(C*) * batch));
        STARFACT_BENCH_CUDA(cudaMalloc(&pB, sizeof(C*) * batch));
        STARFACT_BENCH_CUDA(cudaMalloc(&pX, sizeof(C*) * batch));
        STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int) * batch));
        STARFACT_BENCH_CUDA(cudaMalloc(&piv, sizeof(int) * batch * n));
        fill(A0, n, batch * nn, hermitian, 0x5eed, st);
        fill(B0, n, batch * n * nrhs, false, 0xb0b, st);
        std::vector<C*> h(batch);
        for (int64_t b = 0; b < batch; ++b) h[b] = A + b * nn;
        STARFACT_BENCH_CUDA(cudaMemcpy(pA, h.data(), sizeof(C*) * batch, cudaMemcpyHostToDevice));
        for (int64_t b = 0; b < batch; ++b) h[b] = B + b * n * nrhs;
        STARFACT_BENCH_CUDA(cudaMemcpy(pB, h.data(), sizeof(C*) * batch, cudaMemcpyHostToDevice));
        for (int64_t b = 0; b < batch; ++b) h[b] = X + b * nn;
        STARFACT_BENCH_CUDA(cudaMemcpy(pX, h.data(), sizeof(C*) * batch, cudaMemcpyHostToDevice));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(st));
    }
    ~Arrays() {
        for (void* p : {(void*)A, (void*)A0, (void*)B, (void*)B0, (void*)X, (void*)pA, (void*)pB, (void*)pX,
                        (void*)info, (void*)piv})
            cudaFree(p);
    }
    /// Restores A (and B, nrhs columns) from the pristine copies.
    void reset(cudaStream_t st, int64_t nrhs) const {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(A, A0, sizeof(C) * batch * nn, cudaMemcpyDeviceToDevice, st));
        if (nrhs > 0)
            STARFACT_BENCH_CUDA(cudaMemcpyAsync(B, B0, sizeof(C) * batch * n * nrhs, cudaMemcpyDeviceToDevice, st));
    }
};

template <typename C>
const char* letter() {
    return std::is_same<C, std::complex<float>>::value ? "c" : "z";
}

inline void row(const char* prec, const char* op, int n, int64_t batch, double ours, double vendor, double flops) {
    std::printf("%s %-8s n %3d batch %8lld | starfact %9.3f ms %8.1f GF/s | vendor %9.3f ms %8.1f GF/s | x%5.2f\n",
                prec, op, n, static_cast<long long>(batch), ours * 1e3, flops / ours * 1e-9, vendor * 1e3,
                flops / vendor * 1e-9, vendor / ours);
}

/// The Cholesky rows for every batch and order.
template <typename C>
void cholesky(const std::vector<int>& sizes, const std::vector<int64_t>& batches, int warmup, int repeat,
              cudaStream_t st) {
    cusolverDnHandle_t sol;
    cublasHandle_t blas;
    STARFACT_BENCH_STATUS(cusolverDnCreate(&sol));
    STARFACT_BENCH_STATUS(cusolverDnSetStream(sol, st));
    STARFACT_BENCH_STATUS(cublasCreate(&blas));
    STARFACT_BENCH_STATUS(cublasSetStream(blas, st));
    int* dinfo = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&dinfo, sizeof(int)));
    std::printf("complex batched Cholesky (%s): starfact::batched::device (vendor path) vs the bare vendor routines; "
                "xR = vendor time / starfact time\n",
                letter<C>());
    for (int64_t batch : batches)
        for (int n : sizes) {
            const int nrhs_max = 4;
            Arrays<C> a(n, batch, nrhs_max, true, st);
            const int ib = int(batch);
            const double cf = 4.0 * double(batch);  // complex flops
            auto reset0 = [&](cudaStream_t s) { a.reset(s, 0); };
            const double ours_potrf = time_median(st, warmup, repeat, [&](cudaStream_t s) {
                batched::device::potrf<C>(n, a.A, n, a.nn, a.info, batch, s);
            }, reset0);
            const double vendor_potrf = time_median(st, warmup, repeat, [&](cudaStream_t) {
                STARFACT_BENCH_STATUS(dg::potrf_batched<C>(sol, n, a.pA, n, a.info, ib));
            }, reset0);
            row(letter<C>(), "potrf", n, batch, ours_potrf, vendor_potrf, cf * potrf_flops(n));
            for (int nrhs : {1, nrhs_max}) {
                auto reset = [&](cudaStream_t s) { a.reset(s, nrhs); };
                const double ours = time_median(st, warmup, repeat, [&](cudaStream_t s) {
                    batched::device::posv<C>(n, nrhs, a.A, n, a.nn, a.B, n, int64_t(n) * nrhs, a.info, batch, s);
                }, reset);
                // the bare vendor: B's members n * nrhs apart (its pointer array pB built for nrhs_max: rebuilt
                // untimed here)
                std::vector<C*> h(batch);
                for (int64_t b = 0; b < batch; ++b) h[b] = a.B + b * n * nrhs;
                STARFACT_BENCH_CUDA(cudaMemcpy(a.pB, h.data(), sizeof(C*) * batch, cudaMemcpyHostToDevice));
                const double vendor = time_median(st, warmup, repeat, [&](cudaStream_t) {
                    STARFACT_BENCH_STATUS(dg::potrf_batched<C>(sol, n, a.pA, n, a.info, ib));
                    if (nrhs == 1) {
                        STARFACT_BENCH_STATUS(dg::potrs_batched<C>(sol, n, 1, a.pA, n, a.pB, n, dinfo, ib));
                    } else {
                        using namespace starfact::detail;
                        const C* const* L = a.pA;
                        STARFACT_BENCH_STATUS(dg::trsm_batched<C>(blas, Side::Left, Uplo::Lower, Op::NoTrans,
                                                                  Diag::NonUnit, n, nrhs, C(1), L, n, a.pB, n, ib));
                        STARFACT_BENCH_STATUS(dg::trsm_batched<C>(blas, Side::Left, Uplo::Lower, Op::ConjTrans,
                                                                  Diag::NonUnit, n, nrhs, C(1), L, n, a.pB, n, ib));
                    }
                }, reset);
                row(letter<C>(), nrhs == 1 ? "posv(1)" : "posv(4)", n, batch, ours, vendor,
                    cf * (potrf_flops(n) + potrs_flops(n, nrhs)));
            }
        }
    cudaFree(dinfo);
    cublasDestroy(blas);
    cusolverDnDestroy(sol);
}

/// The LU rows for every order.
template <typename C>
void lu(const std::vector<int>& sizes, int64_t batch, int warmup, int repeat, cudaStream_t st) {
    cublasHandle_t blas;
    STARFACT_BENCH_STATUS(cublasCreate(&blas));
    STARFACT_BENCH_STATUS(cublasSetStream(blas, st));
    std::printf("complex batched LU (%s): starfact::batched::device (vendor path) vs the bare vendor routines; "
                "xR = vendor time / starfact time\n",
                letter<C>());
    const int ib = int(batch);
    for (int n : sizes) {
        Arrays<C> a(n, batch, 1, false, st);
        const double cf = 4.0 * double(batch);
        auto reset0 = [&](cudaStream_t s) { a.reset(s, 0); };
        const double ours_getrf = time_median(st, warmup, repeat, [&](cudaStream_t s) {
            batched::device::getrf<C>(n, a.A, n, a.nn, a.piv, n, a.info, batch, s);
        }, reset0);
        const double vendor_getrf = time_median(st, warmup, repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(dg::getrf_batched<C>(blas, n, a.pA, n, a.piv, a.info, ib));
        }, reset0);
        row(letter<C>(), "getrf", n, batch, ours_getrf, vendor_getrf, cf * batched::getrf_flops(n));
        // getrs on the factors now in A (one right-hand side)
        auto reset1 = [&](cudaStream_t s) {
            STARFACT_BENCH_CUDA(cudaMemcpyAsync(a.B, a.B0, sizeof(C) * batch * n, cudaMemcpyDeviceToDevice, s));
        };
        const double ours_getrs = time_median(st, warmup, repeat, [&](cudaStream_t s) {
            batched::device::getrs<C>(n, 1, a.A, n, a.nn, a.piv, n, a.B, n, n, batch, s);
        }, reset1);
        const double vendor_getrs = time_median(st, warmup, repeat, [&](cudaStream_t) {
            int arg = 0;
            const C* const* LU = a.pA;
            STARFACT_BENCH_STATUS(dg::getrs_batched<C>(blas, starfact::detail::Op::NoTrans, n, 1, LU, n, a.piv, a.pB,
                                                       n, &arg, ib));
        }, reset1);
        row(letter<C>(), "getrs(1)", n, batch, ours_getrs, vendor_getrs, cf * batched::getrs_flops(n, 1));
        // the inverse out of place, from A
        const double ours_inv = time_median(st, warmup, repeat, [&](cudaStream_t s) {
            batched::device::inverse<C>(n, a.A, n, a.nn, a.X, n, a.nn, nullptr, n, a.info, batch, s);
        }, reset0);
        const double vendor_getri = time_median(st, warmup, repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(dg::getrf_batched<C>(blas, n, a.pA, n, a.piv, a.info, ib));
            const C* const* LU = a.pA;
            STARFACT_BENCH_STATUS(dg::getri_batched<C>(blas, n, LU, n, a.piv, a.pX, n, a.info, ib));
        }, reset0);
        const double inv_flops = cf * (batched::getrf_flops(n) + batched::getri_flops(n));
        row(letter<C>(), "inverse", n, batch, ours_inv, vendor_getri, inv_flops);
        const double vendor_matinv = time_median(st, warmup, repeat, [&](cudaStream_t) {
            const C* const* A = a.pA;
            STARFACT_BENCH_STATUS(dg::matinv_batched<C>(blas, n, A, n, a.pX, n, a.info, ib));
        }, reset0);
        row(letter<C>(), "inv/mat", n, batch, ours_inv, vendor_matinv, inv_flops);
    }
    cublasDestroy(blas);
}

}  // namespace starfact::bench::complex_batched
