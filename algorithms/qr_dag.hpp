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

/// The eliminations of step k for tile rows k .. mt-1 and domains of `domain` rows.
inline QrStep qr_step(int64_t k, int64_t mt, int64_t domain) {
    QrStep s;
    std::vector<int64_t> heads;
    for (int64_t h = k; h < mt; h += domain) {
        QrStep::Domain d{h, {}};
        for (int64_t i = h + 1; i < std::min(h + domain, mt); ++i) d.rows.push_back(i);
        s.domains.push_back(std::move(d));
        heads.push_back(h);
    }
    const auto count = static_cast<int64_t>(heads.size());
    for (int64_t stride = 1; stride < count; stride *= 2)
        for (int64_t q = 0; q + stride < count; q += 2 * stride)
            s.merges.emplace_back(heads[static_cast<size_t>(q)], heads[static_cast<size_t>(q + stride)]);
    return s;
}

/// Submits geqrf's task graph as `plan` (the call's, from the planning entry) says; the arguments are checked, the
/// factors' plan is set from it. `info`: where a breakdown of the Cholesky QR goes (nullptr: a new operation of `seq`).
template <typename T>
void submit_geqrf_dag(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, const Plan& plan, RunStats* stats,
                      SequenceState* seq, starpu_data_handle_t info = nullptr);
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
/// The checks geqrf's forms share: A on one process, T shaped for A (`transposed`: for A^T), the Runtime, the options.
template <typename T>
void require_qr_arguments(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const Options& opts,
                          bool transposed = false);
/// Whether the factors' T tiles are in the CUDA kernels' layout (one triangular factor per tile: ib >= min(nb, n)).
template <typename T>
bool qr_gpu_layout(const QRFactors<T>& Tf) {
    return Tf.ib() >= std::min(Tf.nb(), Tf.n());
}

}  // namespace starfact::detail
