// The C ABI's log-determinant: of a Cholesky factor (logdet), and of an SPD matrix factored first (potrf_logdet), as
// submit forms whose results reach the caller's doubles at the wait.
#include <limits>
#include <memory>
#include <type_traits>

#include "capi/plan.hpp"
#include "capi/tiles.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/logdet.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {
namespace {

/// The plan of the factorization of a `T` matrix of order n (potrf_logdet's; logdet's tiles take its tile size).
template <typename T>
Plan cholesky_plan(const Runtime& rt, int64_t n, const ParsedOptions& p, Residency where) {
    const int32_t dtype = std::is_same<T, float>::value ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
    return plan_of(Operation::Potrf, dtype, n, n, 0, p, where, Machine::of(rt));
}

/// Writes the result (NaN after a failure: info != 0) into the outputs given.
void deliver_logdet(const LogDet& result, int info, double* sign_out, double* logabsdet_out) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (sign_out) *sign_out = info == 0 ? result.sign : nan;
    if (logabsdet_out) *logabsdet_out = info == 0 ? result.logabsdet : nan;
}

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_logdet_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_options* options,
                             double* sign_out, double* logabsdet_out, starfact_c_job** job) {
    return submit("logdet", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const int64_t n = check_square("logdet", "l", l, rt);
        const ParsedOptions p = parse_options("logdet", options);
        const Residency where = residency_for(p, {l});
        dispatch(l->dtype, [&](auto tag) {
            using T = decltype(tag);
            auto L = argument_tiles<T>(rt, *l, Output{}, false, true, cholesky_plan<T>(rt, n, p, where).nb, where);
            auto result = std::make_shared<LogDet>();
            as_c_call("logdet", {{"L", "l"}}, [&] { async::logdet(L->tiles(), *j.sequence, *result, p.options); });
            j.finish = [L, result, sign_out, logabsdet_out](int info) {
                L->deliver(false);
                deliver_logdet(*result, info, sign_out, logabsdet_out);
                return info;
            };
        });
    });
}

int starfact_c_potrf_logdet_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a,
                                   const starfact_c_matrix* a_out, const starfact_c_options* options,
                                   double* sign_out, double* logabsdet_out, starfact_c_job** job) {
    return submit("potrf_logdet", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("potrf_logdet", rt, a, a_out, options);
        const Output out = c.a_out;
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            const Plan planned = cholesky_plan<T>(rt, c.n, c.p, c.where);
            auto A = argument_tiles<T>(rt, *a, out, true, true, planned.nb, c.where);
            auto result = std::make_shared<LogDet>();
            as_c_call("potrf_logdet", {{"A", "a"}, {"L", "a"}}, [&] {
                async::potrf(A->tiles(), *j.sequence, c.p.options, planned);
                async::logdet(A->tiles(), *j.sequence, *result, c.p.options);
            });
            // The sequence's info is the first nonzero in submission order: the factorization's when it failed.
            j.finish = [A, out, result, sign_out, logabsdet_out](int info) {
                A->deliver(true);
                settle(out);
                deliver_logdet(*result, info, sign_out, logabsdet_out);
                return info;
            };
        });
    });
}

}  // extern "C"
