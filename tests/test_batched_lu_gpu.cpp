// GPU tests [gpu] of the batched LU kernels (starfact::batched): getrf against LAPACKE ?getrf
// (identical pivots, ties included, factors equal to rounding) on random, ill-conditioned,
// exactly singular and exact-arithmetic tie inputs, both layouts; getrs, getri and the fused
// inverse by residuals; the StarPU chunk path; bad arguments. Small cases tagged [sanitize] run
// under compute-sanitizer. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "starfact/batched_lu.hpp"
#include "tests/batched_lu_checks.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::DeviceBuffer;
using starfact::test::batched::thrown_argument;
using namespace starfact::test::batched_lu_checks;

TEMPLATE_TEST_CASE("batched getrf equals LAPACK getrf (pivots, info, factors), n = 1..32", "[gpu][getrf]", float,
                   double) {
    for (int n = 1; n <= 32; ++n) {
        check_getrf<TestType>(Kind::Random, n, n, 301, false);
        check_getrf<TestType>(Kind::IllConditioned, n, n, 101, n % 2 == 1);
        check_getrf<TestType>(Kind::Singular, n, n + 3, 97, n % 2 == 0);
        check_getrf<TestType>(Kind::TiesIdentity, n, n, 67, n % 3 == 0);
        check_getrf<TestType>(Kind::PermutedUnique, n, n, 67, n % 3 == 1);
    }
}

TEMPLATE_TEST_CASE("batched getrf breaks exact ties like LAPACK (first maximum in LAPACK's row order)",
                   "[gpu][getrf][ties]", float, double) {
    for (int n = 2; n <= 6; ++n) {
        check_getrf<TestType>(Kind::DyadicTies, n, n, 200, false);
        check_getrf<TestType>(Kind::DyadicTies, n, n + 1, 50, true);
    }
    // The family must exercise ties whose LAPACK order differs from the original row order.
    int ooo = 0;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    for (int n = 3; n <= 6; ++n) make_batch<TestType>(Kind::DyadicTies, n, n, 200, seed + n, &ooo);
    CHECK(ooo > 0);
}

TEMPLATE_TEST_CASE("batched getrf, large batch (many blocks, partial last block)", "[gpu][getrf]", float, double) {
    for (int n : {2, 7, 16, 24, 32}) check_getrf<TestType>(Kind::Random, n, n, 20011, false);
}

TEMPLATE_TEST_CASE("fused batched inverse: residual, pivots, info, singular members untouched", "[gpu][inverse]", float,
                   double) {
    for (int n = 1; n <= 32; ++n) {
        check_inverse<TestType>(Kind::Random, n, 203, false, false);
        check_inverse<TestType>(Kind::Singular, n, 99, n % 2 == 0, n % 3 == 0);
        check_inverse<TestType>(Kind::PermutedUnique, n, 41, n % 2 == 1, false);
        check_inverse<TestType>(Kind::IllConditioned, n, 31, false, true);
    }
}

TEMPLATE_TEST_CASE("batched getrs (any nrhs) and getri from factors", "[gpu][getrs]", float, double) {
    for (int n : {1, 2, 3, 5, 8, 13, 16, 17, 31, 32})
        for (int nrhs : {0, 1, 3, 40}) check_solve<TestType>(n, nrhs, 37, (n + nrhs) % 2 == 0);
}

TEMPLATE_TEST_CASE("batched kernels, small cases for the sanitizers", "[gpu][sanitize]", float, double) {
    for (int n : {1, 3, 8, 13, 17, 32}) {
        check_getrf<TestType>(Kind::Singular, n, n + 1, 35, false);
        check_getrf<TestType>(Kind::Random, n, n, 33, true);
        check_inverse<TestType>(Kind::Singular, n, 35, false, false);
        check_inverse<TestType>(Kind::Random, n, 33, true, true);
        check_solve<TestType>(n, 5, 9, n % 2 == 0);
    }
}

TEMPLATE_TEST_CASE("StarPU batched getrf / inverse on host arrays (gpu-only and hybrid)", "[gpu][starpu]", float,
                   double) {
    const uint64_t seed = fresh_seed();
    for (Mapping m : {Mapping::GpuOnly, Mapping::Hybrid}) {
        for (int n : {5, 16, 32}) {
            const int batch = 5003;
            INFO("mapping=" << to_string(m) << " n=" << n << " seed=" << seed);
            const std::vector<TestType> A0 = make_batch<TestType>(Kind::Singular, n, n, batch, seed + n);
            std::vector<TestType> A = A0, X = A0;
            std::vector<int> piv(size_t(n) * batch), info(batch), xinfo(batch);
            batched::Options o;
            o.mapping = m;
            o.chunk = 611;
            batched::getrf<TestType>(runtime(), n, A.data(), n, int64_t(n) * n, piv.data(), n, info.data(), batch, o);
            batched::inverse<TestType>(runtime(), n, X.data(), n, int64_t(n) * n, xinfo.data(), batch, o);
            Compare<TestType> c;
            double worst = 0;
            int bad_info = 0;
            for (int b = 0; b < batch; ++b) {
                c.matrix(n, n, A0.data() + size_t(b) * n * n, A.data() + size_t(b) * n * n, piv.data() + size_t(b) * n,
                         info[b], false);
                if (xinfo[b] != info[b]) ++bad_info;
                if (xinfo[b] == 0)
                    worst = std::max(worst, inverse_ratio<TestType>(n, A0.data() + size_t(b) * n * n, n,
                                                                    X.data() + size_t(b) * n * n, n));
            }
            CHECK(c.mismatched_pivots == 0);
            CHECK(c.info_mismatch == 0);
            CHECK(c.factor_errors == 0);
            CHECK(bad_info == 0);
            CHECK(worst < 100);
        }
    }
}

TEST_CASE("batched kernels reject bad arguments, naming them", "[gpu][errors]") {
    DeviceBuffer<double> dA(64 * 64);
    DeviceBuffer<int> dpiv(64), dinfo(2);
    auto arg = [](auto f) { return thrown_argument(f); };
    CHECK(arg([&] { batched::device::getrf<double>(33, dA.get(), 33, 33 * 33, dpiv.get(), 33, dinfo.get(), 1); }) ==
          "n");
    CHECK(arg([&] { batched::device::getrf<double>(8, dA.get(), 7, 64, dpiv.get(), 8, dinfo.get(), 1); }) == "lda");
    CHECK(arg([&] { batched::device::getrf<double>(8, dA.get(), 8, 63, dpiv.get(), 8, dinfo.get(), 1); }) == "strideA");
    CHECK(arg([&] { batched::device::getrf<double>(8, dA.get(), 8, 64, dpiv.get(), 7, dinfo.get(), 1); }) ==
          "stride_piv");
    CHECK(arg([&] { batched::device::getrf<double>(8, dA.get(), 8, 64, dpiv.get(), 8, dinfo.get(), -1); }) == "batch");
    CHECK(arg([&] { batched::device::getrf<double>(8, dA.get(), 8, 64, nullptr, 8, dinfo.get(), 1); }) == "ipiv");
    CHECK(arg([&] { batched::device::getrs<double>(8, -1, dA.get(), 8, 64, dpiv.get(), 8, dA.get(), 8, 64, 1); }) ==
          "nrhs");
    CHECK(arg([&] { batched::device::getri<double>(8, dA.get(), 8, 64, dpiv.get(), 8, dA.get(), 8, 64, 1); }) == "C");
    CHECK(arg([&] {
              batched::device::inverse<double>(8, dA.get(), 8, 64, dA.get(), 9, 72, nullptr, 8, dinfo.get(), 1);
          }) == "C");
    CHECK(arg([&] { batched::device::inverse<double>(8, dA.get(), 8, 64, dA.get(), 8, 64, nullptr, 8, nullptr, 1); }) ==
          "info");
    // n == 0 and batch == 0 are quick returns.
    CHECK(arg([&] { batched::device::getrf<double>(0, nullptr, 1, 0, nullptr, 0, nullptr, 5); }) == "(nothing thrown)");
}
