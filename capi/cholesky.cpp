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

/// Whether a posv of T matrices with these options is the mixed-precision solve (mixed.hpp): double refined from a
/// float factor, complex128 from a complex64 one.
template <typename T>
bool mixed_solve(const Options& opts) {
    if (std::is_same<T, double>::value) return refines_double(opts.factor);
    if (std::is_same<T, std::complex<double>>::value) return refines_complex_double(opts.factor);
    return false;
}

// Every element type takes the same path: planned here from the arrays (the one planning entry), the plan handed to
// the async:: form of T (cholesky.hpp, cholesky_complex.hpp, inverse.hpp), which submits into the job's sequence on
// tiles of the plan's size; the job's wait delivers the results and gives the info.

/// The C names of the complex forms' arguments.
constexpr CName kComplexNames[] = {{"A", "a"}, {"L", "l"}, {"B", "b"}, {"opts.mapping", "mapping"}};

template <typename T>
void potrf_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const Call& c) {
    const Plan planned = plan_of(Operation::Potrf, a.dtype, c.n, c.n, 0, c.p, c.where, Machine::of(rt));
    const Output out = c.a_out;
    auto A = argument_tiles<T>(rt, a, out, true, true, planned.nb, c.where);
    async::potrf(A->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [A, out](int info) {
        A->deliver(true);
        settle(out);
        return info;
    };
}

template <typename T>
void potrs_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& l, const starfact_c_matrix& b, const Call& c) {
    const Plan planned = plan_of(Operation::Potrs, l.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt));
    const Output out = c.b_out;
    auto L = argument_tiles<T>(rt, l, Output{}, false, true, planned.nb, c.where);
    auto B = argument_tiles<T>(rt, b, out, true, false, planned.nb, c.where, {&l});
    async::potrs(L->tiles(), B->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [L, B, out](int info) {
        L->deliver(false);
        B->deliver(true);
        settle(out);
        return info;
    };
}

/// posv of a on T tiles; with a refinement (not null) or a lower factor precision, the mixed-precision solve
/// (mixed.hpp: double from a float factor, complex128 from a complex64 one), which reports what it did.
template <typename T>
void posv_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const starfact_c_matrix& b,
             const starfact_c_matrix* a_out, const starfact_c_matrix* b_out, const Call& c,
             const starfact_c_refinement* refinement) {
    require(refinement == nullptr || !std::is_same<T, std::complex<float>>::value, "posv", "refinement",
            "applies to the mixed-precision solve, which complex64 matrices do not have (complex128: factor fp32 or "
            "tf32)");
    const Refinement refine = parse_refinement(refinement);
    const bool mixed = refinement != nullptr || mixed_solve<T>(c.p.options);
    const Plan planned =
        plan_of(Operation::Posv, a.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt), refine.always_low);
    const Output aout = c.a_out, bout = c.b_out;
    auto A = argument_tiles<T>(rt, a, aout, true, true, planned.nb, c.where, {&b, b_out});
    auto B = argument_tiles<T>(rt, b, bout, true, false, planned.nb, c.where, {&a, a_out});
    if (!mixed) {
        async::posv(A->tiles(), B->tiles(), *j.sequence, c.p.options, planned);
        j.finish = [A, B, aout, bout](int info) {
            A->deliver(true);
            B->deliver(info == 0);
            settle(aout, bout);
            return info;
        };
        return;
    }
    // A's tiles hold A unchanged unless the solve fell back to the factorization in A's precision (or ran it
    // directly), as the array form says: an in-place copy need not go back then.
    j.has_report = true;
    SolveReport* report = &j.report;
    const bool same = aout.present && aout.matrix.data == a.data;
    // The refinement settings are checked here: named by their fields (max_iterations, tolerance, ...).
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
}

/// potri of a on T tiles.
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
        dispatch_element("potrf", kComplexNames, a->dtype, [&](auto tag) { potrf_on<decltype(tag)>(rt, j, *a, c); });
    });
}

int starfact_c_potrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_matrix* b,
                            const starfact_c_matrix* b_out, const starfact_c_options* options, starfact_c_job** job) {
    return submit("potrs", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potrs", rt, "l", l, nullptr, b, b_out, options, Elements::RealOrComplex);
        dispatch_element("potrs", kComplexNames, l->dtype,
                         [&](auto tag) { potrs_on<decltype(tag)>(rt, j, *l, *b, c); });
    });
}

int starfact_c_posv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           const starfact_c_refinement* refinement, starfact_c_job** job) {
    return submit("posv", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("posv", rt, "a", a, a_out, b, b_out, options, Elements::RealOrComplex);
        dispatch_element("posv", kComplexNames, a->dtype,
                         [&](auto tag) { posv_on<decltype(tag)>(rt, j, *a, *b, a_out, b_out, c, refinement); });
    });
}

int starfact_c_potri_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return submit("potri", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potri", rt, a, a_out, options, Elements::RealOrComplex);
        dispatch_element("potri", kComplexNames, a->dtype, [&](auto tag) { potri_on<decltype(tag)>(rt, j, *a, c); });
    });
}

}  // extern "C"
