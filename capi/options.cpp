// Options, refinement settings and the solve report of the C ABI.
#include "capi/options.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "capi/errors.hpp"
#include "starfact/error.hpp"

namespace starfact::capi {
namespace {

bool given(const char* text) { return text != nullptr && text[0] != '\0'; }

void copy_name(char (&dst)[16], const char* name) {
    std::strncpy(dst, name, sizeof dst - 1);
    dst[sizeof dst - 1] = '\0';
}

}  // namespace

ParsedOptions parse_options(const char* function, const starfact_c_options* o) {
    ParsedOptions p;
    if (!o) return p;
    // The C++ parsers name the field (in the fields' order); their errors become `function`'s.
    as_c_call(function, {}, [&] {
        if (given(o->mapping)) p.options.mapping = parse_mapping(o->mapping, "mapping");
        if (given(o->variant)) p.options.variant = Variant::parse(o->variant, "variant");
        if (given(o->panel)) p.options.panel = parse_panel_solve(o->panel, "panel");
        if (given(o->diag)) p.options.diag = parse_diag_kernel(o->diag, "diag");
        if (given(o->factor)) p.options.factor = parse_precision(o->factor, "factor");
    });
    if (given(o->residency)) {
        const std::string r = o->residency;
        if (r == "host") p.tiling.residency = Residency::Host;
        else if (r == "device") p.tiling.residency = Residency::Device;
        else throw InvalidArgument(function, "residency", "must be host or device (got '" + r + "')");
        p.residency_given = true;
    }
    require(o->nb >= 0, function, "nb", [&] { return "must be >= 0, 0 for the plan's (got " + std::to_string(o->nb) + ")"; });
    require(o->chunk >= 0, function, "chunk",
            [&] { return "must be >= 0, 0 for the default (got " + std::to_string(o->chunk) + ")"; });
    if (given(o->tree)) as_c_call(function, {}, [&] { p.tree = QrTree::parse(o->tree, "tree"); });
    require(o->ib >= 0, function, "ib", [&] { return "must be >= 0, 0 for the plan's (got " + std::to_string(o->ib) + ")"; });
    p.ib = o->ib;
    p.tiling.nb = o->nb;
    p.batched.mapping = p.options.mapping;
    p.batched.chunk = o->chunk;
    return p;
}

Refinement parse_refinement(const starfact_c_refinement* r) {
    Refinement out;
    if (!r) return out;
    out.max_iterations = r->max_iterations;
    out.gmres_iterations = r->gmres_iterations;
    out.gmres_restart = r->gmres_restart;
    out.fallback = r->fallback != 0;
    out.stall_ratio = r->stall_ratio;
    out.tolerance = r->tolerance;
    out.shift = r->shift;
    out.shift_retries = r->shift_retries;
    out.always_low = r->always_low != 0;
    out.time_budget = r->time_budget;
    out.time_floor = r->time_floor;
    out.tile_tolerance = r->tile_tolerance;
    return out;
}

void fill_report(const SolveReport& report, starfact_c_solve_report* out) {
    *out = starfact_c_solve_report{};
    copy_name(out->path, to_string(report.path));
    copy_name(out->factor, to_string(report.factor));
    out->iterations = report.iterations;
    out->gmres_iterations = report.gmres_iterations;
    out->low_info = report.low_info;
    out->skipped_tasks = static_cast<int32_t>(std::min<int64_t>(report.skipped_tasks, INT32_MAX));
    out->backward_error = report.backward_error;
    out->tolerance = report.tolerance;
    out->seconds = report.seconds;
    out->factor_seconds = report.factor_seconds;
    out->factorizations = report.factorizations;
    out->shift = report.shift;
    std::strncpy(out->reason, report.reason.c_str(), sizeof out->reason - 1);
    out->reason[sizeof out->reason - 1] = '\0';
    out->low_tiles = report.low_tiles;
    out->off_diagonal_tiles = report.off_diagonal_tiles;
}

}  // namespace starfact::capi

extern "C" {

void starfact_c_options_init(starfact_c_options* options) {
    if (options) *options = starfact_c_options{};
}

void starfact_c_refinement_init(starfact_c_refinement* refinement) {
    if (!refinement) return;
    const starfact::Refinement d;
    refinement->max_iterations = d.max_iterations;
    refinement->gmres_iterations = d.gmres_iterations;
    refinement->gmres_restart = d.gmres_restart;
    refinement->fallback = d.fallback ? 1 : 0;
    refinement->stall_ratio = d.stall_ratio;
    refinement->tolerance = d.tolerance;
    refinement->shift = d.shift;
    refinement->shift_retries = d.shift_retries;
    refinement->always_low = d.always_low ? 1 : 0;
    refinement->time_budget = d.time_budget;
    refinement->time_floor = d.time_floor;
    refinement->tile_tolerance = d.tile_tolerance;
}

}  // extern "C"
