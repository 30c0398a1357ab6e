// Internal: the submitting halves of the Cholesky drivers, shared by the synchronous forms (which wait on
// a Sequence of their own) and the async:: forms. `stats` may be null.
#pragma once
#include <starpu.h>

#include <vector>

#include "starfact/cholesky.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

struct SequenceState;

/// Submits the DAG of the Cholesky of A (the loops of algorithms/potrf.cpp, by opts.variant) into `seq`, whose
/// info variable is info[0] (distributed: one per rank, info[rank]); the arguments are already checked and
/// opts.panel and opts.diag are the plan's (plan.hpp), not Auto.
template <typename T>
void submit_potrf_dag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts,
                      RunStats* stats, SequenceState* seq);
/// Validates, registers the operation's info in `seq` and submits the DAG; returns the operation index.
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats);
/// Validates and submits the two triangular solves.
template <typename T>
void submit_potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, RunStats* stats);

}  // namespace starfact::detail
