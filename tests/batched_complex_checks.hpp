// Shared by the batched API's complex tests (test_batched_{chol,lu}_complex_{cpu,gpu}.cpp): strided host batches of
// Hermitian positive definite or general complex members with padding rows and gaps between members, members made to
// fail (a non-definite or NaN pivot, an exactly zero column), and the checks of a batched potrf/posv, getrf and
// inverse run through a caller's function (the StarPU entry points on host arrays, or the device API through device
// copies): per-member info, the failed count, scaled residuals < 60 in double precision (tests/complex_matrices.hpp,
// hermitian_matrices.hpp, lu_complex_checks.hpp), failed members' outputs kept, and everything outside what a member
// may write untouched. Include after catch.hpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tests/complex_matrices.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/lu_complex_checks.hpp"

namespace starfact::test::batched_complex {

/// The scaled residual every check holds results to.
constexpr double kResidualBound = 60.0;

/// What fills the padding rows and the gaps between members.
template <typename C>
C marker() {
    return C(-777, 333);
}

/// A strided batch of `count` members of rows x cols in host memory: member i at data + i * stride, leading dimension
/// ld; every entry outside the members holds marker().
template <typename C>
struct HostBatch {
    int64_t rows, cols, ld, stride, count;
    std::vector<C> data;
    HostBatch(int64_t r, int64_t c, int64_t lead, int64_t member_stride, int64_t n_members)
        : rows(r), cols(c), ld(lead), stride(member_stride), count(n_members),
          data(static_cast<size_t>(std::max<int64_t>(1, n_members * member_stride)), marker<C>()) {}
    C* member(int64_t i) { return data.data() + i * stride; }
    /// Member i as a packed rows x cols matrix (leading dimension rows).
    std::vector<C> packed(int64_t i) const {
        std::vector<C> m(static_cast<size_t>(rows * cols));
        for (int64_t c = 0; c < cols; ++c)
            for (int64_t r = 0; r < rows; ++r) m[static_cast<size_t>(r + c * rows)] = data[static_cast<size_t>(i * stride + r + c * ld)];
        return m;
    }
    void set(int64_t i, const std::vector<C>& m) {
        for (int64_t c = 0; c < cols; ++c)
            for (int64_t r = 0; r < rows; ++r) data[static_cast<size_t>(i * stride + r + c * ld)] = m[static_cast<size_t>(r + c * rows)];
    }
    C& at(int64_t i, int64_t r, int64_t c) { return data[static_cast<size_t>(i * stride + r + c * ld)]; }
};

/// Whether x and y are the same entry (NaN parts compared as equal).
template <typename C>
bool same(const C& x, const C& y) {
    auto eq = [](auto a, auto b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    return eq(x.real(), y.real()) && eq(x.imag(), y.imag());
}

/// Every entry of member i of `after` outside its rows x cols block equals `before`'s (padding rows and the gap
/// after the member; lower_only: also the strictly upper triangle).
template <typename C>
bool untouched_outside(const HostBatch<C>& before, const HostBatch<C>& after, int64_t i, bool lower_only) {
    for (int64_t k = 0; k < before.stride; ++k) {
        const int64_t r = k % before.ld, c = k / before.ld;
        const bool inside = c < before.cols && r < before.rows && (!lower_only || r >= c);
        if (inside) continue;
        if (!same(before.data[static_cast<size_t>(i * before.stride + k)], after.data[static_cast<size_t>(i * before.stride + k)]))
            return false;
    }
    return true;
}

/// Whether members i of a and b are equal over their whole stride.
template <typename C>
bool same_member(const HostBatch<C>& a, const HostBatch<C>& b, int64_t i) {
    for (int64_t k = 0; k < a.stride; ++k)
        if (!same(a.data[static_cast<size_t>(i * a.stride + k)], b.data[static_cast<size_t>(i * a.stride + k)])) return false;
    return true;
}

// ---- Cholesky ----------------------------------------------------------------------------------------------------

/// The Cholesky inputs: Hermitian positive definite members of order n (both triangles: the upper is the lower's
/// conjugate; real diagonal) at ld = n + 1, stride ld * n + 2; member 3 non-definite at column n / 3 (info n / 3 + 1),
/// member 4 with a NaN last diagonal entry (info n), when the batch has them. Right-hand sides at ldb = n + 3.
template <typename C>
struct CholeskyInputs {
    HostBatch<C> A, B;
    std::vector<int> expected;
    CholeskyInputs(int n, int64_t nrhs, int64_t batch, uint64_t seed)
        : A(n, n, n + 1, int64_t(n + 1) * n + 2, batch),
          B(n, std::max<int64_t>(nrhs, 0), n + 3, int64_t(n + 3) * std::max<int64_t>(nrhs, 0) + 1, batch),
          expected(static_cast<size_t>(batch), 0) {
        std::mt19937_64 g(seed);
        for (int64_t i = 0; i < batch; ++i) {
            A.set(i, hpd_matrix<C>(n, g));
            if (nrhs > 0) B.set(i, random_block<C>(n, nrhs, g));
        }
        using R = typename C::value_type;
        if (batch > 3) {
            const int k = n / 3;
            A.at(3, k, k) = C(-static_cast<R>(n), 0);
            expected[3] = k + 1;
        }
        if (batch > 4) {
            A.at(4, n - 1, n - 1) = C(std::numeric_limits<R>::quiet_NaN(), 0);
            expected[4] = n;
        }
    }
    int64_t failures() const { return std::count_if(expected.begin(), expected.end(), [](int v) { return v != 0; }); }
};

/// Runs potrf (nrhs < 0) or posv through run(n, A, lda, strideA, B, ldb, strideB, nrhs, info, batch) -> failed members,
/// on copies of fresh inputs, and checks the results.
template <typename C, typename Run>
void check_cholesky(int n, int64_t nrhs, int64_t batch, uint64_t seed, Run&& run) {
    INFO("prec=" << complex_letter<C>() << " n=" << n << " nrhs=" << nrhs << " batch=" << batch << " seed=" << seed);
    CholeskyInputs<C> in(n, nrhs, batch, seed);
    HostBatch<C> F = in.A, X = in.B;
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(batch, 1)), -1);
    const int64_t failed =
        run(int64_t(n), F.data.data(), F.ld, F.stride, X.data.data(), X.ld, X.stride, nrhs, info.data(), batch);
    CHECK(failed == in.failures());
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        REQUIRE(info[static_cast<size_t>(i)] == in.expected[static_cast<size_t>(i)]);
        CHECK(untouched_outside(in.A, F, i, true));  // the upper triangle, padding rows and gaps
        if (in.expected[static_cast<size_t>(i)] != 0) {
            if (nrhs > 0) CHECK(same_member(in.B, X, i));  // a failed member keeps its right-hand sides
            continue;
        }
        const std::vector<C> a = in.A.packed(i);
        CHECK(hermitian_factor_residual(a, F.packed(i), n) < kResidualBound);
        if (nrhs > 0) {
            CHECK(untouched_outside(in.B, X, i, false));
            CHECK(solve_residual(a, X.packed(i), in.B.packed(i), n, nrhs) < kResidualBound);
        }
    }
}

// ---- LU ------------------------------------------------------------------------------------------------------------

/// General members of order n (entries uniform in the unit square) at ld = n + 2, stride ld * n + 3; member 2 with
/// an exactly zero column n / 2 (info n / 2 + 1), when the batch has it.
template <typename C>
struct GeneralInputs {
    HostBatch<C> A;
    std::vector<int> expected;
    GeneralInputs(int n, int64_t batch, uint64_t seed, bool singular = true)
        : A(n, n, n + 2, int64_t(n + 2) * n + 3, batch), expected(static_cast<size_t>(batch), 0) {
        std::mt19937_64 g(seed);
        for (int64_t i = 0; i < batch; ++i) A.set(i, random_block<C>(n, n, g));
        if (singular && batch > 2) {
            const int k = n / 2;
            for (int r = 0; r < n; ++r) A.at(2, r, k) = C(0);
            expected[2] = k + 1;
        }
    }
    int64_t failures() const { return std::count_if(expected.begin(), expected.end(), [](int v) { return v != 0; }); }
};

/// The identity of order n, packed.
template <typename C>
std::vector<C> identity(int n) {
    std::vector<C> I(static_cast<size_t>(n) * n, C(0));
    for (int i = 0; i < n; ++i) I[static_cast<size_t>(i) * n + i] = C(1);
    return I;
}

/// Runs getrf through run(A, lda, strideA, ipiv, stride_piv, info, batch) -> failed members on a copy of fresh general
/// inputs, and checks info, the failed count, ||P A - L U|| of the members that succeeded, the pivots' range (each
/// member's, with LAPACK's own pivots when lapack_pivots) and what lies outside the members and their pivots. The
/// pivots lie n + piv_gap apart.
template <typename C, typename Run>
void check_getrf(int n, int64_t batch, uint64_t seed, bool lapack_pivots, Run&& run, int64_t piv_gap = 1) {
    INFO("prec=" << complex_letter<C>() << " n=" << n << " batch=" << batch << " piv_gap=" << piv_gap
                 << " seed=" << seed);
    GeneralInputs<C> in(n, batch, seed);
    HostBatch<C> F = in.A;
    const int64_t stride_piv = n + piv_gap;
    std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(1, batch * stride_piv)), -5);
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(batch, 1)), -1);
    const int64_t failed = run(F.data.data(), F.ld, F.stride, ipiv.data(), stride_piv, info.data(), batch);
    CHECK(failed == in.failures());
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        REQUIRE(info[static_cast<size_t>(i)] == in.expected[static_cast<size_t>(i)]);
        CHECK(untouched_outside(in.A, F, i, false));
        if (piv_gap > 0) CHECK(ipiv[static_cast<size_t>(i * stride_piv + n)] == -5);  // the pivot stride's gap
        std::vector<int64_t> p(static_cast<size_t>(n));
        for (int k = 0; k < n; ++k) {
            p[static_cast<size_t>(k)] = ipiv[static_cast<size_t>(i * stride_piv + k)];
            CHECK(p[static_cast<size_t>(k)] >= k + 1);
            CHECK(p[static_cast<size_t>(k)] <= n);
        }
        if (in.expected[static_cast<size_t>(i)] != 0) continue;
        const std::vector<C> a = in.A.packed(i);
        CHECK(getrf_residual(a, F.packed(i), p, n) < kResidualBound);
        if (lapack_pivots) CHECK(lapack_getrf(a, n).second == p);
    }
}

/// Runs the in-place inverse through run(A, lda, strideA, info, batch) -> failed members on a copy of fresh general
/// inputs, and checks info, the failed count and ||A X - I|| / (||A|| ||X|| n eps) of the members that succeeded.
template <typename C, typename Run>
void check_inverse(int n, int64_t batch, uint64_t seed, Run&& run) {
    INFO("prec=" << complex_letter<C>() << " n=" << n << " batch=" << batch << " seed=" << seed);
    GeneralInputs<C> in(n, batch, seed);
    HostBatch<C> X = in.A;
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(batch, 1)), -1);
    const int64_t failed = run(X.data.data(), X.ld, X.stride, info.data(), batch);
    CHECK(failed == in.failures());
    const std::vector<C> I = identity<C>(n);
    for (int64_t i = 0; i < batch; ++i) {
        INFO("member " << i);
        REQUIRE(info[static_cast<size_t>(i)] == in.expected[static_cast<size_t>(i)]);
        CHECK(untouched_outside(in.A, X, i, false));
        if (in.expected[static_cast<size_t>(i)] != 0) continue;
        CHECK(solve_residual(in.A.packed(i), X.packed(i), I, n, n) < kResidualBound);
    }
}

}  // namespace starfact::test::batched_complex
