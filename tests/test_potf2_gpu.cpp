// GPU tests [potf2] of the fused tile Cholesky (kernels/potf2/): residuals against the input and
// LAPACK's info for many orders, leading dimensions and configurations, both precisions; info, finite
// output and untouched storage for non-SPD and NaN tiles; per-tile info in a sequence of tiles; bad
// arguments. Cases tagged [sanitize] are small (n <= 256) for compute-sanitizer. Skipped without a GPU.
#include <catch2/catch.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#include "tests/gpu_hog.hpp"
#include "tests/potf2_checks.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::detail::gpu::Potf2Config;
using starfact::test::fresh_seed;
using starfact::test::kResidualLimit;
using starfact::test::spd_matrix;
using namespace starfact::test::potf2_checks;

TEMPLATE_TEST_CASE("potf2: residual < 60 for many orders, ld = n and ld > n", "[potf2]", float, double) {
    Gpu g;
    for (int n : {1, 2, 31, 32, 33, 64, 100, 128, 255, 256, 384, 512, 700, 768, 1024, 2048})
        for (int pad : {0, 5}) check_spd<TestType>(g, n, n + pad);
}

TEMPLATE_TEST_CASE("potf2: correct while another stream keeps the GPU busy", "[potf2]", float, double) {
    // With other kernels running (as in a task graph with several streams), the thread blocks of one
    // fused launch start tens of microseconds apart: the diagonal block must not be overwritten with
    // L11 before the last of them has read it (a bug the idle-GPU cases above cannot see).
    Gpu g;
    cudaStream_t other = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess);
    for (int n : {700, 1024, 2048})
        for (int rep = 0; rep < 3; ++rep) {
            const uint64_t seed = fresh_seed();
            INFO("prec=" << prec<TestType>() << " n=" << n << " rep=" << rep << " seed=" << seed);
            const std::vector<TestType> A = spd_with_nan_upper<TestType>(n, n, seed);
            std::vector<TestType> L = A;
            REQUIRE(run_potf2<TestType>(g, L, n, n, 0, 0, nullptr, other, 20.0 + 10.0 * rep) == 0);
            const double res = potrf_residual<TestType>(n, A.data(), n, L.data(), n);
            INFO("residual=" << res);
            CHECK(res < kResidualLimit);
        }
    cudaStreamDestroy(other);
}

TEMPLATE_TEST_CASE("potf2: every configuration of the library", "[potf2]", float, double) {
    Gpu g;
    for (const Potf2Config& c : all_configs())
        for (int n : {1, 33, 100, 255, 384, 700}) check_spd<TestType>(g, n, n + 2, &c);
}

TEMPLATE_TEST_CASE("potf2: small tiles, every configuration", "[potf2][sanitize]", float, double) {
    // The library's configurations; the tuning tool's single-block leaves: tune_potf2_check (tools/tune/potf2/).
    Gpu g;
    for (const Potf2Config& c :
         {Potf2Config{8, 128, false, false, false, true}, Potf2Config{8, 32, false, false, true, true},
          Potf2Config{8, 64, false, false, true, true}, Potf2Config{8, 40, false, false, false, true}})
        for (int n : {1, 2, 17, 33, 64, 100, 129, 200}) check_spd<TestType>(g, n, n + 3, &c);
    for (int n : {1, 31, 128, 256}) check_spd<TestType>(g, n, n + 1);
}

/// Configurations of the two-stream form: panel widths 64 and 128, groups of one panel and of several,
/// a group that is not a multiple of the panel width, bulk updates in one piece and in narrow pieces.
std::vector<Potf2Config> two_stream_configs() {
    std::vector<Potf2Config> v;
    for (int cutoff : {64, 128})
        for (int group : {cutoff, 2 * cutoff, 3 * cutoff - 20})
            for (int piece : {0, 96, 1 << 16}) {
                Potf2Config c{8, cutoff, false, false, true, true};
                c.group = group;
                c.bulk_piece = piece;
                v.push_back(c);
            }
    return v;
}

TEMPLATE_TEST_CASE("potf2: two-stream form, residual < 60", "[potf2]", float, double) {
    Gpu g;
    for (const Potf2Config& c : two_stream_configs())
        for (int n : {1, 64, 65, 300, 777, 1500}) check_spd<TestType>(g, n, n + (n % 2 ? 3 : 0), &c);
    // The tuning table's large rows (the two-stream form above 1024).
    for (int n : {1025, 2100, 3001}) check_spd<TestType>(g, n, n + 1);
}

TEMPLATE_TEST_CASE("potf2: two-stream form, small tiles", "[potf2][sanitize]", float, double) {
    Gpu g;
    for (const Potf2Config& c : two_stream_configs())
        for (int n : {1, 63, 130, 200, 300}) check_spd<TestType>(g, n, n + 2, &c);
    Potf2Config c{8, 32, false, false, true, true};
    c.group = 64;
    c.bulk_piece = 32;
    for (int k : {0, 31, 32, 70, 199}) {
        check_not_spd<TestType>(g, 200, k, 0, &c);
        check_not_spd<TestType>(g, 200, k, 5, &c);
    }
}

TEMPLATE_TEST_CASE("potf2: two-stream form, non-SPD gives LAPACK's info and stays finite", "[potf2]", float, double) {
    Gpu g;
    for (const Potf2Config& c : two_stream_configs())
        for (int k : {0, 63, 64, 200, 511, 700}) check_not_spd<TestType>(g, 701, k, 0, &c);
    for (int k : {0, 1500, 2999}) check_not_spd<TestType>(g, 3000, k, 0);  // the table's large rows
}

TEMPLATE_TEST_CASE("potf2: two-stream form while another stream keeps the GPU busy", "[potf2]", float, double) {
    Gpu g;
    cudaStream_t other = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess);
    for (const Potf2Config& c : two_stream_configs())
        for (int rep = 0; rep < 2; ++rep) {
            const int n = 900 + 77 * rep;
            const uint64_t seed = fresh_seed();
            INFO("prec=" << prec<TestType>() << " n=" << n << " config=" << describe(&c) << " seed=" << seed);
            const std::vector<TestType> A = spd_with_nan_upper<TestType>(n, n, seed);
            std::vector<TestType> L = A;
            REQUIRE(run_potf2<TestType>(g, L, n, n, 0, 0, &c, other, 20.0 + 10.0 * rep) == 0);
            const double res = potrf_residual<TestType>(n, A.data(), n, L.data(), n);
            INFO("residual=" << res);
            CHECK(res < kResidualLimit);
        }
    cudaStreamDestroy(other);
}

TEMPLATE_TEST_CASE("potf2: non-SPD tile gives LAPACK's info and stays finite", "[potf2]", float, double) {
    Gpu g;
    for (int n : {100, 512, 700})
        for (int k : {0, 5, 31, 32, n / 2, 127, 128, 129, n - 1})
            if (k < n) {
                check_not_spd<TestType>(g, n, k, 0);
                check_not_spd<TestType>(g, n, k, 7);
            }
    // The largest tiles (failures early, in the middle and late in the tile).
    for (int k : {300, 1023, 1024, 1700}) check_not_spd<TestType>(g, 2048, k, 0);
}

TEMPLATE_TEST_CASE("potf2: non-SPD small tiles", "[potf2][sanitize]", float, double) {
    // The library's leaf, as one launch and in both multi-kernel forms (the single-block leaves:
    // tune_potf2_check).
    Gpu g;
    const Potf2Config leaf{8, 128, false, false, false, true};
    for (int k : {0, 1, 7, 8, 15, 16, 39}) check_not_spd<TestType>(g, 40, k, 0, &leaf);
    for (bool blocked : {false, true}) {
        const Potf2Config rec{8, 32, false, false, blocked, true};
        for (int k : {0, 20, 33, 64, 150, 199}) {
            check_not_spd<TestType>(g, 200, k, 0, &rec);
            check_not_spd<TestType>(g, 200, k, 3, &rec);
        }
    }
}

TEMPLATE_TEST_CASE("potf2: pivots below the smallest normal number are factored, not flushed", "[potf2][sanitize]",
                   float, double) {
    // Diagonal tiles whose entries are (partly) subnormal: L = sqrt(A) exactly up to rounding, info = 0,
    // zeros below the diagonal. The rdiag kernel's fast reciprocal square root flushes subnormal inputs
    // to zero; its full-range path must take over (a flushed pivot would give Inf/NaN silently).
    using T = TestType;
    Gpu g;
    const T tiny = std::numeric_limits<T>::denorm_min() * T(1 << 20);  // subnormal, 20 significant bits
    REQUIRE(tiny < std::numeric_limits<T>::min());
    const Potf2Config rdiag_leaf{8, 128, false, false, false, true}, rdiag_blocked{8, 64, false, false, true, true};
    for (const Potf2Config* c : {static_cast<const Potf2Config*>(nullptr), &rdiag_leaf, &rdiag_blocked})
        for (int n : {1, 7, 64, 100, 128, 200})
            for (int pattern = 0; pattern < 2; ++pattern) {  // all subnormal / every third one subnormal
                INFO("prec=" << prec<T>() << " n=" << n << " pattern=" << pattern << " config="
                             << (c ? std::to_string(c->cutoff) + (c->blocked ? " blocked" : " leaf") : "default"));
                const int ld = n + 1;
                std::vector<T> A(size_t(ld) * n, T(0));
                for (int j = 0; j < n; ++j) {
                    for (int i = 0; i < j; ++i) A[i + size_t(j) * ld] = std::numeric_limits<T>::quiet_NaN();
                    const bool sub = pattern == 0 || j % 3 == 1;
                    A[j + size_t(j) * ld] = sub ? tiny * T(1 + j % 5) : T(2 + j % 7);
                }
                std::vector<T> L = A;
                REQUIRE(run_potf2<T>(g, L, n, ld, 0, 0, c) == 0);
                double worst = 0;
                bool zeros = true;
                for (int j = 0; j < n; ++j) {
                    const double want = std::sqrt(double(A[j + size_t(j) * ld]));
                    worst = std::max(worst, std::fabs(double(L[j + size_t(j) * ld]) - want) / want);
                    for (int i = j + 1; i < n; ++i) zeros = zeros && L[i + size_t(j) * ld] == T(0);
                }
                INFO("max relative error of the diagonal: " << worst);
                CHECK(worst < 4.0 * std::numeric_limits<T>::epsilon());
                CHECK(zeros);
                CHECK(untouched_outside_lower(A, L, n, ld));
            }
}

TEMPLATE_TEST_CASE("potf2: NaN input gives info at the first poisoned pivot", "[potf2]", float, double) {
    Gpu g;
    for (int n : {60, 300, 1024}) {
        check_nan<TestType>(g, n, 0, 0);
        check_nan<TestType>(g, n, n / 3, n / 3);
        check_nan<TestType>(g, n, n - 1, n / 4);
        check_nan<TestType>(g, n, n / 2 + 1, 3);
        check_nan<TestType>(g, n, n - 1, n - 1);
    }
}

TEMPLATE_TEST_CASE("potf2: per-tile info in a sequence of tiles", "[potf2][sanitize]", float, double) {
    // Four tiles on one stream, as the codelet sees them: tiles 1 and 3 are not SPD. With one info per
    // tile, each reports its own column and the good tiles are correct; with one shared info (offsets
    // as a tiled factorization gives them) the first failure is kept.
    Gpu g;
    const int n = 150, ld = 150;
    const int bad[4] = {-1, 77, -1, 3};
    const uint64_t seed = fresh_seed();
    INFO("prec=" << prec<TestType>() << " seed=" << seed);
    std::vector<std::vector<TestType>> in(4);
    for (int t = 0; t < 4; ++t) {
        in[t] = spd_with_nan_upper<TestType>(n, ld, seed + t);
        if (bad[t] >= 0) in[t][bad[t] + size_t(bad[t]) * ld] = TestType(-2);
    }
    int shared_info = 0;
    for (int t = 0; t < 4; ++t) {
        std::vector<TestType> L = in[t];
        const int info = run_potf2<TestType>(g, L, n, ld);
        CHECK(info == (bad[t] >= 0 ? bad[t] + 1 : 0));
        if (bad[t] < 0) CHECK(potrf_residual<TestType>(n, in[t].data(), ld, L.data(), ld) < kResidualLimit);
        std::vector<TestType> L2 = in[t];
        shared_info = run_potf2<TestType>(g, L2, n, ld, shared_info, int64_t(t) * n);
    }
    CHECK(shared_info == n + 77 + 1);
}

TEMPLATE_TEST_CASE("potf2: bad arguments throw InvalidArgument naming them", "[potf2][sanitize]", float, double) {
    Gpu g;
    TestType* A = nullptr;
    int* info = nullptr;
    REQUIRE(cudaMalloc(&A, 300 * 300 * sizeof(TestType)) == cudaSuccess);
    REQUIRE(cudaMalloc(&info, sizeof(int)) == cudaSuccess);
    auto arg_of = [&](auto call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(no exception)";
    };
    using detail::gpu::potf2_tile;
    using detail::gpu::potf2_tile_tuned;
    CHECK(arg_of([&] { potf2_tile<TestType>(g.cublas, g.stream, -1, A, 1, info, 0, nullptr, 0); }) == "n");
    CHECK(arg_of([&] { potf2_tile<TestType>(g.cublas, g.stream, 10, A, 9, info, 0, nullptr, 0); }) == "ld");
    CHECK(arg_of([&] { potf2_tile<TestType>(g.cublas, g.stream, 10, nullptr, 10, info, 0, nullptr, 0); }) == "A");
    CHECK(arg_of([&] { potf2_tile<TestType>(g.cublas, g.stream, 10, A, 10, nullptr, 0, nullptr, 0); }) == "info");
    CHECK(arg_of([&] { potf2_tile<TestType>(g.cublas, g.stream, 300, A, 300, info, 0, nullptr, 0); }) ==
          "workspace");
    CHECK(arg_of([&] { potf2_tile_tuned<TestType>({24, 64}, g.cublas, g.stream, 10, A, 10, info, 0, nullptr, 0); }) ==
          "config.ib");
    CHECK(arg_of([&] {
              potf2_tile_tuned<TestType>({16, 64, false, false, false, true}, g.cublas, g.stream, 10, A, 10, info, 0,
                                         nullptr, 0);
          }) == "config.ib");
    CHECK(arg_of([&] {
              potf2_tile_tuned<TestType>({8, 256, false, false, false, true}, g.cublas, g.stream, 10, A, 10, info, 0,
                                         nullptr, 0);
          }) == "config.cutoff");
    // The library compiles only the replicated-diagonal leaf (the others are the tuning tool's).
    CHECK(arg_of([&] { potf2_tile_tuned<TestType>({8, 64}, g.cublas, g.stream, 10, A, 10, info, 0, nullptr, 0); }) ==
          "config.rdiag");
    Potf2Config two{8, 64, false, false, true, true};
    two.group = 128;
    CHECK(arg_of([&] { potf2_tile_tuned<TestType>(two, g.cublas, g.stream, 300, A, 300, info, 0, nullptr, 0); }) ==
          "aux");
    CHECK(detail::gpu::potf2_workspace_bytes<TestType>(1) == 0);
    CHECK(detail::gpu::potf2_workspace_bytes<TestType>(1000) > 0);
    // n = 0 is a no-op (no launch, info untouched).
    CHECK_NOTHROW(potf2_tile<TestType>(g.cublas, g.stream, 0, nullptr, 1, nullptr, 0, nullptr, 0));
    REQUIRE(cudaStreamSynchronize(g.stream) == cudaSuccess);
    cudaFree(A);
    cudaFree(info);
}
