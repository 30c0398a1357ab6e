// Tile LU factorization with partial pivoting (P A = L U) of square matrices, as StarPU task graphs.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"
#include "starfact/runtime.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// The row interchanges of a tile LU: one StarPU vector of int per tile step k (min(nb, n - k nb) entries),
/// written by the panel task of step k and read by the row-interchange tasks. Entry i of step k holds
/// the global 1-based row (LAPACK's convention) swapped with row k nb + i. Owns its handles and storage
/// (host memory; StarPU copies a step's pivots to a GPU when a task there needs them).
/// For a matrix distributed over a grid of MPI ranks (docs/mpi.md) the pivots are distributed too: step k belongs
/// to the rank owning tile (k, k), which factors that panel, and the ranks applying its interchanges receive it.
class Pivots {
public:
    /// Pivots of an order-n matrix in nb x nb tiles. Throws InvalidArgument naming 'n' or 'nb'.
    Pivots(Runtime& runtime, int64_t n, int64_t nb);
    /// Pivots of a matrix distributed over `grid` (1 x 1: this process's own, as above). Larger grids: collective,
    /// every rank constructs them alike (checked, as TileMatrix's constructor); throws InvalidArgument naming 'grid'
    /// when the grid is not the Runtime's ranks.
    Pivots(Runtime& runtime, int64_t n, int64_t nb, const Grid& grid);
    /// Pivots shaped for the square matrix A (its order, tile size and grid).
    template <typename T>
    explicit Pivots(const TileMatrix<T>& A) : Pivots(A.runtime(), A.n(), A.nb(), A.grid()) {}
    /// Waits for the tasks still using the pivots, then unregisters them.
    ~Pivots();
    Pivots(const Pivots&) = delete;
    Pivots& operator=(const Pivots&) = delete;

    /// Throws RuntimeError once the Runtime has been destroyed (it released the pivots' StarPU data then).
    Runtime& runtime() const;
    int64_t n() const { return n_; }
    int64_t nb() const { return nb_; }
    /// Tile steps: ceil(n / nb).
    int64_t steps() const { return static_cast<int64_t>(handles_.size()); }
    /// The handle of step k's pivots (a vector of int).
    starpu_data_handle_t step(int64_t k) const { return handles_[static_cast<size_t>(k)]; }
    /// The grid of MPI ranks the pivots are distributed over (1 x 1: not distributed).
    const Grid& grid() const { return grid_; }
    bool distributed() const { return grid_.ranks() > 1; }
    /// LAPACK's ipiv (global, 1-based: row i was interchanged with row ipiv[i] - 1, in order), n entries.
    /// Waits for the tasks writing the pivots (call it after getrf or Sequence::wait()). Distributed pivots:
    /// collective (every rank calls it, and receives every step's pivots).
    std::vector<int64_t> ipiv() const;

private:
    void release() noexcept;  // unregisters the handles (destructor, or the Runtime's destructor first)
    Runtime* runtime_;
    int64_t n_, nb_;
    Grid grid_;
    std::vector<std::vector<int>> storage_;  // empty for the steps another rank owns
    std::vector<starpu_data_handle_t> handles_;
    std::unique_ptr<detail::Membership> membership_;  // in the Runtime's registry (runtime/runtime_state.hpp)
};

/// Factors A = P L U in place with partial pivoting over the whole column (LAPACK's getrf): L unit lower
/// (below the diagonal), U upper, the interchanges in `piv` (shaped for A: Pivots(A)). Returns LAPACK's
/// info: 0, or k > 0 if U(k, k) (1-based, global) is exactly zero: the factorization is then complete,
/// without any division by zero, but U is singular. Options: `mapping`; `variant` Right (critical-path
/// priorities) or NoPrio; panel and diag do not apply. Throws InvalidArgument naming 'A' (not square),
/// 'piv' (shaped for another matrix), 'variant' or 'mapping'. A distributed over MPI ranks (docs/mpi.md): collective,
/// the same info on every rank; piv distributed over A's grid (Pivots(A); 'piv' otherwise), every tile of A stored
/// (not lower_only: 'A'); with a grid of several rows and tiles of more than 4096 rows each rank needs a CPU worker
/// ('mapping'). On a grid of several rows the panels are chosen by tournament pivoting (CALU), whose pivots are not
/// partial pivoting's, and this blocking form waits for each step's pivots while it submits, to exchange only the
/// rows that move (docs/mpi.md, "The distributed LU").
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, const Options& opts = {});
/// The same, counting what it did into `stats`.
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, const Options& opts, RunStats& stats);

/// Solves A X = B with the factors of getrf (LU, piv); B (n x nrhs, same nb) is overwritten by X.
/// Throws InvalidArgument naming 'A', 'B' or 'piv'. Distributed factors: collective, B over the same grid ('B').
template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, const Options& opts = {});

/// getrf then getrs; returns getrf's info (B untouched when info > 0). A double matrix with a lower opts.factor
/// takes the refined solve below (its report dropped).
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts = {});

/// Solves A X = B for a general square A with the LU factored in opts.factor (docs/mixed_precision.md):
/// - Native or Fp64: getrf then getrs in double (the report says Direct, backward error not measured);
/// - Fp32, Tf32, Bf16, Fp16 (also Tf32x3, and Auto: Tf32 where the plan says a low factor pays, else the double
///   LU): A is equilibrated by power-of-two row and column scales (Dr A Dc, each row's and column's largest entry in
///   (1/2, 1], as LAPACK's dgeequb, so that no entry leaves float's or FP16's range and none is lost to underflow
///   when rows or columns differ in scale), copied into float tiles and factored there with partial pivoting (Tf32,
///   Bf16, Fp16: the trailing updates on tensor cores on CUDA workers; CPU workers compute every precision in
///   float), and X refined in double: classical refinement, then flexible GMRES preconditioned by the float LU when
///   it stalls (Carson and Higham, SIAM J. Sci. Comput. 40(2), 2018; Haidar et al., SC18), then, unless
///   refine.fallback is off, the double LU when neither reaches the tolerance, when the float LU meets an exactly
///   zero pivot, or when A holds NaN or Inf. Right-hand sides and residuals are scaled column by column by powers
///   of two before each conversion to float. A is left unchanged by a refined solve and piv holds the float LU's
///   interchanges; after a fallback A holds the double LU and piv its interchanges (as LAPACK's dsgesv). The
///   stopping rules and the time budget are refine's (Refinement::shift and shift_retries do not apply: a zero pivot
///   goes to the fallback). Whether the call refines and its tile size are the plan's (plan.hpp:
///   Refinement::always_low refines whatever it says).
/// Returns LAPACK's info: 0, or k > 0 when the double LU met an exactly zero U(k, k) (the float LU's zero pivot only
/// sends the solve to the fallback). B holds X when the returned info is 0 and the report's path is not Failed.
/// Float matrices: Native or Fp32 is the float gesv, Tf32, Bf16 and Fp16 the float LU with tensor-core updates,
/// not refined (report Direct); Fp64 is refused. Throws InvalidArgument naming the argument: B's shape, or B
/// holding NaN or Inf (whose backward error cannot be measured; B is left as it was), 'piv' shaped for another
/// matrix, 'factor' (a float matrix with Fp64), a distributed matrix, bad refinement settings, 'variant'.
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, SolveReport& report,
         const Refinement& refine = {});

/// LU without pivoting, A = L U in place: only for matrices that need no interchanges (diagonally dominant
/// by rows or columns, or symmetric positive definite); on others it is unstable or fails. Returns the first
/// exactly-zero pivot as info (1-based, global); the factors are then meaningless (later columns divide by it).
template <typename T>
int getrf_nopiv(TileMatrix<T>& A, const Options& opts = {});

/// LAPACK-array forms: A column-major n x n (lda >= max(1, n)), overwritten by L and U; ipiv (n entries)
/// receives LAPACK's 1-based interchanges. Tiling::nb = 0 takes the plan's (plan.hpp); the arrays, in host or device
/// memory, are tiled as `tiling` says (by default viewed in place).
template <typename T>
int getrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t* ipiv, const Options& opts = {},
          const Tiling& tiling = {});
/// A X = B: A as getrf's form, B n x nrhs (ldb >= max(1, n)) overwritten by X when info == 0.
template <typename T>
int gesv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb,
         const Options& opts = {}, const Tiling& tiling = {});
/// The array form of the refined gesv above: A column-major n x n (lda >= n), B n x nrhs, host or device memory,
/// viewed as tiles (no copy) unless `tiling` asks for device-resident copies; tiled as the plan says unless
/// tiling.nb is set. ipiv (n entries) receives LAPACK's 1-based interchanges: the float LU's after a refined solve,
/// the double LU's after a fallback or the Direct path. A ends unchanged, or holding the double LU after a fallback.
template <typename T>
int gesv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb,
         const Options& opts, SolveReport& report, const Refinement& refine = {}, const Tiling& tiling = {});

/// Submit forms (see sequence.hpp and async::potrf): each returns once its tasks are in `seq`.
namespace async {
/// Submits the factorization; returns the operation index whose info seq.info(op) gives after wait().
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts = {});
/// Submits the solve with the factors of getrf (submitted before it or completed).
template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
/// getrf then getrs without a wait; returns getrf's operation index (B is meaningless when it fails). A double
/// matrix with a lower opts.factor is refused naming 'factor' (the refined gesv has no submit form).
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
/// Submits getrf_nopiv; returns its operation index.
template <typename T>
int getrf_nopiv(TileMatrix<T>& A, Sequence& seq, const Options& opts = {});
/// getrf, getrs and gesv for a call already planned: `plan` is this call's (getrf, getrs or gesv on these tiles,
/// B's columns as nrhs; as async::potrf's, cholesky.hpp), not made again. Throws InvalidArgument naming 'plan' when
/// it was made for another call.
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan);
template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
           const Plan& plan);
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan);
}  // namespace async


/// Flop count of getrf for reporting GFLOP/s: 2 n^3 / 3.
double getrf_flops(int64_t n);

}  // namespace starfact
