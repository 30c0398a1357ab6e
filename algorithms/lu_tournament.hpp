// Internal: the panel of a tile-LU step by tournament pivoting (CALU: Grigori, Demmel, Xiang, SIAM J. Matrix Anal.
// Appl. 32(4), 2011) over a tile column spread over the p rows of a grid (docs/mpi.md, the distributed LU):
//
//   leaves:  the column's tiles t >= k by grid row (t mod p), from the diagonal tile's row on, in runs of at most
//            kTournamentLeafTiles tiles:    C_l := the kb rows partial pivoting picks among the leaf's rows
//   tree:    C_l := the picks among C_l and C_{l+s}, s = 1, 2, 4, ...  (each on the owner of C_l; C_0 on the
//            diagonal tile's owner)
//   pivots:  piv[k] := the interchanges bringing C_0's rows to the top of the column, in order
//
// Then, in the getrf DAG: the interchanges of piv[k] on tile column k (the same tile-by-tile tasks as the trailing
// columns'), the diagonal tile's LU without pivoting, and L[m][k] := A[m][k] U[k][k]^-1 for m > k. The candidates
// travel, not the column: a leaf's tiles stay on their rank and GPU, and each level of the tree moves one kb x kb set.
#pragma once
#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "algorithms/dag.hpp"
#include "codelets/lu_codelets.hpp"
#include "runtime/mpi.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// Tiles per leaf of the tournament: the stacks a leaf factors stay at most this many tiles tall (the workspace of
/// each CUDA worker: two copies of the stack), and a grid row's tiles split into several leaves that run in parallel.
constexpr int64_t kTournamentLeafTiles = 4;

/// Whether getrf factors the panels of A by tournament pivoting over `rows` grid rows (rows > 1: the columns of a
/// distributed A spread over several ranks, or the tests' split of one process's tiles) rather than gathering each
/// column on one worker. STARFACT_LU_PANEL=gathered keeps the gathered panel (A/B runs).
inline bool lu_tournament(int rows) {
    if (rows <= 1) return false;
    const char* e = std::getenv("STARFACT_LU_PANEL");
    return !(e && std::string(e) == "gathered");
}

/// Submits the tournament of step k of A (tile column k, tiles k .. mt-1, split over `p` grid rows) writing the
/// step's pivots `piv`, under the task options `o` (priority, name and urgency as the caller set them).
template <typename T>
void submit_tournament(const Runtime& rt, TaskOptions o, TileMatrix<T>& A, int64_t k, int p,
                       starpu_data_handle_t piv) {
    const int64_t mt = A.mt(), nb = A.nb(), kb = A.tile_rows(k);
    struct Leaf {
        int64_t first, count;
    };
    std::vector<Leaf> leaves;
    for (int64_t d = 0; d < p && k + d < mt; ++d) {
        const int64_t tiles = (mt - (k + d) + p - 1) / p;
        for (int64_t c = 0; c < tiles; c += kTournamentLeafTiles)
            leaves.push_back({k + d + c * p, std::min(kTournamentLeafTiles, tiles - c)});
    }
    const auto count = static_cast<int64_t>(leaves.size());
    const int64_t tag0 = A.distributed() ? reserve_tags(rt, 2 * count) : 0;
    std::vector<starpu_data_handle_t> values(static_cast<size_t>(count)), rows(values.size());
    for (int64_t l = 0; l < count; ++l) {
        starpu_data_handle_t& v = values[static_cast<size_t>(l)];
        starpu_data_handle_t& r = rows[static_cast<size_t>(l)];
        starpu_matrix_data_register(&v, -1, 0, static_cast<uint32_t>(kb), static_cast<uint32_t>(kb),
                                    static_cast<uint32_t>(A.tile_cols(k)), sizeof(T));
        starpu_vector_data_register(&r, -1, 0, static_cast<uint32_t>(kb), sizeof(int));
        if (A.distributed()) {
            const int owner = A.owner(leaves[static_cast<size_t>(l)].first, k);
            mpi_register(v, tag0 + 2 * l, owner);
            mpi_register(r, tag0 + 2 * l + 1, owner);
        }
    }
    for (int64_t l = 0; l < count; ++l) {
        const Leaf& leaf = leaves[static_cast<size_t>(l)];
        std::vector<starpu_data_handle_t> tiles;
        for (int64_t i = 0; i < leaf.count; ++i) tiles.push_back(A.tile(leaf.first + i * p, k));
        insert_getrf_select<T>(rt, o, values[static_cast<size_t>(l)], rows[static_cast<size_t>(l)], tiles, nb,
                               leaf.first, p);
    }
    for (int64_t s = 1; s < count; s *= 2)
        for (int64_t l = 0; l + s < count; l += 2 * s)
            insert_getrf_merge<T>(rt, o, values[static_cast<size_t>(l)], rows[static_cast<size_t>(l)],
                                  values[static_cast<size_t>(l + s)], rows[static_cast<size_t>(l + s)]);
    insert_getrf_winners(rt, o, rows[0], piv, k * nb);
    for (std::vector<starpu_data_handle_t>* set : {&values, &rows})
        for (starpu_data_handle_t h : *set) {
            if (A.distributed()) mpi_cache_flush(h);
            starpu_data_unregister_submit(h);  // once the tasks submitted on it ran
        }
}

}  // namespace starfact::detail
