// CPU baselines for starpu_chol and starpu_lu, every precision (s, d, c, z): one LAPACKE call per run through the
// scalar layer (kernels/cpu_lapack.hpp; OpenBLAS with all its threads), and the residuals of host_checks.hpp.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <thread>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/check.hpp"
#include "support/host_checks.hpp"
#include "support/reference.hpp"

namespace starfact::support {
namespace {
/// warmup + repeat runs of call(W) on a fresh copy W of the n x n matrix A, with all OpenBLAS threads; the timed
/// seconds and the last info in the result, W left with the last run's output.
template <typename T, typename Call>
VendorRun timed_runs(int64_t n, const T* A, int warmup, int repeat, std::vector<T>& W, Call call) {
    VendorRun r;
    r.name = "lapacke";
    const int before = openblas_get_num_threads();
    openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    W.resize(static_cast<size_t>(n) * static_cast<size_t>(n));
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
    VendorRun r = timed_runs(n, A, warmup, repeat, W, [n](T* w) { return detail::cpu::potrf<T>(int(n), w, int(n)); });
    if (check && r.info == 0) r.residual = cholesky_residual<T>(n, A, W.data());
    return r;
}

template <typename T>
VendorRun lapacke_potri(int64_t n, const T* A, int warmup, int repeat, bool check) {
    std::vector<T> W;
    VendorRun r = timed_runs(n, A, warmup, repeat, W, [n](T* w) {
        const int info = detail::cpu::potrf<T>(int(n), w, int(n));
        return info == 0 ? detail::cpu::potri<T>(int(n), w, int(n)) : info;
    });
    if (check && r.info == 0) r.residual = potri_residual<T>(n, A, n, W.data(), n);
    return r;
}

template <typename T>
VendorRun lapacke_getrf(int64_t n, const T* A, int warmup, int repeat, bool check) {
    std::vector<T> W;
    std::vector<lapack_int> ipiv(static_cast<size_t>(std::max<int64_t>(n, 1)));
    VendorRun r = timed_runs(n, A, warmup, repeat, W,
                             [&](T* w) { return detail::cpu::getrf<T>(int(n), int(n), w, int(n), ipiv.data()); });
    if (check && r.info == 0) {
        const std::vector<int64_t> p(ipiv.begin(), ipiv.begin() + n);
        r.residual = lu_residual<T>(n, A, W.data(), p.data());
    }
    return r;
}

#define STARFACT_LAPACKE_BASELINES(T)                                       \
    template VendorRun lapacke_potrf<T>(int64_t, const T*, int, int, bool); \
    template VendorRun lapacke_getrf<T>(int64_t, const T*, int, int, bool);
STARFACT_LAPACKE_BASELINES(float)
STARFACT_LAPACKE_BASELINES(double)
STARFACT_LAPACKE_BASELINES(std::complex<float>)
STARFACT_LAPACKE_BASELINES(std::complex<double>)
#undef STARFACT_LAPACKE_BASELINES
template VendorRun lapacke_potri<float>(int64_t, const float*, int, int, bool);
template VendorRun lapacke_potri<double>(int64_t, const double*, int, int, bool);
template VendorRun lapacke_potri<std::complex<float>>(int64_t, const std::complex<float>*, int, int, bool);
template VendorRun lapacke_potri<std::complex<double>>(int64_t, const std::complex<double>*, int, int, bool);

}  // namespace starfact::support
