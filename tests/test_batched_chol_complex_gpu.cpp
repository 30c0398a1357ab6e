// GPU tests [batched][complex] of the batched Cholesky on std::complex<float> and std::complex<double>, whose GPU
// path is the vendor's batched routines (kernels/batched_vendor/): starfact::batched::device::potrf/potrs/posv in
// both layouts, on the default stream and on a stream of their own, and the StarPU chunk path on CUDA workers, on
// fresh Hermitian positive definite members: scaled residuals, per-member info for a non-definite and a NaN member
// with the others correct and the failed members' right-hand sides kept, untouched upper triangles and padding, one
// and several right-hand sides (cuBLAS's batched triangular solves), and the argument checks. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

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
using starfact::test::batched::DeviceBuffer;
using starfact::test::batched::thrown_argument;
using namespace starfact::test::batched_complex;

namespace {

enum class Layout { Strided, Array };

/// A host batch's device copy: the strided base, and the pointer array of its members.
template <typename C>
struct DeviceBatch {
    DeviceBuffer<C> data;
    DeviceBuffer<C*> ptrs;
    int64_t count;
    DeviceBatch(const C* host, int64_t stride, int64_t members)
        : data(std::vector<C>(host, host + std::max<int64_t>(1, members * stride))),
          ptrs(static_cast<size_t>(std::max<int64_t>(1, members))),
          count(members) {
        std::vector<C*> p(static_cast<size_t>(std::max<int64_t>(1, members)), data.get());
        for (int64_t i = 0; i < members; ++i) p[static_cast<size_t>(i)] = data.get() + i * stride;
        ptrs.upload(p);
    }
    void download(C* host, int64_t stride) const {
        const std::vector<C> h = data.download();
        std::copy(h.begin(), h.begin() + std::max<int64_t>(1, count * stride), host);
    }
};

/// The device API as check_cholesky runs it: potrf (nrhs < 0), posv, or potrf then potrs (two_calls; members with
/// info != 0 then have meaningless right-hand sides, so the batches it runs have none), on `stream`.
template <typename C>
auto device_cholesky(Layout layout, bool two_calls, cudaStream_t stream) {
    return [=](int64_t n, C* A, int64_t lda, int64_t strideA, C* B, int64_t ldb, int64_t strideB, int64_t nrhs,
               int* info, int64_t batch) {
        DeviceBatch<C> dA(A, strideA, batch), dB(B, strideB, batch);
        DeviceBuffer<int> dinfo(static_cast<size_t>(std::max<int64_t>(1, batch)));
        const bool strided = layout == Layout::Strided;
        if (nrhs < 0 || two_calls) {
            if (strided) batched::device::potrf<C>(n, dA.data.get(), lda, strideA, dinfo.get(), batch, stream);
            else batched::device::potrf<C>(n, dA.ptrs.get(), lda, dinfo.get(), batch, stream);
            if (nrhs >= 0) {
                if (strided)
                    batched::device::potrs<C>(n, nrhs, dA.data.get(), lda, strideA, dB.data.get(), ldb, strideB, batch,
                                              stream);
                else
                    batched::device::potrs<C>(n, nrhs, dA.ptrs.get(), lda, dB.ptrs.get(), ldb, batch, stream);
            }
        } else if (strided) {
            batched::device::posv<C>(n, nrhs, dA.data.get(), lda, strideA, dB.data.get(), ldb, strideB, dinfo.get(),
                                     batch, stream);
        } else {
            batched::device::posv<C>(n, nrhs, dA.ptrs.get(), lda, dB.ptrs.get(), ldb, dinfo.get(), batch, stream);
        }
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        dA.download(A, strideA);
        if (nrhs > 0) dB.download(B, strideB);
        const std::vector<int> h = dinfo.download();
        std::copy(h.begin(), h.begin() + batch, info);
        return static_cast<int64_t>(std::count_if(info, info + batch, [](int v) { return v != 0; }));
    };
}

/// A CUDA stream of the test's own, destroyed at scope exit.
struct OwnStream {
    cudaStream_t s = nullptr;
    OwnStream() { REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess); }
    ~OwnStream() { cudaStreamDestroy(s); }
};

}  // namespace

TEMPLATE_TEST_CASE("batched complex device potrf/posv (vendor path): residuals, info per member, both layouts",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());  // device API only: idle StarPU workers must not poll
    const OwnStream own;
    for (int n : {1, 2, 13, 37, 101, 128}) {
        for (Layout l : {Layout::Strided, Layout::Array}) {
            const cudaStream_t s = l == Layout::Strided ? own.s : nullptr;
            check_cholesky<C>(n, -1, 40, fresh_seed(), device_cholesky<C>(l, false, s));  // potrf
            check_cholesky<C>(n, 1, 9, fresh_seed(), device_cholesky<C>(l, false, s));   // posv, one right-hand side
            check_cholesky<C>(n, 4, 11, fresh_seed(), device_cholesky<C>(l, false, s));  // posv, several
            check_cholesky<C>(n, 1, 3, fresh_seed(), device_cholesky<C>(l, true, s));    // potrf, then potrs
            check_cholesky<C>(n, 3, 3, fresh_seed(), device_cholesky<C>(l, true, s));
        }
    }
    check_cholesky<C>(1, 1, 1, fresh_seed(), device_cholesky<C>(Layout::Strided, false, nullptr));
    check_cholesky<C>(24, 0, 7, fresh_seed(), device_cholesky<C>(Layout::Array, false, nullptr));  // no right-hand sides
    check_cholesky<C>(9, 2, 5000, fresh_seed(), device_cholesky<C>(Layout::Strided, false, own.s));
}

TEMPLATE_TEST_CASE("batched complex potrf/posv through StarPU chunks on CUDA workers", "[batched][complex][gpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    for (Mapping m : {Mapping::GpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(m));
        for (int n : {1, 13, 101}) {
            for (int64_t nrhs : {int64_t(-1), int64_t(1), int64_t(3)}) {
                check_cholesky<C>(n, nrhs, 60, fresh_seed(),
                                  [&](int64_t order, C* A, int64_t lda, int64_t strideA, C* B, int64_t ldb,
                                      int64_t strideB, int64_t k, int* info, int64_t batch) {
                                      batched::Options o;
                                      o.mapping = m;
                                      o.chunk = 7;
                                      return k >= 0 ? batched::posv<C>(runtime(), order, k, A, lda, strideA, B, ldb,
                                                                       strideB, info, batch, o)
                                                    : batched::potrf<C>(runtime(), order, A, lda, strideA, info, batch,
                                                                        o);
                                  });
            }
        }
    }
    CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
}

TEMPLATE_TEST_CASE("batched complex device potrf/potrs/posv: argument checks name the argument",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());
    DeviceBuffer<C> A(64 * 64 * 3), B(64 * 3);
    DeviceBuffer<int> info(3);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    namespace d = batched::device;
    CHECK(arg([&] { d::potrf<C>(129, A.get(), 129, 129 * 129, info.get(), 1); }) == "n");
    CHECK(arg([&] { d::potrf<C>(8, A.get(), 7, 64, info.get(), 1); }) == "lda");
    CHECK(arg([&] { d::potrf<C>(8, A.get(), 8, 10, info.get(), 2); }) == "strideA");
    CHECK(arg([&] { d::potrf<C>(8, A.get(), 8, 64, info.get(), -1); }) == "batch");
    CHECK(arg([&] { d::potrf<C>(8, static_cast<C*>(nullptr), 8, 64, info.get(), 1); }) == "A");
    CHECK(arg([&] { d::potrf<C>(8, A.get(), 8, 64, nullptr, 1); }) == "info");
    CHECK(arg([&] { d::potrs<C>(8, -1, A.get(), 8, 64, B.get(), 8, 8, 1); }) == "nrhs");
    CHECK(arg([&] { d::potrs<C>(8, 1, A.get(), 8, 63, B.get(), 8, 8, 2); }) == "strideL");
    CHECK(arg([&] { d::potrs<C>(8, 1, static_cast<const C*>(nullptr), 8, 64, B.get(), 8, 8, 1); }) == "L");
    CHECK(arg([&] { d::potrs<C>(8, 1, A.get(), 8, 64, B.get(), 7, 8, 1); }) == "ldb");
    CHECK(arg([&] { d::posv<C>(8, 2, A.get(), 8, 64, B.get(), 8, 15, info.get(), 2); }) == "strideB");
    CHECK(arg([&] { d::posv<C>(8, 1, A.get(), 8, 64, static_cast<C*>(nullptr), 8, 8, info.get(), 1); }) == "B");
    // n = 0 reports info = 0 for every member
    REQUIRE(cudaMemset(info.get(), 0x7f, 3 * sizeof(int)) == cudaSuccess);
    d::potrf<C>(0, A.get(), 1, 0, info.get(), 3);
    const std::vector<int> h = info.download();
    CHECK(std::all_of(h.begin(), h.end(), [](int v) { return v == 0; }));
}
