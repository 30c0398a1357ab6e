// Tile Cholesky (lower): A = L L^T, as StarPU task graphs.
#pragma once
#include <cstdint>
#include <string>

#include "starfact/mapping.hpp"
#include "starfact/options.hpp"
#include "starfact/plan.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Factors the lower triangle of A in place (the strictly upper tiles are neither read nor written).
/// Returns LAPACK's info: 0 on success, k > 0 if the leading minor of order k is not positive
/// definite (or holds NaN/Inf): column k (1-based, global) was the first that failed; the
/// factorization is then incomplete. Throws InvalidArgument for a non-square A or an unusable mapping.
template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts = {});
/// The same, counting what it did into `stats`.
template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts, RunStats& stats);

/// Solves A X = B with the factor L from potrf; B (n x nrhs, same nb) is overwritten by X.
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts = {});
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts, RunStats& stats);

/// potrf then potrs; returns potrf's info (B untouched when info > 0).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts = {});

/// LAPACK-array forms: A is column-major n x n (lda >= max(1, n)), lower triangle used (the upper one is neither
/// read nor written); the arrays, in host or device memory, are tiled as `tiling` says (host arrays by default viewed
/// in place).
template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts = {}, const Tiling& tiling = {});
template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts = {},
         const Tiling& tiling = {});

/// Submit forms: each returns once its tasks are submitted into `seq` (sequence.hpp); seq.wait() blocks
/// until they completed and gathers the infos. Operations on the same tiles chain without waiting
/// (StarPU orders them by their data): potrf, then potrs on its factor, runs as one task graph.
namespace async {
/// Submits the factorization of A; returns the operation index whose info seq.info(op) gives after wait().
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts = {});
/// Submits the solve with the factor L (from potrf, submitted before it or completed).
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
/// potrf then potrs without a wait in between; returns potrf's operation index. Unlike the synchronous
/// posv, B is overwritten even when the factorization fails (its content is then meaningless). A double solve
/// with a lower opts.factor is the mixed-precision solve's submit form (mixed.hpp; its report dropped).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});

/// The same submit forms for a call already planned: `plan` is this call's plan (plan.hpp: plan(A, request) for the
/// tiles, or plan(rt, request, A) for the arrays the tiles were made from, of this operation, B's columns as nrhs),
/// and the call takes its kernels and task mapping without planning again (the C ABI hands its plan down this way).
/// Throws InvalidArgument naming 'plan' when it was made for another operation, precision, order, tile size,
/// residency, number of right-hand sides or mapping.
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, const Plan& plan);
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan);
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan);
}  // namespace async

/// Flop counts (LAWN 41) for reporting GFLOP/s.
double potrf_flops(int64_t n);
double potrs_flops(int64_t n, int64_t nrhs);

}  // namespace starfact
