// Tile Householder QR of m x n matrices and what it serves: applying Q or Q^T from either side (ormqr), the thin Q
// (orgqr), linear least squares and minimum-norm solutions (gels), as StarPU task graphs (docs/qr.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "starfact/cholesky.hpp"  // Options, RunStats, Tiling
#include "starfact/plan.hpp"      // QrTree
#include "starfact/runtime.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

namespace detail {
struct QrStatus;
}  // namespace detail

/// Why a QR reported a breakdown, info = k > 0 (the column, 1-based): QRFactors::breakdown() once the operation that
/// returned it was waited for (docs/qr.md, "Breakdowns").
enum class QrBreakdown {
    None,           ///< no breakdown (or not known yet: the factorization was not waited for)
    NotFinite,      ///< R is not finite from column k on: A holds NaN or Inf in column k, or its column norms overflow
    RankDeficient,  ///< the Cholesky QR: A is numerically rank deficient at column k (beyond its range of cond(A))
    Overflow,       ///< the Cholesky QR: A^T A overflows (A holds Inf, or entries too large to square)
    Underflow,      ///< the Cholesky QR: A^T A underflows (A is zero, or its entries too small to square)
    ZeroDiagonal,   ///< gels: R(k, k) is exactly zero (A is rank deficient)
};
/// What a breakdown means, in a sentence for messages ("" for None).
const char* describe(QrBreakdown breakdown);

/// Which side of C the orthogonal factor multiplies: Q C (Left) or C Q (Right).
enum class Side { Left, Right };
/// Q itself, its transpose or its conjugate transpose (ConjTranspose: Q^H, what the complex ormqr takes,
/// qr_complex.hpp; for real matrices the same as Transpose).
enum class Trans { NoTrans, Transpose, ConjTranspose };

/// The triangular factors T of the blocked Householder reflectors of a tile QR (Q = product over the tasks of
/// I - V T V^T, V stored in A's tiles): per tile (i, k) of A, one tile of T (nb rows, A's tile's columns; the first
/// ib rows hold T) for the kernel that factored it alone or under its domain head's triangle (GEQRT, TS), and one
/// more for the kernel that merged its triangle into another (TT, used by the non-flat trees). Their tiles have no home: StarPU allocates them where a task first writes
/// them (a GPU's memory on GPU mappings) and keeps them there for ormqr, orgqr and gels. Shaped for one m x n
/// matrix in nb x nb tiles; owns its StarPU handles, and waits for the tasks using them when destroyed.
/// Like a TileMatrix it belongs to its Runtime and should be destroyed before it. Factors on a grid of MPI ranks
/// (a distributed A's, docs/mpi.md) are distributed like A: the T tiles of tile (i, k) belong to A's owner of it.
template <typename T>
class QRFactors {
public:
    /// Factors of an m x n matrix in nb x nb tiles (gels of a wide A: of A^T, n x m). nb = 0: the plan's (plan.hpp)
    /// for a Hybrid mapping on host arrays (what geqrf's array form uses by default). `tree`: the reduction tree geqrf
    /// will use (Auto: the plan's). `ib`: the inner blocking of the CPU kernels, 1..nb; 0: the plan's
    /// (chosen when geqrf runs: nb on mappings with CUDA workers, else min(nb, 32)). The CUDA kernels take only ib = nb (one triangular factor per tile):
    /// with a smaller explicit ib every task of the factorization runs on CPU workers. The panel tree forms one T per
    /// panel: ib must be 0 or at least min(nb, n) there. The Cholesky QR takes ib as its panels' width: ib < n, a
    /// Householder QR in panels of ib columns, each factored by the Cholesky QR (docs/qr.md, "The blocked Cholesky
    /// QR"); 0, the plan's width (qr_cholqr_panel); distributed factors keep one panel. `grid`: larger than 1 x 1,
    /// factors of a matrix distributed over that grid of MPI ranks (collective: every rank constructs them alike,
    /// checked before anything else); the Cholesky QR that falls back to a Householder tree then runs on one process
    /// only ('tree' is refused). Throws InvalidArgument naming 'm', 'n', 'nb', 'ib', 'tree' or 'grid'.
    QRFactors(Runtime& runtime, int64_t m, int64_t n, int64_t nb = 0, QrTree tree = {}, int64_t ib = 0,
              const Grid& grid = {});
    /// Factors shaped for A (its order, tile size and grid of ranks).
    explicit QRFactors(const TileMatrix<T>& A, QrTree tree = {}, int64_t ib = 0)
        : QRFactors(A.runtime(), A.m(), A.n(), A.nb(), tree, ib, A.grid()) {}
    ~QRFactors();
    QRFactors(const QRFactors&) = delete;
    QRFactors& operator=(const QRFactors&) = delete;

    /// Throws RuntimeError once the Runtime has been destroyed.
    Runtime& runtime() const;
    int64_t m() const { return m_; }
    int64_t n() const { return n_; }
    int64_t nb() const { return nb_; }
    /// The inner blocking in effect: the one asked for, or the plan's once geqrf ran (0 before).
    int64_t ib() const { return ib_ > 0 ? ib_ : ib_requested_; }
    /// The inner blocking asked for at construction (0: the plan's).
    int64_t ib_requested() const { return ib_requested_; }
    /// The tree asked for.
    const QrTree& tree() const { return tree_; }
    /// The grid of MPI ranks the factors are distributed over (1 x 1: one process).
    const Grid& grid() const { return grid_; }
    bool distributed() const { return grid_.ranks() > 1; }
    /// How the domains tree of the factorization held groups tile rows: 1, consecutive rows (one process, or the flat
    /// and binary trees); P > 1, the rows of each grid row of a P x Q grid (i mod P), flat or in domains within it and
    /// merged by a binary tree across the grid rows (a distributed A, docs/mpi.md).
    int64_t row_cycle() const { return row_cycle_; }
    /// Tile rows per domain of the factorization held (the flat tree: all of them; the binary tree: 1); 0 until a
    /// geqrf was submitted with these factors.
    int64_t domain_rows() const { return domain_; }
    /// Whether a geqrf has been submitted with these factors (ormqr, orgqr need one); false again after the blocking
    /// geqrf reported a breakdown.
    bool factored() const { return domain_ > 0; }
    /// Why the last factorization submitted with these factors (geqrf, gels) broke down: None while its tasks run and
    /// when it succeeded. Read it after the wait that gave info > 0 (info is the column).
    QrBreakdown breakdown() const;
    /// The column (1-based) of breakdown(), the info of the factorization that broke down; 0 with None.
    int64_t breakdown_column() const;
    /// Why the factorization held was redone by a Householder tree (QrTree::fallback): the Cholesky QR's breakdown
    /// that made the blocking geqrf or gels fall back, the factorization held then being the Householder tree's;
    /// None when no fall-back ran (the last call's own tree factored A, or broke down and said so).
    QrBreakdown fallback() const { return fallback_; }
    /// Whether the last factorization fell back to a Householder tree (fallback() != None).
    bool fell_back() const { return fallback_ != QrBreakdown::None; }
    /// Internal: the tree the next factorization submitted with these factors runs: tree(), or after a fall-back
    /// the Householder tree it chose.
    const QrTree& plan_tree() const { return fell_back() ? householder_ : tree_; }
    /// Internal: set by the blocking geqrf and gels: `why` (None: no fall-back) and the Householder tree to redo with.
    void set_fallback(QrBreakdown why, const QrTree& householder = {}) {
        fallback_ = why;
        householder_ = householder;
    }
    /// Whether the factorization held is the Cholesky QR's (QrTree::Kind::Cholqr, or Auto resolved to it by
    /// the plan): Q = I - Y T Y^T with one block Y of n reflectors over all tile rows (below A's diagonal, unit
    /// diagonal implicit) and T (n x n, upper) in the first rows of t_tile(0, 0); in panels (ib() < n), Q = Q_1 Q_2
    /// ..., one block of reflectors per panel of ib() columns, their T side by side in the first ib() rows of
    /// t_tile(0, 0) (LAPACK's geqrt layout).
    bool cholqr() const { return cholqr_; }
    /// Whether the factorization held has whole-panel tasks (QrTree::Kind::Panel, or Auto resolved to it by
    /// the plan): per tile column k < mt - 1 one block of reflectors over tile rows k.. (below A's diagonal,
    /// unit diagonal implicit) with its T (upper, the tile column's width) in the first rows of t_tile(k, k); a last
    /// step of one tile row (k = mt - 1) is a GEQRT's.
    bool panel() const { return panel_; }

    /// Internal (the DAG builders): the T tile of the GEQRT or TS kernel that factored tile (i, k), and of the TT
    /// kernel that merged tile i's triangle into its head.
    starpu_data_handle_t t_tile(int64_t i, int64_t k) const;
    starpu_data_handle_t tt_tile(int64_t i, int64_t k) const;
    /// Internal (gels of a wide A, which factors A^T in it): a matrix of the factors' shape and tiles, without a
    /// home, made on first use and kept with the factors.
    TileMatrix<T>& factored_workspace();
    /// Internal: a fresh breakdown record for a factorization being submitted, which its tasks fill in (the sequence
    /// keeps it until they complete); status() is the last one.
    std::shared_ptr<detail::QrStatus> new_status();
    detail::QrStatus* status() const { return status_.get(); }
    /// Internal: set by geqrf when it submits the factorization.
    void set_plan(int64_t ib, int64_t domain_rows, bool cholqr = false, bool panel = false, int64_t row_cycle = 1) {
        ib_ = ib;
        domain_ = domain_rows;
        cholqr_ = cholqr;
        panel_ = panel;
        row_cycle_ = row_cycle;
    }

private:
    Runtime* runtime_;
    int64_t m_, n_, nb_, ib_requested_, ib_ = 0, domain_ = 0, row_cycle_ = 1;
    bool cholqr_ = false, panel_ = false;
    QrTree tree_, householder_;
    Grid grid_;
    QrBreakdown fallback_ = QrBreakdown::None;
    std::shared_ptr<detail::QrStatus> status_;
    std::unique_ptr<TileMatrix<T>> t_, tt_, a_;
};

extern template class QRFactors<float>;
extern template class QRFactors<double>;

/// Factors A = Q R in place (LAPACK's geqrf, in tiles): R in the upper triangle of A (m < n: upper trapezoidal,
/// min(m, n) reflectors, Q m x m), the Householder vectors below it (and, with a non-flat tree, in the upper
/// triangles of the tiles merged into their heads), the T factors in `T` (shaped for A). Options: `mapping`;
/// `variant` Right (critical-path priorities) or NoPrio. A distributed A (docs/mpi.md): collective, every rank calls
/// it alike (checked first), T on A's grid (QRFactors(A)), the flat, binary, domains (following the grid rows) or auto
/// tree, the same info and breakdown on every rank. Throws InvalidArgument naming 'T' (shaped for another matrix,
/// another Runtime or another grid), 'variant' or 'mapping', 'tree' (Cholqr on a matrix of more than one tile column
/// or with m < n; Cholqr or Panel on a distributed A). Breakdowns (docs/qr.md), for every tree: R not finite from column k on (A holds NaN
/// or Inf there); the Cholesky QR (QrTree::Kind::Cholqr, or Auto on tall and skinny GPU shapes) also reports A
/// numerically rank deficient at column k (an exactly singular A^T A included) and A^T A overflowing or underflowing
/// (A's entries too large or too small to square). The blocking forms then throw InvalidArgument naming 'A' with
/// describe(T.breakdown()) (A holds no factorization, T.factored() is false); the submit form makes Sequence::wait()
/// return k, and T.breakdown() says why. With T's tree asking for the Householder fall-back (QrTree::fallback), the
/// blocking forms keep a copy of A while the Cholesky QR runs and, when it breaks down, factor the original A again
/// with the plan's Householder tree: T.fallback() says why, T then holds that factorization (docs/qr.md, "The
/// Householder fall-back"); the submit form refuses such T, naming 'tree'.
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts = {});
/// The same, counting what it did into `stats`.
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, RunStats& stats);

/// C := op(Q) C (Side::Left: C is m x nrhs) or C := C op(Q) (Side::Right: C is nrhs x m) with the m x m orthogonal
/// Q of geqrf (A, T), op(Q) = Q or Q^T (LAPACK's ormqr); C in A's tile size. Every tree the factors may hold.
/// Throws InvalidArgument naming 'A', 'T', 'C' (its rows, Right: its columns, not A's m; another tile size; another
/// grid of ranks than A's), 'mapping'.
template <typename T>
void ormqr(Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C,
           const Options& opts = {});
/// Q := the first min(m, n) columns of the Q of geqrf (A, T) (LAPACK's orgqr; m < n: all of Q): Q is
/// m x min(m, n) in A's tile size (and grid). Throws InvalidArgument naming 'A', 'T', 'Q', 'mapping'.
template <typename T>
void orgqr(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, const Options& opts = {});
/// LAPACK's gels ('N') for a full-rank A; B is max(m, n) x nrhs, as LAPACK's.
/// m >= n: least squares min ||A X - B||_2: factors A (geqrf into T, shaped for A), B := Q^T B, then solves
/// R X = B(0:n, :); X is in the first n rows of B, the rows below hold the residual's components.
/// m < n: the minimum-norm solution of A X = B(0:m, :) (B's rows below m are ignored) by the QR of A^T (LAPACK
/// uses an LQ of A, the same factorization transposed): A^T = Q R in a workspace T keeps (T shaped for A^T,
/// n x m), R^T Y = B(0:m, :), X = Q [Y; 0] into B (n rows); A is overwritten by the factors of A^T transposed
/// (L = R^T on and below its diagonal, the reflectors to its right, as LAPACK's gelqf lays them out).
/// Scales as LAPACK's gels: A and B by powers of two when their largest entries lie outside [smlnum, bignum]
/// (smlnum = the smallest normal number / eps; the Cholesky QR: when A^T A would leave the range), X scaled back; A
/// then holds the factors of the scaled A, as LAPACK's.
/// Returns LAPACK's info: 0, or k > 0 if R(k, k) (1-based) is exactly zero (A is rank deficient) or one of geqrf's
/// breakdowns at column k (T.breakdown() says which): X is not computed (m >= n: B holds Q^T B; m < n: B is
/// untouched). With T's tree asking for the Householder fall-back (QrTree::fallback), a breakdown of the Cholesky QR
/// makes gels start again from copies of A and B with the plan's Householder tree (T.fallback() says why); the submit
/// form refuses such T. A distributed A: B on A's grid, as geqrf otherwise. Throws InvalidArgument naming 'A', 'T',
/// 'B', 'mapping', 'tree'.
template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const Options& opts = {});

/// LAPACK-array forms: A column-major m x n (lda >= max(1, m)); T shaped for A's m, n (its nb is the tiling's:
/// Tiling::nb must be 0 or T's). Host arrays are viewed in place by default, device arrays copied in and out.
template <typename T>
void geqrf(Runtime& rt, int64_t m, int64_t n, T* A, int64_t lda, QRFactors<T>& Tf, const Options& opts = {},
           const Tiling& tiling = {});
/// C (m x nrhs, ldc >= m) := op(Q) C (Side::Left) or C (nrhs x m, ldc >= nrhs) := C op(Q) (Side::Right) with the A
/// and T of geqrf's array form.
template <typename T>
void ormqr(Runtime& rt, Side side, Trans trans, int64_t m, int64_t nrhs, const T* A, int64_t lda,
           const QRFactors<T>& Tf, T* C, int64_t ldc, const Options& opts = {}, const Tiling& tiling = {});
/// Q (m x min(m, n), ldq) := the thin Q of geqrf's array form.
template <typename T>
void orgqr(Runtime& rt, int64_t m, int64_t n, const T* A, int64_t lda, const QRFactors<T>& Tf, T* Q, int64_t ldq,
           const Options& opts = {}, const Tiling& tiling = {});
/// gels: A (m x n) is overwritten by its QR factors (m < n: those of A^T, transposed), B (max(m, n) x nrhs,
/// ldb >= max(1, m, n)) by Q^T B with X in its first n rows (m < n: by X). Tiling::nb = 0: the plan's for the
/// matrix factored. Returns gels' info.
template <typename T>
int gels(Runtime& rt, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb,
         const Options& opts = {}, const Tiling& tiling = {});

/// Submit forms (see sequence.hpp): each returns once its tasks are in `seq`.
namespace async {
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, Sequence& seq, const Options& opts = {});
/// The same with the call's plan from the planning entry (plan.hpp: Operation::Geqrf for the tiles Tf is shaped for,
/// Tf's tree and inner blocking requested), which the call follows and does not make again; InvalidArgument naming
/// 'plan' for a plan of another shape, precision, tile size or mapping.
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, Sequence& seq, const Options& opts, const Plan& plan);
template <typename T>
void ormqr(Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C, Sequence& seq,
           const Options& opts = {});
template <typename T>
void orgqr(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, Sequence& seq, const Options& opts = {});
/// geqrf, Q^T B and the triangular solve without a wait; returns the operation index whose info seq.info(op)
/// gives after wait() (B is meaningless when it is > 0).
template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
/// The same with the call's plan (Operation::Gels of A, or Operation::Geqrf of the matrix factored), as geqrf's.
template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan);
}  // namespace async

/// Flop counts (LAWN 41) for reporting GFLOP/s: geqrf 2 m n^2 - 2 n^3 / 3 (m < n: 2 n m^2 - 2 m^3 / 3); ormqr
/// 4 m n nrhs - 2 n^2 nrhs (n reflectors on an m x nrhs matrix); orgqr 4 m k^2 - 4 k^3 / 3 with k = min(m, n) (as
/// ormqr on k columns, counted the LAPACK way); gels geqrf + ormqr + trsm (n^2 nrhs), of A^T when m < n.
double geqrf_flops(int64_t m, int64_t n);
double ormqr_flops(int64_t m, int64_t n, int64_t nrhs);
double orgqr_flops(int64_t m, int64_t n);
double gels_flops(int64_t m, int64_t n, int64_t nrhs);

/// Checks of a computed QR in double on the host (OpenBLAS, all its threads from order 512 on): ||I - Q^T Q||_1 /
/// (m eps) for an m x n Q, and ||A - Q R||_1 / (||A||_1 m eps) for Q (m x k) and R (the upper trapezoid of the k x n
/// leading block of QR; what lies below its diagonal is not read), k = min(m, n).
template <typename T>
double orthogonality_residual(int64_t m, int64_t n, const T* Q, int64_t ldq);
template <typename T>
double qr_residual(int64_t m, int64_t n, const T* A, int64_t lda, const T* Q, int64_t ldq, const T* R, int64_t ldr);
/// The least-squares check of a solution X (n x nrhs) of min ||A X - B||: the normal equations' residual
/// ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps).
template <typename T>
double gels_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                     int64_t ldb);

}  // namespace starfact
