// The tall-and-skinny QR by shifted Cholesky QR 3 (Fukaya, Kannan, Nakatsukasa, Zhang, Yamamoto, "Shifted Cholesky
// QR for computing the QR factorization of ill-conditioned matrices", SIAM J. Sci. Comput. 42(1), 2020) with the
// Householder form reconstructed (Ballard, Demmel, Grigori, Jacquelin, Knight, Nguyen, "Reconstructing Householder
// vectors from tall-skinny QR", J. Parallel Distrib. Comput. 85, 2015), over the row tiles A_i of one tile column
// (docs/qr.md):
//
//   for pass p = 1, 2, 3:
//     for each tile i:  p = 1: W_i := A_i^T A_i;  else A_i := A_i V_{p-1}, W_i := A_i^T A_i
//     binary tree:      W_q += W_{q+d} for d = 1, 2, 4, ...          (W_0 = the Gram matrix of the whole column)
//     L_p := chol(W_0 (+ s I when p = 1)), V_p := L_p^-T             (one task; R_p = L_p^T)
//     p = 1: A^T A not finite, or too small to square A: a breakdown (overflow, underflow, NaN)
//     p = 2: ||W_0 - I||_F small (A_2 already orthonormal): the third pass's tasks do nothing, and below the last
//            factor is L2 (CholeskyQR2 of the shifted first pass's Q; CholqrPasses)
//   householder: Q3 top := A_0(0:n) L3^-T; Q3 top - S = Y1 U (modified LU); T := -U S Y1^-T;
//                V := M^-1 = L3^-T U^-1 (M = U L3^T); R := S (L1 L2 L3)^T; the rank check on R's diagonal
//   for each tile i:    A_i := A_i V                                 (= Q3_i U^-1 = Y_i)
//   A_0(0:n) := R above the diagonal, Y1 below it
//
// The last pass's solve with L3 and the reconstruction's with U are one solve with M = U L3^T. The solves over the
// tiles multiply by the small triangles' inverses (as gemms: cuBLAS's trsm and trmm on these tall tiles ran at a
// fraction of its gemm's rate, docs/qr.md); the inverses come from backward-stable solves against the identity, and
// the tests check orthogonality and residual on ill-conditioned inputs (cond 1e10 and 1e12). Q = I - Y T Y^T, so
// that op(Q) C = C - Y op(T) (Y^T C) and C op(Q) = C - (C Y) op(T) Y^T, op(T) = T for Q and T^T for Q^T, by tiles
// of C:
//
//   for each tile column j of C (Right: tile row):
//     for each tile i:  W_i := Y_i^T C_ij  (Right: C_ji Y_i)
//     binary tree:      W_q += W_{q+d}
//     W_0 := op(T) W_0  (Right: W_0 op(T))
//     for each tile i:  C_ij -= Y_i W_0  (Right: C_ji -= W_0 Y_i^T)
#include <algorithm>
#include <complex>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/dag.hpp"
#include "algorithms/qr_dag.hpp"
#include "codelets/cholqr_codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {
namespace {

/// A rows x cols matrix without a home (StarPU allocates it where a task first writes it), unregistered by
/// release() once the tasks using it are done. `owner` >= 0 (a distributed factorization): registered with
/// StarPU-MPI on that rank, the one whose tasks write it (its tag taken alike on every rank: every rank creates the
/// same temporaries in the same order).
template <typename T>
starpu_data_handle_t temporary(const Runtime& rt, int64_t rows, int64_t cols, int owner = -1) {
    starpu_data_handle_t h;
    starpu_matrix_data_register(&h, -1, 0, static_cast<uint32_t>(rows), static_cast<uint32_t>(rows),
                                static_cast<uint32_t>(cols), sizeof(T));
    if (owner >= 0) mpi_register(h, reserve_tags(rt, 1), owner);
    return h;
}
void release(std::vector<starpu_data_handle_t>& handles) {
    for (starpu_data_handle_t h : handles) {
        if (is_distributed(h)) mpi_cache_flush(h);
        starpu_data_unregister_submit(h);
    }
    handles.clear();
}

/// The reduction tree over W[0 .. count-1] into W[0], kFanIn to one: W_q += W_{q+d} + ... + W_{q+(kFanIn-1)d},
/// d = 1, kFanIn, kFanIn^2, ... (`third`: of the third pass, skipped with it). A binary tree of 32 tiles took five
/// levels of tasks, about 0.1 ms each, between the passes.
constexpr int64_t kFanIn = 8;
template <typename T>
void reduce(const Runtime& rt, TaskOptions& o, TaskNames& names, const std::vector<starpu_data_handle_t>& W,
            const CholqrPasses* third = nullptr) {
    const auto count = static_cast<int64_t>(W.size());
    std::vector<starpu_data_handle_t> inputs;
    for (int64_t d = 1; d < count; d *= kFanIn)
        for (int64_t q = 0; q + d < count; q += kFanIn * d) {
            inputs.clear();
            for (int64_t r = 1; r < kFanIn && q + r * d < count; ++r)
                inputs.push_back(W[static_cast<size_t>(q + r * d)]);
            o.name = names("cholqr_add", q, d);
            insert_cholqr_add<T>(rt, o, inputs, W[static_cast<size_t>(q)], third);
        }
}

/// One block reflector (Y, T) applied to one block of C over tiles first .. end - 1 of Y:
///   W_i := Y_i^T C_i (Right: C_i Y_i);  W := the tree's sum of the W_i;  W := op(T) W (Right: W op(T))
///   C_i -= Y_i W (Right: W Y_i^T)
/// Y_i and C_i are tiles or windows of them (in the blocked form's update, of the same tile); the first Y_i is unit
/// lower in its window's first rows. product(i): a fresh W_i. Tasks named after (tile, j, k).
struct BlockApply {
    Side side;
    bool trans;
    starpu_data_handle_t t;
    TileWindow tw;
    int64_t first, end;
    std::function<starpu_data_handle_t(int64_t)> y, c, product;
    std::function<TileWindow(int64_t)> yw, cw;
};
template <typename T>
void apply_block(const Runtime& rt, TaskOptions& o, TaskNames& names, const BlockApply& b, int64_t j, int64_t k) {
    std::vector<starpu_data_handle_t> W;
    for (int64_t i = b.first; i < b.end; ++i) {
        W.push_back(b.product(i));
        o.name = names("cholqr_ytc", i, j, k);
        insert_cholqr_ytc<T>(rt, o, b.side, i == b.first, b.y(i), b.c(i), W.back(), b.yw(i), b.cw(i));
    }
    reduce<T>(rt, o, names, W);
    o.name = names("cholqr_tmul", j, k);
    insert_cholqr_tmul<T>(rt, o, b.side, b.trans, b.t, W[0], b.tw);
    W.push_back(b.product(b.first));  // the first tile's scratch
    for (int64_t i = b.first; i < b.end; ++i) {
        o.name = names("cholqr_update", i, j, k);
        insert_cholqr_update<T>(rt, o, b.side, b.y(i), W[0], b.c(i), i == b.first ? W.back() : nullptr, b.yw(i),
                                b.cw(i));
    }
    release(W);
}

/// What the Cholesky QR factors: the row tiles of one tile column (n columns, m rows in all) and the tile T goes to.
/// Distributed over MPI ranks: `owner` holds each tile's rank (empty on one process). The Gram matrix W_i of a tile
/// lives on its tile's rank; the sums travel to the first tile's rank, which factors them, reconstructs and stores,
/// and whose factors travel back to the ranks of the tiles.
/// A panel of the blocked form (submit_blocked_cholqr): the n columns from col0 of tiles `cols` wide, below row col0
/// (m rows in all), its T in the first n rows of T's tile from column col0.
struct CholqrColumn {
    std::vector<starpu_data_handle_t> tiles;
    starpu_data_handle_t t;
    int64_t m, n;
    std::vector<int> owner;
    int64_t col0 = 0, cols = -1;
    bool distributed() const { return !owner.empty(); }
    int rank_of(int64_t i) const { return distributed() ? owner[static_cast<size_t>(i)] : -1; }
    bool panel() const { return cols >= 0 && (col0 > 0 || n < cols); }
    /// The part of tile i factored.
    TileWindow window(int64_t i) const {
        if (!panel()) return {};
        return {static_cast<int>(i == 0 ? col0 : 0), static_cast<int>(col0), static_cast<int>(n)};
    }
    TileWindow t_window() const {
        return panel() ? TileWindow{0, static_cast<int>(col0), static_cast<int>(n)} : TileWindow{};
    }
};

/// Whether the first pass's Gram matrix is of A rounded to TF32 (docs/qr.md, "A first pass in TF32"): double
/// columns of kTf32FirstPassOrder columns or more in the blocking forms (which can start over in double when its
/// range is exceeded) on GPUs; the submit forms, CPU runs and narrower columns keep the double first pass.
/// STARFACT_QR_FIRST_PASS=double keeps it everywhere, =tf32 asks for TF32 wherever a blocking form runs (CPU workers
/// round and sum in float as the tensor cores do: the tests). Distributed columns keep double (the start-over reads
/// the first factor back on one rank).
constexpr int64_t kTf32FirstPassOrder = 2048;  // one H200: 131072 x 2048 0.0519 s against 0.0584; 2^20 x 1000 level
template <typename T>
bool first_pass_tf32(const Runtime& rt, const TaskOptions& o, const RunStats* stats, int64_t n, bool distributed) {
    if (!std::is_same<T, double>::value || !stats || distributed) return false;
    const char* e = std::getenv("STARFACT_QR_FIRST_PASS");
    if (e && std::string(e) == "tf32") return true;
    if (e && std::string(e) == "double") return false;
    return o.mapping != Mapping::CpuOnly && rt.cuda_workers() > 0 && n >= kTf32FirstPassOrder;
}

/// The transpose of the n x n lower factor in `L` as a host matrix of its own (registered; unregistered once the
/// tasks using it are done, its memory kept by the Sequence), upper triangular: what undoes a pass's solve.
template <typename T>
starpu_data_handle_t transposed_factor(starpu_data_handle_t L, int64_t n, SequenceState* seq) {
    auto upper = std::make_shared<std::vector<T>>(static_cast<size_t>(n * n), T(0));
    starpu_data_acquire(L, STARPU_R);
    const auto* l = reinterpret_cast<const T*>(starpu_matrix_get_local_ptr(L));
    const int64_t ld = starpu_matrix_get_local_ld(L);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) (*upper)[static_cast<size_t>(j + i * n)] = l[i + j * ld];
    starpu_data_release(L);
    seq->keep(upper);
    starpu_data_handle_t h;
    starpu_matrix_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(upper->data()),
                                static_cast<uint32_t>(n), static_cast<uint32_t>(n), static_cast<uint32_t>(n), sizeof(T));
    return h;
}

/// The passes, the reconstruction and the solves over the tiles of `A` (in the precision T of its handles). `low`:
/// the first pass's Gram matrix in TF32 (first_pass_tf32); if the second pass then finds A beyond that pass's range
/// (its Cholesky fails: CholqrPasses::low_failed), the tiles, which hold A L1^-T, are multiplied back by L1^T and
/// factored again with a double first pass.
template <typename T>
void submit_cholqr_column(Runtime& rt, const CholqrColumn& A, int64_t rows, starpu_data_handle_t info,
                          QrStatus* status, TaskOptions& o, TaskNames& names, RunStats* stats, SequenceState* seq,
                          bool low) {
    const auto mt = static_cast<int64_t>(A.tiles.size());
    const int64_t n = A.n;
    if (o.mapping != Mapping::CpuOnly) reserve_cholqr_workspace<T>(rt, n, rows);
    auto passes = std::make_shared<CholqrPasses>();
    passes->stats = stats;
    passes->status = status;
    passes->low = low;
    seq->keep(passes);
    std::vector<starpu_data_handle_t> W, small;
    for (int64_t i = 0; i < mt; ++i) W.push_back(temporary<T>(rt, n, n, A.rank_of(i)));
    starpu_data_handle_t L[3], V[3];  // the passes' Cholesky factors and their inverses transposed
    for (starpu_data_handle_t& l : L) small.push_back(l = temporary<T>(rt, n, n, A.rank_of(0)));
    for (starpu_data_handle_t& v : V) small.push_back(v = temporary<T>(rt, n, n, A.rank_of(0)));
    // Distributed: the second pass's decision is taken on the first tile's rank; the blocking form tells every rank
    // (below), the submit forms, which do not wait, always run the third pass (the other ranks could not see it).
    const bool decide = !A.distributed() || stats;
    bool third_pass = true;
    for (int p = 0; p < 3; ++p) {
        if (p == 2 && stats) {
            // The blocking forms wait for the second pass's decision here instead of queueing a third pass whose tasks
            // would return at once: they would sit between the second Cholesky factorization and the reconstruction
            // (four task hops, about 0.5 ms of a 10 ms factorization of 2^20 x 256 on two GPUs). Only the wait for
            // one task, with no transfer (the submit forms, whose caller may not wait, keep the whole graph).
            const bool here = !A.distributed() || A.rank_of(0) == rt.mpi_rank();
            if (here) {
                starpu_data_acquire_on_node(L[1], STARPU_ACQUIRE_NO_NODE, STARPU_R);
                starpu_data_release_on_node(L[1], STARPU_ACQUIRE_NO_NODE);
            }
            if (A.distributed()) {  // the first tile's rank tells the others (max: the others say 0)
                std::vector<int64_t> count{here ? passes->count.load(std::memory_order_acquire) : 0};
                allreduce_max(rt, "geqrf (Cholesky QR passes)", count);
                if (count[0] > 0) passes->count.store(static_cast<int>(count[0]), std::memory_order_release);
            }
            if (low && passes->low_failed.load(std::memory_order_acquire)) {
                // beyond the TF32 first pass's range: A := (A L1^-T) L1^T, then the double first pass
                const starpu_data_handle_t upper = transposed_factor<T>(L[0], n, seq);
                for (int64_t i = 0; i < mt; ++i) {
                    o.name = names("cholqr_restore", i);
                    insert_cholqr_solve<T>(rt, o, upper, A.tiles[static_cast<size_t>(i)], A.window(i));
                }
                starpu_data_unregister_submit(upper);
                release(W);
                release(small);
                submit_cholqr_column<T>(rt, A, rows, info, status, o, names, stats, seq, false);
                return;
            }
            third_pass = passes->count.load(std::memory_order_acquire) != 2;
            if (!third_pass) break;
        }
        TraceIteration pass(rt, p);
        const CholqrPasses* third = p == 2 ? passes.get() : nullptr;
        for (int64_t i = 0; i < mt; ++i) {
            if (p == 0) {
                o.name = names("cholqr_gram", i);
                insert_cholqr_gram<T>(rt, o, A.tiles[static_cast<size_t>(i)], W[static_cast<size_t>(i)], low,
                                      A.window(i));
            } else {
                o.name = names("cholqr_solve_gram", i, p);
                insert_cholqr_solve_gram<T>(rt, o, V[p - 1], A.tiles[static_cast<size_t>(i)], W[static_cast<size_t>(i)],
                                            third, A.window(i));
            }
        }
        reduce<T>(rt, o, names, W, third);
        o.name = names("cholqr_potrf", p);
        insert_cholqr_potrf<T>(rt, o, W[0], L[p], V[p], info, A.m, p == 0, p == 2, passes.get(), p == 1 && decide, low,
                               static_cast<int>(A.col0));
    }
    const int top = A.rank_of(0);
    const starpu_data_handle_t Minv = temporary<T>(rt, n, n, top), RY = temporary<T>(rt, n, n, top),
                               X = temporary<T>(rt, n, n + 1, top);
    small.insert(small.end(), {Minv, RY, X});
    o.name = "cholqr_householder";
    // (two passes: the reconstruction reads L2 as the last factor, and the third factor, never computed, is not read)
    insert_cholqr_householder<T>(rt, o, A.tiles[0], L[0], L[1], third_pass ? L[2] : L[1], A.t, Minv, RY, X, info,
                                 passes.get(), A.window(0), A.t_window(), static_cast<int>(A.col0));
    for (int64_t i = 0; i < mt; ++i) {
        o.name = names("cholqr_solve", i);
        insert_cholqr_solve<T>(rt, o, Minv, A.tiles[static_cast<size_t>(i)], A.window(i));
    }
    o.name = "cholqr_store";
    insert_cholqr_store<T>(rt, o, RY, A.tiles[0], A.window(0));
    release(W);
    release(small);
}

/// Q_p^T applied to the columns right of panel P (the blocked form's update), on the same tiles:
///   for each tile i:  W_i := Y_i^T C_i                     (Y_i, C_i: windows of tile i, below row col0 on tile 0)
///   reduction tree:   W_0 := sum of the W_i;  W_0 := T_p^T W_0
///   for each tile i:  C_i -= Y_i W_0
template <typename T>
void submit_trailing_update(Runtime& rt, const CholqrColumn& P, TaskOptions& o, TaskNames& names) {
    const int64_t first = P.col0 + P.n, rest = P.cols - first;
    BlockApply b{Side::Left, true, P.t, P.t_window(), 0, static_cast<int64_t>(P.tiles.size()), {}, {}, {}, {}, {}};
    b.y = b.c = [&](int64_t i) { return P.tiles[static_cast<size_t>(i)]; };
    b.product = [&](int64_t) { return temporary<T>(rt, P.n, rest); };
    b.yw = [&](int64_t i) { return P.window(i); };
    b.cw = [&](int64_t i) {
        return TileWindow{static_cast<int>(i == 0 ? P.col0 : 0), static_cast<int>(first), static_cast<int>(rest)};
    };
    apply_block<T>(rt, o, names, b, P.col0, 0);
}

/// The blocked form (docs/qr.md, "The blocked Cholesky QR"): a Householder QR of the column in panels of `width`
/// columns (the last one narrower), each factored by the Cholesky QR above below its first row, its reflectors
/// applied to the columns on its right; the panels' T side by side in T's tile (LAPACK's geqrt layout, ib = width).
/// About 2 m n^2 + 2 m n width flops against the one-panel Cholesky QR's 4 m n^2.
template <typename T>
void submit_blocked_cholqr(Runtime& rt, const CholqrColumn& A, int64_t width, int64_t rows, starpu_data_handle_t info,
                           QrStatus* status, TaskOptions& o, TaskNames& names, RunStats* stats, SequenceState* seq) {
    for (int64_t c = 0; c < A.n; c += width) {
        CholqrColumn P = A;
        P.col0 = c;
        P.n = std::min(width, A.n - c);
        P.m = A.m - c;
        P.cols = A.n;
        TraceIteration step(rt, c / width);
        submit_cholqr_column<T>(rt, P, rows, info, status, o, names, stats, seq, false);
        if (c + P.n < A.n) submit_trailing_update<T>(rt, P, o, names);
    }
}

/// The column as one panel (width >= n) or in panels.
template <typename T>
void submit_column(Runtime& rt, const CholqrColumn& A, int64_t width, int64_t rows, starpu_data_handle_t info,
                   QrStatus* status, TaskOptions& o, TaskNames& names, RunStats* stats, SequenceState* seq, bool low) {
    if (width >= A.n || A.distributed())
        return submit_cholqr_column<T>(rt, A, rows, info, status, o, names, stats, seq, low);
    submit_blocked_cholqr<T>(rt, A, width, rows, info, status, o, names, stats, seq);
}

/// Whether a float Cholesky QR runs on a double copy of its column: on GPUs, where double's rate (on tensor cores)
/// is float's (without them), so that two passes in double cost less than the three float needs, when the copy
/// takes at most half of the first device's free memory and holds at most kWidenEntries entries. STARFACT_QR_WIDEN=off
/// keeps float (for A/B runs and the tests of the float kernels), =force widens on CPU workers too (the CPU tests of
/// this path).
/// One H200, device-resident, the blocked form, widened against float: 2^20 x 2048 0.314 s against 0.367, 262144 x
/// 4096 0.268 against 0.330, 2^20 x 1000 0.105 against 0.130; the copy of 2^20 x 4096 (32 GiB) 1.72 s against 1.12.
constexpr double kWidenEntries = 2147483648.0;  // 2^31: 16 GiB in double
bool widen_float_column(const Runtime& rt, const TaskOptions& o, int64_t m, int64_t n) {
    const QrWiden setting = qr_widen_setting();
    if (setting == QrWiden::Force) return true;
    if (o.mapping == Mapping::CpuOnly || rt.cuda_workers() == 0) return false;
    if (setting == QrWiden::Off) return false;
    if (static_cast<double>(m) * static_cast<double>(n) > kWidenEntries) return false;
    const double bytes = 2.0 * static_cast<double>(m) * static_cast<double>(n) * sizeof(double);
    return bytes <= static_cast<double>(available_device_memory(0));
}

/// A temporary of a handle's shape in double (on rank `owner`, as temporary()).
starpu_data_handle_t wide_like(const Runtime& rt, starpu_data_handle_t h, int owner) {
    return temporary<double>(rt, starpu_matrix_get_nx(h), starpu_matrix_get_ny(h), owner);
}

}  // namespace

template <typename T>
void submit_cholqr_dag(TileMatrix<T>& A, QRFactors<T>& Tf, starpu_data_handle_t info, const Options& opts,
                       RunStats* stats, SequenceState* seq) {
    Runtime& rt = A.runtime();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), stats, seq);
    TaskNames names(*seq);
    CholqrColumn column{{}, Tf.t_tile(0, 0), A.m(), A.n(), {}};
    for (int64_t i = 0; i < A.mt(); ++i) {
        column.tiles.push_back(A.tile(i, 0));
        if (A.distributed()) column.owner.push_back(A.owner(i, 0));
    }
    const bool distributed = column.distributed();
    const int64_t width = Tf.ib() > 0 ? Tf.ib() : A.n();  // the panels' (geqrf's plan: A.n() on MPI grids)
    if (!std::is_same<T, float>::value || !widen_float_column(rt, o, A.m(), A.n())) {
        submit_column<T>(rt, column, width, A.nb(), info, Tf.status(), o, names, stats, seq,
                         width >= A.n() && first_pass_tf32<T>(rt, o, stats, A.n(), distributed));
        return;
    }
    // float on GPUs: the column and T widened to double, factored there, narrowed back
    // (T's tile is written, not read, by the reconstruction: only its first n rows, in double, and back)
    CholqrColumn wide{{}, temporary<double>(rt, A.n(), starpu_matrix_get_ny(column.t), column.rank_of(0)), A.m(),
                      A.n(), column.owner};
    std::vector<starpu_data_handle_t> copies{wide.t};
    for (size_t i = 0; i < column.tiles.size(); ++i) {
        copies.push_back(wide_like(rt, column.tiles[i], column.rank_of(static_cast<int64_t>(i))));
        wide.tiles.push_back(copies.back());
        o.name = names("cholqr_widen", static_cast<int64_t>(i));
        insert_widen(rt, o, column.tiles[i], wide.tiles[i]);
    }
    submit_column<double>(rt, wide, width, A.nb(), info, Tf.status(), o, names, stats, seq,
                          width >= A.n() && first_pass_tf32<double>(rt, o, stats, A.n(), distributed));
    o.name = "cholqr_narrow_t";
    insert_narrow(rt, o, wide.t, column.t);
    for (size_t i = 0; i < column.tiles.size(); ++i) {
        o.name = names("cholqr_narrow", static_cast<int64_t>(i));
        insert_narrow(rt, o, wide.tiles[i], column.tiles[i]);
    }
    release(copies);
}

template <typename T>
void submit_cholqr_apply_dag(starfact::Side side, bool trans, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                             TileMatrix<T>& C, const Options& opts, RunStats* stats, SequenceState* seq,
                             const ReflectorBlock& block) {
    Runtime& rt = A.runtime();
    const bool right = side == starfact::Side::Right;
    const Side kside = right ? Side::Right : Side::Left;
    const int64_t k = block.k, mt = A.mt(), ct = right ? C.mt() : C.nt();
    const int64_t last = block.last < 0 ? ct : std::min(block.last, ct);
    auto c = [&](int64_t i, int64_t j) { return right ? C.tile(j, i) : C.tile(i, j); };
    // The blocked Cholesky QR's factors: one block reflector per panel of Tf.ib() columns, Q = Q_0 Q_1 ...; op(Q) C
    // applies them in geqrf's order for Q^T C and C Q, backwards for Q C and C Q^T.
    const int64_t cols = A.tile_cols(k);
    const int64_t width = Tf.cholqr() && Tf.ib() > 0 && Tf.ib() < cols ? Tf.ib() : cols;
    const int64_t panels = (cols + width - 1) / width;
    const bool forward = trans != right;
    TaskOptions o = operation_task_options(rt, opts, A.nb(), stats, seq);
    if (o.mapping != Mapping::CpuOnly) reserve_cholqr_workspace<T>(rt, width);
    TaskNames names(*seq);
    for (int64_t q = 0; q < panels; ++q) {
        const int64_t p = forward ? q : panels - 1 - q;
        const int64_t col0 = p * width, n = std::min(width, cols - col0);
        const bool whole = panels == 1;
        const auto row0 = static_cast<int>(col0);
        // Y_i: panel p of tile (i, k), below row col0 on the first tile; the rows (Right: columns) of C it acts on
        const auto yw = [&](int64_t i) {
            return whole ? TileWindow{} : TileWindow{i == k ? row0 : 0, row0, static_cast<int>(n)};
        };
        const auto cw = [&](int64_t i) {
            if (whole || i != k) return TileWindow{};
            return right ? TileWindow{0, row0, -1} : TileWindow{row0, 0, -1};
        };
        BlockApply b{kside, trans, Tf.t_tile(k, k), whole ? TileWindow{} : TileWindow{0, row0, static_cast<int>(n)},
                     k, mt, {}, {}, {}, yw, cw};
        b.y = [&](int64_t i) { return A.tile(i, k); };
        for (int64_t j = block.first; j < last; ++j) {
            TraceIteration column(rt, j);
            if (block.priority) o.priority = block.priority(j);
            const int64_t w = right ? C.tile_rows(j) : C.tile_cols(j);
            b.c = [&](int64_t i) { return c(i, j); };
            // (distributed: each product on the rank of the tile of C it is taken from)
            b.product = [&](int64_t i) {
                const int rank = C.distributed() ? (right ? C.owner(j, i) : C.owner(i, j)) : -1;
                return right ? temporary<T>(rt, w, n, rank) : temporary<T>(rt, n, w, rank);
            };
            apply_block<T>(rt, o, names, b, j, k);
        }
    }
}

#define STARFACT_CHOLQR_DAG(T)                                                                                     \
    template void submit_cholqr_dag<T>(TileMatrix<T>&, QRFactors<T>&, starpu_data_handle_t, const Options&,       \
                                       RunStats*, SequenceState*);                                                 \
    template void submit_cholqr_apply_dag<T>(starfact::Side, bool, const TileMatrix<T>&, const QRFactors<T>&,      \
                                             TileMatrix<T>&, const Options&, RunStats*, SequenceState*,            \
                                             const ReflectorBlock&);
STARFACT_CHOLQR_DAG(float)
STARFACT_CHOLQR_DAG(double)
#undef STARFACT_CHOLQR_DAG
// The panel tree's updates apply block reflectors to complex tiles too.
template void submit_cholqr_apply_dag<std::complex<float>>(starfact::Side, bool, const TileMatrix<std::complex<float>>&,
                                                           const QRFactors<std::complex<float>>&,
                                                           TileMatrix<std::complex<float>>&, const Options&, RunStats*,
                                                           SequenceState*, const ReflectorBlock&);
template void submit_cholqr_apply_dag<std::complex<double>>(starfact::Side, bool,
                                                            const TileMatrix<std::complex<double>>&,
                                                            const QRFactors<std::complex<double>>&,
                                                            TileMatrix<std::complex<double>>&, const Options&,
                                                            RunStats*, SequenceState*, const ReflectorBlock&);

}  // namespace starfact::detail
