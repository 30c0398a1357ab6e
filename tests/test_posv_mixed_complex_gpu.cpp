// The mixed-precision Hermitian solve on CUDA workers [gpu][mixed][complex]: complex<double> A and B, the factor in
// complex<float> with its trailing updates in TF32 on tensor cores (tf32: cublasGemmEx on CUDA_C_32F, the panels by
// recursive halving into those gemms) or in complex<float> (fp32), refined to complex<double> accuracy: backward
// errors (the report's and one computed here in long double) within the tolerance, scaled residuals < 60, on fresh
// random Hermitian positive definite matrices of condition 1e1 and 1e4, gpu-only and hybrid, host- and
// device-resident tiles, n = 1, n < nb, n not a multiple of nb, one and three right-hand sides; the submit form; a
// matrix singular in complex<float> (the shift, then GMRES or the fall-back). Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <complex>
#include <random>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "starfact/mixed.hpp"
#include "tests/mixed_complex_checks.hpp"
#include "tests/mixed_complex_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::backward_error;
using starfact::test::hpd_conditioned;
using starfact::test::mixed_complex::check_refined_report;
using starfact::test::mixed_complex::always_low;
using starfact::test::mixed_complex::check_tile_answer;
using starfact::test::mixed_complex::mixed_options;
using starfact::test::random_block;
using starfact::test::solve_residual;
using Z = std::complex<double>;

namespace {

void check_gpu(int64_t n, int64_t nrhs, int64_t nb, double kappa, Precision factor, Mapping mapping,
               Residency residency, std::mt19937_64& g) {
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " kappa=" << kappa << " factor=" << to_string(factor)
              << " mapping=" << to_string(mapping) << " residency=" << to_string(residency));
    const std::vector<Z> A = hpd_conditioned(n, n, kappa, g);
    const std::vector<Z> B = random_block<Z>(n, nrhs, g);
    TileMatrix<Z> a(runtime(), n, nb, residency), b(runtime(), n, nrhs, nb, residency);
    a.import(A.data(), n);
    b.import(B.data(), n);
    const Options opts = mixed_options(mapping, factor);
    const Refinement refine = always_low();  // small orders: the plan would take the complex<double> solve on GPUs
    SolveReport report;
    REQUIRE(posv(a, b, opts, report, refine) == 0);
    std::vector<Z> X(B.size()), F(A.size());
    b.export_to(X.data(), n);
    a.export_to(F.data(), n);
    const double berr = backward_error(A, n, X, n, B, n, n, nrhs);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                 << report.gmres_iterations << " report backward error=" << report.backward_error
                 << " backward error=" << berr << " reason=" << report.reason);
    check_refined_report(report, factor, berr);
    CHECK(solve_residual(A, X, B, n, nrhs) < kResidualLimit);
    for (int64_t j = 0; j < n; ++j)  // the lower triangle as it was
        for (int64_t i = j; i < n; ++i) CHECK(F[static_cast<size_t>(i + j * n)] == A[static_cast<size_t>(i + j * n)]);
}

}  // namespace

TEST_CASE("mixed-precision complex posv on CUDA workers: tf32 and fp32 factors to complex<double> accuracy",
          "[gpu][mixed][complex]") {
    std::mt19937_64 g(fresh_seed());
    const int64_t nb = 256;  // above the recursive panel's base: the tf32 panels recurse into tensor-core gemms
    for (Precision p : {Precision::Tf32, Precision::Fp32})
        for (Residency r : {Residency::Device, Residency::Host}) {
            for (int64_t n : {int64_t(1), nb - 5, 3 * nb + 7}) check_gpu(n, n % 2 ? 3 : 1, nb, 10, p, Mapping::GpuOnly, r, g);
            check_gpu(2 * nb + 1, 2, nb, 1e4, p, Mapping::GpuOnly, r, g);
        }
    check_gpu(700, 2, 192, 100, Precision::Tf32, Mapping::Hybrid, Residency::Host, g);
}

TEST_CASE("mixed-precision complex posv on CUDA workers: the submit form and the plan's double path",
          "[gpu][mixed][complex]") {
    std::mt19937_64 g(fresh_seed());
    const int64_t n = 900, nb = 256, nrhs = 2;
    const std::vector<Z> A = hpd_conditioned(n, n, 100, g);
    const std::vector<Z> B = random_block<Z>(n, nrhs, g);
    const Options opts = mixed_options(Mapping::GpuOnly, Precision::Tf32);
    {
        TileMatrix<Z> a(runtime(), n, nb, Residency::Device), b(runtime(), n, nrhs, nb, Residency::Device);
        a.import(A.data(), n);
        b.import(B.data(), n);
        const Refinement refine = always_low();
        SolveReport report;
        Sequence seq(runtime());
        const int op = async::posv(a, b, seq, opts, report, refine);
        REQUIRE(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
        check_tile_answer(A, B, b, n, nrhs, report);
    }
    {  // below kTensorCoreSolveMinOrder without always_low: the complex<double> solve, reported Direct with a reason
        std::vector<Z> F = A, X = B;
        SolveReport report;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report) == 0);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK(report.reason.find("the plan ran the double factorization") != std::string::npos);
        CHECK(solve_residual(A, X, B, n, nrhs) < kResidualLimit);
    }
}

TEST_CASE("mixed-precision complex posv on CUDA workers: singular in complex<float>", "[gpu][mixed][complex]") {
    std::mt19937_64 g(fresh_seed());
    const int64_t n = 300, nb = 128;
    const std::vector<Z> A = starfact::test::mixed_complex::singular_in_complex_float(n, g);
    const std::vector<Z> B = random_block<Z>(n, 1, g);
    std::vector<Z> F = A, X = B;
    const Options opts = mixed_options(Mapping::GpuOnly, Precision::Tf32);
    Refinement refine = always_low();
    refine.time_budget = 0;
    SolveReport report;
    REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
    INFO("path=" << to_string(report.path) << " reason=" << report.reason << " factorizations="
                 << report.factorizations);
    CHECK(report.factorizations >= 2);
    CHECK(report.path != SolveReport::Path::Failed);
    CHECK(solve_residual(A, X, B, n, 1) < kResidualLimit);
}

TEST_CASE("mixed-precision complex posv on CUDA workers: condition 1e7 in tf32, GMRES or the fall-back",
          "[gpu][mixed][complex]") {
    std::mt19937_64 g(fresh_seed());
    const int64_t n = 600, nb = 256;  // kappa u_tf32 = 5e3: no classical refinement from a TF32 factor
    const std::vector<Z> A = hpd_conditioned(n, n, 1e7, g);
    const std::vector<Z> B = random_block<Z>(n, 2, g);
    std::vector<Z> F = A, X = B;
    const Options opts = mixed_options(Mapping::GpuOnly, Precision::Tf32);
    const Refinement refine = always_low();
    SolveReport report;
    REQUIRE(posv(runtime(), n, 2, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
    INFO("path=" << to_string(report.path) << " reason=" << report.reason << " gmres=" << report.gmres_iterations);
    CHECK((report.path == SolveReport::Path::Gmres || report.path == SolveReport::Path::Fallback));
    CHECK(solve_residual(A, X, B, n, 2) < kResidualLimit);
    if (report.path == SolveReport::Path::Gmres) CHECK(backward_error(A, n, X, n, B, n, n, 2) <= 2 * report.tolerance);
}
