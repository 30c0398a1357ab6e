// CPU tests [batched][complex] of the batched Cholesky on std::complex<float> and std::complex<double>:
// starfact::batched::potrf/posv through StarPU chunk tasks on CPU workers (the scalar layer's c and z LAPACKE calls)
// on fresh Hermitian positive definite members (complex entries below the diagonal, a real diagonal): scaled
// residuals of the factors and the solves, per-member info for a non-definite and a NaN member with the others
// correct and the failed members' right-hand sides kept, several batch sizes and chunkings, and the argument checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>
#include <vector>

#include "starfact/batched_cholesky.hpp"
#include "tests/batched_complex_checks.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::thrown_argument;
using namespace starfact::test::batched_complex;

namespace {

/// The StarPU entry points as check_cholesky runs them.
template <typename C>
auto host_cholesky(Mapping mapping, int64_t chunk) {
    return [=](int64_t n, C* A, int64_t lda, int64_t strideA, C* B, int64_t ldb, int64_t strideB, int64_t nrhs,
               int* info, int64_t batch) {
        batched::Options o;
        o.mapping = mapping;
        o.chunk = chunk;
        const int64_t failed = nrhs >= 0 ? batched::posv<C>(runtime(), n, nrhs, A, lda, strideA, B, ldb, strideB,
                                                            info, batch, o)
                                         : batched::potrf<C>(runtime(), n, A, lda, strideA, info, batch, o);
        CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
        return failed;
    };
}

}  // namespace

TEMPLATE_TEST_CASE("batched complex potrf/posv on CPU workers: residuals, info per member", "[batched][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(m));
        for (int n : {1, 2, 13, 37, 101, 128}) {
            check_cholesky<C>(n, -1, 40, fresh_seed(), host_cholesky<C>(m, 7));  // potrf
            check_cholesky<C>(n, 1, 9, fresh_seed(), host_cholesky<C>(m, 0));    // posv, automatic chunks
            check_cholesky<C>(n, 3, 11, fresh_seed(), host_cholesky<C>(m, 1));   // one member per task
        }
    }
    check_cholesky<C>(1, 1, 1, fresh_seed(), host_cholesky<C>(Mapping::CpuOnly, 0));  // one member of order 1
    check_cholesky<C>(17, 0, 9, fresh_seed(), host_cholesky<C>(Mapping::CpuOnly, 4));  // posv without right-hand sides
    check_cholesky<C>(5, 2, 1000, fresh_seed(), host_cholesky<C>(Mapping::CpuOnly, 0));
}

TEMPLATE_TEST_CASE("batched complex potrf/posv: argument checks name the argument", "[batched][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    std::vector<C> A(64 * 64 * 3, C(1)), B(64 * 3, C(1));
    std::vector<int> info(3);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    Runtime& rt = runtime();
    CHECK(arg([&] { batched::potrf<C>(rt, 129, A.data(), 129, 129 * 129, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::potrf<C>(rt, -2, A.data(), 1, 0, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 7, 64, info.data(), 1); }) == "lda");
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, 10, info.data(), 2); }) == "strideA");
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, 64, info.data(), -1); }) == "batch");
    CHECK(arg([&] { batched::potrf<C>(rt, 8, nullptr, 8, 64, info.data(), 1); }) == "A");
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, 64, nullptr, 1); }) == "info");
    batched::Options bad;
    bad.chunk = -1;
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, 64, info.data(), 1, bad); }) == "opts.chunk");
    batched::Options gpu;
    gpu.mapping = Mapping::GpuOnly;
    if (rt.cuda_workers() == 0)
        CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, 64, info.data(), 1, gpu); }) == "mapping");
    CHECK(arg([&] { batched::posv<C>(rt, 8, -1, A.data(), 8, 64, B.data(), 8, 8, info.data(), 1); }) == "nrhs");
    CHECK(arg([&] { batched::posv<C>(rt, 8, 1, A.data(), 8, 64, B.data(), 7, 8, info.data(), 1); }) == "ldb");
    CHECK(arg([&] { batched::posv<C>(rt, 8, 2, A.data(), 8, 64, B.data(), 8, 15, info.data(), 2); }) == "strideB");
    CHECK(arg([&] { batched::posv<C>(rt, 8, 1, A.data(), 8, 64, nullptr, 8, 8, info.data(), 1); }) == "B");
    // a batch spanning more than 2^63 bytes (a complex entry has two reals: the bound is reached at half the stride)
    const int64_t big = int64_t(1) << 61;
    CHECK(arg([&] { batched::potrf<C>(rt, 8, A.data(), 8, big, info.data(), 3); }) == "strideA");
    // empty problems: nothing to do, n = 0 reports info = 0 for every member
    std::fill(info.begin(), info.end(), 5);
    CHECK(batched::potrf<C>(rt, 0, A.data(), 1, 0, info.data(), 3) == 0);
    CHECK(std::all_of(info.begin(), info.end(), [](int v) { return v == 0; }));
    CHECK(batched::posv<C>(rt, 8, 1, A.data(), 8, 64, B.data(), 8, 8, nullptr, 0) == 0);
}
