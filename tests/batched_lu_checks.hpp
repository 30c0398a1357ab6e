// The checks of tests/test_batched_lu_gpu.cpp: test batches of each kind (random, singular, exact ties) and the
// comparison of the batched getrf, inverse and solves with LAPACK.
#pragma once
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/batched_lu.hpp"
#include "tests/batched_support.hpp"
#include "tests/support.hpp"

namespace starfact::test::batched_lu_checks {

using namespace starfact;
using starfact::test::fresh_seed;
using starfact::test::runtime;
using starfact::test::batched::DeviceBuffer;
using starfact::test::batched::thrown_argument;


template <typename T>
int lapack_getrf(int n, T* A, int lda, int* ipiv) {
    return starfact::detail::cpu::getrf<T>(n, n, A, lda, ipiv);
}

enum class Kind { Random, IllConditioned, Singular, TiesIdentity, PermutedUnique, DyadicTies };
inline const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Random: return "random";
        case Kind::IllConditioned: return "ill-conditioned";
        case Kind::Singular: return "singular";
        case Kind::TiesIdentity: return "ties (A = LU, L in {0,+-1})";
        case Kind::PermutedUnique: return "A = PLU, |L| < 1";
        case Kind::DyadicTies: return "dyadic ties (exact arithmetic)";
    }
    return "?";
}
/// Families where every intermediate value is exact in float: pivots and factors must be identical.
inline bool exact_kind(Kind k) { return k == Kind::TiesIdentity || k == Kind::PermutedUnique || k == Kind::DyadicTies; }

inline double pick(std::mt19937_64& g, std::initializer_list<double> v) {
    return *(v.begin() + std::uniform_int_distribution<int>(0, int(v.size()) - 1)(g));
}

/// Right-looking LU with LAPACK's pivoting in double: true if every value stays on the 1/16 grid
/// below 32 in magnitude and every pivot is a power of two (so any operation order, float
/// included, computes exactly the same numbers). Counts steps with a tie among rows whose
/// LAPACK order differs from their original order.
inline bool exact_dyadic(int n, std::vector<double> a, int& out_of_order_ties) {
    std::vector<int> orig(n);
    for (int i = 0; i < n; ++i) orig[i] = i;
    auto on_grid = [](double v) { return std::fabs(v) < 32 && std::floor(v * 16) == v * 16; };
    int ooo = 0;
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (std::fabs(a[i + k * n]) > std::fabs(a[p + k * n])) p = i;
        const double piv = a[p + k * n];
        for (int i = p + 1; i < n; ++i)
            if (std::fabs(a[i + k * n]) == std::fabs(piv) && piv != 0 && orig[i] < orig[p]) ++ooo;
        if (piv == 0) continue;
        int e = 0;
        if (std::frexp(std::fabs(piv), &e) != 0.5) return false;
        for (int j = 0; j < n; ++j) std::swap(a[k + j * n], a[p + j * n]);
        std::swap(orig[k], orig[p]);
        for (int i = k + 1; i < n; ++i) {
            const double l = a[i + k * n] / piv;
            if (!on_grid(l)) return false;
            a[i + k * n] = l;
            for (int j = k + 1; j < n; ++j) {
                a[i + j * n] -= l * a[k + j * n];
                if (!on_grid(a[i + j * n])) return false;
            }
        }
    }
    out_of_order_ties += ooo;
    return true;
}

/// `batch` column-major n x n matrices (lda >= n, padding = -777) of the given kind.
template <typename T>
std::vector<T> make_batch(Kind kind, int n, int lda, int batch, uint64_t seed, int* ooo_ties = nullptr) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<T> A(size_t(lda) * n * batch, T(-777));
    std::vector<double> M(size_t(n) * n);
    for (int b = 0; b < batch; ++b) {
        switch (kind) {
            case Kind::Random:
            case Kind::Singular:
                for (auto& x : M) x = u(g);
                if (kind == Kind::Singular && b % 3 == 1) {  // a zero column: info = its index + 1
                    const int j = std::uniform_int_distribution<int>(0, n - 1)(g);
                    for (int i = 0; i < n; ++i) M[i + j * n] = 0;
                }
                break;
            case Kind::IllConditioned: {  // columns scaled over 10^(-digits): cond ~ 10^digits
                const double digits = sizeof(T) == 4 ? 5 : 12;
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) M[i + j * n] = u(g) * std::pow(10.0, -digits * j / std::max(1, n - 1));
                break;
            }
            case Kind::TiesIdentity:
            case Kind::PermutedUnique: {
                std::vector<double> L(size_t(n) * n, 0), U(size_t(n) * n, 0);
                for (int j = 0; j < n; ++j) {
                    L[j + j * n] = 1;
                    for (int i = j + 1; i < n; ++i)
                        L[i + j * n] = kind == Kind::TiesIdentity ? pick(g, {-1, 0, 1}) : pick(g, {-0.5, -0.25, 0, 0.25, 0.5});
                    U[j + j * n] = pick(g, {-2, -1, 1, 2});
                    for (int i = 0; i < j; ++i) U[i + j * n] = pick(g, {-2, -1, 0, 1, 2});
                }
                std::vector<int> perm(n);
                for (int i = 0; i < n; ++i) perm[i] = i;
                if (kind == Kind::PermutedUnique) std::shuffle(perm.begin(), perm.end(), g);
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) {
                        double s = 0;
                        for (int k = 0; k <= std::min(i, j); ++k) s += L[i + k * n] * U[k + j * n];
                        M[perm[i] + j * n] = s;
                    }
                break;
            }
            case Kind::DyadicTies: {
                int ooo = 0;
                for (int attempt = 0;; ++attempt) {
                    for (auto& x : M) x = pick(g, {-2, -1, -0.5, 0, 0, 0.5, 1, 2});
                    if (exact_dyadic(n, M, ooo)) break;
                    REQUIRE(attempt < 1000000);
                }
                if (ooo_ties) *ooo_ties += ooo;
                break;
            }
        }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) A[size_t(b) * lda * n + i + size_t(j) * lda] = T(M[i + j * n]);
    }
    return A;
}

template <typename T>
double eps() {
    return std::numeric_limits<T>::epsilon();
}

/// Compares our getrf output of one matrix with LAPACK's. On the first differing pivot, a
/// near tie (LAPACK's multiplier of our pivot row is 1 to rounding) is accepted for inexact
/// families, and the factors are then checked by the residual ||PA - LU|| instead.
template <typename T>
struct Compare {
    int mismatched_pivots = 0, near_ties = 0, info_mismatch = 0, factor_errors = 0;
    double worst_factor = 0, worst_residual = 0;

    void matrix(int n, int lda, const T* A0, const T* ours, const int* our_piv, int our_info, bool strict) {
        std::vector<T> ref(size_t(lda) * n);
        std::copy(A0, A0 + ref.size(), ref.begin());
        std::vector<int> piv(n);
        const int info = lapack_getrf(n, ref.data(), lda, piv.data());
        if (info != our_info) ++info_mismatch;
        for (int i = n; i < lda; ++i)  // padding rows untouched
            for (int j = 0; j < n; ++j)
                if (ours[i + j * lda] != T(-777)) ++factor_errors;
        int k = 0;
        while (k < n && piv[k] == our_piv[k]) ++k;
        if (k < n) {
            // LAPACK's position of the row we picked at step k: replay LAPACK's swaps up to k.
            std::vector<int> order(n);
            for (int i = 0; i < n; ++i) order[i] = i;
            for (int s = 0; s < k; ++s) std::swap(order[s], order[piv[s] - 1]);
            const int ours_orig = order[our_piv[k] - 1];
            std::vector<int> lorder(n);
            for (int i = 0; i < n; ++i) lorder[i] = i;
            for (int s = 0; s < n; ++s) std::swap(lorder[s], lorder[piv[s] - 1]);
            int lapack_pos = 0;
            while (lorder[lapack_pos] != ours_orig) ++lapack_pos;
            const double l = std::fabs(double(ref[lapack_pos + k * lda]));
            if (strict || our_piv[k] < k + 1 || our_piv[k] > n || l < 1 - 1e3 * eps<T>()) {
                ++mismatched_pivots;
                return;
            }
            ++near_ties;
            worst_residual = std::max(worst_residual, residual(n, lda, A0, ours, our_piv));
            return;
        }
        double maxabs = 0, diff = 0;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                maxabs = std::max(maxabs, std::fabs(double(ref[i + j * lda])));
                diff = std::max(diff, std::fabs(double(ref[i + j * lda]) - double(ours[i + j * lda])));
            }
        // LAPACK's own operation order differs (OpenBLAS's getf2 is left-looking): the factors
        // agree to rounding amplified by the elimination, far below the O(1 / (n eps)) of an error.
        const double rel = diff / (std::max(maxabs, 1e-300) * n * eps<T>());
        worst_factor = std::max(worst_factor, rel);
        if (strict ? diff != 0 : rel > 1000) ++factor_errors;
        worst_residual = std::max(worst_residual, residual(n, lda, A0, ours, our_piv));
    }

    /// ||P A - L U||_1 / (||A||_1 n eps).
    static double residual(int n, int lda, const T* A0, const T* F, const int* piv) {
        std::vector<double> PA(size_t(n) * n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) PA[i + j * n] = A0[i + j * lda];
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j) std::swap(PA[k + j * n], PA[piv[k] - 1 + j * n]);
        double rn = 0, an = 0;
        for (int j = 0; j < n; ++j) {
            double rc = 0, ac = 0;
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int k = 0; k <= std::min(i, j); ++k)
                    s += (k == i ? 1.0 : double(F[i + k * lda])) * double(F[k + j * lda]);
                rc += std::fabs(PA[i + j * n] - s);
                ac += std::fabs(PA[i + j * n]);
            }
            rn = std::max(rn, rc);
            an = std::max(an, ac);
        }
        return rn / (std::max(an, 1e-300) * n * eps<T>());
    }
};

template <typename T>
void check_getrf(Kind kind, int n, int lda, int batch, bool pointer_array) {
    const uint64_t seed = fresh_seed();
    int ooo = 0;
    INFO("getrf " << kind_name(kind) << " n=" << n << " lda=" << lda << " batch=" << batch
                  << " layout=" << (pointer_array ? "pointer-array" : "strided") << " prec=" << (sizeof(T) == 4 ? "s" : "d")
                  << " seed=" << seed);
    const std::vector<T> A0 = make_batch<T>(kind, n, lda, batch, seed, &ooo);
    const int64_t stride = int64_t(lda) * n;
    DeviceBuffer<T> dA(A0);
    DeviceBuffer<int> dpiv(size_t(n) * batch), dinfo{size_t(batch)};
    if (pointer_array) {
        std::vector<T*> ptrs(batch);
        for (int b = 0; b < batch; ++b) ptrs[b] = dA.get() + b * stride;
        DeviceBuffer<T*> dptrs(ptrs);
        starfact::batched::device::getrf<T>(n, dptrs.get(), lda, dpiv.get(), n, dinfo.get(), batch);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    } else {
        starfact::batched::device::getrf<T>(n, dA.get(), lda, stride, dpiv.get(), n, dinfo.get(), batch);
    }
    const std::vector<T> F = dA.download();
    const std::vector<int> piv = dpiv.download(), info = dinfo.download();
    Compare<T> c;
    int singular = 0;
    for (int b = 0; b < batch; ++b) {
        c.matrix(n, lda, A0.data() + b * stride, F.data() + b * stride, piv.data() + size_t(b) * n, info[b],
                 exact_kind(kind));
        singular += info[b] > 0;
    }
    INFO("near ties accepted=" << c.near_ties << " worst factor diff/(n eps max|LU|)=" << c.worst_factor
                               << " worst ||PA-LU||/(||A|| n eps)=" << c.worst_residual << " singular members="
                               << singular << " out-of-order ties=" << ooo);
    CHECK(c.mismatched_pivots == 0);
    CHECK(c.info_mismatch == 0);
    CHECK(c.factor_errors == 0);
    CHECK(c.worst_residual < 60);
    if (kind == Kind::Singular) CHECK(singular > 0);
}

/// ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) of one matrix (LAPACK's dget03 ratio).
template <typename T>
double inverse_ratio(int n, const T* A, int lda, const T* X, int ldx) {
    double rn = 0, an = 0, xn = 0;
    for (int j = 0; j < n; ++j) {
        double rc = 0, ac = 0, xc = 0;
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += double(A[i + k * lda]) * double(X[k + j * ldx]);
            rc += std::fabs((i == j ? 1.0 : 0.0) - s);
            ac += std::fabs(double(A[i + j * lda]));
            xc += std::fabs(double(X[i + j * ldx]));
        }
        rn = std::max(rn, rc);
        an = std::max(an, ac);
        xn = std::max(xn, xc);
    }
    return rn / (n * an * xn * eps<T>());
}

template <typename T>
void check_inverse(Kind kind, int n, int batch, bool pointer_array, bool in_place) {
    const uint64_t seed = fresh_seed();
    INFO("inverse " << kind_name(kind) << " n=" << n << " batch=" << batch << " layout="
                    << (pointer_array ? "pointer-array" : "strided") << " in_place=" << in_place
                    << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const int lda = n + 1, ldc = n;  // different leading dimensions when out of place
    const std::vector<T> A0 = make_batch<T>(kind, n, in_place ? ldc : lda, batch, seed);
    const int la = in_place ? ldc : lda;
    const int64_t sa = int64_t(la) * n, sc = int64_t(ldc) * n;
    DeviceBuffer<T> dA(A0);
    DeviceBuffer<T> dC(size_t(sc) * batch);
    REQUIRE(cudaMemset(dC.get(), 0xff, size_t(sc) * batch * sizeof(T)) == cudaSuccess);  // NaN sentinel
    T* C = in_place ? dA.get() : dC.get();
    DeviceBuffer<int> dpiv(size_t(n) * batch), dinfo{size_t(batch)};
    if (pointer_array) {
        std::vector<const T*> pa(batch);
        std::vector<T*> pc(batch);
        for (int b = 0; b < batch; ++b) {
            pa[b] = dA.get() + b * sa;
            pc[b] = C + b * sc;
        }
        DeviceBuffer<const T*> dpa(pa);
        DeviceBuffer<T*> dpc(pc);
        starfact::batched::device::inverse<T>(n, dpa.get(), la, dpc.get(), ldc, dpiv.get(), n, dinfo.get(), batch);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    } else {
        starfact::batched::device::inverse<T>(n, dA.get(), la, sa, C, ldc, sc, dpiv.get(), n, dinfo.get(), batch);
    }
    const std::vector<T> X = in_place ? dA.download() : dC.download();
    const std::vector<int> piv = dpiv.download(), info = dinfo.download();
    double worst = 0;
    int bad_info = 0, bad_piv = 0, written_singular = 0, singular = 0;
    for (int b = 0; b < batch; ++b) {
        std::vector<T> ref(A0.begin() + b * sa, A0.begin() + (b + 1) * sa);
        std::vector<int> rp(n);
        const int rinfo = lapack_getrf(n, ref.data(), la, rp.data());
        if (rinfo != info[b]) ++bad_info;
        if (info[b] > 0) {
            ++singular;
            for (int j = 0; j < n; ++j)  // C untouched (NaN sentinel, or A itself in place)
                for (int i = 0; i < n; ++i) {
                    const T x = X[b * sc + i + j * ldc];
                    if (in_place ? x != A0[b * sa + i + j * la] : !std::isnan(x)) ++written_singular;
                }
            continue;
        }
        if (exact_kind(kind) && !std::equal(rp.begin(), rp.end(), piv.begin() + size_t(b) * n)) ++bad_piv;
        worst = std::max(worst, inverse_ratio<T>(n, A0.data() + b * sa, la, X.data() + b * sc, ldc));
    }
    INFO("worst ||I - A X||/(n ||A|| ||X|| eps)=" << worst << " singular members=" << singular);
    CHECK(worst < 100);
    CHECK(bad_info == 0);
    CHECK(bad_piv == 0);
    CHECK(written_singular == 0);
    if (kind == Kind::Singular) CHECK(singular > 0);
}

/// getrf then getrs (nrhs columns) or getri; residual checks.
template <typename T>
void check_solve(int n, int nrhs, int batch, bool pointer_array) {
    const uint64_t seed = fresh_seed();
    INFO("getrs/getri n=" << n << " nrhs=" << nrhs << " batch=" << batch << " layout="
                          << (pointer_array ? "pointer-array" : "strided") << " prec=" << (sizeof(T) == 4 ? "s" : "d")
                          << " seed=" << seed);
    const int lda = n, ldb = n + 2;
    const std::vector<T> A0 = make_batch<T>(Kind::Random, n, lda, batch, seed);
    std::vector<T> B0(size_t(ldb) * std::max(nrhs, 1) * batch);
    std::mt19937_64 g(seed + 1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& x : B0) x = T(u(g));
    const int64_t sa = int64_t(lda) * n, sb = int64_t(ldb) * std::max(nrhs, 1), sc = int64_t(n) * n;
    DeviceBuffer<T> dA(A0), dB(B0), dC(size_t(sc) * batch);
    DeviceBuffer<int> dpiv(size_t(n) * batch), dinfo{size_t(batch)};
    starfact::batched::device::getrf<T>(n, dA.get(), lda, sa, dpiv.get(), n, dinfo.get(), batch);
    if (pointer_array) {
        std::vector<const T*> pa(batch);
        std::vector<T*> pb(batch), pc(batch);
        for (int b = 0; b < batch; ++b) {
            pa[b] = dA.get() + b * sa;
            pb[b] = dB.get() + b * sb;
            pc[b] = dC.get() + b * sc;
        }
        DeviceBuffer<const T*> dpa(pa);
        DeviceBuffer<T*> dpb(pb), dpc(pc);
        starfact::batched::device::getrs<T>(n, nrhs, dpa.get(), lda, dpiv.get(), n, dpb.get(), ldb, batch);
        starfact::batched::device::getri<T>(n, dpa.get(), lda, dpiv.get(), n, dpc.get(), n, batch);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    } else {
        starfact::batched::device::getrs<T>(n, nrhs, dA.get(), lda, sa, dpiv.get(), n, dB.get(), ldb, sb, batch);
        starfact::batched::device::getri<T>(n, dA.get(), lda, sa, dpiv.get(), n, dC.get(), n, sc, batch);
    }
    const std::vector<T> X = dB.download(), C = dC.download();
    const std::vector<int> info = dinfo.download();
    double worst_solve = 0, worst_inv = 0;
    int padding = 0;
    for (int b = 0; b < batch; ++b) {
        REQUIRE(info[b] == 0);
        const T* A = A0.data() + b * sa;
        double rn = 0, an = 0, xn = 0;
        for (int j = 0; j < n; ++j) {
            double ac = 0;
            for (int i = 0; i < n; ++i) ac += std::fabs(double(A[i + j * lda]));
            an = std::max(an, ac);
        }
        for (int r = 0; r < nrhs; ++r) {
            double rc = 0, xc = 0;
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int k = 0; k < n; ++k) s += double(A[i + k * lda]) * double(X[b * sb + k + r * ldb]);
                rc += std::fabs(double(B0[b * sb + i + r * ldb]) - s);
                xc += std::fabs(double(X[b * sb + i + r * ldb]));
            }
            for (int i = n; i < ldb; ++i) padding += X[b * sb + i + r * ldb] != B0[b * sb + i + r * ldb];
            rn = std::max(rn, rc);
            xn = std::max(xn, xc);
        }
        if (nrhs > 0) worst_solve = std::max(worst_solve, rn / (std::max(an * xn, 1e-300) * n * eps<T>()));
        worst_inv = std::max(worst_inv, inverse_ratio<T>(n, A, lda, C.data() + b * sc, n));
    }
    INFO("worst solve ratio=" << worst_solve << " worst getri ratio=" << worst_inv);
    CHECK(worst_solve < 60);
    CHECK(worst_inv < 100);
    CHECK(padding == 0);
}

}  // namespace starfact::test::batched_lu_checks
