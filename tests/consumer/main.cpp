// Out-of-tree consumer of the installed package: solves a random SPD system with starfact::posv and
// checks the scaled residual ||A X - B||_1 / (||A||_1 ||X||_1 n eps) < 60, computed here independently
// of the library. Exit status: 0 pass, 1 error (exception, info != 0), 2 residual too large.
//   starfact_consumer [--perturb]   --perturb: solves with a slightly changed B (the check must fail)
#include <starfact/starfact.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <vector>

#ifndef STARFACT_VERSION_MAJOR
#error "starfact/config.hpp is missing from the installed headers"
#endif

namespace {

/// max_j sum_i |M(i, j)| of an m x n column-major array.
double norm1(int64_t m, int64_t n, const double* M, int64_t ld) {
    double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(M[i + j * ld]);
        best = std::max(best, s);
    }
    return best;
}

int run(bool perturb) {
    const int64_t n = 200, nrhs = 3, lda = n + 3, ldb = n + 1;
    std::mt19937_64 gen(2024);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    // Symmetric, both triangles filled, diagonal shifted by n: SPD and well conditioned.
    std::vector<double> A(lda * n), B(ldb * nrhs);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) A[i + j * lda] = A[j + i * lda] = u(gen) + (i == j ? double(n) : 0.0);
    for (auto& b : B) b = u(gen);

    std::vector<double> L = A, X = B;
    if (perturb) X[n / 2] += 1e-6 * std::abs(X[n / 2]) + 1e-9;  // residual about 1e5

    starfact::Runtime rt;
    starfact::Tiling tiling;
    tiling.nb = 64;  // 4 x 4 tiles: a task graph, not one call
    const int info = starfact::posv(rt, n, nrhs, L.data(), lda, X.data(), ldb, starfact::Options{}, tiling);
    if (info != 0) {
        std::fprintf(stderr, "FAIL: posv info = %d\n", info);
        return 1;
    }

    // R = A X - B
    std::vector<double> R(n * nrhs);
    for (int64_t k = 0; k < nrhs; ++k)
        for (int64_t i = 0; i < n; ++i) {
            double s = -B[i + k * ldb];
            for (int64_t j = 0; j < n; ++j) s += A[i + j * lda] * X[j + k * ldb];
            R[i + k * n] = s;
        }
    const double eps = std::numeric_limits<double>::epsilon();
    const double res = norm1(n, nrhs, R.data(), n) / (norm1(n, n, A.data(), lda) * norm1(n, nrhs, X.data(), ldb) * n * eps);
    const bool ok = std::isfinite(res) && res < 60;
    std::printf("starfact %s (modules: %s%s), %s: posv n=%lld nrhs=%lld, scaled residual %.3g %s\n",
                STARFACT_VERSION_STRING, STARFACT_MODULES,
#ifdef STARFACT_HAVE_CUDA
                ", CUDA",
#else
                "",
#endif
                rt.describe().c_str(), static_cast<long long>(n), static_cast<long long>(nrhs), res,
                ok ? "< 60: passed" : ">= 60: FAILED");
    return ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    const bool perturb = argc > 1 && std::strcmp(argv[1], "--perturb") == 0;
    try {
        return run(perturb);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAIL: %s\n", e.what());
        return 1;
    }
}
