// The vectors and the host-driven steps every refined solve shares (refine_ops.hpp): the residual, the correction
// through the low-precision factor, B's copies. The operator and preconditioner are the solve's own (MixedOps,
// LuRefineOps); the flexible GMRES over them is algorithms/mixed_gmres.cpp, the driver algorithms/refine_driver.cpp.
#include "algorithms/refine_ops.hpp"

#include <algorithm>

#include "algorithms/dag.hpp"
#include "algorithms/mixed_tiles.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

Residency vector_residency(const Runtime& rt, Mapping mapping) {
    return rt.cuda_workers() > 0 && mapping != Mapping::CpuOnly ? Residency::Device : Residency::Host;
}

RefineOps::Vectors::Vectors(const TileMatrix<double>& A, int64_t c, Residency r)
    : B0(A.runtime(), A.n(), c, A.nb(), r),
      R(A.runtime(), A.n(), c, A.nb(), r),
      Z(A.runtime(), A.n(), c, A.nb(), r),
      S(A.runtime(), 1, c, A.nb(), r) {}

RefineOps::RefineOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts,
                     const TileMatrix<double>* source, bool a_unordered, bool a_lower)
    : A_(A), B_(B), source_(source ? *source : B), a_unordered_(a_unordered), hi_(opts), lo_(opts), n_(A.n()),
      c_(B.n()) {
    hi_.factor = Precision::Native;
    if (lo_.factor == Precision::Auto) lo_.factor = Precision::Tf32;
    v_ = std::make_unique<Vectors>(A, c_, vector_residency(A.runtime(), opts.mapping));
    if (a_unordered_) {
        for (int64_t j = 0; j < A.nt(); ++j)
            for (int64_t i = a_lower ? j : 0; i < A.mt(); ++i) a_tiles_.push_back(A.tile(i, j));
        std::sort(a_tiles_.begin(), a_tiles_.end());
    }
}

RefineOps::~RefineOps() = default;

TaskOptions RefineOps::options(Sequence& seq) const {
    TaskOptions o = operation_task_options(A_.runtime(), hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    // After the first graph the submit form's gate holds A: read it outside its implicit dependencies.
    if (a_unordered_ && !first_) o.unordered_data = &a_tiles_;
    return o;
}

void RefineOps::submit_copy_b(const TaskOptions& o) {
    Runtime& rt = A_.runtime();
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, source_.tile(i, jc), v_->B0.tile(i, jc));
}

void RefineOps::b_host(std::vector<double>& b) const {
    b.resize(static_cast<size_t>(n_ * c_));
    v_->B0.export_to(b.data(), std::max<int64_t>(1, n_));
}

void RefineOps::residual(std::vector<double>& r, std::vector<double>& x) {
    Sequence seq(A_.runtime());
    submit_product(options(seq), &v_->B0, B_, v_->R);
    seq.wait();
    r.resize(static_cast<size_t>(n_ * c_));
    x.resize(static_cast<size_t>(n_ * c_));
    v_->R.export_to(r.data(), std::max<int64_t>(1, n_));
    B_.export_to(x.data(), std::max<int64_t>(1, n_));
}

void RefineOps::correct() {
    Sequence seq(A_.runtime());
    submit_precondition(options(seq), v_->R, v_->S, v_->Z, B_, true);  // X += M^-1 R
    seq.wait();  // (the next residual's graph could chain on it, but a Sequence's wait is what reports errors)
}

void RefineOps::restore_b() {
    Runtime& rt = A_.runtime();
    Sequence seq(rt);
    const TaskOptions o = options(seq);
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, v_->B0.tile(i, jc), B_.tile(i, jc));
    seq.wait();
}

}  // namespace starfact::detail
