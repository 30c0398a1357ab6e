// StarPU (1.3.10 and 1.4.12 alike) keeps, per worker, the start and end time of the codelet it ran last, in worker
// structures that starpu_init does not clear, on a clock whose reference every starpu_init takes on the previous
// reference's clock (so every second instance of a process counts from the process's start, the others from their
// own start). A worker records both times only while the task's performance model is calibrating (or profiling is
// on), and StarPU reads the model's calibrating flag anew at the start, at the end and when it files the
// measurement. When the scheduler turns a model's calibration on while a task of that model runs (a tile size the
// model has too few measurements of), the task ends with a fresh end time and the start time left by the previous
// instance, which can be later on the old clock: a negative measurement, and StarPU aborts ("measured >= 0"). One
// empty task per worker with profiling on, before any other task, leaves every worker with times of this instance:
// from then on a left-over start time is always earlier than a fresh end time.
#include "runtime/worker_clocks.hpp"

#include <starpu.h>
#include <starpu_profiling.h>


namespace starfact::detail {

namespace {

void nothing(void*[], void*) {}

}  // namespace

void reset_worker_clocks() {
#ifndef STARPU_SIMGRID  // simulated time: one clock per process
    starpu_codelet cl;
    starpu_codelet_init(&cl);
    cl.cpu_funcs[0] = nothing;
#ifdef STARPU_USE_CUDA
    cl.cuda_funcs[0] = nothing;
#endif
    cl.nbuffers = 0;
    cl.name = "worker_clocks";
    const int was = starpu_profiling_status_get();
    if (!was) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    const unsigned nworkers = starpu_worker_get_count();
    for (unsigned w = 0; w < nworkers; ++w) {
        const starpu_worker_archtype type = starpu_worker_get_type(static_cast<int>(w));
        if (type != STARPU_CPU_WORKER && type != STARPU_CUDA_WORKER) continue;
        starpu_task* t = starpu_task_create();
        t->cl = &cl;
        t->execute_on_a_specific_worker = 1;
        t->workerid = w;
        if (starpu_task_submit(t) != 0) {
            t->destroy = 0;  // (StarPU destroys only the tasks it ran; this one is ours to free)
            starpu_task_destroy(t);
        }
    }
    // Every task of the process so far: these ones. Waiting for all (not each) also leaves their count at zero.
    (void)!starpu_task_wait_for_all();  // empty tasks: nothing to report
    if (!was) starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
#endif
}

}  // namespace starfact::detail
