// The submit form of the mixed-precision solve (async::posv with a lower factor, mixed.hpp). Its refinement decides
// on the host, between task graphs, what to submit next, so the solve cannot be one graph submitted at once. Here:
//
//   caller's thread:  the first graph (scaling, F = float(D A D), potrf(F), X0), reading A and B in their order;
//                     a gate on every tile of A and B (runtime/gate.hpp): what the caller submits on them later
//                     waits for the gate; then a driver thread is started, and the call returns.
//   driver thread:    the refinement (refine_solution) on the solve's own tiles, its products with A outside A's
//                     implicit dependencies (A is held by the gate); X copied into B (and, after a fallback on a
//                     private copy of A, the double factor into A) the same way, the solve's own tiles in order; the operation's info set; the
//                     solve's tiles given back; the gate released.
//
// The gate belongs to the caller's Sequence, so that wait() returns once the driver is done, with the report
// filled. An error in the driver is thrown by that wait(). The same for the Hermitian solve (complex<double> A with a
// complex<float> factor: ComplexMixedOps).
#include <algorithm>
#include <chrono>
#include <complex>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/mixed_complex_ops.hpp"
#include "algorithms/mixed_ops.hpp"
#include "algorithms/planned.hpp"
#include "codelets/codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/scalar.hpp"
#include "runtime/gate.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"

namespace starfact {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

/// The operator and preconditioner of a refined solve of T (double: the SPD solve's; complex<double>: the Hermitian).
template <typename T>
using OpsOf = std::conditional_t<is_complex_v<T>, ComplexMixedOps, MixedOps>;

/// One submitted solve: what its driver thread works on. Members are destroyed in reverse order: the gate is
/// released first if the job dies before its driver ran (a failed submission).
template <typename T>
struct MixedSolveJob {
    TileMatrix<T>& A;
    TileMatrix<T>& B;
    Options opts;
    Refinement refine;
    SolveReport own_report;
    SolveReport* report;
    SequenceState& caller;
    starpu_data_handle_t info = nullptr;
    Clock::time_point t0;
    std::unique_ptr<TileMatrix<T>> X;  // the solution, private to the solve
    std::unique_ptr<OpsOf<T>> ops;
    std::unique_ptr<Sequence> first;        // the first graph's
    std::vector<starpu_data_handle_t> held;  // A's and B's tiles, sorted: the gate holds them
    int low_op = 0;
    std::unique_ptr<Gate> gate;

    MixedSolveJob(TileMatrix<T>& a, TileMatrix<T>& b, const Options& o, const Refinement& r, SolveReport* rep,
                  SequenceState& seq)
        : A(a), B(b), opts(o), refine(r), report(rep ? rep : &own_report), caller(seq) {}
};

/// Y := X tile by tile (the lower tiles when `lower`): the caller's tiles among them (`held`, sorted: A's and B's,
/// which the gate holds) outside their implicit dependencies, the solve's own in order. The driver orders the copies
/// against the caller's work: everything before is complete, the gate holds back what comes after.
template <typename T>
void copy_held(const TileMatrix<T>& X, TileMatrix<T>& Y, bool lower,
               const std::vector<starpu_data_handle_t>& held) {
    Runtime& rt = Y.runtime();
    Sequence seq(rt);
    TaskOptions o = operation_task_options(rt, Options{}, Y.nb(), nullptr, &SequenceAccess::state(seq));
    o.unordered_data = &held;
    for (int64_t j = 0; j < Y.nt(); ++j)
        for (int64_t i = lower ? j : 0; i < Y.mt(); ++i) insert_copy(rt, o, X.tile(i, j), Y.tile(i, j));
    seq.wait();
}

void set_info(starpu_data_handle_t h, int info) {
    if (starpu_data_acquire(h, STARPU_W) != 0) throw RuntimeError("starfact: async::posv could not set its info");
    *static_cast<int*>(starpu_data_get_local_ptr(h)) = info;
    starpu_data_release(h);
}

/// The driver thread: everything after the first graph.
template <typename T>
void drive(MixedSolveJob<T>* raw) {
    std::unique_ptr<MixedSolveJob<T>> job(raw);
    SolveReport& report = *job->report;
    try {
        job->first->wait();
        OpsOf<T>& ops = *job->ops;
        const int low_info = ops.finish_factor(*job->first, job->low_op);
        report.factor_seconds = std::chrono::duration<double>(Clock::now() - job->t0).count();
        int info = 0;
        switch (refine_mixed(ops, low_info, job->refine, job->opts.factor, report, "async::posv")) {
            case MixedOutcome::Solved: copy_held(*job->X, job->B, false, job->held); break;
            case MixedOutcome::Failed: break;  // B as it was
            case MixedOutcome::Fallback: {
                // The double factorization on a copy of A (A's own tiles are behind the gate), then both back.
                const std::unique_ptr<TileMatrix<T>> Aw =
                    private_lower<T>(job->A, vector_residency(job->A.runtime(), job->opts.mapping));
                copy_held(job->A, *Aw, true, job->held);
                ops.restore_b();
                Options hi = job->opts;
                hi.factor = Precision::Native;
                info = posv(*Aw, *job->X, hi);
                if (info > 0) report.path = SolveReport::Path::Failed;
                copy_held(*Aw, job->A, true, job->held);
                if (info == 0) copy_held(*job->X, job->B, false, job->held);
                break;
            }
        }
        set_info(job->info, info);
    } catch (...) {
        job->caller.fail(std::current_exception());
    }
    report.seconds = std::chrono::duration<double>(Clock::now() - job->t0).count();
    // The solve's tiles go back to StarPU before the gate opens: once it does, the caller's wait() (or the
    // Runtime's destructor) may return.
    job->ops.reset();
    job->X.reset();
    job->first.reset();
    job->gate->release();
}

}  // namespace

template <typename T>
int submit_posv_mixed(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport* report,
                      const Refinement& refine, const Plan& plan) {
    require_factor_precision<T>("async::posv", opts.factor, true);
    require_mixed_solve("async::posv", A, B, opts, refine);
    SequenceState& caller = SequenceAccess::state(seq);
    auto job = std::make_unique<MixedSolveJob<T>>(A, B, opts, refine, report, caller);
    *job->report = SolveReport{};
    job->report->factor = opts.factor;
    job->t0 = Clock::now();
    const int op = caller.add_operation(&job->info);
    const int64_t n = A.n(), c = B.n();
    if (n == 0 || c == 0) {
        job->report->path = SolveReport::Path::Refined;
        return op;
    }
    Runtime& rt = A.runtime();
    job->X = std::make_unique<TileMatrix<T>>(rt, n, c, B.nb(), vector_residency(rt, opts.mapping));
    job->ops = std::make_unique<OpsOf<T>>(A, *job->X, opts, plan, &B, true);
    if constexpr (!is_complex_v<T>) job->ops->set_tile_tolerance(refine.tile_tolerance);
    job->first = std::make_unique<Sequence>(rt);
    SolveReport& rep = *job->report;
    rep.tolerance = mixed_tolerance(refine, n);
    rep.shift = first_shift(refine, opts.factor);
    rep.factorizations = 1;
    job->low_op = job->ops->submit_factor(*job->first, rep.shift);
    std::vector<starpu_data_handle_t>& held = job->held;
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = j; i < A.mt(); ++i) held.push_back(A.tile(i, j));
    for (int64_t j = 0; j < B.nt(); ++j)
        for (int64_t i = 0; i < B.mt(); ++i) held.push_back(B.tile(i, j));
    job->gate = std::make_unique<Gate>(rt, caller, held);
    std::sort(held.begin(), held.end());
    MixedSolveJob<T>* raw = job.get();
    std::thread(drive<T>, raw).detach();  // throws std::system_error when no thread can start: job releases the gate
    job.release();                     // the driver owns it now
    return op;
}
template int submit_posv_mixed<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&,
                                       SolveReport*, const Refinement&, const Plan&);
template int submit_posv_mixed<std::complex<double>>(TileMatrix<std::complex<double>>&,
                                                     TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                     SolveReport*, const Refinement&, const Plan&);

namespace {
/// The plain async::posv of T with the call's plan (the complex forms take the plan's task mapping).
template <typename T>
int submit_posv_direct(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    if constexpr (is_complex_v<T>) {
        Options o = opts;
        o.mapping = plan.task_mapping;
        return async::posv(A, B, seq, o);
    } else {
        return async::posv(A, B, seq, opts, plan);
    }
}

/// async::posv with a report, with the call's plan.
template <typename T>
int submit_posv_reported(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                         SolveReport& report, const Refinement& refine, const Plan& plan) {
    require_factor_precision<T>("async::posv", opts.factor, true);
    report = SolveReport{};
    report.factor = opts.factor;
    if constexpr (is_double_v<T>) {  // double, or complex<double>
        if (lower_factor<T>(opts.factor)) {
            require_mixed_solve("async::posv", A, B, opts, refine);
            if (low_factor_planned(plan, opts, report))
                return submit_posv_mixed(A, B, seq, opts, &report, refine, plan);
            Options hi = opts;  // the plan runs the double path here; the report says so
            hi.factor = Precision::Native;
            return submit_posv_direct(A, B, seq, hi, plan);
        }
    }
    report.path = SolveReport::Path::Direct;  // its info comes from seq.info(op) after wait()
    return submit_posv_direct(A, B, seq, opts, plan);
}
}  // namespace
}  // namespace detail

namespace async {

template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport& report,
         const Refinement& refine) {
    return detail::submit_posv_reported(A, B, seq, opts, report, refine,
                                        detail::plan_tiles(Operation::Posv, A, opts, B.n(), refine.always_low));
}
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport& report,
         const Refinement& refine, const Plan& plan) {
    detail::require_plan("posv", plan, Operation::Posv, A, opts, B.n());
    return detail::submit_posv_reported(A, B, seq, opts, report, refine, plan);
}

template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, SolveReport&,
                         const Refinement&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&, SolveReport&,
                          const Refinement&);
template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, SolveReport&,
                         const Refinement&, const Plan&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&, SolveReport&,
                          const Refinement&, const Plan&);
template int posv<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&, Sequence&,
                                       const Options&, SolveReport&, const Refinement&);
template int posv<std::complex<double>>(TileMatrix<std::complex<double>>&, TileMatrix<std::complex<double>>&,
                                        Sequence&, const Options&, SolveReport&, const Refinement&);
template int posv<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&, Sequence&,
                                       const Options&, SolveReport&, const Refinement&, const Plan&);
template int posv<std::complex<double>>(TileMatrix<std::complex<double>>&, TileMatrix<std::complex<double>>&,
                                        Sequence&, const Options&, SolveReport&, const Refinement&, const Plan&);

}  // namespace async
}  // namespace starfact
