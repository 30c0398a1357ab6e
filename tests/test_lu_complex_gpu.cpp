// The complex tile LU on CUDA workers [gpu][complex][lu]: getrf (cuSOLVER's getrf on the gathered tile column, the
// interchanges by starfact's row-moving kernel), getrs and gesv in c and z under the gpu-only and hybrid mappings,
// on host- and device-resident tiles, checked by the scaled residuals of tests/lu_complex_checks.hpp and
// complex_matrices.hpp < 60 on fresh random complex matrices; orders 1, below the tile size, a multiple of it and
// with a partial last tile. The pivots equal LAPACKE's on a permuted column dominant matrix (no near tie), and an
// exactly zero column k makes getrf report info = k + 1 from the GPU and gesv leave B as it was. Skipped (exit 77)
// without a GPU.
#include <catch2/catch.hpp>

#include <complex>
#include <random>
#include <vector>

#include "tests/lu_complex_checks.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::complex_letter;
using starfact::test::Factored;
using starfact::test::getrf_residual;
using starfact::test::lapack_getrf;
using starfact::test::permuted_dominant;
using starfact::test::random_block;
using starfact::test::solve_residual;
using starfact::test::tile_getrf;

TEMPLATE_TEST_CASE("complex getrf, getrs and gesv on CUDA workers: scaled residuals < 60", "[gpu][complex][lu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid})
        for (Residency residency : {Residency::Host, Residency::Device})
            for (int64_t nb : {int64_t(64), int64_t(160)})
                for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7}) {
                    const int64_t nrhs = n == nb ? nb + 3 : n % 2 == 0 ? 1 : 5;  // B of two tile columns once
                    INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " mapping=" << to_string(mapping)
                              << " residency=" << to_string(residency) << " prec=" << complex_letter<C>());
                    const std::vector<C> A = random_block<C>(n, n, g);
                    const Factored<C> f = tile_getrf(A, n, nb, mapping, residency);
                    REQUIRE(f.info == 0);
                    const double factor_residual = getrf_residual(A, f.F, f.ipiv, n);
                    INFO("getrf residual=" << factor_residual);
                    CHECK(factor_residual < kResidualLimit);

                    TileMatrix<C> tA(runtime(), n, nb, residency), tB(runtime(), n, nrhs, nb, residency);
                    tA.import(A.data(), n);
                    Pivots piv(tA);
                    REQUIRE(getrf(tA, piv, on(mapping)) == 0);
                    const std::vector<C> B = random_block<C>(n, nrhs, g);
                    tB.import(B.data(), n);
                    getrs(tA, piv, tB, on(mapping));
                    std::vector<C> X(B.size());
                    tB.export_to(X.data(), n);
                    const double getrs_residual = solve_residual(A, X, B, n, nrhs);
                    INFO("getrs residual=" << getrs_residual);
                    CHECK(getrs_residual < kResidualLimit);

                    TileMatrix<C> tS(runtime(), n, nb, residency), tB2(runtime(), n, nrhs, nb, residency);
                    tS.import(A.data(), n);
                    const std::vector<C> B2 = random_block<C>(n, nrhs, g);
                    tB2.import(B2.data(), n);
                    Pivots p2(tS);
                    REQUIRE(gesv(tS, p2, tB2, on(mapping)) == 0);
                    tB2.export_to(X.data(), n);
                    const double gesv_residual = solve_residual(A, X, B2, n, nrhs);
                    INFO("gesv residual=" << gesv_residual);
                    CHECK(gesv_residual < kResidualLimit);
                    CHECK(settled_pending_tasks(runtime()) == 0);
                }
}

TEMPLATE_TEST_CASE("complex getrf on CUDA workers pivots as LAPACKE's getrf and reports a zero pivot",
                   "[gpu][complex][lu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t nb = 48;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Residency residency : {Residency::Host, Residency::Device})
        for (int64_t n : {int64_t(1), nb - 3, 4 * nb + 5}) {
            INFO("n=" << n << " residency=" << to_string(residency) << " prec=" << complex_letter<C>());
            const std::vector<C> D = permuted_dominant<C>(n, g);
            const Factored<C> f = tile_getrf(D, n, nb, Mapping::GpuOnly, residency);
            REQUIRE(f.info == 0);
            CHECK(f.ipiv == lapack_getrf(D, n).second);
            CHECK(getrf_residual(D, f.F, f.ipiv, n) < kResidualLimit);

            const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
            INFO("zero column k=" << k);
            std::vector<C> A = random_block<C>(n, n, g);
            for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + k * n)] = C(0);  // U(k+1, k+1) = 0
            const Factored<C> z = tile_getrf(A, n, nb, Mapping::GpuOnly, residency);
            CHECK(z.info == k + 1);
            CHECK(getrf_residual(A, z.F, z.ipiv, n) < kResidualLimit);  // completed past the zero pivot

            const std::vector<C> B = random_block<C>(n, 2, g);
            TileMatrix<C> tS(runtime(), n, nb, residency), tB(runtime(), n, 2, nb, residency);
            tS.import(A.data(), n);
            tB.import(B.data(), n);
            Pivots piv(tS);
            CHECK(gesv(tS, piv, tB, on(Mapping::GpuOnly)) == k + 1);
            std::vector<C> X(B.size());
            tB.export_to(X.data(), n);
            CHECK(X == B);  // untouched
        }
}
