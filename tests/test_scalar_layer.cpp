// The scalar layer (kernels/scalar.hpp, cpu_blas.hpp, cpu_lapack.hpp) in its four specialisations s, d, c, z
// [scalar]: each operation against products computed here element by element, on fresh random inputs. The
// factorizations (potrf, getrf) and solves (potrs, getrs) of the layer are checked by scaled residuals < 60; the
// Cholesky on Hermitian positive definite matrices with complex off-diagonals and a real diagonal, and on a matrix
// whose leading minor of order k + 1 is not positive definite, where it must report info = k + 1 as LAPACK does.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "kernels/cpu_blas.hpp"
#include "kernels/scalar.hpp"
#include "tests/seeds.hpp"

namespace {

using starfact::test::fresh_seed;
namespace sd = starfact::detail;
namespace cpu = starfact::detail::cpu;
using sd::Diag;
using sd::Op;
using sd::Side;
using sd::Uplo;

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

template <typename T>
using Real = sd::real_t<T>;

/// The index of entry (i, j) of a column-major array with leading dimension ld.
inline size_t at(int i, int j, int ld) { return static_cast<size_t>(i) + static_cast<size_t>(j) * ld; }

/// A uniform entry in [-1, 1), with an imaginary part of its own for complex T.
template <typename T>
T draw(std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    if constexpr (sd::is_complex_v<T>) {
        const double re = u(g), im = u(g);
        return T(static_cast<Real<T>>(re), static_cast<Real<T>>(im));
    } else {
        return static_cast<T>(u(g));
    }
}

template <typename T>
std::vector<T> random_matrix(int m, int n, std::mt19937_64& g) {
    std::vector<T> A(static_cast<size_t>(m) * n);
    for (T& a : A) a = draw<T>(g);
    return A;
}

/// n x n Hermitian positive definite (symmetric for real T): random off-diagonals, A_ij = conj(A_ji), and a real
/// diagonal larger than its row's sum of moduli.
template <typename T>
std::vector<T> hpd_matrix(int n, std::mt19937_64& g) {
    std::vector<T> A(static_cast<size_t>(n) * n, T(0));
    for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) {
            A[at(i, j, n)] = draw<T>(g);
            A[at(j, i, n)] = sd::conj_of(A[at(i, j, n)]);
        }
    for (int i = 0; i < n; ++i) {
        double row = 0;
        for (int j = 0; j < n; ++j) row += std::abs(A[at(i, j, n)]);
        const double shift = 1.0 + std::uniform_real_distribution<double>(0, 1)(g);
        A[at(i, i, n)] = T(static_cast<Real<T>>(row + shift));
    }
    return A;
}

template <typename T>
double frobenius(const std::vector<T>& A) {
    double s = 0;
    for (const T& a : A) s += static_cast<double>(sd::abs2_of(a));
    return std::sqrt(s);
}

/// op(A) of an m x n column-major A, as a dense matrix.
template <typename T>
std::vector<T> apply_op(Op o, const std::vector<T>& A, int m, int n) {
    if (o == Op::NoTrans) return A;
    std::vector<T> B(static_cast<size_t>(m) * n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const T a = A[at(i, j, m)];
            B[at(j, i, n)] = o == Op::ConjTrans ? sd::conj_of(a) : a;
        }
    return B;
}

/// C = A B, element by element (m x k times k x n).
template <typename T>
std::vector<T> product(const std::vector<T>& A, const std::vector<T>& B, int m, int n, int k) {
    std::vector<T> C(static_cast<size_t>(m) * n, T(0));
    for (int j = 0; j < n; ++j)
        for (int l = 0; l < k; ++l)
            for (int i = 0; i < m; ++i) C[at(i, j, m)] += A[at(i, l, m)] * B[at(l, j, k)];
    return C;
}

template <typename T>
std::vector<T> lower_of(const std::vector<T>& A, int n, bool unit = false) {
    std::vector<T> L(static_cast<size_t>(n) * n, T(0));
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) L[at(i, j, n)] = i == j && unit ? T(1) : A[at(i, j, n)];
    return L;
}

/// ||X - Y||_F / (scale * k * eps): the scaled residual, k the operation's inner dimension.
template <typename T>
double scaled(const std::vector<T>& X, const std::vector<T>& Y, double scale, int k) {
    std::vector<T> D(X.size());
    for (size_t i = 0; i < X.size(); ++i) D[i] = X[i] - Y[i];
    return frobenius(D) / (scale * std::max(k, 1) * static_cast<double>(sd::epsilon<T>()));
}

constexpr int kOrders[] = {1, 7, 33, 100};

}  // namespace

TEMPLATE_TEST_CASE("scalar traits: real type, letter, conj and real parts", "[scalar][cpu]", float, double, cfloat,
                   cdouble) {
    using T = TestType;
    STATIC_REQUIRE(sizeof(Real<T>) * (sd::is_complex_v<T> ? 2 : 1) == sizeof(T));
    const char letter = sd::lapack_letter<T>();
    CHECK(letter == (std::is_same<T, float>::value    ? 's'
                     : std::is_same<T, double>::value ? 'd'
                     : std::is_same<T, cfloat>::value ? 'c'
                                                      : 'z'));
    CHECK(sd::is_single_v<T> == (letter == 's' || letter == 'c'));
    CHECK(sd::epsilon<T>() == std::numeric_limits<Real<T>>::epsilon());
    std::mt19937_64 g(fresh_seed());
    const T x = draw<T>(g);
    CHECK(sd::real_of(sd::conj_of(x)) == sd::real_of(x));
    CHECK(sd::imag_of(sd::conj_of(x)) == -sd::imag_of(x));
    const std::complex<double> wide(sd::real_of(x), sd::imag_of(x));
    CHECK(sd::abs2_of(x) == Approx(std::norm(wide)));
}

TEMPLATE_TEST_CASE("scalar layer gemm, herk, trmm and trsm with NoTrans, Trans and ConjTrans", "[scalar][cpu]", float,
                   double, cfloat, cdouble) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    const int m = 37, n = 23, k = 19;
    for (Op oa : {Op::NoTrans, Op::Trans, Op::ConjTrans})
        for (Op ob : {Op::NoTrans, Op::Trans, Op::ConjTrans}) {
            INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " opA=" << int(oa) << " opB=" << int(ob));
            const int ra = oa == Op::NoTrans ? m : k, ca = oa == Op::NoTrans ? k : m;
            const int rb = ob == Op::NoTrans ? k : n, cb = ob == Op::NoTrans ? n : k;
            const std::vector<T> A = random_matrix<T>(ra, ca, g), B = random_matrix<T>(rb, cb, g);
            std::vector<T> C = random_matrix<T>(m, n, g);
            const T alpha = draw<T>(g), beta = draw<T>(g);
            std::vector<T> ref = product(apply_op(oa, A, ra, ca), apply_op(ob, B, rb, cb), m, n, k);
            for (size_t i = 0; i < ref.size(); ++i) ref[i] = alpha * ref[i] + beta * C[i];
            cpu::gemm(oa, ob, m, n, k, alpha, A.data(), ra, B.data(), rb, beta, C.data(), m);
            CHECK(scaled(C, ref, frobenius(ref) + 1.0, k) < 60);
        }
    for (Op o : {Op::NoTrans, Op::ConjTrans}) {
        INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " herk op=" << int(o));
        const int ra = o == Op::NoTrans ? n : k, ca = o == Op::NoTrans ? k : n;
        const std::vector<T> A = random_matrix<T>(ra, ca, g);
        std::vector<T> C = hpd_matrix<T>(n, g);
        const std::vector<T> C0 = C;
        const std::vector<T> opA = apply_op(o, A, ra, ca);
        const std::vector<T> ref_full = product(opA, apply_op(Op::ConjTrans, opA, n, k), n, n, k);
        cpu::herk(Uplo::Lower, o, n, k, Real<T>(-1), A.data(), ra, Real<T>(1), C.data(), n);
        std::vector<T> got(static_cast<size_t>(n) * n, T(0)), ref(got.size(), T(0));
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i) {
                got[at(i, j, n)] = C[at(i, j, n)];
                ref[at(i, j, n)] = C0[at(i, j, n)] - ref_full[at(i, j, n)];
            }
        CHECK(scaled(got, ref, frobenius(ref), k) < 60);
        for (int i = 0; i < n; ++i) CHECK(sd::imag_of(C[at(i, i, n)]) == 0);  // herk's real diagonal
    }
    for (Side s : {Side::Left, Side::Right})
        for (Op o : {Op::NoTrans, Op::Trans, Op::ConjTrans}) {
            INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " side=" << int(s) << " op=" << int(o));
            const int na = s == Side::Left ? m : n;
            // A well-conditioned lower triangle: the Cholesky factor's shape, a dominant diagonal.
            std::vector<T> A = lower_of(random_matrix<T>(na, na, g), na);
            for (int i = 0; i < na; ++i) A[at(i, i, na)] += T(Real<T>(na));
            const std::vector<T> B = random_matrix<T>(m, n, g);
            const std::vector<T> opA = apply_op(o, A, na, na);
            const std::vector<T> ref = s == Side::Left ? product(opA, B, m, n, m) : product(B, opA, m, n, n);
            std::vector<T> X = B;
            cpu::trmm(s, Uplo::Lower, o, Diag::NonUnit, m, n, T(1), A.data(), na, X.data(), m);
            CHECK(scaled(X, ref, frobenius(ref), na) < 60);
            cpu::trsm(s, Uplo::Lower, o, Diag::NonUnit, m, n, T(1), A.data(), na, X.data(), m);  // back to B
            CHECK(scaled(X, B, frobenius(B), na) < 60);
        }
}

TEMPLATE_TEST_CASE("scalar layer potrf and potrs on Hermitian positive definite matrices", "[scalar][cpu]", float,
                   double, cfloat, cdouble) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int n : kOrders) {
        const int nrhs = 3;
        INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " n=" << n);
        const std::vector<T> A = hpd_matrix<T>(n, g);
        std::vector<T> F = A;
        REQUIRE(cpu::potrf(n, F.data(), n) == 0);
        const std::vector<T> L = lower_of(F, n);
        const std::vector<T> LLh = product(L, apply_op(Op::ConjTrans, L, n, n), n, n, n);
        CHECK(scaled(LLh, A, frobenius(A), n) < 60);
        const std::vector<T> B = random_matrix<T>(n, nrhs, g);
        std::vector<T> X = B;
        REQUIRE(cpu::potrs(n, nrhs, F.data(), n, X.data(), n) == 0);
        CHECK(scaled(product(A, X, n, nrhs, n), B, frobenius(A) * frobenius(X), n) < 60);
    }
}

TEMPLATE_TEST_CASE("scalar layer potrf reports the first leading minor that is not positive definite",
                   "[scalar][cpu]", float, double, cfloat, cdouble) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int n : kOrders) {
        const int k = std::uniform_int_distribution<int>(0, n - 1)(g);
        INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " n=" << n << " k=" << k);
        std::vector<T> A = hpd_matrix<T>(n, g);
        // Its leading minor of order k is still positive definite (a principal block of A); that of order k + 1 is
        // not: the pivot a_kk - a^H A_k^-1 a is at most -1.
        A[at(k, k, n)] = T(-1);
        CHECK(cpu::potrf(n, A.data(), n) == k + 1);
    }
}

TEMPLATE_TEST_CASE("scalar layer getrf, getrs, getri, trtri and lauum", "[scalar][cpu]", float, double, cfloat,
                   cdouble) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int n : kOrders) {
        INFO("seed=" << seed << " prec=" << sd::lapack_letter<T>() << " n=" << n);
        const std::vector<T> A = random_matrix<T>(n, n, g);
        std::vector<T> F = A;
        std::vector<lapack_int> piv(static_cast<size_t>(n));
        REQUIRE(cpu::getrf(n, n, F.data(), n, piv.data()) == 0);
        // P A = L U: apply the interchanges to a copy of A and compare with L U.
        std::vector<T> PA = A;
        for (int i = 0; i < n; ++i)
            if (piv[i] - 1 != i)
                for (int j = 0; j < n; ++j) std::swap(PA[at(i, j, n)], PA[at(piv[i] - 1, j, n)]);
        std::vector<T> U(static_cast<size_t>(n) * n, T(0));
        for (int j = 0; j < n; ++j)
            for (int i = 0; i <= j; ++i) U[at(i, j, n)] = F[at(i, j, n)];
        CHECK(scaled(product(lower_of(F, n, true), U, n, n, n), PA, frobenius(A), n) < 60);
        const std::vector<T> B = random_matrix<T>(n, 2, g);
        std::vector<T> X = B;
        REQUIRE(cpu::getrs('N', n, 2, F.data(), n, piv.data(), X.data(), n) == 0);
        CHECK(scaled(product(A, X, n, 2, n), B, frobenius(A) * frobenius(X), n) < 60);
        std::vector<T> work(static_cast<size_t>(64) * n);
        std::vector<T> Ainv = F;
        REQUIRE(cpu::getri(n, Ainv.data(), n, piv.data(), work.data(), static_cast<int>(work.size())) == 0);
        std::vector<T> I(static_cast<size_t>(n) * n, T(0));
        for (int i = 0; i < n; ++i) I[at(i, i, n)] = T(1);
        CHECK(scaled(product(A, Ainv, n, n, n), I, frobenius(A) * frobenius(Ainv), n) < 60);

        // trtri and lauum on a Cholesky factor: L^-1 L = I and L^H L.
        std::vector<T> C = hpd_matrix<T>(n, g);
        REQUIRE(cpu::potrf(n, C.data(), n) == 0);
        const std::vector<T> L = lower_of(C, n);
        std::vector<T> Linv = L;
        REQUIRE(cpu::trtri(n, Linv.data(), n) == 0);
        CHECK(scaled(product(lower_of(Linv, n), L, n, n, n), I, frobenius(L) * frobenius(lower_of(Linv, n)), n) < 60);
        std::vector<T> W = L;
        REQUIRE(cpu::lauum(n, W.data(), n) == 0);
        const std::vector<T> LhL = product(apply_op(Op::ConjTrans, L, n, n), L, n, n, n);
        CHECK(scaled(lower_of(W, n), lower_of(LhL, n), frobenius(LhL), n) < 60);
    }
}
