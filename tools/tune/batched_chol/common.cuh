// The autotuning sweep's timing harness: tune_one<T, N, NB, NT, MPB, OCC>() factors 10,000 random SPD
// matrices of order N with that configuration (strided, lda = N), prints one CSV line
//   prec,n,d,nb,nt,mpb,occ,us,ok
// (median of 7 timed runs after 2 warm-ups, CUDA events; ok = info all 0 and the first 16 members
// match a host Cholesky). Candidate lists: candidates_*.cu (tools/tune_batched_chol.sh candidates).
// Shared by the left-looking sweep (tune_one) and the resident one (resident.cu).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/spd_batch.cuh"
#include "kernels/batched_chol/dispatch.cuh"

namespace starfact::batched::tune {

constexpr int64_t kBatch = 10000;

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "tune_batched_chol: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}


template <typename T>
bool host_check(int n, const std::vector<T>& in, const std::vector<T>& out, int members) {
    for (int m = 0; m < members; ++m) {
        std::vector<double> L(in.begin() + int64_t(m) * n * n, in.begin() + int64_t(m + 1) * n * n);
        for (int j = 0; j < n; ++j) {
            double d = L[j + j * n];
            for (int k = 0; k < j; ++k) d -= L[j + k * n] * L[j + k * n];
            d = std::sqrt(d);
            L[j + j * n] = d;
            for (int i = j + 1; i < n; ++i) {
                double s = L[i + j * n];
                for (int k = 0; k < j; ++k) s -= L[i + k * n] * L[j + k * n];
                L[i + j * n] = s / d;
            }
        }
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i)
                if (std::abs(L[i + j * n] - out[int64_t(m) * n * n + i + j * n]) > 1e-3 * std::sqrt(double(n))) return false;
    }
    return true;
}

/// Times launch(args) on kBatch random SPD matrices of order n (strided, lda = n): median of 7 runs
/// after 2 warm-ups (CUDA events, input restored before each); ok = info all 0 and the first 16 members
/// match a host Cholesky. Shared by the left-looking (tune_one) and the resident (resident.cu) sweeps.
struct Timing {
    double us;
    bool ok;
};
template <typename T, typename Launch>
Timing time_factor(int n, Launch&& launch) {
    const size_t elems = static_cast<size_t>(kBatch) * n * n;
    T *pristine = nullptr, *work = nullptr;
    int* info = nullptr;
    check(cudaMalloc(&pristine, elems * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&work, elems * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&info, kBatch * sizeof(int)), "cudaMalloc");
    starfact::bench::fill_spd<T><<<1024, 256>>>(pristine, n, n, kBatch);
    gpu::Args<T> a;
    a.n = n;
    a.A.base = work;
    a.A.stride = int64_t(n) * n;
    a.lda = n;
    a.info = info;
    a.batch = kBatch;
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "event");
    check(cudaEventCreate(&e1), "event");
    std::vector<double> t;
    for (int r = 0; r < 9; ++r) {
        check(cudaMemcpy(work, pristine, elems * sizeof(T), cudaMemcpyDeviceToDevice), "reset");
        check(cudaEventRecord(e0), "record");
        launch(a);
        check(cudaEventRecord(e1), "record");
        check(cudaEventSynchronize(e1), "kernel");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
        if (r >= 2) t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    std::vector<int> hinfo(kBatch);
    check(cudaMemcpy(hinfo.data(), info, kBatch * sizeof(int), cudaMemcpyDeviceToHost), "info");
    const int members = 16;
    std::vector<T> in(size_t(members) * n * n), out(in.size());
    check(cudaMemcpy(in.data(), pristine, in.size() * sizeof(T), cudaMemcpyDeviceToHost), "in");
    check(cudaMemcpy(out.data(), work, out.size() * sizeof(T), cudaMemcpyDeviceToHost), "out");
    const bool ok = std::all_of(hinfo.begin(), hinfo.end(), [](int v) { return v == 0; }) &&
                    host_check<T>(n, in, out, members);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(pristine);
    cudaFree(work);
    cudaFree(info);
    return {t[t.size() / 2], ok};
}

template <typename T, int N, int NB, int NT, int MPB, int OCC>
void tune_one(int d) {
    const Timing r = time_factor<T>(N, [](const gpu::Args<T>& a) { gpu::run_factor<T, N, NB, NT, MPB, OCC, false, false>(a); });
    std::printf("%s,%d,%d,%d,%d,%d,%d,%.2f,%d\n", sizeof(T) == 8 ? "d" : "s", N, d, NB, NT, MPB, OCC, r.us,
                r.ok ? 1 : 0);
    std::fflush(stdout);
}

}  // namespace starfact::batched::tune
