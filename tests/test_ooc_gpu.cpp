// Out-of-core on one GPU [gpu][ooc]: host-resident tiles whose lower triangle (Cholesky) or whole matrix
// (LU) is four times StarPU's CUDA memory limit (tests/main_ooc_gpu.cpp): the factorizations complete, the
// solves with their factors have a scaled residual < 60 (O(n^2) on the host, so the matrices can be large
// enough for a limit that holds hundreds of tiles), and the bytes moved show the eviction at work (more
// fetched than the matrix holds, dirty tiles written back). Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/lu_support.hpp"
#include "tests/ooc_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::lu;
using starfact::test::kOocLimitMiB;

namespace {

Options gpu_only() {
    Options o;
    o.mapping = Mapping::GpuOnly;
    return o;
}

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int64_t kRhs = 3;

/// The order whose n x n matrix of T (whole, or its lower triangle) holds `factor` times the limit, rounded
/// up to an odd size that no tile size divides.
template <typename T>
int64_t order_for(double factor, bool lower) {
    const double elements = factor * kOocLimitMiB * kMiB / sizeof(T) * (lower ? 2.0 : 1.0);
    return static_cast<int64_t>(std::sqrt(elements)) | 1;
}

}  // namespace

TEMPLATE_TEST_CASE("potrf with the lower triangle four times the GPU memory limit", "[gpu][ooc]", float, double) {
    using T = TestType;
    const int64_t n = order_for<T>(4.0, true), nb = 256;
    const double lower_bytes = 0.5 * static_cast<double>(n) * static_cast<double>(n + nb) * sizeof(T);
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " limit=" << kOocLimitMiB << " MiB seed=" << seed);
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    TileMatrix<T> tiles(runtime(), n, nb, Residency::Host);
    tiles.import(A.data(), n);
    runtime().transfers();
    REQUIRE(potrf(tiles, gpu_only()) == 0);
    const Runtime::Transfers moved = runtime().transfers();
    std::vector<T> B(static_cast<size_t>(n) * kRhs), X(B.size());
    random_matrix<T>(n, kRhs, B.data(), n, seed + 1);
    TileMatrix<T> b(runtime(), n, kRhs, nb, Residency::Host);
    b.import(B.data(), n);
    potrs(tiles, b, gpu_only());
    b.export_to(X.data(), n);
    CHECK(solve_residual<T>(n, kRhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    INFO("host->GPU " << moved.host_to_gpu << " B, GPU->host " << moved.gpu_to_host << " B, lower triangle "
                      << lower_bytes << " B");
    CHECK(static_cast<double>(moved.host_to_gpu) > 1.2 * lower_bytes);  // tiles fetched again after eviction
    CHECK(moved.gpu_to_host > 0);                                        // dirty tiles written back
}

TEMPLATE_TEST_CASE("getrf with the matrix four times the GPU memory limit", "[gpu][ooc]", float, double) {
    using T = TestType;
    const int64_t n = order_for<T>(4.0, false), nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " limit=" << kOocLimitMiB << " MiB seed=" << seed);
    const std::vector<T> A = random_general<T>(n, n, seed);
    TileMatrix<T> tiles(runtime(), n, nb, Residency::Host);
    Pivots piv(tiles);
    tiles.import(A.data(), n);
    runtime().transfers();
    REQUIRE(getrf(tiles, piv, gpu_only()) == 0);
    const Runtime::Transfers moved = runtime().transfers();
    std::vector<T> B(static_cast<size_t>(n) * kRhs), X(B.size());
    random_matrix<T>(n, kRhs, B.data(), n, seed + 1);
    TileMatrix<T> b(runtime(), n, kRhs, nb, Residency::Host);
    b.import(B.data(), n);
    getrs(tiles, piv, b, gpu_only());
    b.export_to(X.data(), n);
    CHECK(general_solve_residual<T>(n, kRhs, A.data(), X.data(), B.data()) < kResidualLimit);
    CHECK(static_cast<double>(moved.host_to_gpu) > 1.2 * static_cast<double>(n) * n * sizeof(T));
    CHECK(moved.gpu_to_host > 0);
}

TEST_CASE("left-coarse whose update tasks do not fit twice under the limit is refused", "[gpu][ooc]") {
    // nb 2048 doubles: 32 MiB tiles; n = 8192 gives update tasks of up to 7 tiles (224 MiB), and 2 x 224 > 256 MiB
    TileMatrix<double> tiles(runtime(), 8192, 2048, Residency::Host);
    Options o = gpu_only();
    o.variant = Variant::parse("left-coarse");
    REQUIRE_THROWS_WITH(potrf(tiles, o), Catch::Contains("left-coarse") && Catch::Contains("256 MiB"));
    o.variant = Variant::parse("right");  // the same matrix, refused only for the variant
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    tiles.import(spd_matrix<double>(8192, 8192, seed).data(), 8192);
    CHECK(potrf(tiles, o) == 0);
}
