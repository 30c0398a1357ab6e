// The tile QR's own CUDA kernels (kernels/qr/qr_kernels.hpp: the copies of triangles and of unit-lower reflector
// blocks, the UT transform's triangle and its fix for tau = 0, the identity pattern, the exactly-zero diagonal of R;
// the Cholesky QR's, kernels/qr/cholqr_kernels.hpp and cholqr_trmm.hpp)
// called directly on small device arrays, without a StarPU runtime, against their element-wise contracts (a binary of
// their own, so that compute-sanitizer's memcheck and racecheck run them in seconds: tools/device.sh run sanitize).
// The codelets that launch them (codelets/qr_tile.cpp, codelets/qr_solve.cpp) serve every QR path: from the left,
// from the right and on wide matrices; the rest of their work is cuBLAS's and cuSOLVER's.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/qr/cholqr_kernels.hpp"
#include "kernels/qr/cholqr_trmm.hpp"
#include "kernels/qr/qr_kernels.hpp"
#include "tests/seeds.hpp"

using namespace starfact;
namespace gpu = starfact::detail::gpu;
using test::fresh_seed;

namespace {

constexpr double kMarker = -777;  // what the kernels must not write

/// A device copy of a host array, read back by fetch(); freed at the end.
template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(const std::vector<T>& host) : count_(host.size()) {
        REQUIRE(cudaMalloc(&d_, sizeof(T) * std::max<size_t>(count_, 1)) == cudaSuccess);
        REQUIRE(cudaMemcpy(d_, host.data(), sizeof(T) * count_, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    ~DeviceArray() { cudaFree(d_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* get() { return d_; }
    std::vector<T> fetch() const {
        std::vector<T> h(count_);
        REQUIRE(cudaMemcpy(h.data(), d_, sizeof(T) * count_, cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }

private:
    size_t count_;
    T* d_ = nullptr;
};

/// A stream of the test's own (the codelets launch on their workers' streams, never the default one).
class TestStream {
public:
    TestStream() { REQUIRE(cudaStreamCreate(&s_) == cudaSuccess); }
    ~TestStream() { cudaStreamDestroy(s_); }
    TestStream(const TestStream&) = delete;
    TestStream& operator=(const TestStream&) = delete;
    cudaStream_t get() const { return s_; }
    /// Waits for the launches and fails on any launch or execution error.
    void finish() const {
        REQUIRE(cudaGetLastError() == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(s_) == cudaSuccess);
    }

private:
    cudaStream_t s_ = nullptr;
};

/// ld x n entries uniform in [-1, 1] (none exactly zero, none the marker).
template <typename T>
std::vector<T> random_array(int64_t ld, int64_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.125, 1.0);
    std::vector<T> A(static_cast<size_t>(ld * std::max<int64_t>(n, 1)));
    for (T& v : A) v = static_cast<T>(rng() % 2 ? u(rng) : -u(rng));
    return A;
}

struct Shape {
    int m, n;
};
// Rows beyond one block of threads (128), columns beyond the grid (4096 blocks), and the degenerate shapes.
const Shape kShapes[] = {{1, 1}, {37, 20}, {20, 37}, {130, 129}, {3, 4100}, {0, 5}, {5, 0}};

}  // namespace

TEMPLATE_TEST_CASE("QR kernels: copies of upper trapezoids, the rest kept or zeroed", "[gpu][qr][sanitize]", float,
                   double) {
    using T = TestType;
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    for (const Shape s : kShapes)
        for (gpu::Below below : {gpu::Below::Keep, gpu::Below::Zero}) {
            const bool zero = below == gpu::Below::Zero;
            INFO("m=" << s.m << " n=" << s.n << " below=" << (zero ? "zero" : "keep"));
            const int lds = s.m + 3, ldd = s.m + 5;
            const std::vector<T> src = random_array<T>(lds, s.n, rng);
            std::vector<T> dst(static_cast<size_t>(ldd) * std::max(s.n, 1), T(kMarker));
            DeviceArray<T> d_src(src), d_dst(dst);
            gpu::launch_copy_upper(d_src.get(), lds, d_dst.get(), ldd, s.m, s.n, below, stream.get());
            stream.finish();
            const std::vector<T> out = d_dst.fetch();
            int64_t wrong = 0;
            for (int j = 0; j < s.n; ++j)
                for (int i = 0; i < ldd; ++i) {
                    const T want = i >= s.m ? T(kMarker) : i <= j ? src[i + size_t(j) * lds] : zero ? T(0) : T(kMarker);
                    wrong += out[i + size_t(j) * ldd] != want;
                }
            CHECK(wrong == 0);
        }
}

TEMPLATE_TEST_CASE("QR kernels: unit lower trapezoid of the reflectors", "[gpu][qr][sanitize]", float, double) {
    using T = TestType;
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    for (const Shape s : kShapes) {
        const int m = s.m, k = m > 0 ? std::min(m, s.n) : s.n;  // reflectors: k <= m (the empty tile aside)
        INFO("m=" << m << " k=" << k);
        const int lds = m + 2, ldd = m + 4;
        const std::vector<T> src = random_array<T>(lds, k, rng);
        std::vector<T> dst(static_cast<size_t>(ldd) * std::max(k, 1), T(kMarker));
        DeviceArray<T> d_src(src), d_dst(dst);
        gpu::launch_copy_unit_lower(d_src.get(), lds, d_dst.get(), ldd, m, k, stream.get());
        stream.finish();
        const std::vector<T> out = d_dst.fetch();
        int64_t wrong = 0;
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < ldd; ++i) {
                const T want = i >= m ? T(kMarker) : i > j ? src[i + size_t(j) * lds] : i == j ? T(1) : T(0);
                wrong += out[i + size_t(j) * ldd] != want;
            }
        CHECK(wrong == 0);
    }
}

TEMPLATE_TEST_CASE("QR kernels: the UT transform's triangle and the zero rows of T where tau = 0",
                   "[gpu][qr][sanitize]", float, double) {
    using T = TestType;
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    for (int k : {1, 2, 37, 130, 300}) {
        INFO("k=" << k);
        const int ldw = k + 3, ldt = k + 2;
        const std::vector<T> W = random_array<T>(ldw, k, rng);
        std::vector<T> tau = random_array<T>(k, 1, rng);
        for (int i = 0; i < k; i += 3) tau[i] = T(0);  // H_i = I: reflectors that cuSOLVER's geqrf leaves as they are
        std::vector<T> Tm(static_cast<size_t>(ldt) * k, T(kMarker));
        DeviceArray<T> d_w(W), d_tau(tau), d_t(Tm);
        gpu::launch_qr_ut_triangle(d_w.get(), ldw, d_tau.get(), k, d_t.get(), ldt, stream.get());
        stream.finish();
        const std::vector<T> w = d_w.fetch(), t = d_t.fetch();
        int64_t wrong_w = 0, wrong_t = 0;
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < ldw; ++i) {
                const T in = W[i + size_t(j) * ldw];
                T want = in;  // rows beyond k untouched
                if (i < k) {
                    if (i == j) want = tau[i] == T(0) ? T(1) : T(1) / tau[i];
                    else if (i > j || tau[i] == T(0) || tau[j] == T(0)) want = T(0);
                }
                wrong_w += w[i + size_t(j) * ldw] != want;
            }
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < ldt; ++i)
                wrong_t += t[i + size_t(j) * ldt] != (i >= k ? T(kMarker) : i == j ? T(1) : T(0));
        CHECK(wrong_w == 0);
        CHECK(wrong_t == 0);
        // T := W^-1 is cuBLAS's trsm; then the diagonal of the identity reflectors goes to zero, nothing else moves.
        const std::vector<T> before = random_array<T>(ldt, k, rng);
        DeviceArray<T> d_fix(before);
        gpu::launch_qr_fix_identity(d_fix.get(), ldt, d_tau.get(), k, stream.get());
        stream.finish();
        const std::vector<T> fixed = d_fix.fetch();
        int64_t wrong_fix = 0;
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < ldt; ++i) {
                const T want = i == j && tau[i] == T(0) ? T(0) : before[i + size_t(j) * ldt];
                wrong_fix += fixed[i + size_t(j) * ldt] != want;
            }
        CHECK(wrong_fix == 0);
    }
}

TEMPLATE_TEST_CASE("QR kernels: the identity pattern of a tile at any offset", "[gpu][qr][sanitize]", float, double) {
    using T = TestType;
    TestStream stream;
    for (const Shape s : kShapes)
        for (int64_t offset : {int64_t(0), int64_t(-7), int64_t(5), int64_t(-100000), int64_t(1) << 40}) {
            INFO("m=" << s.m << " n=" << s.n << " offset=" << offset);
            const int ld = s.m + 3;
            std::vector<T> A(static_cast<size_t>(ld) * std::max(s.n, 1), T(kMarker));
            DeviceArray<T> d_a(A);
            gpu::launch_qr_laset(d_a.get(), ld, s.m, s.n, offset, stream.get());
            stream.finish();
            const std::vector<T> out = d_a.fetch();
            int64_t wrong = 0;
            for (int j = 0; j < s.n; ++j)
                for (int i = 0; i < ld; ++i) {
                    const T want = i >= s.m ? T(kMarker) : i + offset == j ? T(1) : T(0);
                    wrong += out[i + size_t(j) * ld] != want;
                }
            CHECK(wrong == 0);
        }
}

TEMPLATE_TEST_CASE("QR kernels: the first exactly zero diagonal entry of R, LAPACK's info", "[gpu][qr][sanitize]",
                   float, double) {
    using T = TestType;
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    struct Case {
        int k;
        std::vector<int> zeros;  // diagonal entries set to zero
        int info_before;
        int64_t offset;
        int expected;
    };
    // One block of 256 threads: k beyond it, several zeros (the first wins), an info already set (kept), none.
    for (const Case& c : {Case{1, {0}, 0, 0, 1}, Case{1, {}, 0, 0, 0}, Case{40, {39}, 0, 128, 168},
                          Case{600, {599, 300, 512}, 0, 1000, 1301}, Case{600, {2}, 7, 0, 7}, Case{600, {}, 0, 64, 0},
                          Case{257, {256}, 0, 0, 257}}) {
        INFO("k=" << c.k << " zeros=" << c.zeros.size() << " info before=" << c.info_before << " offset=" << c.offset);
        const int ld = c.k + 5;
        std::vector<T> R = random_array<T>(ld, c.k + 1, rng);  // k x (k + 1): a wide tile's diagonal is k long
        for (int i : c.zeros) R[i + size_t(i) * ld] = T(0);
        DeviceArray<T> d_r(R);
        DeviceArray<int> d_info(std::vector<int>{c.info_before});
        gpu::launch_qr_diag_info(d_r.get(), ld, c.k, d_info.get(), c.offset, stream.get());
        stream.finish();
        CHECK(d_info.fetch()[0] == c.expected);
        CHECK(d_r.fetch() == R);  // read only
    }
}

TEMPLATE_TEST_CASE("Cholesky QR kernels: a Gram matrix's trace and its distance from the identity",
                   "[gpu][qr][sanitize]", float, double) {
    // The distance: ||G - I||_F^2 and the largest column sum of |G - I| (one block per column, atomics across
    // columns), read only; a NaN anywhere makes both NaN-or-larger than every finite value.
    using T = TestType;
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    for (const int n : {1, 37, 300}) {
        INFO("n=" << n);
        const int ld = n + 3;
        std::vector<T> G = random_array<T>(ld, n, rng);
        double trace = 0, squares = 0, largest = 0;
        for (int j = 0; j < n; ++j) {
            double column = 0;
            for (int i = 0; i < n; ++i) {
                const double d = double(G[i + size_t(j) * ld]) - (i == j ? 1.0 : 0.0);
                squares += d * d;
                column += std::abs(d);
            }
            largest = std::max(largest, column);
            trace += double(G[j + size_t(j) * ld]);
        }
        DeviceArray<T> d_g(G);
        DeviceArray<double> d_out(std::vector<double>{-1.0, -1.0});
        gpu::launch_cholqr_trace(d_g.get(), ld, n, d_out.get(), stream.get());
        stream.finish();
        CHECK(d_out.fetch()[0] == Approx(trace).epsilon(1e-12));
        gpu::launch_cholqr_identity_distance(d_g.get(), ld, n, d_out.get(), stream.get());
        stream.finish();
        const std::vector<double> out = d_out.fetch();
        CHECK(out[0] == Approx(squares).epsilon(1e-12));
        CHECK(out[1] == Approx(largest).epsilon(1e-12));
        CHECK(d_g.fetch() == G);
        G[n / 2 + size_t(n / 3) * ld] = std::numeric_limits<T>::quiet_NaN();
        DeviceArray<T> d_nan(G);
        gpu::launch_cholqr_identity_distance(d_nan.get(), ld, n, d_out.get(), stream.get());
        stream.finish();
        const std::vector<double> nan = d_out.fetch();
        CHECK(std::isnan(nan[0]));
        CHECK(!(nan[1] <= largest));
    }
}

TEST_CASE("Cholesky QR kernels: X := X triu(V) in place, V's lower triangle and X's padding rows untouched",
          "[gpu][qr][sanitize]") {
    // Rows of several thread blocks and one short block (kCholqrTrmmRows = 128), columns past one block column (64)
    // and not a multiple of the k-tile; V's strictly lower entries are garbage the kernel must not read as values.
    std::mt19937_64 rng(fresh_seed());
    TestStream stream;
    for (const Shape s : {Shape{1, 1}, Shape{5, 3}, Shape{130, 1}, Shape{300, 77}, Shape{257, 129}, Shape{129, 200},
                          Shape{0, 5}, Shape{5, 0}}) {
        INFO("m=" << s.m << " n=" << s.n);
        const int ldx = s.m + 3, ldv = s.n + 2;
        std::vector<double> X = random_array<double>(ldx, s.n, rng), V = random_array<double>(ldv, s.n, rng);
        for (int j = 0; j < s.n; ++j)
            for (int i = s.m; i < ldx; ++i) X[i + size_t(j) * ldx] = kMarker;
        std::vector<double> want = X;
        for (int j = 0; j < s.n; ++j)
            for (int i = 0; i < s.m; ++i) {
                double sum = 0;
                for (int k = 0; k <= j; ++k) sum += X[i + size_t(k) * ldx] * V[k + size_t(j) * ldv];
                want[i + size_t(j) * ldx] = sum;
            }
        DeviceArray<double> d_x(X), d_v(V);
        gpu::launch_cholqr_trmm_inplace(d_x.get(), ldx, s.m, s.n, d_v.get(), ldv, stream.get());
        stream.finish();
        const std::vector<double> got = d_x.fetch();
        double worst = 0;
        for (size_t e = 0; e < got.size(); ++e)
            worst = std::max(worst, std::abs(got[e] - want[e]) / (1.0 + std::abs(want[e])));
        CHECK(worst < 1e-13 * std::max(s.n, 1));
        CHECK(d_v.fetch() == V);
    }
}
