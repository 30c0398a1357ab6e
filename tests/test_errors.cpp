// Bad input: exceptions naming the argument; non-SPD, NaN and Inf reported through info, with
// the runtime left idle and usable.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/cpu_lapack.hpp"
#include "runtime/tile_limits.hpp"
#include "algorithms/plan_tables.hpp"
#include "tests/support.hpp"
#include "tests/wide_array.hpp"

using namespace starfact::test::prelude;
using starfact::test::WideArray;

namespace {

/// Runs f and returns the name of the argument its InvalidArgument names ("" if none thrown).
template <typename F>
std::string bad_argument(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find("'" + e.argument() + "'") != std::string::npos);
        return e.argument();
    }
    return "";
}

int lapack_info(int64_t n, std::vector<double> A) {
    return starfact::detail::cpu::potrf<double>(static_cast<int>(n), A.data(), static_cast<int>(n));
}

}  // namespace

TEST_CASE("invalid arguments throw and name the argument", "[errors][cpu]") {
    Runtime& rt = runtime();
    std::vector<double> A(100, 1.0), B(100, 1.0);
    Options o;
    Tiling tiling;
    o.mapping = Mapping::CpuOnly;
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, -1, 8); }) == "n");
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, -2, 4, 8); }) == "m");
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, 10, 0); }) == "nb");
    CHECK(bad_argument([&] { TileMatrix<float> t(rt, 10, -3); }) == "nb");
    CHECK(bad_argument([&] { potrf<double>(rt, -1, A.data(), 10, o, tiling); }) == "n");
    CHECK(bad_argument([&] { potrf<double>(rt, 10, A.data(), 9, o, tiling); }) == "lda");
    CHECK(bad_argument([&] { potrf<double>(rt, 10, nullptr, 10, o, tiling); }) == "A");
    const Tiling negative_nb{-1};
    CHECK(bad_argument([&] { potrf<double>(rt, 10, A.data(), 10, o, negative_nb); }) == "nb");
    CHECK(bad_argument([&] { posv<double>(rt, 10, 1, A.data(), 10, B.data(), 10, o, negative_nb); }) == "nb");
    CHECK(bad_argument([&] { posv<double>(rt, 10, -1, A.data(), 10, B.data(), 10, o, tiling); }) == "nrhs");
    CHECK(bad_argument([&] { posv<double>(rt, 10, 2, A.data(), 10, B.data(), 5, o, tiling); }) == "ldb");
    CHECK(bad_argument([&] { posv<double>(rt, 10, 2, A.data(), 3, B.data(), 10, o, tiling); }) == "lda");
    // Null arrays are named by the driver, before any import.
    CHECK_THROWS_WITH(posv<double>(rt, 10, 2, A.data(), 10, nullptr, 10, o, tiling),
                      Catch::Contains("starfact::posv: argument 'B' is null"));
    CHECK_THROWS_WITH(posv<double>(rt, 10, 2, nullptr, 10, B.data(), 10, o, tiling),
                      Catch::Contains("starfact::posv: argument 'A' is null"));
    std::vector<double> S = spd_matrix<double>(10, 10, 1);
    CHECK(posv<double>(rt, 10, 0, S.data(), 10, nullptr, 10, o, tiling) == 0);  // no right-hand side: B unused
    TileMatrix<double> rect(rt, 10, 12, 4), sq(rt, 10, 4), b_rows(rt, 9, 2, 4), b_nb(rt, 10, 2, 5);
    CHECK(bad_argument([&] { potrf(rect, o); }) == "A");
    CHECK(bad_argument([&] { potrs(sq, b_rows, o); }) == "B");
    CHECK(bad_argument([&] { potrs(sq, b_nb, o); }) == "B");
    CHECK(bad_argument([&] { posv(sq, b_rows, o); }) == "B");
    CHECK(bad_argument([&] { sq.import(A.data(), 9); }) == "lda");
    CHECK(bad_argument([&] { sq.export_to(A.data(), 0); }) == "lda");
    CHECK(bad_argument([&] { parse_mapping("gpu"); }) == "mapping");
    CHECK(bad_argument([&] { parse_panel_solve("lu"); }) == "panel");
    CHECK(bad_argument([&] { parse_diag_kernel("magma"); }) == "diag");
    CHECK(bad_argument([&] { Variant::parse("lookahead=-1"); }) == "variant");
    CHECK(bad_argument([&] { Variant::parse("up"); }) == "variant");
    RuntimeConfig bad;
    bad.scheduler = "no-such-policy";
    CHECK(bad_argument([&] { Runtime second(bad); }) == "scheduler");
    if (rt.cuda_workers() == 0) {
        Options gpu = o;
        gpu.mapping = Mapping::GpuOnly;
        CHECK(bad_argument([&] { potrf<double>(rt, 10, A.data(), 10, gpu); }) == "mapping");
        CHECK(bad_argument([&] { TileMatrix<double> t(rt, 10, 4, Residency::Device); }) == "residency");
    }
    CHECK(settled_pending_tasks(rt) == 0);
}

TEST_CASE("layouts: a grid needs MPI ranks, lower_only a square matrix", "[errors][cpu][layout]") {
    Runtime& rt = runtime();
    const TileLayout grid2{Grid{1, 2}, false}, lower{Grid{}, true};
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, 10, 4, Residency::Host, grid2); }) == "layout");
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, 10, 12, 4, Residency::Host, lower); }) == "layout");
    CHECK(bad_argument([&] { TileMatrix<double> t(rt, 10, 4, Residency::Host, TileLayout{Grid{0, 1}, false}); }) ==
          "layout");
    TileMatrix<double> l(rt, 10, 4, Residency::Host, lower);
    CHECK(bad_argument([&] { l.tile(0, 2); }) == "j");
    CHECK(l.stored_bytes() == (4 * 4 * 3 + 4 * 2 * 2 + 2 * 2) * sizeof(double));  // tiles (0,0) (1,0) (1,1) ...
    CHECK(Grid::square(1) == Grid{1, 1});
    CHECK(Grid::square(2) == Grid{1, 2});
    CHECK(Grid::square(6) == Grid{2, 3});
    CHECK(Grid::square(16) == Grid{4, 4});
    CHECK(Grid::square(7) == Grid{1, 7});
}

TEST_CASE("a matrix larger than memory throws, naming the bytes and the matrix order", "[errors][cpu]") {
    // 64 tiles of 8 TiB: refused before any allocation, whatever the overcommit setting
    // (tests/test_lifetime_memory.cpp covers the sizes that overflow).
    const int64_t n = int64_t(1) << 23, nb = int64_t(1) << 20;
    try {
        TileMatrix<double> t(runtime(), n, nb);
        FAIL("the allocation succeeded");
    } catch (const RuntimeError& e) {
        INFO(e.what());
        CHECK_THAT(e.what(), Catch::Contains("562949953421312 bytes") && Catch::Contains("8388608 x 8388608") &&
                                 Catch::Contains("are available"));
    }
    CHECK(settled_pending_tasks(runtime()) == 0);
}

TEST_CASE("a tile grid too fine to factor is refused naming nb, at once and in every form", "[errors][cpu]") {
    Runtime& rt = runtime();
    const Options cpu = on(Mapping::CpuOnly);
    // The message of the InvalidArgument naming 'nb' f throws ("" if none; the other argument's name if another).
    auto nb_refusal = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            return e.argument() == "nb" ? e.what() : "names '" + e.argument() + "' instead";
        }
        return "";
    };
    const auto start = std::chrono::steady_clock::now();
    // 3000 x 3000 in 1 x 1 tiles: nine million tiles, on the order of 10^10 tasks for a factorization.
    const std::string message = nb_refusal([&] { TileMatrix<double> t(rt, 3000, 1); });
    INFO(message);
    CHECK_THAT(message, Catch::Contains("3000 x 3000 tiles") && Catch::Contains("2^30") &&
                            Catch::Contains("use nb >= 12,"));
    // The array forms and views (over an array mapped without reserving memory, never touched), the QR's factors.
    WideArray<double> a(3000, 3000, 3000);
    std::vector<int64_t> ipiv(3000);
    CHECK_THAT(nb_refusal([&] { potrf(rt, 3000, a.data(), 3000, cpu, Tiling{1}); }), Catch::Contains("nb >= 12,"));
    CHECK_THAT(nb_refusal([&] { getrf(rt, 3000, a.data(), 3000, ipiv.data(), cpu, Tiling{2}); }),
               Catch::Contains("1500 x 1500 tiles"));
    CHECK_THAT(nb_refusal([&] { TileMatrix<double> v(rt, 3000, 3000, 1, a.data(), 3000); }),
               Catch::Contains("nb >= 12,"));
    CHECK_THAT(nb_refusal([&] { QRFactors<double> f(rt, 3000, 3000, 2); }), Catch::Contains("nb >= 12,"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 5);  // refused before anything is registered
    // The limits on mt * nt * min(mt, nt): 2^30 (1024 x 1024 tiles of a square matrix), 2^24 (256 x 256) with
    // tiles smaller than 16 x 16; a tile column may have as many tile rows.
    CHECK_NOTHROW(detail::require_tile_grid("f", 1024 * 16, 1024 * 16, 16));
    CHECK_THROWS_AS(detail::require_tile_grid("f", 1025 * 16, 1024 * 16, 16), InvalidArgument);
    CHECK_NOTHROW(detail::require_tile_grid("f", 256, 256, 1));
    CHECK_THROWS_AS(detail::require_tile_grid("f", 257, 256, 1), InvalidArgument);
    CHECK_NOTHROW(detail::require_tile_grid("f", 3000, 3000, 12));
    CHECK_THROWS_AS(detail::require_tile_grid("f", 3000, 3000, 11), InvalidArgument);
    CHECK_NOTHROW(detail::require_tile_grid("f", int64_t(1) << 24, 1, 1));
    CHECK_NOTHROW(detail::require_tile_grid("f", int64_t(1) << 34, 1, 16));
    CHECK_NOTHROW(detail::require_tile_grid("f", int64_t(1) << 40, 32, 1 << 10));
    CHECK_THAT(nb_refusal([&] { detail::require_tile_grid("f", int64_t(1) << 62, int64_t(1) << 62, 1); }),
               Catch::Contains("more than 2^64"));
    CHECK(settled_pending_tasks(rt) == 0);
}

TEST_CASE("leading dimension messages give the bound that applies", "[errors][cpu]") {
    Runtime& rt = runtime();
    std::vector<double> A(400, 1.0), B(400, 1.0);
    const Options cpu = on(Mapping::CpuOnly);
    auto message = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            return e.what();
        }
        return "";
    };
    // geqrf of a 10 x 4 A: lda >= max(1, m) = 10, whatever n is.
    QRFactors<double> f(rt, 10, 4, 4);
    CHECK_THAT(message([&] { geqrf(rt, 10, 4, A.data(), 5, f, cpu); }),
               Catch::Contains("argument 'lda' must be >= max(1, m) = 10 (got 5)"));
    CHECK_THAT(message([&] { gels(rt, 10, 4, 1, A.data(), 9, B.data(), 10, cpu); }),
               Catch::Contains("argument 'lda' must be >= max(1, m) = 10 (got 9)"));
    // gels of a 4 x 10 A: B holds max(m, n) rows.
    CHECK_THAT(message([&] { gels(rt, 4, 10, 1, A.data(), 4, B.data(), 4, cpu); }),
               Catch::Contains("argument 'ldb' must be >= max(1, m, n) = 10 (got 4)"));
    geqrf(rt, 10, 4, A.data(), 10, f, cpu);
    // ormqr from the right: C is nrhs x m.
    CHECK_THAT(message([&] { ormqr(rt, Side::Right, Trans::NoTrans, 10, 3, A.data(), 10, f, B.data(), 2, cpu); }),
               Catch::Contains("argument 'ldc' must be >= max(1, nrhs) = 3 (got 2)"));
    CHECK_THAT(message([&] { potrf(rt, 7, A.data(), 6, cpu); }),
               Catch::Contains("argument 'lda' must be >= max(1, n) = 7 (got 6)"));
}

TEST_CASE("a second Runtime is refused while one is alive", "[errors][cpu]") {
    CHECK_THROWS_AS(Runtime(), RuntimeError);
}

TEMPLATE_TEST_CASE("non-SPD input returns the first failing column, like LAPACK", "[errors][cpu]", float, double) {
    const int64_t n = 130, nb = 32;
    for (PanelSolve panel : {PanelSolve::Trsm, PanelSolve::Inverse})
    for (int64_t k : {int64_t(1), nb - 1, nb, nb + 1, int64_t(77), n}) {
        const uint64_t seed = fresh_seed();
        INFO("k=" << k << " panel=" << to_string(panel) << " seed=" << seed);
        std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
        A[(k - 1) + (k - 1) * n] = TestType(-1);  // leading minor of order k is not positive definite
        if (sizeof(TestType) == 8) {
            std::vector<double> Ad(A.begin(), A.end());
            CHECK(lapack_info(n, Ad) == k);
        }
        std::vector<TestType> L = A;
        Options o;
        const Tiling tiling{nb};
        o.mapping = Mapping::CpuOnly;
        o.panel = panel;
        CHECK(potrf(runtime(), n, L.data(), n, o, tiling) == k);
        CHECK(settled_pending_tasks(runtime()) == 0);
    }
    // The runtime is still usable afterwards.
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<TestType> A = spd_matrix<TestType>(n, n, seed), L = A;
    Options o;
    const Tiling tiling{nb};
    o.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(runtime(), n, L.data(), n, o, tiling) == 0);
    CHECK(potrf_residual<TestType>(n, A.data(), n, L.data(), n) < kResidualLimit);
}

TEMPLATE_TEST_CASE("NaN and Inf input are reported through info", "[errors][cpu]", float, double) {
    const int64_t n = 100, nb = 24;
    const TestType nan = std::numeric_limits<TestType>::quiet_NaN();
    const TestType inf = std::numeric_limits<TestType>::infinity();
    using Case = BadEntry<TestType>;
    // A bad entry (i, j), i >= j, reaches diagonal i first: info = i + 1.
    for (const Case c : {Case{0, 0, nan, 1}, Case{50, 50, nan, 51}, Case{60, 10, nan, 61}, Case{99, 98, nan, 100},
                         Case{30, 30, inf, 31}, Case{70, 3, inf, 71}, Case{40, 40, -inf, 41}}) {
        const uint64_t seed = fresh_seed();
        INFO("entry (" << c.i << "," << c.j << ") = " << c.v << " seed=" << seed);
        std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
        A[c.i + c.j * n] = c.v;
        Options o;
        const Tiling tiling{nb};
        o.mapping = Mapping::CpuOnly;
        CHECK(potrf(runtime(), n, A.data(), n, o, tiling) == c.expected);
        CHECK(settled_pending_tasks(runtime()) == 0);
    }
}

TEMPLATE_TEST_CASE("NaN input to LU is not detected: info 0 and NaN results, as LAPACK's", "[errors][cpu][lu]", float,
                   double) {
    // getrf reports exactly-zero pivots only; a NaN pivot is not zero, and it spreads.
    const int64_t n = 50, nrhs = 2;
    std::vector<TestType> A(static_cast<size_t>(n * n)), B(static_cast<size_t>(n * nrhs));
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    random_matrix<TestType>(n, n, A.data(), n, seed);
    random_matrix<TestType>(n, nrhs, B.data(), n, seed + 1);
    A[20 + 7 * n] = std::numeric_limits<TestType>::quiet_NaN();
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    Options o;
    o.mapping = Mapping::CpuOnly;
    CHECK(gesv(runtime(), n, nrhs, A.data(), n, ipiv.data(), B.data(), n, o, Tiling{16}) == 0);
    CHECK(std::count_if(B.begin(), B.end(), [](TestType x) { return std::isnan(x); }) > 0);
    CHECK(settled_pending_tasks(runtime()) == 0);
}

TEST_CASE("the plan's tile sizes by order, precision, residency and GPU count", "[cpu][plan]") {
    const auto gpu = Mapping::GpuOnly;
    const auto device = Residency::Device, host = Residency::Host;
    // one GPU, device-resident: one task up to 20480 in double and 16384 in float, then 2048 / 4096 tiles
    CHECK(detail::tile_plan<double>(20480, gpu, device, true).nb == 20480);
    CHECK(detail::tile_plan<double>(20481, gpu, device, true).nb == 2048);
    CHECK(detail::tile_plan<float>(16384, gpu, device, true).nb == 16384);
    CHECK(detail::tile_plan<float>(16385, gpu, device, true).nb == 4096);
    CHECK(detail::tile_plan<double>(1, gpu, device, true).nb == 1);
    // the mixed-precision solve: 4096 tiles from 12288 for the tensor-core factors, 2048 otherwise, 256 on CPUs
    CHECK(detail::mixed_tile_size(16384, gpu, true, Precision::Tf32) == 4096);
    CHECK(detail::mixed_tile_size(12288, gpu, true, Precision::Bf16) == 4096);
    CHECK(detail::mixed_tile_size(12287, gpu, true, Precision::Fp16) == 2048);
    CHECK(detail::mixed_tile_size(32768, gpu, true, Precision::Fp32) == 2048);
    CHECK(detail::mixed_tile_size(1000, gpu, true, Precision::Tf32) == 1000);
    CHECK(detail::mixed_tile_size(1000, Mapping::CpuOnly, true, Precision::Tf32) == 256);
    CHECK(detail::mixed_tile_size(100, gpu, false) == 100);
    // which solves the tensor cores take: from 16384 on GPUs; fp32 and CPU mappings always; the double plan's tiles
    // otherwise
    CHECK(detail::solve_plan(16384, gpu, device, true, 1, Precision::Tf32).low);
    CHECK(detail::solve_plan(16384, gpu, host, true, 1, Precision::Tf32).nb == 4096);
    CHECK(!detail::solve_plan(16383, gpu, host, true, 1, Precision::Bf16).low);
    CHECK(detail::solve_plan(16383, gpu, host, true, 1, Precision::Bf16).nb == detail::tile_plan<double>(16383, gpu, host, true).nb);
    CHECK(!detail::solve_plan(9011, Mapping::Hybrid, host, true, 1, Precision::Fp16).low);
    CHECK(detail::solve_plan(9011, gpu, host, true, 1, Precision::Fp32).low);
    CHECK(detail::solve_plan(500, Mapping::CpuOnly, host, true, 1, Precision::Tf32).low);
    CHECK(detail::solve_plan(500, gpu, host, false, 1, Precision::Tf32).low);
    CHECK(!detail::solve_plan(50000, gpu, device, true, 1, Precision::Fp64).low);
    CHECK(!detail::solve_plan(50000, gpu, device, true, 1, Precision::Native).low);
    // several GPUs: one task up to 12288, 2048 above; host-resident: one task up to 4096, 2048 above
    CHECK(detail::tile_plan<double>(12288, gpu, device, true, 2).nb == 12288);
    CHECK(detail::tile_plan<double>(12289, gpu, device, true, 4).nb == 2048);
    CHECK(detail::tile_plan<float>(65536, gpu, host, true).nb == 2048);
    CHECK(detail::tile_plan<double>(65536, Mapping::CpuOnly, device, true).nb == 256);
    // LU: 4096 tiles above 24576 on one GPU, 2048 on several
    CHECK(detail::lu_tile_size<double>(65536, gpu, device, true) == 4096);
    CHECK(detail::lu_tile_size<double>(65536, gpu, device, true, 4) == 2048);
    CHECK(detail::lu_tile_size<double>(8192, gpu, device, true, 2) == 8192);
    CHECK(detail::lu_tile_size<double>(65536, gpu, host, true) == 2048);
    CHECK(detail::lu_tile_size<double>(65536, gpu, device, false) == 256);
}

TEST_CASE("auto picks the diagonal kernel by tile order and precision, explicit choices stand", "[cpu][diag]") {
    const DiagKernel fused = have_fused_potf2() ? DiagKernel::Fused : DiagKernel::Cusolver;
    for (int64_t nb : {1, 512, 2048}) {  // every DAG tile of the plans: our fused potf2
        CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::GpuOnly, nb) == fused);
        CHECK(detail::resolve_diag_kernel<float>(DiagKernel::Auto, Mapping::Hybrid, nb) == fused);
    }
    // one cuSOLVER call where it was measured faster: double 2049..24576, float 2049..4096
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::GpuOnly, 2049) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::GpuOnly, 16384) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::GpuOnly, 24576) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::GpuOnly, 24577) == fused);
    CHECK(detail::resolve_diag_kernel<float>(DiagKernel::Auto, Mapping::GpuOnly, 4096) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<float>(DiagKernel::Auto, Mapping::GpuOnly, 8192) == fused);
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Auto, Mapping::CpuOnly, 512) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<double>(DiagKernel::Cusolver, Mapping::GpuOnly, 512) == DiagKernel::Cusolver);
    CHECK(detail::resolve_diag_kernel<float>(DiagKernel::Fused, Mapping::Hybrid, 8192) == DiagKernel::Fused);
}
