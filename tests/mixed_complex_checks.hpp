// The checks that the mixed-precision Hermitian solve's tests share (test_posv_mixed_complex.cpp on CPU workers,
// test_posv_mixed_complex_gpu.cpp on CUDA workers): what a refined solve reports and the backward error of its
// answer, the answer of a tile-form solve read back and checked, the options of a mixed solve, and the matrix whose factorization breaks down in
// complex<float> though it is definite. The matrices and the backward error: mixed_complex_support.hpp.
#pragma once
#include <catch2/catch.hpp>

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"
#include "tests/mixed_complex_support.hpp"
#include "tests/support.hpp"

namespace starfact::test::mixed_complex {

using Z = std::complex<double>;

/// The options of a mixed solve: workers of `mapping`, a `factor` factor.
inline Options mixed_options(Mapping mapping, Precision factor) {
    Options o;
    o.mapping = mapping;
    o.factor = factor;
    return o;
}

/// The refinement settings of the tests on CUDA workers: the mixed solve even at the small orders for which the plan
/// takes the complex<double> solve on GPUs.
inline Refinement always_low() {
    Refinement r;
    r.always_low = true;
    return r;
}

/// Whether the solve was refined: classical refinement or GMRES.
inline bool refined(const SolveReport& r) {
    return r.path == SolveReport::Path::Refined || r.path == SolveReport::Path::Gmres;
}

/// The report of a refined solve with a `factor` factor that did not break down, and `berr`, the backward error of
/// its answer computed here: the report's backward error within its tolerance, berr within twice it.
inline void check_refined_report(const SolveReport& r, Precision factor, double berr) {
    CHECK(refined(r));
    CHECK(r.factor == factor);
    CHECK(r.low_info == 0);
    CHECK(r.backward_error <= r.tolerance);
    CHECK(berr <= 2 * r.tolerance);
}

/// The answer of a tile-form solve of A X = B (n x n, nrhs columns, compact), read back from b: refined, its backward
/// error within twice the report's tolerance.
inline void check_tile_answer(const std::vector<Z>& A, const std::vector<Z>& B, TileMatrix<Z>& b, int64_t n,
                              int64_t nrhs, const SolveReport& r) {
    CHECK(refined(r));
    std::vector<Z> X(B.size());
    b.export_to(X.data(), n);
    CHECK(backward_error(A, n, X, n, B, n, n, nrhs) <= 2 * r.tolerance);
}

/// A fresh n x n Hermitian positive definite matrix (condition 10) whose leading 2 x 2 block [1 w; conj(w) 1 + 1e-10]
/// (w = i, decoupled from the rest) is definite with its second pivot 1e-10, exactly 0 in complex<float>: the low
/// factorization breaks down at column 2.
inline std::vector<Z> singular_in_complex_float(int64_t n, std::mt19937_64& g) {
    std::vector<Z> A = hpd_conditioned(n, n, 10, g);
    const Z w(0, 1);  // |w| = 1 exactly
    for (int64_t i = 2; i < n; ++i)
        for (int64_t j = 0; j < 2; ++j) A[static_cast<size_t>(i + j * n)] = A[static_cast<size_t>(j + i * n)] = 0;
    A[0] = 1;
    A[1] = std::conj(w);
    A[static_cast<size_t>(n)] = w;
    A[static_cast<size_t>(1 + n)] = 1 + 1e-10;
    return A;
}

}  // namespace starfact::test::mixed_complex
