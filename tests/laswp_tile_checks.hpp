// Shared by the CPU and GPU tests of the LU's row interchanges applied tile by tile (the distributed LU's compose,
// gather, spread and top tasks: codelets/laswp_compose.cpp, codelets/laswp_tile.cpp), run in one process on tiles
// split as for grids of several rows: the tasks against LAPACK's laswp (through the scalar layer), and the composed
// permutation a compose task writes against compose_interchanges laid out as codelets/lu_codelets.hpp says.
#pragma once
#include <starpu.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "algorithms/lu_interchanges.hpp"
#include "codelets/lu_codelets.hpp"
#include "kernels/cpu_lapack.hpp"
#include "kernels/scalar.hpp"
#include "starfact/lu.hpp"
#include "starfact/lu_complex.hpp"
#include "tests/lu_support.hpp"
#include "tests/support.hpp"

namespace starfact::test::laswp_tile {

/// count random entries of T (uniform in [-1, 1], both parts of a complex one).
template <typename T>
std::vector<T> random_entries(size_t count, std::mt19937_64& rng) {
    using R = starfact::detail::real_t<T>;
    std::uniform_real_distribution<R> u(R(-1), R(1));
    std::vector<T> v(count);
    for (T& x : v) {
        if constexpr (starfact::detail::is_complex_v<T>) {
            const R re = u(rng);
            x = T(re, u(rng));
        } else {
            x = u(rng);
        }
    }
    return v;
}

/// The kb pivots (global, 1-based) of a step whose column has m rows from global row `offset`: random rows at or
/// below each, and often the previous pivot again while it still lies ahead, so that a row is taken twice (which
/// the pivots of random matrices rarely do).
inline std::vector<int64_t> pivots_taking_rows_twice(std::mt19937_64& rng, int64_t offset, int64_t kb, int64_t m) {
    std::vector<int64_t> piv(static_cast<size_t>(kb));
    for (int64_t i = 0; i < kb; ++i) {
        const bool again = i > 0 && rng() % 3 == 0 && piv[i - 1] - 1 - offset >= i;
        piv[i] = again ? piv[i - 1] : offset + i + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(m - i));
    }
    return piv;
}

/// Writes `piv` into the pivot vector h (on the host; a task reading it elsewhere gets it from there).
inline void set_pivots(starpu_data_handle_t h, const std::vector<int64_t>& piv) {
    REQUIRE(starpu_data_acquire(h, STARPU_W) == 0);
    int* values = reinterpret_cast<int*>(starpu_vector_get_local_ptr(h));
    for (size_t i = 0; i < piv.size(); ++i) values[i] = static_cast<int>(piv[i]);
    starpu_data_release(h);
}

/// The composed permutation of `piv` as the compose task lays it out (codelets/lu_codelets.hpp), from
/// compose_interchanges.
inline std::vector<int> expected_composed(const std::vector<int64_t>& piv, int64_t offset) {
    const int kb = static_cast<int>(piv.size());
    std::vector<int> p32(piv.begin(), piv.end());
    const starfact::detail::RowPermutation p = starfact::detail::compose_interchanges(p32.data(), kb, offset);
    std::vector<int> out(static_cast<size_t>(starfact::detail::composed_size(kb)), -1);
    out[0] = static_cast<int>(p.below.size());
    for (int i = 0; i < kb; ++i) out[static_cast<size_t>(1 + i)] = static_cast<int>(p.top[static_cast<size_t>(i)]);
    for (size_t q = 0; q < p.below.size(); ++q) {
        out[1 + static_cast<size_t>(kb) + q] = static_cast<int>(p.below[q].first);
        out[1 + 2 * static_cast<size_t>(kb) + q] = static_cast<int>(p.below[q].second);
    }
    return out;
}

/// Runs one compose task under `mapping` on the pivots in h (kb of them, the step's first row `offset`, tiles of
/// nb rows) and returns the vector it wrote.
inline std::vector<int> run_compose(Mapping mapping, starpu_data_handle_t h, int64_t kb, int64_t offset, int64_t nb) {
    starpu_data_handle_t c = nullptr;
    starpu_vector_data_register(&c, -1, 0, static_cast<uint32_t>(starfact::detail::composed_size(kb)), sizeof(int));
    starfact::detail::TaskOptions o;
    o.mapping = mapping;
    starfact::detail::insert_laswp_compose(runtime(), o, h, c, offset, nb);
    std::vector<int> out(static_cast<size_t>(starfact::detail::composed_size(kb)));
    REQUIRE(starpu_data_acquire(c, STARPU_R) == 0);  // on the host, after the task
    const int* values = reinterpret_cast<const int*>(starpu_vector_get_local_ptr(c));
    std::copy(values, values + out.size(), out.begin());
    starpu_data_release(c);
    starpu_data_unregister(c);
    return out;
}

/// Step k's interchanges on every tile column of an n x 13 matrix of tiles of nb rows (`residency`), applied tile
/// by tile under `mapping` as on grids of 1 to 3 rows, equal LAPACK's laswp on the same array; and the step's
/// composed permutation, from a compose task under `mapping`, equals compose_interchanges'. Steps 0, 1 and the
/// last, pivots taking rows twice.
template <typename T>
void check_tile_interchanges(Mapping mapping, Residency residency, int64_t n, int64_t nb, std::mt19937_64& rng) {
    const int64_t mt = (n + nb - 1) / nb, ncols = 13;
    for (int rows : {1, 2, 3})
        for (int64_t k : {int64_t(0), std::min<int64_t>(1, mt - 1), mt - 1}) {
            const int64_t offset = k * nb, kb = std::min(nb, n - offset), m = n - offset;
            const std::vector<int64_t> piv = pivots_taking_rows_twice(rng, offset, kb, m);
            INFO("n=" << n << " nb=" << nb << " grid rows=" << rows << " step " << k << " mapping "
                      << to_string(mapping) << " residency " << to_string(residency));
            const std::vector<T> A = random_entries<T>(static_cast<size_t>(n * ncols), rng);
            std::vector<T> ref = A;
            std::vector<lapack_int> ipiv(static_cast<size_t>(n));
            for (int64_t i = 0; i < kb; ++i) ipiv[offset + i] = static_cast<lapack_int>(piv[i]);
            REQUIRE(starfact::detail::cpu::laswp<T>(static_cast<int>(ncols), ref.data(), static_cast<int>(n),
                                                    static_cast<int>(offset + 1), static_cast<int>(offset + kb),
                                                    ipiv.data(), 1) == 0);
            TileMatrix<T> tiles(runtime(), n, ncols, nb, residency);
            tiles.import(A.data(), n);
            Pivots pivots(runtime(), n, nb);
            const starpu_data_handle_t h = pivots.step(k);
            set_pivots(h, piv);
            CHECK(run_compose(mapping, h, kb, offset, nb) == expected_composed(piv, offset));
            {
                starfact::detail::TileInterchanges<T> x(tiles, rows);
                starfact::detail::TaskOptions o;
                o.mapping = mapping;
                for (int64_t j = 0; j < tiles.nt(); ++j) x.submit(runtime(), o, k, j, h);
            }
            std::vector<T> out(ref.size());
            tiles.export_to(out.data(), n);  // waits for the tasks writing the tiles
            CHECK(out == ref);
        }
}

/// Sets tile_interchange_rows_for_tests for its lifetime: a one-process getrf or getrs then applies its
/// interchanges tile by tile as on a grid of `rows` rows.
class TileByTile {
public:
    explicit TileByTile(int rows) { starfact::detail::tile_interchange_rows_for_tests().store(rows); }
    ~TileByTile() { starfact::detail::tile_interchange_rows_for_tests().store(0); }
    TileByTile(const TileByTile&) = delete;
    TileByTile& operator=(const TileByTile&) = delete;
};

/// getrf, then getrs on nrhs right-hand sides, of a random matrix of order n in tiles of nb (`residency`) under
/// `mapping`, their interchanges applied tile by tile as on a grid of `rows` rows: both scaled residuals < 60.
template <typename T>
void check_lu_tile_by_tile(Mapping mapping, Residency residency, int64_t n, int64_t nb, int64_t nrhs, int rows,
                           std::mt19937_64& rng) {
    INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " grid rows=" << rows << " mapping " << to_string(mapping)
              << " residency " << to_string(residency));
    const TileByTile split(rows);
    const std::vector<T> A = random_entries<T>(static_cast<size_t>(n * n), rng);
    const std::vector<T> B = random_entries<T>(static_cast<size_t>(n * nrhs), rng);
    TileMatrix<T> a(runtime(), n, nb, residency), b(runtime(), n, nrhs, nb, residency);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Pivots piv(a);
    Options o;
    o.mapping = mapping;
    REQUIRE(getrf(a, piv, o) == 0);
    getrs(a, piv, b, o);
    std::vector<T> LU(A.size()), X(B.size());
    a.export_to(LU.data(), n);
    b.export_to(X.data(), n);
    const double fr = lu::lu_residual(n, A.data(), n, LU.data(), n, piv.ipiv()),
                 sr = lu::general_solve_residual(n, nrhs, A.data(), X.data(), B.data());
    INFO("getrf residual " << fr << ", getrs residual " << sr);
    CHECK(fr < kResidualLimit);
    CHECK(sr < kResidualLimit);
}

}  // namespace starfact::test::laswp_tile
