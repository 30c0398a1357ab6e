// The complex tile Cholesky on CUDA workers [gpu][complex]: potrf, potrs and posv in c and z under the gpu-only and
// hybrid mappings, on host- and device-resident tiles (imported from host arrays and from device arrays), checked
// by the scaled residuals of tests/hermitian_matrices.hpp and complex_matrices.hpp < 60 on fresh random Hermitian
// positive definite matrices; orders 1, below the tile size, a multiple of it and with a partial last tile. A leading
// minor of order k + 1 that is not positive definite (a negative or a NaN diagonal entry) makes potrf report
// info = k + 1 from the GPU, and posv leave B as it was. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/gpu_arrays.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::complex_letter;
using starfact::test::hermitian_factor_residual;
using starfact::test::hpd_matrix;
using starfact::test::random_block;
using starfact::test::solve_residual;

namespace {

/// potrf, then posv on a second copy of A, then potrs with the first factor, each checked; A and posv's B imported
/// and exported through device copies with device_arrays.
template <typename C>
void factor_and_solve(int64_t n, int64_t nb, Mapping mapping, Residency residency, bool device_arrays,
                      std::mt19937_64& g) {
    const int64_t nrhs = n % 2 == 0 ? 1 : 3;
    INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " mapping=" << to_string(mapping) << " residency="
              << to_string(residency) << " device_arrays=" << device_arrays << " prec=" << complex_letter<C>());
    const std::vector<C> A = hpd_matrix<C>(n, g);
    const ArrayPath<C> a_path(A, device_arrays);
    TileMatrix<C> tA(runtime(), n, nb, residency);
    a_path.import(tA, A, n);
    REQUIRE(potrf(tA, on(mapping)) == 0);
    std::vector<C> F(A.size());
    a_path.export_to(tA, F, n);
    const double factor_residual = hermitian_factor_residual(A, F, n);
    INFO("potrf residual=" << factor_residual);
    CHECK(factor_residual < kResidualLimit);

    // a_path's device copy holds F after the export: the second copy of A comes through a path of its own.
    const std::vector<C> B = random_block<C>(n, nrhs, g);
    const ArrayPath<C> s_path(A, device_arrays), b_path(B, device_arrays);
    TileMatrix<C> tS(runtime(), n, nb, residency), tB(runtime(), n, nrhs, nb, residency);
    s_path.import(tS, A, n);
    b_path.import(tB, B, n);
    REQUIRE(posv(tS, tB, on(mapping)) == 0);
    std::vector<C> X(B.size());
    b_path.export_to(tB, X, n);
    const double posv_residual = solve_residual(A, X, B, n, nrhs);
    INFO("posv residual=" << posv_residual);
    CHECK(posv_residual < kResidualLimit);

    const std::vector<C> B2 = random_block<C>(n, nrhs, g);
    TileMatrix<C> tB2(runtime(), n, nrhs, nb, residency);
    tB2.import(B2.data(), n);
    potrs(tA, tB2, on(mapping));
    tB2.export_to(X.data(), n);
    const double potrs_residual = solve_residual(A, X, B2, n, nrhs);
    INFO("potrs residual=" << potrs_residual);
    CHECK(potrs_residual < kResidualLimit);
    CHECK(settled_pending_tasks(runtime()) == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("complex potrf, posv and potrs on CUDA workers: scaled residuals < 60", "[gpu][complex]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid})
        for (Residency residency : {Residency::Host, Residency::Device})
            for (int64_t nb : {int64_t(64), int64_t(160)})
                for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7})
                    factor_and_solve<C>(n, nb, mapping, residency, residency == Residency::Device && nb == 64, g);
}

TEMPLATE_TEST_CASE("complex potrf on CUDA workers reports the first leading minor that is not positive definite",
                   "[gpu][complex]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    using R = typename C::value_type;
    const int64_t nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid})
        for (Residency residency : {Residency::Host, Residency::Device})
            for (bool nan : {false, true})
                for (int64_t n : {int64_t(1), int64_t(23), int64_t(101)}) {
                    const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
                    INFO("n=" << n << " k=" << k << " nan=" << nan << " mapping=" << to_string(mapping)
                              << " residency=" << to_string(residency) << " prec=" << complex_letter<C>());
                    std::vector<C> A = hpd_matrix<C>(n, g);
                    // The leading minor of order k is a principal block of A, still definite; the pivot of order
                    // k + 1 is at most a_kk = -1 (or NaN, which passes a test "pivot <= 0").
                    A[static_cast<size_t>(k + k * n)] = nan ? C(std::numeric_limits<R>::quiet_NaN(), 0) : C(-1, 0);
                    TileMatrix<C> tA(runtime(), n, nb, residency);
                    tA.import(A.data(), n);
                    CHECK(potrf(tA, on(mapping)) == k + 1);

                    const std::vector<C> B = random_block<C>(n, 2, g);
                    TileMatrix<C> tS(runtime(), n, nb, residency), tB(runtime(), n, 2, nb, residency);
                    tS.import(A.data(), n);
                    tB.import(B.data(), n);
                    CHECK(posv(tS, tB, on(mapping)) == k + 1);
                    std::vector<C> X(B.size());
                    tB.export_to(X.data(), n);
                    CHECK(X == B);  // untouched
                }
}
