// The mixed-precision solve on GPU workers [gpu][mixed]: the float factor's trailing updates on tensor cores (tf32,
// bf16, fp16) and float, host- and device-resident tiles; double accuracy after refinement, the path reported, A
// left unchanged; the fall-back on a matrix the float factor cannot serve. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <random>

#include "support/covariance.hpp"
#include "tests/mixed_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

/// J + eps I (J all ones), column-major n x n: SPD in double; rounded to float it is J, of rank one.
std::vector<double> ones_plus_diagonal(int64_t n, double eps) {
    std::vector<double> A(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] = 1.0 + (i == j ? eps : 0.0);
    return A;
}

void check_mixed_gpu(int64_t n, int64_t nrhs, int64_t nb, Precision factor, Residency residency) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " factor=" << to_string(factor)
              << " residency=" << to_string(residency) << " seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = factor;
    SolveReport report;
    Refinement low;
    low.always_low = true;  // below the order from which the plan takes the tensor cores
    REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report, low, Tiling{nb, residency}) == 0);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                 << report.gmres_iterations << " backward error=" << report.backward_error);
    CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
    CHECK(report.backward_error <= report.tolerance);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(F == A);
}

}  // namespace

TEST_CASE("GPU mixed-precision posv reaches double accuracy from tensor-core factors", "[gpu][mixed]") {
    for (Precision p : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16, Precision::Tf32x3,
                        Precision::Auto})
        for (Residency r : {Residency::Host, Residency::Device}) {
            check_mixed_gpu(1000, 1, 256, p, r);
            check_mixed_gpu(1500, 3, 512, p, r);  // not a multiple of nb
        }
    check_mixed_gpu(1, 1, 256, Precision::Tf32, Residency::Device);
    check_mixed_gpu(100, 2, 256, Precision::Bf16, Residency::Device);  // n < nb
}

TEST_CASE("GPU mixed-precision posv: below the plan's order the double path runs, reported", "[gpu][mixed][plan]") {
    const int64_t n = 900, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    for (bool submit : {false, true}) {
        TileMatrix<double> a(runtime(), n, nb, Residency::Device), b(runtime(), n, 1, nb, Residency::Device);
        a.import(A.data(), n);
        b.import(B.data(), n);
        SolveReport report;
        if (submit) {
            Sequence seq(runtime());
            const int op = async::posv(a, b, seq, opts, report);
            REQUIRE(seq.wait() == 0);
            CHECK(seq.info(op) == 0);
        } else {
            REQUIRE(posv(a, b, opts, report) == 0);
        }
        INFO("submit=" << submit << " reason=" << report.reason);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK_THAT(report.reason, Catch::Contains("16384"));
        std::vector<double> X(B.size());
        b.export_to(X.data(), n);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEST_CASE("GPU mixed-precision posv: a matrix the float factor cannot serve, by the fallback and by the shift", "[gpu][mixed]") {
    const int64_t n = 600, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // J + 1e-12 I (J all ones; cond ~ 6e14): SPD in double, but its float rounding is J, of rank one, on which the
    // float factorization breaks down at its second column; the double one does not.
    const std::vector<double> A = ones_plus_diagonal(n, 1e-12);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    SolveReport report;
    Refinement no_shift;
    no_shift.shift_retries = 0;
    no_shift.always_low = true;
    REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, no_shift, Tiling{nb, Residency::Device}) == 0);
    INFO("path=" << to_string(report.path) << " low info=" << report.low_info << " skipped=" << report.skipped_tasks);
    CHECK(report.path == SolveReport::Path::Fallback);
    CHECK(report.low_info > 0);
    // The breakdown is in the first diagonal tile, which every other task of the factorization waits for: the CUDA
    // worker's report reaches the host before they start, and they do not compute (codelets/breakdown.hpp): at least
    // the later diagonal factorizations and the panel tiles.
    const int64_t mt = (n + nb - 1) / nb;
    CHECK(report.skipped_tasks >= (mt - 1) + mt * (mt - 1) / 2);
    CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    // With the shifted factorizations (the default), the same matrix stays on the tensor cores: J + shift I factors,
    // and GMRES preconditioned by it meets J + 1e-12 I's two clusters of eigenvalues.
    Refinement shifted;
    shifted.always_low = true;
    shifted.time_budget = 0;  // however long the shifted factorization and GMRES take on this small matrix
    for (Residency r : {Residency::Host, Residency::Device}) {
        F = A;
        X = B;
        REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, shifted, Tiling{nb, r}) == 0);
        INFO("residency=" << to_string(r) << " path=" << to_string(report.path) << " shift=" << report.shift
                          << " factorizations=" << report.factorizations << " gmres=" << report.gmres_iterations
                          << " reason=" << report.reason);
        CHECK(report.path == SolveReport::Path::Gmres);
        CHECK(report.factorizations >= 2);
        CHECK(report.backward_error <= report.tolerance);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        CHECK(F == A);
    }
}

TEST_CASE("GPU mixed-precision posv, submit form: ordered before later work on A and B, and the fall-back",
          "[gpu][mixed][async]") {
    const int64_t nb = 256;
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t n : {int64_t(700), int64_t(1100)})
            test::check_submit_form_order(n, nb, Precision::Tf32, Mapping::GpuOnly, r);
    // the fall-back on J + 1e-12 I, device-resident: A receives the double factor, B the solution
    const int64_t n = 600;
    const std::vector<double> A = ones_plus_diagonal(n, 1e-12);
    test::check_submit_form_fallback(A, n, nb, Precision::Tf32, Mapping::GpuOnly, Residency::Device);
}

TEST_CASE("GPU mixed-precision posv with per-tile arithmetic: covariance matrices refined, their small tiles on "
          "tensor cores", "[gpu][mixed][tiles]") {
    const int64_t n = 2300, nb = 256, nrhs = 2;  // 9 tile rows, the last one partial
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    Refinement refine;
    refine.always_low = true;
    refine.tile_tolerance = 0x1p-24;
    for (double length : {0.01, 0.05})
        for (int form = 0; form < 3; ++form) {  // array form on host arrays, tiles in GPU memory, submit form
            const uint64_t seed = fresh_seed();
            INFO("length=" << length << " form=" << form << " seed=" << seed);
            const std::vector<double> A = starfact::support::covariance_spd(n, length, 0.0, seed);
            std::vector<double> B(static_cast<size_t>(n * nrhs));
            random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
            std::vector<double> F = A, X = B;
            SolveReport report;
            if (form == 0) {
                REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
            } else {
                TileMatrix<double> a(runtime(), n, nb, Residency::Device), b(runtime(), n, nrhs, nb, Residency::Device);
                a.import(A.data(), n);
                b.import(B.data(), n);
                if (form == 1) {
                    REQUIRE(posv(a, b, opts, report, refine) == 0);
                } else {
                    Sequence seq(runtime());
                    const int op = async::posv(a, b, seq, opts, report, refine);
                    REQUIRE(seq.wait() == 0);
                    CHECK(seq.info(op) == 0);
                }
                a.export_to(F.data(), n);
                b.export_to(X.data(), n);
            }
            INFO("path=" << to_string(report.path) << " low tiles=" << report.low_tiles << " of "
                         << report.off_diagonal_tiles << " backward error=" << report.backward_error
                         << " reason=" << report.reason);
            CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
            CHECK(report.backward_error <= report.tolerance);
            CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
            for (int64_t j = 0; j < n; ++j)  // A's lower triangle unchanged
                for (int64_t i = j; i < n; ++i)
                    if (F[static_cast<size_t>(i + j * n)] != A[static_cast<size_t>(i + j * n)]) FAIL("A changed");
            CHECK(report.off_diagonal_tiles == 36);
            CHECK(report.low_tiles >= 0);
            CHECK(report.low_tiles < report.off_diagonal_tiles);
            if (length == 0.01) CHECK(report.low_tiles > 0);
        }
}
