// Tile Cholesky (lower), A = L L^T (L L^H on complex tiles), as one DAG with several submission policies
// (docs/variants.md), for the four element types: on complex tiles ^T reads ^H (the conjugate transpose,
// adjoint_op) and syrk is the Hermitian herk (the complex tile helpers of codelets/complex_tiles.cpp).
//
// Right-looking, step k:
//     potrf  A[k][k]
//     for m = k+1 .. mt-1:  trsm  A[m][k] := A[m][k] L[k][k]^-T
//     for m = k+1 .. mt-1:  syrk  A[m][m] -= A[m][k] A[m][k]^T
//                           for n = k+1 .. m-1:  gemm  A[m][n] -= A[m][k] A[n][k]^T
// Left-looking, column k (the same tasks, submitted column by column):
//     for j < k: syrk A[k][k] -= A[k][j] A[k][j]^T;  for m > k, j < k: gemm A[m][k] -= A[m][j] A[k][j]^T
//     potrf A[k][k];  for m > k: trsm A[m][k]
// Left-looking coarse, column k: one tile_update task per tile of the column applies all its updates.
// The argument checks and the blocking, async and array forms that lead here are in algorithms/potrf_api.cpp.
#include <algorithm>
#include <complex>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/submit.hpp"
#include "algorithms/tile_arithmetic.hpp"
#include "algorithms/tile_broadcast.hpp"
#include "codelets/codelets.hpp"
#include "kernels/scalar.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

namespace {

enum class Task { Potrf, Trsm, Syrk, Gemm };

/// The transposition of the graph's ^T: the conjugate transpose on complex tiles.
template <typename T>
constexpr Op kAdjoint = detail::adjoint_op<detail::is_complex_v<T>>();

template <typename T>
class CholeskyDag {
public:
    CholeskyDag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts, RunStats* stats,
                detail::SequenceState* seq, int raw_max, bool priorities, const detail::TileArithmetic* arith,
                detail::BreakdownWatch* watch)
        : rt_(A.runtime()), A_(A), info_(info), mt_(A.mt()), prio_(priorities, raw_max),
          inverse_(opts.panel == PanelSolve::Inverse), diag_(opts.diag), arith_(arith),
          o_(detail::operation_task_options(rt_, opts, A.nb(), stats, seq)), names_(*seq) {
        o_.watch = watch;
        if (A.distributed() && !inverse_) shape_ = detail::broadcast_shape("potrf");
    }

    int64_t mt() const { return mt_; }

    /// Tasks of step k writing tile columns k .. k + depth are urgent (TaskOptions::urgent: the GPU runs
    /// them on the worker's highest-priority stream); depth < 0: none.
    void set_urgent_depth(int depth) { urgent_depth_ = depth; }

    /// Right-looking step k; raw(task, m, n) gives the raw priority of a task writing tile (m, n).
    template <typename Raw>
    void right_step(int64_t k, Raw raw, std::vector<starpu_task*>* collect = nullptr) {
        o_.collect = collect;
        step_ = k;
        potrf(k, raw(Task::Potrf, k, k));
        // Distributed: the diagonal tile to the ranks of its tile column, each L tile to the ranks of its tile row
        // and column, along chains of copies, most urgent reader first (tile_broadcast.hpp); null: direct sends.
        Sends L(static_cast<size_t>(mt_));
        if (k + 1 < mt_) {
            o_.priority = prio_(raw(Task::Potrf, k, k));  // the forwarded messages'
            L[static_cast<size_t>(k)] = send(k, k, k + 1);
        }
        const auto trsm_raw = [&](int64_t m) { return raw(Task::Trsm, m, k); };
        panel(k, trsm_raw, raw(Task::Potrf, k, k), L[static_cast<size_t>(k)]);
        for (int64_t m = k + 1; m < mt_ && broadcasts(); ++m) {
            o_.priority = prio_(raw(Task::Trsm, m, k));
            L[static_cast<size_t>(m)] = send(m, k, k + 1);
        }
        for (int64_t m = k + 1; m < mt_; ++m) {
            set(raw(Task::Syrk, m, m), names_("syrk", m, k), m);
            on(m, m);
            detail::insert_syrk<T>(rt_, o_, Uplo::Lower, Op::NoTrans, T(-1), read(L, m, k, m, m), T(1),
                                   A_.tile(m, m));
            for (int64_t n = k + 1; n < m; ++n) {
                set(raw(Task::Gemm, m, n), names_("gemm", m, n, k), n);
                on(m, n);
                detail::insert_gemm<T>(rt_, o_, Op::NoTrans, kAdjoint<T>, T(-1), read(L, m, k, m, n),
                                       read(L, n, k, m, n), T(1), A_.tile(m, n));
            }
        }
        o_.collect = nullptr;
    }

    /// Left-looking column k, fine-grained (syrk/gemm per update) or coarse (one tile_update per tile).
    void left_column(int64_t k, bool coarse) {
        step_ = k;
        const int col = static_cast<int>(3 * (mt_ - k));  // earlier columns first
        if (coarse && k > 0) {
            coarse_updates(k, col);
        } else {
            for (int64_t j = 0; j < k; ++j) {
                set(col, names_("syrk", k, j));
                on(k, k);
                detail::insert_syrk<T>(rt_, o_, Uplo::Lower, Op::NoTrans, T(-1), A_.tile(k, j), T(1), A_.tile(k, k));
            }
            for (int64_t m = k + 1; m < mt_; ++m)
                for (int64_t j = 0; j < k; ++j) {
                    set(col - 1, names_("gemm", m, k, j));
                    on(m, k);
                    detail::insert_gemm<T>(rt_, o_, Op::NoTrans, kAdjoint<T>, T(-1), A_.tile(m, j), A_.tile(k, j), T(1),
                                           A_.tile(m, k));
                }
        }
        potrf(k, col + 2);
        panel(k, [&](int64_t) { return col + 1; }, col + 2, nullptr);
    }

private:
    /// Left-looking coarse, column k > 0: one tile_update task per tile of the column (real tiles; the complex
    /// factorizations run right-looking, plan_complex).
    void coarse_updates(int64_t k, int col) {
        if constexpr (detail::is_complex_v<T>) {
            (void)k;
            (void)col;
            throw RuntimeError("starfact::potrf: the left-coarse variant takes real matrices only");
        } else {
            std::vector<starpu_data_handle_t> a;
            for (int64_t j = 0; j < k; ++j) a.push_back(A_.tile(k, j));
            set(col, names_("tile_update", k, k));
            on(k, k);
            detail::insert_tile_update<T>(rt_, o_, A_.tile(k, k), a, {});
            for (int64_t m = k + 1; m < mt_; ++m) {
                std::vector<starpu_data_handle_t> am;
                for (int64_t j = 0; j < k; ++j) am.push_back(A_.tile(m, j));
                set(col - static_cast<int>(std::min<int64_t>(m - k, 1)), names_("tile_update", m, k));
                on(m, k);
                detail::insert_tile_update<T>(rt_, o_, A_.tile(m, k), am, a);
            }
        }
    }
    /// Priority and trace name of the next task, which writes tile column `col` (urgency: set_urgent_depth).
    void set(int raw, const char* name, int64_t col = -1) {
        o_.priority = prio_(raw);
        o_.name = name;
        o_.urgent = urgent_depth_ >= 0 && col >= 0 && col <= step_ + urgent_depth_;
    }
    /// The arithmetic of the next task, which writes tile (m, n): the per-tile map's when there is one.
    void on(int64_t m, int64_t n) {
        if (arith_) o_.compute = arith_->compute(m, n);
    }
    void potrf(int64_t k, int raw) {
        set(raw, names_("potrf", k, k), k);
        on(k, k);
        // Distributed: the info variable of the rank that runs the task (the owner of the tile).
        starpu_data_handle_t info = info_[info_.size() == 1 ? 0 : static_cast<size_t>(A_.owner(k, k))];
        detail::insert_potrf<T>(rt_, o_, A_.tile(k, k), info, k * A_.nb(), diag_);
    }
    /// The panel of step k: A[m][k] := A[m][k] L[k][k]^-T for m > k, by trsm (reading `diag`'s copies of L[k][k]
    /// when it is a broadcast) or through L[k][k]^-1.
    template <typename Raw>
    void panel(int64_t k, Raw raw, int inverse_raw, const std::unique_ptr<detail::TileBroadcast>& diag) {
        if (k + 1 >= mt_) return;
        if (!inverse_) {
            for (int64_t m = k + 1; m < mt_; ++m) {
                set(raw(m), names_("trsm", m, k), k);
                on(m, k);
                const starpu_data_handle_t lkk = diag ? diag->at(A_.owner(m, k)) : A_.tile(k, k);
                detail::insert_trsm<T>(rt_, o_, Side::Right, Uplo::Lower, kAdjoint<T>, Diag::NonUnit, T(1), lkk,
                                       A_.tile(m, k));
            }
            return;
        }
        if constexpr (detail::is_complex_v<T>) {
            throw RuntimeError("starfact::potrf: the inverse panel solve takes real matrices only");
        } else {
            inverse_panel(k, raw, inverse_raw);
        }
    }
    using Sends = std::vector<std::unique_ptr<detail::TileBroadcast>>;
    bool broadcasts() const { return shape_ != detail::BroadcastShape::Direct; }
    /// Tile (i, j) of step j on its way to the ranks of the tasks reading it: those writing tiles (i, first .. i)
    /// and (i + 1 .., i), most urgent first (for the diagonal tile, i = j: the trsm of (first .., j)). Null when
    /// the tiles go by StarPU-MPI's direct sends.
    std::unique_ptr<detail::TileBroadcast> send(int64_t i, int64_t j, int64_t first) {
        if (!broadcasts()) return nullptr;
        std::vector<int> to;
        const int owner = A_.owner(i, j);
        auto add = [&](int64_t r, int64_t c) {
            const int rank = A_.owner(r, c);
            if (rank != owner && std::find(to.begin(), to.end(), rank) == to.end()) to.push_back(rank);
        };
        if (i == j) {
            for (int64_t m = first; m < mt_; ++m) add(m, j);
        } else {
            for (int64_t n = first; n <= i; ++n) add(i, n);
            for (int64_t m = i + 1; m < mt_; ++m) add(m, i);
        }
        return std::make_unique<detail::TileBroadcast>(rt_, o_, A_.tile(i, j), owner, to, shape_);
    }
    /// What the task writing tile (m, n) reads of L tile (i, k): its broadcast's copy on that task's rank.
    starpu_data_handle_t read(const Sends& L, int64_t i, int64_t k, int64_t m, int64_t n) const {
        const auto& b = L[static_cast<size_t>(i)];
        return b ? b->at(A_.owner(m, n)) : A_.tile(i, k);
    }
    template <typename Raw>
    void inverse_panel(int64_t k, Raw raw, int inverse_raw) {
        const uint32_t nbk = static_cast<uint32_t>(A_.tile_rows(k));
        starpu_data_handle_t inv;
        starpu_matrix_data_register(&inv, -1, 0, nbk, nbk, nbk, sizeof(T));  // temporary: StarPU allocates it
        set(inverse_raw, names_("trtri", k, k));
        on(k, k);
        detail::insert_trtri<T>(rt_, o_, A_.tile(k, k), inv);
        for (int64_t m = k + 1; m < mt_; ++m) {
            set(raw(m), names_("trsm_inv", m, k));
            on(m, k);
            detail::insert_trsm_inverse<T>(rt_, o_, inv, A_.tile(m, k));
        }
        starpu_data_unregister_submit(inv);  // freed once the step's solves are done
    }


    Runtime& rt_;
    TileMatrix<T>& A_;
    std::vector<starpu_data_handle_t> info_;  // one, or one per rank (distributed)
    int64_t mt_;
    detail::PriorityScale prio_;
    bool inverse_;
    DiagKernel diag_;
    const detail::TileArithmetic* arith_;  // null: every task in opts.factor's arithmetic
    int urgent_depth_ = -1;
    detail::BroadcastShape shape_ = detail::BroadcastShape::Direct;  // a distributed A: its tiles' sends
    int64_t step_ = 0;  // the step being submitted (left-looking: the column)
    detail::TaskOptions o_;
    detail::TaskNames names_;
};

void wait_tasks(std::vector<starpu_task*>& tasks) {
    for (starpu_task* t : tasks)
        if (starpu_task_wait(t) != 0) throw RuntimeError("starfact::potrf: starpu_task_wait failed");  // destroys t
    tasks.clear();
}

}  // namespace

namespace detail {
template <typename T>
void submit_potrf_dag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts,
                      RunStats* stats, detail::SequenceState* seq, const TileArithmetic* arith, BreakdownWatch* watch) {
    const int64_t mt = A.mt();
    const Variant v = opts.variant;
    using K = Variant::Kind;
    // Critical path: a task writing tile (m, n) gets 2(mt - n) - (m - n), potrf one more.
    auto critical = [mt](Task t, int64_t m, int64_t n) {
        return static_cast<int>(2 * (mt - n) - (m - n) + (t == Task::Potrf ? 1 : 0));
    };
    switch (v.kind) {
        case K::Right:
        case K::NoPrio: {
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(2 * mt + 1), v.kind == K::Right, arith, watch);
            if (v.kind == K::Right) dag.set_urgent_depth(1);  // the panel and the next column
            for (int64_t k = 0; k < mt; ++k) {
                detail::TraceIteration step(A.runtime(), k);
                dag.right_step(k, critical);
            }
            break;
        }
        case K::Lookahead: {
            // Raised: the tasks of step k writing the next D panels (columns k .. k+D); all others 0.
            const int raise = static_cast<int>(2 * mt + 2);
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(4 * mt + 3), true, arith, watch);
            dag.set_urgent_depth(v.depth);
            std::deque<std::vector<starpu_task*>> inflight;
            for (int64_t k = 0; k < mt; ++k) {
                while (static_cast<int>(inflight.size()) > v.depth) {  // at most D earlier steps in flight
                    wait_tasks(inflight.front());
                    inflight.pop_front();
                }
                inflight.emplace_back();
                detail::TraceIteration step(A.runtime(), k);  // released before the next step's waits
                dag.right_step(
                    k,
                    [&](Task t, int64_t m, int64_t n) { return n <= k + v.depth ? raise + critical(t, m, n) : 0; },
                    &inflight.back());
            }
            for (auto& step : inflight) wait_tasks(step);
            break;
        }
        case K::Left:
        case K::LeftCoarse: {
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(3 * mt + 2), true, arith, watch);
            for (int64_t k = 0; k < mt; ++k) {
                detail::TraceIteration step(A.runtime(), k);
                dag.left_column(k, v.kind == K::LeftCoarse);
            }
            break;
        }
    }
}

template void submit_potrf_dag<float>(TileMatrix<float>&, const std::vector<starpu_data_handle_t>&, const Options&,
                                      RunStats*, SequenceState*, const TileArithmetic*, BreakdownWatch*);
template void submit_potrf_dag<double>(TileMatrix<double>&, const std::vector<starpu_data_handle_t>&, const Options&,
                                       RunStats*, SequenceState*, const TileArithmetic*, BreakdownWatch*);
template void submit_potrf_dag<std::complex<float>>(TileMatrix<std::complex<float>>&,
                                                    const std::vector<starpu_data_handle_t>&, const Options&, RunStats*,
                                                    SequenceState*, const TileArithmetic*, BreakdownWatch*);
template void submit_potrf_dag<std::complex<double>>(TileMatrix<std::complex<double>>&,
                                                     const std::vector<starpu_data_handle_t>&, const Options&,
                                                     RunStats*, SequenceState*, const TileArithmetic*, BreakdownWatch*);
}  // namespace detail

}  // namespace starfact
