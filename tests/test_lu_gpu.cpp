// GPU tile LU [gpu][lu]: the CUDA panel (cuSOLVER getrf on the gathered column), laswp and solves under the
// GPU-only mapping, host- and device-resident tiles, both precisions; residuals, LAPACK's pivots on one tile,
// singular matrices (LAPACK's info, no NaN). Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include "tests/lu_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::lu;

namespace {

Options gpu_only() {
    Options o;
    o.mapping = Mapping::GpuOnly;
    return o;
}

/// Factors a random matrix on GPU workers (imported from a device array when asked) and checks the residual;
/// with one tile, also that the pivots are LAPACK's.
template <typename T>
void check_gpu_getrf(int64_t n, int64_t nb, Residency residency, bool device_arrays) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " residency=" << to_string(residency) << " device_arrays=" << device_arrays
              << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = random_general<T>(n, n, seed);
    std::vector<T> LU(A.size());
    TileMatrix<T> tiles(runtime(), n, nb, residency);
    Pivots piv(tiles);
    T* dA = nullptr;
    if (device_arrays) {
        REQUIRE(cudaMalloc(&dA, A.size() * sizeof(T)) == cudaSuccess);
        REQUIRE(cudaMemcpy(dA, A.data(), A.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
        tiles.import(dA, n);
    } else {
        tiles.import(A.data(), n);
    }
    REQUIRE(getrf(tiles, piv, gpu_only()) == 0);
    if (device_arrays) {
        tiles.export_to(dA, n);
        REQUIRE(cudaMemcpy(LU.data(), dA, A.size() * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        cudaFree(dA);
    } else {
        tiles.export_to(LU.data(), n);
    }
    const std::vector<int64_t> ipiv = piv.ipiv();
    const double res = lu_residual<T>(n, A.data(), n, LU.data(), n, ipiv);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(all_finite(LU));
    if (n <= nb && sizeof(T) == 8) {  // cuSOLVER and LAPACK agree on clear-cut pivots
        std::vector<T> ref = A;
        std::vector<int> ref_piv(static_cast<size_t>(n));
        REQUIRE(lapack_getrf<T>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data()) == 0);
        bool same = true;
        for (int64_t i = 0; i < n; ++i) same = same && ipiv[i] == ref_piv[i];
        CHECK(same);
    }
}

}  // namespace

TEMPLATE_TEST_CASE("GPU-only getrf residual < 60, host and device residency", "[gpu][lu]", float, double) {
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t nb : {64, 256})
            for (int64_t n : {int64_t(1), nb - 1, nb, 3 * nb + 7, int64_t(1000)})
                check_gpu_getrf<TestType>(n, nb, r, false);
    check_gpu_getrf<TestType>(2000, 512, Residency::Device, true);
    check_gpu_getrf<TestType>(2000, 2000, Residency::Device, true);  // one panel task
    check_gpu_getrf<TestType>(1500, 512, Residency::Host, true);
}

TEMPLATE_TEST_CASE("GPU getrf: singular matrices give LAPACK's info and no NaN", "[gpu][lu]", float, double) {
    using T = TestType;
    const int64_t n = 300;
    for (int64_t nb : {64, 300}) {
        for (int64_t col : {int64_t(0), int64_t(130), n - 1}) {
            const uint64_t seed = fresh_seed();
            INFO("nb=" << nb << " zero column " << col << " seed=" << seed);
            std::vector<T> A = random_general<T>(n, n, seed);
            for (int64_t i = 0; i < n; ++i) A[i + col * n] = T(0);
            std::vector<T> ref = A;
            std::vector<int> ref_piv(static_cast<size_t>(n));
            const int ref_info = lapack_getrf<T>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data());
            std::vector<T> LU = A;
            std::vector<int64_t> ipiv(static_cast<size_t>(n));
            const int info = getrf(runtime(), n, LU.data(), n, ipiv.data(), gpu_only(), Tiling{nb, Residency::Device});
            CHECK(info == ref_info);
            CHECK(all_finite(LU));
            CHECK(lu_residual<T>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
        }
    }
}

TEMPLATE_TEST_CASE("GPU gesv and getrf_nopiv", "[gpu][lu]", float, double) {
    using T = TestType;
    const int64_t n = 1100, nb = 256;
    for (Residency r : {Residency::Host, Residency::Device}) {
        for (int64_t nrhs : {int64_t(1), int64_t(7), nb + 5}) {
            const uint64_t seed = fresh_seed();
            INFO("nrhs=" << nrhs << " residency=" << to_string(r) << " seed=" << seed);
            const std::vector<T> A = random_general<T>(n, n, seed);
            std::vector<T> B(static_cast<size_t>(n * nrhs));
            random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
            std::vector<T> LU = A, X = B;
            std::vector<int64_t> ipiv(static_cast<size_t>(n));
            REQUIRE(gesv(runtime(), n, nrhs, LU.data(), n, ipiv.data(), X.data(), n, gpu_only(), Tiling{nb, r}) == 0);
            CHECK(general_solve_residual<T>(n, nrhs, A.data(), X.data(), B.data()) < kResidualLimit);
        }
    }
    std::vector<T> A = random_general<T>(n, n, fresh_seed());
    for (int64_t i = 0; i < n; ++i) A[i + i * n] += T(n);
    TileMatrix<T> a(runtime(), n, nb, Residency::Device);
    a.import(A.data(), n);
    REQUIRE(getrf_nopiv(a, gpu_only()) == 0);
    std::vector<T> LU(A.size());
    a.export_to(LU.data(), n);
    std::vector<int64_t> identity(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) identity[i] = i + 1;
    CHECK(lu_residual<T>(n, A.data(), n, LU.data(), n, identity) < kResidualLimit);
}

TEMPLATE_TEST_CASE("small GPU LU for the sanitizers", "[gpu][lu][sanitize]", float, double) {
    check_gpu_getrf<TestType>(37, 16, Residency::Device, false);
    check_gpu_getrf<TestType>(20, 32, Residency::Host, false);
    using T = TestType;
    const int64_t n = 21;
    std::vector<T> A = random_general<T>(n, n, fresh_seed());
    for (int64_t i = 0; i < n; ++i) A[i + 5 * n] = T(0);
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    std::vector<T> B(static_cast<size_t>(n * 2), T(1));
    CHECK(gesv(runtime(), n, 2, A.data(), n, ipiv.data(), B.data(), n, gpu_only(), Tiling{8}) == 6);
    CHECK(all_finite(A));
}
