// CPU tests [cpu] of the StarPU batched LU entry points (starfact::batched::getrf / inverse on
// host arrays) with CPU workers only: results equal a direct LAPACKE loop, singular members get
// their info while the others stay correct, any chunking works, bad arguments are named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/batched_lu.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::thrown_argument;

namespace {

template <typename T>
int ref_getrf(int n, T* A, int* ipiv) {
    return starfact::detail::cpu::getrf<T>(n, n, A, n, ipiv);
}

/// Random batch; every third matrix gets a zero column (exactly singular: info = column + 1).
template <typename T>
std::vector<T> make_batch(int n, int batch, uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> A(size_t(n) * n * batch);
    for (auto& x : A) x = T(u(g));
    for (int b = 1; b < batch; b += 3) {
        const int j = std::uniform_int_distribution<int>(0, n - 1)(g);
        for (int i = 0; i < n; ++i) A[size_t(b) * n * n + i + size_t(j) * n] = T(0);
    }
    return A;
}

template <typename T>
void check(int n, int batch, int64_t chunk) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " batch=" << batch << " chunk=" << chunk << " prec=" << (sizeof(T) == 4 ? "s" : "d")
              << " seed=" << seed);
    const std::vector<T> A0 = make_batch<T>(n, batch, seed);
    std::vector<T> A = A0, X = A0, R = A0;
    std::vector<int> piv(size_t(n) * batch), info(batch, -1), xinfo(batch, -1), rpiv(size_t(n) * batch), rinfo(batch);
    batched::Options o;
    o.mapping = Mapping::CpuOnly;
    o.chunk = chunk;
    const int64_t nn = int64_t(n) * n;
    batched::getrf<T>(runtime(), n, A.data(), n, nn, piv.data(), n, info.data(), batch, o);
    batched::inverse<T>(runtime(), n, X.data(), n, nn, xinfo.data(), batch, o);
    int singular = 0;
    for (int b = 0; b < batch; ++b) {
        rinfo[b] = ref_getrf(n, R.data() + size_t(b) * n * n, rpiv.data() + size_t(b) * n);
        singular += rinfo[b] > 0;
    }
    CHECK(singular > 0);
    CHECK(info == rinfo);
    CHECK(xinfo == rinfo);
    CHECK(piv == rpiv);
    CHECK(A == R);
    // Non-singular members: ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) small.
    double worst = 0;
    for (int b = 0; b < batch; ++b) {
        if (rinfo[b] != 0) continue;
        const T* M = A0.data() + size_t(b) * n * n;
        const T* Y = X.data() + size_t(b) * n * n;
        double rn = 0, an = 0, yn = 0;
        for (int j = 0; j < n; ++j) {
            double rc = 0, ac = 0, yc = 0;
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int k = 0; k < n; ++k) s += double(M[i + k * n]) * double(Y[k + j * n]);
                rc += std::fabs((i == j) - s);
                ac += std::fabs(double(M[i + j * n]));
                yc += std::fabs(double(Y[i + j * n]));
            }
            rn = std::max(rn, rc);
            an = std::max(an, ac);
            yn = std::max(yn, yc);
        }
        worst = std::max(worst, rn / (n * an * yn * std::numeric_limits<T>::epsilon()));
    }
    INFO("worst inverse ratio=" << worst);
    CHECK(worst < 100);
}

}  // namespace

TEMPLATE_TEST_CASE("StarPU batched getrf / inverse on CPU workers equal a LAPACKE loop", "[cpu][batched_lu]", float,
                   double) {
    for (int n : {1, 2, 5, 8, 16, 17, 32}) {
        check<TestType>(n, 1000, 0);
        check<TestType>(n, 301, 7);
    }
}

TEST_CASE("StarPU batched entry points reject bad arguments, naming them", "[cpu][batched_lu][errors]") {
    std::vector<double> A(64);
    std::vector<int> piv(8), info(1);
    auto arg = [](auto f) { return thrown_argument(f); };
    Runtime& rt = runtime();
    batched::Options cpu;
    cpu.mapping = Mapping::CpuOnly;
    CHECK(arg([&] { batched::getrf<double>(rt, 33, A.data(), 33, 33 * 33, piv.data(), 33, info.data(), 1, cpu); }) == "n");
    CHECK(arg([&] { batched::getrf<double>(rt, 8, A.data(), 8, 64, piv.data(), 8, info.data(), -1, cpu); }) == "batch");
    CHECK(arg([&] { batched::getrf<double>(rt, 8, A.data(), 8, 64, nullptr, 8, info.data(), 1, cpu); }) == "ipiv");
    // Batches spanning more than 2^63 bytes: refused before any member is touched.
    const int64_t huge = int64_t(1) << 62;
    CHECK(arg([&] { batched::getrf<double>(rt, 8, A.data(), 8, huge, piv.data(), 8, info.data(), 3, cpu); }) ==
          "strideA");
    CHECK(arg([&] { batched::getrf<double>(rt, 8, A.data(), 8, 64, piv.data(), huge, info.data(), 3, cpu); }) ==
          "stride_piv");
    CHECK(arg([&] { batched::inverse<double>(rt, 8, A.data(), 8, 64, nullptr, 1, cpu); }) == "info");
    batched::Options bad = cpu;
    bad.chunk = -2;
    CHECK(arg([&] { batched::inverse<double>(rt, 8, A.data(), 8, 64, info.data(), 1, bad); }) == "opts.chunk");
    batched::Options gpu;
    gpu.mapping = Mapping::GpuOnly;  // this runtime has no CUDA worker
    CHECK(arg([&] { batched::getrf<double>(rt, 8, A.data(), 8, 64, piv.data(), 8, info.data(), 1, gpu); }) == "mapping");
}
