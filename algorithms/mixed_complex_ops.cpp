// The task graphs of the mixed-precision Hermitian solve (mixed_complex_ops.hpp): its scaling and conversion, the
// tile Cholesky of the complex<float> F, the products with A's lower tiles and the solves with F.
//
//   d := diag(Re A)^-1/2 (each entry twice, for the real kernels on complex tiles read as twice their rows)
//   F := complex<float>(D A D + shift I), s := row sums of |A|               one pass over A's lower tiles
//   potrf(F): step k  potrf F_kk (cuSOLVER's cpotrf, LAPACK's on CPUs);  trsm F_mk := F_mk F_kk^-H;
//                     herk F_nn -= F_nk F_nk^H;  gemm F_mn -= F_mk F_nk^H     (TF32 tensor cores for Tf32)
//   X0 := D F^-H F^-1 D B                                                    one task per column block of B
#include "algorithms/mixed_complex_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "algorithms/dag.hpp"
#include "algorithms/mixed_ops.hpp"
#include "algorithms/mixed_tiles.hpp"
#include "codelets/breakdown.hpp"
#include "codelets/complex_codelets.hpp"
#include "codelets/complex_refine_codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

ComplexMixedOps::ComplexMixedOps(TileMatrix<Z>& A, TileMatrix<Z>& B, const Options& opts, const Plan& plan,
                                 const TileMatrix<Z>* source, bool a_unordered)
    : RefineOps(A, B, opts, source, a_unordered, true),
      plan_(plan),
      F_(private_lower<C>(A, vector_residency(A.runtime(), opts.mapping))),
      d2_(A.runtime(), 2 * A.n(), 1, 2 * A.nb(), vector_residency(A.runtime(), opts.mapping)),
      s_(A.runtime(), A.n(), 1, A.nb(), vector_residency(A.runtime(), opts.mapping)) {}

ComplexMixedOps::~ComplexMixedOps() = default;

int64_t ComplexMixedOps::skipped_tasks() const { return watch_ ? watch_->skipped_tasks() : 0; }

std::string ComplexMixedOps::unusable() const {
    if (!diagonal_positive_) return "A has a diagonal entry whose real part is not positive and finite";
    return {};
}

void ComplexMixedOps::submit_precondition(const TaskOptions& o, const TileMatrix<Z>& In, TileMatrix<double>& S,
                                          TileMatrix<C>& Zs, TileMatrix<Z>& Out, bool accumulate) {
    Runtime& rt = A_.runtime();
    TaskOptions ol = on_solve_memory(rt, o);
    ol.compute = 0;
    for (int64_t jc = 0; jc < In.nt(); ++jc) insert_solve_low_complex(rt, ol, *F_, d2_, In, S, Zs, Out, jc, accumulate);
}

void ComplexMixedOps::submit_product(const TaskOptions& o, const TileMatrix<Z>* B0, const TileMatrix<Z>& X,
                                     TileMatrix<Z>& R) {
    Runtime& rt = A_.runtime();
    const TaskOptions on = on_solve_memory(rt, o);
    for (int64_t jc = 0; jc < X.nt(); ++jc) insert_residual_complex(rt, on, A_, B0, X, R, jc);
}

int ComplexMixedOps::factor(double shift) {
    Sequence seq(A_.runtime());
    const int op = submit_factor(seq, shift);
    seq.wait();
    return finish_factor(seq, op);
}

int ComplexMixedOps::submit_low_potrf(Sequence& seq) {
    Runtime& rt = A_.runtime();
    TileMatrix<C>& F = *F_;
    // the plan's task mapping; TaskOptions::compute from the low precision (1 for Tf32: the tensor-core codelets)
    TaskOptions o = operation_task_options(rt, lo_, plan_, nullptr, &SequenceAccess::state(seq));
    if (lo_.mapping != Mapping::CpuOnly) {
        const int64_t order = std::max<int64_t>(1, std::min(F.nb(), F.m()));
        reserve_potrf_workspace<C>(rt, static_cast<int>(order), DiagKernel::Cusolver);
    }
    starpu_data_handle_t info = nullptr;
    const int op = o.sequence->add_operation(&info);
    const int64_t mt = F.mt();
    // F is discarded when its factorization breaks down: the watch stops the rest of its graph there
    if (!watch_ && breakdown_stop()) watch_ = std::make_unique<BreakdownWatch>(rt, mt);
    if (watch_) watch_->reset();
    o.watch = watch_.get();
    for (int64_t k = 0; k < mt; ++k) {
        o.priority = static_cast<int>(2 * (mt - k));  // the panel first
        insert_complex_potrf<C>(rt, o, F.tile(k, k), info, k * F.nb());
        for (int64_t m = k + 1; m < mt; ++m)
            insert_complex_trsm<C>(rt, o, Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, F.tile(k, k),
                                   F.tile(m, k));
        o.priority = 0;
        for (int64_t n = k + 1; n < mt; ++n) {
            if (n == k + 1) o.priority = static_cast<int>(2 * (mt - k) - 1);  // the next panel's column
            insert_complex_herk<C>(rt, o, F.tile(n, k), F.tile(n, n));
            for (int64_t m = n + 1; m < mt; ++m)
                insert_complex_gemm<C>(rt, o, Op::NoTrans, Op::ConjTrans, F.tile(m, k), F.tile(n, k), F.tile(m, n));
            o.priority = 0;
        }
    }
    return op;
}

int ComplexMixedOps::submit_factor(Sequence& seq, double shift) {
    Runtime& rt = A_.runtime();
    const TaskOptions o = options(seq);
    const int64_t mt = A_.mt();
    TileMatrix<C>& F = *F_;
    for (int64_t k = 0; k < mt; ++k) {
        insert_diag_scale_pairs(rt, o, A_.tile(k, k), d2_.tile(k, 0));
        insert_zero(rt, o, s_.tile(k, 0));
    }
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = j; i < mt; ++i) {
            if (i == j)
                insert_to_low_sums_complex(rt, o, A_.tile(i, i), d2_.tile(i, 0), nullptr, F.tile(i, i), s_.tile(i, 0),
                                           nullptr, shift);
            else
                insert_to_low_sums_complex(rt, o, A_.tile(i, j), d2_.tile(i, 0), d2_.tile(j, 0), F.tile(i, j),
                                           s_.tile(i, 0), s_.tile(j, 0));
        }
    if (first_) submit_copy_b(o);
    const int op = submit_low_potrf(seq);
    submit_precondition(o, v_->B0, v_->S, v_->Z, B_, false);  // X0
    first_ = false;
    return op;
}

int ComplexMixedOps::finish_factor(Sequence& seq, int op) {
    std::vector<double> v(static_cast<size_t>(n_));
    s_.export_to(v.data(), std::max<int64_t>(1, n_));
    anorm_ = 0;
    for (double e : v)
        anorm_ = std::isnan(e) || std::isnan(anorm_) ? std::numeric_limits<double>::quiet_NaN() : std::max(anorm_, e);
    std::vector<double> d(static_cast<size_t>(2 * n_));
    d2_.export_to(d.data(), std::max<int64_t>(1, 2 * n_));
    diagonal_positive_ = std::all_of(d.begin(), d.end(), [](double e) { return std::isfinite(e); });
    return seq.info(op);
}

}  // namespace starfact::detail
