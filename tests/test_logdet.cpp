// The log-determinant on CPU workers: logdet of a factor and potrf_logdet of a matrix against LAPACK's Cholesky
// (tests/logdet_support.hpp) for one entry, a single partial tile, a partial last tile and several tiles; matrices
// whose determinant overflows or underflows; non-SPD matrices and bad factors reported through info with a NaN
// result; the empty matrix; the submit form chained after potrf; bad arguments named.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/logdet_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
namespace reference = starfact::test::logdet;

namespace {

const char* prec_name(size_t bytes) { return bytes == 4 ? "s" : "d"; }

bool is_nan(const LogDet& d) { return std::isnan(d.sign) && std::isnan(d.logabsdet); }

/// potrf_logdet of a fresh SPD matrix of order n in tiles of nb, and logdet of the factor it left, against the
/// reference; the matrix scaled by `scale` first (the reference is the unscaled one's plus n log(scale)).
template <typename T>
void check_logdet(int64_t n, int64_t nb, Mapping mapping, double scale = 1.0) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " scale=" << scale << " seed=" << seed
              << " prec=" << prec_name(sizeof(T)));
    const int64_t ld = n + 3;
    std::vector<T> A = spd_matrix<T>(n, ld, seed);
    const reference::Reference ref0 = reference::reference<T>(n, A.data(), ld);
    REQUIRE(ref0.info == 0);
    const double expected = ref0.value + static_cast<double>(n) * std::log(scale);
    if (scale != 1.0) reference::scale(n, A, ld, scale);
    const double tol = reference::tolerance<T>(n, expected);
    INFO("expected=" << expected << " tolerance=" << tol);

    std::vector<T> F = A;
    LogDet d{0.0, 0.0};
    REQUIRE(potrf_logdet(runtime(), n, F.data(), ld, d, on(mapping), Tiling{nb}) == 0);
    CHECK(d.sign == 1.0);
    CHECK(std::abs(d.logabsdet - expected) <= tol);
    // A holds the factor, as potrf's array form leaves it (the upper triangle untouched).
    std::vector<T> P = A;
    REQUIRE(potrf(runtime(), n, P.data(), ld, on(mapping), Tiling{nb}) == 0);
    CHECK(F == P);

    // logdet of that factor, held in tiles of its own (one tile where the array form took the plan's).
    TileMatrix<T> L(runtime(), n, nb > 0 ? nb : n);
    L.import(F.data(), ld);
    LogDet e{0.0, 0.0};
    REQUIRE(logdet(L, e, on(mapping)) == 0);
    CHECK(e.sign == 1.0);
    CHECK(std::abs(e.logabsdet - expected) <= tol);
}

}  // namespace

TEMPLATE_TEST_CASE("logdet: 2 sum log L(i, i) against LAPACK's Cholesky", "[logdet][cpu]", float, double) {
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        check_logdet<TestType>(1, 16, m);
        check_logdet<TestType>(20, 32, m);          // n < nb: one partial tile
        check_logdet<TestType>(32, 32, m);          // n = nb
        check_logdet<TestType>(3 * 32 + 7, 32, m);  // a partial last tile
        check_logdet<TestType>(300, 64, m);
    }
    check_logdet<TestType>(257, 0, Mapping::CpuOnly);  // the plan's tile size
}

TEMPLATE_TEST_CASE("logdet: right where the determinant overflows or underflows", "[logdet][cpu]", float, double) {
    using T = TestType;
    // Scales within T's range whose determinant of order 100 is far outside it: 1e30^100 in float, 1e200^100 in
    // double, and their inverses.
    const double big = sizeof(T) == sizeof(float) ? 1e30 : 1e200;
    const int64_t n = 100;
    const double log_det_bound = std::log(static_cast<double>(std::numeric_limits<T>::max()));
    CHECK(static_cast<double>(n) * std::log(big) > 2 * log_det_bound);  // det overflows, 1 / det underflows
    for (double s : {big, 1.0 / big}) {
        check_logdet<T>(n, 32, Mapping::CpuOnly, s);
        check_logdet<T>(n, 0, Mapping::Hybrid, s);
    }
}

TEMPLATE_TEST_CASE("logdet: a matrix that is not SPD gives potrf's info and a NaN result", "[logdet][cpu]", float,
                   double) {
    using T = TestType;
    const int64_t n = 90, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << prec_name(sizeof(T)));
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    for (const BadEntry<T>& bad : {BadEntry<T>{40, 40, T(-1), 41}, BadEntry<T>{0, 0, T(0), 1},
                                   BadEntry<T>{70, 5, nan, 71}, BadEntry<T>{89, 89, inf, 90},
                                   BadEntry<T>{33, 20, T(4 * n), 34}}) {
        INFO("A(" << bad.i << ", " << bad.j << ") = " << bad.v);
        std::vector<T> A = spd_matrix<T>(n, n, seed);
        A[bad.i + bad.j * n] = bad.v;
        if (!std::isnan(static_cast<double>(bad.v)) && !std::isinf(static_cast<double>(bad.v)))
            CHECK(reference::reference<T>(n, A.data(), n).info == bad.expected);
        for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
            std::vector<T> F = A;
            LogDet d;
            CHECK(potrf_logdet(runtime(), n, F.data(), n, d, on(m), Tiling{nb}) == bad.expected);
            CHECK(is_nan(d));
        }
    }
    CHECK(settled_pending_tasks(runtime()) == 0);
}

TEMPLATE_TEST_CASE("logdet: a factor whose diagonal is not positive and finite gives the entry as info",
                   "[logdet][cpu]", float, double) {
    using T = TestType;
    const int64_t n = 75, nb = 16;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << prec_name(sizeof(T)));
    std::vector<T> F = spd_matrix<T>(n, n, seed);
    REQUIRE(potrf(runtime(), n, F.data(), n, on(Mapping::CpuOnly), Tiling{nb}) == 0);
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    for (int64_t first : {int64_t{0}, int64_t{17}, n - 1}) {
        for (T v : {T(0), T(-2), nan, inf}) {
            INFO("L(" << first << ", " << first << ") = " << v);
            std::vector<T> G = F;
            G[first + first * n] = v;
            G[(n - 1) + (n - 1) * n] = first == n - 1 ? v : T(-1);  // a later bad entry does not win
            TileMatrix<T> L(runtime(), n, nb);
            L.import(G.data(), n);
            for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
                LogDet d;
                CHECK(logdet(L, d, on(m)) == first + 1);
                CHECK(is_nan(d));
            }
        }
    }
}

TEMPLATE_TEST_CASE("logdet: the empty matrix, lower_only tiles and the submit form after potrf", "[logdet][cpu]",
                   float, double) {
    using T = TestType;
    Runtime& rt = runtime();
    TileMatrix<T> empty(rt, 0, 8);
    LogDet d{0.0, 5.0};
    CHECK(logdet(empty, d) == 0);
    CHECK(d.sign == 1.0);
    CHECK(d.logabsdet == 0.0);
    d = LogDet{0.0, 5.0};
    CHECK(potrf_logdet<T>(rt, 0, nullptr, 1, d) == 0);
    CHECK((d.sign == 1.0 && d.logabsdet == 0.0));

    const int64_t n = 150, nb = 40;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << prec_name(sizeof(T)));
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    const reference::Reference ref = reference::reference<T>(n, A.data(), n);
    REQUIRE(ref.info == 0);
    TileLayout lower;
    lower.lower_only = true;
    TileMatrix<T> L(rt, n, nb, Residency::Host, lower);
    L.import(A.data(), n);
    Sequence seq(rt);
    const int factored = async::potrf(L, seq, on(Mapping::CpuOnly));
    LogDet r{0.0, 0.0};
    const int det = async::logdet(L, seq, r, on(Mapping::CpuOnly));
    CHECK(det == factored + 1);
    CHECK(seq.wait() == 0);
    CHECK(seq.info(det) == 0);
    CHECK(r.sign == 1.0);
    CHECK(std::abs(r.logabsdet - ref.value) <= reference::tolerance<T>(n, ref.value));

    // A failing factorization in the same sequence: its info comes first.
    std::vector<T> B = A;
    B[60 + 60 * n] = T(-1);
    L.import(B.data(), n);
    const int f2 = async::potrf(L, seq, on(Mapping::CpuOnly));
    async::logdet(L, seq, r, on(Mapping::CpuOnly));
    CHECK(seq.wait() == 61);
    CHECK(seq.info(f2) == 61);
    CHECK(settled_pending_tasks(rt) == 0);
}

TEST_CASE("logdet: bad arguments are named", "[logdet][errors][cpu]") {
    Runtime& rt = runtime();
    auto named = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find("starfact::") != std::string::npos);
            return e.argument();
        }
        return "";
    };
    std::vector<double> A(100, 1.0);
    LogDet d;
    TileMatrix<double> wide(rt, 10, 12, 4);
    CHECK(named([&] { logdet(wide, d); }) == "L");
    CHECK(named([&] { potrf_logdet<double>(rt, -1, A.data(), 10, d); }) == "n");
    CHECK(named([&] { potrf_logdet<double>(rt, 10, A.data(), 9, d); }) == "lda");
    CHECK(named([&] { potrf_logdet<double>(rt, 10, nullptr, 10, d); }) == "A");
    CHECK(named([&] { potrf_logdet<double>(rt, 10, A.data(), 10, d, {}, Tiling{-1}); }) == "nb");
    if (rt.cuda_workers() == 0) {
        TileMatrix<double> L(rt, 10, 4);
        CHECK(named([&] { logdet(L, d, on(Mapping::GpuOnly)); }) == "mapping");
    }
    CHECK(settled_pending_tasks(rt) == 0);
}
