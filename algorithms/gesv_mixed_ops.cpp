// The task graphs of the mixed-precision gesv (gesv_mixed_ops.hpp). Vectors are tiled like A's rows (dr, s, R, Z)
// or like its columns (dc, t: column tile j holds columns [j nb, (j + 1) nb)); S, the column scales of a block of
// right-hand sides, is 1 x c, tiled like B's columns.
//
//   r_i  := max_j |a_ij|;  Dr := diag(1 / pow2(r_i))             row_max, inverse_pow2
//   c_j  := max_i |(Dr A)_ij|;  Dc := diag(1 / pow2(c_j))        col_max, inverse_pow2
//   F    := float(Dr A Dc), s := row sums of |A|                 to_low_sums (one pass over A)
//   P F = L U in float, trailing updates in opts.factor          getrf's DAG (tensor-core gemms on CUDA workers)
//   M^-1 v = Dc U^-1 L^-1 P (Dr v / S) S                          column scales S (powers of two), getrs in float
//   R := B0 - A X                                                 gemm tasks on A's tiles, in double
#include "algorithms/gesv_mixed_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "algorithms/lu_submit.hpp"
#include "algorithms/mixed_ops.hpp"  // private_lower
#include "codelets/codelets.hpp"
#include "codelets/equilibrate_codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

LuRefineOps::LuRefineOps(TileMatrix<double>& A, Pivots& piv, TileMatrix<double>& B, const Options& opts,
                         const Plan& plan)
    : RefineOps(A, B, opts, nullptr, false, false),
      plan_(plan),
      piv_(piv),
      F_(private_lower<float>(A, vector_residency(A.runtime(), opts.mapping), true)),
      dr_(A.runtime(), A.n(), 1, A.nb(), vector_residency(A.runtime(), opts.mapping)),
      dc_(A.runtime(), A.n(), 1, A.nb(), vector_residency(A.runtime(), opts.mapping)),
      s_(A.runtime(), A.n(), 1, A.nb(), vector_residency(A.runtime(), opts.mapping)),
      t_(A.runtime(), A.n(), 1, A.nb(), vector_residency(A.runtime(), opts.mapping)) {}

LuRefineOps::~LuRefineOps() = default;

std::string LuRefineOps::unusable() const {
    if (!finite_) return "A holds NaN or Inf (a row or column scale of its equilibration is not finite)";
    return {};
}

int LuRefineOps::factor(double) {
    Runtime& rt = A_.runtime();
    Sequence seq(rt);
    const TaskOptions o = options(seq);
    const int64_t mt = A_.mt();
    for (int64_t k = 0; k < mt; ++k)
        for (TileMatrix<double>* v : {&dr_, &dc_, &s_, &t_}) insert_zero(rt, o, v->tile(k, 0));
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = 0; i < mt; ++i) insert_row_max(rt, o, A_.tile(i, j), dr_.tile(i, 0));
    for (int64_t i = 0; i < mt; ++i) insert_inverse_pow2(rt, o, dr_.tile(i, 0));
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = 0; i < mt; ++i) insert_col_max(rt, o, A_.tile(i, j), dr_.tile(i, 0), dc_.tile(j, 0));
    for (int64_t j = 0; j < mt; ++j) insert_inverse_pow2(rt, o, dc_.tile(j, 0));
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = 0; i < mt; ++i)
            insert_to_low_sums(rt, o, A_.tile(i, j), dr_.tile(i, 0), dc_.tile(j, 0), F_->tile(i, j), s_.tile(i, 0),
                               t_.tile(j, 0));
    if (first_) submit_copy_b(o);
    // The float LU in the requested arithmetic (lo_: compute_of(factor) on its gemm tasks), mapped as the plan says
    const int op = submit_getrf<float>(*F_, &piv_, seq, lo_, nullptr, "gesv", plan_);
    submit_precondition(o, v_->B0, v_->S, v_->Z, B_, false);  // X0 = M^-1 B0
    first_ = false;
    seq.wait();
    const int64_t ld = std::max<int64_t>(1, n_);
    std::vector<double> v(static_cast<size_t>(n_));
    s_.export_to(v.data(), ld);
    anorm_ = 0;
    for (double e : v)
        anorm_ = std::isnan(e) || std::isnan(anorm_) ? std::numeric_limits<double>::quiet_NaN() : std::max(anorm_, e);
    auto finite = [&](const TileMatrix<double>& d) {
        d.export_to(v.data(), ld);
        return std::all_of(v.begin(), v.end(), [](double e) { return std::isfinite(e); });
    };
    finite_ = finite(dr_) && finite(dc_);
    return seq.info(op);
}

void LuRefineOps::submit_precondition(const TaskOptions& o, const TileMatrix<double>& In, TileMatrix<double>& S,
                                      TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) {
    Runtime& rt = A_.runtime();
    // Z := float(Dr In S^-1), S the power of two at or above each column's largest |Dr In|: |Z| <= 1
    for (int64_t jc = 0; jc < In.nt(); ++jc) insert_column_scales(rt, o, In, dr_, S, jc);
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc) insert_to_low(rt, o, In.tile(i, jc), dr_.tile(i, 0), S.tile(0, jc), Z.tile(i, jc));
    // Z := U^-1 L^-1 P Z in float arithmetic (the solves of a preconditioner: no tensor-core rounding of their inputs)
    TaskOptions ol = o;
    ol.compute = 0;
    submit_getrs_tasks<float>(rt, ol, *F_, piv_, Z, true);
    // Out (+)= Dc Z S
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc) {
            if (!accumulate) insert_zero(rt, o, Out.tile(i, jc));
            insert_add_low(rt, o, Z.tile(i, jc), dc_.tile(i, 0), S.tile(0, jc), Out.tile(i, jc));
        }
}

void LuRefineOps::submit_product(const TaskOptions& o, const TileMatrix<double>* B0, const TileMatrix<double>& X,
                                 TileMatrix<double>& R) {
    Runtime& rt = A_.runtime();
    TaskOptions od = o;
    od.compute = 0;
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < X.nt(); ++jc) {
            if (B0) insert_copy(rt, od, B0->tile(i, jc), R.tile(i, jc));
            else insert_zero(rt, od, R.tile(i, jc));
            for (int64_t k = 0; k < A_.nt(); ++k)
                insert_gemm<double>(rt, od, Op::NoTrans, Op::NoTrans, -1.0, A_.tile(i, k), X.tile(k, jc), 1.0,
                                    R.tile(i, jc));
        }
}

}  // namespace starfact::detail
