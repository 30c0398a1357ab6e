// GPU tests of the SPD inverse [potri][gpu]: potri (potrf + trtri + lauum as one graph) with GPU-only and
// hybrid mappings, host- and device-resident tiles, the CUDA trtri_tile / lauum_tile / trmm codelets against
// LAPACKE, the trtri info merged on the device, and small [sanitize] cases. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <lapacke.h>

#include <limits>
#include <type_traits>

#include "tests/gpu_arrays.hpp"
#include "tests/inverse_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::inverse;

namespace {

/// potri of a fresh SPD matrix on tiles of nb (0: the plan's), from host or device arrays; checks
/// info, the residual and that the strictly upper triangle is untouched.
template <typename T>
void invert_and_check(int64_t n, int64_t nb, Mapping mapping, Residency residency, bool device_arrays) {
    const uint64_t seed = fresh_seed();
    if (nb == 0) {
        Request request;
        request.op = Operation::Potri;
        request.element = sizeof(T) == sizeof(float) ? Precision::Fp32 : Precision::Fp64;
        request.m = request.n = n;
        request.options.mapping = mapping;
        request.tiling.residency = residency;
        nb = plan(request, Machine::of(runtime())).nb;
    }
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " residency=" << to_string(residency)
              << " device_arrays=" << device_arrays << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    std::vector<T> X(A.size());
    TileMatrix<T> tiles(runtime(), n, nb, residency);
    const ArrayPath<T> path(A, device_arrays);
    path.import(tiles, A, n);
    Options o;
    o.mapping = mapping;
    REQUIRE(potri(tiles, o) == 0);
    X = A;  // export_to writes every tile: the upper tiles come back as they were imported
    path.export_to(tiles, X, n);
    const double res = potri_residual<T>(n, A.data(), n, X.data(), n);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    bool upper_untouched = true;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < j; ++i)
            if (X[i + j * n] != A[i + j * n]) upper_untouched = false;
    CHECK(upper_untouched);
}

/// trtri and lauum alone (GPU-only) against LAPACKE on the Cholesky factor of a fresh SPD matrix.
template <typename T>
void tile_ops_against_lapacke(int64_t n, int64_t nb, Residency residency) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " residency=" << to_string(residency) << " seed=" << seed
              << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    std::vector<T> L = spd_matrix<T>(n, n, seed);
    REQUIRE(lapacke_potrf<T>(n, L.data(), n) == 0);
    Options o;
    o.mapping = Mapping::GpuOnly;
    const double tol = 100.0 * std::numeric_limits<T>::epsilon() * static_cast<double>(n);
    {
        std::vector<T> ref = L, got = L;
        REQUIRE(lapacke_trtri<T>(n, ref.data(), n) == 0);
        TileMatrix<T> tiles(runtime(), n, nb, residency);
        tiles.import(got.data(), n);
        REQUIRE(trtri(tiles, o) == 0);
        tiles.export_to(got.data(), n);
        CHECK(lower_rel_diff(n, got, ref, n) < tol);
    }
    {
        std::vector<T> ref = L, got = L;
        REQUIRE(lapacke_lauum<T>(n, ref.data(), n) == 0);
        TileMatrix<T> tiles(runtime(), n, nb, residency);
        tiles.import(got.data(), n);
        lauum(tiles, o);
        tiles.export_to(got.data(), n);
        CHECK(lower_rel_diff(n, got, ref, n) < tol);
    }
}

}  // namespace

TEMPLATE_TEST_CASE("GPU-only potri residual < 60, host and device residency", "[potri][gpu]", float, double) {
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t nb : {64, 512})
            for (int64_t n : {int64_t(1), nb - 1, nb, 3 * nb + 7, int64_t(1000)})
                invert_and_check<TestType>(n, nb, Mapping::GpuOnly, r, false);
    invert_and_check<TestType>(3000, 1024, Mapping::GpuOnly, Residency::Device, false);
    invert_and_check<TestType>(3000, 0, Mapping::GpuOnly, Residency::Device, true);  // the plan's tiles, device arrays
    invert_and_check<TestType>(3000, 0, Mapping::GpuOnly, Residency::Host, false);
}

TEMPLATE_TEST_CASE("hybrid potri residual < 60", "[potri][gpu]", float, double) {
    for (int64_t nb : {128, 1024}) invert_and_check<TestType>(2000, nb, Mapping::Hybrid, Residency::Host, false);
}

TEMPLATE_TEST_CASE("CUDA trtri and lauum agree with LAPACKE", "[potri][gpu]", float, double) {
    for (Residency r : {Residency::Host, Residency::Device}) {
        tile_ops_against_lapacke<TestType>(700, 1024, r);  // one tile: the trtri_tile and lauum_tile codelets
        tile_ops_against_lapacke<TestType>(1500, 256, r);  // with trsm, gemm, syrk and trmm tasks
    }
}

TEMPLATE_TEST_CASE("GPU potri infos: potrf's for a non-SPD matrix, trtri's zero diagonal", "[potri][gpu]", float,
                   double) {
    using T = TestType;
    const int64_t n = 600, nb = 128, bad = 300;
    Options o;
    o.mapping = Mapping::GpuOnly;
    {
        const uint64_t seed = fresh_seed();
        INFO("bad=" << bad << " seed=" << seed);
        std::vector<T> A = spd_matrix<T>(n, n, seed);
        A[bad + bad * n] = T(-1);
        CHECK(potri(runtime(), n, A.data(), n, o, Tiling{nb}) == bad + 1);
    }
    for (int64_t zero : {int64_t(0), bad, n - 1}) {
        const uint64_t seed = fresh_seed();
        INFO("zero=" << zero << " seed=" << seed);
        std::vector<T> L = spd_matrix<T>(n, n, seed);
        REQUIRE(lapacke_potrf<T>(n, L.data(), n) == 0);
        L[zero + zero * n] = T(0);
        TileMatrix<T> tiles(runtime(), n, nb, Residency::Device);
        tiles.import(L.data(), n);
        CHECK(trtri(tiles, o) == zero + 1);
    }
}

TEMPLATE_TEST_CASE("potri: small cases for the sanitizers", "[potri][gpu][sanitize]", float, double) {
    invert_and_check<TestType>(100, 32, Mapping::GpuOnly, Residency::Device, false);
    invert_and_check<TestType>(45, 64, Mapping::GpuOnly, Residency::Host, false);
}
