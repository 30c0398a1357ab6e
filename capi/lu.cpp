// The C ABI's LU operations: getrf, getrs, gesv, as submit forms, with LAPACK's 1-based pivots; of complex matrices
// too.
#include <starpu.h>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "capi/plan.hpp"
#include "capi/tiles.hpp"
#include "starfact/lu.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {
namespace {

/// Writes LAPACK's 1-based ipiv (n entries, each in [i + 1, n] for entry i) into the pivots of the tile steps.
void load_pivots(const char* function, Pivots& piv, const int64_t* ipiv) {
    const int64_t n = piv.n(), nb = piv.nb();
    require(ipiv != nullptr || n == 0, function, "ipiv", "is null");
    for (int64_t i = 0; i < n; ++i)
        require(ipiv[i] >= i + 1 && ipiv[i] <= n, function, "ipiv", [&] {
            return "must hold LAPACK's 1-based pivots, entry i (0-based) in [i + 1, n], but entry " +
                   std::to_string(i) + " is " + std::to_string(ipiv[i]) + " (n = " + std::to_string(n) + ")";
        });
    for (int64_t k = 0; k < piv.steps(); ++k) {
        starpu_data_handle_t h = piv.step(k);
        starpu_data_acquire(h, STARPU_W);
        int* p = reinterpret_cast<int*>(starpu_vector_get_local_ptr(h));
        const int64_t count = static_cast<int64_t>(starpu_vector_get_nx(h));
        for (int64_t i = 0; i < count; ++i) p[i] = static_cast<int>(ipiv[k * nb + i]);
        starpu_data_release(h);
    }
}

/// Copies the pivots of a completed factorization into ipiv_out (n entries), if given.
void copy_pivots(const Pivots& piv, int64_t* ipiv_out) {
    if (!ipiv_out) return;
    const std::vector<int64_t> ipiv = piv.ipiv();
    std::copy(ipiv.begin(), ipiv.end(), ipiv_out);
}

// Every element type takes the same path: planned here from the arrays (the one planning entry), the plan handed to
// the async:: form of T (lu.hpp, lu_complex.hpp), which submits into the job's sequence on tiles of the plan's size;
// the job's wait delivers the results and gives the info.

/// The C names of the complex forms' arguments.
constexpr CName kComplexNames[] = {{"A", "a"}, {"B", "b"}, {"piv", "ipiv"}, {"opts.mapping", "mapping"}};

template <typename T>
void getrf_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, int64_t* ipiv_out, const Call& c) {
    const Plan planned = plan_of(Operation::Getrf, a.dtype, c.n, c.n, 0, c.p, c.where, Machine::of(rt));
    const Output out = c.a_out;
    auto A = argument_tiles<T>(rt, a, out, true, false, planned.nb, c.where);
    auto piv = std::make_shared<Pivots>(A->tiles());
    async::getrf(A->tiles(), *piv, *j.sequence, c.p.options, planned);
    j.finish = [A, piv, out, ipiv_out](int info) {
        A->deliver(true);
        copy_pivots(*piv, ipiv_out);
        settle(out);
        return info;
    };
}

template <typename T>
void getrs_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& lu, const int64_t* ipiv,
              const starfact_c_matrix& b, const Call& c) {
    const Plan planned = plan_of(Operation::Getrs, lu.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt));
    const int64_t nb = planned.nb;
    auto piv = std::make_shared<Pivots>(rt, c.n, std::max<int64_t>(1, nb));
    load_pivots("getrs", *piv, ipiv);
    const Output out = c.b_out;
    auto LU = argument_tiles<T>(rt, lu, Output{}, false, false, nb, c.where);
    auto B = argument_tiles<T>(rt, b, out, true, false, nb, c.where, {&lu});
    async::getrs(LU->tiles(), *piv, B->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [LU, piv, B, out](int info) {
        LU->deliver(false);
        B->deliver(true);
        settle(out);
        return info;
    };
}

template <typename T>
void gesv_on(Runtime& rt, starfact_c_job& j, const starfact_c_matrix& a, const starfact_c_matrix* a_out,
             int64_t* ipiv_out, const starfact_c_matrix& b, const starfact_c_matrix* b_out, const Call& c) {
    const Plan planned = plan_of(Operation::Gesv, a.dtype, c.n, c.n, b.cols, c.p, c.where, Machine::of(rt));
    const Output aout = c.a_out, bout = c.b_out;
    auto A = argument_tiles<T>(rt, a, aout, true, false, planned.nb, c.where, {&b, b_out});
    auto B = argument_tiles<T>(rt, b, bout, true, false, planned.nb, c.where, {&a, a_out});
    auto piv = std::make_shared<Pivots>(A->tiles());
    async::gesv(A->tiles(), *piv, B->tiles(), *j.sequence, c.p.options, planned);
    j.finish = [A, B, piv, aout, bout, ipiv_out](int info) {
        A->deliver(true);
        copy_pivots(*piv, ipiv_out);
        B->deliver(info == 0);
        settle(aout, bout);
        return info;
    };
}

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_getrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            int64_t* ipiv_out, const starfact_c_options* options, starfact_c_job** job) {
    return submit("getrf", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("getrf", rt, a, a_out, options, Elements::RealOrComplex);
        dispatch_element("getrf", kComplexNames, a->dtype,
                         [&](auto tag) { getrf_on<decltype(tag)>(rt, j, *a, ipiv_out, c); });
    });
}

int starfact_c_getrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* lu, const int64_t* ipiv,
                            const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return submit("getrs", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("getrs", rt, "lu", lu, nullptr, b, b_out, options, Elements::RealOrComplex);
        dispatch_element("getrs", kComplexNames, lu->dtype,
                         [&](auto tag) { getrs_on<decltype(tag)>(rt, j, *lu, ipiv, *b, c); });
    });
}

int starfact_c_gesv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           int64_t* ipiv_out, const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                           const starfact_c_options* options, starfact_c_job** job) {
    return submit("gesv", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        const Call c = checked_call("gesv", rt, "a", a, a_out, b, b_out, options, Elements::RealOrComplex);
        dispatch_element("gesv", kComplexNames, a->dtype,
                         [&](auto tag) { gesv_on<decltype(tag)>(rt, j, *a, a_out, ipiv_out, *b, b_out, c); });
    });
}

}  // extern "C"
