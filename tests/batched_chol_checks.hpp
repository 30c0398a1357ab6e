// The checks of tests/test_batched_chol_gpu.cpp: test batches in both layouts, each kernel forced, and the
// comparison of the batched potrf, potrs and posv with LAPACK.
#pragma once
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/batched_chol/launch.hpp"
#include "starfact/batched_cholesky.hpp"
#include "tests/batched_support.hpp"
#include "kernels/batched_chol/tuning.hpp"
#include "tests/support.hpp"

namespace starfact::test::batched_chol_checks {

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using namespace starfact::test::batched;


enum class Layout { Strided, Array };
inline const char* name(Layout l) { return l == Layout::Strided ? "strided" : "array"; }

/// A batch in one host buffer: member i at offset[i] (strided: i * stride; array: a shuffled order
/// with gaps), n x n with leading dimension lda, filled with a marker outside the lower triangle.
template <typename T>
struct Batch {
    int n, lda;
    int64_t stride, batch;
    std::vector<int64_t> offset;
    std::vector<T> data;
    std::vector<int> expected_info;
};

template <typename T>
Batch<T> make_batch(int n, int lda, int64_t batch, Layout layout, uint64_t seed, bool bad_members) {
    Batch<T> b;
    b.n = n;
    b.lda = lda;
    b.batch = batch;
    b.stride = static_cast<int64_t>(lda) * n + 3;
    b.offset.resize(static_cast<size_t>(batch));
    for (int64_t i = 0; i < batch; ++i) b.offset[i] = i * b.stride;
    if (layout == Layout::Array) std::reverse(b.offset.begin(), b.offset.end());
    b.data.assign(static_cast<size_t>(batch * b.stride), T(-777));
    b.expected_info.assign(static_cast<size_t>(batch), 0);
    for (int64_t i = 0; i < batch; ++i) {
        T* A = b.data.data() + b.offset[i];
        random_symmetric<T>(n, A, lda, seed + static_cast<uint64_t>(i), static_cast<double>(n));
        for (int j = 0; j < n; ++j)  // upper triangle: a marker the kernels must leave alone
            for (int r = 0; r < j; ++r) A[r + static_cast<int64_t>(j) * lda] = T(-555);
    }
    if (bad_members) {
        const int k1 = n / 2, k2 = n - 1;
        if (batch > 2) {  // not positive definite at column k1 + 1
            b.data[b.offset[2] + k1 + static_cast<int64_t>(k1) * lda] = -T(n);
            b.expected_info[2] = k1 + 1;
        }
        if (batch > 5) {  // NaN pivot at the last column
            b.data[b.offset[5] + k2 + static_cast<int64_t>(k2) * lda] = std::numeric_limits<T>::quiet_NaN();
            b.expected_info[5] = k2 + 1;
        }
    }
    return b;
}

/// The device-side pointer array for b's members inside the device buffer base.
template <typename T>
std::vector<T*> member_pointers(const Batch<T>& b, T* base) {
    std::vector<T*> p(static_cast<size_t>(b.batch));
    for (int64_t i = 0; i < b.batch; ++i) p[i] = base + b.offset[i];
    return p;
}

/// Good members: |L - L_lapack| <= tol * max|L_lapack| on the lower triangle; everywhere else (upper
/// triangle, padding rows, gaps between members) bit-identical to the input.
template <typename T>
void check_factors(const Batch<T>& in, const std::vector<T>& out, const std::vector<int>& info) {
    const int n = in.n, lda = in.lda;
    std::vector<char> in_lower(in.data.size(), 0);
    for (int64_t i = 0; i < in.batch; ++i) {
        INFO("member " << i);
        CHECK(info[i] == in.expected_info[i]);
        const T* A = in.data.data() + in.offset[i];
        const T* L = out.data() + in.offset[i];
        for (int j = 0; j < n; ++j)
            for (int r = j; r < n; ++r) in_lower[in.offset[i] + r + static_cast<int64_t>(j) * lda] = 1;
        if (in.expected_info[i] != 0) continue;
        std::vector<T> ref(A, A + static_cast<size_t>(lda) * n);
        REQUIRE(lapack_potrf(n, ref.data(), lda) == 0);
        const auto [err, scale] = lower_deviation(n, L, ref.data(), lda);
        INFO("max |L - L_lapack| / max |L_lapack| = " << err / scale);
        CHECK(err <= tolerance<T>(n) * scale);
    }
    size_t changed = 0;
    for (size_t k = 0; k < in.data.size(); ++k)
        if (!in_lower[k] && std::memcmp(&in.data[k], &out[k], sizeof(T)) != 0) ++changed;
    CHECK(changed == 0);
}

using starfact::batched::gpu::Family;
using starfact::batched::gpu::Variant;

/// Which potrf kernel a test runs: the library's tuned choice (the public device API) or a kernel forced
/// through the internal entry point (gpu::launch_potrf_variant): the left-looking one or a resident
/// variant the library compiles.
struct Kernel {
    bool library = true;
    Variant v;
};
inline const Kernel kLibrary{true, {}}, kLeft{false, {}};
inline std::ostream& operator<<(std::ostream& os, const Kernel& k) {
    if (k.library) return os << "library";
    if (k.v.family == Family::LeftLooking) return os << "left-looking";
    return os << k.v.nt << "/" << k.v.occ << "/" << starfact::batched::gpu::inner_block(k.v.family)
              << starfact::batched::gpu::family_tag(k.v.family);
}

/// Every resident variant the library compiles (kernels/batched_chol/tuning.hpp, kLibraryVariants), forced.
/// The other candidates of the tuning space are not in the library: the tuning sweep (tools/tune/batched_chol/)
/// checks their results as it times them.
inline std::vector<Kernel> library_variants() {
    std::vector<Kernel> v;
    for (const Variant& c : starfact::batched::gpu::kLibraryVariants) v.push_back(Kernel{false, c});
    return v;
}
inline const std::vector<Kernel> kResident = library_variants();

/// Kernel arguments for a batch of A (strided: base + i * stride; array: ptrs), order n, with info.
template <typename T>
starfact::batched::gpu::Args<T> factor_args(int n, T* base, int64_t stride, T* const* ptrs, int lda, int64_t batch, int* info) {
    starfact::batched::gpu::Args<T> a;
    a.n = n;
    a.A.base = base;
    a.A.stride = stride;
    a.A.ptrs = ptrs;
    a.lda = lda;
    a.info = info;
    a.batch = batch;
    return a;
}

template <typename T>
void forced_potrf(Kernel k, int n, T* base, int64_t stride, T* const* ptrs, int lda, int64_t batch, int* info) {
    const starfact::batched::gpu::Args<T> a = factor_args(n, base, stride, ptrs, lda, batch, info);
    REQUIRE(starfact::batched::gpu::launch_potrf_variant<T>(a, k.v));
    REQUIRE(cudaGetLastError() == cudaSuccess);
}

template <typename T>
void check_potrf(int n, int lda, int64_t batch, Layout layout, Kernel kernel = kLibrary) {
    const uint64_t seed = fresh_seed();
    INFO("potrf n=" << n << " lda=" << lda << " batch=" << batch << " layout=" << name(layout)
                    << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " kernel=" << kernel << " seed=" << seed);
    Batch<T> b = make_batch<T>(n, lda, batch, layout, seed, true);
    DeviceBuffer<T> dA(b.data.size());
    dA.upload(b.data);
    DeviceBuffer<int> dinfo(static_cast<size_t>(batch));
    REQUIRE(cudaMemset(dinfo.get(), 0x7f, batch * sizeof(int)) == cudaSuccess);
    if (layout == Layout::Strided) {
        if (kernel.library) starfact::batched::device::potrf<T>(n, dA.get(), lda, b.stride, dinfo.get(), batch);
        else forced_potrf<T>(kernel, n, dA.get(), b.stride, nullptr, lda, batch, dinfo.get());
    } else {
        const std::vector<T*> hp = member_pointers(b, dA.get());
        DeviceBuffer<T*> dp(hp.size());
        dp.upload(hp);
        if (kernel.library) starfact::batched::device::potrf<T>(n, dp.get(), lda, dinfo.get(), batch);
        else forced_potrf<T>(kernel, n, nullptr, 0, dp.get(), lda, batch, dinfo.get());
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_factors(b, dA.download(), dinfo.download());
}

/// How check_solve solves: potrf then potrs (device API), posv (device API: the library's choice), or
/// posv forced onto the fused kernel or the two passes (potrf, then potrs skipping failed members).
enum class Solve { PotrfPotrs, Posv, PosvFused, PosvTwoPass };
inline const char* name(Solve s) {
    return s == Solve::PotrfPotrs ? "potrf+potrs" : s == Solve::Posv ? "posv" : s == Solve::PosvFused ? "posv(fused)" : "posv(two-pass)";
}

template <typename T>
void forced_posv(Solve how, int n, int nrhs, T* a, int64_t sa, T* const* pa, int lda, T* b, int64_t sb, T* const* pb,
                 int ldb, int64_t batch, int* info) {
    starfact::batched::gpu::Args<T> g = factor_args(n, a, sa, pa, lda, batch, info);
    g.nrhs = nrhs;
    g.B.base = b;
    g.B.stride = sb;
    g.B.ptrs = pb;
    g.ldb = ldb;
    REQUIRE((how == Solve::PosvFused ? starfact::batched::gpu::launch_posv_fused<T>(g) : starfact::batched::gpu::launch_posv_two_pass<T>(g)));
    REQUIRE(cudaGetLastError() == cudaSuccess);
}

/// posv (any of its paths) or potrf + potrs: X against LAPACK's potrf + potrs on the same data; failed
/// members keep B unchanged (posv).
template <typename T>
void check_solve(int n, int nrhs, int64_t batch, Layout layout, Solve how) {
    const bool is_posv = how != Solve::PotrfPotrs;  // posv: batches with failing members, whose B stays unchanged
    const uint64_t seed = fresh_seed();
    INFO(name(how) << " n=" << n << " nrhs=" << nrhs << " batch=" << batch
                                          << " layout=" << name(layout) << " prec=" << (sizeof(T) == 4 ? "s" : "d")
                                          << " seed=" << seed);
    const int lda = n + 2, ldb = n + 1;
    Batch<T> a = make_batch<T>(n, lda, batch, layout, seed, is_posv);
    const int64_t strideB = static_cast<int64_t>(ldb) * nrhs + 5;
    std::vector<int64_t> offB(static_cast<size_t>(batch));
    for (int64_t i = 0; i < batch; ++i) offB[i] = (layout == Layout::Strided ? i : batch - 1 - i) * strideB;
    std::vector<T> B(static_cast<size_t>(batch * strideB), T(-333));
    for (int64_t i = 0; i < batch; ++i) random_matrix<T>(n, nrhs, B.data() + offB[i], ldb, seed + 1000 + i);

    DeviceBuffer<T> dA(a.data.size()), dB(B.size());
    dA.upload(a.data);
    dB.upload(B);
    DeviceBuffer<int> dinfo(static_cast<size_t>(batch));
    REQUIRE(cudaMemset(dinfo.get(), 0x7f, batch * sizeof(int)) == cudaSuccess);
    if (layout == Layout::Strided) {
        if (how == Solve::Posv) {
            starfact::batched::device::posv<T>(n, nrhs, dA.get(), lda, a.stride, dB.get(), ldb, strideB, dinfo.get(), batch);
        } else if (is_posv) {
            forced_posv<T>(how, n, nrhs, dA.get(), a.stride, nullptr, lda, dB.get(), strideB, nullptr, ldb, batch, dinfo.get());
        } else {
            starfact::batched::device::potrf<T>(n, dA.get(), lda, a.stride, dinfo.get(), batch);
            starfact::batched::device::potrs<T>(n, nrhs, dA.get(), lda, a.stride, dB.get(), ldb, strideB, batch);
        }
    } else {
        const std::vector<T*> pa = member_pointers(a, dA.get());
        std::vector<T*> pb(static_cast<size_t>(batch));
        for (int64_t i = 0; i < batch; ++i) pb[i] = dB.get() + offB[i];
        DeviceBuffer<T*> dpa(pa.size()), dpb(pb.size());
        dpa.upload(pa);
        dpb.upload(pb);
        if (how == Solve::Posv) {
            starfact::batched::device::posv<T>(n, nrhs, dpa.get(), lda, dpb.get(), ldb, dinfo.get(), batch);
        } else if (is_posv) {
            forced_posv<T>(how, n, nrhs, nullptr, 0, dpa.get(), lda, nullptr, 0, dpb.get(), ldb, batch, dinfo.get());
        } else {
            starfact::batched::device::potrf<T>(n, dpa.get(), lda, dinfo.get(), batch);
            std::vector<const T*> pc(pa.begin(), pa.end());
            DeviceBuffer<const T*> dpc(pc.size());
            dpc.upload(pc);
            starfact::batched::device::potrs<T>(n, nrhs, dpc.get(), lda, dpb.get(), ldb, batch);
        }
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<T> X = dB.download();
    const std::vector<int> info = dinfo.download();
    check_factors(a, dA.download(), info);
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        const T* Bi = B.data() + offB[i];
        const T* Xi = X.data() + offB[i];
        if (a.expected_info[i] != 0) {
            CHECK(std::memcmp(Bi, Xi, sizeof(T) * static_cast<size_t>(strideB)) == 0);
            continue;
        }
        std::vector<T> L(a.data.begin() + a.offset[i], a.data.begin() + a.offset[i] + static_cast<int64_t>(lda) * n);
        REQUIRE(lapack_potrf(n, L.data(), lda) == 0);
        std::vector<T> ref(Bi, Bi + static_cast<int64_t>(ldb) * nrhs);
        REQUIRE(lapack_potrs(n, nrhs, L.data(), lda, ref.data(), ldb) == 0);
        double err = 0, scale = 0;
        for (int c = 0; c < nrhs; ++c)
            for (int r = 0; r < n; ++r) {
                const int64_t k = r + static_cast<int64_t>(c) * ldb;
                err = std::max(err, std::abs(static_cast<double>(Xi[k]) - ref[k]));
                scale = std::max(scale, std::abs(static_cast<double>(ref[k])));
            }
        INFO("max |X - X_lapack| / max |X_lapack| = " << err / scale);
        CHECK(err <= tolerance<T>(n) * std::max(scale, 1e-30));
        // padding rows and the gap after B_i are untouched
        for (int c = 0; c < nrhs; ++c)
            for (int r = n; r < ldb; ++r) CHECK(Xi[r + static_cast<int64_t>(c) * ldb] == T(-333));
        for (int64_t k = static_cast<int64_t>(ldb) * nrhs; k < strideB; ++k) CHECK(Xi[k] == T(-333));
    }
}

}  // namespace starfact::test::batched_chol_checks
