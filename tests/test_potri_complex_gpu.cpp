// The complex Hermitian inverse on CUDA workers [potri][gpu][complex]: potri in c and z under the gpu-only and hybrid
// mappings, on host- and device-resident tiles (imported from host arrays and from device arrays), checked by
// potri_residual < 60 on fresh random Hermitian positive definite matrices with complex off-diagonals; orders 1, below
// the tile size, a multiple of it, with a partial last tile, and the plan's tiles; the strictly upper triangle left as
// it was. The CUDA trtri_tile, lauum_tile (L^H L: a herk of the zeroed copy) and trmm codelets against LAPACKE's c and
// z routines; potrf's info for a matrix that is not positive definite and trtri's for a singular factor, from the
// GPU; small [sanitize] cases. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "starfact/check.hpp"
#include "starfact/inverse.hpp"
#include "starfact/plan.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/gpu_arrays.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/inverse_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::inverse;
using starfact::test::complex_letter;
using starfact::test::hpd_matrix;

namespace {

/// potri of a fresh Hermitian positive definite matrix on tiles of nb (0: the plan's), from host or device arrays;
/// checks info, the residual and that the strictly upper triangle is untouched.
template <typename C>
void invert_and_check(int64_t n, int64_t nb, Mapping mapping, Residency residency, bool device_arrays,
                      std::mt19937_64& g) {
    if (nb == 0) {
        Request request;
        request.op = Operation::Potri;
        request.element = std::is_same_v<C, std::complex<float>> ? Precision::C64 : Precision::C128;
        request.m = request.n = n;
        request.options.mapping = mapping;
        request.tiling.residency = residency;
        nb = plan(request, Machine::of(runtime())).nb;
    }
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " residency=" << to_string(residency)
              << " device_arrays=" << device_arrays << " prec=" << complex_letter<C>());
    const std::vector<C> A = hpd_matrix<C>(n, g);
    TileMatrix<C> tiles(runtime(), n, nb, residency);
    const ArrayPath<C> path(A, device_arrays);
    path.import(tiles, A, n);
    REQUIRE(potri(tiles, on(mapping)) == 0);
    std::vector<C> X = A;  // export_to writes every tile: the upper tiles come back as they were imported
    path.export_to(tiles, X, n);
    const double res = potri_residual<C>(n, A.data(), n, X.data(), n);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    bool upper_untouched = true;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < j; ++i)
            if (X[static_cast<size_t>(i + j * n)] != A[static_cast<size_t>(i + j * n)]) upper_untouched = false;
    CHECK(upper_untouched);
}

/// trtri and lauum alone (GPU-only) against LAPACKE on the Cholesky factor of a fresh Hermitian matrix.
template <typename C>
void tile_ops_against_lapacke(int64_t n, int64_t nb, Residency residency, std::mt19937_64& g) {
    INFO("n=" << n << " nb=" << nb << " residency=" << to_string(residency) << " prec=" << complex_letter<C>());
    std::vector<C> L = hpd_matrix<C>(n, g);
    REQUIRE(lapacke_potrf<C>(n, L.data(), n) == 0);
    const double tol =
        100.0 * static_cast<double>(std::numeric_limits<typename C::value_type>::epsilon()) * static_cast<double>(n);
    {
        std::vector<C> ref = L, got = L;
        REQUIRE(lapacke_trtri<C>(n, ref.data(), n) == 0);
        TileMatrix<C> tiles(runtime(), n, nb, residency);
        tiles.import(got.data(), n);
        REQUIRE(trtri(tiles, on(Mapping::GpuOnly)) == 0);
        tiles.export_to(got.data(), n);
        CHECK(lower_rel_diff(n, got, ref, n) < tol);
    }
    {
        std::vector<C> ref = L, got = L;
        REQUIRE(lapacke_lauum<C>(n, ref.data(), n) == 0);
        TileMatrix<C> tiles(runtime(), n, nb, residency);
        tiles.import(got.data(), n);
        lauum(tiles, on(Mapping::GpuOnly));
        tiles.export_to(got.data(), n);
        CHECK(lower_rel_diff(n, got, ref, n) < tol);
    }
}

}  // namespace

TEMPLATE_TEST_CASE("GPU-only complex potri residual < 60, host and device residency", "[potri][gpu][complex]",
                   std::complex<float>, std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t nb : {64, 384})
            for (int64_t n : {int64_t(1), nb - 1, nb, 3 * nb + 7})
                invert_and_check<TestType>(n, nb, Mapping::GpuOnly, r, r == Residency::Device && nb == 64, g);
    invert_and_check<TestType>(2000, 0, Mapping::GpuOnly, Residency::Device, true, g);  // the plan's tiles
    invert_and_check<TestType>(2000, 0, Mapping::GpuOnly, Residency::Host, false, g);
}

TEMPLATE_TEST_CASE("hybrid complex potri residual < 60", "[potri][gpu][complex]", std::complex<float>,
                   std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (int64_t nb : {96, 512}) invert_and_check<TestType>(1500, nb, Mapping::Hybrid, Residency::Host, false, g);
}

TEMPLATE_TEST_CASE("CUDA complex trtri and lauum agree with LAPACKE", "[potri][gpu][complex]", std::complex<float>,
                   std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Residency r : {Residency::Host, Residency::Device}) {
        tile_ops_against_lapacke<TestType>(500, 1024, r, g);  // one tile: the trtri_tile and lauum_tile codelets
        tile_ops_against_lapacke<TestType>(900, 256, r, g);   // with trsm, gemm, herk and trmm tasks
    }
}

TEMPLATE_TEST_CASE("GPU complex potri infos: potrf's for a matrix that is not positive definite, trtri's zero diagonal",
                   "[potri][gpu][complex]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 400, nb = 96, bad = 200;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Mapping m : {Mapping::GpuOnly, Mapping::Hybrid}) {
        std::vector<C> A = hpd_matrix<C>(n, g);
        A[static_cast<size_t>(bad + bad * n)] = C(-1);
        CHECK(potri(runtime(), n, A.data(), n, on(m), Tiling{nb}) == bad + 1);
    }
    for (int64_t zero : {int64_t(0), bad, n - 1}) {
        INFO("zero=" << zero);
        std::vector<C> L = hpd_matrix<C>(n, g);
        REQUIRE(lapacke_potrf<C>(n, L.data(), n) == 0);
        L[static_cast<size_t>(zero + zero * n)] = C(0);
        TileMatrix<C> tiles(runtime(), n, nb, Residency::Device);
        tiles.import(L.data(), n);
        CHECK(trtri(tiles, on(Mapping::GpuOnly)) == zero + 1);
    }
}

TEMPLATE_TEST_CASE("complex potri: small cases for the sanitizers", "[potri][gpu][complex][sanitize]",
                   std::complex<float>, std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    invert_and_check<TestType>(100, 32, Mapping::GpuOnly, Residency::Device, false, g);
    invert_and_check<TestType>(45, 64, Mapping::GpuOnly, Residency::Host, false, g);
}
