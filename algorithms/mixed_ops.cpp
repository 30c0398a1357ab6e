// The task graphs of the mixed-precision solve (mixed_ops.hpp). Vectors are tiled like A's rows: tile i of d, s,
// R, Z holds rows [i nb, (i + 1) nb).
#include "algorithms/mixed_ops.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/dag.hpp"
#include "algorithms/submit.hpp"
#include "codelets/codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

namespace {
TileLayout full_layout(const TileMatrix<double>& A) {
    TileLayout l = A.layout();
    l.lower_only = false;
    return l;
}
TileLayout lower_layout(const TileMatrix<double>& A) {
    TileLayout l = A.layout();
    l.lower_only = true;
    return l;
}
}  // namespace

/// The solve's own tiles: F (the float factor), d (scaling), s (row sums of |A|), B0 (the right-hand sides), R
/// (residual), Z (float right-hand sides of the solves with F); V, W, Zv: one column each, for GMRES.
struct MixedOps::Tiles {
    TileMatrix<float> F;
    TileMatrix<double> d, s, B0, R;
    TileMatrix<float> Z;
    TileMatrix<double> V, W;
    TileMatrix<float> Zv;
    Tiles(TileMatrix<double>& A, int64_t c)
        : F(A.runtime(), A.n(), A.n(), A.nb(), A.residency(), lower_layout(A)),
          d(A.runtime(), A.n(), 1, A.nb(), A.residency(), full_layout(A)),
          s(A.runtime(), A.n(), 1, A.nb(), A.residency(), full_layout(A)),
          B0(A.runtime(), A.n(), c, A.nb(), A.residency(), full_layout(A)),
          R(A.runtime(), A.n(), c, A.nb(), A.residency(), full_layout(A)),
          Z(A.runtime(), A.n(), c, A.nb(), A.residency(), full_layout(A)),
          V(A.runtime(), A.n(), 1, A.nb(), A.residency(), full_layout(A)),
          W(A.runtime(), A.n(), 1, A.nb(), A.residency(), full_layout(A)),
          Zv(A.runtime(), A.n(), 1, A.nb(), A.residency(), full_layout(A)) {}
};

MixedOps::MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts,
                   const TileMatrix<double>* source, bool a_unordered)
    : A_(A), B_(B), source_(source ? *source : B), a_unordered_(a_unordered), hi_(opts), lo_(opts), n_(A.n()),
      c_(B.n()) {
    hi_.factor = Precision::Native;
    t_ = std::make_unique<Tiles>(A, c_);
}

MixedOps::~MixedOps() = default;

namespace {

/// Out := D F^-T F^-1 D In, or Out += that when `accumulate` (Z: the float scratch of In's shape), without waiting.
void submit_apply_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F, const TileMatrix<double>& d,
                      const TileMatrix<double>& In, TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) {
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc)
            insert_to_low(rt, o, In.tile(i, jc), d.tile(i, 0), nullptr, ColumnScale::None, Z.tile(i, jc));
    // The two sweeps of F^-T F^-1 Z, one task per step (codelets/refine_sweeps.cpp)
    TaskOptions ol = o;
    ol.compute = 0;
    for (int64_t jc = 0; jc < Z.nt(); ++jc) {
        for (int64_t k = 0; k < F.mt(); ++k) insert_sweep(rt, ol, F, Z, k, jc, true);
        for (int64_t k = F.mt() - 1; k >= 0; --k) insert_sweep(rt, ol, F, Z, k, jc, false);
    }
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc) {
            if (!accumulate) insert_zero(rt, o, Out.tile(i, jc));
            insert_add_low(rt, o, Z.tile(i, jc), d.tile(i, 0), Out.tile(i, jc));
        }
}

}  // namespace

int MixedOps::factor() {
    Sequence seq(A_.runtime());
    const int op = submit_factor(seq);
    seq.wait();
    return finish_factor(seq, op);
}

int MixedOps::submit_factor(Sequence& seq) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    const int64_t mt = A_.mt();
    for (int64_t k = 0; k < mt; ++k) {
        insert_diag_scale(rt, o, A_.tile(k, k), t.d.tile(k, 0));
        insert_zero(rt, o, t.s.tile(k, 0));
    }
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = j; i < mt; ++i) {
            if (i == j)
                insert_to_low_sums(rt, o, A_.tile(i, i), t.d.tile(i, 0), nullptr, t.F.tile(i, i), t.s.tile(i, 0),
                                   nullptr);
            else
                insert_to_low_sums(rt, o, A_.tile(i, j), t.d.tile(i, 0), t.d.tile(j, 0), t.F.tile(i, j),
                                   t.s.tile(i, 0), t.s.tile(j, 0));
        }
    for (int64_t i = 0; i < mt; ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, source_.tile(i, jc), t.B0.tile(i, jc));
    const int op = submit_potrf<float>(t.F, seq, lo_, nullptr);
    submit_apply_low(rt, o, t.F, t.d, t.B0, t.Z, B_, false);
    return op;
}

int MixedOps::finish_factor(Sequence& seq, int op) {
    Tiles& t = *t_;
    std::vector<double> s(static_cast<size_t>(n_));
    t.s.export_to(s.data(), std::max<int64_t>(1, n_));
    anorm_ = 0;
    for (double v : s) anorm_ = std::isnan(v) ? v : std::max(anorm_, v);
    return seq.info(op);
}

void MixedOps::b_host(std::vector<double>& b) const {
    b.resize(static_cast<size_t>(n_ * c_));
    t_->B0.export_to(b.data(), std::max<int64_t>(1, n_));
}

void MixedOps::residual(std::vector<double>& r, std::vector<double>& x) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    Sequence seq(rt);
    TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    o.unordered = a_unordered_;  // R, X: this graph alone; A: held for the solve (or read in order)
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_residual_rows(rt, o, A_, &t.B0, B_, t.R, i, jc);
    seq.wait();
    r.resize(static_cast<size_t>(n_ * c_));
    x.resize(static_cast<size_t>(n_ * c_));
    t.R.export_to(r.data(), std::max<int64_t>(1, n_));
    B_.export_to(x.data(), std::max<int64_t>(1, n_));
}

void MixedOps::correct() {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    Sequence seq(rt);
    const TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    submit_apply_low(rt, o, t.F, t.d, t.R, t.Z, B_, true);  // X += D F^-T F^-1 D R
    seq.wait();  // (the next residual's graph could chain on it, but a Sequence's wait is what reports errors)
}

void MixedOps::apply_a(const std::vector<double>& v, std::vector<double>& w) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    t.V.import(v.data(), std::max<int64_t>(1, n_));
    Sequence seq(rt);
    TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    o.unordered = a_unordered_;
    for (int64_t i = 0; i < A_.mt(); ++i) insert_residual_rows(rt, o, A_, nullptr, t.V, t.W, i, 0);  // W = -A V
    seq.wait();
    w.resize(static_cast<size_t>(n_));
    t.W.export_to(w.data(), std::max<int64_t>(1, n_));
    for (double& e : w) e = -e;
}

void MixedOps::apply_low(const std::vector<double>& v, std::vector<double>& z) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    t.V.import(v.data(), std::max<int64_t>(1, n_));
    Sequence seq(rt);
    const TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    submit_apply_low(rt, o, t.F, t.d, t.V, t.Zv, t.W, false);
    seq.wait();
    z.resize(static_cast<size_t>(n_));
    t.W.export_to(z.data(), std::max<int64_t>(1, n_));
}

void MixedOps::set_solution(const std::vector<double>& x) { B_.import(x.data(), std::max<int64_t>(1, n_)); }

void MixedOps::restore_b() {
    Runtime& rt = A_.runtime();
    Sequence seq(rt);
    const TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, t_->B0.tile(i, jc), B_.tile(i, jc));
    seq.wait();
}

}  // namespace starfact::detail
