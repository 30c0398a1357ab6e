// The log-determinant of a symmetric positive definite matrix from its tile Cholesky factor.
#pragma once
#include <cstdint>

#include "starfact/options.hpp"
#include "starfact/runtime.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// The determinant of a matrix as numpy.linalg.slogdet gives it: det A = sign * exp(logabsdet). For a symmetric
/// positive definite A, sign is 1 and logabsdet = log det A; after a failure (info > 0) both are NaN, never values
/// to be mistaken for a result.
struct LogDet {
    double sign = 1.0;
    double logabsdet = 0.0;
};

/// log det A of A = L L^T from its lower Cholesky factor L, as potrf leaves it in the lower tiles of a square
/// TileMatrix: log det A = 2 sum_i log L(i, i), a sum of logarithms over the diagonal tiles (one task per diagonal
/// tile, on the CPU or GPU worker the mapping allows, wherever the tile lives), so that it is right where det A
/// itself overflows or underflows. Only the diagonal entries of L are read.
/// Returns LAPACK-style info: 0, or k > 0 when L(k, k) (1-based) is not a positive finite number (L is then no
/// Cholesky factor: a factorization that failed, a wrong matrix), with `result` NaN. n = 0 gives {1, 0}.
/// Options: only `mapping` applies. Throws InvalidArgument naming `L` (not square, distributed over MPI ranks)
/// or `mapping`.
template <typename T>
int logdet(const TileMatrix<T>& L, LogDet& result, const Options& opts = {});

/// Factors and takes the log-determinant in one task graph: potrf of the n x n column-major array A (lower
/// triangle; A holds the factor afterwards, as potrf's array form leaves it; host or device memory, tiled as
/// `tiling` says), then logdet of the factor, whose task for a diagonal tile follows that tile's factorization.
/// Returns potrf's info when it is not 0 (k > 0: the leading minor of order k is not positive definite or holds
/// NaN/Inf; `result` is then NaN), else logdet's. Throws InvalidArgument as potrf's array form does.
template <typename T>
int potrf_logdet(Runtime& rt, int64_t n, T* A, int64_t lda, LogDet& result, const Options& opts = {},
                 const Tiling& tiling = {});

namespace async {
/// Submits logdet(L, result, opts) into `seq` and returns its operation index: seq.info(op) gives its info once
/// seq.wait() returned, and `result`, which must stay alive until then, is written by its last task. After
/// async::potrf(L, seq) it follows the factorization tile by tile; if that factorization fails, its info says so
/// and `result` is meaningless.
template <typename T>
int logdet(const TileMatrix<T>& L, Sequence& seq, LogDet& result, const Options& opts = {});
}  // namespace async

}  // namespace starfact
