// Inverse of a symmetric positive definite matrix (LAPACK's potri) and its two tile operations, as
// StarPU task graphs: potri = potrf, then trtri, then lauum, submitted as one graph (docs/algorithms.md).
//
// T is float, double, std::complex<float> or std::complex<double>. On complex matrices A is Hermitian positive
// definite (lower triangle read; the imaginary parts of its diagonal are taken as zero, as LAPACK's cpotri/zpotri
// after cpotrf/zpotrf take them), A = L L^H, and every ^T below reads ^H: lauum computes L^H L, potri writes the lower
// triangle of A^-1 = L^-H L^-1 (Hermitian). The complex forms plan as the complex Cholesky does (right-looking, the
// "cusolver" diagonal kernel, trsm panels, their own arithmetic: other options are refused naming them) and run on
// CPU and CUDA workers; tiles host- or device-resident.
#pragma once
#include <cstdint>

#include "starfact/cholesky.hpp"
#include "starfact/plan.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Overwrites the lower triangle of the SPD matrix A (lower triangle read; the strictly upper tiles and
/// triangles are neither read nor written) with the lower triangle of A^-1: the Cholesky factorization,
/// the inverse of its factor and the product L^-T L^-1, as one task graph whose phases overlap.
/// Returns LAPACK's info: 0 on success; k > 0 from potrf (the leading minor of order k is not positive
/// definite; A is then meaningless), else k > 0 from trtri (the factor's diagonal entry k is zero).
/// Throws InvalidArgument for a non-square A or an unusable mapping. `opts.variant` applies to the
/// factorization (Kind::NoPrio also turns off the priorities of the other two phases).
template <typename T>
int potri(TileMatrix<T>& A, const Options& opts = {});
/// The same, counting what it did into `stats`.
template <typename T>
int potri(TileMatrix<T>& A, const Options& opts, RunStats& stats);

/// Inverts the lower-triangular, non-unit L in place (LAPACK's trtri, 'L', 'N'); the strictly upper part
/// is neither read nor written. Returns 0, or k > 0 if L(k, k) (1-based) is exactly zero (L is then
/// meaningless). Throws InvalidArgument for a non-square L or an unusable mapping.
template <typename T>
int trtri(TileMatrix<T>& L, const Options& opts = {});

/// L := L^T L for the lower-triangular L (LAPACK's lauum, 'L'): the lower triangle of the product
/// overwrites L; the strictly upper part is neither read nor written.
template <typename T>
void lauum(TileMatrix<T>& L, const Options& opts = {});

/// LAPACK-array form of potri: A is column-major n x n (lda >= max(1, n)), lower triangle used; it is
/// tiled as `tiling` says (Tiling::nb = 0: the plan's, plan.hpp; a host array by default viewed in place).
template <typename T>
int potri(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts = {}, const Tiling& tiling = {});

/// Flop count of potri (LAWN 41: potrf's, plus trtri's n^3/3 + 2n/3, plus lauum's n^3/3 + n^2/2 + n/6),
/// for reporting GFLOP/s.
double potri_flops(int64_t n);

/// Submit forms (sequence.hpp): each returns once its tasks are submitted into `seq`; seq.wait() blocks
/// until they completed and gathers the infos. Chained operations need no wait in between: potrf, potrs
/// on its factor, then trtri and lauum on that factor, run as one task graph.
namespace async {
/// Submits potrf, trtri and lauum of A as one graph. Registers two operations, the factorization's
/// (returned) and the triangular inverse's (the returned index + 1); seq.wait() returns the first
/// nonzero info, the factorization's first.
template <typename T>
int potri(TileMatrix<T>& A, Sequence& seq, const Options& opts = {});
/// The same for a call already planned: `plan` is potri's for A's tiles (as async::potrf's, cholesky.hpp).
template <typename T>
int potri(TileMatrix<T>& A, Sequence& seq, const Options& opts, const Plan& plan);
/// Submits the in-place inverse of the lower-triangular L (from potrf, submitted before it or completed);
/// returns the operation index whose info seq.info(op) gives after wait().
template <typename T>
int trtri(TileMatrix<T>& L, Sequence& seq, const Options& opts = {});
/// Submits L := L^T L (lower).
template <typename T>
void lauum(TileMatrix<T>& L, Sequence& seq, const Options& opts = {});
}  // namespace async

}  // namespace starfact
