// CPU tests [batched][cpu]: starfact::batched::potrf/posv through StarPU chunk tasks on CPU workers
// (the codelet's LAPACKE loop) against LAPACKE directly, per-member info for non-SPD and NaN
// members while the others stay correct, several chunkings, and the argument checks.
#include <catch2/catch.hpp>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "starfact/batched_cholesky.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using namespace starfact::test::batched;

namespace {

template <typename T>
void check_batched(int n, int64_t nrhs, int64_t batch, int64_t chunk, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " batch=" << batch << " chunk=" << chunk << " mapping=" << to_string(mapping)
              << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const int lda = n + 1, ldb = n + 3;
    const int64_t strideA = static_cast<int64_t>(lda) * n + 2, strideB = static_cast<int64_t>(ldb) * nrhs + 1;
    std::vector<T> A(static_cast<size_t>(batch * strideA), T(-777));
    std::vector<T> B(static_cast<size_t>(std::max<int64_t>(1, batch * strideB)), T(-333));
    std::vector<int> expected(static_cast<size_t>(batch), 0);
    for (int64_t i = 0; i < batch; ++i) {
        random_symmetric<T>(n, A.data() + i * strideA, lda, seed + i, static_cast<double>(n));
        random_matrix<T>(n, nrhs, B.data() + i * strideB, ldb, seed + 5000 + i);
    }
    if (batch > 3) {
        const int k = n / 3;
        A[3 * strideA + k + static_cast<int64_t>(k) * lda] = -T(n);
        expected[3] = k + 1;
    }
    if (batch > 4) {
        A[4 * strideA + (n - 1) + static_cast<int64_t>(n - 1) * lda] = std::numeric_limits<T>::quiet_NaN();
        expected[4] = n;
    }
    std::vector<T> F = A, X = B;
    std::vector<int> info(static_cast<size_t>(batch), -1);
    batched::Options o;
    o.mapping = mapping;
    o.chunk = chunk;
    const int64_t failed = nrhs >= 0 ? batched::posv<T>(runtime(), n, nrhs, F.data(), lda, strideA, X.data(), ldb,
                                                        strideB, info.data(), batch, o)
                                     : batched::potrf<T>(runtime(), n, F.data(), lda, strideA, info.data(), batch, o);
    CHECK(failed == std::count_if(expected.begin(), expected.end(), [](int v) { return v != 0; }));
    const double tol = tolerance<T>(n);
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        REQUIRE(info[i] == expected[i]);
        // everything outside the lower triangle (upper, padding, gaps) is untouched
        for (int64_t k = 0; k < strideA; ++k) {
            const int64_t r = k % lda, c = k / lda;
            if (c < n && r < n && r >= c) continue;
            const T before = A[i * strideA + k], after = F[i * strideA + k];
            CHECK((before == after || (std::isnan(before) && std::isnan(after))));
        }
        if (expected[i] != 0) {
            if (nrhs > 0) CHECK(std::equal(B.begin() + i * strideB, B.begin() + (i + 1) * strideB, X.begin() + i * strideB));
            continue;
        }
        std::vector<T> L(A.begin() + i * strideA, A.begin() + i * strideA + static_cast<int64_t>(lda) * n);
        REQUIRE(lapack_potrf(n, L.data(), lda) == 0);
        const auto [err, scale] = lower_deviation(n, F.data() + i * strideA, L.data(), lda);
        CHECK(err <= tol * scale);
        if (nrhs > 0) {
            std::vector<T> ref(B.begin() + i * strideB, B.begin() + (i + 1) * strideB);
            REQUIRE(lapack_potrs(n, static_cast<int>(nrhs), L.data(), lda, ref.data(), ldb) == 0);
            double xe = 0, xs = 0;
            for (int64_t k = 0; k < strideB; ++k) {
                xe = std::max(xe, std::abs(static_cast<double>(X[i * strideB + k]) - ref[k]));
                xs = std::max(xs, std::abs(static_cast<double>(ref[k])));
            }
            CHECK(xe <= tol * xs);
        }
    }
    CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("batched potrf/posv on CPU workers match LAPACKE, info per member", "[batched][cpu]", float,
                   double) {
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        for (int n : {1, 2, 7, 33, 128}) {
            check_batched<TestType>(n, -1, 40, 7, m);  // potrf
            check_batched<TestType>(n, 1, 40, 0, m);   // posv, automatic chunks
            check_batched<TestType>(n, 3, 11, 1, m);   // one member per task
        }
    }
    check_batched<TestType>(16, 0, 9, 4, Mapping::CpuOnly);  // posv without right-hand sides
    check_batched<TestType>(5, 2, 1000, 0, Mapping::CpuOnly);
}

TEMPLATE_TEST_CASE("batched potrf/posv: argument checks name the argument", "[batched][cpu]", float, double) {
    using T = TestType;
    std::vector<T> A(64 * 64 * 3, T(1)), B(64 * 3, T(1));
    std::vector<int> info(3);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    Runtime& rt = runtime();
    CHECK(arg([&] { batched::potrf<T>(rt, 129, A.data(), 129, 129 * 129, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::potrf<T>(rt, -2, A.data(), 1, 0, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 7, 64, info.data(), 1); }) == "lda");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, 10, info.data(), 2); }) == "strideA");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, 64, info.data(), -1); }) == "batch");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, nullptr, 8, 64, info.data(), 1); }) == "A");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, 64, nullptr, 1); }) == "info");
    batched::Options bad;
    bad.chunk = -1;
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, 64, info.data(), 1, bad); }) == "opts.chunk");
    batched::Options gpu;
    gpu.mapping = Mapping::GpuOnly;
    if (rt.cuda_workers() == 0)
        CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, 64, info.data(), 1, gpu); }) == "mapping");
    CHECK(arg([&] { batched::posv<T>(rt, 8, -1, A.data(), 8, 64, B.data(), 8, 8, info.data(), 1); }) == "nrhs");
    CHECK(arg([&] { batched::posv<T>(rt, 8, 1, A.data(), 8, 64, B.data(), 7, 8, info.data(), 1); }) == "ldb");
    CHECK(arg([&] { batched::posv<T>(rt, 8, 2, A.data(), 8, 64, B.data(), 8, 15, info.data(), 2); }) == "strideB");
    CHECK(arg([&] { batched::posv<T>(rt, 8, 1, A.data(), 8, 64, nullptr, 8, 8, info.data(), 1); }) == "B");
    // Sizes whose products overflow 64 bits: ldb * nrhs, and a batch spanning more than 2^63 bytes.
    const int64_t huge = int64_t(1) << 62;
    CHECK(arg([&] { batched::posv<T>(rt, 8, 4, A.data(), 8, 64, B.data(), huge, 64, info.data(), 1); }) ==
          "ldb");
    CHECK(arg([&] { batched::potrf<T>(rt, 8, A.data(), 8, huge, info.data(), 3); }) == "strideA");
    CHECK(arg([&] { batched::posv<T>(rt, 8, 1, A.data(), 8, 64, B.data(), 8, huge, info.data(), 3); }) == "strideB");
    // empty problems: nothing to do, n = 0 reports info = 0 for every member
    std::fill(info.begin(), info.end(), 5);
    CHECK(batched::potrf<T>(rt, 0, A.data(), 1, 0, info.data(), 3) == 0);
    CHECK(std::all_of(info.begin(), info.end(), [](int v) { return v == 0; }));
    CHECK(batched::posv<T>(rt, 8, 1, A.data(), 8, 64, B.data(), 8, 8, nullptr, 0) == 0);
}
