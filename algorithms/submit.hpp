// Internal: the submitting halves of the Cholesky drivers, shared by the synchronous forms (which wait on
// a Sequence of their own) and the async:: forms. `stats` may be null.
#pragma once
#include "starfact/cholesky.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

/// Validates, registers the operation's info in `seq` and submits the DAG; returns the operation index.
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats);
/// Validates and submits the two triangular solves.
template <typename T>
void submit_potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, RunStats* stats);

}  // namespace starfact::detail
