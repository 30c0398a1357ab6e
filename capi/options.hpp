// The C ABI's options: starfact_c_options parsed into the C++ Options, Tiling and batched::Options.
#pragma once
#include <cstdint>

#include "capi/starfact_c.h"
#include "starfact/batched_options.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {

struct ParsedOptions {
    Options options;
    Tiling tiling;          ///< nb 0: the operation's plan
    bool residency_given = false;  ///< the caller named the residency (else it follows the arrays: residency_for)
    batched::Options batched;
    QrTree tree;            ///< QR's reduction tree (Auto: the plan's)
    int64_t ib = 0;         ///< QR's inner blocking (0: the plan's)
};

/// Parses `o` (null: every default); a bad field throws InvalidArgument naming it (mapping, variant, panel, diag,
/// factor, residency, nb, chunk, tree, ib).
ParsedOptions parse_options(const char* function, const starfact_c_options* o);
/// The C++ Refinement of `r` (null: the defaults).
Refinement parse_refinement(const starfact_c_refinement* r);
/// Copies `report` into the C struct.
void fill_report(const SolveReport& report, starfact_c_solve_report* out);

}  // namespace starfact::capi
