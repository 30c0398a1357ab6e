// The C ABI's Cholesky operations: potrf, potrs, posv (and the mixed-precision posv), potri, as submit forms.
#include <memory>

#include "capi/errors.hpp"
#include "capi/options.hpp"
#include "capi/runtime.hpp"
#include "capi/tiles.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/inverse.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {
namespace {

template <typename T>
int64_t cholesky_nb(const Runtime& rt, int64_t n, const ParsedOptions& p) {
    if (p.tiling.nb > 0) return p.tiling.nb;
    return tile_plan<T>(n, p.options.mapping, p.tiling.residency, rt.cuda_workers() > 0, rt.cuda_devices()).nb;
}

template <typename T>
bool mixed_solve(const Options& opts) {
    return sizeof(T) == sizeof(double) && opts.factor != Precision::Native && opts.factor != Precision::Fp64;
}

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_potrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return guarded([&] {
        const char* f = "potrf";
        require(job != nullptr, f, "job", "is null");
        *job = nullptr;
        Runtime& rt = runtime_of(runtime, f);
        const int64_t n = check_square(f, "a", a, rt);
        const Output out = output_like(f, "a_out", a_out, *a, "a", rt);
        const ParsedOptions p = parse_options(f, options);
        auto j = new_job(rt);
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            auto A = tiles_of<T>(rt, *a, cholesky_nb<T>(rt, n, p), p.tiling.residency);
            async::potrf(*A, *j->sequence, p.options);
            j->finish = [A, out](int info) {
                copy_out(*A, out);
                settle(out);
                return info;
            };
        });
        *job = j.release();
    });
}

int starfact_c_potrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_matrix* b,
                            const starfact_c_matrix* b_out, const starfact_c_options* options, starfact_c_job** job) {
    return guarded([&] {
        const char* f = "potrs";
        require(job != nullptr, f, "job", "is null");
        *job = nullptr;
        Runtime& rt = runtime_of(runtime, f);
        const int64_t n = check_square(f, "c", l, rt);
        check_right_hand_sides(f, b, n, l->dtype, "c", rt);
        const Output out = output_like(f, "b_out", b_out, *b, "b", rt);
        const ParsedOptions p = parse_options(f, options);
        auto j = new_job(rt);
        dispatch(l->dtype, [&](auto tag) {
            using T = decltype(tag);
            const int64_t nb = cholesky_nb<T>(rt, n, p);
            auto L = tiles_of<T>(rt, *l, nb, p.tiling.residency);
            auto B = tiles_of<T>(rt, *b, nb, p.tiling.residency);
            async::potrs(*L, *B, *j->sequence, p.options);
            j->finish = [L, B, out](int info) {
                copy_out(*B, out);
                settle(out);
                return info;
            };
        });
        *job = j.release();
    });
}

int starfact_c_posv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           const starfact_c_refinement* refinement, starfact_c_job** job) {
    return guarded([&] {
        const char* f = "posv";
        require(job != nullptr, f, "job", "is null");
        *job = nullptr;
        Runtime& rt = runtime_of(runtime, f);
        const int64_t n = check_square(f, "a", a, rt);
        check_right_hand_sides(f, b, n, a->dtype, "a", rt);
        const Output aout = output_like(f, "a_out", a_out, *a, "a", rt);
        const Output bout = output_like(f, "b_out", b_out, *b, "b", rt);
        const ParsedOptions p = parse_options(f, options);
        const Refinement refine = parse_refinement(refinement);
        auto j = new_job(rt);
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            if (refinement != nullptr || mixed_solve<T>(p.options)) {
                // The solve with a report (mixed.hpp; refined when the factor is lower): its own tile size; A's tiles
                // hold A unchanged unless it fell back to the double factorization, as the array form says.
                const int64_t nb = p.tiling.nb > 0 ? p.tiling.nb
                                                   : mixed_tile_size(n, p.options.mapping, rt.cuda_workers() > 0,
                                                                     p.options.factor);
                auto A = tiles_of<T>(rt, *a, nb, p.tiling.residency);
                auto B = tiles_of<T>(rt, *b, nb, p.tiling.residency);
                j->has_report = true;
                SolveReport* report = &j->report;
                const bool same = aout.present && aout.matrix.data == a->data;
                async::posv(*A, *B, *j->sequence, p.options, *report, refine);
                j->finish = [A, B, aout, bout, report, same](int info) {
                    const SolveReport::Path path = report->path;
                    if (!same || path == SolveReport::Path::Fallback || path == SolveReport::Path::Failed ||
                        path == SolveReport::Path::Direct)
                        copy_out(*A, aout);
                    if (info == 0 && path != SolveReport::Path::Failed) copy_out(*B, bout);
                    settle(aout, bout);
                    return info;
                };
                return;
            }
            const int64_t nb = cholesky_nb<T>(rt, n, p);
            auto A = tiles_of<T>(rt, *a, nb, p.tiling.residency);
            auto B = tiles_of<T>(rt, *b, nb, p.tiling.residency);
            async::posv(*A, *B, *j->sequence, p.options);
            j->finish = [A, B, aout, bout](int info) {
                copy_out(*A, aout);
                if (info == 0) copy_out(*B, bout);
                settle(aout, bout);
                return info;
            };
        });
        *job = j.release();
    });
}

int starfact_c_potri_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return guarded([&] {
        const char* f = "potri";
        require(job != nullptr, f, "job", "is null");
        *job = nullptr;
        Runtime& rt = runtime_of(runtime, f);
        const int64_t n = check_square(f, "a", a, rt);
        const Output out = output_like(f, "a_out", a_out, *a, "a", rt);
        const ParsedOptions p = parse_options(f, options);
        auto j = new_job(rt);
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            const int64_t nb = p.tiling.nb > 0 ? p.tiling.nb
                                               : potri_tile_plan<T>(n, p.options.mapping, p.tiling.residency,
                                                                    rt.cuda_workers() > 0).nb;
            auto A = tiles_of<T>(rt, *a, nb, p.tiling.residency);
            async::potri(*A, *j->sequence, p.options);
            j->finish = [A, out](int info) {
                copy_out(*A, out);
                settle(out);
                return info;
            };
        });
        *job = j.release();
    });
}

}  // extern "C"
