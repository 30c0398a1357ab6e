// Internal: the submitting halves of the Cholesky drivers, shared by the synchronous forms (which wait on
// a Sequence of their own) and the async:: forms. `stats` may be null.
#pragma once
#include <starpu.h>

#include <vector>

#include "starfact/cholesky.hpp"
#include "starfact/plan.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

struct SequenceState;
class TileArithmetic;
class BreakdownWatch;

/// Submits the DAG of the Cholesky of A (the loops of algorithms/potrf.cpp, by opts.variant) into `seq`, whose
/// info variable is info[0] (distributed: one per rank, info[rank]); the arguments are already checked and
/// opts.panel and opts.diag are the plan's (plan.hpp), not Auto. `arith`: the arithmetic of each tile's tasks
/// (tile_arithmetic.hpp); null: opts.factor's for all. `watch`: a low-precision factor that a refined solve discards
/// when it breaks down, whose tasks stop once one did (codelets/breakdown.hpp); null: the whole graph runs, as LAPACK
/// leaves a failed factorization.
template <typename T>
void submit_potrf_dag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts,
                      RunStats* stats, SequenceState* seq, const TileArithmetic* arith = nullptr,
                      BreakdownWatch* watch = nullptr);
/// Validates, registers the operation's info in `seq` and submits the DAG with the kernels of `plan`, the call's
/// plan for A's tiles (a Cholesky operation's: potrf, posv, potri, or the mixed solve's for its float factor), which
/// is not made again; returns the operation index. `arith` and `watch` as submit_potrf_dag's.
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats, const Plan& plan,
                 const TileArithmetic* arith = nullptr, BreakdownWatch* watch = nullptr);
/// The same, planning potrf on A's tiles first (the call's one plan).
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats);
/// Validates and submits the two triangular solves, their tasks mapped as `plan` (the call's: potrs or posv) says.
template <typename T>
void submit_potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, RunStats* stats,
                  const Plan& plan);
/// posv on tiles, blocking (potrf, then potrs when the factorization succeeded), with the call's plan; returns
/// potrf's info.
template <typename T>
int posv_planned(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, const Plan& plan);
/// The submit form of posv with the call's plan: the mixed-precision solve where the plan refines (double A), else
/// potrf and potrs (a double solve asked in a lower precision that the plan runs in double: in double); returns
/// potrf's operation index.
template <typename T>
int submit_posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan);

}  // namespace starfact::detail
