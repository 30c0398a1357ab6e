// GPU tests [batched]: the batched Cholesky kernels (starfact::batched::device) against LAPACKE on
// the host, every order 1..128, float and double, strided and pointer-array layouts, per-member info
// for non-SPD / NaN members while the others stay correct, untouched upper triangles and padding,
// batches beyond 65,535, and the StarPU chunk path on the GPU. [sanitize] cases are small.
// Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/batched_chol/launch.hpp"
#include "kernels/cpu_lapack.hpp"
#include "starfact/batched_cholesky.hpp"
#include "tests/batched_support.hpp"
#include "tests/batched_chol_checks.hpp"
#include "kernels/batched_chol/tuning.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using namespace starfact::test::batched;
using namespace starfact::test::batched_chol_checks;

TEMPLATE_TEST_CASE("batched potrf: every order 1..128, both layouts, bad members get info", "[batched]", float,
                   double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n = 1; n <= 128; ++n)
        for (Layout l : {Layout::Strided, Layout::Array}) check_potrf<TestType>(n, n + (n % 3), 9, l);
}

TEMPLATE_TEST_CASE("batched potrf, each kernel forced: left-looking and every resident variant of the library, orders 1..128",
                   "[batched]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n = 1; n <= 128; ++n) {
        check_potrf<TestType>(n, n + (n % 3), 9, n % 2 ? Layout::Strided : Layout::Array, kLeft);
        for (Kernel k : kResident) check_potrf<TestType>(n, n + (n % 3), 9, n % 2 ? Layout::Array : Layout::Strided, k);
    }
}

TEMPLATE_TEST_CASE("batched potrf, the library's resident variants (pipelined fragment layout, vector-row) forced: "
                   "orders 1..128, both layouts, bad members",
                   "[batched]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n = 1; n <= 128; ++n)
        for (Kernel k : kResident)
            for (Layout l : {Layout::Strided, Layout::Array}) check_potrf<TestType>(n, n + (n % 3), 7, l, k);
}

/// Q diag(d) Q^T with Q orthogonal (QR of a random matrix, in double) and d log-spaced from 1 down to
/// 1 / cond, rounded to T: an SPD matrix of condition number ~cond whose small eigenvalues are spread
/// over every direction (the hard case for triangular solves through inverted diagonal blocks).
template <typename T>
void ill_conditioned_spd(int n, T* A, int lda, double cond, uint64_t seed) {
    std::vector<double> Q(static_cast<size_t>(n) * n), tau(static_cast<size_t>(n));
    random_matrix<double>(n, n, Q.data(), n, seed);
    REQUIRE(starfact::detail::cpu::geqrf<double>(n, n, Q.data(), n, tau.data()) == 0);
    REQUIRE(starfact::detail::cpu::orgqr<double>(n, n, n, Q.data(), n, tau.data()) == 0);
    std::vector<double> d(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) d[k] = n > 1 ? std::pow(cond, -static_cast<double>(k) / (n - 1)) : 1.0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double a = 0;
            for (int k = 0; k < n; ++k) a += Q[i + static_cast<size_t>(k) * n] * d[k] * Q[j + static_cast<size_t>(k) * n];
            A[i + static_cast<int64_t>(j) * lda] = static_cast<T>(a);
            if (i != j) A[j + static_cast<int64_t>(i) * lda] = static_cast<T>(a);
        }
}

TEMPLATE_TEST_CASE("batched potrf: ill-conditioned SPD members (Q D Q^T of cond 1e4 float / 1e12 double, and "
                   "Gaussian-kernel matrices with small nuggets), every kernel: scaled residual < 60",
                   "[batched]", float, double) {
    using T = TestType;
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    const double cond = sizeof(T) == 4 ? 1e4 : 1e12;
    // Gaussian kernels: length scale 0.1, nugget 1e-12 (double) / 1e-5 (float); members 24.. of the batch.
    const double ell = 0.1, nugget = sizeof(T) == 4 ? 1e-5 : 1e-12;
    constexpr int64_t batch = 24 + 72;
    std::vector<Kernel> kernels = {kLibrary, kLeft};
    for (const Kernel& k : kResident) kernels.push_back(k);
    for (const int n : {8, 17, 33, 64, 72, 96, 100, 128}) {
        const uint64_t seed = fresh_seed();
        const int lda = n;
        const int64_t stride = static_cast<int64_t>(lda) * n;
        std::vector<T> A(static_cast<size_t>(batch * stride));
        uint64_t gseed = seed + 1000;
        for (int64_t i = 0; i < batch; ++i) {
            if (i < 24) ill_conditioned_spd<T>(n, A.data() + i * stride, lda, cond, seed + i);
            else gseed = starfact::test::gaussian_kernel_spd<T>(n, A.data() + i * stride, lda, ell, nugget, gseed) + 1;
        }
        DeviceBuffer<T> dA(A.size());
        DeviceBuffer<int> dinfo(static_cast<size_t>(batch));
        double by_family[5] = {0, 0, 0, 0, 0};  // library, left-looking, potrf_resident.cuh, fragment layout, vector-row
        for (const Kernel& k : kernels) {
            INFO("n=" << n << " cond=" << cond << " ell=" << ell << " nugget=" << nugget << " kernel=" << k
                      << " seed=" << seed);
            dA.upload(A);
            REQUIRE(cudaMemset(dinfo.get(), 0x7f, batch * sizeof(int)) == cudaSuccess);
            if (k.library) batched::device::potrf<T>(n, dA.get(), lda, stride, dinfo.get(), batch);
            else forced_potrf<T>(k, n, dA.get(), stride, nullptr, lda, batch, dinfo.get());
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            const std::vector<T> L = dA.download();
            const std::vector<int> info = dinfo.download();
            double worst = 0;
            int64_t worst_member = -1;
            for (int64_t i = 0; i < batch; ++i) {
                CHECK(info[i] == 0);
                const double r = potrf_residual<T>(n, A.data() + i * stride, lda, L.data() + i * stride, lda);
                if (r >= worst) worst = r, worst_member = i;
            }
            INFO("worst scaled residual " << worst << " (member " << worst_member << (worst_member < 24 ? ", Q D Q^T)" : ", Gaussian kernel)"));
            CHECK(worst < 60.0);
            const Family fam = k.v.family;
            const bool resident = fam == Family::Resident || fam == Family::ResidentTwoPanels ||
                                  fam == Family::ResidentWarpA;
            double& f = by_family[k.library ? 0
                                  : fam == Family::LeftLooking ? 1
                                  : resident                   ? 2
                                  : fam == Family::VectorRow   ? 4
                                                               : 3];
            f = std::max(f, worst);
        }
        std::printf("ill-conditioned %s n=%3d: worst scaled residual: library %.3g, left-looking %.3g, "
                    "resident %.3g, fragment layout %.3g, vector-row %.3g\n",
                    sizeof(T) == 4 ? "float" : "double", n, by_family[0], by_family[1], by_family[2], by_family[3],
                    by_family[4]);
    }
}

TEMPLATE_TEST_CASE("batched potrf, resident kernel: small cases for the sanitizers", "[batched][sanitize]", float,
                   double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n : {1, 7, 16, 65, 100, 128})
        for (Kernel k : kResident)
            for (Layout l : {Layout::Strided, Layout::Array}) {
                check_potrf<TestType>(n, n + 1, 6, l, k);
                // The vector-row kernel's bulk copies need no shift when every column starts on 16 bytes
                // (lda = n here for n = 16, 100, 128, float and double); the other cases shift columns.
                if (k.v.family == Family::VectorRow) check_potrf<TestType>(n, n, 6, l, k);
            }
}

TEMPLATE_TEST_CASE("batched posv (library choice, fused and two-pass forced) and potrf+potrs: every order 1..128",
                   "[batched]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n = 1; n <= 128; ++n) {
        check_solve<TestType>(n, 1, 7, n % 2 ? Layout::Strided : Layout::Array, Solve::Posv);
        check_solve<TestType>(n, n % 3 == 0 ? 2 : 1, 7, n % 2 ? Layout::Array : Layout::Strided, Solve::PosvFused);
        check_solve<TestType>(n, n % 3 == 1 ? 2 : 1, 7, n % 2 ? Layout::Strided : Layout::Array, Solve::PosvTwoPass);
        check_solve<TestType>(n, n % 4 == 0 ? 3 : 1, 6, n % 2 ? Layout::Array : Layout::Strided, Solve::PotrfPotrs);
    }
}

TEMPLATE_TEST_CASE("batched potrs (column blocks staged lazily): every order 1..128, both layouts, "
                   "nrhs 1 and 2",
                   "[batched]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n = 1; n <= 128; ++n)
        for (Layout l : {Layout::Strided, Layout::Array}) {
            check_solve<TestType>(n, 1, 9, l, Solve::PotrfPotrs);
            check_solve<TestType>(n, 2, 5, l, Solve::PotrfPotrs);
        }
}

TEMPLATE_TEST_CASE("batched potrs: small cases for the sanitizers (every group width, short last blocks, "
                   "16-byte and one-element staging copies)",
                   "[batched][sanitize]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    // lda = n + 2: members 0, 4, ... of n = 6, 18, 126 (float) and of every even n (double) take the
    // 16-byte copies, the others the one-element copies
    for (int n : {3, 6, 8, 12, 17, 18, 40, 100, 126, 128})
        for (Layout l : {Layout::Strided, Layout::Array}) {
            check_solve<TestType>(n, 2, 5, l, Solve::PotrfPotrs);
            check_solve<TestType>(n, 1, 3, l, Solve::PotrfPotrs);
        }
}

TEMPLATE_TEST_CASE("batched kernels: small cases for the sanitizers", "[batched][sanitize]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    for (int n : {1, 5, 32, 33, 64, 100, 128}) {
        for (Layout l : {Layout::Strided, Layout::Array}) {
            check_potrf<TestType>(n, n + 1, 7, l);
            check_solve<TestType>(n, 2, 7, l, Solve::PosvFused);
            check_solve<TestType>(n, 1, 5, l, Solve::PosvTwoPass);
            check_solve<TestType>(n, 1, 3, l, Solve::PotrfPotrs);
        }
    }
}

TEMPLATE_TEST_CASE("batched potrf/posv: batches beyond 65,535 members", "[batched]", float, double) {
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    check_potrf<TestType>(3, 3, 70001, Layout::Strided);
    check_potrf<TestType>(24, 24, 66000, Layout::Array);
    check_solve<TestType>(8, 1, 70003, Layout::Strided, Solve::Posv);
    check_solve<TestType>(8, 1, 70003, Layout::Array, Solve::PosvTwoPass);
    check_solve<TestType>(16, 1, 66001, Layout::Strided, Solve::PotrfPotrs);
    check_potrf<TestType>(9, 9, 65601, Layout::Strided, kResident.front());  // resident kernel: one block per member
}

TEMPLATE_TEST_CASE("batched device API: argument checks", "[batched][sanitize]", float, double) {
    using T = TestType;
    DeviceBuffer<T> dA(64 * 64 * 2);
    DeviceBuffer<int> dinfo(2);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    CHECK(arg([&] { batched::device::potrf<T>(129, dA.get(), 129, 129 * 129, dinfo.get(), 1); }) == "n");
    CHECK(arg([&] { batched::device::potrf<T>(-1, dA.get(), 1, 1, dinfo.get(), 1); }) == "n");
    CHECK(arg([&] { batched::device::potrf<T>(8, dA.get(), 7, 64, dinfo.get(), 1); }) == "lda");
    CHECK(arg([&] { batched::device::potrf<T>(8, dA.get(), 8, 63, dinfo.get(), 2); }) == "strideA");
    CHECK(arg([&] { batched::device::potrf<T>(8, dA.get(), 8, 64, dinfo.get(), -1); }) == "batch");
    CHECK(arg([&] { batched::device::potrf<T>(8, static_cast<T*>(nullptr), 8, 64, dinfo.get(), 1); }) == "A");
    CHECK(arg([&] { batched::device::potrf<T>(8, dA.get(), 8, 64, nullptr, 1); }) == "info");
    CHECK(arg([&] { batched::device::potrs<T>(8, -1, dA.get(), 8, 64, dA.get(), 8, 8, 1); }) == "nrhs");
    CHECK(arg([&] { batched::device::potrs<T>(8, 2, dA.get(), 8, 64, dA.get(), 8, 15, 2); }) == "strideB");
    CHECK(arg([&] { batched::device::posv<T>(8, 1, dA.get(), 8, 64, dA.get(), 4, 64, dinfo.get(), 1); }) == "ldb");
    // empty problems are no-ops (n = 0 reports info = 0)
    REQUIRE(cudaMemset(dinfo.get(), 0x7f, 2 * sizeof(int)) == cudaSuccess);
    batched::device::potrf<T>(0, dA.get(), 1, 0, dinfo.get(), 2);
    batched::device::potrf<T>(8, dA.get(), 8, 64, dinfo.get(), 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> info = dinfo.download();
    CHECK(info[0] == 0);
    CHECK(info[1] == 0);
}

TEMPLATE_TEST_CASE("batched posv through StarPU chunks on the GPU (gpu-only and hybrid)", "[batched]", float,
                   double) {
    using T = TestType;
    for (Mapping m : {Mapping::GpuOnly, Mapping::Hybrid}) {
        for (int n : {20, 77}) {
            const uint64_t seed = fresh_seed();
            const int64_t batch = 3001, nrhs = 2;
            INFO("mapping=" << to_string(m) << " n=" << n << " seed=" << seed);
            const int64_t strideB = n * nrhs;
            Batch<T> a;
            std::vector<T> B(static_cast<size_t>(batch * strideB));
            {
                // host-side generation with the StarPU workers asleep (idle workers poll and starve it)
                const Runtime::Paused paused(runtime());
                a = make_batch<T>(n, n, batch, Layout::Strided, seed, true);
                for (int64_t i = 0; i < batch; ++i) random_matrix<T>(n, nrhs, B.data() + i * strideB, n, seed + 7 + i);
            }
            std::vector<T> F = a.data, X = B;
            std::vector<int> info(static_cast<size_t>(batch), -1);
            batched::Options o;
            o.mapping = m;
            o.chunk = 250;
            const int64_t failed =
                batched::posv<T>(runtime(), n, nrhs, F.data(), n, a.stride, X.data(), n, strideB, info.data(), batch, o);
            CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
            const Runtime::Paused paused(runtime());  // host-side checks
            CHECK(failed == 2);
            check_factors(a, F, info);
            for (int64_t i : {int64_t(0), int64_t(1), int64_t(777), batch - 1}) {
                std::vector<T> L(a.data.begin() + a.offset[i], a.data.begin() + a.offset[i] + int64_t(n) * n);
                REQUIRE(lapack_potrf(n, L.data(), n) == 0);
                std::vector<T> ref(B.begin() + i * strideB, B.begin() + (i + 1) * strideB);
                REQUIRE(lapack_potrs(n, static_cast<int>(nrhs), L.data(), n, ref.data(), n) == 0);
                for (int64_t k = 0; k < strideB; ++k)
                    CHECK(std::abs(static_cast<double>(X[i * strideB + k]) - ref[k]) <=
                          tolerance<T>(n) * (1.0 + std::abs(static_cast<double>(ref[k]))));
            }
            CHECK(std::equal(B.begin() + 2 * strideB, B.begin() + 3 * strideB, X.begin() + 2 * strideB));
        }
    }
}
