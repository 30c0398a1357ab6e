// Internal: the plan of one call as it travels down the doors (include/starfact/plan.hpp). A door plans once: a tile
// form from its tiles (plan_tiles), an array form or the C ABI from the arrays before it makes the tiles; either
// way the one Plan goes down to the submits (detail::submit_potrf(..., plan), ...), which do not plan again. A plan
// handed in from outside (the async:: forms that take one) is checked against its tiles first (require_plan).
#pragma once
#include <cstdint>

#include "starfact/options.hpp"
#include "starfact/plan.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// The plan of `op` on A's tiles (plan(A, request): A's precision, shape, tile size, residency and distribution),
/// with `nrhs` right-hand sides: a tile form's one planning call.
template <typename T>
Plan plan_tiles(Operation op, const TileMatrix<T>& A, const Options& opts, int64_t nrhs = 0,
                bool always_low = false);

/// Throws InvalidArgument from `function` naming 'plan' unless `p` is a plan of `op` for A's tiles: A's precision,
/// order, tile size and residency (not checked for an empty A), `nrhs` right-hand sides, opts.mapping, and tasks
/// mapped as the hybrid rule maps them on A's runtime.
template <typename T>
void require_plan(const char* function, const Plan& p, Operation op, const TileMatrix<T>& A, const Options& opts,
                  int64_t nrhs = 0);

/// The QR's plan for an m x n matrix of `element` in nb-tiles (the matrix the QR factors: gels of a wide A, A^T),
/// with `tree` and inner blocking `ib` requested (0: the plan's): the tree, the inner blocking and the task mapping
/// geqrf's DAG runs. The QR's callers ask through plan_qr_tiles(QRFactors, ...) (algorithms/qr_fallback.hpp).
Plan plan_qr_tiles(Precision element, int64_t m, int64_t n, int64_t nb, int64_t ib, const QrTree& tree,
                   const Options& opts, const Machine& machine);

/// The plan of the Householder factorization a Cholesky QR planned as `cholqr` falls back to (inner blocking `ib`
/// requested, 0: the plan's): Auto's choice for the shape without the Cholesky QR (the panel tree where Auto takes
/// it, else Auto's domains). Part of the call's plan: not counted as a planning call.
Plan qr_fallback_plan(const Plan& cholqr, int64_t ib, const Options& opts, const Machine& machine);

/// Throws InvalidArgument from `function` naming 'plan' unless `p` is a QR plan (geqrf, or gels: of the matrix it
/// factors) of an m x n matrix of `element` in nb-tiles under opts.mapping.
void require_qr_plan(const char* function, const Plan& p, Precision element, int64_t m, int64_t n, int64_t nb,
                     const Options& opts);

/// What plan(Request, Machine) answers, without counting a planning call (the fall-back's plan).
Plan plan_uncounted(const Request& request, const Machine& machine);

/// How many times the planning entry plan(Request, Machine) ran in this process: what the tests count to check that
/// a call plans once.
uint64_t planning_calls();

}  // namespace starfact::detail
