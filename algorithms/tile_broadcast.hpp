// Internal: a tile of a distributed matrix sent to several ranks along a binomial tree of copies instead of from its
// owner to each (StarPU-MPI sends a tile read by another rank from its owner only: on a grid of Q columns the owner's
// NIC sends each L tile Q - 1 times in a row). Each receiving rank holds a copy of its own, written by a copy task
// on that rank from its parent's: the owner sends to the ranks at positions 1, 2, 4, ... of the list, position p
// to p + 1, p + 2, ... below its lowest set bit (p = 2: 3; p = 4: 5, 6; p = 6: 7), so the tile leaves each NIC at
// most log2 of the ranks times. The tasks reading the tile on rank r read at(r). Copies go in the order of the list
// (its first rank first: the most urgent reader), a parent's before its children's; they are unregistered by
// release() once the tasks reading them ran.
#pragma once
#include <starpu.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/mpi.hpp"

namespace starfact::detail {

/// Whether the distributed LU broadcasts its tiles along trees (default); STARFACT_LU_BROADCAST=direct: from their
/// owners (A/B runs).
inline bool tile_broadcast_trees() {
    const char* e = std::getenv("STARFACT_LU_BROADCAST");
    return !(e && std::string(e) == "direct");
}

/// Fewest receiving ranks for which a tree pays: with two, both are the owner's children.
constexpr size_t kBroadcastTreeRanks = 3;

class TileBroadcast {
public:
    /// The distributed tile `tile` to the ranks `to` (distinct, not its owner, most urgent first), under the task
    /// options `o`. Fewer than kBroadcastTreeRanks ranks: no copies (each reads the tile from its owner).
    TileBroadcast(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t tile, const std::vector<int>& to)
        : tile_(tile) {
        if (to.size() < kBroadcastTreeRanks) return;
        const int64_t tag0 = reserve_tags(rt, static_cast<int64_t>(to.size()));
        std::vector<starpu_data_handle_t> copy(to.size() + 1, tile);  // by position; 0: the owner's tile
        std::vector<size_t> order;                                       // positions, parents first
        order.push_back(0);
        for (size_t i = 0; i < order.size(); ++i) {
            const size_t p = order[i], low = p == 0 ? SIZE_MAX : (p & (~p + 1));
            for (size_t step = 1; step < low && p + step <= to.size(); step *= 2) order.push_back(p + step);
        }
        for (size_t i = 1; i < order.size(); ++i) {
            const size_t p = order[i], parent = p & (p - 1);
            starpu_data_handle_t& h = copy[p];
            starpu_matrix_data_register(&h, -1, 0, starpu_matrix_get_nx(tile), starpu_matrix_get_nx(tile),
                                        starpu_matrix_get_ny(tile), starpu_matrix_get_elemsize(tile));
            mpi_register(h, tag0 + static_cast<int64_t>(p - 1), to[p - 1]);
            insert_copy(rt, o, copy[parent], h);
            at_[to[p - 1]] = h;
            owned_.push_back(h);
        }
    }
    ~TileBroadcast() { release(); }
    TileBroadcast(const TileBroadcast&) = delete;
    TileBroadcast& operator=(const TileBroadcast&) = delete;

    /// The handle the tasks on rank r read.
    starpu_data_handle_t at(int r) const {
        const auto i = at_.find(r);
        return i == at_.end() ? tile_ : i->second;
    }
    /// Unregisters the copies once the tasks submitted on them ran.
    void release() {
        for (starpu_data_handle_t h : owned_) {
            mpi_cache_flush(h);
            starpu_data_unregister_submit(h);
        }
        owned_.clear();
        at_.clear();
    }

private:
    starpu_data_handle_t tile_;
    std::map<int, starpu_data_handle_t> at_;
    std::vector<starpu_data_handle_t> owned_;
};

}  // namespace starfact::detail
