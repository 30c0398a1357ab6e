// The host backward error of a solve, the test matrices of the solve drivers, and their vendor rows
// (reference_solve.hpp).
#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "kernels/cpu_blas.hpp"
#include "support/driver_common.hpp"
#include "support/reference_solve.hpp"

namespace starfact::support {

#ifdef STARFACT_HAVE_CUDA
std::vector<double> conditioned_spd_gpu(int64_t n, double cond, const std::vector<double>& G);  // reference_solve.cu
std::vector<double> conditioned_general_gpu(int64_t n, double cond, const std::vector<double>& G1,
                                            const std::vector<double>& G2);
#endif

namespace {
/// An n x n matrix of uniform random entries in [-1, 1) (xorshift64* from `seed`).
std::vector<double> uniform_matrix(int64_t n, uint64_t seed) {
    std::vector<double> G(static_cast<size_t>(n * n));
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (double& v : G) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v = static_cast<double>((x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-52 - 1.0;
    }
    return G;
}
/// G := the orthogonal factor of its QR (LAPACK).
void orthogonalize(int64_t n, std::vector<double>& G) {
    std::vector<double> tau(static_cast<size_t>(std::max<int64_t>(n, 1)));
    const int in = static_cast<int>(n);
    detail::cpu::geqrf<double>(in, in, G.data(), in, tau.data());
    detail::cpu::orgqr<double>(in, in, in, G.data(), in, tau.data());
}
}  // namespace

std::vector<double> conditioned_general(int64_t n, double cond, uint64_t seed, bool gpu) {
    std::vector<double> U = uniform_matrix(n, seed), V = uniform_matrix(n, seed + 0x5bd1e995ull);
#ifdef STARFACT_HAVE_CUDA
    if (gpu) return conditioned_general_gpu(n, cond, U, V);
#else
    (void)gpu;
#endif
    orthogonalize(n, U);
    orthogonalize(n, V);
    const int in = static_cast<int>(n);
    std::vector<double> W(U.size()), A(U.size());
    for (int64_t k = 0; k < n; ++k) {
        const double s = n > 1 ? std::pow(cond, -static_cast<double>(k) / static_cast<double>(n - 1)) : 1.0;
        for (int64_t i = 0; i < n; ++i) W[static_cast<size_t>(i + k * n)] = U[static_cast<size_t>(i + k * n)] * s;
    }
    detail::cpu::gemm<double>(detail::Op::NoTrans, detail::Op::Trans, in, in, in, 1.0, W.data(), in, V.data(), in, 0.0,
                              A.data(), in);
    return A;
}

std::vector<double> conditioned_spd(int64_t n, double cond, uint64_t seed, bool gpu) {
    std::vector<double> G = uniform_matrix(n, seed);
#ifdef STARFACT_HAVE_CUDA
    if (gpu) return conditioned_spd_gpu(n, cond, G);
#else
    (void)gpu;
#endif
    orthogonalize(n, G);
    const int in = static_cast<int>(n);
    std::vector<double> W(G.size()), A(G.size());
    for (int64_t k = 0; k < n; ++k) {
        const double s = n > 1 ? std::pow(cond, -static_cast<double>(k) / static_cast<double>(n - 1)) : 1.0;
        for (int64_t i = 0; i < n; ++i) W[static_cast<size_t>(i + k * n)] = G[static_cast<size_t>(i + k * n)] * s;
    }
    detail::cpu::gemm<double>(detail::Op::NoTrans, detail::Op::Trans, in, in, in, 1.0, W.data(), in, G.data(), in, 0.0,
                              A.data(), in);
    return A;
}

double host_backward_error(int64_t n, int64_t nrhs, const double* A, const double* X, const double* B) {
    double anorm = 0;
    for (int64_t i = 0; i < n; ++i) {
        double s = 0;
        for (int64_t j = 0; j < n; ++j) s += std::fabs(A[i + j * n]);
        anorm = std::max(anorm, s);
    }
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        std::vector<double> r(B + c * n, B + (c + 1) * n);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] -= A[i + j * n] * X[j + c * n];
        double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < n; ++i) {
            rn = std::max(rn, std::fabs(r[static_cast<size_t>(i)]));
            xn = std::max(xn, std::fabs(X[i + c * n]));
            bn = std::max(bn, std::fabs(B[i + c * n]));
        }
        const double den = anorm * xn + bn;
        worst = std::max(worst, den > 0 ? rn / den : rn);
    }
    return worst;
}

void report_vendor_solves(const Table& table, const std::vector<VendorBaseline>& baselines, double ours,
                          std::string& summary) {
    for (const VendorBaseline& base : baselines) {
        VendorSolve v;
        try {
            v = base.run();
        } catch (const std::exception& e) {
            table.note("vendor " + base.name + ": not applicable here (" + e.what() + ")");
            continue;
        }
        const double t = median(v.seconds);
        table.note("vendor " + v.name + ": median " + fmt("%.4f", t) + " s, info " + std::to_string(v.info) +
                   ", iterations " + std::to_string(v.iterations) + ", backward error " +
                   (v.backward_error >= 0 ? fmt("%.2e", v.backward_error) : std::string("-")) +
                   ", ratio vendor/starfact = " + fmt("%.3f", t / ours));
        summary += "; " + v.name + " median " + fmt("%.4f", t) + " s, ratio " + fmt("%.3f", t / ours);
    }
}

}  // namespace starfact::support
