// The C ABI's door to the plan (starfact/plan.hpp): every *_submit and starfact_c_plan ask here for the plan of
// their call, from the parsed options and where the arrays' tiles live.
#pragma once
#include <cstdint>

#include "capi/options.hpp"
#include "starfact/plan.hpp"

namespace starfact::capi {

/// The plan's element precision of a C dtype (Fp32, Fp64, C64, C128).
Precision element_of(int32_t dtype);

/// The plan of `op` on a `dtype` matrix of m x n (nrhs right-hand sides), tiles living `where`, on `machine`.
Plan plan_of(Operation op, int32_t dtype, int64_t m, int64_t n, int64_t nrhs, const ParsedOptions& p, Residency where,
             const Machine& machine, bool always_low = false);

}  // namespace starfact::capi
