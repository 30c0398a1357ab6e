// CPU tests [batched][complex] of the batched LU on std::complex<float> and std::complex<double>:
// starfact::batched::getrf/inverse through StarPU chunk tasks on CPU workers (the scalar layer's c and z LAPACKE
// calls) on fresh general members: ||P A - L U|| and LAPACK's own pivots, ||A A^-1 - I||, per-member info for an
// exactly singular member with the others correct, several batch sizes (more members than one default chunk
// included) and chunkings, and the argument checks.
#include <catch2/catch.hpp>

#include <complex>
#include <vector>

#include "starfact/batched_lu.hpp"
#include "tests/batched_complex_checks.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::thrown_argument;
using namespace starfact::test::batched_complex;

namespace {

batched::Options options(Mapping mapping, int64_t chunk) {
    batched::Options o;
    o.mapping = mapping;
    o.chunk = chunk;
    return o;
}

}  // namespace

TEMPLATE_TEST_CASE("batched complex getrf on CPU workers: residuals, LAPACK's pivots, info per member",
                   "[batched][complex][cpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(m));
        for (int n : {1, 2, 5, 13, 31, 32}) {
            for (int64_t batch : {int64_t(1), int64_t(9), int64_t(300)}) {
                for (int64_t chunk : {int64_t(0), int64_t(4)}) {
                    const batched::Options o = options(m, chunk);
                    check_getrf<C>(n, batch, fresh_seed(), true,
                                   [&](C* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info,
                                       int64_t count) {
                                       return batched::getrf<C>(runtime(), n, A, lda, strideA, ipiv, stride_piv, info,
                                                                count, o);
                                   });
                }
            }
        }
    }
    CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
}

TEMPLATE_TEST_CASE("batched complex inverse on CPU workers: residuals, info per member", "[batched][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(m));
        for (int n : {1, 3, 7, 19, 32}) {
            for (int64_t batch : {int64_t(1), int64_t(10), int64_t(600)}) {
                const batched::Options o = options(m, batch > 100 ? 0 : 3);
                check_inverse<C>(n, batch, fresh_seed(),
                                 [&](C* A, int64_t lda, int64_t strideA, int* info, int64_t count) {
                                     return batched::inverse<C>(runtime(), n, A, lda, strideA, info, count, o);
                                 });
            }
        }
    }
    CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
}

TEMPLATE_TEST_CASE("batched complex getrf/inverse: argument checks name the argument", "[batched][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    std::vector<C> A(40 * 40 * 3, C(1));
    std::vector<int> ipiv(40 * 3), info(3);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    Runtime& rt = runtime();
    CHECK(arg([&] { batched::getrf<C>(rt, 33, A.data(), 33, 33 * 33, ipiv.data(), 33, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::getrf<C>(rt, -1, A.data(), 1, 1, ipiv.data(), 1, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 7, 64, ipiv.data(), 8, info.data(), 1); }) == "lda");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 63, ipiv.data(), 8, info.data(), 2); }) == "strideA");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 64, ipiv.data(), 7, info.data(), 2); }) == "stride_piv");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 64, ipiv.data(), 8, info.data(), -1); }) == "batch");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, nullptr, 8, 64, ipiv.data(), 8, info.data(), 1); }) == "A");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 64, nullptr, 8, info.data(), 1); }) == "ipiv");
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 64, ipiv.data(), 8, nullptr, 1); }) == "info");
    batched::Options bad;
    bad.chunk = -1;
    CHECK(arg([&] { batched::getrf<C>(rt, 8, A.data(), 8, 64, ipiv.data(), 8, info.data(), 1, bad); }) ==
          "opts.chunk");
    CHECK(arg([&] { batched::inverse<C>(rt, 40, A.data(), 40, 1600, info.data(), 1); }) == "n");
    CHECK(arg([&] { batched::inverse<C>(rt, 8, A.data(), 4, 64, info.data(), 1); }) == "lda");
    CHECK(arg([&] { batched::inverse<C>(rt, 8, A.data(), 8, 8, info.data(), 2); }) == "strideA");
    CHECK(arg([&] { batched::inverse<C>(rt, 8, nullptr, 8, 64, info.data(), 1); }) == "A");
    CHECK(arg([&] { batched::inverse<C>(rt, 8, A.data(), 8, 64, nullptr, 1); }) == "info");
    // empty problems
    CHECK(batched::getrf<C>(rt, 0, A.data(), 1, 0, ipiv.data(), 0, info.data(), 3) == 0);
    CHECK(batched::inverse<C>(rt, 8, A.data(), 8, 64, info.data(), 0) == 0);
}
