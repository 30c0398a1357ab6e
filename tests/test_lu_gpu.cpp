// GPU tile LU [gpu][lu]: the CUDA panel (cuSOLVER getrf on the gathered column), laswp (and its kernel against
// LAPACK's order of interchanges) and solves under the
// GPU-only mapping, host- and device-resident tiles, both precisions; residuals, LAPACK's pivots on one tile,
// singular matrices (LAPACK's info, no NaN). Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <random>

#include "kernels/lu/lu_kernels.hpp"
#include "tests/gpu_arrays.hpp"
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
    const ArrayPath<T> path(A, device_arrays);
    path.import(tiles, A, n);
    REQUIRE(getrf(tiles, piv, gpu_only()) == 0);
    path.export_to(tiles, LU, n);
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
            GesvProblem<T> p(n, nrhs, seed);
            REQUIRE(gesv(runtime(), n, nrhs, p.LU.data(), n, p.ipiv.data(), p.X.data(), n, gpu_only(),
                         Tiling{nb, r}) == 0);
            CHECK(general_solve_residual<T>(n, nrhs, p.A.data(), p.X.data(), p.B.data()) < kResidualLimit);
        }
    }
    const uint64_t seed = fresh_seed();
    INFO("getrf_nopiv seed=" << seed);
    std::vector<T> A = random_general<T>(n, n, seed);
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
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<T> A = random_general<T>(n, n, seed);
    for (int64_t i = 0; i < n; ++i) A[i + 5 * n] = T(0);
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    std::vector<T> B(static_cast<size_t>(n * 2), T(1));
    CHECK(gesv(runtime(), n, 2, A.data(), n, ipiv.data(), B.data(), n, gpu_only(), Tiling{8}) == 6);
    CHECK(all_finite(A));
}

namespace {

/// Applies kb interchanges (global 1-based pivots, first row `offset`) to a tile column held in device
/// tiles through the CUDA laswp kernel and compares with LAPACK's sequential order on the host.
template <typename T>
void check_gpu_laswp(int64_t nb, int64_t m, int cols, int kb, uint64_t seed, bool duplicates) {
    INFO("nb=" << nb << " m=" << m << " cols=" << cols << " kb=" << kb << " seed=" << seed << " duplicates=" << duplicates);
    const int64_t offset = 3 * nb;
    std::mt19937_64 rng(seed);
    std::vector<int> piv(static_cast<size_t>(kb));
    for (int i = 0; i < kb; ++i) {
        int64_t r = i + static_cast<int64_t>(rng() % static_cast<uint64_t>(m - i));
        if (duplicates && i > 0 && rng() % 3 == 0) r = std::max<int64_t>(i, piv[rng() % i] - 1 - offset);  // reuse
        if (duplicates && rng() % 7 == 0) r = i;                                                          // no swap
        if (duplicates && i + 1 < kb && rng() % 11 == 0) r = i + 1;                                       // chain
        piv[i] = static_cast<int>(offset + r + 1);
    }
    std::vector<T> host(static_cast<size_t>(m * cols));
    for (size_t e = 0; e < host.size(); ++e) host[e] = static_cast<T>(e);
    std::vector<T> expect = host;
    for (int i = 0; i < kb; ++i) {
        const int64_t r = piv[i] - 1 - offset;
        for (int j = 0; j < cols; ++j) std::swap(expect[i + j * m], expect[r + j * m]);
    }
    starfact::detail::gpu::ColumnTiles<T> tiles{};
    tiles.count = static_cast<int>((m + nb - 1) / nb);
    tiles.nb = static_cast<int>(nb);
    tiles.ld = static_cast<int>(nb);
    tiles.ld_last = static_cast<int>(m - (tiles.count - 1) * nb);
    tiles.cols = cols;
    for (int t = 0; t < tiles.count; ++t) {
        const int64_t rows = t == tiles.count - 1 ? tiles.ld_last : nb;
        REQUIRE(cudaMalloc(&tiles.tile[t], rows * cols * sizeof(T)) == cudaSuccess);
        REQUIRE(cudaMemcpy2D(tiles.tile[t], rows * sizeof(T), host.data() + t * nb, m * sizeof(T), rows * sizeof(T),
                             cols, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    int* dpiv = nullptr;
    REQUIRE(cudaMalloc(&dpiv, kb * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemcpy(dpiv, piv.data(), kb * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    starfact::detail::gpu::launch_laswp<T>(tiles, dpiv, kb, offset, nullptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<T> got(host.size());
    for (int t = 0; t < tiles.count; ++t) {
        const int64_t rows = t == tiles.count - 1 ? tiles.ld_last : nb;
        REQUIRE(cudaMemcpy2D(got.data() + t * nb, m * sizeof(T), tiles.tile[t], rows * sizeof(T), rows * sizeof(T), cols,
                             cudaMemcpyDeviceToHost) == cudaSuccess);
        cudaFree(tiles.tile[t]);
    }
    cudaFree(dpiv);
    CHECK(got == expect);
}

}  // namespace

TEMPLATE_TEST_CASE("GPU row interchanges equal LAPACK's order", "[gpu][lu][sanitize]", float, double) {
    const uint64_t seed = fresh_seed();
    for (bool dup : {false, true}) {
        check_gpu_laswp<TestType>(64, 64 * 3 + 40, 5, 64, seed, dup);   // planned, three tiles and a short one
        check_gpu_laswp<TestType>(64, 50, 3, 50, seed + 1, dup);        // one short tile
        check_gpu_laswp<TestType>(32, 32 * 9, 300, 32, seed + 2, dup);  // more columns than blocks
    }
    check_gpu_laswp<TestType>(4096, 4096 + 100, 2, 4096, seed + 3, true);  // the largest planned step
    check_gpu_laswp<TestType>(4100, 4100 + 60, 2, 4100, seed + 4, true);   // sequential form
}
