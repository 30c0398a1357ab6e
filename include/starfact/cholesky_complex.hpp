// Tile Cholesky of complex Hermitian positive definite matrices (lower): A = L L^H, as StarPU task graphs on the
// CPU workers (their tile kernels are CBLAS/LAPACKE's c and z routines; no CUDA codelet yet).
#pragma once
#include <complex>

#include "starfact/options.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Factors the lower triangle of the Hermitian A in place (the strictly upper tiles are neither read nor written;
/// the imaginary parts of the diagonal are taken as zero, as LAPACK's cpotrf/zpotrf take them). Returns LAPACK's
/// info: 0 on success, k > 0 if the leading minor of order k is not positive definite (or holds NaN/Inf); the factor
/// is then incomplete. Right-looking, every task on CPU workers: opts.mapping must not be GpuOnly. Throws
/// InvalidArgument for a non-square A.
int potrf(TileMatrix<std::complex<float>>& A, const Options& opts = {});
int potrf(TileMatrix<std::complex<double>>& A, const Options& opts = {});

/// Solves A X = B with the factor L from potrf (L L^H X = B); B (n x nrhs, L's nb) is overwritten by X.
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, const Options& opts = {});
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, const Options& opts = {});

/// potrf then potrs; returns potrf's info (B untouched when info > 0).
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, const Options& opts = {});
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, const Options& opts = {});

}  // namespace starfact
