// The C ABI's Cholesky operations: potrf, potrs, posv (and the mixed-precision posv), potri, as submit forms; potrf,
// potrs, posv and potri of complex Hermitian matrices too.
#include <complex>
#include <memory>
#include <type_traits>

#include "capi/plan.hpp"
#include "capi/tiles.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/inverse.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {
namespace {

template <typename T>
constexpr int32_t dtype_of() {
    return std::is_same<T, float>::value ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
}

/// The call's plan (its one): `op` on a `T` matrix of order n with nrhs right-hand sides, tiles living `where`.
template <typename T>
Plan cholesky_plan(const Runtime& rt, Operation op, int64_t n, int64_t nrhs, const ParsedOptions& p, Residency where) {
    return plan_of(op, dtype_of<T>(), n, n, nrhs, p, where, Machine::of(rt));
}

template <typename T>
bool mixed_solve(const Options& opts) {
    return std::is_same<T, double>::value && refines_double(opts.factor);
}

// Complex Hermitian matrices (cholesky_complex.hpp): planned here as real ones are, then submitted with that plan by
// the complex async:: forms into the job's sequence, on tiles of the plan's size and residency, their tasks on the
// plan's task mapping; the job's wait delivers the results and gives the info as for real matrices.

/// The C names of the complex forms' arguments.
constexpr CName kComplexNames[] = {{"A", "a"}, {"L", "l"}, {"B", "b"}, {"opts.mapping", "mapping"}};

/// Runs body(T{}) with T the complex type of `dtype`, as the C ABI's `function`: the C++ API's errors (the plan's, the
/// complex forms') in the C ABI's names.
template <typename Body>
void complex_call(const char* function, int32_t dtype, Body&& body) {
    as_c_call(function, kComplexNames, [&] { dispatch_complex(dtype, body); });
}

template <typename T>
void complex_potrf(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const Call& c) {
    const Plan planned = plan_of(Operation::Potrf, a.dtype, c.n, c.n, 0, c.p, c.where, Machine::of(rt));
    const Output out = c.a_out;
    auto A = argument_tiles<T>(rt, a, out, true, true, planned.nb, planned.residency);
    async::potrf(A->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [A, out](int info) {
        A->deliver(true);
        settle(out);
        return info;
    };
}

template <typename T>
void complex_potrs(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& l, const starfact_c_matrix& b,
                   const Call& c) {
    const Plan planned = plan_of(Operation::Potrs, l.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt));
    const Output out = c.b_out;
    auto L = argument_tiles<T>(rt, l, Output{}, false, true, planned.nb, planned.residency);
    auto B = argument_tiles<T>(rt, b, out, true, false, planned.nb, planned.residency, {&l});
    async::potrs(L->tiles(), B->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [L, B, out](int info) {
        L->deliver(false);
        B->deliver(true);
        settle(out);
        return info;
    };
}

/// posv of a complex Hermitian a; with a refinement (not null) or factor fp32/tf32 on complex128, the mixed-precision
/// solve (mixed.hpp: a complex64 factor refined to complex128 accuracy), which reports what it did as the real one.
template <typename T>
void complex_posv(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const starfact_c_matrix& b,
                  const starfact_c_matrix* a_out, const starfact_c_matrix* b_out, const Call& c,
                  const starfact_c_refinement* refinement) {
    const bool double_complex = std::is_same<T, std::complex<double>>::value;
    require(refinement == nullptr || double_complex, "posv", "refinement",
            "applies to the mixed-precision solve, which complex64 matrices do not have (complex128: factor fp32 or "
            "tf32)");
    const Refinement refine = parse_refinement(refinement);
    const bool mixed = double_complex && (refinement != nullptr || refines_complex_double(c.p.options.factor));
    const Plan planned =
        plan_of(Operation::Posv, a.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt), mixed && refine.always_low);
    const Output aout = c.a_out, bout = c.b_out;
    auto A = argument_tiles<T>(rt, a, aout, true, true, planned.nb, planned.residency, {&b, b_out});
    auto B = argument_tiles<T>(rt, b, bout, true, false, planned.nb, planned.residency, {&a, a_out});
    if (mixed) {  // as the real mixed solve: A's tiles hold A unchanged unless it fell back (or ran directly)
        j.has_report = true;
        SolveReport* report = &j.report;
        const bool same = aout.present && aout.matrix.data == a.data;
        as_c_call("posv", {{"A", "a"}, {"B", "b"}}, [&] {
            async::posv(A->tiles(), B->tiles(), *j.sequence, c.p.options, *report, refine, planned);
        });
        j.finish = [A, B, aout, bout, report, same](int info) {
            const SolveReport::Path path = report->path;
            A->deliver(!same || path == SolveReport::Path::Fallback || path == SolveReport::Path::Failed ||
                       path == SolveReport::Path::Direct);
            B->deliver(info == 0 && path != SolveReport::Path::Failed);
            settle(aout, bout);
            return info;
        };
        return;
    }
    async::posv(A->tiles(), B->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [A, B, aout, bout](int info) {
        A->deliver(true);
        B->deliver(info == 0);
        settle(aout, bout);
        return info;
    };
}

/// potri of a on T tiles (any of the four element types): planned from the arrays, the plan handed to async::potri.
template <typename T>
void potri_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const Call& c) {
    const Plan planned = plan_of(Operation::Potri, a.dtype, c.n, c.n, 0, c.p, c.where, Machine::of(rt));
    const Output out = c.a_out;
    auto A = argument_tiles<T>(rt, a, out, true, true, planned.nb, c.where);
    async::potri(A->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [A, out](int info) {
        A->deliver(true);
        settle(out);
        return info;
    };
}

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_potrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return submit("potrf", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potrf", rt, a, a_out, options, Elements::RealOrComplex);
        if (is_complex_dtype(a->dtype))
            return complex_call("potrf", a->dtype, [&](auto tag) { complex_potrf<decltype(tag)>(rt, j, *a, c); });
        const Output out = c.a_out;
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            const Plan planned = cholesky_plan<T>(rt, Operation::Potrf, c.n, 0, c.p, c.where);
            auto A = argument_tiles<T>(rt, *a, out, true, true, planned.nb, c.where);
            async::potrf(A->tiles(), *j.sequence, c.p.options, planned);
            j.finish = [A, out](int info) {
                A->deliver(true);
                settle(out);
                return info;
            };
        });
    });
}

int starfact_c_potrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_matrix* b,
                            const starfact_c_matrix* b_out, const starfact_c_options* options, starfact_c_job** job) {
    return submit("potrs", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potrs", rt, "l", l, nullptr, b, b_out, options, Elements::RealOrComplex);
        if (is_complex_dtype(l->dtype))
            return complex_call("potrs", l->dtype, [&](auto tag) { complex_potrs<decltype(tag)>(rt, j, *l, *b, c); });
        const Output out = c.b_out;
        dispatch(l->dtype, [&](auto tag) {
            using T = decltype(tag);
            const Plan planned = cholesky_plan<T>(rt, Operation::Potrs, c.n, b->cols, c.p, c.where);
            auto L = argument_tiles<T>(rt, *l, Output{}, false, true, planned.nb, c.where);
            auto B = argument_tiles<T>(rt, *b, out, true, false, planned.nb, c.where, {l});
            async::potrs(L->tiles(), B->tiles(), *j.sequence, c.p.options, planned);
            j.finish = [L, B, out](int info) {
                L->deliver(false);
                B->deliver(true);
                settle(out);
                return info;
            };
        });
    });
}

int starfact_c_posv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           const starfact_c_refinement* refinement, starfact_c_job** job) {
    return submit("posv", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("posv", rt, "a", a, a_out, b, b_out, options, Elements::RealOrComplex);
        if (is_complex_dtype(a->dtype))
            return complex_call("posv", a->dtype, [&](auto tag) {
                complex_posv<decltype(tag)>(rt, j, *a, *b, a_out, b_out, c, refinement);
            });
        const Output aout = c.a_out, bout = c.b_out;
        const ParsedOptions& p = c.p;
        const int64_t n = c.n;
        const Residency where = c.where;
        const Refinement refine = parse_refinement(refinement);
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            const bool mixed = refinement != nullptr || mixed_solve<T>(p.options);
            const Plan planned =
                plan_of(Operation::Posv, a->dtype, n, n, b->cols, p, where, Machine::of(rt), refine.always_low);
            auto A = argument_tiles<T>(rt, *a, aout, true, true, planned.nb, where, {b, b_out});
            auto B = argument_tiles<T>(rt, *b, bout, true, false, planned.nb, where, {a, a_out});
            if (!mixed) {
                async::posv(A->tiles(), B->tiles(), *j.sequence, p.options, planned);
                j.finish = [A, B, aout, bout](int info) {
                    A->deliver(true);
                    B->deliver(info == 0);
                    settle(aout, bout);
                    return info;
                };
                return;
            }
            // A's tiles hold A unchanged unless the solve fell back to the double factorization (or ran it
            // directly), as the array form says: an in-place copy need not go back then.
            j.has_report = true;
            SolveReport* report = &j.report;
            const bool same = aout.present && aout.matrix.data == a->data;
            // The refinement settings are checked here: named by their fields (max_iterations, tolerance, ...).
            as_c_call("posv", {{"A", "a"}, {"B", "b"}}, [&] {
                async::posv(A->tiles(), B->tiles(), *j.sequence, p.options, *report, refine, planned);
            });
            j.finish = [A, B, aout, bout, report, same](int info) {
                const SolveReport::Path path = report->path;
                A->deliver(!same || path == SolveReport::Path::Fallback || path == SolveReport::Path::Failed ||
                           path == SolveReport::Path::Direct);
                B->deliver(info == 0 && path != SolveReport::Path::Failed);
                settle(aout, bout);
                return info;
            };
        });
    });
}

int starfact_c_potri_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return submit("potri", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potri", rt, a, a_out, options, Elements::RealOrComplex);
        if (is_complex_dtype(a->dtype))
            return complex_call("potri", a->dtype, [&](auto tag) { potri_on<decltype(tag)>(rt, j, *a, c); });
        dispatch(a->dtype, [&](auto tag) { potri_on<decltype(tag)>(rt, j, *a, c); });
    });
}

}  // extern "C"
