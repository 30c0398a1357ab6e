// Internal: a tile of a distributed matrix sent to several ranks along a chain or a binomial tree of copies instead
// of from its owner to each (StarPU-MPI sends a tile read by another rank from its owner only: on a grid of Q columns
// the owner's NIC sends each L tile Q - 1 times in a row, and the most urgent reader's copy waits behind the others).
// Each receiving rank holds a copy of its own, received from its parent's by StarPU-MPI's point-to-point requests
// (no task: a rank sends on what it received from where it landed, host memory on the staged path). The list of
// readers is in order of urgency; ranks on the owner's node are left out of it (they read the tile from the owner
// directly: on one node nothing queues behind a NIC, and each hop costs latency). A chain (the default, HPL's ring
// broadcast: Petitet, Whaley, Dongarra, Cleary, "HPL", netlib 2000-2018) goes from the owner to the first reader,
// from it to the second, and so on: every NIC sends the tile at most once, the owner's to the most urgent reader
// first. A binomial tree: the owner sends to the ranks at positions 1, 2, 4, ... of the list, position p to p + 1,
// p + 2, ... below its lowest set bit (p = 2: 3; p = 4: 5, 6; p = 6: 7), log2 of the readers sends at most per NIC
// and as many hops. The coarse model (docs/simulation_scale.md) finds the chain the better one on square grids of
// 16 and 64 nodes: a binomial tree's inner ranks send several copies of every tile and sit at the same positions of
// every list. The tasks reading the tile on rank r read at(r). Copies go in the order of the list, a parent's before
// its children's; release() unregisters them once the tasks reading them ran.
#pragma once
#include <starpu.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "runtime/mpi.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {

/// How a tile read by several ranks travels: STARFACT_BROADCAST=chain (default), binomial, or direct (from its
/// owner to every reader: StarPU-MPI's own sends; A/B runs).
enum class BroadcastShape { Direct, Chain, Binomial };

/// `function` names the caller in the error on an unknown value.
inline BroadcastShape broadcast_shape(const char* function) {
    const char* e = std::getenv("STARFACT_BROADCAST");
    if (!e || !*e || std::string(e) == "chain") return BroadcastShape::Chain;
    if (std::string(e) == "binomial") return BroadcastShape::Binomial;
    if (std::string(e) == "direct") return BroadcastShape::Direct;
    throw InvalidArgument(function, "STARFACT_BROADCAST",
                          std::string("is '") + e + "': expected chain, binomial or direct");
}

/// Fewest receiving ranks (on other nodes than the owner's) for which forwarding pays: with two, a binomial tree is
/// the owner's own two sends, and a chain brings nothing in the coarse model (2 x 2 grids) while its second hop costs
/// latency (8% on 4 ranks sharing one node, docs/mpi.md).
constexpr size_t kBroadcastMinRanks = 3;

class TileBroadcast {
public:
    /// The distributed tile `tile` of rank `owner` to the ranks `readers` (distinct, not the owner, most urgent
    /// first) along `shape`, its messages at o.priority. Readers on the owner's node, and all of them when fewer
    /// than kBroadcastMinRanks are on other nodes or the shape is Direct, read the tile from its owner.
    TileBroadcast(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t tile, int owner,
                  const std::vector<int>& readers, BroadcastShape shape)
        : tile_(tile) {
        // Ranks on the owner's node read from it directly (no NIC between them, and a hop costs latency); the
        // chain or tree runs over the others.
        std::vector<int> to;
        const int node = mpi_node_of(rt, owner);
        for (int r : readers)
            if (mpi_node_of(rt, r) != node) to.push_back(r);
        if (to.size() < kBroadcastMinRanks || shape == BroadcastShape::Direct) return;
        const int64_t tag0 = reserve_tags(rt, static_cast<int64_t>(to.size()));
        std::vector<starpu_data_handle_t> copy(to.size() + 1, tile);  // by position; 0: the owner's tile
        std::vector<size_t> order, parent(to.size() + 1, 0);           // positions, parents first
        order.push_back(0);
        for (size_t i = 0; i < order.size(); ++i) {
            const size_t p = order[i];
            if (shape == BroadcastShape::Chain) {
                if (p < to.size()) order.push_back(p + 1), parent[p + 1] = p;
                continue;
            }
            const size_t low = p == 0 ? SIZE_MAX : (p & (~p + 1));
            for (size_t step = 1; step < low && p + step <= to.size(); step *= 2)
                order.push_back(p + step), parent[p + step] = p;
        }
        for (size_t i = 1; i < order.size(); ++i) {
            const size_t p = order[i];
            starpu_data_handle_t& h = copy[p];
            starpu_matrix_data_register(&h, -1, 0, starpu_matrix_get_nx(tile), starpu_matrix_get_nx(tile),
                                        starpu_matrix_get_ny(tile), starpu_matrix_get_elemsize(tile));
            const int64_t tag = tag0 + static_cast<int64_t>(p - 1);
            mpi_register(h, tag, to[p - 1]);
            const int from = parent[p] == 0 ? owner : to[parent[p] - 1];
            mpi_forward(rt, copy[parent[p]], from, h, to[p - 1], tag, o.priority);
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
