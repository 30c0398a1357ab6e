// The vectors and the host-driven steps every refined solve shares (refine_ops.hpp): the residual, the correction
// through the low-precision factor, B's copies. The operator and preconditioner are the solve's own (MixedOps,
// LuRefineOps); the flexible GMRES over them is algorithms/mixed_gmres.cpp, the driver algorithms/refine_driver.cpp.
#include "algorithms/refine_ops.hpp"

#include <algorithm>
#include <complex>

#include "algorithms/dag.hpp"
#include "algorithms/mixed_tiles.hpp"
#include "codelets/mixed_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/sequence.hpp"

namespace starfact::detail {

Residency vector_residency(const Runtime& rt, Mapping mapping) {
    return rt.cuda_workers() > 0 && mapping != Mapping::CpuOnly ? Residency::Device : Residency::Host;
}

template <typename T>
RefineOps<T>::Vectors::Vectors(const TileMatrix<T>& A, int64_t c, Residency r)
    : B0(A.runtime(), A.n(), c, A.nb(), r),
      R(A.runtime(), A.n(), c, A.nb(), r),
      Z(A.runtime(), A.n(), c, A.nb(), r),
      S(A.runtime(), 1, c, A.nb(), r) {}

template <typename T>
RefineOps<T>::RefineOps(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, const TileMatrix<T>* source,
                        bool a_unordered, bool a_lower)
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

template <typename T>
RefineOps<T>::~RefineOps() = default;

template <typename T>
TaskOptions RefineOps<T>::options(Sequence& seq) const {
    TaskOptions o = operation_task_options(A_.runtime(), hi_, A_.nb(), nullptr, &SequenceAccess::state(seq));
    // After the first graph the submit form's gate holds A: read it outside its implicit dependencies.
    if (a_unordered_ && !first_) o.unordered_data = &a_tiles_;
    return o;
}

template <typename T>
void RefineOps<T>::submit_copy_b(const TaskOptions& o) {
    Runtime& rt = A_.runtime();
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, source_.tile(i, jc), v_->B0.tile(i, jc));
}

template <typename T>
void RefineOps<T>::b_host(std::vector<T>& b) const {
    b.resize(static_cast<size_t>(n_ * c_));
    v_->B0.export_to(b.data(), std::max<int64_t>(1, n_));
}

template <typename T>
void RefineOps<T>::residual(std::vector<T>& r, std::vector<T>& x) {
    Sequence seq(A_.runtime());
    submit_product(options(seq), &v_->B0, B_, v_->R);
    seq.wait();
    r.resize(static_cast<size_t>(n_ * c_));
    x.resize(static_cast<size_t>(n_ * c_));
    v_->R.export_to(r.data(), std::max<int64_t>(1, n_));
    B_.export_to(x.data(), std::max<int64_t>(1, n_));
}

template <typename T>
void RefineOps<T>::correct() {
    Sequence seq(A_.runtime());
    submit_precondition(options(seq), v_->R, v_->S, v_->Z, B_, true);  // X += M^-1 R
    seq.wait();  // (the next residual's graph could chain on it, but a Sequence's wait is what reports errors)
}

template <typename T>
void RefineOps<T>::restore_b() {
    Runtime& rt = A_.runtime();
    Sequence seq(rt);
    const TaskOptions o = options(seq);
    for (int64_t i = 0; i < A_.mt(); ++i)
        for (int64_t jc = 0; jc < B_.nt(); ++jc) insert_copy(rt, o, v_->B0.tile(i, jc), B_.tile(i, jc));
    seq.wait();
}

template class RefineOps<double>;
template class RefineOps<std::complex<double>>;

}  // namespace starfact::detail
