// The tile LU's panels by tournament pivoting (algorithms/lu_tournament.hpp: a column spread over several grid rows),
// run in one process with its tiles split as on grids of 2 and 3 rows: the first step's pivots against a tournament
// computed here with LAPACK's getrf on the same stacks, scaled residuals < 60 for the four element types, LAPACK's
// info for a zero column, STARFACT_LU_PANEL=gathered back to partial pivoting (LAPACK's pivots), and the blocking
// form's row exchanges against the tile-by-tile exchange (the same factor).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>

#include "algorithms/lu_tournament.hpp"
#include "tests/laswp_tile_checks.hpp"
#include "tests/lu_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::lu;
using starfact::test::laswp_tile::TileByTile;

namespace {

/// The global rows (0-based) that partial pivoting picks first, min(h, kb) of them, in the h x kb stack S whose rows
/// are `rows`.
template <typename T>
std::vector<int> picks(std::vector<T> S, int h, int kb, const std::vector<int>& rows) {
    std::vector<int> ipiv(static_cast<size_t>(std::min(h, kb)));
    starfact::detail::cpu::getrf<T>(h, kb, S.data(), h, ipiv.data());
    std::vector<int> perm(static_cast<size_t>(h));
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = 0; i < ipiv.size(); ++i) std::swap(perm[i], perm[static_cast<size_t>(ipiv[i] - 1)]);
    std::vector<int> out;
    for (size_t i = 0; i < ipiv.size(); ++i) out.push_back(rows[static_cast<size_t>(perm[i])]);
    return out;
}

/// The tournament of the first step of A (order n, tiles of nb split over p grid rows) as lu_tournament.hpp lays it
/// out: leaves of at most kTournamentLeafTiles tiles of one grid row, a binary tree over them; the winners' rows.
template <typename T>
std::vector<int> host_tournament(const std::vector<T>& A, int64_t n, int64_t nb, int p) {
    const int64_t mt = (n + nb - 1) / nb, kb = std::min(nb, n);
    auto stack = [&](const std::vector<int>& rows) {
        std::vector<T> S(rows.size() * static_cast<size_t>(kb));
        for (int64_t c = 0; c < kb; ++c)
            for (size_t r = 0; r < rows.size(); ++r) S[r + c * rows.size()] = A[rows[r] + c * n];
        return S;
    };
    std::vector<std::vector<int>> sets;
    for (int64_t d = 0; d < p && d < mt; ++d) {
        const int64_t tiles = (mt - d + p - 1) / p;
        for (int64_t c = 0; c < tiles; c += starfact::detail::kTournamentLeafTiles) {
            std::vector<int> rows;
            for (int64_t i = c; i < std::min(tiles, c + starfact::detail::kTournamentLeafTiles); ++i)
                for (int64_t r = (d + i * p) * nb; r < std::min(n, (d + i * p + 1) * nb); ++r)
                    rows.push_back(static_cast<int>(r));
            sets.push_back(picks(stack(rows), static_cast<int>(rows.size()), static_cast<int>(kb), rows));
        }
    }
    for (size_t s = 1; s < sets.size(); s *= 2)
        for (size_t l = 0; l + s < sets.size(); l += 2 * s) {
            std::vector<int> rows = sets[l];
            rows.insert(rows.end(), sets[l + s].begin(), sets[l + s].end());
            sets[l] = picks(stack(rows), static_cast<int>(rows.size()), static_cast<int>(kb), rows);
        }
    return sets.front();
}

/// getrf of a copy of A in tiles of nb split over p grid rows: info, the factor and the pivots.
template <typename T>
int tile_getrf(const std::vector<T>& A, int64_t n, int64_t nb, int p, std::vector<T>* LU, std::vector<int64_t>* ipiv) {
    const TileByTile split(p);
    TileMatrix<T> a(runtime(), n, nb);
    a.import(A.data(), n);
    Pivots piv(a);
    const int info = getrf(a, piv, on(Mapping::CpuOnly));
    LU->resize(A.size());
    a.export_to(LU->data(), n);
    *ipiv = piv.ipiv();
    return info;
}

/// tile_getrf of A, info 0 and its scaled residual < 60; returns the pivots.
template <typename T>
std::vector<int64_t> factor_and_check(const std::vector<T>& A, int64_t n, int64_t nb, int p) {
    std::vector<T> LU;
    std::vector<int64_t> ipiv;
    REQUIRE(tile_getrf(A, n, nb, p, &LU, &ipiv) == 0);
    const double res = lu_residual<T>(n, A.data(), n, LU.data(), n, ipiv);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    return ipiv;
}

}  // namespace

TEST_CASE("tournament pivots bring the winners to the top rows in order", "[lu][cpu][tournament]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    for (int64_t offset : {int64_t(0), int64_t(40)})
        for (int kb : {1, 5, 16}) {
            std::vector<int> rows(64);
            std::iota(rows.begin(), rows.end(), static_cast<int>(offset));
            std::shuffle(rows.begin(), rows.end(), rng);
            rows.resize(static_cast<size_t>(kb));
            const std::vector<int> piv = starfact::detail::tournament_pivots(rows.data(), kb, offset);
            std::vector<int64_t> at(static_cast<size_t>(offset + 64));
            std::iota(at.begin(), at.end(), 0);
            for (int i = 0; i < kb; ++i) {
                const int64_t p = piv[static_cast<size_t>(i)] - 1;
                CHECK(p >= offset + i);
                std::swap(at[static_cast<size_t>(offset + i)], at[static_cast<size_t>(p)]);
            }
            for (int i = 0; i < kb; ++i) CHECK(at[static_cast<size_t>(offset + i)] == rows[static_cast<size_t>(i)]);
        }
}

TEMPLATE_TEST_CASE("LU by tournament pivoting: the first step's pivots are the tournament's, residuals < 60",
                   "[lu][cpu][tournament]", float, double) {
    for (int p : {2, 3})
        for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{100, 8}, {37, 8}, {150, 16}, {70, 7}}) {
            const uint64_t seed = fresh_seed();
            INFO("n=" << n << " nb=" << nb << " grid rows=" << p << " seed=" << seed);
            const std::vector<TestType> A = random_general<TestType>(n, n, seed);
            const std::vector<int64_t> ipiv = factor_and_check(A, n, nb, p);
            const std::vector<int> winners = host_tournament(A, n, nb, p);
            const std::vector<int> expected =
                starfact::detail::tournament_pivots(winners.data(), static_cast<int>(winners.size()), 0);
            for (size_t i = 0; i < expected.size(); ++i) CHECK(ipiv[i] == expected[i]);
            std::vector<TestType> ref = A;
            std::vector<int> ref_piv(static_cast<size_t>(n));
            REQUIRE(lapack_getrf<TestType>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data()) == 0);
            CHECK(ref_piv[0] == winners[0] + 1);  // the column's largest entry wins every round it enters
        }
}

TEMPLATE_TEST_CASE("LU by tournament pivoting, complex tiles: residuals < 60", "[lu][cpu][tournament]",
                   std::complex<float>, std::complex<double>) {
    for (int p : {2, 3})
        for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{1, 8}, {5, 8}, {61, 8}, {100, 16}}) {
            const uint64_t seed = fresh_seed();
            INFO("n=" << n << " nb=" << nb << " grid rows=" << p << " seed=" << seed);
            std::mt19937_64 rng(seed);
            const std::vector<TestType> A =
                starfact::test::laswp_tile::random_entries<TestType>(static_cast<size_t>(n * n), rng);
            factor_and_check(A, n, nb, p);
        }
}

TEST_CASE("LU by tournament pivoting: a zero column gives LAPACK's info", "[lu][cpu][tournament]") {
    const int64_t n = 90, nb = 16;
    for (int64_t bad : {int64_t(3), nb + 5, 4 * nb, n - 1}) {
        const uint64_t seed = fresh_seed();
        INFO("zero column " << bad << " seed=" << seed);
        std::vector<double> A = random_general<double>(n, n, seed);
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + bad * n)] = 0;
        std::vector<double> LU;
        std::vector<int64_t> ipiv;
        CHECK(tile_getrf(A, n, nb, 2, &LU, &ipiv) == bad + 1);
    }
}

TEST_CASE("STARFACT_LU_PANEL=gathered: the split column's panels by partial pivoting again", "[lu][cpu][tournament]") {
    const int64_t n = 100, nb = 8;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = random_general<double>(n, n, seed);
    std::vector<double> ref = A, LU;
    std::vector<int> ref_piv(static_cast<size_t>(n));
    REQUIRE(lapack_getrf<double>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data()) == 0);
    std::vector<int64_t> ipiv;
    ::setenv("STARFACT_LU_PANEL", "gathered", 1);
    const int info = tile_getrf(A, n, nb, 2, &LU, &ipiv);
    ::unsetenv("STARFACT_LU_PANEL");
    REQUIRE(info == 0);
    CHECK(std::equal(ipiv.begin(), ipiv.end(), ref_piv.begin()));
    CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
}

TEMPLATE_TEST_CASE("LU on a split column: row exchanges and tile-by-tile exchanges give the same factor",
                   "[lu][cpu][tournament][exchange]", float, double, std::complex<double>) {
    // getrf's blocking form exchanges only the rows that move (algorithms/lu_row_exchange.hpp);
    // STARFACT_LU_EXCHANGE=tiles, the tile-by-tile exchange of the submit forms: the same rows end in the same places.
    for (int p : {2, 3})
        for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{100, 8}, {37, 8}, {16, 16}, {150, 16}}) {
            const uint64_t seed = fresh_seed();
            INFO("n=" << n << " nb=" << nb << " grid rows=" << p << " seed=" << seed);
            std::mt19937_64 rng(seed);
            const std::vector<TestType> A =
                starfact::test::laswp_tile::random_entries<TestType>(static_cast<size_t>(n * n), rng);
            std::vector<TestType> rows_lu, tiles_lu;
            std::vector<int64_t> rows_piv, tiles_piv;
            REQUIRE(tile_getrf(A, n, nb, p, &rows_lu, &rows_piv) == 0);
            ::setenv("STARFACT_LU_EXCHANGE", "tiles", 1);
            const int info = tile_getrf(A, n, nb, p, &tiles_lu, &tiles_piv);
            ::unsetenv("STARFACT_LU_EXCHANGE");
            REQUIRE(info == 0);
            CHECK(rows_piv == tiles_piv);
            CHECK(rows_lu == tiles_lu);
            CHECK(lu_residual<TestType>(n, A.data(), n, rows_lu.data(), n, rows_piv) < kResidualLimit);
        }
}
