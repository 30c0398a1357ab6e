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

MixedOps::MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts)
    : A_(A), B_(B), hi_(opts), lo_(opts), n_(A.n()), c_(B.n()) {
    hi_.factor = Precision::Native;
    t_ = std::make_unique<Tiles>(A, c_);
}

MixedOps::~MixedOps() = default;

namespace {

/// Y := Y - A X over the tiles: the lower tiles of A as gemms (and their transposes), the diagonal ones as symms.
void submit_product(const Runtime& rt, TaskOptions o, const TileMatrix<double>& A, const TileMatrix<double>& X,
                    TileMatrix<double>& Y) {
    const int64_t mt = A.mt();
    for (int64_t jc = 0; jc < X.nt(); ++jc)
        for (int64_t i = 0; i < mt; ++i)
            for (int64_t j = 0; j <= i; ++j) {
                if (i == j) {
                    insert_symm(rt, o, A.tile(i, i), X.tile(i, jc), Y.tile(i, jc));
                    continue;
                }
                insert_gemm<double>(rt, o, Op::NoTrans, Op::NoTrans, -1.0, A.tile(i, j), X.tile(j, jc), 1.0,
                                    Y.tile(i, jc));
                insert_gemm<double>(rt, o, Op::Trans, Op::NoTrans, -1.0, A.tile(i, j), X.tile(i, jc), 1.0,
                                    Y.tile(j, jc));
            }
}

/// Out := D F^-T F^-1 D In (Z the float scratch of In's shape), without waiting.
void submit_apply_low(const Runtime& rt, const TaskOptions& o, TileMatrix<float>& F, const TileMatrix<double>& d,
                      const TileMatrix<double>& In, TileMatrix<float>& Z, TileMatrix<double>& Out, Sequence& seq,
                      const Options& lo) {
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc)
            insert_to_low(rt, o, In.tile(i, jc), d.tile(i, 0), nullptr, ColumnScale::None, Z.tile(i, jc));
    submit_potrs<float>(F, Z, seq, lo, nullptr);
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc) {
            if (&In != &Out) insert_zero(rt, o, Out.tile(i, jc));
            insert_add_low(rt, o, Z.tile(i, jc), d.tile(i, 0), Out.tile(i, jc));
        }
}

}  // namespace

int MixedOps::factor() {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    Sequence seq(rt);
    TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    const int64_t mt = A_.mt();
    for (int64_t k = 0; k < mt; ++k) {
        insert_diag_scale(rt, o, A_.tile(k, k), t.d.tile(k, 0));
        insert_zero(rt, o, t.s.tile(k, 0));
    }
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = j; i < mt; ++i) {
            if (i == j) {
                insert_to_low(rt, o, A_.tile(i, i), t.d.tile(i, 0), nullptr, ColumnScale::SameAsRows, t.F.tile(i, i));
                insert_abs_sums(rt, o, A_.tile(i, i), true, t.s.tile(i, 0), nullptr);
            } else {
                insert_to_low(rt, o, A_.tile(i, j), t.d.tile(i, 0), t.d.tile(j, 0), ColumnScale::Own, t.F.tile(i, j));
                insert_abs_sums(rt, o, A_.tile(i, j), false, t.s.tile(i, 0), t.s.tile(j, 0));
            }
        }
    for (int64_t i = 0; i < mt; ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, B_.tile(i, jc), t.B0.tile(i, jc));
    const int op = submit_potrf<float>(t.F, seq, lo_, nullptr);
    submit_apply_low(rt, o, t.F, t.d, t.B0, t.Z, B_, seq, lo_);
    seq.wait();
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
    const TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, t.B0.tile(i, jc), t.R.tile(i, jc));
    submit_product(rt, o, A_, B_, t.R);
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
    // Z = float(D R); F^-T F^-1 Z; X += D Z
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc)
            insert_to_low(rt, o, t.R.tile(i, jc), t.d.tile(i, 0), nullptr, ColumnScale::None, t.Z.tile(i, jc));
    submit_potrs<float>(t.F, t.Z, seq, lo_, nullptr);
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_add_low(rt, o, t.Z.tile(i, jc), t.d.tile(i, 0), B_.tile(i, jc));
    seq.wait();  // (the next residual's graph could chain on it, but a Sequence's wait is what reports errors)
}

void MixedOps::apply_a(const std::vector<double>& v, std::vector<double>& w) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    t.V.import(v.data(), std::max<int64_t>(1, n_));
    Sequence seq(rt);
    const TaskOptions o = operation_task_options(rt, hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    for (int64_t i = 0; i < A_.mt(); ++i) insert_zero(rt, o, t.W.tile(i, 0));
    submit_product(rt, o, A_, t.V, t.W);  // W = -A V
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
    submit_apply_low(rt, o, t.F, t.d, t.V, t.Zv, t.W, seq, lo_);
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
