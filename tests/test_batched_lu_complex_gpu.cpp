// GPU tests [batched][complex] of the batched LU on std::complex<float> and std::complex<double>, whose GPU path is
// the vendor's batched routines (kernels/batched_vendor/): starfact::batched::device::getrf/getrs/getri/inverse in
// both layouts, pivots packed or strided, on the default stream and on a stream of their own, and the StarPU chunk
// path on CUDA workers, on fresh general members: scaled residuals, per-member info for an exactly singular member
// with the others correct, singular members' C left unwritten by the inverse, and the argument checks. Skipped (exit
// 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <vector>

#include "starfact/batched_lu.hpp"
#include "tests/batched_complex_checks.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::DeviceBuffer;
using starfact::test::complex_letter;
using starfact::test::random_block;
using starfact::test::solve_residual;
using starfact::test::batched::thrown_argument;
using namespace starfact::test::batched_complex;

namespace {

enum class Layout { Strided, Array };
namespace d = batched::device;

/// Device copies of a host array, with the pointer array of its members (`stride` apart).
template <typename C>
struct DeviceBatch {
    DeviceBuffer<C> data;
    DeviceBuffer<C*> ptrs;
    DeviceBatch(const std::vector<C>& host, int64_t stride, int64_t members)
        : data(host), ptrs(static_cast<size_t>(std::max<int64_t>(1, members))) {
        std::vector<C*> p(static_cast<size_t>(std::max<int64_t>(1, members)), data.get());
        for (int64_t i = 0; i < members; ++i) p[static_cast<size_t>(i)] = data.get() + i * stride;
        ptrs.upload(p);
    }
};

template <typename T>
std::vector<T> host_copy(const T* p, size_t n) {
    return std::vector<T>(p, p + n);
}

struct OwnStream {
    cudaStream_t s = nullptr;
    OwnStream() { REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess); }
    ~OwnStream() { cudaStreamDestroy(s); }
};

int64_t failed_of(const int* info, int64_t batch) {
    return std::count_if(info, info + batch, [](int v) { return v != 0; });
}

/// Device getrf as check_getrf runs it.
template <typename C>
auto device_getrf(int n, Layout layout, cudaStream_t stream) {
    return [=](C* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info, int64_t batch) {
        const size_t na = static_cast<size_t>(std::max<int64_t>(1, batch * strideA));
        const size_t np = static_cast<size_t>(std::max<int64_t>(1, batch * stride_piv));
        DeviceBatch<C> dA(host_copy(A, na), strideA, batch);
        DeviceBuffer<int> dp(host_copy(ipiv, np)), di(static_cast<size_t>(std::max<int64_t>(1, batch)));
        if (layout == Layout::Strided)
            d::getrf<C>(n, dA.data.get(), lda, strideA, dp.get(), stride_piv, di.get(), batch, stream);
        else
            d::getrf<C>(n, dA.ptrs.get(), lda, dp.get(), stride_piv, di.get(), batch, stream);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        const std::vector<C> a = dA.data.download();
        const std::vector<int> p = dp.download(), i = di.download();
        std::copy(a.begin(), a.begin() + na, A);
        std::copy(p.begin(), p.begin() + np, ipiv);
        std::copy(i.begin(), i.begin() + batch, info);
        return failed_of(info, batch);
    };
}

/// Device inverse in place (C = A), as check_inverse runs it.
template <typename C>
auto device_inverse_in_place(int n, Layout layout, cudaStream_t stream) {
    return [=](C* A, int64_t lda, int64_t strideA, int* info, int64_t batch) {
        const size_t na = static_cast<size_t>(std::max<int64_t>(1, batch * strideA));
        DeviceBatch<C> dA(host_copy(A, na), strideA, batch);
        DeviceBuffer<int> di(static_cast<size_t>(std::max<int64_t>(1, batch)));
        if (layout == Layout::Strided)
            d::inverse<C>(n, dA.data.get(), lda, strideA, dA.data.get(), lda, strideA, nullptr, 0, di.get(), batch,
                          stream);
        else
            d::inverse<C>(n, dA.ptrs.get(), lda, dA.ptrs.get(), lda, nullptr, 0, di.get(), batch, stream);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        const std::vector<C> a = dA.data.download();
        const std::vector<int> i = di.download();
        std::copy(a.begin(), a.begin() + na, A);
        std::copy(i.begin(), i.begin() + batch, info);
        return failed_of(info, batch);
    };
}

/// getrf, then getrs of nrhs right-hand sides, getri into C, and the fused inverse out of place with its pivots, all
/// on nonsingular members but one exactly singular member (the inverse's only): residuals of every member, the
/// singular member's C untouched, the inverse's pivots equal to getrf's.
template <typename C>
void check_solves(int n, int64_t nrhs, int64_t batch, Layout layout, cudaStream_t stream) {
    const uint64_t seed = fresh_seed();
    INFO("prec=" << complex_letter<C>() << " n=" << n << " nrhs=" << nrhs << " batch=" << batch
                 << " layout=" << (layout == Layout::Strided ? "strided" : "array") << " seed=" << seed);
    GeneralInputs<C> in(n, batch, seed, false);
    std::mt19937_64 g(seed + 1);
    HostBatch<C> B(n, nrhs, n + 1, int64_t(n + 1) * nrhs + 2, batch), Cm(n, n, n + 3, int64_t(n + 3) * n + 1, batch);
    for (int64_t i = 0; i < batch; ++i) B.set(i, random_block<C>(n, nrhs, g));
    const int64_t stride_piv = n + 2;
    const bool strided = layout == Layout::Strided;
    DeviceBatch<C> dA(in.A.data, in.A.stride, batch), dB(B.data, B.stride, batch), dC(Cm.data, Cm.stride, batch);
    DeviceBuffer<int> dp(static_cast<size_t>(batch * stride_piv)), di(static_cast<size_t>(batch));
    if (strided) {
        d::getrf<C>(n, dA.data.get(), in.A.ld, in.A.stride, dp.get(), stride_piv, di.get(), batch, stream);
        d::getrs<C>(n, nrhs, dA.data.get(), in.A.ld, in.A.stride, dp.get(), stride_piv, dB.data.get(), B.ld, B.stride,
                    batch, stream);
        d::getri<C>(n, dA.data.get(), in.A.ld, in.A.stride, dp.get(), stride_piv, dC.data.get(), Cm.ld, Cm.stride,
                    batch, stream);
    } else {
        d::getrf<C>(n, dA.ptrs.get(), in.A.ld, dp.get(), stride_piv, di.get(), batch, stream);
        const C* const* lu = dA.ptrs.get();
        d::getrs<C>(n, nrhs, lu, in.A.ld, dp.get(), stride_piv, dB.ptrs.get(), B.ld, batch, stream);
        d::getri<C>(n, lu, in.A.ld, dp.get(), stride_piv, dC.ptrs.get(), Cm.ld, batch, stream);
    }
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    HostBatch<C> X = B, Y = Cm;
    X.data = dB.data.download();
    Y.data = dC.data.download();
    const std::vector<int> info = di.download(), piv = dp.download();
    const std::vector<C> I = identity<C>(n);
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        REQUIRE(info[static_cast<size_t>(i)] == 0);
        const std::vector<C> a = in.A.packed(i);
        CHECK(solve_residual(a, X.packed(i), B.packed(i), n, nrhs) < kResidualBound);
        CHECK(solve_residual(a, Y.packed(i), I, n, n) < kResidualBound);
        CHECK(untouched_outside(B, X, i, false));
        CHECK(untouched_outside(Cm, Y, i, false));
    }

    // the fused inverse out of place, with pivots, on the inputs with a singular member
    GeneralInputs<C> sing(n, batch, seed + 2);
    DeviceBatch<C> dS(sing.A.data, sing.A.stride, batch), dZ(Cm.data, Cm.stride, batch);
    DeviceBuffer<int> dq(static_cast<size_t>(batch * stride_piv)), dj(static_cast<size_t>(batch));
    if (strided)
        d::inverse<C>(n, dS.data.get(), sing.A.ld, sing.A.stride, dZ.data.get(), Cm.ld, Cm.stride, dq.get(),
                      stride_piv, dj.get(), batch, stream);
    else
        d::inverse<C>(n, dS.ptrs.get(), sing.A.ld, dZ.ptrs.get(), Cm.ld, dq.get(), stride_piv, dj.get(), batch,
                      stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    HostBatch<C> Z = Cm, S = sing.A;
    Z.data = dZ.data.download();
    S.data = dS.data.download();
    const std::vector<int> jinfo = dj.download(), q = dq.download();
    CHECK(failed_of(jinfo.data(), batch) == sing.failures());
    for (int64_t i = 0; i < batch; ++i) {
        INFO("inverse member " << i);
        REQUIRE(jinfo[static_cast<size_t>(i)] == sing.expected[static_cast<size_t>(i)]);
        CHECK(same_member(sing.A, S, i));  // A is read only
        for (int k = 0; k < n; ++k) {
            CHECK(q[static_cast<size_t>(i * stride_piv + k)] >= k + 1);
            CHECK(q[static_cast<size_t>(i * stride_piv + k)] <= n);
        }
        if (sing.expected[static_cast<size_t>(i)] != 0) {
            CHECK(same_member(Cm, Z, i));  // unwritten
            continue;
        }
        CHECK(untouched_outside(Cm, Z, i, false));
        CHECK(solve_residual(sing.A.packed(i), Z.packed(i), I, n, n) < kResidualBound);
    }
}

}  // namespace

TEMPLATE_TEST_CASE("batched complex device getrf (vendor path): residuals, info per member, both layouts",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());
    const OwnStream own;
    for (int n : {1, 2, 5, 13, 31, 32})
        for (int64_t batch : {int64_t(1), int64_t(9), int64_t(300)})
            for (Layout l : {Layout::Strided, Layout::Array}) {
                const cudaStream_t s = l == Layout::Strided ? own.s : nullptr;
                check_getrf<C>(n, batch, fresh_seed(), false, device_getrf<C>(n, l, s), 1);  // strided pivots
                check_getrf<C>(n, batch, fresh_seed(), false, device_getrf<C>(n, l, s), 0);  // the vendor's layout
            }
}

TEMPLATE_TEST_CASE("batched complex device inverse in place (vendor path): residuals, info per member",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());
    const OwnStream own;
    for (int n : {1, 3, 7, 19, 32})
        for (int64_t batch : {int64_t(1), int64_t(10), int64_t(600)})
            for (Layout l : {Layout::Strided, Layout::Array})
                check_inverse<C>(n, batch, fresh_seed(),
                                 device_inverse_in_place<C>(n, l, l == Layout::Strided ? own.s : nullptr));
}

TEMPLATE_TEST_CASE("batched complex device getrs, getri and the inverse out of place (vendor path)",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());
    const OwnStream own;
    for (int n : {1, 4, 13, 32})
        for (Layout l : {Layout::Strided, Layout::Array}) {
            check_solves<C>(n, 1, 7, l, own.s);
            check_solves<C>(n, 5, 40, l, nullptr);
        }
}

TEMPLATE_TEST_CASE("batched complex getrf/inverse through StarPU chunks on CUDA workers", "[batched][complex][gpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    for (Mapping m : {Mapping::GpuOnly, Mapping::Hybrid}) {
        INFO("mapping=" << to_string(m));
        for (int n : {1, 13, 32}) {
            batched::Options o;
            o.mapping = m;
            o.chunk = 97;
            check_getrf<C>(n, 700, fresh_seed(), false,
                           [&](C* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info,
                               int64_t batch) {
                               return batched::getrf<C>(runtime(), n, A, lda, strideA, ipiv, stride_piv, info, batch,
                                                        o);
                           });
            check_inverse<C>(n, 700, fresh_seed(), [&](C* A, int64_t lda, int64_t strideA, int* info, int64_t batch) {
                return batched::inverse<C>(runtime(), n, A, lda, strideA, info, batch, o);
            });
        }
    }
    CHECK(starfact::test::settled_pending_tasks(runtime()) == 0);
}

TEMPLATE_TEST_CASE("batched complex device getrf/getrs/getri/inverse: argument checks name the argument",
                   "[batched][complex][gpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const Runtime::Paused paused(runtime());
    DeviceBuffer<C> A(32 * 32 * 3), B(32 * 3);
    DeviceBuffer<int> ipiv(32 * 3), info(3);
    auto arg = [](auto&& f) { return thrown_argument(f); };
    CHECK(arg([&] { d::getrf<C>(33, A.get(), 33, 33 * 33, ipiv.get(), 33, info.get(), 1); }) == "n");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 7, 64, ipiv.get(), 8, info.get(), 1); }) == "lda");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 8, 63, ipiv.get(), 8, info.get(), 2); }) == "strideA");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 8, 64, ipiv.get(), 7, info.get(), 2); }) == "stride_piv");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 8, 64, ipiv.get(), 8, info.get(), -1); }) == "batch");
    CHECK(arg([&] { d::getrf<C>(8, static_cast<C*>(nullptr), 8, 64, ipiv.get(), 8, info.get(), 1); }) == "A");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 8, 64, nullptr, 8, info.get(), 1); }) == "ipiv");
    CHECK(arg([&] { d::getrf<C>(8, A.get(), 8, 64, ipiv.get(), 8, nullptr, 1); }) == "info");
    CHECK(arg([&] { d::getrs<C>(8, -1, A.get(), 8, 64, ipiv.get(), 8, B.get(), 8, 8, 1); }) == "nrhs");
    CHECK(arg([&] { d::getrs<C>(8, 1, static_cast<const C*>(nullptr), 8, 64, ipiv.get(), 8, B.get(), 8, 8, 1); }) ==
          "LU");
    CHECK(arg([&] { d::getrs<C>(8, 1, A.get(), 8, 64, ipiv.get(), 8, B.get(), 7, 8, 1); }) == "ldb");
    CHECK(arg([&] { d::getrs<C>(8, 1, A.get(), 8, 64, ipiv.get(), 8, static_cast<C*>(nullptr), 8, 8, 1); }) == "B");
    CHECK(arg([&] { d::getri<C>(8, A.get(), 8, 64, ipiv.get(), 8, A.get(), 8, 64, 1); }) == "C");  // aliases LU
    CHECK(arg([&] { d::inverse<C>(8, A.get(), 8, 64, A.get(), 9, 72, nullptr, 0, info.get(), 1); }) == "C");
    CHECK(arg([&] { d::inverse<C>(8, A.get(), 8, 64, B.get(), 8, 64, nullptr, 0, nullptr, 1); }) == "info");
}
