// The log-determinant on CUDA workers [gpu][logdet]: logdet of factors in host- and device-resident tiles, and
// potrf_logdet of host and device arrays, against LAPACK's Cholesky (tests/logdet_support.hpp); determinants that
// overflow; bad factors and non-SPD matrices reported through info with a NaN result, the info set on the device.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/gpu_arrays.hpp"
#include "tests/logdet_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
namespace reference = starfact::test::logdet;

namespace {

bool is_nan(const LogDet& d) { return std::isnan(d.sign) && std::isnan(d.logabsdet); }

/// A device copy of an array, freed at the end.
template <typename T>
class DeviceCopy {
public:
    explicit DeviceCopy(const std::vector<T>& A) : bytes_(A.size() * sizeof(T)) {
        REQUIRE(cudaMalloc(&d_, bytes_) == cudaSuccess);
        REQUIRE(cudaMemcpy(d_, A.data(), bytes_, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    ~DeviceCopy() { cudaFree(d_); }
    DeviceCopy(const DeviceCopy&) = delete;
    DeviceCopy& operator=(const DeviceCopy&) = delete;
    T* data() const { return d_; }

private:
    size_t bytes_;
    T* d_ = nullptr;
};

/// potrf then logdet on tiles of `residency` (imported through a device array when `device_arrays`), and
/// potrf_logdet of the device array itself, against the reference; the matrix scaled by `scale` first.
template <typename T>
void check_logdet_gpu(int64_t n, int64_t nb, Mapping mapping, Residency residency, bool device_arrays,
                      double scale = 1.0) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " residency=" << to_string(residency)
              << " device_arrays=" << device_arrays << " scale=" << scale << " seed=" << seed
              << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    std::vector<T> A = spd_matrix<T>(n, n, seed);
    const reference::Reference ref0 = reference::reference<T>(n, A.data(), n);
    REQUIRE(ref0.info == 0);
    const double expected = ref0.value + static_cast<double>(n) * std::log(scale);
    if (scale != 1.0) reference::scale(n, A, n, scale);
    const double tol = reference::tolerance<T>(n, expected);
    INFO("expected=" << expected << " tolerance=" << tol);
    Options o;
    o.mapping = mapping;

    TileMatrix<T> tiles(runtime(), n, nb, residency);
    const ArrayPath<T> path(A, device_arrays);
    path.import(tiles, A, n);
    REQUIRE(potrf(tiles, o) == 0);
    LogDet d{0.0, 0.0};
    REQUIRE(logdet(tiles, d, o) == 0);
    CHECK(d.sign == 1.0);
    CHECK(std::abs(d.logabsdet - expected) <= tol);

    const DeviceCopy<T> dA(A);
    LogDet e{0.0, 0.0};
    REQUIRE(potrf_logdet(runtime(), n, dA.data(), n, e, o, Tiling{nb}) == 0);
    CHECK(e.sign == 1.0);
    CHECK(std::abs(e.logabsdet - expected) <= tol);
    CHECK(settled_pending_tasks(runtime()) == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("GPU logdet against LAPACK's Cholesky, host and device residency", "[gpu][logdet]", float,
                   double) {
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t nb : {64, 256})
            for (int64_t n : {int64_t(1), nb - 1, nb + 1, 3 * nb + 7, int64_t(1000)})
                check_logdet_gpu<TestType>(n, nb, Mapping::GpuOnly, r, r == Residency::Device);
    check_logdet_gpu<TestType>(1500, 128, Mapping::Hybrid, Residency::Host, false);
    check_logdet_gpu<TestType>(1000, 96, Mapping::Hybrid, Residency::Device, true);
}

TEMPLATE_TEST_CASE("GPU logdet where the determinant overflows or underflows", "[gpu][logdet]", float, double) {
    const double big = sizeof(TestType) == sizeof(float) ? 1e30 : 1e200;
    for (double s : {big, 1.0 / big}) check_logdet_gpu<TestType>(700, 128, Mapping::GpuOnly, Residency::Device, true, s);
}

TEMPLATE_TEST_CASE("GPU logdet: bad factors and non-SPD matrices give info and NaN", "[gpu][logdet]", float, double) {
    using T = TestType;
    const int64_t n = 600, nb = 128;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    Options gpu;
    gpu.mapping = Mapping::GpuOnly;
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    std::vector<T> F = A;
    REQUIRE(potrf(runtime(), n, F.data(), n, gpu, Tiling{nb}) == 0);
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    for (int64_t k : {int64_t{0}, int64_t{200}, n - 1})
        for (T v : {T(0), T(-3), nan, inf}) {
            INFO("L(" << k << ", " << k << ") = " << v);
            std::vector<T> G = F;
            G[k + k * n] = v;
            TileMatrix<T> L(runtime(), n, nb, Residency::Device);
            L.import(G.data(), n);
            LogDet d;
            CHECK(logdet(L, d, gpu) == k + 1);
            CHECK(is_nan(d));
        }
    std::vector<T> B = A;
    B[300 + 300 * n] = T(-1);
    LogDet d;
    CHECK(potrf_logdet(runtime(), n, B.data(), n, d, gpu, Tiling{nb, Residency::Device}) == 301);
    CHECK(is_nan(d));
    CHECK(settled_pending_tasks(runtime()) == 0);
}
