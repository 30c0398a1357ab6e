// Tile Cholesky (lower): A = L L^T, as StarPU task graphs.
#pragma once
#include <cstdint>

#include "starfact/mapping.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

struct Options {
    Mapping mapping = Mapping::Hybrid;
    /// Critical-path priorities (diagonal step first, then its panel, then the updates nearest
    /// the next panel). false submits every task at the default priority.
    bool priorities = true;
    /// Tile size for the LAPACK-array entry points (the TileMatrix ones use the matrix's nb).
    int64_t nb = 256;
    /// Tile residency for the LAPACK-array entry points.
    Residency residency = Residency::Host;
};

/// Factors the lower triangle of A in place (the strictly upper tiles are neither read nor written).
/// Returns LAPACK's info: 0 on success, k > 0 if the leading minor of order k is not positive
/// definite (or holds NaN/Inf): column k (1-based, global) was the first that failed; the
/// factorization is then incomplete. Throws InvalidArgument for a non-square A or an unusable mapping.
template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts = {});

/// Solves A X = B with the factor L from potrf; B (n x nrhs, same nb) is overwritten by X.
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts = {});

/// potrf then potrs; returns potrf's info (B untouched when info > 0).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts = {});

/// LAPACK-array forms: A is column-major n x n (lda >= max(1, n)), lower triangle used.
template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts = {});
template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts = {});

/// Flop counts (LAWN 41) for reporting GFLOP/s.
double potrf_flops(int64_t n);
double potrs_flops(int64_t n, int64_t nrhs);

}  // namespace starfact
