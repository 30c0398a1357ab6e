// Internal: the submitting halves of trtri and lauum (algorithms/trtri.cpp, algorithms/lauum.cpp), shared by
// their synchronous and async:: forms and by potri (algorithms/potri.cpp), which chains them after potrf in
// one task graph. `stats` may be null.
//
// Priorities (critical path across the phases), on potrf's scale (raw values in [0, 2 mt + 1], the same
// PriorityScale): potrf gives a task writing tile (m, n) 2(mt - n) - (m - n), its diagonal task one more.
// Step k of trtri ranks between potrf's columns k and k + 1 (its tasks 2(mt - k) - 1 - (m - k) for tile
// row m), step k of lauum just below it (2(mt - k) - 2): the factorization leads, and each phase's step
// k runs as soon as the previous phase has delivered what it reads.
#pragma once
#include <string>

#include "starfact/error.hpp"
#include "starfact/inverse.hpp"

namespace starfact::detail {

/// The argument checks trtri and lauum share: a square L, `seq` on L's runtime, a mapping the runtime can run.
/// Returns L's runtime.
template <typename T>
Runtime& checked_triangle(const TileMatrix<T>& L, const Sequence& seq, const Options& opts, const char* function) {
    require(L.m() == L.n(), function, "L", "must be square (got " + std::to_string(L.m()) + " x " +
                                                std::to_string(L.n()) + ")");
    Runtime& rt = L.runtime();
    require(&seq.runtime() == &rt, function, "seq", "belongs to another Runtime than L");
    rt.require_mapping(opts.mapping, function);
    require(!L.distributed(), function, "L", "is distributed over MPI ranks, which the inverse does not support");
    return rt;
}

/// Validates, registers the operation's info in `seq` and submits the trtri DAG; returns the operation index.
template <typename T>
int submit_trtri(TileMatrix<T>& L, Sequence& seq, const Options& opts, RunStats* stats);
/// Validates and submits the lauum DAG.
template <typename T>
void submit_lauum(TileMatrix<T>& L, Sequence& seq, const Options& opts, RunStats* stats);

/// Raw priority maximum of the Cholesky and inversion DAGs on mt tile rows (potrf's).
inline int inverse_raw_max(int64_t mt) { return static_cast<int>(2 * mt + 1); }

}  // namespace starfact::detail
