// Internal: the submitting halves of the LU drivers, shared by the synchronous forms (which wait on a
// Sequence of their own) and the async:: forms. `stats` may be null.
#pragma once
#include <string>

#include "codelets/codelets.hpp"
#include "kernels/lu/lu_kernels.hpp"
#include "starfact/error.hpp"
#include "starfact/lu.hpp"
#include "starfact/plan.hpp"

namespace starfact::detail {

/// What a mapping that may run CUDA codelets needs of a tile column of `mt` tiles (the CUDA laswp's pointer table);
/// throws InvalidArgument naming `arg` otherwise.
inline void require_gpu_tiles(const Runtime& rt, const Options& opts, int64_t mt, const char* function,
                              const char* arg) {
    require(opts.mapping == Mapping::CpuOnly || rt.cuda_workers() == 0 || mt <= kLaswpMaxTiles, function, arg,
            "has " + std::to_string(mt) + " tile rows; a mapping with CUDA workers takes at most " +
                std::to_string(kLaswpMaxTiles) + " (use a larger nb)");
}

/// Validates, registers the operation's info in `seq` and submits the DAG, its tasks mapped as `plan` (the call's:
/// getrf or gesv on A's tiles) says; returns the operation index. `piv` null: no pivoting (getrf_nopiv). `may_wait`
/// (the blocking forms): a matrix whose columns span several grid rows may wait for each step's pivots while it
/// submits, and exchanges only the rows that move (lu_row_exchange.hpp).
template <typename T>
int submit_getrf(TileMatrix<T>& A, Pivots* piv, Sequence& seq, const Options& opts, RunStats* stats,
                 const char* function, const Plan& plan, bool may_wait = false);
/// Validates and submits the interchanges of B and the two triangular solves, mapped as `plan` (getrs or gesv) says.
template <typename T>
void submit_getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                  RunStats* stats, const char* function, const Plan& plan);
/// The tasks of getrs (the interchanges of B, the two triangular solves) under the task options `o` (o.sequence
/// set; its mapping and arithmetic as they are), with critical-path priorities when `priorities`: what submit_getrs
/// submits after its checks, and the mixed-precision gesv's solves with its float factor (gesv_mixed_ops.cpp).
template <typename T>
void submit_getrs_tasks(const Runtime& rt, TaskOptions o, const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B,
                        bool priorities);
/// gesv on tiles, blocking (getrf, then getrs when the factorization succeeded), with the call's plan.
template <typename T>
int gesv_planned(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, const Plan& plan);
/// The submit form of gesv with the call's plan (getrf, then getrs, into `seq`); returns getrf's operation index.
template <typename T>
int submit_gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                const Plan& plan);

}  // namespace starfact::detail
