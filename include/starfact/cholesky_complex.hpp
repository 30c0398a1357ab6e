// Tile Cholesky of complex Hermitian positive definite matrices (lower): A = L L^H, as StarPU task graphs whose tile
// kernels run on CPU workers (CBLAS/LAPACKE's c and z routines) and CUDA workers (cuSOLVER's potrf, cuBLAS's trsm,
// herk and gemm), as opts.mapping allows; tiles host- or device-resident.
#pragma once
#include <complex>

#include "starfact/options.hpp"
#include "starfact/plan.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Factors the lower triangle of the Hermitian A in place (the strictly upper tiles are neither read nor written;
/// the imaginary parts of the diagonal are taken as zero, as LAPACK's cpotrf/zpotrf take them). Returns LAPACK's
/// info: 0 on success, k > 0 if the leading minor of order k is not positive definite (or holds NaN/Inf); the factor
/// is then incomplete. Right-looking; opts.mapping picks the workers (GpuOnly, Hybrid, CpuOnly; the other options do
/// not apply). Throws InvalidArgument for a non-square A, or naming "mapping" when the Runtime has no worker of the
/// kind opts.mapping asks for.
int potrf(TileMatrix<std::complex<float>>& A, const Options& opts = {});
int potrf(TileMatrix<std::complex<double>>& A, const Options& opts = {});

/// Solves A X = B with the factor L from potrf (L L^H X = B); B (n x nrhs, L's nb) is overwritten by X.
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, const Options& opts = {});
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, const Options& opts = {});

/// potrf then potrs; returns potrf's info (B untouched when info > 0).
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, const Options& opts = {});
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, const Options& opts = {});

/// The submit forms (sequence.hpp): the tasks go into `seq` (A's Runtime's; 'seq' named otherwise) and the call
/// returns without waiting; potrf and posv return the operation index whose info seq.info(op) gives after
/// seq.wait(). async::posv submits the solve without waiting for the factorization: B is overwritten even when it
/// fails (its content is then meaningless), as the real async::posv does.
namespace async {
int potrf(TileMatrix<std::complex<float>>& A, Sequence& seq, const Options& opts = {});
int potrf(TileMatrix<std::complex<double>>& A, Sequence& seq, const Options& opts = {});
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, Sequence& seq,
           const Options& opts = {});
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, Sequence& seq,
           const Options& opts = {});
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts = {});
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts = {});
/// The same with the call's plan from the planning entry (plan.hpp: the operation, A's order and tile size, B's
/// columns as nrhs), which the call follows and does not make again, as the real forms' (cholesky.hpp);
/// InvalidArgument naming 'plan' for a plan of another operation, shape, precision, tile size or mapping.
int potrf(TileMatrix<std::complex<float>>& A, Sequence& seq, const Options& opts, const Plan& plan);
int potrf(TileMatrix<std::complex<double>>& A, Sequence& seq, const Options& opts, const Plan& plan);
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, Sequence& seq,
           const Options& opts, const Plan& plan);
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, Sequence& seq,
           const Options& opts, const Plan& plan);
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, Sequence& seq, const Options& opts,
         const Plan& plan);
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, Sequence& seq, const Options& opts,
         const Plan& plan);
}  // namespace async

}  // namespace starfact
