// Internal: the row interchanges of a tile LU whose columns span several grid rows as row exchanges (ScaLAPACK's):
// once a step's pivots are known on every rank, only the rows that move cross between ranks, in buffers of exactly
// their size (docs/mpi.md, the distributed LU). Per step k and tile column j, with the step's interchanges composed
// (compose_interchanges: the top tile k's rows each receive one row of the column, a row below only ever one of the
// top tile's original rows), for each grid row g:
//
//   up:    U_g := the rows of grid row g's tiles (the top tile's own included) bound for the top tile
//          (one copy per source tile, on their owner)
//   down:  V_g := the top tile's original rows bound for grid row g's tiles (on the top tile's owner)
//          tile t := V_g's rows at their places, for each tile t of grid row g that receives some
//   top:   the top tile := U_g's rows at their places, for each g
//
// The pivots must be on the host to size the buffers: the blocking forms of getrf and gesv wait for each step's
// pivots before submitting its interchanges (a look-ahead of one step in submission; the tasks of the step before
// run meanwhile), the submit forms keep the tile-by-tile exchange of lu_interchanges.hpp.
#pragma once
#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/dag.hpp"
#include "codelets/lu_codelets.hpp"
#include "runtime/mpi.hpp"
#include "starfact/error.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// Whether getrf's blocking forms exchange rows (this header) on a matrix whose columns span several grid rows;
/// STARFACT_LU_EXCHANGE=tiles keeps the tile-by-tile exchange (lu_interchanges.hpp; A/B runs).
inline bool lu_row_exchange() {
    const char* e = std::getenv("STARFACT_LU_EXCHANGE");
    return !(e && std::string(e) == "tiles");
}

template <typename T>
class RowExchange {
public:
    /// The exchanges of M's columns split over `rows` grid rows (M's grid's on a distributed M).
    RowExchange(TileMatrix<T>& M, int rows) : M_(M), p_(M.distributed() || rows < 1 ? M.grid().p : rows) {}

    /// Waits for step k's pivots `piv` (written by the step's panel; collective on a distributed M: every rank
    /// receives them from the owner of tile (k, k)) and plans the step's moves.
    void plan(const Runtime& rt, int64_t k, starpu_data_handle_t piv) {
        const int64_t nb = M_.nb(), kb = M_.tile_rows(k), offset = k * nb;
        std::vector<int64_t> pivots(static_cast<size_t>(kb), 0);
        if (!M_.distributed() || M_.owner(k, k) == rt.mpi_rank()) {
            if (starpu_data_acquire(piv, STARPU_R) != 0)
                throw RuntimeError("starfact::getrf: reading the pivots of a step failed (starpu_data_acquire)");
            const int* p = reinterpret_cast<const int*>(starpu_vector_get_local_ptr(piv));
            std::copy(p, p + kb, pivots.begin());
            starpu_data_release(piv);
        }
        if (M_.distributed()) allreduce_max(rt, "getrf (a step's pivots)", pivots);
        const std::vector<int> ip(pivots.begin(), pivots.end());
        const RowPermutation perm = compose_interchanges(ip.data(), static_cast<int>(kb), offset);
        k_ = k;
        up_.assign(static_cast<size_t>(p_), {});
        down_.assign(static_cast<size_t>(p_), {});
        for (int64_t i = 0; i < kb; ++i) {
            const int64_t s = perm.top[static_cast<size_t>(i)];
            if (s != i) add(up_, k + s / nb, static_cast<int>(s % nb), static_cast<int>(i));
        }
        for (const auto& [x, source] : perm.below)
            add(down_, k + x / nb, static_cast<int>(x % nb), static_cast<int>(source));
        for (std::vector<Moves>* by_row : {&up_, &down_})
            for (Moves& m : *by_row) m.by_tile();
    }

    /// The planned step's exchange on tile column j.
    void submit(const Runtime& rt, const TaskOptions& o, int64_t j) {
        const int64_t cols = M_.tile_cols(j);
        const starpu_data_handle_t top = M_.tile(k_, j);
        std::vector<starpu_data_handle_t> U(static_cast<size_t>(p_), nullptr), V(U.size(), nullptr);
        int64_t count = 0;
        for (int g = 0; g < p_; ++g)
            count += !up_[static_cast<size_t>(g)].empty() + !down_[static_cast<size_t>(g)].empty();
        int64_t tag = M_.distributed() ? reserve_tags(rt, count) : 0;
        for (int g = 0; g < p_; ++g) {
            const Moves& up = up_[static_cast<size_t>(g)];
            const Moves& down = down_[static_cast<size_t>(g)];
            if (!up.empty()) U[static_cast<size_t>(g)] = buffer(up.size(), cols, M_.owner(up.tile.front(), j), tag);
            if (!down.empty()) V[static_cast<size_t>(g)] = buffer(down.size(), cols, M_.owner(k_, j), tag);
        }
        for (int g = 0; g < p_; ++g) {  // up: the rows bound for the top tile, into U_g on their owner
            const Moves& up = up_[static_cast<size_t>(g)];
            for (size_t a = 0; a < up.size();) {
                size_t b = a;
                std::vector<int> from, to;
                for (; b < up.size() && up.tile[b] == up.tile[a]; ++b) {
                    from.push_back(up.row[b]);
                    to.push_back(static_cast<int>(b));
                }
                insert_laswp_rows<T>(rt, o, M_.tile(up.tile[a], j), U[static_cast<size_t>(g)], a == 0, from, to);
                a = b;
            }
        }
        for (int g = 0; g < p_; ++g) {  // down: the top tile's rows bound for grid row g, into V_g
            const Moves& down = down_[static_cast<size_t>(g)];
            if (down.empty()) continue;
            std::vector<int> to(down.size());
            for (size_t r = 0; r < to.size(); ++r) to[r] = static_cast<int>(r);
            insert_laswp_rows<T>(rt, o, top, V[static_cast<size_t>(g)], true, down.other, to);
        }
        for (int g = 0; g < p_; ++g) {  // ... and from V_g to their places, on the tiles' owners
            const Moves& down = down_[static_cast<size_t>(g)];
            for (size_t a = 0; a < down.size();) {
                size_t b = a;
                std::vector<int> from, to;
                for (; b < down.size() && down.tile[b] == down.tile[a]; ++b) {
                    from.push_back(static_cast<int>(b));
                    to.push_back(down.row[b]);
                }
                insert_laswp_rows<T>(rt, o, V[static_cast<size_t>(g)], M_.tile(down.tile[a], j), false, from, to);
                a = b;
            }
        }
        for (int g = 0; g < p_; ++g) {  // top: U_g's rows at their places in the top tile
            const Moves& up = up_[static_cast<size_t>(g)];
            if (up.empty()) continue;
            std::vector<int> from(up.size());
            for (size_t r = 0; r < from.size(); ++r) from[r] = static_cast<int>(r);
            insert_laswp_rows<T>(rt, o, U[static_cast<size_t>(g)], top, false, from, up.other);
        }
        for (std::vector<starpu_data_handle_t>* set : {&U, &V})
            for (starpu_data_handle_t h : *set) {
                if (!h) continue;
                if (M_.distributed()) mpi_cache_flush(h);
                starpu_data_unregister_submit(h);  // once the tasks submitted on it ran
            }
    }

private:
    /// One grid row's moves of a step, in the order of their rows in the top tile (up) or in the column (down):
    /// tile and row (in the tile) of the row below or of the top tile's own, and `other` the row of the top tile.
    struct Moves {
        std::vector<int64_t> tile;
        std::vector<int> row, other;
        size_t size() const { return tile.size(); }
        bool empty() const { return tile.empty(); }
        /// Reordered by tile (stably): one copy per tile, the buffer's rows in this order.
        void by_tile() {
            std::vector<size_t> order(size());
            for (size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tile[a] < tile[b]; });
            Moves m;
            for (size_t i : order) {
                m.tile.push_back(tile[i]);
                m.row.push_back(row[i]);
                m.other.push_back(other[i]);
            }
            *this = std::move(m);
        }
    };
    void add(std::vector<Moves>& by_row, int64_t tile, int row, int other) const {
        Moves& m = by_row[static_cast<size_t>(tile % p_)];
        m.tile.push_back(tile);
        m.row.push_back(row);
        m.other.push_back(other);
    }
    /// A rows x cols buffer without a home, owned by `owner` (a distributed M: tag from *tag, then advanced).
    starpu_data_handle_t buffer(size_t rows, int64_t cols, int owner, int64_t& tag) const {
        starpu_data_handle_t h;
        starpu_matrix_data_register(&h, -1, 0, static_cast<uint32_t>(rows), static_cast<uint32_t>(rows),
                                    static_cast<uint32_t>(cols), sizeof(T));
        if (M_.distributed()) mpi_register(h, tag++, owner);
        return h;
    }

    TileMatrix<T>& M_;
    int p_;
    int64_t k_ = -1;
    std::vector<Moves> up_, down_;  // per grid row, of step k_
};

}  // namespace starfact::detail
