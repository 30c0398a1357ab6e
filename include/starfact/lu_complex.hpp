// Tile LU with partial pivoting of complex square matrices, P A = L U (LAPACK's cgetrf/zgetrf), as StarPU task graphs
// whose tile kernels run on CPU workers (LAPACKE's and CBLAS's c and z routines) and CUDA workers (cuSOLVER's getrf of
// the gathered tile column, starfact's row-interchange kernel, cuBLAS's trsm and gemm), as opts.mapping allows; tiles
// host- or device-resident.
#pragma once
#include <complex>

#include "starfact/lu.hpp"
#include "starfact/options.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Factors A = P L U in place with partial pivoting over the whole column, as LAPACK's cgetrf/zgetrf: L unit lower
/// (below the diagonal), U upper, the interchanges in `piv` (Pivots(A); piv.ipiv() is LAPACK's 1-based ipiv). The
/// pivot of a column is its entry of largest |re| + |im|, as LAPACK's icamax/izamax choose it. Returns LAPACK's
/// info: 0, or k > 0 if U(k, k) (1-based, global) is exactly zero: the factorization is then complete, without any
/// division by zero, but U is singular. Right-looking; opts.mapping picks the workers (GpuOnly, Hybrid, CpuOnly; the
/// other options do not apply). With CUDA workers, a tile column holds at most 256 tiles (A.mt() <= 256). Throws
/// InvalidArgument naming 'A' (not square, lower_only, distributed, or too many tile rows for CUDA workers), 'piv'
/// (shaped for another matrix or belonging to another Runtime) or 'mapping' (the Runtime has no worker of that kind).
int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, const Options& opts = {});
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, const Options& opts = {});

/// Solves A X = B with the factors of getrf (LU, piv): B (n x nrhs, LU's nb) is overwritten by X. Throws
/// InvalidArgument naming 'A', 'B', 'piv' or 'mapping'.
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           const Options& opts = {});
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           const Options& opts = {});

/// getrf then getrs; returns getrf's info (A holds the factors and piv the interchanges either way; B is untouched
/// when info > 0).
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B,
         const Options& opts = {});
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B,
         const Options& opts = {});

/// The submit forms (sequence.hpp): the tasks go into `seq` (A's Runtime's; 'seq' named otherwise) and the call
/// returns without waiting; getrf and gesv return the operation index whose info seq.info(op) gives after
/// seq.wait(). async::gesv submits the solve without waiting for the factorization: B is overwritten even when U is
/// singular (its content is then meaningless).
namespace async {
int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, Sequence& seq, const Options& opts = {});
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, Sequence& seq, const Options& opts = {});
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           Sequence& seq, const Options& opts = {});
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           Sequence& seq, const Options& opts = {});
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts = {});
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts = {});
/// The same with the call's plan from the planning entry (plan.hpp: the operation, A's order and tile size, B's
/// columns as nrhs), which the call follows and does not make again, as the real forms' (lu.hpp); InvalidArgument
/// naming 'plan' for a plan of another operation, shape, precision, tile size or mapping.
int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan);
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan);
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           Sequence& seq, const Options& opts, const Plan& plan);
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           Sequence& seq, const Options& opts, const Plan& plan);
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts, const Plan& plan);
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts, const Plan& plan);
}  // namespace async

}  // namespace starfact
