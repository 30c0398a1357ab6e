// GPU tests [gpu]: CUDA codelets under gpu-only and hybrid mappings, host- and device-resident
// tiles, import/export from device arrays, info on the GPU. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <starpu.h>

#include <cmath>
#include <limits>

#include "tests/gpu_arrays.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

template <typename T>
double factor_and_check(int64_t n, int64_t nb, Mapping mapping, Residency residency, bool device_arrays,
                        PanelSolve panel = PanelSolve::Auto) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " residency=" << to_string(residency)
              << " device_arrays=" << device_arrays << " panel=" << to_string(panel) << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    std::vector<T> L(A.size());
    TileMatrix<T> tiles(runtime(), n, nb, residency);
    const ArrayPath<T> path(A, device_arrays);
    path.import(tiles, A, n);
    Options o;
    o.mapping = mapping;
    o.panel = panel;
    const int info = potrf(tiles, o);
    REQUIRE(info == 0);
    path.export_to(tiles, L, n);  // L is zero: every entry the result has comes from the export
    const double res = potrf_residual<T>(n, A.data(), n, L.data(), n);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(settled_pending_tasks(runtime()) == 0);
    return res;
}

}  // namespace

TEMPLATE_TEST_CASE("GPU-only potrf residual < 60, host and device residency", "[gpu]", float, double) {
    for (PanelSolve panel : {PanelSolve::Trsm, PanelSolve::Inverse})
        for (Residency r : {Residency::Host, Residency::Device})
            for (int64_t nb : {64, 256})
                for (int64_t n : {int64_t(1), nb - 1, nb + 1, 3 * nb + 7, int64_t(1000)})
                    factor_and_check<TestType>(n, nb, Mapping::GpuOnly, r, false, panel);
}

TEMPLATE_TEST_CASE("GPU-only potrf, inverse panel solve with tiles the inversion splits", "[gpu][inverse]", float,
                   double) {
    // Tiles above kTrtriRecursiveBase (256) are inverted by halving into gemms: one and two levels, odd orders.
    for (int64_t nb : {300, 600})
        for (int64_t n : {nb - 1, nb + 1, 2 * nb + 13, int64_t(1913)})
            factor_and_check<TestType>(n, nb, Mapping::GpuOnly, Residency::Device, false, PanelSolve::Inverse);
}

TEMPLATE_TEST_CASE("GPU variants with both panel solves", "[gpu]", float, double) {
    for (PanelSolve panel : {PanelSolve::Trsm, PanelSolve::Inverse})
        for (const char* v : {"lookahead=0", "lookahead=2", "left", "left-coarse", "noprio"}) {
            const uint64_t seed = fresh_seed();
            INFO("variant=" << v << " seed=" << seed);
            const std::vector<TestType> A = spd_matrix<TestType>(1100, 1100, seed);
            std::vector<TestType> L = A;
            Options o;
            const Tiling tiling{128, Residency::Device};
            o.mapping = Mapping::GpuOnly;
            o.variant = Variant::parse(v);
            o.panel = panel;
            REQUIRE(potrf(runtime(), 1100, L.data(), 1100, o, tiling) == 0);
            CHECK(potrf_residual<TestType>(1100, A.data(), 1100, L.data(), 1100) < kResidualLimit);
        }
}

TEMPLATE_TEST_CASE("hybrid potrf residual < 60", "[gpu]", float, double) {
    factor_and_check<TestType>(1500, 128, Mapping::Hybrid, Residency::Host, false);
    factor_and_check<TestType>(1000, 96, Mapping::Hybrid, Residency::Device, false);
}

TEMPLATE_TEST_CASE("own device tiles keep their columns aligned at odd orders", "[gpu]", float, double) {
    for (int64_t n : {int64_t(1), int64_t(33), int64_t(1001)}) {
        TileMatrix<TestType> tiles(runtime(), n, n, Residency::Device);  // one tile of n rows
        const int node = tiles.home_node(0, 0);
        auto* m = static_cast<starpu_matrix_interface*>(starpu_data_get_interface_on_node(tiles.tile(0, 0), node));
        INFO("n=" << n << " ld=" << STARPU_MATRIX_GET_LD(m));
        CHECK(STARPU_MATRIX_GET_LD(m) % 32 == 0);
        CHECK(STARPU_MATRIX_GET_LD(m) >= static_cast<uint32_t>(n));
    }
    factor_and_check<TestType>(1001, 1001, Mapping::GpuOnly, Residency::Device, false);
    factor_and_check<TestType>(1001, 1001, Mapping::GpuOnly, Residency::Device, true);
    factor_and_check<TestType>(1001, 100, Mapping::Hybrid, Residency::Device, true);
}

TEMPLATE_TEST_CASE("import/export through device arrays", "[gpu]", float, double) {
    factor_and_check<TestType>(700, 128, Mapping::GpuOnly, Residency::Device, true);
    factor_and_check<TestType>(700, 128, Mapping::GpuOnly, Residency::Host, true);
}

TEMPLATE_TEST_CASE("GPU posv residual < 60", "[gpu]", float, double) {
    const int64_t n = 900, nrhs = 37, nb = 128;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
    std::vector<TestType> B(n * nrhs);
    random_matrix<TestType>(n, nrhs, B.data(), n, seed + 1);
    for (Residency r : {Residency::Host, Residency::Device}) {
        std::vector<TestType> F = A, X = B;
        Options o;
        const Tiling tiling{nb, r};
        o.mapping = Mapping::GpuOnly;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, o, tiling) == 0);
        CHECK(solve_residual<TestType>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("small GPU factorizations for the sanitizers", "[gpu][sanitize]", float, double) {
    // Every CUDA kernel of ours on a failing and a succeeding tile: the info merge, zero_upper, trtri path.
    for (PanelSolve panel : {PanelSolve::Trsm, PanelSolve::Inverse}) {
        const uint64_t seed = fresh_seed();
        INFO("panel=" << to_string(panel) << " seed=" << seed);
        std::vector<TestType> A = spd_matrix<TestType>(200, 200, seed), W = A;
        Options o;
        const Tiling tiling{64, Residency::Device};
        o.mapping = Mapping::GpuOnly;
        o.panel = panel;
        REQUIRE(potrf(runtime(), 200, W.data(), 200, o, tiling) == 0);
        CHECK(potrf_residual<TestType>(200, A.data(), 200, W.data(), 200) < kResidualLimit);
        A[70 + 70 * 200] = TestType(-1);
        CHECK(potrf(runtime(), 200, A.data(), 200, o, tiling) == 71);
    }
}

TEMPLATE_TEST_CASE("GPU potrf reports non-SPD, NaN and Inf through info", "[gpu]", float, double) {
    const int64_t n = 300, nb = 64;
    const TestType nan = std::numeric_limits<TestType>::quiet_NaN();
    const TestType inf = std::numeric_limits<TestType>::infinity();
    using Case = BadEntry<TestType>;
    for (Residency r : {Residency::Host, Residency::Device}) {
        for (const Case c : {Case{0, 0, TestType(-1), 1}, Case{63, 63, TestType(-1), 64}, Case{64, 64, TestType(-1), 65},
                             Case{200, 200, TestType(-5), 201}, Case{299, 299, TestType(-1), 300},
                             Case{150, 20, nan, 151}, Case{77, 77, nan, 78}, Case{100, 100, inf, 101},
                             Case{250, 5, inf, 251}}) {
            const uint64_t seed = fresh_seed();
            INFO("residency=" << to_string(r) << " entry (" << c.i << "," << c.j << ") = " << c.v << " seed=" << seed);
            std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
            A[c.i + c.j * n] = c.v;
            for (PanelSolve panel : {PanelSolve::Trsm, PanelSolve::Inverse}) {
                std::vector<TestType> W = A;
                Options o;
                const Tiling tiling{nb, r};
                o.mapping = Mapping::GpuOnly;
                o.panel = panel;
                CHECK(potrf(runtime(), n, W.data(), n, o, tiling) == c.expected);
            }
            CHECK(settled_pending_tasks(runtime()) == 0);
        }
    }
    factor_and_check<TestType>(n, nb, Mapping::GpuOnly, Residency::Device, false);  // still usable
}

TEMPLATE_TEST_CASE("GPU-only default options factor Gaussian-kernel matrices (ill-conditioned tiles) as LAPACK does",
                   "[gpu]", float, double) {
    using T = TestType;
    // Matrices on which the inverse panel solve (PanelSolve::Inverse) fails with a spurious info > 0:
    // the default panel solve must factor them on GPU mappings as LAPACK does.
    const int64_t n = 1500;
    const double ell = 0.1, nugget = sizeof(T) == 4 ? 1e-5 : 1e-12;
    for (int64_t nb : {256, 512}) {
        std::vector<T> A(static_cast<size_t>(n * n));
        const uint64_t seed = gaussian_kernel_spd<T>(n, A.data(), n, ell, nugget, fresh_seed());
        INFO("n=" << n << " nb=" << nb << " ell=" << ell << " nugget=" << nugget << " seed=" << seed
                  << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
        TileMatrix<T> tiles(runtime(), n, nb, Residency::Device);
        tiles.import(A.data(), n);
        Options o;
        o.mapping = Mapping::GpuOnly;
        REQUIRE(potrf(tiles, o) == 0);
        std::vector<T> L(A.size());
        tiles.export_to(L.data(), n);
        const double res = potrf_residual<T>(n, A.data(), n, L.data(), n);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("GPU factorizations and a solve submitted together report their own info", "[gpu][async]", float,
                   double) {
    // Device-resident tiles: the infos are written by CUDA codelets and brought back by Sequence::wait().
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t n1 = 1000, n2 = 700, nb = 256, nrhs = 3, bad = 400;
    const std::vector<T> A1 = spd_matrix<T>(n1, n1, seed);
    std::vector<T> A2 = spd_matrix<T>(n2, n2, seed + 1), B(static_cast<size_t>(n1 * nrhs)), X(B.size()),
                   L1(A1.size());
    A2[bad + bad * n2] = T(-1);
    random_matrix<T>(n1, nrhs, B.data(), n1, seed + 2);
    TileMatrix<T> a1(runtime(), n1, nb, Residency::Device), a2(runtime(), n2, nb, Residency::Device),
        b(runtime(), n1, nrhs, nb, Residency::Device);
    a1.import(A1.data(), n1);
    a2.import(A2.data(), n2);
    b.import(B.data(), n1);
    Options o;
    o.mapping = Mapping::GpuOnly;
    Sequence seq(runtime());
    const int op1 = async::potrf(a1, seq, o);
    async::potrs(a1, b, seq, o);
    const int op2 = async::potrf(a2, seq, o);
    CHECK(seq.wait() == bad + 1);
    CHECK(seq.info(op1) == 0);
    CHECK(seq.info(op2) == bad + 1);
    b.export_to(X.data(), n1);
    a1.export_to(L1.data(), n1);
    CHECK(solve_residual<T>(n1, nrhs, A1.data(), n1, X.data(), n1, B.data(), n1) < kResidualLimit);
    CHECK(potrf_residual<T>(n1, A1.data(), n1, L1.data(), n1) < kResidualLimit);
}

TEST_CASE("GPU array forms and views on device arrays: in place, GPU-only and hybrid", "[gpu][views]") {
    const int64_t n = 700, nrhs = 2, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs)), X(B.size()), L(A.size());
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    double *dA = nullptr, *dB = nullptr;
    REQUIRE(cudaMalloc(&dA, sizeof(double) * A.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dB, sizeof(double) * B.size()) == cudaSuccess);
    auto upload = [&] {
        REQUIRE(cudaMemcpy(dA, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaMemcpy(dB, B.data(), sizeof(double) * B.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    };
    CHECK(residency_of(runtime(), dA) == Residency::Device);
    for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(mapping));
        Options o;
        o.mapping = mapping;
        // The array form: the device arrays are viewed in place.
        upload();
        CHECK(posv(runtime(), n, nrhs, dA, n, dB, n, o, Tiling{nb}) == 0);
        REQUIRE(cudaMemcpy(X.data(), dB, sizeof(double) * X.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        // A view of device memory, factored in place; the upper triangle (lower_only) is never touched.
        upload();
        REQUIRE(cudaMemset(dA + n * (n / 2), 0xff, sizeof(double)) == cudaSuccess);  // NaN above the diagonal
        {
            TileLayout lower;
            lower.lower_only = true;
            TileMatrix<double> V(runtime(), n, n, nb, dA, n, lower);
            CHECK(V.is_view());
            CHECK(V.residency() == Residency::Device);
            CHECK(potrf(V, o) == 0);
        }
        REQUIRE(cudaMemcpy(L.data(), dA, sizeof(double) * L.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(std::isnan(L[n * (n / 2)]));
        L[n * (n / 2)] = 0;
        CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
    }
    cudaFree(dA);
    cudaFree(dB);
}
