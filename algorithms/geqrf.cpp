// Tile Householder QR, A = Q R (docs/qr.md), right-looking over the reduction tree of algorithms/qr_dag.hpp
// (m < n: the steps stop at the last tile row, R upper trapezoidal):
//
//   for k = 0 .. min(mt, nt)-1
//     for each domain (head h, rows i):
//       geqrt  A[h][k] -> T[h][k];            for j > k: unmqr  A[h][j] by (A[h][k], T[h][k])
//       for i: tsqrt A[h][k], A[i][k] -> T[i][k];  for j > k: tsmqr  A[h][j], A[i][j] by (A[i][k], T[i][k])
//     for each merge (p, i):
//       ttqrt  A[p][k], A[i][k] -> TT[i][k];  for j > k: ttmqr  A[p][j], A[i][j] by (A[i][k], TT[i][k])
//
// The panel tree (QrTree::Kind::Panel) is the blocked Householder QR with one task per panel instead of a tile tree:
//
//   for k = 0 .. min(mt, nt)-1
//     k < mt-1:  qr_panel A[k..mt-1][k] -> T[k][k]   (geqrf of the gathered panel, Q_k = I - Y_k T_k Y_k^T)
//                for j > k: A[k..][j] := Q_k^T A[k..][j]   (by tiles: W_i := Y_i^T A[i][j], W := sum W_i, W := T^T W,
//                                                           A[i][j] -= Y_i W; algorithms/cholqr.cpp)
//     k = mt-1:  geqrt A[k][k] -> T[k][k];  for j > k: unmqr A[k][j]   (one tile row: the flat tree's kernels)
//
// Every tree ends with R's check (codelets/qr_finite.cpp): NaN or Inf in R is the operation's info, so that a
// factorization of A holding NaN or Inf never passes for one. QRFactors, the flop counts and the argument checks live
// here too.
#include <algorithm>
#include <complex>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/plan_tables.hpp"
#include "algorithms/qr_dag.hpp"
#include "algorithms/qr_fallback.hpp"
#include "codelets/qr_codelets.hpp"
#include "codelets/qr_status.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/qr.hpp"

namespace starfact {

double geqrf_flops(int64_t m, int64_t n) {
    const double M = static_cast<double>(std::max(m, n)), N = static_cast<double>(std::min(m, n));
    return 2.0 * M * N * N - 2.0 * N * N * N / 3.0;  // LAWN 41 (m < n: 2 n m^2 - 2 m^3 / 3)
}
double ormqr_flops(int64_t m, int64_t n, int64_t nrhs) {
    const double M = static_cast<double>(m), N = static_cast<double>(n), R = static_cast<double>(nrhs);
    return 4.0 * M * N * R - 2.0 * N * N * R;
}
double orgqr_flops(int64_t m, int64_t n) {
    const double M = static_cast<double>(m), N = static_cast<double>(std::min(m, n));  // min(m, n) columns
    return 4.0 * M * N * N - 4.0 * N * N * N / 3.0;
}
double gels_flops(int64_t m, int64_t n, int64_t nrhs) {
    if (m < n) std::swap(m, n);  // a wide A: the QR of A^T
    return geqrf_flops(m, n) + ormqr_flops(m, n, nrhs) + static_cast<double>(n) * static_cast<double>(n) * nrhs;
}

const char* describe(QrBreakdown breakdown) {
    switch (breakdown) {
        case QrBreakdown::None: break;
        case QrBreakdown::NotFinite:
            return "R is not finite from this column on: the matrix holds NaN or Inf in it (or its column norms "
                   "overflow)";
        case QrBreakdown::RankDeficient:
            return "the Cholesky QR found the matrix numerically rank deficient at this column (its condition number "
                   "is beyond about 1e13 in double; the Householder trees factor any matrix, and the tree "
                   "'cholqr+fallback' (QrTree::fallback) redoes the factorization with one on a breakdown)";
        case QrBreakdown::Overflow:
            return "the Cholesky QR's Gram matrix A^T A overflows: the matrix holds Inf, or entries too large to "
                   "square (scale it, use a Householder tree, or the tree 'cholqr+fallback', which falls back to "
                   "one on a breakdown)";
        case QrBreakdown::Underflow:
            return "the Cholesky QR's Gram matrix A^T A underflows: the matrix is zero, or its entries are too small "
                   "to square (scale it, use a Householder tree, or the tree 'cholqr+fallback', which falls back to "
                   "one on a breakdown)";
        case QrBreakdown::ZeroDiagonal:
            return "R's diagonal entry is exactly zero at this column: the matrix is rank deficient";
    }
    return "";
}

// ---- QRFactors ------------------------------------------------------------------------------------

template <typename T>
QRFactors<T>::QRFactors(Runtime& runtime, int64_t m, int64_t n, int64_t nb, QrTree tree, int64_t ib, const Grid& grid)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), ib_requested_(ib), tree_(tree), grid_(grid),
      status_(std::make_shared<detail::QrStatus>()) {
    if (grid.ranks() > 1)  // every rank, before any check that one rank could fail alone (docs/mpi.md)
        detail::agree(runtime, "QRFactors",
                      {{"m", m}, {"n", n}, {"nb", nb}, {"grid", grid}, {"tree", tree.name()}, {"ib", ib}});
    const std::string grid_text = std::to_string(grid.p) + " x " + std::to_string(grid.q);
    require(grid.p >= 1 && grid.q >= 1, "QRFactors", "grid", "must be at least 1 x 1 (got " + grid_text + ")");
    require(grid.ranks() == 1 || (runtime.mpi() && grid.ranks() == runtime.mpi_size()), "QRFactors", "grid",
            grid_text + " has " + std::to_string(grid.ranks()) + " process(es) but the Runtime has " +
                std::to_string(runtime.mpi() ? runtime.mpi_size() : 1) + " MPI rank(s)");
    if (grid.ranks() > 1)
        require(!(tree.kind == QrTree::Kind::Cholqr && tree.fallback), "QRFactors", "tree", [&] {
            return "'" + tree.name() +
                   "' runs on one process; factors distributed over MPI ranks take the flat, binary, domains, cholqr, "
                   "panel or auto tree";
        });
    detail::require_nonnegative("QRFactors", "m", m);
    detail::require_nonnegative("QRFactors", "n", n);
    require(nb >= 0, "QRFactors", "nb", "must be >= 0 (got " + std::to_string(nb) + ")");
    if (nb_ == 0) {
        nb_ = plan({Operation::Geqrf, detail::is_single_v<T> ? Precision::Fp32 : Precision::Fp64, m, n},
                   Machine::of(runtime)).nb;
        if (grid.ranks() > 1) detail::agree(runtime, "QRFactors", {{"nb (the plan's)", nb_}});  // ranks' machines differ
    }
    require(ib >= 0 && ib <= nb_, "QRFactors", "ib",
            "must be in [0, nb] = [0, " + std::to_string(nb_) + "] (got " + std::to_string(ib) + ")");
    if (tree.kind == QrTree::Kind::Panel)
        require(ib == 0 || ib >= std::min(nb_, n), "QRFactors", "ib", [&] {
            return "must be 0 or at least min(nb, n) = " + std::to_string(std::min(nb_, n)) +
                   " with the panel tree, which forms one T per panel (got " + std::to_string(ib) + ")";
        });
    if (tree.kind == QrTree::Kind::Domains)
        require(tree.domain >= 1, "QRFactors", "tree", "domains=A needs A >= 1 (got " + std::to_string(tree.domain) + ")");
    const int64_t mt = (m + nb_ - 1) / nb_;
    // One T tile (nb x min(nb, n - k nb)) per tile of A, for each kind of kernel; without a home, StarPU allocates
    // a tile where a task first writes it.
    // Distributed: registered with StarPU-MPI, tile (i, k) owned as A's tile (i, k).
    const TileLayout layout{grid};
    t_ = std::make_unique<TileMatrix<T>>(detail::WorkspaceTiles{}, runtime, mt * nb_, n, nb_, layout);
    tt_ = std::make_unique<TileMatrix<T>>(detail::WorkspaceTiles{}, runtime, mt * nb_, n, nb_, layout);
}

template <typename T>
QRFactors<T>::~QRFactors() = default;

template <typename T>
Runtime& QRFactors<T>::runtime() const {
    return t_->runtime();  // throws once the Runtime is gone
}

template <typename T>
QrBreakdown QRFactors<T>::breakdown() const {
    return status_->breakdown();
}

template <typename T>
int64_t QRFactors<T>::breakdown_column() const {
    return status_->breakdown() == QrBreakdown::None ? 0 : status_->column.load(std::memory_order_acquire);
}

template <typename T>
std::shared_ptr<detail::QrStatus> QRFactors<T>::new_status() {
    status_ = std::make_shared<detail::QrStatus>();
    return status_;
}

template <typename T>
starpu_data_handle_t QRFactors<T>::t_tile(int64_t i, int64_t k) const {
    return t_->tile(i, k);
}
template <typename T>
starpu_data_handle_t QRFactors<T>::tt_tile(int64_t i, int64_t k) const {
    return tt_->tile(i, k);
}

template <typename T>
TileMatrix<T>& QRFactors<T>::factored_workspace() {
    if (!a_) a_ = std::make_unique<TileMatrix<T>>(detail::WorkspaceTiles{}, runtime(), m_, n_, nb_, TileLayout{grid_});
    return *a_;
}

template class QRFactors<float>;
template class QRFactors<double>;
template class QRFactors<std::complex<float>>;  // the complex QR's (qr_complex.hpp)
template class QRFactors<std::complex<double>>;

namespace detail {
namespace {

/// Submits the task graph of one tile QR.
template <typename T>
class QrDag {
public:
    QrDag(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, RunStats* stats, SequenceState* seq)
        : rt_(A.runtime()), A_(A), T_(Tf), nt_(A.nt()), ib_(static_cast<int>(Tf.ib())),
          priorities_(opts.variant.kind == Variant::Kind::Right), prio_(priorities_, static_cast<int>(2 * nt_ + 1)),
          o_(operation_task_options(rt_, opts, A.nb(), stats, seq)), names_(*seq) {
        if (!qr_gpu_layout(Tf)) o_.mapping = Mapping::CpuOnly;  // only the CPU kernels take ib < K
    }

    void step(int64_t k) {
        const QrStep s = qr_step(k, A_.mt(), T_.domain_rows(), T_.row_cycle());
        for (const QrStep::Domain& d : s.domains) {
            set(panel(k), names_("geqrt", d.head, k));
            o_.rank = -1;  // GEQRT and UNMQR write one tile: its owner runs them
            insert_geqrt<T>(rt_, o_, A_.tile(d.head, k), T_.t_tile(d.head, k), ib_);
            for (int64_t j = k + 1; j < nt_; ++j) {
                set(update(j), names_("unmqr", d.head, j, k));
                insert_unmqr<T>(rt_, o_, Side::Left, true, A_.tile(d.head, k), T_.t_tile(d.head, k),
                                A_.tile(d.head, j), ib_);
            }
            for (int64_t i : d.rows) {
                set(panel(k), names_("tsqrt", d.head, i, k));
                on_owner_of(i, k);
                insert_tpqrt<T>(rt_, o_, false, A_.tile(d.head, k), A_.tile(i, k), T_.t_tile(i, k), ib_);
                for (int64_t j = k + 1; j < nt_; ++j) {
                    set(update(j), names_("tsmqr", i, j, k));
                    on_owner_of(i, j);
                    insert_tpmqrt<T>(rt_, o_, false, Side::Left, true, A_.tile(i, k), T_.t_tile(i, k),
                                     A_.tile(d.head, j), A_.tile(i, j), ib_);
                }
            }
        }
        for (const auto& [p, i] : s.merges) {
            set(panel(k), names_("ttqrt", p, i, k));
            on_owner_of(i, k);
            insert_tpqrt<T>(rt_, o_, true, A_.tile(p, k), A_.tile(i, k), T_.tt_tile(i, k), ib_);
            for (int64_t j = k + 1; j < nt_; ++j) {
                set(update(j), names_("ttmqr", i, j, k));
                on_owner_of(i, j);
                insert_tpmqrt<T>(rt_, o_, true, Side::Left, true, A_.tile(i, k), T_.tt_tile(i, k), A_.tile(p, j),
                                 A_.tile(i, j), ib_);
            }
        }
        o_.rank = -1;
    }

private:
    /// The TS and TT kernels write two tiles of A, the top one (the head's) and tile (i, j), whose reflectors (and T
    /// factor) they hold: on a distributed A the owner of tile (i, j) runs them, the top tile travels there and back
    /// when another rank owns it (StarPU-MPI, as the LU's panel: docs/mpi.md). The reflectors and T stay put.
    void on_owner_of(int64_t i, int64_t j) { o_.rank = A_.distributed() ? A_.owner(i, j) : -1; }
    int64_t panel(int64_t k) const { return 2 * (nt_ - k) + 1; }
    int64_t update(int64_t j) const { return 2 * (nt_ - j); }
    void set(int64_t raw, const char* name) {
        o_.priority = prio_(static_cast<int>(raw));
        o_.name = name;
    }

    Runtime& rt_;
    TileMatrix<T>& A_;
    QRFactors<T>& T_;
    int64_t nt_;
    int ib_;
    bool priorities_;
    PriorityScale prio_;
    TaskOptions o_;
    TaskNames names_;
};

/// Submits the blocked Householder QR with whole-panel tasks (the panel tree). Priorities as the tile trees': the
/// panel of step k above the updates, the update of tile column j the higher the nearer j is to the diagonal, so
/// that the next panel's column is updated first (look-ahead); the panels urgent (TaskOptions::urgent).
template <typename T>
void submit_panel_qr_dag(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, RunStats* stats,
                         SequenceState* seq) {
    Runtime& rt = A.runtime();
    const int64_t mt = A.mt(), nt = A.nt(), steps = std::min(mt, nt);
    const bool priorities = opts.variant.kind == Variant::Kind::Right;
    const PriorityScale prio(priorities, static_cast<int>(2 * nt + 1));
    // The panels are the critical path: on the GPU they run on the worker's highest-priority stream (their
    // workspace is the scratch, which no task of the update uses).
    const bool urgent = priorities;
    auto panel = [&](int64_t k) { return prio(static_cast<int>(2 * (nt - k) + 1)); };
    auto update = [&](int64_t j) { return prio(static_cast<int>(2 * (nt - j))); };
    TaskOptions o = operation_task_options(rt, opts, A.nb(), stats, seq);
    TaskNames names(*seq);
    const int ib = static_cast<int>(Tf.ib());
    if (o.mapping != Mapping::CpuOnly) {
        if (mt > 1) reserve_qr_panel_workspace<T>(rt, A.m(), A.tile_cols(0));
        if (mt <= nt) reserve_qr_workspace<T>(rt, A.nb(), A.n());
    }
    for (int64_t k = 0; k < steps; ++k) {
        o.priority = panel(k);
        if (k < mt - 1) {
            std::vector<starpu_data_handle_t> tiles;
            for (int64_t i = k; i < mt; ++i) tiles.push_back(A.tile(i, k));
            {
                TraceIteration step(rt, k);  // the update's tasks: iterations of their tile columns
                o.name = names("qr_panel", k);
                o.urgent = urgent;
                // a distributed A: the panel runs on the rank of its diagonal tile, which receives the column's
                // other tiles and sends them back factored (as the LU's panel)
                o.rank = A.distributed() ? A.owner(k, k) : -1;
                insert_qr_panel<T>(rt, o, tiles, Tf.t_tile(k, k));
                o.rank = -1;
                o.urgent = false;
            }
            if (k + 1 < nt) {
                ReflectorBlock block;
                block.k = k;
                block.first = k + 1;
                block.priority = update;
                submit_cholqr_apply_dag(starfact::Side::Left, true, A, Tf, A, opts, stats, seq, block);
            }
            continue;
        }
        TraceIteration step(rt, k);
        o.name = names("geqrt", k, k);
        insert_geqrt<T>(rt, o, A.tile(k, k), Tf.t_tile(k, k), ib);
        for (int64_t j = k + 1; j < nt; ++j) {
            o.priority = update(j);
            o.name = names("unmqr", k, j, k);
            insert_unmqr<T>(rt, o, Side::Left, true, A.tile(k, k), Tf.t_tile(k, k), A.tile(k, j), ib);
        }
    }
}

}  // namespace

template <typename T>
void require_qr_arguments(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const Options& opts,
                          bool transposed) {
    const int64_t m = transposed ? A.n() : A.m(), n = transposed ? A.m() : A.n();
    require(Tf.m() == m && Tf.n() == n && Tf.nb() == A.nb(), function, "T", [&] {
        return std::string(transposed ? "must be shaped for A^T (a wide A's least squares factor A^T; got m="
                                      : "must be shaped for A (got m=") +
               std::to_string(Tf.m()) + " n=" + std::to_string(Tf.n()) + " nb=" + std::to_string(Tf.nb()) +
               ", A has m=" + std::to_string(A.m()) + " n=" + std::to_string(A.n()) + " nb=" + std::to_string(A.nb()) +
               ")";
    });
    Runtime& rt = A.runtime();
    require(&Tf.runtime() == &rt, function, "T", "belongs to another Runtime than A");
    require(Tf.grid() == A.grid(), function, "T", [&] {
        return "must be distributed as A (QRFactors(A): on A's grid of ranks, " + std::to_string(A.grid().p) + " x " +
               std::to_string(A.grid().q) + "; got " + std::to_string(Tf.grid().p) + " x " +
               std::to_string(Tf.grid().q) + ")";
    });
    require(!A.distributed() || !(Tf.tree().kind == QrTree::Kind::Cholqr && Tf.tree().fallback), function, "tree",
            [&] {
                return "'" + Tf.tree().name() +
                       "' runs on one process: a matrix distributed over MPI ranks takes the flat, binary, domains, "
                       "cholqr, panel or auto tree";
            });
    rt.require_mapping(opts.mapping, function);
    require(!is_complex_v<T> || Tf.tree().kind != QrTree::Kind::Cholqr, function, "tree",
            "is cholqr, which factors real matrices only (complex matrices: auto, flat, binary, domains=D, panel)");
    if (Tf.tree().kind == QrTree::Kind::Cholqr)
        require(n <= A.nb() && m >= n, function, "tree", [&] {
            return "cholqr factors a tall matrix of one tile column: needs n <= nb and m >= n (got m=" +
                   std::to_string(m) + " n=" + std::to_string(n) + " nb=" + std::to_string(A.nb()) +
                   "; the flat, binary and domains trees factor any shape)";
        });
    require(opts.variant.kind == Variant::Kind::Right || opts.variant.kind == Variant::Kind::NoPrio, function,
            "variant", "must be right or noprio for QR (got '" + opts.variant.name() + "')");
}

/// R's check: per tile column j, one task on its tiles of R (tile rows 0 .. min(j, mt - 1); the diagonal one's upper
/// triangle), after the tasks that write them. A distributed A: one task per grid row on the tiles of R that its rank
/// owns in the column, which writes that rank's info (nothing moves between ranks).
template <typename T>
void submit_r_check(TileMatrix<T>& A, const QrInfo& info, QrStatus* status, const Options& opts, RunStats* stats,
                    SequenceState* seq) {
    TaskOptions o = operation_task_options(A.runtime(), opts, A.nb(), stats, seq);
    TaskNames names(*seq);
    const int64_t cycle = A.distributed() ? A.grid().p : 1;
    for (int64_t j = 0; j < A.nt(); ++j) {
        const int64_t last = std::min(j, A.mt() - 1);
        for (int64_t first = 0; first < std::min(cycle, last + 1); ++first) {
            std::vector<starpu_data_handle_t> tiles;
            for (int64_t i = first; i <= last; i += cycle) tiles.push_back(A.tile(i, j));
            o.name = names("qr_finite", j);
            // (the diagonal tile, when in the list, is its last)
            insert_qr_finite_check<T>(A.runtime(), o, tiles, last == j && (last - first) % cycle == 0, j * A.nb(),
                                      info.of(A.owner(first, j)), status);
        }
    }
}

/// The breakdown of a distributed QR, the same on every rank: the record of the smallest column over the ranks (the
/// column wait() makes the info of every rank). Collective.
void agree_qr_status(const Runtime& rt, QrStatus& status) {
    const QrBreakdown mine = status.breakdown();
    constexpr int64_t kinds = 16;  // more than QrBreakdown's values
    std::vector<int64_t> key{mine == QrBreakdown::None
                                 ? std::numeric_limits<int64_t>::min()
                                 : -(status.column.load(std::memory_order_acquire) * kinds + static_cast<int64_t>(mine))};
    allreduce_max(rt, "QRFactors::breakdown", key);
    if (key[0] == std::numeric_limits<int64_t>::min()) return;  // no rank found one
    status.column.store(-key[0] / kinds, std::memory_order_relaxed);
    status.kind.store(static_cast<int>(-key[0] % kinds), std::memory_order_release);
}

template <typename T>
int add_qr_operation(const TileMatrix<T>& A, SequenceState* seq, QrInfo* info) {
    if (A.distributed()) return seq->add_distributed_operation(A.runtime(), &info->handles);
    info->handles.assign(1, nullptr);
    return seq->add_operation(&info->handles.front());
}

template <typename T>
Plan qr_plan_for(const TileMatrix<T>& A, const QRFactors<T>& Tf, const Options& /*opts*/, Plan p) {
    if (!A.distributed() || Tf.tree().kind != QrTree::Kind::Auto) return p;
    return detail::qr_distributed_plan(p, Tf.m(), Tf.n(), Tf.nb(), A.grid().p);
}

template <typename T>
void agree_qr_call(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const TileMatrix<T>* C,
                   const Options& opts, int64_t what) {
    if (!A.distributed() && !Tf.distributed() && !(C && C->distributed())) return;
    const int64_t t_tag = Tf.distributed() && Tf.m() > 0 && Tf.n() > 0 ? mpi_tag(Tf.t_tile(0, 0)) : -1;
    agree(A.runtime(), function,
          {{"m", A.m()}, {"n", A.n()}, {"nb", A.nb()}, {"A (tag of its first tile)", first_tag(A)},
           {"T (tag of its first tile)", t_tag}, {"tree", Tf.tree().name()}, {"ib", Tf.ib_requested()},
           {"variant", opts.variant.name()}, {"the second matrix (tag of its first tile)", C ? first_tag(*C) : -1},
           {"its columns", C ? C->n() : 0}, {"side and transposition", what}});
}

template <typename T>
void require_on_grid_of(const char* function, const TileMatrix<T>& A, const TileMatrix<T>& C, const char* name) {
    require(C.grid() == A.grid(), function, name, [&] {
        auto text = [](const Grid& g) { return std::to_string(g.p) + " x " + std::to_string(g.q); };
        return "must be distributed as A (on A's grid of ranks, " + text(A.grid()) + "; got " + text(C.grid()) + ")";
    });
}

template <typename T>
void submit_geqrf_dag(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, const Plan& p, RunStats* stats,
                      SequenceState* seq, const QrInfo* given, int64_t row_cycle) {
    Runtime& rt = A.runtime();
    const std::shared_ptr<QrStatus> status = Tf.new_status();
    seq->keep(status);
    // Each rank's record holds what its own tasks found: wait() makes it the same on every rank.
    if (A.distributed()) seq->add_after_reduction([&rt, status] { agree_qr_status(rt, *status); });
    const bool empty = std::min(A.m(), A.n()) == 0;
    QrInfo own;
    if (!empty && !given) add_qr_operation(A, seq, &own);
    const QrInfo& info = given ? *given : own;
    const int64_t all_rows = std::max<int64_t>(A.mt(), 1);
    if (row_cycle == 0) row_cycle = A.distributed() ? A.grid().p : 1;
    switch (p.tree.kind) {
        case QrTree::Kind::Cholqr:
            if constexpr (is_complex_v<T>) {  // (require_qr_arguments refuses it)
                throw InvalidArgument("geqrf", "tree", "is cholqr, which factors real matrices only");
            } else {
                // the panel width: one panel on MPI grids (the blocked form runs on one process)
                Tf.set_plan(A.distributed() ? std::max<int64_t>(A.n(), 1) : p.ib, all_rows, true);
                if (empty) return;
                submit_cholqr_dag(A, Tf, info.of(A.owner(0, 0)), opts, stats, seq);
                return submit_r_check(A, info, status.get(), opts, stats, seq);
            }
        case QrTree::Kind::Panel:
            Tf.set_plan(p.ib, all_rows, false, true);
            if (empty) return;
            submit_panel_qr_dag(A, Tf, opts, stats, seq);
            return submit_r_check(A, info, status.get(), opts, stats, seq);
        case QrTree::Kind::Binary: Tf.set_plan(p.ib, 1); break;
        // (a distributed A: the hierarchical tree, following the grid rows)
        case QrTree::Kind::Domains: Tf.set_plan(p.ib, p.tree.domain, false, false, row_cycle); break;
        default: Tf.set_plan(p.ib, all_rows); break;  // Flat
    }
    if (empty) return;
    if (opts.mapping != Mapping::CpuOnly && qr_gpu_layout(Tf)) reserve_qr_workspace<T>(rt, A.nb(), A.n());
    QrDag<T> dag(A, Tf, opts, stats, seq);
    for (int64_t k = 0; k < std::min(A.mt(), A.nt()); ++k) {
        TraceIteration step(rt, k);
        dag.step(k);
    }
    submit_r_check(A, info, status.get(), opts, stats, seq);
}

#define STARFACT_QR_DISTRIBUTED(T)                                                                                  \
    template void require_qr_arguments<T>(const char*, const TileMatrix<T>&, const QRFactors<T>&, const Options&,    \
                                          bool);                                                                      \
    template void submit_geqrf_dag<T>(TileMatrix<T>&, QRFactors<T>&, const Options&, const Plan&, RunStats*,         \
                                      SequenceState*, const QrInfo*, int64_t);                                        \
    template int add_qr_operation<T>(const TileMatrix<T>&, SequenceState*, QrInfo*);                                 \
    template Plan qr_plan_for<T>(const TileMatrix<T>&, const QRFactors<T>&, const Options&, Plan);                   \
    template void agree_qr_call<T>(const char*, const TileMatrix<T>&, const QRFactors<T>&, const TileMatrix<T>*,     \
                                   const Options&, int64_t);                                                          \
    template void require_on_grid_of<T>(const char*, const TileMatrix<T>&, const TileMatrix<T>&, const char*);
STARFACT_QR_DISTRIBUTED(float)
STARFACT_QR_DISTRIBUTED(double)
STARFACT_QR_DISTRIBUTED(std::complex<float>)
STARFACT_QR_DISTRIBUTED(std::complex<double>)
#undef STARFACT_QR_DISTRIBUTED
}  // namespace detail

namespace detail {
namespace {
/// One factorization, waited for: its info.
template <typename T>
int geqrf_waited(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, const Plan& plan, RunStats& stats) {
    Sequence seq(A.runtime());
    submit_geqrf_dag(A, Tf, opts, plan, &stats, &SequenceAccess::state(seq));
    return seq.wait();
}
}  // namespace

template <typename T>
void require_no_fallback(const char* function, const QRFactors<T>& Tf) {
    require(!Tf.tree().fallback, function, "tree", [&] {
        return "asks for the Householder fall-back ('" + Tf.tree().name() +
               "'), which only the blocking forms run (they keep a copy of A): use one, or a tree without "
               "+fallback";
    });
}
template void require_no_fallback<float>(const char*, const QRFactors<float>&);
template void require_no_fallback<double>(const char*, const QRFactors<double>&);
template void require_no_fallback<std::complex<float>>(const char*, const QRFactors<std::complex<float>>&);
template void require_no_fallback<std::complex<double>>(const char*, const QRFactors<std::complex<double>>&);
}  // namespace detail

template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts, RunStats& stats) {
    detail::agree_qr_call<T>("geqrf", A, Tf, nullptr, opts);
    detail::require_qr_arguments("geqrf", A, Tf, opts);
    Tf.set_fallback(QrBreakdown::None);
    const Plan plan = detail::qr_plan_for(A, Tf, opts, detail::plan_qr_tiles(Tf, opts));
    detail::QrFallbackCopy<T> saved(Tf, {&A}, plan);
    int info = detail::geqrf_waited(A, Tf, opts, plan, stats);
    if (info != 0 && saved.armed()) {  // the Cholesky QR broke down: A again, by the Householder tree
        const Plan householder = saved.restore(Tf, plan, opts);
        info = detail::geqrf_waited(A, Tf, opts, householder, stats);
    }
    if (info == 0) return;
    const QrBreakdown why = Tf.breakdown();
    Tf.set_plan(Tf.ib(), 0);  // no factorization to apply: ormqr and orgqr refuse T
    std::string message = "breaks the factorization down at column " + std::to_string(info) + ": " + describe(why);
    if (Tf.fell_back())
        message += " (after the Cholesky QR's own breakdown: " + std::string(describe(Tf.fallback())) + ")";
    throw InvalidArgument("geqrf", "A", message);
}

template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts) {
    RunStats ignored;
    geqrf(A, Tf, opts, ignored);
}

namespace async {
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::agree_qr_call<T>("geqrf", A, Tf, nullptr, opts);
    detail::require_qr_arguments("geqrf", A, Tf, opts);
    require(&seq.runtime() == &A.runtime(), "geqrf", "seq", "belongs to another Runtime than A");
    detail::require_no_fallback("geqrf", Tf);
    detail::require_qr_plan("geqrf", plan, Tf, opts);
    Tf.set_fallback(QrBreakdown::None);
    detail::submit_geqrf_dag(A, Tf, opts, detail::qr_plan_for(A, Tf, opts, plan), nullptr,
                             &detail::SequenceAccess::state(seq));
}
template <typename T>
void geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, Sequence& seq, const Options& opts) {
    geqrf(A, Tf, seq, opts, detail::plan_qr_tiles(Tf, opts));  // (the plan form checks the arguments first)
}
#define STARFACT_GEQRF_ASYNC(T)                                                                   \
    template void geqrf<T>(TileMatrix<T>&, QRFactors<T>&, Sequence&, const Options&);             \
    template void geqrf<T>(TileMatrix<T>&, QRFactors<T>&, Sequence&, const Options&, const Plan&);
STARFACT_GEQRF_ASYNC(float)
STARFACT_GEQRF_ASYNC(double)
STARFACT_GEQRF_ASYNC(std::complex<float>)
STARFACT_GEQRF_ASYNC(std::complex<double>)
#undef STARFACT_GEQRF_ASYNC
}  // namespace async

template <typename T>
void geqrf(Runtime& rt, int64_t m, int64_t n, T* A, int64_t lda, QRFactors<T>& Tf, const Options& opts,
           const Tiling& tiling) {
    detail::require_nonnegative("geqrf", "m", m);
    detail::require_nonnegative("geqrf", "n", n);
    detail::require_leading_dimension("geqrf", "lda", lda, m, "m", n, sizeof(T));
    detail::require_tiling("geqrf", tiling);
    detail::require_array("geqrf", "A", A, m * n == 0);
    require(tiling.nb == 0 || tiling.nb == Tf.nb(), "geqrf", "tiling",
            "nb must be 0 or T's (" + std::to_string(Tf.nb()) + "; got " + std::to_string(tiling.nb) + ")");
    require(Tf.m() == m && Tf.n() == n, "geqrf", "T", [&] {
        return "must be shaped for A (got m=" + std::to_string(Tf.m()) + " n=" + std::to_string(Tf.n()) + ", A is " +
               std::to_string(m) + " x " + std::to_string(n) + ")";
    });
    detail::ArrayTiles<T> a(rt, m, n, Tf.nb(), A, lda, tiling, false);
    geqrf(a.tiles(), Tf, opts);
    a.write_back();
}

#define STARFACT_GEQRF(T)                                                                                       \
    template void geqrf<T>(TileMatrix<T>&, QRFactors<T>&, const Options&);                                      \
    template void geqrf<T>(TileMatrix<T>&, QRFactors<T>&, const Options&, RunStats&);                           \
    template void geqrf<T>(Runtime&, int64_t, int64_t, T*, int64_t, QRFactors<T>&, const Options&, const Tiling&);
STARFACT_GEQRF(float)
STARFACT_GEQRF(double)
STARFACT_GEQRF(std::complex<float>)
STARFACT_GEQRF(std::complex<double>)
#undef STARFACT_GEQRF

}  // namespace starfact
