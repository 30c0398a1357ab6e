// Internal: the tile QR's reduction trees and the task graphs built on them, shared by geqrf (algorithms/geqrf.cpp)
// and the operations that apply its Q (algorithms/ormqr.cpp).
//
// Step k of a tile QR eliminates tile column k below the diagonal (tile rows k .. mt-1). The rows split into
// domains of `domain` consecutive tile rows; each domain's head is factored (GEQRT), the others are eliminated
// against the head's triangle one after the other (TSQRT, a flat chain), then the heads' triangles merge pairwise,
// distance 1, 2, 4, ... (TTQRT, a binary tree) into tile k's. Every elimination is applied to the tiles to its right
// (UNMQR, TSMQR, TTMQR). Flat tree: one domain; binary tree: domains of one tile (Dongarra, Faverge, Herault,
// Langou, Robert, Jacquelin, "Hierarchical QR factorization algorithms for multi-core clusters", 2013).
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "starfact/qr.hpp"

namespace starfact::detail {

struct SequenceState;

/// The eliminations of one step: the domains (head, then its TS rows in order) and the TT merges (top, bottom) in
/// the order they run.
struct QrStep {
    struct Domain {
        int64_t head;
        std::vector<int64_t> rows;  // eliminated against the head, in order (TS)
    };
    std::vector<Domain> domains;
    std::vector<std::pair<int64_t, int64_t>> merges;  // (top, bottom): bottom's triangle into top's (TT)
};

/// Binary merges, distance 1, 2, 4, ..., of the triangles of `heads` into the first one.
inline void qr_binary_merges(const std::vector<int64_t>& heads, QrStep& s) {
    const auto count = static_cast<int64_t>(heads.size());
    for (int64_t stride = 1; stride < count; stride *= 2)
        for (int64_t q = 0; q + stride < count; q += 2 * stride)
            s.merges.emplace_back(heads[static_cast<size_t>(q)], heads[static_cast<size_t>(q + stride)]);
}

/// The eliminations of step k for tile rows k .. mt-1 and domains of `domain` rows. `cycle` P > 1 (QRFactors::
/// row_cycle, a distributed A on P grid rows): the hierarchical tree that follows the grid rows. The rows of each grid
/// row (i mod P, from i = k on) split into domains of `domain` of them, their heads merge by a binary tree within the
/// grid row, then the grid rows' first heads (k, k+1, ... k+P-1: one per grid row) by a binary tree into tile k's. Every
/// TS task and every merge within a grid row then couples tiles of one rank; only the P - 1 merges across grid rows
/// couple two ranks.
inline QrStep qr_step(int64_t k, int64_t mt, int64_t domain, int64_t cycle = 1) {
    QrStep s;
    if (cycle > 1) {
        domain = std::min(domain, std::max<int64_t>(mt, 1));  // (domain * cycle stays far from overflowing)
        std::vector<int64_t> leaders;
        for (int64_t first = k; first < std::min(k + cycle, mt); ++first) {
            std::vector<int64_t> heads;
            for (int64_t h = first; h < mt; h += domain * cycle) {
                QrStep::Domain d{h, {}};
                for (int64_t i = h + cycle; i < std::min(h + domain * cycle, mt); i += cycle) d.rows.push_back(i);
                s.domains.push_back(std::move(d));
                heads.push_back(h);
            }
            qr_binary_merges(heads, s);
            leaders.push_back(first);
        }
        qr_binary_merges(leaders, s);
        return s;
    }
    std::vector<int64_t> heads;
    for (int64_t h = k; h < mt; h += domain) {
        QrStep::Domain d{h, {}};
        for (int64_t i = h + 1; i < std::min(h + domain, mt); ++i) d.rows.push_back(i);
        s.domains.push_back(std::move(d));
        heads.push_back(h);
    }
    qr_binary_merges(heads, s);
    return s;
}

/// Where the tasks of a QR operation write its info: one variable, or for a distributed A one per rank (owned by it,
/// SequenceState::add_distributed_operation), each written by the tasks its rank runs; wait() reduces them.
struct QrInfo {
    std::vector<starpu_data_handle_t> handles;
    /// The variable of the tasks `rank` runs.
    starpu_data_handle_t of(int rank) const {
        return handles.size() == 1 ? handles.front() : handles[static_cast<size_t>(rank)];
    }
};
/// A new operation of `seq` for a QR of A (distributed when A is): its info variables, and its index.
template <typename T>
int add_qr_operation(const TileMatrix<T>& A, SequenceState* seq, QrInfo* info);

/// Submits geqrf's task graph as `plan` (the call's, from the planning entry) says; the arguments are checked, the
/// factors' plan is set from it. `info`: where a breakdown goes (nullptr: a new operation of `seq`). `row_cycle`: how
/// the domains tree groups tile rows (QRFactors::row_cycle); 0: by A's grid rows (1 on one process).
template <typename T>
void submit_geqrf_dag(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, const Plan& plan, RunStats* stats,
                      SequenceState* seq, const QrInfo* info = nullptr, int64_t row_cycle = 0);
/// The plan a QR of a distributed A runs (the call's `plan` for one process): Auto's Cholesky QR (its Gram matrices
/// summed across the ranks) and panel tree (each panel gathered on the rank of its diagonal tile) as in one process;
/// its other trees, and a Cholesky QR that falls back, become the hierarchical tree (QRFactors::row_cycle): one domain
/// per grid row, flat within it, binary across the grid rows.
template <typename T>
Plan qr_plan_for(const TileMatrix<T>& A, const QRFactors<T>& Tf, const Options& opts, Plan plan);
/// Every rank checks that the others make the same QR call (`function`) on the same data before anything else,
/// when A, T or C (ormqr's C, gels' B; may be null) is distributed: agree() on the shapes, the matrices (their first
/// tags), the tree and the inner blocking, `what` (side and transposition, or 0).
template <typename T>
void agree_qr_call(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const TileMatrix<T>* C,
                   const Options& opts, int64_t what = 0);
/// A second matrix of a QR call (`name`: C, Q, B) must be distributed as A is: on A's grid, or on one process with A.
template <typename T>
void require_on_grid_of(const char* function, const TileMatrix<T>& A, const TileMatrix<T>& C, const char* name);
/// The Cholesky QR's graphs (algorithms/cholqr.cpp): the factorization (the plan is set, the shape checked), and
/// C := op(Q) C or C op(Q) with its factors.
template <typename T>
void submit_cholqr_dag(TileMatrix<T>& A, QRFactors<T>& Tf, starpu_data_handle_t info, const Options& opts,
                       RunStats* stats, SequenceState* seq);
/// The block reflector that submit_cholqr_apply_dag applies and the tiles of C it updates: the reflectors of tile
/// column k of A from tile row k down (Y: tiles (k .. mt-1, k), unit lower in the first rows of tile (k, k); its
/// width w = A's tile_cols(k) reflectors) with T (w x w, upper) in the first rows of Tf.t_tile(k, k), applied to C's
/// tile rows k .. mt-1 (Side::Right: tile columns) in C's tile columns [first, last) (Right: tile rows; last < 0: up
/// to the end). The default is the Cholesky QR's: one block over the whole single tile column, all of C.
struct ReflectorBlock {
    int64_t k = 0;
    int64_t first = 0, last = -1;
    /// The priority of the tasks of C's tile column j (Right: tile row j); empty: the task options'.
    std::function<int(int64_t j)> priority;
};
template <typename T>
void submit_cholqr_apply_dag(starfact::Side side, bool trans, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                             TileMatrix<T>& C, const Options& opts, RunStats* stats, SequenceState* seq,
                             const ReflectorBlock& block = {});
/// Submits C := op(Q) C (side Left) or C op(Q) (Right); the arguments are checked.
template <typename T>
void submit_ormqr_dag(starfact::Side side, bool trans, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                      TileMatrix<T>& C, const Options& opts, RunStats* stats, SequenceState* seq);
/// The checks geqrf's forms share: T shaped for A (`transposed`: for A^T) and on A's grid, the Runtime, the options;
/// a distributed A: not a Cholesky QR that falls back.
template <typename T>
void require_qr_arguments(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const Options& opts,
                          bool transposed = false);
/// Whether the factors' T tiles are in the CUDA kernels' layout (one triangular factor per tile: ib >= min(nb, n); the
/// Cholesky QR's, whose ib is its panels' width, always).
template <typename T>
bool qr_gpu_layout(const QRFactors<T>& Tf) {
    return Tf.cholqr() || Tf.ib() >= std::min(Tf.nb(), Tf.n());
}

}  // namespace starfact::detail
