// CPU baselines for starpu_chol and starpu_lu: one LAPACKE call per run (OpenBLAS with all its threads).
#include <cblas.h>
#include <lapacke.h>

#include <chrono>
#include <thread>
#include <vector>

#include "support/reference.hpp"
#include "starfact/check.hpp"

namespace starfact::support {
namespace {
inline int potrf(int64_t n, float* A) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, A, n); }
inline int potrf(int64_t n, double* A) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, n); }
inline int potri(int64_t n, float* A) { return LAPACKE_spotri_work(LAPACK_COL_MAJOR, 'L', n, A, n); }
inline int potri(int64_t n, double* A) { return LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', n, A, n); }
inline int getrf(int64_t n, float* A, int* ipiv) { return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv); }
inline int getrf(int64_t n, double* A, int* ipiv) { return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv); }

/// warmup + repeat runs of call(W) on a fresh copy W of the n x n matrix A, with all OpenBLAS threads; the timed
/// seconds and the last info in the result, W left with the last run's output.
template <typename T, typename Call>
VendorRun timed_runs(int64_t n, const T* A, int warmup, int repeat, std::vector<T>& W, Call call) {
    VendorRun r;
    r.name = "lapacke";
    const int before = openblas_get_num_threads();
    openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    W.resize(static_cast<size_t>(n) * n);
    for (int run = 0; run < warmup + repeat; ++run) {
        std::copy(A, A + W.size(), W.begin());
        const auto t0 = std::chrono::steady_clock::now();
        r.info = call(W.data());
        const auto t1 = std::chrono::steady_clock::now();
        if (run >= warmup) r.seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    openblas_set_num_threads(before);
    return r;
}
}  // namespace

template <typename T>
VendorRun lapacke_potrf(int64_t n, const T* A, int warmup, int repeat, bool check) {
    std::vector<T> W;
    VendorRun r = timed_runs(n, A, warmup, repeat, W, [n](T* w) { return potrf(n, w); });
    if (check && r.info == 0) r.residual = potrf_residual<T>(n, A, n, W.data(), n);
    return r;
}

template <typename T>
VendorRun lapacke_potri(int64_t n, const T* A, int warmup, int repeat, bool check) {
    std::vector<T> W;
    VendorRun r = timed_runs(n, A, warmup, repeat, W, [n](T* w) {
        const int info = potrf(n, w);
        return info == 0 ? potri(n, w) : info;
    });
    if (check && r.info == 0) r.residual = potri_residual<T>(n, A, n, W.data(), n);
    return r;
}

template <typename T>
VendorRun lapacke_getrf(int64_t n, const T* A, int warmup, int repeat, bool check) {
    std::vector<T> W;
    std::vector<int> ipiv(static_cast<size_t>(n));
    VendorRun r = timed_runs(n, A, warmup, repeat, W, [&](T* w) { return getrf(n, w, ipiv.data()); });
    if (check && r.info == 0) {
        const std::vector<int64_t> p(ipiv.begin(), ipiv.end());
        r.residual = getrf_residual<T>(n, A, n, W.data(), n, p.data());
    }
    return r;
}

template VendorRun lapacke_potrf<float>(int64_t, const float*, int, int, bool);
template VendorRun lapacke_potrf<double>(int64_t, const double*, int, int, bool);
template VendorRun lapacke_potri<float>(int64_t, const float*, int, int, bool);
template VendorRun lapacke_potri<double>(int64_t, const double*, int, int, bool);
template VendorRun lapacke_getrf<float>(int64_t, const float*, int, int, bool);
template VendorRun lapacke_getrf<double>(int64_t, const double*, int, int, bool);

}  // namespace starfact::support
