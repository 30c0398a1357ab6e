// The mixed-precision solve's kernels (kernels/mixed/) against their CPU forms or plain loops, on the GPU without a
// StarPU runtime (a binary of their own, so that compute-sanitizer's memcheck and racecheck run them in seconds:
// tools/device.sh run sanitize).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "kernels/mixed/equilibrate.hpp"
#include "kernels/mixed/sym_product.hpp"
#include "kernels/trsm_recursive.hpp"
#include "tests/seeds.hpp"

using namespace starfact;
using test::fresh_seed;

TEST_CASE("GPU conversion of A with its sums of |A| equals the CPU form", "[gpu][mixed][sanitize]") {
    // to_low_sums: one pass with the sums accumulated atomically (their last bits may differ from the CPU's);
    // diagonal tiles count the stored lower triangle into the row sums of the symmetric tile.
    for (bool diagonal : {false, true})
        for (int m : {1, 37, 300, 2048}) {
            const int n = diagonal ? m : m + 13, ld = m + 3;
            INFO("diagonal=" << diagonal << " m=" << m << " n=" << n);
            std::mt19937_64 rng(fresh_seed());
            std::uniform_real_distribution<double> u(-2, 2);
            std::vector<double> X(static_cast<size_t>(ld) * n), dr(m), dc(n), s(m, 0.5), t(n, 0.25);
            for (double& v : X) v = u(rng);
            for (double& v : dr) v = 0.5 + std::fabs(u(rng));
            for (double& v : dc) v = 0.5 + std::fabs(u(rng));
            std::vector<float> F(X.size(), 0.0f), Fg = F;
            std::vector<double> sg = s, tg = t;
            const double shift = diagonal ? 0.125 : 0.0;
            detail::cpu::to_low_sums(m, n, X.data(), ld, dr.data(), dc.data(), diagonal, shift, F.data(), ld, s.data(),
                                     diagonal ? nullptr : t.data());
            double *dX, *ddr, *ddc, *ds, *dt;
            float* dF;
            REQUIRE(cudaMalloc(&dX, sizeof(double) * X.size()) == cudaSuccess);
            REQUIRE(cudaMalloc(&ddr, sizeof(double) * m) == cudaSuccess);
            REQUIRE(cudaMalloc(&ddc, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMalloc(&ds, sizeof(double) * m) == cudaSuccess);
            REQUIRE(cudaMalloc(&dt, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMalloc(&dF, sizeof(float) * F.size()) == cudaSuccess);
            cudaMemcpy(dX, X.data(), sizeof(double) * X.size(), cudaMemcpyHostToDevice);
            cudaMemcpy(ddr, dr.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
            cudaMemcpy(ddc, dc.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
            cudaMemcpy(ds, sg.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
            cudaMemcpy(dt, tg.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
            cudaMemcpy(dF, Fg.data(), sizeof(float) * F.size(), cudaMemcpyHostToDevice);
            REQUIRE(detail::gpu::to_low_sums(m, n, dX, ld, ddr, ddc, diagonal, shift, dF, ld, ds,
                                             diagonal ? nullptr : dt, nullptr) == cudaSuccess);
            REQUIRE(cudaMemcpy(Fg.data(), dF, sizeof(float) * F.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            cudaMemcpy(sg.data(), ds, sizeof(double) * m, cudaMemcpyDeviceToHost);
            cudaMemcpy(tg.data(), dt, sizeof(double) * n, cudaMemcpyDeviceToHost);
            for (double* p : {dX, ddr, ddc, ds, dt}) cudaFree(p);
            cudaFree(dF);
            double es = 0, et = 0;
            int64_t mismatches = 0;
            for (int i = 0; i < m; ++i) es = std::fmax(es, std::fabs(s[i] - sg[i]) / s[i]);
            for (int j = 0; j < n; ++j) et = std::fmax(et, std::fabs(t[j] - tg[j]) / t[j]);
            for (int j = 0; j < n; ++j)
                for (int i = diagonal ? j : 0; i < m; ++i)
                    mismatches += F[i + static_cast<size_t>(j) * ld] != Fg[i + static_cast<size_t>(j) * ld];
            CHECK(es < 1e-13);
            CHECK(et < 1e-13);
            CHECK(mismatches == 0);
        }
}

TEST_CASE("GPU sum of squares of a float tile equals the CPU form", "[gpu][mixed][sanitize]") {
    // sum_squares (the per-tile arithmetic's norms): atomically accumulated, so equal to a relative 1e-12; a diagonal
    // tile reads its lower triangle only (the strict upper part holds NaN here) and counts the strict part twice.
    for (bool diagonal : {false, true})
        for (int m : {1, 45, 1000}) {
            const int n = diagonal ? m : m + 7, ld = m + 5;
            INFO("diagonal=" << diagonal << " m=" << m);
            std::mt19937_64 rng(fresh_seed());
            std::uniform_real_distribution<float> u(-3, 3);
            std::vector<float> F(static_cast<size_t>(ld) * n);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < ld; ++i)
                    F[i + static_cast<size_t>(j) * ld] =
                        diagonal && i < j ? std::numeric_limits<float>::quiet_NaN() : u(rng);
            double cpu = 0, gpu = -1;
            detail::cpu::sum_squares(m, n, F.data(), ld, diagonal, &cpu);
            float* dF;
            double* dout;
            REQUIRE(cudaMalloc(&dF, sizeof(float) * F.size()) == cudaSuccess);
            REQUIRE(cudaMalloc(&dout, sizeof(double)) == cudaSuccess);
            cudaMemcpy(dF, F.data(), sizeof(float) * F.size(), cudaMemcpyHostToDevice);
            REQUIRE(detail::gpu::sum_squares(m, n, dF, ld, diagonal, dout, nullptr) == cudaSuccess);
            REQUIRE(cudaMemcpy(&gpu, dout, sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
            cudaFree(dF);
            cudaFree(dout);
            double expected = 0;
            for (int j = 0; j < n; ++j)
                for (int i = diagonal ? j : 0; i < m; ++i) {
                    const double v = F[i + static_cast<size_t>(j) * ld];
                    expected += (diagonal && i > j ? 2.0 : 1.0) * v * v;
                }
            CHECK(std::fabs(cpu - expected) <= 1e-12 * expected);
            CHECK(std::fabs(gpu - expected) <= 1e-12 * expected);
        }
}

TEST_CASE("GPU column-scaled conversions of right-hand sides equal the CPU forms", "[gpu][mixed][sanitize]") {
    // column_max + power_of_two + to_low_scaled + add_low_scaled on columns of every magnitude, a zero column and a
    // column holding NaN (its scale must be NaN on both).
    const int m = 777, n = 5, ld = m + 2;
    std::mt19937_64 rng(fresh_seed());
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> X(static_cast<size_t>(ld) * n), d(m), Y(X.size());
    const double magnitude[n] = {1e-300, 1e-20, 1.0, 1e200, 1.0};
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) X[i + static_cast<size_t>(j) * ld] = j == 2 ? 0.0 : magnitude[j] * u(rng);
    X[100 + static_cast<size_t>(4) * ld] = std::numeric_limits<double>::quiet_NaN();
    for (double& v : d) v = 0.5 + std::fabs(u(rng));
    for (double& v : Y) v = u(rng);
    std::vector<double> s(n, 0.0), Yc = Y;
    std::vector<float> F(X.size(), 0.0f);
    detail::cpu::column_max(m, n, X.data(), ld, d.data(), s.data());
    detail::cpu::power_of_two(n, s.data());
    detail::cpu::to_low_scaled(m, n, X.data(), ld, d.data(), s.data(), F.data(), ld);
    detail::cpu::add_low_scaled(m, n, F.data(), ld, d.data(), s.data(), Yc.data(), ld);
    double *dX, *dd, *ds, *dY;
    float* dF;
    REQUIRE(cudaMalloc(&dX, sizeof(double) * X.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dY, sizeof(double) * Y.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dd, sizeof(double) * m) == cudaSuccess);
    REQUIRE(cudaMalloc(&ds, sizeof(double) * n) == cudaSuccess);
    REQUIRE(cudaMalloc(&dF, sizeof(float) * F.size()) == cudaSuccess);
    cudaMemcpy(dX, X.data(), sizeof(double) * X.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dY, Y.data(), sizeof(double) * Y.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dd, d.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
    REQUIRE(cudaMemset(ds, 0, sizeof(double) * n) == cudaSuccess);
    REQUIRE(detail::gpu::column_max(m, n, dX, ld, dd, ds, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::power_of_two(n, ds, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::to_low_scaled(m, n, dX, ld, dd, ds, dF, ld, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::add_low_scaled(m, n, dF, ld, dd, ds, dY, ld, nullptr) == cudaSuccess);
    std::vector<double> sg(n), Yg(Y.size());
    std::vector<float> Fg(F.size());
    REQUIRE(cudaMemcpy(sg.data(), ds, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaMemcpy(Fg.data(), dF, sizeof(float) * F.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(Yg.data(), dY, sizeof(double) * Y.size(), cudaMemcpyDeviceToHost);
    for (double* p : {dX, dd, ds, dY}) cudaFree(p);
    cudaFree(dF);
    for (int j = 0; j < 4; ++j) {
        INFO("column " << j);
        CHECK(sg[j] == s[j]);
        int exponent = 0;
        CHECK(std::frexp(s[j], &exponent) == 0.5);  // a power of two
        double fmax = 0;
        for (int i = 0; i < m; ++i) {
            const size_t e = i + static_cast<size_t>(j) * ld;
            CHECK(Fg[e] == F[e]);
            CHECK(Yg[e] == Yc[e]);
            fmax = std::fmax(fmax, std::fabs(F[e]));
        }
        CHECK(fmax <= 1.0);
        if (j != 2) CHECK(fmax > 0.25);  // the scale uses float's range: no flush to zero
    }
    CHECK(s[2] == 1.0);  // a zero column keeps its values
    CHECK(std::isnan(s[4]));
    CHECK(std::isnan(sg[4]));
}

TEST_CASE("GPU 3xTF32 gemm: float-level accuracy where one TF32 gemm is not", "[gpu][mixed][sanitize]") {
    // C := alpha op(A) op(B) + beta C against a double product on the host; errors relative to (|A| |B|)'s largest
    // entry. The split product (kernels/gemm_tf32x3.cu) must be within float's accumulation error and far below the
    // single TF32 gemm's (2^-11 inputs); the second case is the syrk form (B = A, op(B) = A^T: one split).
    cublasHandle_t h;
    REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
    struct Case {
        int m, n, k;
        bool syrk;
    };
    for (const Case& c : {Case{300, 200, 700, false}, Case{384, 384, 1000, true}, Case{1, 7, 3, false}}) {
        INFO("m=" << c.m << " n=" << c.n << " k=" << c.k << " syrk=" << c.syrk);
        std::mt19937_64 rng(fresh_seed());
        std::uniform_real_distribution<float> u(-1, 1);
        const int lda = c.m + 5, ldb = c.syrk ? lda : c.k + 2, ldc = c.m + 1;
        std::vector<float> A(static_cast<size_t>(lda) * c.k), B(static_cast<size_t>(ldb) * (c.syrk ? c.k : c.n)),
            C0(static_cast<size_t>(ldc) * c.n);
        for (float& v : A) v = u(rng);
        for (float& v : B) v = u(rng);
        for (float& v : C0) v = u(rng);
        const float alpha = -1.0f, beta = 0.5f;
        // op(B)(p, j): B(p, j) as stored (k x n), or A(j, p) for the syrk form
        auto opb = [&](int p, int j) { return c.syrk ? A[j + static_cast<size_t>(p) * lda] : B[p + static_cast<size_t>(j) * ldb]; };
        std::vector<double> ref(static_cast<size_t>(ldc) * c.n);
        double scale = 0;
        for (int j = 0; j < c.n; ++j)
            for (int i = 0; i < c.m; ++i) {
                double s = 0, a = 0;
                for (int p = 0; p < c.k; ++p) {
                    const double x = A[i + static_cast<size_t>(p) * lda], y = opb(p, j);
                    s += x * y;
                    a += std::fabs(x * y);
                }
                ref[i + static_cast<size_t>(j) * ldc] = alpha * s + beta * C0[i + static_cast<size_t>(j) * ldc];
                scale = std::max(scale, a + std::fabs(C0[i + static_cast<size_t>(j) * ldc]));
            }
        float *dA, *dB, *dC;
        REQUIRE(cudaMalloc(&dA, sizeof(float) * A.size()) == cudaSuccess);
        REQUIRE(cudaMalloc(&dB, sizeof(float) * B.size()) == cudaSuccess);
        REQUIRE(cudaMalloc(&dC, sizeof(float) * C0.size()) == cudaSuccess);
        cudaMemcpy(dA, A.data(), sizeof(float) * A.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B.data(), sizeof(float) * B.size(), cudaMemcpyHostToDevice);
        auto error = [&](int compute) {
            cudaMemcpy(dC, C0.data(), sizeof(float) * C0.size(), cudaMemcpyHostToDevice);
            const float* b = c.syrk ? dA : dB;
            const cublasStatus_t s =
                detail::gpu::gemm_fast(h, compute, detail::Op::NoTrans, c.syrk ? detail::Op::Trans : detail::Op::NoTrans,
                                       c.m, c.n, c.k, alpha, dA, lda, b, c.syrk ? lda : ldb, beta, dC, ldc);
            REQUIRE(s == CUBLAS_STATUS_SUCCESS);
            std::vector<float> C(C0.size());
            REQUIRE(cudaMemcpy(C.data(), dC, sizeof(float) * C.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            double e = 0;
            for (int j = 0; j < c.n; ++j)
                for (int i = 0; i < c.m; ++i)
                    e = std::max(e, std::fabs(C[i + static_cast<size_t>(j) * ldc] - ref[i + static_cast<size_t>(j) * ldc]));
            return e / scale;
        };
        const double split = error(4), tf32 = error(1);
        INFO("3xTF32 error " << split << ", TF32 error " << tf32);
        // float accumulation bounds the split product (the syrk case sums positive terms on its diagonal)
        CHECK(split < 16 * std::ldexp(1.0, -24) * std::sqrt(static_cast<double>(c.k)) + std::ldexp(1.0, -20));
        if (c.k > 100) CHECK(split < tf32 / 4);
        cudaFree(dA);
        cudaFree(dB);
        cudaFree(dC);
    }
    cublasDestroy(h);
}

TEST_CASE("GPU product with a symmetric matrix of lower tiles equals the full product", "[gpu][mixed][sanitize]") {
    // A symmetric n x n matrix stored by its lower tiles (nb-tiles, the last one partial), each in its own buffer
    // with a leading dimension above its rows; the diagonal tiles' strictly upper parts hold NaN, which must not
    // be read. y := y0 - A x against a plain double loop over the full matrix.
    // sizes past a block's 256 columns and 4096 rows (kernels/mixed/sym_product.cu) included
    for (int n : {1, 31, 333, 1000, 5000})
        for (int nb : {32, 300, 4500}) {
            if (n > 1000 && nb < 300) continue;
            INFO("n=" << n << " nb=" << nb);
            std::mt19937_64 rng(fresh_seed());
            std::uniform_real_distribution<double> u(-1, 1);
            std::vector<double> A(static_cast<size_t>(n) * n), x(n), y0(n);
            for (int j = 0; j < n; ++j)
                for (int i = j; i < n; ++i) A[i + static_cast<size_t>(j) * n] = A[j + static_cast<size_t>(i) * n] = u(rng);
            for (int i = 0; i < n; ++i) {
                x[i] = u(rng);
                y0[i] = u(rng);
            }
            const int mt = (n + nb - 1) / nb;
            auto rows = [&](int i) { return std::min(nb, n - i * nb); };
            double *dx, *dy;
            REQUIRE(cudaMalloc(&dx, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMalloc(&dy, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMemcpy(dx, x.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess);
            REQUIRE(cudaMemcpy(dy, y0.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess);
            std::vector<double*> buffers;
            std::vector<detail::gpu::SymTile> tiles;
            for (int k = 0; k < mt; ++k)
                for (int i = k; i < mt; ++i) {
                    const int m = rows(i), w = rows(k), ld = m + 5;
                    std::vector<double> t(static_cast<size_t>(ld) * w, std::numeric_limits<double>::quiet_NaN());
                    for (int c = 0; c < w; ++c)
                        for (int r = (i == k ? c : 0); r < m; ++r)
                            t[r + static_cast<size_t>(c) * ld] = A[(i * nb + r) + static_cast<size_t>(k * nb + c) * n];
                    double* d;
                    REQUIRE(cudaMalloc(&d, sizeof(double) * t.size()) == cudaSuccess);
                    REQUIRE(cudaMemcpy(d, t.data(), sizeof(double) * t.size(), cudaMemcpyHostToDevice) == cudaSuccess);
                    buffers.push_back(d);
                    tiles.push_back({d, dx + i * nb, dx + k * nb, dy + i * nb, dy + k * nb, ld, m, w, i == k ? 1 : 0});
                }
            REQUIRE(detail::gpu::symmetric_product(tiles, nullptr) == cudaSuccess);
            std::vector<double> y(n);
            REQUIRE(cudaMemcpy(y.data(), dy, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
            double worst = 0;
            for (int i = 0; i < n; ++i) {
                double e = y0[i], scale = std::fabs(y0[i]);
                for (int j = 0; j < n; ++j) {
                    e -= A[i + static_cast<size_t>(j) * n] * x[j];
                    scale += std::fabs(A[i + static_cast<size_t>(j) * n] * x[j]);
                }
                worst = std::max(worst, std::fabs(y[i] - e) / scale);
            }
            CHECK(worst < 4 * n * std::numeric_limits<double>::epsilon());
            for (double* d : buffers) cudaFree(d);
            cudaFree(dx);
            cudaFree(dy);
        }
}


TEST_CASE("GPU equilibration kernels equal their CPU forms", "[gpu][mixed][sanitize]") {
    // Row maxima of |X| accumulated into r (NaN wins), then the inverse powers of two of maxima (0, subnormal, huge,
    // NaN, Inf included): exactly the CPU forms' results.
    std::mt19937_64 rng(fresh_seed());
    std::uniform_real_distribution<double> u(-1, 1);
    const int m = 300, n = 130, ld = m + 3;
    std::vector<double> X(static_cast<size_t>(ld) * n);
    for (size_t i = 0; i < X.size(); ++i) X[i] = u(rng) * std::ldexp(1.0, static_cast<int>(i % 41) - 20);
    X[17 + 5 * static_cast<size_t>(ld)] = std::numeric_limits<double>::quiet_NaN();
    X[18 + 99 * static_cast<size_t>(ld)] = -std::numeric_limits<double>::infinity();
    std::vector<double> r0(static_cast<size_t>(m), 0.0);
    r0[3] = 1e300;  // a row maximum from an earlier tile
    std::vector<double> r = r0;
    detail::cpu::row_max(m, n, X.data(), ld, r.data());
    double *dX, *dr;
    REQUIRE(cudaMalloc(&dX, sizeof(double) * X.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dr, sizeof(double) * r.size()) == cudaSuccess);
    cudaMemcpy(dX, X.data(), sizeof(double) * X.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dr, r0.data(), sizeof(double) * r0.size(), cudaMemcpyHostToDevice);
    REQUIRE(detail::gpu::row_max(m, n, dX, ld, dr, nullptr) == cudaSuccess);
    std::vector<double> g(r.size());
    REQUIRE(cudaMemcpy(g.data(), dr, sizeof(double) * g.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int a = 0; a < m; ++a) {
        INFO("row " << a);
        if (std::isnan(r[static_cast<size_t>(a)])) CHECK(std::isnan(g[static_cast<size_t>(a)]));
        else CHECK(g[static_cast<size_t>(a)] == r[static_cast<size_t>(a)]);
    }
    CHECK(std::isnan(g[17]));
    CHECK(std::isinf(g[18]));
    std::vector<double> s = {0.0, 1.0, 0.75, 3.0, 1e-310, 1e300, 5e-324, std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(), 0.5, 1.0000001};
    std::vector<double> sc = s;
    detail::cpu::inverse_power_of_two(static_cast<int>(sc.size()), sc.data());
    double* ds;
    REQUIRE(cudaMalloc(&ds, sizeof(double) * s.size()) == cudaSuccess);
    cudaMemcpy(ds, s.data(), sizeof(double) * s.size(), cudaMemcpyHostToDevice);
    REQUIRE(detail::gpu::inverse_power_of_two(static_cast<int>(s.size()), ds, nullptr) == cudaSuccess);
    std::vector<double> sg(s.size());
    REQUIRE(cudaMemcpy(sg.data(), ds, sizeof(double) * sg.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (size_t i = 0; i < s.size(); ++i) {
        INFO("s = " << s[i] << ": cpu " << sc[i] << ", gpu " << sg[i]);
        if (std::isnan(sc[i])) CHECK(std::isnan(sg[i]));
        else CHECK(sg[i] == sc[i]);
        if (std::isfinite(s[i]) && s[i] > 1e-300 && s[i] < 1e300) {
            CHECK(s[i] * sc[i] <= 1.0);  // the scaled maximum in (1/2, 1]
            CHECK(s[i] * sc[i] > 0.5);
        }
    }
    CHECK(sc[0] == 1.0);
    cudaFree(dX);
    cudaFree(dr);
    cudaFree(ds);
}

TEST_CASE("GPU LU row-panel solve by recursive halving: float accuracy, TF32's with tensor-core gemms",
          "[gpu][mixed][sanitize]") {
    // X := L^-1 B, L unit lower (m x m, well conditioned), against forward substitution in double; m above the
    // recursion's base (odd, so that the halves are uneven), a few right-hand sides and a whole tile's width.
    cublasHandle_t h;
    REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
    for (const int n : {3, 256}) {
        const int m = 701, ldl = m + 2, ldb = m + 1;
        INFO("m=" << m << " n=" << n);
        std::mt19937_64 rng(fresh_seed());
        std::uniform_real_distribution<float> u(-1, 1);
        std::vector<float> L(static_cast<size_t>(ldl) * m, 0.0f), B(static_cast<size_t>(ldb) * n);
        for (int j = 0; j < m; ++j)
            for (int i = j; i < m; ++i) L[i + static_cast<size_t>(j) * ldl] = i == j ? 7.0f : u(rng) / 8;  // unit: 7 unused
        for (float& v : B) v = u(rng);
        std::vector<double> ref(B.begin(), B.end());
        double top = 0;
        for (int c = 0; c < n; ++c)
            for (int i = 0; i < m; ++i) {
                double v = ref[i + static_cast<size_t>(c) * ldb];
                for (int k = 0; k < i; ++k) v -= L[i + static_cast<size_t>(k) * ldl] * ref[k + static_cast<size_t>(c) * ldb];
                ref[i + static_cast<size_t>(c) * ldb] = v;
                top = std::max(top, std::fabs(v));
            }
        float *dL, *dB;
        REQUIRE(cudaMalloc(&dL, sizeof(float) * L.size()) == cudaSuccess);
        REQUIRE(cudaMalloc(&dB, sizeof(float) * B.size()) == cudaSuccess);
        cudaMemcpy(dL, L.data(), sizeof(float) * L.size(), cudaMemcpyHostToDevice);
        auto error = [&](int compute) {
            cudaMemcpy(dB, B.data(), sizeof(float) * B.size(), cudaMemcpyHostToDevice);
            REQUIRE(detail::gpu::trsm_left_lower_unit(h, compute, m, n, dL, ldl, dB, ldb) == CUBLAS_STATUS_SUCCESS);
            std::vector<float> X(B.size());
            REQUIRE(cudaMemcpy(X.data(), dB, sizeof(float) * X.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            double e = 0;
            for (int c = 0; c < n; ++c)
                for (int i = 0; i < m; ++i)
                    e = std::max(e, std::fabs(X[i + static_cast<size_t>(c) * ldb] - ref[i + static_cast<size_t>(c) * ldb]));
            for (int c = 0; c < n; ++c)  // the padding rows are left alone
                for (int i = m; i < ldb; ++i)
                    CHECK(X[i + static_cast<size_t>(c) * ldb] == B[i + static_cast<size_t>(c) * ldb]);
            return e / top;
        };
        const double single = error(0), tf32 = error(1);
        INFO("float error " << single << ", TF32 error " << tf32);
        CHECK(single < 64 * std::ldexp(1.0, -24) * std::sqrt(static_cast<double>(m)));
        CHECK(tf32 < 64 * std::ldexp(1.0, -11) * std::sqrt(static_cast<double>(m)));
        cudaFree(dL);
        cudaFree(dB);
    }
    cublasDestroy(h);
}
