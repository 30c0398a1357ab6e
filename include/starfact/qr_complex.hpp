// Tile Householder QR of complex m x n matrices (LAPACK's cgeqrf/zgeqrf, cunmqr/zunmqr, cungqr/zungqr and
// cgels/zgels, under the real API's names geqrf, ormqr, orgqr and gels), as StarPU task graphs over the flat, binary
// and domains reduction trees whose tile kernels run on CPU workers (LAPACKE's c and z geqrt, gemqrt, tpqrt and
// tpmqrt; no CUDA codelet yet). The factors are the real QR's QRFactors (qr.hpp), instantiated for the two complex
// types (docs/qr.md, "Complex matrices").
#pragma once
#include <complex>

#include "starfact/qr.hpp"

namespace starfact {

extern template class QRFactors<std::complex<float>>;
extern template class QRFactors<std::complex<double>>;

/// Factors A = Q R in place (LAPACK's cgeqrf/zgeqrf, in tiles): R in the upper triangle of A (m < n: upper
/// trapezoidal, min(m, n) reflectors, Q m x m and unitary), the Householder vectors below it (and, with a non-flat
/// tree, in the upper triangles of the tiles merged into their heads), the T factors in `T` (QRFactors(A, tree, ib)).
/// The tree is T's: Flat, Binary or Domains; Auto: the flat tree when A has at least as many tile columns as the
/// Runtime has CPU workers, else domains of ceil(mt / workers) tile rows. The inner blocking is T's (0: min(nb, 32)).
/// Every task runs on CPU workers: opts.mapping CpuOnly or Hybrid; `variant` Right (critical-path priorities) or
/// NoPrio. A QR does not break down: NaN or Inf in A spread into R and the reflectors, and the call returns.
/// Throws InvalidArgument naming 'A' (distributed, or lower_only), 'T' (shaped for another matrix, or belonging to
/// another Runtime), 'tree' (Cholqr or Panel: real matrices only), 'variant' or 'opts.mapping' (GpuOnly, or a Runtime
/// without CPU workers).
void geqrf(TileMatrix<std::complex<float>>& A, QRFactors<std::complex<float>>& Tf, const Options& opts = {});
void geqrf(TileMatrix<std::complex<double>>& A, QRFactors<std::complex<double>>& Tf, const Options& opts = {});

/// C := op(Q) C (Side::Left: C is m x nrhs) or C := C op(Q) (Side::Right: C is nrhs x m) with the m x m unitary Q
/// of geqrf (A, T), op(Q) = Q (Trans::NoTrans) or Q^H (Trans::ConjTranspose), as LAPACK's cunmqr/zunmqr, which take
/// 'N' and 'C' only; C in A's tile size. Throws InvalidArgument naming 'trans' (Trans::Transpose: Q^T is not a
/// product this factorization serves), 'A', 'T' (not factored, or shaped for another matrix), 'C' (its rows, Right:
/// its columns, not A's m; another tile size or Runtime), 'variant' or 'opts.mapping', as geqrf.
void ormqr(Side side, Trans trans, const TileMatrix<std::complex<float>>& A,
           const QRFactors<std::complex<float>>& Tf, TileMatrix<std::complex<float>>& C, const Options& opts = {});
void ormqr(Side side, Trans trans, const TileMatrix<std::complex<double>>& A,
           const QRFactors<std::complex<double>>& Tf, TileMatrix<std::complex<double>>& C, const Options& opts = {});

/// Q := the first min(m, n) columns of the Q of geqrf (A, T) (LAPACK's cungqr/zungqr; m < n: all of Q): Q is
/// m x min(m, n) in A's tile size. Throws InvalidArgument naming 'A', 'T', 'Q', 'variant' or 'opts.mapping'.
void orgqr(const TileMatrix<std::complex<float>>& A, const QRFactors<std::complex<float>>& Tf,
           TileMatrix<std::complex<float>>& Q, const Options& opts = {});
void orgqr(const TileMatrix<std::complex<double>>& A, const QRFactors<std::complex<double>>& Tf,
           TileMatrix<std::complex<double>>& Q, const Options& opts = {});

/// LAPACK's cgels/zgels ('N') for a full-rank A; B is max(m, n) x nrhs in A's tile size, as LAPACK's.
/// m >= n: least squares min ||A X - B||_2: factors A (geqrf into T, shaped for A), B := Q^H B, then solves
/// R X = B(0:n, :); X is in the first n rows of B, the rows below hold the residual's components.
/// m < n: the minimum-norm solution of A X = B(0:m, :) (B's rows below m are ignored) by the QR of A^H (LAPACK uses
/// an LQ of A, the same factorization conjugate-transposed): A^H = Q R in a workspace T keeps (T shaped for A^H,
/// n x m), R^H Y = B(0:m, :), X = Q [Y; 0] into B (n rows); A is overwritten by the factors of A^H
/// conjugate-transposed (R^H on and below its diagonal, the conjugated reflectors to its right).
/// No scaling of A and B (LAPACK's gels scales entries outside [smlnum, bignum]; the real gels does too).
/// Returns LAPACK's info: 0, or k > 0 if R(k, k) (1-based) is exactly zero (A is rank deficient;
/// T.breakdown() is QrBreakdown::ZeroDiagonal): X is not computed (m >= n: B holds Q^H B; m < n: B is untouched).
/// Throws InvalidArgument naming 'A', 'T', 'B', 'tree', 'variant' or 'opts.mapping'.
int gels(TileMatrix<std::complex<float>>& A, QRFactors<std::complex<float>>& Tf, TileMatrix<std::complex<float>>& B,
         const Options& opts = {});
int gels(TileMatrix<std::complex<double>>& A, QRFactors<std::complex<double>>& Tf,
         TileMatrix<std::complex<double>>& B, const Options& opts = {});

}  // namespace starfact
