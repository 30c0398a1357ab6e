// Internal: the row interchanges of a tile LU on a matrix distributed over MPI ranks (getrf's columns, getrs'
// right-hand sides), tile by tile on each tile's owner (codelets/laswp_tile.cpp; docs/mpi.md, the distributed LU).
#pragma once
#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "codelets/lu_codelets.hpp"
#include "runtime/mpi.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// Tests only: when > 1, a getrf or getrs on a matrix of one process applies its interchanges tile by tile as on a
/// grid of that many rows (the distributed LU's tasks, run in one process); 0 (default): one task per tile column.
/// Set it around a test's calls, with no other LU running.
std::atomic<int>& tile_interchange_rows_for_tests();

/// The exchange buffers of one distributed matrix M for one operation: per tile column j and grid row g, a tile of
/// nb rows and M's tile columns, owned by the rank of grid row g in j's grid column, that collects the rows of that
/// rank's tiles moving up into the top tile of a step; and per step k the composed permutation (composed_size(kb)
/// ints), owned as the step's pivots by the rank of tile (k, k), which composes it once (insert_laswp_compose) for
/// every task of the step. Registered without storage (StarPU allocates a buffer where a task or a message needs
/// it), with tags taken on every rank alike; unregistered once the tasks using them ran.
/// On a matrix of one process, `rows` sets the grid rows the tasks are split for (the tests run the tile-by-tile
/// interchanges that way); a distributed M takes its grid's.
template <typename T>
class TileInterchanges {
public:
    explicit TileInterchanges(TileMatrix<T>& M, int rows = 0)
        : M_(M), p_(M.distributed() || rows < 1 ? M.grid().p : rows) {
        const int64_t count = M.nt() * p_;
        const int64_t tag0 = M.distributed() ? reserve_tags(M.runtime(), count + M.mt()) : 0;
        buffers_.resize(static_cast<size_t>(count));
        for (int64_t j = 0; j < M.nt(); ++j)
            for (int g = 0; g < p_; ++g) {
                starpu_data_handle_t& h = buffers_[static_cast<size_t>(j * p_ + g)];
                starpu_matrix_data_register(&h, -1, 0, static_cast<uint32_t>(M.nb()), static_cast<uint32_t>(M.nb()),
                                            static_cast<uint32_t>(M.tile_cols(j)), sizeof(T));
                if (M.distributed()) mpi_register(h, tag0 + j * p_ + g, M.grid().owner(g, j));
            }
        composed_.resize(static_cast<size_t>(M.mt()));
        done_.assign(static_cast<size_t>(M.mt()), false);
        for (int64_t k = 0; k < M.mt(); ++k) {
            starpu_data_handle_t& h = composed_[static_cast<size_t>(k)];
            starpu_vector_data_register(&h, -1, 0, static_cast<uint32_t>(composed_size(M.tile_rows(k))), sizeof(int));
            if (M.distributed()) mpi_register(h, tag0 + count + k, M.grid().owner(k, k));
        }
    }
    ~TileInterchanges() {
        for (starpu_data_handle_t h : buffers_) {
            if (M_.distributed()) mpi_cache_flush(h);
            starpu_data_unregister_submit(h);  // once the tasks submitted on it ran
        }
        for (starpu_data_handle_t h : composed_) {
            if (M_.distributed()) mpi_cache_flush(h);
            starpu_data_unregister_submit(h);  // once the tasks submitted on it ran
        }
    }
    /// The grid rows the tasks are split for.
    int rows() const { return p_; }
    TileInterchanges(const TileInterchanges&) = delete;
    TileInterchanges& operator=(const TileInterchanges&) = delete;

    /// The interchanges of step k (pivots `piv`, the top tile's first global row k nb) on tile column j of M, rows
    /// k nb .. m-1: gather on the owners of the tiles below, spread there, then the top tile on its owner; the first
    /// call of a step composes its pivots first.
    void submit(const Runtime& rt, const TaskOptions& o, int64_t k, int64_t j, starpu_data_handle_t piv) {
        const int64_t mt = M_.mt(), nb = M_.nb(), offset = k * nb;
        const starpu_data_handle_t c = composed_[static_cast<size_t>(k)];
        if (!done_[static_cast<size_t>(k)]) {
            TaskOptions co = o;
            co.name = "laswp_compose";
            insert_laswp_compose(rt, co, piv, c, offset, nb);
            done_[static_cast<size_t>(k)] = true;
        }
        std::vector<bool> written(static_cast<size_t>(p_), false);
        for (int64_t t = k + 1; t < mt; ++t) {
            const int g = static_cast<int>(t % p_);
            const starpu_data_access_mode mode = written[static_cast<size_t>(g)] ? STARPU_RW : STARPU_W;
            written[static_cast<size_t>(g)] = true;
            insert_laswp_tile<T>(rt, o, LaswpTilePhase::Gather,
                                 {{buffer(j, g), mode}, {M_.tile(t, j), STARPU_R}, {c, STARPU_R}}, offset, nb, t - k,
                                 p_);
        }
        for (int64_t t = k + 1; t < mt; ++t)
            insert_laswp_tile<T>(rt, o, LaswpTilePhase::Spread,
                                 {{M_.tile(t, j), STARPU_RW}, {M_.tile(k, j), STARPU_R}, {c, STARPU_R}}, offset, nb,
                                 t - k, p_);
        std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>> top{{M_.tile(k, j), STARPU_RW},
                                                                                  {c, STARPU_R}};
        for (int64_t d = 1; d <= std::min<int64_t>(p_, mt - 1 - k); ++d)
            top.emplace_back(buffer(j, static_cast<int>((k + d) % p_)), STARPU_R);
        insert_laswp_tile<T>(rt, o, LaswpTilePhase::Top, top, offset, nb, 0, p_);
    }

private:
    starpu_data_handle_t buffer(int64_t j, int g) const { return buffers_[static_cast<size_t>(j * p_ + g)]; }

    TileMatrix<T>& M_;
    int p_;
    std::vector<starpu_data_handle_t> buffers_;
    std::vector<starpu_data_handle_t> composed_;  // per step
    std::vector<bool> done_;                      // per step: its compose task submitted
};

}  // namespace starfact::detail
