// GPU tests [rpotrf] of the recursive Cholesky (kernels/rpotrf/): residuals for orders around the leaf and recursion
// sizes (n = 1, n < leaf, n % leaf != 0, ld > n), every leaf kind and panel solve, both precisions, and the
// tensor-core form against its own epsilon; LAPACK's info and untouched storage for non-SPD input; ill-conditioned
// Gaussian-kernel matrices with the inverted-leaf panel solve; bad arguments named. Cases tagged [sanitize] are small
// for compute-sanitizer. Skipped without a GPU.
#include <catch2/catch.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/rpotrf/rpotrf.hpp"
#include "kernels/rpotrf/rpotrf_tuning.hpp"
#include "starfact/error.hpp"
#include "tests/potf2_checks.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::detail::gpu::RpotrfConfig;
using starfact::detail::gpu::RpotrfLeaf;
using starfact::test::fresh_seed;
using starfact::test::gaussian_kernel_spd;
using starfact::test::kResidualLimit;
using namespace starfact::test::potf2_checks;

namespace {

/// cuBLAS and cuSOLVER on one stream.
struct Handles {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    Handles() {
        REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
        REQUIRE(cublasCreate(&cublas) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cublasSetStream(cublas, stream) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cusolverDnCreate(&solver) == CUSOLVER_STATUS_SUCCESS);
        REQUIRE(cusolverDnSetStream(solver, stream) == CUSOLVER_STATUS_SUCCESS);
    }
    ~Handles() {
        cudaDeviceSynchronize();
        cusolverDnDestroy(solver);
        cublasDestroy(cublas);
        cudaStreamDestroy(stream);
    }
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
};

std::string describe(const RpotrfConfig& c) {
    return std::string(c.leaf_kind == RpotrfLeaf::Fused ? "fused" : "cusolver") + " leaf " + std::to_string(c.leaf) +
           (c.trsm_inverse ? " inverse" : " trsm " + std::to_string(c.trsm_base)) + " syrk " +
           std::to_string(c.syrk_base) + " compute " + std::to_string(c.compute);
}

/// rpotrf on a device copy of A (ld), info starting at info0, offset added to a failure; A gets the result.
template <typename T>
int run(Handles& h, std::vector<T>& A, int n, int ld, const RpotrfConfig& c, int info0 = 0, int64_t offset = 0) {
    T* dA = nullptr;
    int* dinfo = nullptr;
    void* work = nullptr;
    const size_t bytes = A.size() * sizeof(T);
    const size_t wbytes = detail::gpu::rpotrf_workspace_bytes<T>(h.solver, n, c);
    REQUIRE(cudaMalloc(&dA, bytes > 0 ? bytes : 1) == cudaSuccess);
    REQUIRE(cudaMalloc(&dinfo, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&work, wbytes) == cudaSuccess);
    REQUIRE(cudaMemset(work, 0x7f, wbytes) == cudaSuccess);  // must not rely on a cleared workspace
    REQUIRE(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(dinfo, &info0, sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    detail::gpu::rpotrf<T>(h.cublas, h.solver, h.stream, n, dA, ld, dinfo, offset, work, wbytes, c);
    REQUIRE(cudaStreamSynchronize(h.stream) == cudaSuccess);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    int info = -1;
    REQUIRE(cudaMemcpy(A.data(), dA, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(dA);
    cudaFree(dinfo);
    cudaFree(work);
    return info;
}

/// The configurations every order is checked with: both leaf kinds, both panel solves, recursive and flat updates.
template <typename T>
std::vector<RpotrfConfig> configs(int leaf) {
    std::vector<RpotrfConfig> v;
    for (RpotrfLeaf kind : {RpotrfLeaf::Fused, RpotrfLeaf::Cusolver}) {
        if (kind == RpotrfLeaf::Fused && !detail::gpu::rpotrf_fused_leaf_available()) continue;
        for (bool inverse : {false, true})
            for (int syrk_base : {64, 1 << 16}) {
                RpotrfConfig c;
                c.leaf = leaf;
                c.leaf_kind = kind;
                c.trsm_base = 64;
                c.trsm_inverse = inverse;
                c.syrk_base = syrk_base;
                v.push_back(c);
            }
    }
    return v;
}

/// A fresh SPD matrix (strictly upper triangle NaN, padding marked): info 0, residual < 60 in T's epsilon (in
/// TF32's for compute 1), nothing outside the lower triangle touched.
template <typename T>
void check_spd(Handles& h, int n, int ld, const RpotrfConfig& c) {
    const uint64_t seed = fresh_seed();
    INFO("prec=" << prec<T>() << " n=" << n << " ld=" << ld << " seed=" << seed << " config=" << describe(c));
    const std::vector<T> A = spd_with_nan_upper<T>(n, ld, seed);
    std::vector<T> L = A;
    REQUIRE(run<T>(h, L, n, ld, c) == 0);
    double res = potrf_residual<T>(n, A.data(), ld, L.data(), ld);
    // TF32 keeps 10 explicit mantissa bits: its unit roundoff is 2^-11 where float's is 2^-24.
    if (c.compute == 1) res *= std::ldexp(1.0, -13);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(untouched_outside_lower(A, L, n, ld));
}

}  // namespace

TEMPLATE_TEST_CASE("rpotrf: residual < 60 around the leaf and recursion orders", "[rpotrf]", float, double) {
    Handles h;
    for (const RpotrfConfig& c : configs<TestType>(128))
        for (int n : {1, 5, 127, 128, 129, 300, 513, 1000, 1537})
            for (int pad : {0, 3}) check_spd<TestType>(h, n, n + pad, c);
}

TEMPLATE_TEST_CASE("rpotrf: the tuned configurations at larger odd orders", "[rpotrf]", float, double) {
    Handles h;
    for (int n : {2049, 3001, 5000}) {
        check_spd<TestType>(h, n, n + 1, detail::gpu::rpotrf_default_config<TestType>(n));
        RpotrfConfig inverse = detail::gpu::rpotrf_default_config<TestType>(n);
        inverse.trsm_inverse = !inverse.trsm_inverse;
        check_spd<TestType>(h, n, n, inverse);
    }
}

TEST_CASE("rpotrf: float storage with TF32 gemms, residual in TF32's epsilon", "[rpotrf]") {
    Handles h;
    for (int n : {100, 1000, 2500})
        for (bool inverse : {false, true}) {
            RpotrfConfig c = detail::gpu::rpotrf_default_config<float>(n, 1);
            c.trsm_inverse = inverse;
            c.leaf = 256;
            check_spd<float>(h, n, n + 2, c);
        }
}

TEMPLATE_TEST_CASE("rpotrf: small orders, every configuration", "[rpotrf][sanitize]", float, double) {
    Handles h;
    for (const RpotrfConfig& c : configs<TestType>(64))
        for (int n : {1, 63, 65, 200}) check_spd<TestType>(h, n, n + 1, c);
}

TEMPLATE_TEST_CASE("rpotrf: non-SPD gives LAPACK's info plus the offset, outside the lower triangle untouched",
                   "[rpotrf][sanitize]", float, double) {
    Handles h;
    for (const RpotrfConfig& c : configs<TestType>(64))
        for (int k : {1, 40, 64, 65, 150}) {
            const int n = 200, ld = 203;
            const uint64_t seed = fresh_seed();
            INFO("prec=" << prec<TestType>() << " k=" << k << " seed=" << seed << " config=" << describe(c));
            std::vector<TestType> A = spd_with_nan_upper<TestType>(n, ld, seed);
            A[(k - 1) + size_t(k - 1) * ld] = TestType(-1e6);  // column k loses definiteness
            std::vector<TestType> ref = A;
            const int expected = lapack_potrf<TestType>(n, ref.data(), ld);
            REQUIRE(expected > 0);
            std::vector<TestType> L = A;
            CHECK(run<TestType>(h, L, n, ld, c, 0, 1000) == 1000 + expected);
            CHECK(untouched_outside_lower(A, L, n, ld));
            // An info already set is kept.
            std::vector<TestType> L2 = A;
            CHECK(run<TestType>(h, L2, n, ld, c, 7, 1000) == 7);
        }
}

TEMPLATE_TEST_CASE("rpotrf: ill-conditioned Gaussian-kernel matrices factor where LAPACK does", "[rpotrf]", float,
                   double) {
    // Neighbouring columns nearly equal, a small nugget: the leaf blocks of L are badly conditioned, the case where
    // solving panels by inverted blocks could lose definiteness that a triangular solve keeps.
    Handles h;
    const double nugget = sizeof(TestType) == 4 ? 1e-3 : 1e-8;
    for (int n : {700, 2100})
        for (bool inverse : {false, true}) {
            RpotrfConfig c = detail::gpu::rpotrf_default_config<TestType>(n);
            c.trsm_inverse = inverse;
            std::vector<TestType> A(size_t(n) * n);
            const uint64_t seed = gaussian_kernel_spd<TestType>(n, A.data(), n, 0.05, nugget, fresh_seed());
            INFO("prec=" << prec<TestType>() << " n=" << n << " inverse=" << inverse << " seed=" << seed);
            std::vector<TestType> ref = A;
            if (lapack_potrf<TestType>(n, ref.data(), n) != 0) continue;  // not SPD in this precision
            std::vector<TestType> L = A;
            REQUIRE(run<TestType>(h, L, n, n, c) == 0);
            const double res = potrf_residual<TestType>(n, A.data(), n, L.data(), n);
            INFO("residual=" << res);
            CHECK(res < kResidualLimit);
        }
}

TEMPLATE_TEST_CASE("rpotrf: bad arguments name the argument", "[rpotrf][sanitize]", float, double) {
    Handles h;
    RpotrfConfig c = detail::gpu::rpotrf_default_config<TestType>(256);
    const size_t wbytes = detail::gpu::rpotrf_workspace_bytes<TestType>(h.solver, 256, c);
    TestType* dA = nullptr;
    int* dinfo = nullptr;
    void* work = nullptr;
    REQUIRE(cudaMalloc(&dA, 256 * 256 * sizeof(TestType)) == cudaSuccess);
    REQUIRE(cudaMalloc(&dinfo, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&work, wbytes) == cudaSuccess);
    auto argument_of = [&](int n, int ld, void* w, size_t wb, const RpotrfConfig& cfg) -> std::string {
        try {
            detail::gpu::rpotrf<TestType>(h.cublas, h.solver, h.stream, n, dA, ld, dinfo, 0, w, wb, cfg);
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "";
    };
    CHECK(argument_of(-1, 256, work, wbytes, c) == "n");
    CHECK(argument_of(256, 100, work, wbytes, c) == "ld");
    CHECK(argument_of(256, 256, work, wbytes / 4, c) == "workspace");
    CHECK(argument_of(256, 256, nullptr, wbytes, c) == "workspace");
    RpotrfConfig bad = c;
    bad.leaf = 8;
    CHECK(argument_of(256, 256, work, wbytes, bad) == "config.leaf");
    bad = c;
    bad.trsm_base = 100;
    CHECK(argument_of(256, 256, work, wbytes, bad) == "config.trsm_base");
    bad = c;
    bad.compute = 1;
    if (sizeof(TestType) == 8) CHECK(argument_of(256, 256, work, wbytes, bad) == "config.compute");
    CHECK(argument_of(0, 1, nullptr, 0, c).empty());  // n = 0: nothing to do, nothing checked past ld
    cudaFree(dA);
    cudaFree(dinfo);
    cudaFree(work);
}
