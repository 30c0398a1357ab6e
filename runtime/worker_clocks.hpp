// Internal: fresh per-worker codelet clocks after starpu_init (see worker_clocks.cpp).
#pragma once

namespace starfact::detail {

/// Runs one empty task on every worker with profiling on, so that each worker's codelet start and end times belong
/// to this StarPU instance. Call right after starpu_init, before any other task.
void reset_worker_clocks();

}  // namespace starfact::detail
