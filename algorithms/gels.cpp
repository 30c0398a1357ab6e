// Least squares and minimum-norm solutions (gels, docs/qr.md): geqrf, Q^T B, R X = B(0:n). Complex matrices: every
// transpose below is the conjugate one (Q^H B, A^H, R^H).
// The solve, by tile rows of B from the last: qr_trsm B[k][j] := R[k][k]^-1 B[k][j] (its first rows),
// gemm B[i][j] -= A[i][k] B[k][j] for i < k. A wide A (m < n) gets the minimum-norm solution from the QR of
// At = A^T (in the factors' workspace): qr_transpose At[j][i] := A[i][j]^T, geqrf(At), A := At^T back; then by tile
// rows of B from the first, qr_trsm B[k][j] := R[k][k]^-T B[k][j], qr_gemm_t B[i][j] -= R[k][i]^T B[k][j] for i > k;
// qr_zero_rows B(m:n) := 0, and B := Q B. As LAPACK's gels, A and B are first scaled by powers of two when their
// largest entries lie outside a safe range (qr_absmax, qr_rescale: codelets/qr_scaling.cpp), the solution scaled
// back after the solve.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/qr_dag.hpp"
#include "algorithms/qr_fallback.hpp"
#include "codelets/qr_codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/qr.hpp"

namespace starfact {

using detail::Op;

namespace detail {
namespace {

/// R X = B(0:n): by tile rows of B from the last.
template <typename T>
void submit_gels_solve(const TileMatrix<T>& A, TileMatrix<T>& B, SequenceState* seq, const Options& opts) {
    Runtime& rt = A.runtime();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), nullptr, seq);
    TaskNames names(*seq);
    for (int64_t k = A.nt() - 1; k >= 0; --k)
        for (int64_t j = 0; j < B.nt(); ++j) {
            o.name = names("qr_trsm", k, j);
            insert_qr_trsm<T>(rt, o, A.tile(k, k), B.tile(k, j));
            for (int64_t i = 0; i < k; ++i) {
                o.name = names("gemm", i, j, k);
                insert_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, T(-1), A.tile(i, k), B.tile(k, j), T(1), B.tile(i, j));
            }
        }
}

/// The minimum-norm solution of a wide A (m < n) from the QR of A^T in the factors' workspace: R^T Y = B(0:m) by tile
/// rows from the first, B(m:n) := 0, X = Q B.
template <typename T>
void submit_minimum_norm(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, SequenceState* seq,
                         const Options& opts) {
    TileMatrix<T>& F = Tf.factored_workspace();
    Runtime& rt = A.runtime();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), nullptr, seq);
    TaskNames names(*seq);
    const int64_t kt = F.nt();  // R: m x m, in F's first tile rows
    for (int64_t k = 0; k < kt; ++k)
        for (int64_t j = 0; j < B.nt(); ++j) {
            o.name = names("qr_trsm", k, j);
            insert_qr_trsm<T>(rt, o, F.tile(k, k), B.tile(k, j), true);
            for (int64_t i = k + 1; i < kt; ++i) {
                o.name = names("qr_gemm_t", i, j, k);
                insert_qr_gemm_t<T>(rt, o, F.tile(k, i), B.tile(k, j), B.tile(i, j));
            }
        }
    for (int64_t i = A.m() / B.nb(); i < B.mt(); ++i)
        for (int64_t j = 0; j < B.nt(); ++j) {
            o.name = names("qr_zero_rows", i, j);
            insert_qr_zero_rows<T>(rt, o, B.tile(i, j), std::max<int64_t>(0, A.m() - i * B.nb()));
        }
    submit_ormqr_dag(starfact::Side::Left, false, F, Tf, B, opts, nullptr, seq);
}

/// gels' scaling (LAPACK's gels): M = [max |A|, max |B(0:m, :)|] (a temporary of two doubles), from which the tasks
/// derive the powers of two that bring A and B into `ranges`: LAPACK's [smlnum, bignum], smlnum = the smallest normal
/// number / eps; for the Cholesky QR, A into the range where A^T A neither overflows nor underflows. A distributed A:
/// one M per rank (StarPU-MPI data it owns), first the maxima of its own tiles, then of every rank's (qr_absmax_merge).
struct GelsScaling {
    std::vector<starpu_data_handle_t> M;  // none (no scaling), one, or one per rank
    QrScaleRanges ranges{};
    bool on() const { return !M.empty(); }
    /// The M of the tasks `rank` runs.
    starpu_data_handle_t of(int rank) const { return M.size() == 1 ? M.front() : M[static_cast<size_t>(rank)]; }
};
/// Gives temporary handles back to StarPU once the tasks submitted with them complete.
struct ForgetAfterTasks {
    std::vector<starpu_data_handle_t> h;
    explicit ForgetAfterTasks(std::vector<starpu_data_handle_t> handles) : h(std::move(handles)) {}
    ~ForgetAfterTasks() {
        for (starpu_data_handle_t x : h) starpu_data_unregister_submit(x);
    }
    ForgetAfterTasks(const ForgetAfterTasks&) = delete;
    ForgetAfterTasks& operator=(const ForgetAfterTasks&) = delete;
};

template <typename T>
GelsScaling gels_scaling(const TileMatrix<T>& A, const TileMatrix<T>& B, const Plan& plan) {
    GelsScaling g;
    if (A.m() == 0 || A.n() == 0 || B.n() == 0) return g;
    using R = real_t<T>;  // (a complex matrix's range: its real type's)
    const double small = static_cast<double>(std::numeric_limits<R>::min()) / std::numeric_limits<R>::epsilon();
    g.ranges = {small, 1 / small, small, 1 / small};
    if (plan.tree.kind == QrTree::Kind::Cholqr) {
        const double mn = static_cast<double>(A.m()) * static_cast<double>(A.n());
        g.ranges.lo_a = 4 * std::sqrt(small);
        g.ranges.hi_a = std::sqrt(static_cast<double>(std::numeric_limits<R>::max()) / (4 * mn));
    }
    const int ranks = A.distributed() ? A.runtime().mpi_size() : 1;
    const int64_t tag0 = A.distributed() ? reserve_tags(A.runtime(), ranks) : 0;
    g.M.assign(static_cast<size_t>(ranks), nullptr);
    for (int r = 0; r < ranks; ++r) {
        starpu_vector_data_register(&g.M[static_cast<size_t>(r)], -1, 0, 2, sizeof(double));
        if (A.distributed()) mpi_register(g.M[static_cast<size_t>(r)], tag0 + r, r);
    }
    return g;
}

/// The tiles of tile column j of X.
template <typename T>
std::vector<starpu_data_handle_t> tile_column(const TileMatrix<T>& X, int64_t j) {
    std::vector<starpu_data_handle_t> tiles;
    for (int64_t i = 0; i < X.mt(); ++i) tiles.push_back(X.tile(i, j));
    return tiles;
}

/// The tiles of tile column j of X in tile rows first, first + step, ...
template <typename T>
std::vector<starpu_data_handle_t> tile_rows_of(const TileMatrix<T>& X, int64_t j, int64_t first, int64_t step) {
    std::vector<starpu_data_handle_t> tiles;
    for (int64_t i = first; i < X.mt(); i += step) tiles.push_back(X.tile(i, j));
    return tiles;
}

/// Rows [first, last) of every tile column of X times 2^k, k from M and `which` (qr_scale_rule.hpp). A distributed
/// X: per tile column, one task per grid row on its rank's tiles, with that rank's M.
template <typename T>
void submit_rescale(const TileMatrix<T>& X, int64_t first, int64_t last, const GelsScaling& g, QrRescale which,
                    TaskOptions& o, TaskNames& names) {
    if (!g.on() || first >= last) return;
    const int64_t cycle = X.distributed() ? X.grid().p : 1;
    for (int64_t j = 0; j < X.nt(); ++j)
        for (int64_t r = 0; r < std::min(cycle, X.mt()); ++r) {
            o.name = names("qr_rescale", j);
            insert_qr_rescale<T>(X.runtime(), o, cycle == 1 ? tile_column(X, j) : tile_rows_of(X, j, r, cycle), X.nb(),
                                 first, last, g.ranges, which, g.of(X.owner(r, j)), r, cycle);
        }
}

/// Measures A and B(0:m, :) into M, then scales them. A distributed A: each rank measures its own tiles into its M,
/// then receives every other rank's M and keeps the largest values.
template <typename T>
void submit_gels_scale(TileMatrix<T>& A, TileMatrix<T>& B, const GelsScaling& g, TaskOptions& o, TaskNames& names) {
    if (!g.on()) return;
    const int64_t cycle = A.distributed() ? A.grid().p : 1;
    std::vector<char> first(g.M.size(), 1);  // per M: its first task sets it
    for (int which = 0; which < 2; ++which) {
        const TileMatrix<T>& X = which == 0 ? A : B;
        for (int64_t j = 0; j < X.nt(); ++j)
            for (int64_t r = 0; r < std::min(cycle, X.mt()); ++r) {
                const size_t slot = g.M.size() == 1 ? 0 : static_cast<size_t>(X.owner(r, j));
                o.name = names("qr_absmax", which, j);
                insert_qr_absmax<T>(A.runtime(), o, cycle == 1 ? tile_column(X, j) : tile_rows_of(X, j, r, cycle),
                                    X.nb(), A.m(), which, first[slot] != 0, g.M[slot], r, cycle);
                first[slot] = 0;
            }
    }
    if (g.M.size() > 1) {
        // Rank r's M takes in every other rank's that measured tiles (on rank r: each M travels to every rank once).
        // The maximum does not depend on the order, so a rank's M may already hold others' values when it is sent.
        for (size_t r = 0; r < g.M.size(); ++r) {
            bool init = first[r] != 0;  // a rank with no tile of A or B: its M is a copy first
            for (size_t from = 0; from < g.M.size(); ++from) {
                if (from == r || first[from]) continue;
                o.name = "qr_absmax_merge";
                insert_qr_absmax_merge(A.runtime(), o, g.M[r], g.M[from], init);
                init = false;
            }
        }
    }
    submit_rescale(A, 0, A.m(), g, QrRescale::A, o, names);
    submit_rescale(B, 0, B.m(), g, QrRescale::B, o, names);
}

/// The factorization part of gels, with the zero-diagonal check of R into `info`. m >= n: A = Q R, B := Q^T B.
/// m < n: the minimum-norm solution through the QR of A^T, in the factors' workspace At: At := A^T, At = Q R, and
/// A := At^T (the factors transposed: an LQ of A, L = R^T, in the layout of LAPACK's gelqf). A and B are scaled first.
template <typename T>
void submit_gels_factor(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const QrInfo& info,
                        const GelsScaling& scaling, SequenceState* seq, const Options& opts, const Plan& plan) {
    Runtime& rt = A.runtime();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), nullptr, seq);
    TaskNames names(*seq);
    submit_gels_scale(A, B, scaling, o, names);
    const bool wide = A.m() < A.n();
    TileMatrix<T>& F = wide ? Tf.factored_workspace() : A;  // the matrix factored
    auto transpose = [&](TileMatrix<T>& from, TileMatrix<T>& to) {
        for (int64_t j = 0; j < from.nt(); ++j)
            for (int64_t i = 0; i < from.mt(); ++i) {
                o.name = names("qr_transpose", i, j);
                insert_qr_transpose<T>(rt, o, from.tile(i, j), to.tile(j, i));
            }
    };
    if (wide) transpose(A, F);
    submit_geqrf_dag(F, Tf, opts, plan, nullptr, seq, &info);
    if (!wide) submit_ormqr_dag(starfact::Side::Left, true, F, Tf, B, opts, nullptr, seq);
    for (int64_t k = 0; k < std::min(F.mt(), F.nt()); ++k) {
        o.name = names("qr_diag_info", k);
        insert_qr_diag_info<T>(rt, o, F.tile(k, k), info.of(F.owner(k, k)), k * A.nb(), Tf.status());
    }
    if (wide) transpose(F, A);
}

/// The solution part of gels into B. m >= n: R X = B(0:n), by tile rows of B from the last. m < n: R^T Y = B(0:m)
/// by tile rows from the first, B(m:n) := 0, X = Q B. Then X, and the residual's rows below it, scaled back.
template <typename T>
void submit_gels_solution(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const GelsScaling& scaling,
                          SequenceState* seq, const Options& opts) {
    TaskOptions o = operation_task_options(A.runtime(), opts, A.nb(), nullptr, seq);
    TaskNames names(*seq);
    if (A.m() >= A.n()) {
        submit_gels_solve(A, B, seq, opts);
        submit_rescale(B, 0, A.n(), scaling, QrRescale::Solution, o, names);
        submit_rescale(B, A.n(), B.m(), scaling, QrRescale::UndoB, o, names);
        return;
    }
    submit_minimum_norm(A, Tf, B, seq, opts);
    submit_rescale(B, 0, B.m(), scaling, QrRescale::Solution, o, names);
}

template <typename T>
void require_gels(const TileMatrix<T>& A, const QRFactors<T>& Tf, const TileMatrix<T>& B, const Options& opts) {
    agree_qr_call("gels", A, Tf, &B, opts);  // a distributed call: before any check (docs/mpi.md)
    require_qr_arguments("gels", A, Tf, opts, A.m() < A.n());
    const int64_t rows = std::max(A.m(), A.n());
    require(B.m() == rows && B.nb() == A.nb(), "gels", "B", [&] {
        return "must have max(m, n) rows and A's tile size (got " + std::to_string(B.m()) + " rows, nb=" +
               std::to_string(B.nb()) + "; A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ", nb=" +
               std::to_string(A.nb()) + ")";
    });
    require(&B.runtime() == &A.runtime(), "gels", "B", "belongs to another Runtime than A");
    require_on_grid_of("gels", A, B, "B");
}

}  // namespace
}  // namespace detail

namespace {
/// The blocking gels on tiles, as `plan` (the call's) says.
template <typename T>
int gels_planned(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const Options& opts, Plan plan) {
    Tf.set_fallback(QrBreakdown::None);
    detail::QrFallbackCopy<T> saved(Tf, {&A, &B}, plan);
    std::vector<std::unique_ptr<detail::ForgetAfterTasks>> forget;  // each scaling's maxima, once its tasks complete
    detail::GelsScaling scaling;
    auto factor = [&] {  // scaling, geqrf, Q^T B, R's diagonal check; waited for
        scaling = detail::gels_scaling(A, B, plan);
        forget.push_back(std::make_unique<detail::ForgetAfterTasks>(scaling.M));
        Sequence seq(A.runtime());
        detail::SequenceState& state = detail::SequenceAccess::state(seq);
        detail::QrInfo info;
        detail::add_qr_operation(A, &state, &info);
        detail::submit_gels_factor(A, Tf, B, info, scaling, &state, opts, plan);
        return seq.wait();
    };
    int result = factor();
    if (result != 0 && saved.armed()) {  // the Cholesky QR broke down: A and B again, by the Householder tree
        plan = saved.restore(Tf, plan, opts);
        result = factor();
    }
    Sequence solve(A.runtime());
    detail::SequenceState& after = detail::SequenceAccess::state(solve);
    if (result != 0) {  // X is not computed: B holds Q^T B (m < n: B), scaled back
        detail::TaskOptions o = detail::operation_task_options(A.runtime(), opts, A.nb(), nullptr, &after);
        detail::TaskNames names(after);
        detail::submit_rescale(B, 0, B.m(), scaling, detail::QrRescale::UndoB, o, names);
        solve.wait();
        return result;
    }
    detail::submit_gels_solution(A, Tf, B, scaling, &after, opts);
    solve.wait();
    return 0;
}
}  // namespace

template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const Options& opts) {
    detail::require_gels(A, Tf, B, opts);
    return gels_planned(A, Tf, B, opts, detail::qr_plan_for(A, Tf, opts, detail::plan_qr_tiles(Tf, opts)));
}

namespace async {
template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_gels(A, Tf, B, opts);
    require(&seq.runtime() == &A.runtime(), "gels", "seq", "belongs to another Runtime than A");
    detail::require_no_fallback("gels", Tf);
    detail::require_qr_plan("gels", plan, Tf, opts);
    Tf.set_fallback(QrBreakdown::None);
    detail::SequenceState& state = detail::SequenceAccess::state(seq);
    detail::QrInfo info;
    const int op = detail::add_qr_operation(A, &state, &info);
    const Plan planned = detail::qr_plan_for(A, Tf, opts, plan);
    const detail::GelsScaling scaling = detail::gels_scaling(A, B, planned);
    const detail::ForgetAfterTasks forget(scaling.M);
    detail::submit_gels_factor(A, Tf, B, info, scaling, &state, opts, planned);
    detail::submit_gels_solution(A, Tf, B, scaling, &state, opts);
    return op;
}
template <typename T>
int gels(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    return gels(A, Tf, B, seq, opts, detail::plan_qr_tiles(Tf, opts));  // (the plan form checks the arguments first)
}
#define STARFACT_GELS_ASYNC(T)                                                                                 \
    template int gels<T>(TileMatrix<T>&, QRFactors<T>&, TileMatrix<T>&, Sequence&, const Options&);             \
    template int gels<T>(TileMatrix<T>&, QRFactors<T>&, TileMatrix<T>&, Sequence&, const Options&, const Plan&);
STARFACT_GELS_ASYNC(float)
STARFACT_GELS_ASYNC(double)
STARFACT_GELS_ASYNC(std::complex<float>)
STARFACT_GELS_ASYNC(std::complex<double>)
#undef STARFACT_GELS_ASYNC
}  // namespace async

template <typename T>
int gels(Runtime& rt, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts,
         const Tiling& tiling) {
    detail::require_nonnegative("gels", "m", m);
    detail::require_nonnegative("gels", "n", n);
    detail::require_nonnegative("gels", "nrhs", nrhs);
    const int64_t rows = std::max(m, n), k = std::min(m, n);  // B's rows; the factored matrix is rows x k
    detail::require_leading_dimension("gels", "lda", lda, m, "m", n, sizeof(T));
    detail::require_leading_dimension("gels", "ldb", ldb, rows, "m, n", nrhs, sizeof(T));
    detail::require_tiling("gels", tiling);
    detail::require_array("gels", "A", A, m * n == 0);
    detail::require_array("gels", "B", B, rows * nrhs == 0);
    Request request;  // the plan of the QR of the rows x k matrix
    request.op = Operation::Gels;
    request.element = detail::element_precision<T>();
    request.m = m;
    request.n = n;
    request.nrhs = nrhs;
    request.options = opts;
    request.tiling = tiling;
    const Plan planned = plan(rt, request, A);
    const int64_t nb = planned.nb;
    QRFactors<T> Tf(rt, rows, k, nb);  // m < n: A^T's
    detail::ArrayTiles<T> a(rt, m, n, nb, A, lda, tiling, false);
    detail::ArrayTiles<T> b(rt, rows, nrhs, nb, B, ldb, tiling, false);
    detail::require_gels(a.tiles(), Tf, b.tiles(), opts);
    const int info = gels_planned(a.tiles(), Tf, b.tiles(), opts, planned);
    a.write_back();
    b.write_back();
    return info;
}

#define STARFACT_GELS(T)                                                                                        \
    template int gels<T>(TileMatrix<T>&, QRFactors<T>&, TileMatrix<T>&, const Options&);                        \
    template int gels<T>(Runtime&, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, const Options&, const Tiling&);
STARFACT_GELS(float)
STARFACT_GELS(double)
STARFACT_GELS(std::complex<float>)
STARFACT_GELS(std::complex<double>)
#undef STARFACT_GELS

}  // namespace starfact
