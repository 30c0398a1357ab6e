// GPU tests [batched]: the batched Cholesky kernels (starfact::batched::device) against LAPACKE on
// the host, every order 1..128, float and double, strided and pointer-array layouts, per-member info
// for non-SPD / NaN members while the others stay correct, untouched upper triangles and padding,
// batches beyond 65,535, and the StarPU chunk path on the GPU. [sanitize] cases are small.
// Skipped (exit 77) without a GPU.
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

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using namespace starfact::test::batched;

namespace {

enum class Layout { Strided, Array };
const char* name(Layout l) { return l == Layout::Strided ? "strided" : "array"; }

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

using batched::gpu::Family;
using batched::gpu::Variant;

/// Which potrf kernel a test runs: the library's tuned choice (the public device API) or a kernel forced
/// through the internal entry point (gpu::launch_potrf_variant): the left-looking one or a resident
/// variant the library compiles.
struct Kernel {
    bool library = true;
    Variant v;
};
const Kernel kLibrary{true, {}}, kLeft{false, {}};
std::ostream& operator<<(std::ostream& os, const Kernel& k) {
    if (k.library) return os << "library";
    if (k.v.family == Family::LeftLooking) return os << "left-looking";
    return os << k.v.nt << "/" << k.v.occ << "/" << batched::gpu::inner_block(k.v.family)
              << batched::gpu::family_tag(k.v.family);
}

/// Every resident variant the library compiles (kernels/batched_chol/tuning.hpp, kLibraryVariants), forced.
/// The other candidates of the tuning space are not in the library: the tuning sweep (tools/tune/batched_chol/)
/// checks their results as it times them.
std::vector<Kernel> library_variants() {
    std::vector<Kernel> v;
    for (const Variant& c : batched::gpu::kLibraryVariants) v.push_back(Kernel{false, c});
    return v;
}
const std::vector<Kernel> kResident = library_variants();

/// Kernel arguments for a batch of A (strided: base + i * stride; array: ptrs), order n, with info.
template <typename T>
batched::gpu::Args<T> factor_args(int n, T* base, int64_t stride, T* const* ptrs, int lda, int64_t batch, int* info) {
    batched::gpu::Args<T> a;
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
    const batched::gpu::Args<T> a = factor_args(n, base, stride, ptrs, lda, batch, info);
    REQUIRE(batched::gpu::launch_potrf_variant<T>(a, k.v));
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
        if (kernel.library) batched::device::potrf<T>(n, dA.get(), lda, b.stride, dinfo.get(), batch);
        else forced_potrf<T>(kernel, n, dA.get(), b.stride, nullptr, lda, batch, dinfo.get());
    } else {
        const std::vector<T*> hp = member_pointers(b, dA.get());
        DeviceBuffer<T*> dp(hp.size());
        dp.upload(hp);
        if (kernel.library) batched::device::potrf<T>(n, dp.get(), lda, dinfo.get(), batch);
        else forced_potrf<T>(kernel, n, nullptr, 0, dp.get(), lda, batch, dinfo.get());
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_factors(b, dA.download(), dinfo.download());
}

/// How check_solve solves: potrf then potrs (device API), posv (device API: the library's choice), or
/// posv forced onto the fused kernel or the two passes (potrf, then potrs skipping failed members).
enum class Solve { PotrfPotrs, Posv, PosvFused, PosvTwoPass };
const char* name(Solve s) {
    return s == Solve::PotrfPotrs ? "potrf+potrs" : s == Solve::Posv ? "posv" : s == Solve::PosvFused ? "posv(fused)" : "posv(two-pass)";
}

template <typename T>
void forced_posv(Solve how, int n, int nrhs, T* a, int64_t sa, T* const* pa, int lda, T* b, int64_t sb, T* const* pb,
                 int ldb, int64_t batch, int* info) {
    batched::gpu::Args<T> g = factor_args(n, a, sa, pa, lda, batch, info);
    g.nrhs = nrhs;
    g.B.base = b;
    g.B.stride = sb;
    g.B.ptrs = pb;
    g.ldb = ldb;
    REQUIRE((how == Solve::PosvFused ? batched::gpu::launch_posv_fused<T>(g) : batched::gpu::launch_posv_two_pass<T>(g)));
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
            batched::device::posv<T>(n, nrhs, dA.get(), lda, a.stride, dB.get(), ldb, strideB, dinfo.get(), batch);
        } else if (is_posv) {
            forced_posv<T>(how, n, nrhs, dA.get(), a.stride, nullptr, lda, dB.get(), strideB, nullptr, ldb, batch, dinfo.get());
        } else {
            batched::device::potrf<T>(n, dA.get(), lda, a.stride, dinfo.get(), batch);
            batched::device::potrs<T>(n, nrhs, dA.get(), lda, a.stride, dB.get(), ldb, strideB, batch);
        }
    } else {
        const std::vector<T*> pa = member_pointers(a, dA.get());
        std::vector<T*> pb(static_cast<size_t>(batch));
        for (int64_t i = 0; i < batch; ++i) pb[i] = dB.get() + offB[i];
        DeviceBuffer<T*> dpa(pa.size()), dpb(pb.size());
        dpa.upload(pa);
        dpb.upload(pb);
        if (how == Solve::Posv) {
            batched::device::posv<T>(n, nrhs, dpa.get(), lda, dpb.get(), ldb, dinfo.get(), batch);
        } else if (is_posv) {
            forced_posv<T>(how, n, nrhs, nullptr, 0, dpa.get(), lda, nullptr, 0, dpb.get(), ldb, batch, dinfo.get());
        } else {
            batched::device::potrf<T>(n, dpa.get(), lda, dinfo.get(), batch);
            std::vector<const T*> pc(pa.begin(), pa.end());
            DeviceBuffer<const T*> dpc(pc.size());
            dpc.upload(pc);
            batched::device::potrs<T>(n, nrhs, dpc.get(), lda, dpb.get(), ldb, batch);
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

}  // namespace

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
    std::vector<double> work(static_cast<size_t>(64) * n);  // >= the blocked QR's optimum (n * block size)
    REQUIRE(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data(), work.data(), 64 * n) == 0);
    REQUIRE(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data(), work.data(), 64 * n) == 0);
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
