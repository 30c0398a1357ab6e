// The task graphs of the mixed-precision SPD solve (mixed_ops.hpp): its scaling and conversion, the Cholesky of
// F, the products with A's lower tiles and the solves with F. Vectors are tiled like A's rows: tile i of d, s, R, Z
// holds rows [i nb, (i + 1) nb); S, the column scales of a block of right-hand sides, is 1 x c, tiled like B's
// columns.
#include "algorithms/mixed_ops.hpp"
#include "algorithms/mixed_tiles.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <string>

#include "algorithms/dag.hpp"
#include "algorithms/submit.hpp"
#include "algorithms/tile_arithmetic.hpp"
#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

template <typename T, typename S>
std::unique_ptr<TileMatrix<T>> private_lower(const TileMatrix<S>& A, Residency where, bool full) {
    Runtime& rt = A.runtime();
    const int64_t n = A.n(), nb = A.nb();
    TileLayout lower;  // on A's tiles' devices, when A's are device-resident
    lower.lower_only = !full;
    if (A.residency() == Residency::Device && !A.is_view()) {
        lower.placement = A.layout().placement;
        lower.device_grid = A.layout().device_grid;
    }
    if (where == Residency::Device) {
        const double bytes = (full ? 1.0 : 0.5) * static_cast<double>(n) * static_cast<double>(full ? n : n + nb) * sizeof(T);
        double free = 0;
        for (unsigned node : rt.cuda_memory_nodes())
            free += static_cast<double>(available_device_memory(starpu_memory_node_get_devid(node)));
        if (bytes <= 0.5 * free) return std::make_unique<TileMatrix<T>>(rt, n, n, nb, Residency::Device, lower);
    }
    return std::make_unique<TileMatrix<T>>(WorkspaceTiles{}, rt, n, n, nb, lower);
}
template std::unique_ptr<TileMatrix<float>> private_lower<float>(const TileMatrix<double>&, Residency, bool);
template std::unique_ptr<TileMatrix<double>> private_lower<double>(const TileMatrix<double>&, Residency, bool);
template std::unique_ptr<TileMatrix<std::complex<float>>> private_lower<std::complex<float>>(
    const TileMatrix<std::complex<double>>&, Residency, bool);
template std::unique_ptr<TileMatrix<std::complex<double>>> private_lower<std::complex<double>>(
    const TileMatrix<std::complex<double>>&, Residency, bool);


MixedOps::MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts, const Plan& plan,
                   const TileMatrix<double>* source, bool a_unordered)
    : RefineOps(A, B, opts, source, a_unordered, true), plan_(plan) {
    Runtime& rt = A.runtime();
    const Residency r = vector_residency(rt, opts.mapping);
    t_ = std::make_unique<Tiles>(A, r);
    if (whole_matrix_refinement(rt, opts.mapping)) {
        t_->W = std::make_unique<TileMatrix<float>>(rt, n_, std::min(n_, A.nb()), A.nb(), r);
        reserve_inverse_workspace<float>(rt, static_cast<int>(A.nb()));
    }
}

MixedOps::~MixedOps() = default;

std::string MixedOps::unusable() const {
    if (!diagonal_positive_) return "A has a diagonal entry that is not positive and finite";
    return {};
}

void MixedOps::submit_precondition(const TaskOptions& o, const TileMatrix<double>& In, TileMatrix<double>& S,
                                   TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) {
    submit_apply_low(A_.runtime(), o, t_->F, t_->inverses(), t_->d, In, S, Z, Out, accumulate);
}

void MixedOps::submit_product(const TaskOptions& o, const TileMatrix<double>* B0, const TileMatrix<double>& X,
                              TileMatrix<double>& R) {
    submit_residual(A_.runtime(), o, A_, B0, X, R);
}

bool whole_matrix_refinement(const Runtime& rt, Mapping mapping) {
    // STARFACT_REFINE_TASKS=tiles keeps the tasks per tile row and sweep step everywhere (tests, comparisons)
    const char* env = std::getenv("STARFACT_REFINE_TASKS");
    if (env && std::string(env) == "tiles") return false;
    return mapping == Mapping::CpuOnly || rt.cuda_devices() <= 1;
}

TaskOptions on_solve_memory(const Runtime& rt, TaskOptions o) {
    if (o.mapping != Mapping::CpuOnly && rt.cuda_workers() > 0) o.mapping = Mapping::GpuOnly;
    return o;
}

void submit_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A, const TileMatrix<double>* B0,
                     const TileMatrix<double>& X, TileMatrix<double>& R) {
    if (whole_matrix_refinement(rt, o.mapping)) {
        for (int64_t jc = 0; jc < X.nt(); ++jc) insert_residual(rt, on_solve_memory(rt, o), A, B0, X, R, jc);
        return;
    }
    for (int64_t i = 0; i < A.mt(); ++i)
        for (int64_t jc = 0; jc < X.nt(); ++jc) insert_residual_rows(rt, o, A, B0, X, R, i, jc);
}

void submit_apply_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F, const TileMatrix<float>* W,
                      const TileMatrix<double>& d, const TileMatrix<double>& In, TileMatrix<double>& S,
                      TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) {
    if (W) {
        TaskOptions ol = on_solve_memory(rt, o);
        ol.compute = 0;
        for (int64_t jc = 0; jc < In.nt(); ++jc) insert_solve_low(rt, ol, F, *W, d, In, S, Z, Out, jc, accumulate);
        return;
    }
    for (int64_t jc = 0; jc < In.nt(); ++jc) insert_column_scales(rt, o, In, d, S, jc);
    for (int64_t i = 0; i < In.mt(); ++i)
        for (int64_t jc = 0; jc < In.nt(); ++jc)
            insert_to_low(rt, o, In.tile(i, jc), d.tile(i, 0), S.tile(0, jc), Z.tile(i, jc));
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
            insert_add_low(rt, o, Z.tile(i, jc), d.tile(i, 0), S.tile(0, jc), Out.tile(i, jc));
        }
}

bool breakdown_stop() {
    const char* env = std::getenv("STARFACT_BREAKDOWN_STOP");
    return !(env && std::string(env) == "off");
}

int MixedOps::factor(double shift) {
    Sequence seq(A_.runtime());
    const int op = submit_factor(seq, shift);
    seq.wait();
    return finish_factor(seq, op);
}

int MixedOps::submit_factor(Sequence& seq, double shift) {
    Runtime& rt = A_.runtime();
    Tiles& t = *t_;
    const TaskOptions o = options(seq);
    const int64_t mt = A_.mt();
    // Per-tile arithmetic: the conversion in a sequence of its own, waited for, so that the rule can read the norms
    // of F's tiles before the factorization's tasks are submitted with their arithmetic.
    const bool per_tile = tile_tolerance_ > 0 && compute_of(lo_.factor) != 0;
    std::unique_ptr<Sequence> conversion = per_tile ? std::make_unique<Sequence>(rt) : nullptr;
    const TaskOptions oc = per_tile ? options(*conversion) : o;
    for (int64_t k = 0; k < mt; ++k) {
        insert_diag_scale(rt, oc, A_.tile(k, k), t.d.tile(k, 0));
        insert_zero(rt, oc, t.s.tile(k, 0));
    }
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = j; i < mt; ++i) {
            if (i == j)
                insert_to_low_sums(rt, oc, A_.tile(i, i), t.d.tile(i, 0), nullptr, t.F.tile(i, i), t.s.tile(i, 0),
                                   nullptr, shift);
            else
                insert_to_low_sums(rt, oc, A_.tile(i, j), t.d.tile(i, 0), t.d.tile(j, 0), t.F.tile(i, j),
                                   t.s.tile(i, 0), t.s.tile(j, 0));
        }
    arith_.reset();
    if (per_tile) {
        const int64_t count = mt * (mt + 1) / 2;
        TileMatrix<double> norms(rt, count, 1, 1, vector_residency(rt, hi_.mapping));
        const TaskOptions on = on_solve_memory(rt, oc);
        for (int64_t j = 0; j < mt; ++j)
            for (int64_t i = j; i < mt; ++i)
                insert_sum_squares(rt, on, t.F.tile(i, j), i == j, norms.tile(TileArithmetic::packed_index(i, j), 0));
        conversion->wait();
        std::vector<double> sums(static_cast<size_t>(count));
        norms.export_to(sums.data(), std::max<int64_t>(1, count));
        arith_ = std::make_unique<TileArithmetic>(mt, sums, tile_tolerance_, lo_.factor);
    }
    if (first_) submit_copy_b(o);
    // F is discarded when its factorization breaks down: the watch stops the rest of its graph there
    // (STARFACT_BREAKDOWN_STOP=off runs it to its end, for comparisons)
    if (!watch_ && breakdown_stop()) watch_ = std::make_unique<BreakdownWatch>(rt, mt);
    if (watch_) watch_->reset();
    const int op = submit_potrf<float>(t.F, seq, lo_, nullptr, plan_, arith_.get(), watch_.get());
    if (t.W) {  // F_kk^-1 in float arithmetic, each as soon as F_kk is final
        TaskOptions ow = on_solve_memory(rt, o);
        ow.compute = 0;
        ow.watch = watch_.get();
        for (int64_t k = 0; k < mt; ++k) insert_trtri<float>(rt, ow, t.F.tile(k, k), t.W->tile(k, 0));
    }
    submit_apply_low(rt, o, t.F, t.inverses(), t.d, v_->B0, v_->S, v_->Z, B_, false);
    first_ = false;
    return op;
}

int64_t MixedOps::low_tiles() const { return arith_ ? arith_->low_tiles() : -1; }
int64_t MixedOps::off_diagonal_tiles() const { return arith_ ? arith_->off_diagonal_tiles() : 0; }
std::string MixedOps::tile_summary() const { return arith_ ? arith_->summary() : std::string(); }
int64_t MixedOps::skipped_tasks() const { return watch_ ? watch_->skipped_tasks() : 0; }

int MixedOps::finish_factor(Sequence& seq, int op) {
    Tiles& t = *t_;
    const int64_t ld = std::max<int64_t>(1, n_);
    std::vector<double> v(static_cast<size_t>(n_));
    t.s.export_to(v.data(), ld);
    anorm_ = 0;
    for (double e : v) anorm_ = std::isnan(e) || std::isnan(anorm_) ? std::numeric_limits<double>::quiet_NaN() : std::max(anorm_, e);
    t.d.export_to(v.data(), ld);
    diagonal_positive_ = std::all_of(v.begin(), v.end(), [](double e) { return std::isfinite(e); });
    return seq.info(op);
}

}  // namespace starfact::detail
