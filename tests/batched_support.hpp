// Helpers shared by the batched tests (test_batched_{chol,lu}_{cpu,gpu}.cpp): the name of the argument an
// InvalidArgument names, a device buffer (CUDA builds), and for the Cholesky tests the LAPACKE reference
// calls, the error tolerance and the largest deviation from a reference. Include after catch.hpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::test::batched {

/// The argument named by the InvalidArgument that f() throws, "(nothing thrown)" when it throws none.
template <typename F>
std::string thrown_argument(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.argument();
    }
    return "(nothing thrown)";
}

#ifdef STARFACT_HAVE_CUDA
/// A device array of n elements (at least one is allocated), freed on scope exit.
template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) {
        REQUIRE(cudaMalloc(&p_, std::max<size_t>(n, 1) * sizeof(T)) == cudaSuccess);
    }
    explicit DeviceBuffer(const std::vector<T>& h) : DeviceBuffer(h.size()) { upload(h); }
    ~DeviceBuffer() { cudaFree(p_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void upload(const std::vector<T>& h) {
        REQUIRE(cudaMemcpy(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    /// Waits for the device, then copies the whole array back.
    std::vector<T> download() const {
        std::vector<T> h(n_);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }
    T* get() const { return p_; }

private:
    T* p_ = nullptr;
    size_t n_;
};
#endif

// ---- the Cholesky tests ---------------------------------------------------------------------------

template <typename T>
int lapack_potrf(int n, T* A, int lda) {
    return starfact::detail::cpu::potrf<T>(n, A, lda);
}
template <typename T>
int lapack_potrs(int n, int nrhs, const T* L, int lda, T* B, int ldb) {
    return starfact::detail::cpu::potrs<T>(n, nrhs, L, lda, B, ldb);
}

/// Relative tolerance for factors and solutions of order n: 30 n epsilon.
template <typename T>
double tolerance(int n) {
    return 30.0 * std::max(n, 1) * std::numeric_limits<T>::epsilon();
}

/// max |x - ref| and max |ref| over the lower triangle of n x n matrices (leading dimension ld).
struct Deviation {
    double err = 0, scale = 0;
};
template <typename T, typename R>
Deviation lower_deviation(int n, const T* x, const R* ref, int64_t ld) {
    Deviation d;
    for (int c = 0; c < n; ++c)
        for (int r = c; r < n; ++r) {
            const int64_t k = r + static_cast<int64_t>(c) * ld;
            d.err = std::max(d.err, std::abs(static_cast<double>(x[k]) - static_cast<double>(ref[k])));
            d.scale = std::max(d.scale, std::abs(static_cast<double>(ref[k])));
        }
    return d;
}

}  // namespace starfact::test::batched
