// The checks that the distributed LU tests share (test_mpi_lu.cpp in s and d, test_mpi_complex.cpp in c and z): getrf
// of a distributed copy of A and of this process alone, the pivots every rank gathered, gesv (blocking or async) on
// distributed copies, and the cases of a matrix that breaks a factorization down at a chosen index, whose info every
// rank must report. Seeds, grid names and the options of the runs: tests/mpi_support.hpp.
#pragma once
#include <mpi.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "algorithms/lu_interchanges.hpp"
#include "tests/mpi_support.hpp"
#include "tests/support.hpp"

namespace starfact::test::mpi {

/// Whether every rank holds the same ipiv.
inline bool same_on_every_rank(const std::vector<int64_t>& ipiv) {
    int differs = 0;
    for (int64_t mine : ipiv) {
        int64_t lowest = 0, highest = 0;
        MPI_Allreduce(&mine, &lowest, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &highest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        differs |= lowest != highest;
    }
    return differs == 0;
}

/// info == expected, and the same info on every rank.
inline void check_info_on_every_rank(int info, int expected) {
    CHECK(info == expected);
    for (int i : gather_all(info)) CHECK(i == info);
}

/// getrf of this process alone on the same matrix and tiles, its panels as on a grid of `rows` rows (tournament
/// pivoting when rows > 1, as a distributed getrf on such a grid: algorithms/lu_tournament.hpp): the reference
/// pivots, its info in *info.
template <typename T>
std::vector<int64_t> local_pivots(const std::vector<T>& A, int64_t n, int64_t nb, int* info, int rows = 1) {
    struct Split {  // the one-process split of the tests (tile_interchange_rows_for_tests)
        explicit Split(int r) { starfact::detail::tile_interchange_rows_for_tests().store(r > 1 ? r : 0); }
        ~Split() { starfact::detail::tile_interchange_rows_for_tests().store(0); }
    } split(rows);
    TileMatrix<T> local(runtime(), n, nb);
    local.import(A.data(), n);
    Pivots piv(local);
    *info = getrf(local, piv, cpu_only());
    return piv.ipiv();
}

/// What getrf of a distributed copy of A left: its info, the factors and the pivots (gathered on every rank).
template <typename T>
struct DistributedLu {
    int info = 0;
    std::vector<T> LU;
    std::vector<int64_t> ipiv;
};

/// getrf of a distributed copy of the n x n A (tiles of nb over `grid`); its statistics in *stats when given (real T:
/// the complex getrf takes none).
template <typename T>
DistributedLu<T> distributed_getrf(const std::vector<T>& A, int64_t n, int64_t nb, const Grid& grid,
                                   RunStats* stats = nullptr) {
    TileMatrix<T> tiles(runtime(), n, nb, Residency::Host, TileLayout{grid, false});
    REQUIRE(tiles.distributed());
    tiles.import(A.data(), n);
    Pivots piv(tiles);
    CHECK(piv.distributed());
    DistributedLu<T> out;
    if constexpr (std::is_floating_point<T>::value)
        out.info = stats ? getrf(tiles, piv, cpu_only(), *stats) : getrf(tiles, piv, cpu_only());
    else
        out.info = getrf(tiles, piv, cpu_only());
    out.LU = A;
    tiles.export_to(out.LU.data(), n);
    out.ipiv = piv.ipiv();
    return out;
}

/// gesv (blocking, or async in a Sequence) on distributed copies of the n x n A and the n x nrhs B: the solution.
template <typename T>
std::vector<T> distributed_gesv(const std::vector<T>& A, const std::vector<T>& B, int64_t n, int64_t nrhs, int64_t nb,
                                const Grid& grid, bool async_form) {
    const TileLayout layout{grid, false};
    TileMatrix<T> a(runtime(), n, nb, Residency::Host, layout), b(runtime(), n, nrhs, nb, Residency::Host, layout);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Pivots piv(a);
    if (async_form) {
        Sequence seq(runtime());
        const int op = async::gesv(a, piv, b, seq, cpu_only());
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
    } else {
        CHECK(gesv(a, piv, b, cpu_only()) == 0);
    }
    std::vector<T> X(B.size());
    b.export_to(X.data(), n);
    return X;
}

/// Runs breakdown(grid, bad, seed) for every grid of `grids` and every index of `bads` on the square grid, for
/// `featured` alone on the others; seed: a fresh one, the same on every rank.
template <typename Case>
void over_breakdowns(const std::vector<Grid>& grids, std::initializer_list<int64_t> bads, int64_t featured,
                     Case&& breakdown) {
    const Grid square = Grid::square(runtime().mpi_size());
    for (const Grid& grid : grids)
        for (int64_t bad : bads) {
            if (grid != square && bad != featured) continue;
            breakdown(grid, bad, shared_seed());
        }
}

}  // namespace starfact::test::mpi
