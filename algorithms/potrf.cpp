// Tile Cholesky (lower), A = L L^T, as one DAG with several submission policies (docs/variants.md).
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
#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "algorithms/dag.hpp"
#include "algorithms/submit.hpp"
#include "codelets/codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

double potrf_flops(int64_t n) {
    const double N = static_cast<double>(n);
    return N * N * N / 3.0 + N * N / 2.0 + N / 6.0;
}

namespace {

enum class Task { Potrf, Trsm, Syrk, Gemm };

template <typename T>
class CholeskyDag {
public:
    CholeskyDag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts, RunStats* stats,
                detail::SequenceState* seq, int raw_max, bool priorities)
        : rt_(A.runtime()), A_(A), info_(info), mt_(A.mt()), prio_(priorities, raw_max),
          inverse_(resolve_panel_solve(opts.panel, opts.mapping, A.nb()) == PanelSolve::Inverse),
          fused_(resolve_diag_kernel(opts.diag, opts.mapping) == DiagKernel::Fused), names_(*seq) {
        o_.mapping = detail::task_mapping(rt_, opts.mapping, A.nb());
        o_.counter = stats ? &stats->tasks : nullptr;
        o_.sequence = seq;
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
        panel(k, [&](int64_t m) { return raw(Task::Trsm, m, k); }, raw(Task::Potrf, k, k));
        for (int64_t m = k + 1; m < mt_; ++m) {
            set(raw(Task::Syrk, m, m), names_("syrk", m, k), m);
            detail::insert_syrk<T>(rt_, o_, Uplo::Lower, Op::NoTrans, T(-1), A_.tile(m, k), T(1), A_.tile(m, m));
            for (int64_t n = k + 1; n < m; ++n) {
                set(raw(Task::Gemm, m, n), names_("gemm", m, n, k), n);
                detail::insert_gemm<T>(rt_, o_, Op::NoTrans, Op::Trans, T(-1), A_.tile(m, k), A_.tile(n, k), T(1),
                                       A_.tile(m, n));
            }
        }
        o_.collect = nullptr;
    }

    /// Left-looking column k, fine-grained (syrk/gemm per update) or coarse (one tile_update per tile).
    void left_column(int64_t k, bool coarse) {
        step_ = k;
        const int col = static_cast<int>(3 * (mt_ - k));  // earlier columns first
        if (coarse && k > 0) {
            std::vector<starpu_data_handle_t> a, b;
            for (int64_t j = 0; j < k; ++j) a.push_back(A_.tile(k, j));
            set(col, names_("tile_update", k, k));
            detail::insert_tile_update<T>(rt_, o_, A_.tile(k, k), a, {});
            for (int64_t m = k + 1; m < mt_; ++m) {
                std::vector<starpu_data_handle_t> am;
                for (int64_t j = 0; j < k; ++j) am.push_back(A_.tile(m, j));
                set(col - static_cast<int>(std::min<int64_t>(m - k, 1)), names_("tile_update", m, k));
                detail::insert_tile_update<T>(rt_, o_, A_.tile(m, k), am, a);
            }
        } else {
            for (int64_t j = 0; j < k; ++j) {
                set(col, names_("syrk", k, j));
                detail::insert_syrk<T>(rt_, o_, Uplo::Lower, Op::NoTrans, T(-1), A_.tile(k, j), T(1), A_.tile(k, k));
            }
            for (int64_t m = k + 1; m < mt_; ++m)
                for (int64_t j = 0; j < k; ++j) {
                    set(col - 1, names_("gemm", m, k, j));
                    detail::insert_gemm<T>(rt_, o_, Op::NoTrans, Op::Trans, T(-1), A_.tile(m, j), A_.tile(k, j), T(1),
                                           A_.tile(m, k));
                }
        }
        potrf(k, col + 2);
        panel(k, [&](int64_t) { return col + 1; }, col + 2);
    }

private:
    /// Priority and trace name of the next task, which writes tile column `col` (urgency: set_urgent_depth).
    void set(int raw, const char* name, int64_t col = -1) {
        o_.priority = prio_(raw);
        o_.name = name;
        o_.urgent = urgent_depth_ >= 0 && col >= 0 && col <= step_ + urgent_depth_;
    }
    void potrf(int64_t k, int raw) {
        set(raw, names_("potrf", k, k), k);
        // Distributed: the info variable of the rank that runs the task (the owner of the tile).
        starpu_data_handle_t info = info_[info_.size() == 1 ? 0 : static_cast<size_t>(A_.owner(k, k))];
        detail::insert_potrf<T>(rt_, o_, A_.tile(k, k), info, k * A_.nb(), fused_);
    }
    /// The panel of step k: A[m][k] := A[m][k] L[k][k]^-T for m > k, by trsm or through L[k][k]^-1.
    template <typename Raw>
    void panel(int64_t k, Raw raw, int inverse_raw) {
        if (k + 1 >= mt_) return;
        if (!inverse_) {
            for (int64_t m = k + 1; m < mt_; ++m) {
                set(raw(m), names_("trsm", m, k), k);
                detail::insert_trsm<T>(rt_, o_, Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, T(1),
                                       A_.tile(k, k), A_.tile(m, k));
            }
            return;
        }
        const uint32_t nbk = static_cast<uint32_t>(A_.tile_rows(k));
        starpu_data_handle_t inv;
        starpu_matrix_data_register(&inv, -1, 0, nbk, nbk, nbk, sizeof(T));  // temporary: StarPU allocates it
        set(inverse_raw, names_("trtri", k, k));
        detail::insert_trtri<T>(rt_, o_, A_.tile(k, k), inv);
        for (int64_t m = k + 1; m < mt_; ++m) {
            set(raw(m), names_("trsm_inv", m, k));
            detail::insert_trsm_inverse<T>(rt_, o_, inv, A_.tile(m, k));
        }
        starpu_data_unregister_submit(inv);  // freed once the step's solves are done
    }


    Runtime& rt_;
    TileMatrix<T>& A_;
    std::vector<starpu_data_handle_t> info_;  // one, or one per rank (distributed)
    int64_t mt_;
    detail::PriorityScale prio_;
    bool inverse_, fused_;
    int urgent_depth_ = -1;
    int64_t step_ = 0;  // the step being submitted (left-looking: the column)
    detail::TaskOptions o_;
    detail::TaskNames names_;
};

void wait_tasks(std::vector<starpu_task*>& tasks) {
    for (starpu_task* t : tasks)
        if (starpu_task_wait(t) != 0) throw RuntimeError("starfact::potrf: starpu_task_wait failed");  // destroys t
    tasks.clear();
}

template <typename T>
void submit_potrf_dag(TileMatrix<T>& A, const std::vector<starpu_data_handle_t>& info, const Options& opts,
                      RunStats* stats, detail::SequenceState* seq) {
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
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(2 * mt + 1), v.kind == K::Right);
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
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(4 * mt + 3), true);
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
            CholeskyDag<T> dag(A, info, opts, stats, seq, static_cast<int>(3 * mt + 2), true);
            for (int64_t k = 0; k < mt; ++k) {
                detail::TraceIteration step(A.runtime(), k);
                dag.left_column(k, v.kind == K::LeftCoarse);
            }
            break;
        }
    }
}

}  // namespace

template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts) {
    RunStats ignored;
    return potrf(A, opts, ignored);
}

template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts, RunStats& stats) {
    Sequence seq(A.runtime());
    detail::submit_potrf(A, seq, opts, &stats);
    return seq.wait();
}

namespace detail {
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats) {
    if (A.distributed())  // every rank, before any communication (docs/mpi.md)
        detail::agree(A.runtime(), "potrf",
                      {{"n", A.n()}, {"nb", A.nb()}, {"A (tag of its first tile)", first_tag(A)},
                       {"variant", opts.variant.name()},
                       {"panel", to_string(resolve_panel_solve(opts.panel, opts.mapping, A.nb()))}});
    require(A.m() == A.n(), "potrf", "A", "must be square (got " + std::to_string(A.m()) + " x " +
                                             std::to_string(A.n()) + ")");
    Runtime& rt = A.runtime();
    require(&seq.runtime() == &rt, "potrf", "seq", "belongs to another Runtime than A");
    rt.require_mapping(opts.mapping, "potrf");
    require(opts.diag != DiagKernel::Fused || detail::fused_potf2_available(), "potrf", "diag",
            "is fused but this build has no fused potf2 kernel (no CUDA)");
    require(opts.variant.kind != Variant::Kind::Lookahead || opts.variant.depth >= 0, "potrf", "variant",
            "lookahead depth must be >= 0 (got " + std::to_string(opts.variant.depth) + ")");
    require(!A.distributed() || resolve_panel_solve(opts.panel, opts.mapping, A.nb()) != PanelSolve::Inverse, "potrf",
            "panel", "is inverse, which distributed matrices do not support (its temporary tile is not distributed)");
    // left-coarse's update of tile (m, k) reads 2k tiles in one task: under a GPU memory limit StarPU 1.3 must hold
    // every buffer of a running task, and with fewer than two of the widest tasks' worth it evicts and refetches
    // without progress (seen at n = 49152, nb = 2048 with a 2304 MiB limit, docs/out_of_core.md)
    const long long limit_mb = rt.cuda_workers() > 0 && opts.mapping != Mapping::CpuOnly && A.residency() == Residency::Host
                                   ? rt.cuda_memory_limit_mb()
                                   : -1;
    if (opts.variant.kind == Variant::Kind::LeftCoarse && limit_mb > 0) {
        const double widest = static_cast<double>(2 * A.mt() - 1) * A.nb() * A.nb() * sizeof(T) / (1024.0 * 1024.0);
        require(limit_mb >= 2 * widest, "potrf", "variant",
                "is left-coarse, whose widest update task holds " + std::to_string(static_cast<long long>(widest)) +
                    " MiB of tiles, more than half the GPU memory limit of " + std::to_string(limit_mb) +
                    " MiB: use right or lookahead=D under this limit, or a smaller nb");
    }
    SequenceState& state = SequenceAccess::state(seq);
    std::vector<starpu_data_handle_t> info_handle(1);
    const int op = A.distributed() ? state.add_distributed_operation(rt, &info_handle)
                                   : state.add_operation(&info_handle[0]);
    if (A.n() == 0) return op;
    if (opts.mapping != Mapping::CpuOnly) {
        reserve_potrf_workspace<T>(rt, static_cast<int>(A.nb()));
        if (resolve_panel_solve(opts.panel, opts.mapping, A.nb()) == PanelSolve::Inverse)
            reserve_inverse_workspace<T>(rt, static_cast<int>(A.nb()));
    }
    submit_potrf_dag(A, info_handle, opts, stats, &state);
    return op;
}
template int submit_potrf<float>(TileMatrix<float>&, Sequence&, const Options&, RunStats*);
template int submit_potrf<double>(TileMatrix<double>&, Sequence&, const Options&, RunStats*);
}  // namespace detail

namespace async {
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts) {
    return detail::submit_potrf(A, seq, opts, nullptr);
}
template int potrf<float>(TileMatrix<float>&, Sequence&, const Options&);
template int potrf<double>(TileMatrix<double>&, Sequence&, const Options&);
}  // namespace async

template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts, const Tiling& tiling) {
    require(n >= 0, "potrf", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(lda >= std::max<int64_t>(1, n), "potrf", "lda",
            "must be >= max(1, n) = " + std::to_string(std::max<int64_t>(1, n)) + " (got " + std::to_string(lda) + ")");
    require(tiling.nb >= 0, "potrf", "nb", "must be >= 0 (got " + std::to_string(tiling.nb) + "; 0: tuned)");
    require(A != nullptr || n == 0, "potrf", "A", "is null");
    const int64_t nb = tiling.nb > 0 ? tiling.nb
                                     : tile_plan<T>(n, opts.mapping, tiling.residency, rt.cuda_workers() > 0, rt.cuda_devices()).nb;
    TileMatrix<T> tiles(rt, n, nb, tiling.residency);
    tiles.import(A, lda);
    const int info = potrf(tiles, opts);
    tiles.export_to(A, lda);
    return info;
}

Variant Variant::parse(const std::string& text, const char* argument) {
    Variant v;
    if (text == "right") v.kind = Kind::Right;
    else if (text == "left") v.kind = Kind::Left;
    else if (text == "left-coarse") v.kind = Kind::LeftCoarse;
    else if (text == "noprio") v.kind = Kind::NoPrio;
    else if (text.rfind("lookahead=", 0) == 0) {
        const std::string d = text.substr(10);
        size_t used = 0;
        int depth = -1;
        try {
            depth = std::stoi(d, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != d.size() || depth < 0 || depth > 1000)
            throw InvalidArgument("Variant::parse", argument,
                                  "lookahead depth must be an integer in [0, 1000] (got '" + text + "')");
        v.kind = Kind::Lookahead;
        v.depth = depth;
    } else {
        throw InvalidArgument("Variant::parse", argument,
                              "must be right, lookahead=D, left, left-coarse or noprio (got '" + text + "')");
    }
    return v;
}

std::string Variant::name() const {
    switch (kind) {
        case Kind::Right: return "right";
        case Kind::Lookahead: return "lookahead=" + std::to_string(depth);
        case Kind::Left: return "left";
        case Kind::LeftCoarse: return "left-coarse";
        case Kind::NoPrio: return "noprio";
    }
    return "?";
}

PanelSolve parse_panel_solve(const std::string& text, const char* argument) {
    if (text == "auto") return PanelSolve::Auto;
    if (text == "trsm") return PanelSolve::Trsm;
    if (text == "inverse") return PanelSolve::Inverse;
    throw InvalidArgument("parse_panel_solve", argument, "must be auto, trsm or inverse (got '" + text + "')");
}

DiagKernel parse_diag_kernel(const std::string& text, const char* argument) {
    if (text == "auto") return DiagKernel::Auto;
    if (text == "fused") return DiagKernel::Fused;
    if (text == "cusolver") return DiagKernel::Cusolver;
    throw InvalidArgument("parse_diag_kernel", argument, "must be auto, fused or cusolver (got '" + text + "')");
}

const char* to_string(DiagKernel d) {
    switch (d) {
        case DiagKernel::Auto: return "auto";
        case DiagKernel::Fused: return "fused";
        case DiagKernel::Cusolver: return "cusolver";
    }
    return "?";
}

bool have_fused_potf2() { return detail::fused_potf2_available(); }

DiagKernel resolve_diag_kernel(DiagKernel d, Mapping m) {
    if (d != DiagKernel::Auto) return d;
    return m != Mapping::CpuOnly && detail::fused_potf2_available() ? DiagKernel::Fused : DiagKernel::Cusolver;
}

PanelSolve resolve_panel_solve(PanelSolve p, Mapping, int64_t) {
    // Trsm whatever the mapping and tile size: the inverse path was faster with 1024 tiles on the H100
    // (docs/results.md) but is not backward stable: on Gaussian-kernel matrices with small nuggets, which
    // LAPACK factors with residuals ~1e-3, its error through inv(L[k][k]) made the trailing matrix lose
    // definiteness (a spurious info > 0; docs/algorithms.md). It stays available as an explicit choice.
    return p == PanelSolve::Auto ? PanelSolve::Trsm : p;
}

const char* to_string(PanelSolve p) {
    switch (p) {
        case PanelSolve::Auto: return "auto";
        case PanelSolve::Trsm: return "trsm";
        case PanelSolve::Inverse: return "inverse";
    }
    return "?";
}

template int potrf<float>(TileMatrix<float>&, const Options&);
template int potrf<double>(TileMatrix<double>&, const Options&);
template int potrf<float>(TileMatrix<float>&, const Options&, RunStats&);
template int potrf<double>(TileMatrix<double>&, const Options&, RunStats&);
template int potrf<float>(Runtime&, int64_t, float*, int64_t, const Options&, const Tiling&);
template int potrf<double>(Runtime&, int64_t, double*, int64_t, const Options&, const Tiling&);

}  // namespace starfact
