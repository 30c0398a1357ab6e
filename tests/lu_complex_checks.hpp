// Shared by the complex LU's tests (test_lu_complex.cpp on CPU workers, test_lu_complex_gpu.cpp on CUDA workers): the
// scaled residual ||P A - L U||_F / (||A||_F n eps) computed here element by element in double precision, LAPACKE's
// getrf on the same input, the tile LU of an array, and matrices whose pivots cannot differ between two orders of
// rounding (the entries, norms and solve residual: tests/complex_matrices.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/lu_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/support.hpp"

namespace starfact::test {

/// ||P A - L U||_F / (||A||_F n eps) (0 when P A = L U exactly, A = 0 included): P from LAPACK's 1-based ipiv (row i swapped with row ipiv[i] - 1, in order),
/// L the unit lower and U the upper triangle of F, all n x n.
template <typename C>
double getrf_residual(const std::vector<C>& A, const std::vector<C>& F, const std::vector<int64_t>& ipiv, int64_t n) {
    std::vector<C> PA = A;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t r = ipiv[static_cast<size_t>(i)] - 1;
        if (r < 0 || r >= n) return std::numeric_limits<double>::infinity();  // not a row
        for (int64_t j = 0; j < n; ++j) std::swap(PA[static_cast<size_t>(i + j * n)], PA[static_cast<size_t>(r + j * n)]);
    }
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            std::complex<double> lu = 0;
            for (int64_t k = 0; k <= std::min(i, j); ++k) {
                const std::complex<double> l = k == i ? 1.0 : std::complex<double>(F[static_cast<size_t>(i + k * n)]);
                lu += l * std::complex<double>(F[static_cast<size_t>(k + j * n)]);
            }
            s += std::norm(std::complex<double>(PA[static_cast<size_t>(i + j * n)]) - lu);
        }
    const double r = std::sqrt(s);
    return r == 0 ? 0.0 : r / (frobenius(A) * static_cast<double>(std::max<int64_t>(n, 1)) * eps<C>());  // A = 0
}

/// LAPACKE's getrf on a copy of A: its info and ipiv.
template <typename C>
std::pair<int, std::vector<int64_t>> lapack_getrf(std::vector<C> A, int64_t n) {
    std::vector<lapack_int> ip(static_cast<size_t>(std::max<int64_t>(n, 1)));
    const int info = starfact::detail::cpu::getrf(static_cast<int>(n), static_cast<int>(n), A.data(),
                                                  static_cast<int>(std::max<int64_t>(n, 1)), ip.data());
    return {info, std::vector<int64_t>(ip.begin(), ip.begin() + n)};
}

/// The tile LU of A (n x n, nb-tiles, living `residency`): its info, factors and ipiv.
template <typename C>
struct Factored {
    int info;
    std::vector<C> F;
    std::vector<int64_t> ipiv;
};
template <typename C>
Factored<C> tile_getrf(const std::vector<C>& A, int64_t n, int64_t nb, Mapping mapping,
                       Residency residency = Residency::Host) {
    TileMatrix<C> tA(runtime(), n, nb, residency);
    tA.import(A.data(), std::max<int64_t>(n, 1));
    Pivots piv(tA);
    Factored<C> out;
    out.info = getrf(tA, piv, on(mapping));
    out.F.resize(A.size());
    tA.export_to(out.F.data(), std::max<int64_t>(n, 1));
    out.ipiv = piv.ipiv();
    return out;
}

/// P D: D column diagonally dominant by a wide margin (off-diagonal entries of modulus below sqrt 2, diagonal entries
/// of modulus 4 n + 1 and random phase), its rows in a random order. Partial pivoting picks D's diagonal rows in
/// order, each ahead of the other candidates by a factor above 2 in |re| + |im|.
template <typename C>
std::vector<C> permuted_dominant(int64_t n, std::mt19937_64& g) {
    using R = typename C::value_type;
    std::vector<C> D = random_block<C>(n, n, g);
    std::uniform_real_distribution<double> phase(0.0, 6.283185307179586);
    for (int64_t j = 0; j < n; ++j)
        D[static_cast<size_t>(j + j * n)] = std::polar(static_cast<R>(4 * n + 1), static_cast<R>(phase(g)));
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::shuffle(order.begin(), order.end(), g);
    std::vector<C> A(D.size());
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            A[static_cast<size_t>(i + j * n)] = D[static_cast<size_t>(order[static_cast<size_t>(i)] + j * n)];
    return A;
}


}  // namespace starfact::test
