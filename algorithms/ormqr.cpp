// What the Q of a tile QR serves (docs/qr.md): C := Q^T C, Q C, C Q or C Q^T (ormqr) and the thin Q (orgqr: Q [I; 0]);
// least squares (gels) is algorithms/gels.cpp. Q^T C replays geqrf's eliminations in order on C's tiles:
//
//   for k = 0 .. nt-1, for every column j of C:
//     for each domain (head h, rows i):  unmqr C[h][j] by (A[h][k], T[h][k]); for i: tsmqr C[h][j], C[i][j]
//     for each merge (p, i):             ttmqr C[p][j], C[i][j] by (A[i][k], TT[i][k])
//
// and Q C applies them backwards (k descending, merges reversed, then each domain's rows reversed and its head).
// Factors of the panel tree hold one block reflector Q_k = I - Y_k T_k Y_k^T per step (the last step of one tile row:
// a GEQRT's): Q^T C applies Q_0^T, Q_1^T, ... to C's tile rows k.. (algorithms/cholqr.cpp), Q C the Q_k descending.
// From the right the kernels act on C's tile columns, tile row j of C in place of tile column j: C Q = (Q^T C^T)^T
// replays the eliminations in order (untransposed), C Q^T backwards (transposed). With m < n the steps stop at the
// last tile row (k < min(mt, nt)).
#include <algorithm>
#include <complex>
#include <string>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/qr_dag.hpp"
#include "codelets/qr_codelets.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/qr.hpp"

namespace starfact {

namespace detail {
namespace {

/// op(Q) C or C op(Q) with the panel tree's factors: its block reflectors in geqrf's order (`forward`) or backwards,
/// each on C's tile rows (Right: tile columns) k and below; the last step of one tile row is a GEQRT's (unmqr).
template <typename T>
void submit_panel_apply_dag(starfact::Side side, bool trans, bool forward, const TileMatrix<T>& A,
                            const QRFactors<T>& Tf, TileMatrix<T>& C, const Options& opts, RunStats* stats,
                            SequenceState* seq) {
    Runtime& rt = A.runtime();
    const bool right = side == starfact::Side::Right;
    const int64_t mt = A.mt(), steps = std::min(mt, A.nt()), ct = right ? C.mt() : C.nt();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), stats, seq);
    if (o.mapping != Mapping::CpuOnly && mt <= A.nt()) reserve_qr_workspace<T>(rt, A.nb(), A.n());
    TaskNames names(*seq);
    const PriorityScale prio(opts.variant.kind == Variant::Kind::Right, static_cast<int>(steps + 1));
    auto apply_step = [&](int64_t k) {
        const int priority = prio(static_cast<int>(forward ? steps - k : k + 1));
        if (k < mt - 1) {
            ReflectorBlock block;
            block.k = k;
            block.priority = [priority](int64_t) { return priority; };
            return submit_cholqr_apply_dag(side, trans, A, Tf, C, opts, stats, seq, block);
        }
        TraceIteration iteration(rt, k);
        o.priority = priority;
        for (int64_t j = 0; j < ct; ++j) {
            o.name = names("unmqr", k, j, k);
            insert_unmqr<T>(rt, o, right ? Side::Right : Side::Left, trans, A.tile(k, k), Tf.t_tile(k, k),
                            right ? C.tile(j, k) : C.tile(k, j), static_cast<int>(Tf.ib()));
        }
    };
    if (forward)
        for (int64_t k = 0; k < steps; ++k) apply_step(k);
    else
        for (int64_t k = steps - 1; k >= 0; --k) apply_step(k);
}

}  // namespace

template <typename T>
void submit_ormqr_dag(starfact::Side side, bool trans, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                      TileMatrix<T>& C, const Options& opts, RunStats* stats, SequenceState* seq) {
    if (std::min(A.m(), A.n()) == 0 || C.m() == 0 || C.n() == 0) return;
    if (Tf.cholqr()) return submit_cholqr_apply_dag(side, trans, A, Tf, C, opts, stats, seq);
    const bool right = side == starfact::Side::Right;
    const Side kside = right ? Side::Right : Side::Left;
    const bool forward = trans != right;  // Q^T C and C Q: the eliminations in geqrf's order
    if (Tf.panel()) return submit_panel_apply_dag(side, trans, forward, A, Tf, C, opts, stats, seq);
    // The tile of C that tile row i of Q acts on, for tile j of C's other dimension.
    auto c = [&](int64_t i, int64_t j) { return right ? C.tile(j, i) : C.tile(i, j); };
    // A distributed C: the TS and TT kernels write two tiles of C, on the owner of tile (i, j) (whose tile row or
    // column the reflectors of A's tile row i act on alone), where the head's tile travels to and back from; the
    // reflectors and T travel to the ranks that apply them, once each (StarPU-MPI's cache).
    auto owner_of_c = [&](int64_t i, int64_t j) {
        return C.distributed() ? (right ? C.owner(j, i) : C.owner(i, j)) : -1;
    };
    Runtime& rt = A.runtime();
    const int ib = static_cast<int>(Tf.ib());
    TaskOptions o = operation_task_options(rt, opts, A.nb(), stats, seq);
    if (!qr_gpu_layout(Tf)) o.mapping = Mapping::CpuOnly;
    if (o.mapping != Mapping::CpuOnly) reserve_qr_workspace<T>(rt, A.nb(), std::min(A.m(), A.n()));
    TaskNames names(*seq);
    const int64_t steps = std::min(A.mt(), A.nt()), ct = right ? C.mt() : C.nt();
    const PriorityScale prio(opts.variant.kind == Variant::Kind::Right, static_cast<int>(steps + 1));
    auto apply_step = [&](int64_t k) {
        TraceIteration iteration(rt, k);
        const QrStep s = qr_step(k, A.mt(), Tf.domain_rows(), Tf.row_cycle());
        o.priority = prio(static_cast<int>(forward ? steps - k : k + 1));
        auto domain = [&](const QrStep::Domain& d) {
            auto head = [&] {
                for (int64_t j = 0; j < ct; ++j) {
                    o.name = names("unmqr", d.head, j, k);
                    o.rank = -1;
                    insert_unmqr<T>(rt, o, kside, trans, A.tile(d.head, k), Tf.t_tile(d.head, k), c(d.head, j), ib);
                }
            };
            auto row = [&](int64_t i) {
                for (int64_t j = 0; j < ct; ++j) {
                    o.name = names("tsmqr", i, j, k);
                    o.rank = owner_of_c(i, j);
                    insert_tpmqrt<T>(rt, o, false, kside, trans, A.tile(i, k), Tf.t_tile(i, k), c(d.head, j), c(i, j),
                                     ib);
                }
            };
            if (forward) {
                head();
                for (int64_t i : d.rows) row(i);
            } else {
                for (auto it = d.rows.rbegin(); it != d.rows.rend(); ++it) row(*it);
                head();
            }
        };
        auto merge = [&](int64_t p, int64_t i) {
            for (int64_t j = 0; j < ct; ++j) {
                o.name = names("ttmqr", i, j, k);
                o.rank = owner_of_c(i, j);
                insert_tpmqrt<T>(rt, o, true, kside, trans, A.tile(i, k), Tf.tt_tile(i, k), c(p, j), c(i, j), ib);
            }
        };
        if (forward) {
            for (const QrStep::Domain& d : s.domains) domain(d);
            for (const auto& [p, i] : s.merges) merge(p, i);
        } else {
            for (auto it = s.merges.rbegin(); it != s.merges.rend(); ++it) merge(it->first, it->second);
            for (const QrStep::Domain& d : s.domains) domain(d);
        }
    };
    if (forward)
        for (int64_t k = 0; k < steps; ++k) apply_step(k);
    else
        for (int64_t k = steps - 1; k >= 0; --k) apply_step(k);
}

#define STARFACT_ORMQR_DAG(T)                                                                                    \
    template void submit_ormqr_dag<T>(starfact::Side, bool, const TileMatrix<T>&, const QRFactors<T>&, TileMatrix<T>&, \
                                      const Options&, RunStats*, SequenceState*);
STARFACT_ORMQR_DAG(float)
STARFACT_ORMQR_DAG(double)
STARFACT_ORMQR_DAG(std::complex<float>)
STARFACT_ORMQR_DAG(std::complex<double>)
#undef STARFACT_ORMQR_DAG

namespace {

/// A factored QR (geqrf submitted with these factors) and a matrix C in A's tiles with m rows (side Left: Q C) or
/// m columns (Right: C Q).
template <typename T>
void require_applicable(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf, const TileMatrix<T>& C,
                        const char* c_name, const Options& opts, starfact::Side side = starfact::Side::Left,
                        int64_t what = 0) {
    agree_qr_call(function, A, Tf, &C, opts, what);  // a distributed call: before any check (docs/mpi.md)
    require_qr_arguments(function, A, Tf, opts);
    require(Tf.factored(), function, "T", "holds no factorization (call geqrf with it first)");
    const bool right = side == starfact::Side::Right;
    require((right ? C.n() : C.m()) == A.m(), function, c_name, [&] {
        return std::string(right ? "must have as many columns as A has rows (got "
                                 : "must have as many rows as A (got ") +
               std::to_string(right ? C.n() : C.m()) + ", A is " + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + ")";
    });
    require(C.nb() == A.nb(), function, c_name, [&] {
        return "must use the tile size of A (got nb=" + std::to_string(C.nb()) + ", A has nb=" + std::to_string(A.nb()) +
               ")";
    });
    require(&C.runtime() == &A.runtime(), function, c_name, "belongs to another Runtime than A");
    require_on_grid_of(function, A, C, c_name);
}

template <typename T>
void submit_ormqr(starfact::Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C,
                  SequenceState* seq, const Options& opts) {
    require_applicable("ormqr", A, Tf, C, "C", opts, side,
                       (side == starfact::Side::Right ? 10 : 0) + static_cast<int64_t>(trans));
    require(!is_complex_v<T> || trans != Trans::Transpose, "ormqr", "trans",
            "is transpose, but a complex Q serves Q (notrans) and Q^H (conjtranspose) only, as LAPACK's unmqr");
    submit_ormqr_dag(side, trans != Trans::NoTrans, A, Tf, C, opts, nullptr, seq);  // real: Q^H = Q^T
}

template <typename T>
void submit_orgqr(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, SequenceState* seq,
                  const Options& opts) {
    require_applicable("orgqr", A, Tf, Q, "Q", opts);
    require(Q.n() == std::min(A.m(), A.n()), "orgqr", "Q", [&] {
        return "must have min(m, n) columns (got " + std::to_string(Q.n()) + ", A is " + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + ")";
    });
    Runtime& rt = A.runtime();
    TaskOptions o = operation_task_options(rt, opts, A.nb(), nullptr, seq);
    if (!qr_gpu_layout(Tf)) o.mapping = Mapping::CpuOnly;
    for (int64_t j = 0; j < Q.nt(); ++j)
        for (int64_t i = 0; i < Q.mt(); ++i) {
            o.name = "qr_laset";
            insert_qr_laset<T>(rt, o, Q.tile(i, j), i * Q.nb(), j * Q.nb());
        }
    submit_ormqr_dag(starfact::Side::Left, false, A, Tf, Q, opts, nullptr, seq);
}

}  // namespace
}  // namespace detail

template <typename T>
void ormqr(Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C,
           const Options& opts) {
    Sequence seq(A.runtime());
    detail::submit_ormqr(side, trans, A, Tf, C, &detail::SequenceAccess::state(seq), opts);
    seq.wait();
}

template <typename T>
void orgqr(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, const Options& opts) {
    Sequence seq(A.runtime());
    detail::submit_orgqr(A, Tf, Q, &detail::SequenceAccess::state(seq), opts);
    seq.wait();
}

namespace async {
template <typename T>
void ormqr(Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C, Sequence& seq,
           const Options& opts) {
    require(&seq.runtime() == &A.runtime(), "ormqr", "seq", "belongs to another Runtime than A");
    detail::submit_ormqr(side, trans, A, Tf, C, &detail::SequenceAccess::state(seq), opts);
}
template <typename T>
void orgqr(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, Sequence& seq, const Options& opts) {
    require(&seq.runtime() == &A.runtime(), "orgqr", "seq", "belongs to another Runtime than A");
    detail::submit_orgqr(A, Tf, Q, &detail::SequenceAccess::state(seq), opts);
}
#define STARFACT_QR_ASYNC(T)                                                                                          \
    template void ormqr<T>(Side, Trans, const TileMatrix<T>&, const QRFactors<T>&, TileMatrix<T>&, Sequence&,         \
                           const Options&);                                                                          \
    template void orgqr<T>(const TileMatrix<T>&, const QRFactors<T>&, TileMatrix<T>&, Sequence&, const Options&);
STARFACT_QR_ASYNC(float)
STARFACT_QR_ASYNC(double)
STARFACT_QR_ASYNC(std::complex<float>)
STARFACT_QR_ASYNC(std::complex<double>)
#undef STARFACT_QR_ASYNC
}  // namespace async

// ---- LAPACK-array forms ---------------------------------------------------------------------------

namespace {

/// The factors' shape against the array form's m, n and tiling.
template <typename T>
void require_factors_for(const char* function, const QRFactors<T>& Tf, int64_t m, int64_t n, const Tiling& tiling) {
    require(Tf.m() == m && Tf.n() == n, function, "T", [&] {
        return "must be shaped for A (got m=" + std::to_string(Tf.m()) + " n=" + std::to_string(Tf.n()) + ", A is " +
               std::to_string(m) + " x " + std::to_string(n) + ")";
    });
    require(tiling.nb == 0 || tiling.nb == Tf.nb(), function, "tiling",
            "nb must be 0 or T's (" + std::to_string(Tf.nb()) + "; got " + std::to_string(tiling.nb) + ")");
}

}  // namespace

template <typename T>
void ormqr(Runtime& rt, Side side, Trans trans, int64_t m, int64_t nrhs, const T* A, int64_t lda,
           const QRFactors<T>& Tf, T* C, int64_t ldc, const Options& opts, const Tiling& tiling) {
    detail::require_nonnegative("ormqr", "m", m);
    detail::require_nonnegative("ormqr", "nrhs", nrhs);
    const int64_t n = Tf.n();
    // C: m x nrhs from the left, nrhs x m from the right.
    const int64_t c_rows = side == Side::Left ? m : nrhs, c_cols = side == Side::Left ? nrhs : m;
    detail::require_leading_dimension("ormqr", "lda", lda, m, "m", n, sizeof(T));
    detail::require_leading_dimension("ormqr", "ldc", ldc, c_rows, side == Side::Left ? "m" : "nrhs", c_cols,
                                     sizeof(T));
    detail::require_tiling("ormqr", tiling);
    detail::require_array("ormqr", "A", A, m * n == 0);
    detail::require_array("ormqr", "C", C, m * nrhs == 0);
    require_factors_for("ormqr", Tf, m, n, tiling);
    detail::ArrayTiles<T> a(rt, m, n, Tf.nb(), const_cast<T*>(A), lda, tiling, false);  // only read
    detail::ArrayTiles<T> c(rt, c_rows, c_cols, Tf.nb(), C, ldc, tiling, false);
    ormqr(side, trans, a.tiles(), Tf, c.tiles(), opts);
    c.write_back();
}

template <typename T>
void orgqr(Runtime& rt, int64_t m, int64_t n, const T* A, int64_t lda, const QRFactors<T>& Tf, T* Q, int64_t ldq,
           const Options& opts, const Tiling& tiling) {
    detail::require_nonnegative("orgqr", "m", m);
    detail::require_nonnegative("orgqr", "n", n);
    detail::require_leading_dimension("orgqr", "lda", lda, m, "m", n, sizeof(T));
    detail::require_leading_dimension("orgqr", "ldq", ldq, m, "m", std::min(m, n), sizeof(T));
    detail::require_tiling("orgqr", tiling);
    detail::require_array("orgqr", "A", A, m * n == 0);
    const int64_t k = std::min(m, n);  // Q's columns
    detail::require_array("orgqr", "Q", Q, m * k == 0);
    require_factors_for("orgqr", Tf, m, n, tiling);
    detail::ArrayTiles<T> a(rt, m, n, Tf.nb(), const_cast<T*>(A), lda, tiling, false);  // only read
    detail::ArrayTiles<T> q(rt, m, k, Tf.nb(), Q, ldq, tiling, false);
    orgqr(a.tiles(), Tf, q.tiles(), opts);
    q.write_back();
}

#define STARFACT_QR_OPS(T)                                                                                           \
    template void ormqr<T>(Side, Trans, const TileMatrix<T>&, const QRFactors<T>&, TileMatrix<T>&, const Options&);  \
    template void orgqr<T>(const TileMatrix<T>&, const QRFactors<T>&, TileMatrix<T>&, const Options&);               \
    template void ormqr<T>(Runtime&, Side, Trans, int64_t, int64_t, const T*, int64_t, const QRFactors<T>&, T*,      \
                           int64_t, const Options&, const Tiling&);                                                  \
    template void orgqr<T>(Runtime&, int64_t, int64_t, const T*, int64_t, const QRFactors<T>&, T*, int64_t,          \
                           const Options&, const Tiling&);
STARFACT_QR_OPS(float)
STARFACT_QR_OPS(double)
STARFACT_QR_OPS(std::complex<float>)
STARFACT_QR_OPS(std::complex<double>)
#undef STARFACT_QR_OPS

}  // namespace starfact
