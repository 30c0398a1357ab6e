// Tile LU with partial pivoting, P A = L U, right-looking (docs/algorithms.md), for the four element types (complex
// tiles through the complex tile helpers of codelets/complex_tiles.cpp):
//
//   for k = 0 .. mt-1
//     getrf_panel  A[k..mt-1][k], piv[k]            (partial pivoting over the whole tile column; on a column spread
//                                                    over several grid rows, tournament pivoting: lu_tournament.hpp)
//     for j > k:   laswp  A[k..mt-1][j] by piv[k]
//                  trsm   A[k][j] := L[k][k]^-1 A[k][j]          (left, lower, unit)
//                  for m > k:  gemm  A[m][j] -= A[m][k] A[k][j]
//     for j < k:   laswp  A[k..mt-1][j] by piv[k]   (L into LAPACK's layout; lowest priority)
//
// Without pivoting (getrf_nopiv), step k: getrf_nopiv A[k][k]; trsm A[k][j] (left, lower, unit) for j > k;
// trsm A[m][k] := A[m][k] U[k][k]^-1 (right, upper) for m > k; gemm A[m][j] -= A[m][k] A[k][j].
#include <algorithm>
#include <atomic>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/lu_interchanges.hpp"
#include "algorithms/lu_row_exchange.hpp"
#include "algorithms/lu_submit.hpp"
#include "algorithms/lu_tournament.hpp"
#include "algorithms/tile_broadcast.hpp"
#include "algorithms/planned.hpp"
#include "codelets/codelets.hpp"
#include "codelets/lu_codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/lu.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

double getrf_flops(int64_t n) {
    const double N = static_cast<double>(n);
    return 2.0 * N * N * N / 3.0;
}

// ---- Pivots ---------------------------------------------------------------------------------------

Pivots::Pivots(Runtime& runtime, int64_t n, int64_t nb) : Pivots(runtime, n, nb, Grid{}) {}

Pivots::Pivots(Runtime& runtime, int64_t n, int64_t nb, const Grid& grid)
    : runtime_(&runtime), n_(n), nb_(nb), grid_(grid) {
    if (grid.ranks() > 1)  // every rank, before any check that one rank could fail alone (docs/mpi.md)
        detail::agree(runtime, "Pivots", {{"n", n}, {"nb", nb}, {"grid", grid}});
    detail::require_nonnegative("Pivots", "n", n);
    require(nb > 0, "Pivots", "nb", "must be > 0 (got " + std::to_string(nb) + ")");
    const std::string grid_text = std::to_string(grid.p) + " x " + std::to_string(grid.q);
    require(grid.p >= 1 && grid.q >= 1, "Pivots", "grid", "must be at least 1 x 1 (got " + grid_text + ")");
    require(grid.ranks() == 1 || (runtime.mpi() && grid.ranks() == runtime.mpi_size()), "Pivots", "grid",
            grid_text + " has " + std::to_string(grid.ranks()) + " process(es) but the Runtime has " +
                std::to_string(runtime.mpi() ? runtime.mpi_size() : 1) + " MPI rank(s)");
    // Joins the Runtime's registry before registering anything: a Runtime destroyed first unregisters the handles.
    membership_ = std::make_unique<detail::Membership>(
        runtime, this, [](void* self) noexcept { static_cast<Pivots*>(self)->release(); });
    const int64_t steps = (n + nb - 1) / nb;
    const bool distributed = grid.ranks() > 1;
    const int64_t tag0 = distributed ? detail::reserve_tags(runtime, steps) : 0;
    storage_.resize(static_cast<size_t>(steps));
    handles_.resize(static_cast<size_t>(steps));
    for (int64_t k = 0; k < steps; ++k) {
        const int64_t kb = std::min(nb, n - k * nb);
        starpu_data_handle_t& h = handles_[static_cast<size_t>(k)];
        // Step k belongs to the owner of tile (k, k), which runs its panel; another rank's copy has no home (StarPU
        // allocates it when the pivots arrive).
        const int owner = grid.owner(k, k);
        if (distributed && owner != runtime.mpi_rank()) {
            starpu_vector_data_register(&h, -1, 0, static_cast<uint32_t>(kb), sizeof(int));
        } else {
            std::vector<int>& st = storage_[static_cast<size_t>(k)];
            st.resize(static_cast<size_t>(kb));
            for (int64_t i = 0; i < kb; ++i) st[static_cast<size_t>(i)] = static_cast<int>(k * nb + i + 1);  // identity
            starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(st.data()),
                                        static_cast<uint32_t>(kb), sizeof(int));
        }
        if (distributed) detail::mpi_register(h, tag0 + k, owner);
    }
}

Pivots::~Pivots() {
    // Orphaned (the Runtime was destroyed first): its destructor released the handles, and StarPU is gone.
    if (!membership_ || !membership_->leave()) return;
    release();
    membership_->left();
}

void Pivots::release() noexcept {
    for (starpu_data_handle_t& h : handles_) {
        if (h) starpu_data_unregister(h);  // waits for the tasks using it
        h = nullptr;
    }
}

Runtime& Pivots::runtime() const {
    if (!membership_ || !membership_->alive())
        throw RuntimeError("starfact::Pivots::runtime: the Runtime these pivots belong to was destroyed (Pivots must "
                           "be destroyed before their Runtime)");
    return *runtime_;
}

std::vector<int64_t> Pivots::ipiv() const {
    runtime();  // throws once the Runtime is gone
    std::vector<int64_t> out(static_cast<size_t>(n_), 0);
    // Distributed: each rank reads the steps it owns, the others stay 0; the largest value of each entry over the
    // ranks is then the owner's.
    for (size_t k = 0; k < handles_.size(); ++k) {
        if (storage_[k].empty()) continue;  // another rank's step
        if (starpu_data_acquire(handles_[k], STARPU_R) != 0) throw RuntimeError("starfact::Pivots::ipiv: acquire failed");
        std::copy(storage_[k].begin(), storage_[k].end(), out.begin() + static_cast<int64_t>(k) * nb_);
        starpu_data_release(handles_[k]);
    }
    if (distributed()) detail::allreduce_max(*runtime_, "Pivots::ipiv", out);
    return out;
}

namespace {

/// Submits the task graph of one LU (pivoting when piv is not null).
template <typename T>
class LuDag {
public:
    LuDag(TileMatrix<T>& A, Pivots* piv, const std::vector<starpu_data_handle_t>& info, const Options& opts,
          const Plan& plan, RunStats* stats, detail::SequenceState* seq, bool may_wait)
        : rt_(A.runtime()), A_(A), piv_(piv), info_(info), mt_(A.mt()),
          priorities_(opts.variant.kind == Variant::Kind::Right),
          prio_(priorities_, static_cast<int>(2 * mt_ + 1)),
          o_(detail::operation_task_options(rt_, opts, plan, stats, seq)), names_(*seq) {
        // A tile column spread over several ranks (grid rows): its interchanges tile by tile (in one process too when
        // a test asks for them).
        if (A.distributed()) shape_ = detail::broadcast_shape("getrf");
        const int rows = detail::tile_interchange_rows_for_tests().load();
        if ((A.grid().p > 1 || (rows > 1 && !A.distributed())) && piv) {
            interchanges_ = std::make_unique<detail::TileInterchanges<T>>(A, rows);
            tournament_rows_ = detail::lu_tournament(interchanges_->rows()) ? interchanges_->rows() : 0;
            // The blocking forms wait for each step's pivots and exchange only the rows that move.
            if (may_wait && detail::lu_row_exchange()) exchange_ = std::make_unique<detail::RowExchange<T>>(A, rows);
        }
    }

    void step(int64_t k) {
        const int64_t off = k * A_.nb();
        set(panel_raw(k), piv_ ? names_("getrf_panel", k) : names_("getrf_nopiv", k, k), true);
        // Distributed: the rank owning the diagonal tile runs the panel and the info variable it writes is its own.
        starpu_data_handle_t info = info_[info_.size() == 1 ? 0 : static_cast<size_t>(A_.owner(k, k))];
        if (piv_ && tournament_rows_ > 1 && k + 1 < mt_) {
            // Tournament pivoting (algorithms/lu_tournament.hpp): the candidates travel, the column stays; then the
            // column's own interchanges and the steps of the unpivoted panel below.
            set(panel_raw(k), names_("getrf_tournament", k), true);
            detail::submit_tournament<T>(rt_, o_, A_, k, tournament_rows_, piv_->step(k));
            set(panel_raw(k), names_("laswp", k, k), true);
            swap(k, k);
            set(panel_raw(k), names_("getrf_nopiv", k, k), true);
        }
        if (piv_ && !(tournament_rows_ > 1 && k + 1 < mt_)) {
            // The column's tiles travel to that rank and back to their owners (StarPU-MPI, STARPU_EXECUTE_ON_NODE).
            o_.rank = A_.distributed() ? A_.owner(k, k) : -1;
            detail::insert_getrf_panel<T>(rt_, o_, column(k, k), piv_->step(k), info, off, true);
            o_.rank = -1;
        } else {
            detail::insert_getrf_panel<T>(rt_, o_, {A_.tile(k, k)}, nullptr, info, off, false);
            o_.priority = prio_(static_cast<int>(2 * (mt_ - k)));  // the forwarded messages'
            const auto diag = send(k, k, k + 1, false);  // to the ranks of its tile column's tiles
            for (int64_t m = k + 1; m < mt_; ++m) {
                set(2 * (mt_ - k), names_("trsm_col", m, k), true);
                detail::insert_trsm<T>(rt_, o_, Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, T(1),
                                       read(diag, A_.tile(k, k), m, k), A_.tile(m, k));
            }
        }
        // Distributed: the step's L tiles and the diagonal tile along their grid rows, each U tile along its grid
        // column, along chains (or trees) of copies where several ranks read them.
        std::vector<std::unique_ptr<detail::TileBroadcast>> L(static_cast<size_t>(mt_));
        for (int64_t m = k; trees() && m < mt_; ++m) {
            o_.priority = prio_(static_cast<int>(2 * (mt_ - k - 1)));
            L[static_cast<size_t>(m)] = send(m, k, k + 1, true);
        }
        // Column k+1 first: it holds the next panel.
        for (int64_t j = k + 1; j < mt_; ++j) {
            const bool next = j == k + 1;
            if (piv_) {
                set(2 * (mt_ - j), names_("laswp", k, j), next);
                swap(k, j);
            }
            set(2 * (mt_ - j), names_("trsm", k, j, k), next);
            detail::insert_trsm<T>(rt_, o_, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, T(1),
                                   read(L[static_cast<size_t>(k)], A_.tile(k, k), k, j), A_.tile(k, j));
            o_.priority = prio_(static_cast<int>(2 * (mt_ - j) - 1));
            const auto U = send(k, j, k + 1, false);
            for (int64_t m = k + 1; m < mt_; ++m) {
                set(2 * (mt_ - j) - 1, names_("gemm", m, j, k), next);
                detail::insert_gemm<T>(rt_, o_, Op::NoTrans, Op::NoTrans, T(-1),
                                       read(L[static_cast<size_t>(m)], A_.tile(m, k), m, j),
                                       read(U, A_.tile(k, j), m, j), T(1), A_.tile(m, j));
            }
        }
        // The columns of L to the left: off the critical path.
        if (piv_)
            for (int64_t j = 0; j < k; ++j) {
                set(0, names_("laswp", k, j), false);
                swap(k, j);
            }
    }

private:
    /// The interchanges of step k on tile column j: one task over the column (on its owner, when a distributed
    /// A's grid has one row of ranks), or tile by tile on the tiles' owners when the column spans several ranks.
    void swap(int64_t k, int64_t j) {
        if (exchange_) {
            if (planned_ != k) exchange_->plan(rt_, k, piv_->step(k));  // waits for the step's pivots
            planned_ = k;
            exchange_->submit(rt_, o_, j);
        } else if (interchanges_) interchanges_->submit(rt_, o_, k, j, piv_->step(k));
        else detail::insert_laswp<T>(rt_, o_, column(k, j), piv_->step(k), k * A_.nb());
    }
    bool trees() const { return shape_ != detail::BroadcastShape::Direct; }
    int panel_raw(int64_t k) const { return static_cast<int>(2 * (mt_ - k) + 1); }
    void set(int64_t raw, const char* name, bool urgent) {
        o_.priority = prio_(static_cast<int>(raw));
        o_.name = name;
        o_.urgent = priorities_ && urgent;
    }
    /// The ranks other than tile (i, j)'s owner that run the tasks writing tiles (i, j0 ..) (along_row) or
    /// (i0 .., j) of A, first come first.
    std::vector<int> readers(int64_t i, int64_t j, int64_t first, bool along_row) const {
        std::vector<int> to;
        const int owner = A_.owner(i, j);
        for (int64_t t = first; t < mt_; ++t) {
            const int r = along_row ? A_.owner(i, t) : A_.owner(t, j);
            if (r != owner && std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
        }
        return to;
    }
    /// Tile (i, j) on its way to the tasks writing tiles (i, first ..) or (first .., j): along a chain or tree of
    /// copies when trees().
    std::unique_ptr<detail::TileBroadcast> send(int64_t i, int64_t j, int64_t first, bool along_row) {
        if (!trees()) return nullptr;
        return std::make_unique<detail::TileBroadcast>(rt_, o_, A_.tile(i, j), A_.owner(i, j),
                                                       readers(i, j, first, along_row), shape_);
    }
    /// What the task writing tile (i, j) reads of tile b's broadcast (or of tile `tile` itself).
    starpu_data_handle_t read(const std::unique_ptr<detail::TileBroadcast>& b, starpu_data_handle_t tile, int64_t i,
                              int64_t j) const {
        return b ? b->at(A_.owner(i, j)) : tile;
    }
    /// Tiles k .. mt-1 of tile column j.
    std::vector<starpu_data_handle_t> column(int64_t k, int64_t j) const {
        std::vector<starpu_data_handle_t> c;
        for (int64_t m = k; m < mt_; ++m) c.push_back(A_.tile(m, j));
        return c;
    }

    Runtime& rt_;
    TileMatrix<T>& A_;
    Pivots* piv_;
    std::vector<starpu_data_handle_t> info_;  // one, or one per rank (distributed)
    int64_t mt_;
    bool priorities_;
    detail::PriorityScale prio_;
    detail::TaskOptions o_;
    detail::TaskNames names_;
    std::unique_ptr<detail::TileInterchanges<T>> interchanges_;  // A's columns spread over several ranks
    int tournament_rows_ = 0;  // > 1: the panels by tournament pivoting over that many grid rows
    // a distributed A: tiles read by several ranks sent along chains or trees of copies (tile_broadcast.hpp)
    detail::BroadcastShape shape_ = detail::BroadcastShape::Direct;
    std::unique_ptr<detail::RowExchange<T>> exchange_;  // the blocking forms on such a matrix: rows exchanged
    int64_t planned_ = -1;                              // the step exchange_ planned
};

}  // namespace

namespace detail {
std::atomic<int>& tile_interchange_rows_for_tests() {
    static std::atomic<int> rows{0};
    return rows;
}

template <typename T>
int submit_getrf(TileMatrix<T>& A, Pivots* piv, Sequence& seq, const Options& opts, RunStats* stats,
                 const char* function, const Plan& plan, bool may_wait) {
    if (A.distributed() || (piv && piv->distributed()))  // every rank, before any communication (docs/mpi.md)
        agree(A.runtime(), function,
              {{"n", A.n()}, {"nb", A.nb()}, {"A (tag of its first tile)", first_tag(A)},
               {"piv (tag of its first step)", piv && piv->steps() > 0 ? mpi_tag(piv->step(0)) : -1},
               {"variant", opts.variant.name()}, {"pivoting", piv != nullptr}});
    detail::require_square(function, "A", A);
    require(!A.layout().lower_only, function, "A", "must store every tile (got a lower_only matrix)");
    Runtime& rt = A.runtime();
    if (piv) {
        require_pivots_shaped_for(function, *piv, A);
        require(&piv->runtime() == &rt, function, "piv", "belongs to another Runtime than A");
    }
    require(&seq.runtime() == &rt, function, "seq", "belongs to another Runtime than A");
    rt.require_mapping(opts.mapping, function);
    // The interchanges of a column spread over several ranks run tile by tile (codelets/laswp_tile.cpp): on CUDA
    // workers too where this build has their CUDA implementation and the tiles are within its limit.
    require(A.grid().p == 1 || !piv || rt.cpu_workers() > 0 || laswp_tile_on_cuda(A.nb()), function, "mapping",
            "leaves this rank no CPU worker: a distributed LU applies its row interchanges on CPU workers " +
                laswp_tile_cpu_reason());
    require(opts.variant.kind == Variant::Kind::Right || opts.variant.kind == Variant::Kind::NoPrio, function,
            "variant", "must be right or noprio for LU (got '" + opts.variant.name() + "')");
    detail::require_gpu_tiles(rt, opts, A.mt(), function, "A");
    SequenceState& state = SequenceAccess::state(seq);
    std::vector<starpu_data_handle_t> info_handle(1);
    const int op = A.distributed() ? state.add_distributed_operation(rt, &info_handle)
                                   : state.add_operation(&info_handle[0]);
    if (A.n() == 0) return op;
    const int rows = tile_interchange_rows_for_tests().load();
    const bool tournament = piv && lu_tournament(A.distributed() ? A.grid().p : rows);
    if (opts.mapping != Mapping::CpuOnly) {
        if (tournament)  // the stacks: a leaf's tiles, or two candidate sets
            reserve_getrf_tournament_workspace<T>(rt, std::min(A.n(), std::max<int64_t>(kTournamentLeafTiles, 2) *
                                                                          A.nb()), A.nb());
        else if (piv) reserve_getrf_panel_workspace<T>(rt, A.n(), A.mt() > 1 ? A.nb() : 0);
        else reserve_getrf_panel_workspace<T>(rt, A.tile_rows(0), 0);
    }
    LuDag<T> dag(A, piv, info_handle, opts, plan, stats, &state, may_wait);
    for (int64_t k = 0; k < A.mt(); ++k) {
        TraceIteration step(rt, k);
        dag.step(k);
    }
    return op;
}
template int submit_getrf<float>(TileMatrix<float>&, Pivots*, Sequence&, const Options&, RunStats*, const char*,
                                 const Plan&, bool);
template int submit_getrf<double>(TileMatrix<double>&, Pivots*, Sequence&, const Options&, RunStats*, const char*,
                                  const Plan&, bool);
template int submit_getrf<std::complex<float>>(TileMatrix<std::complex<float>>&, Pivots*, Sequence&, const Options&,
                                               RunStats*, const char*, const Plan&, bool);
template int submit_getrf<std::complex<double>>(TileMatrix<std::complex<double>>&, Pivots*, Sequence&,
                                                const Options&, RunStats*, const char*, const Plan&, bool);
}  // namespace detail

template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, const Options& opts) {
    RunStats ignored;
    return getrf(A, piv, opts, ignored);
}

template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, const Options& opts, RunStats& stats) {
    Sequence seq(A.runtime());
    detail::submit_getrf(A, &piv, seq, opts, &stats, "getrf", detail::plan_tiles(Operation::Getrf, A, opts), true);
    return seq.wait();
}

template <typename T>
int getrf_nopiv(TileMatrix<T>& A, const Options& opts) {
    Sequence seq(A.runtime());
    detail::submit_getrf<T>(A, nullptr, seq, opts, nullptr, "getrf_nopiv",
                            detail::plan_tiles(Operation::Getrf, A, opts));
    return seq.wait();
}

namespace async {
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts) {
    return detail::submit_getrf(A, &piv, seq, opts, nullptr, "getrf", detail::plan_tiles(Operation::Getrf, A, opts));
}
template <typename T>
int getrf(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("getrf", plan, Operation::Getrf, A, opts);
    return detail::submit_getrf(A, &piv, seq, opts, nullptr, "getrf", plan);
}
template <typename T>
int getrf_nopiv(TileMatrix<T>& A, Sequence& seq, const Options& opts) {
    return detail::submit_getrf<T>(A, nullptr, seq, opts, nullptr, "getrf_nopiv",
                                   detail::plan_tiles(Operation::Getrf, A, opts));
}
template int getrf<float>(TileMatrix<float>&, Pivots&, Sequence&, const Options&);
template int getrf<double>(TileMatrix<double>&, Pivots&, Sequence&, const Options&);
template int getrf<float>(TileMatrix<float>&, Pivots&, Sequence&, const Options&, const Plan&);
template int getrf<double>(TileMatrix<double>&, Pivots&, Sequence&, const Options&, const Plan&);
template int getrf_nopiv<float>(TileMatrix<float>&, Sequence&, const Options&);
template int getrf_nopiv<double>(TileMatrix<double>&, Sequence&, const Options&);
}  // namespace async

template <typename T>
int getrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t* ipiv, const Options& opts, const Tiling& tiling) {
    detail::require_nonnegative("getrf", "n", n);
    detail::require_leading_dimension("getrf", "lda", lda, n, "n", n, sizeof(T));
    detail::require_tiling("getrf", tiling);
    detail::require_array("getrf", "A", A, n == 0);
    detail::require_array("getrf", "ipiv", ipiv, n == 0);
    Request request;
    request.op = Operation::Getrf;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.nrhs = 0;
    request.options = opts;
    request.tiling = tiling;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, false);
    Pivots piv(a.tiles());
    int info = 0;
    {
        Sequence seq(rt);
        detail::submit_getrf(a.tiles(), &piv, seq, opts, nullptr, "getrf", p, true);
        info = seq.wait();
    }
    a.write_back();
    const std::vector<int64_t> pivots = piv.ipiv();
    std::copy(pivots.begin(), pivots.end(), ipiv);
    return info;
}

template int getrf<float>(TileMatrix<float>&, Pivots&, const Options&);
template int getrf<double>(TileMatrix<double>&, Pivots&, const Options&);
template int getrf<float>(TileMatrix<float>&, Pivots&, const Options&, RunStats&);
template int getrf<double>(TileMatrix<double>&, Pivots&, const Options&, RunStats&);
template int getrf_nopiv<float>(TileMatrix<float>&, const Options&);
template int getrf_nopiv<double>(TileMatrix<double>&, const Options&);
template int getrf<float>(Runtime&, int64_t, float*, int64_t, int64_t*, const Options&, const Tiling&);
template int getrf<double>(Runtime&, int64_t, double*, int64_t, int64_t*, const Options&, const Tiling&);

}  // namespace starfact
