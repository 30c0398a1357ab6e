// Internal: the submitting halves of the LU drivers, shared by the synchronous forms (which wait on a
// Sequence of their own) and the async:: forms. `stats` may be null.
#pragma once
#include "starfact/lu.hpp"

namespace starfact::detail {

/// Validates, registers the operation's info in `seq` and submits the DAG; returns the operation index.
/// `piv` null: no pivoting (getrf_nopiv).
template <typename T>
int submit_getrf(TileMatrix<T>& A, Pivots* piv, Sequence& seq, const Options& opts, RunStats* stats,
                 const char* function);
/// Validates and submits the interchanges of B and the two triangular solves.
template <typename T>
void submit_getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                  RunStats* stats, const char* function);

}  // namespace starfact::detail
