// The codelet table, the submission helpers shared by every codelet, and the registration of the codelets'
// GPU warm-up with the runtime.
#include "codelets/codelets.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "codelets/kernel_colors.hpp"
#include "runtime/mpi.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {

template <typename T>
Codelets<T>::Codelets() {
    define_potrf<T>(potrf, DiagKernel::Cusolver);
    define_potrf<T>(potrf_fused, DiagKernel::Fused);
    define_potrf<T>(potrf_recursive, DiagKernel::Recursive);
    define_trsm<T>(trsm);
    define_syrk<T>(syrk);
    define_gemm<T>(gemm);
    define_tile_update<T>(tile_update);
    define_trtri<T>(trtri);
    define_trsm_inverse<T>(trsm_inverse);
}
template struct Codelets<float>;
template struct Codelets<double>;

namespace {
// A Runtime started with RuntimeConfig::warm_up runs warm_up_gpu_kernels (codelets/potrf.cpp) through the
// runtime's hook list (runtime/extensions.hpp): the runtime does not know the codelets. Registered here, in
// the file every codelet's submission links (define_kernel, submit), so that a static libstarfact keeps it
// whenever a program submits any starfact task.
const bool warm_up_registered = register_warm_up(warm_up_gpu_kernels);
}  // namespace

#ifdef STARFACT_SIMULATION
void simulated_cuda_implementation(void*[], void*) {
    STARPU_ABORT_MSG("starfact: a simulated CUDA implementation was called (StarPU is not in SimGrid mode?)");
}
#endif

void define_kernel(Kernel& k, const char* name, const char* symbol, starpu_cpu_func_t cpu, starpu_cuda_func_t cuda,
                   std::initializer_list<starpu_data_access_mode> modes) {
    k.cl.cpu_funcs[0] = cpu;
    if (cuda) {
        k.cl.cuda_funcs[0] = cuda;
        k.cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
    }
    k.cl.nbuffers = modes.size() == 0 ? STARPU_VARIABLE_NBUFFERS : static_cast<int>(modes.size());
    int i = 0;
    for (starpu_data_access_mode m : modes) k.cl.modes[i++] = m;
    k.cl.name = name;
    k.cl.color = kernel_color(name);
    k.model.type = STARPU_HISTORY_BASED;
    k.model.symbol = symbol;
    k.cl.model = &k.model;
}

void set_dynamic_buffers(starpu_task* t, const starpu_data_handle_t* handles, const starpu_data_access_mode* modes,
                         int n) {
    t->nbuffers = n;
    const size_t count = static_cast<size_t>(n > 0 ? n : 1);
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(count * sizeof(starpu_data_handle_t)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(count * sizeof(starpu_data_access_mode)));
    for (int i = 0; i < n; ++i) {
        t->dyn_handles[i] = handles[i];
        t->dyn_modes[i] = modes[i];
    }
}

int compute_of(Precision p) {
    switch (p) {
        case Precision::Tf32: return 1;
        case Precision::Bf16: return 2;
        case Precision::Fp16: return 3;
        case Precision::Tf32x3: return 4;
        default: return 0;
    }
}

uint32_t where_of(Mapping m) {
    switch (m) {
        case Mapping::GpuOnly: return STARPU_CUDA;
        case Mapping::CpuOnly: return STARPU_CPU;
        case Mapping::Hybrid: break;
    }
    return STARPU_CPU | STARPU_CUDA;
}

namespace {

/// Submits a task this process runs: the options, the Sequence's completion counting, StarPU's submit.
void submit_here(starpu_task* task, const TaskOptions& o, const char* what) {
    task->priority = o.priority;
    task->where = where_of(o.mapping);
    task->name = o.name;
    // StarPU reads the per-buffer flags only inside starpu_task_submit (its implicit dependencies): a buffer of
    // this thread's serves until then.
    thread_local std::vector<unsigned char> consistency;
    if (o.unordered_data) {
        const unsigned count = STARPU_TASK_GET_NBUFFERS(task);
        consistency.assign(count, 1);
        bool any = false;
        for (unsigned b = 0; b < count; ++b)
            if (std::binary_search(o.unordered_data->begin(), o.unordered_data->end(), STARPU_TASK_GET_HANDLE(task, b))) {
                consistency[b] = 0;
                any = true;
            }
        if (any) task->handles_sequential_consistency = consistency.data();
    }
    if (o.collect) task->detach = 0;
    if (o.sequence) o.sequence->attach(task);
    const int ret = starpu_task_submit(task);
    if (ret != 0) {
        if (o.sequence) o.sequence->detach_refused();
        task->destroy = 0;  // (StarPU destroys only the tasks it ran; this one is ours to free)
        starpu_task_destroy(task);
    }
    if (ret == -ENODEV)
        throw RuntimeError(std::string("starfact: no worker can run the ") + what + " task (check the mapping)");
    if (ret != 0) throw RuntimeError(std::string("starfact: starpu_task_submit(") + what + ") failed: " + std::to_string(ret));
    if (o.collect) o.collect->push_back(task);
    if (o.counter) ++*o.counter;
}

}  // namespace

void submit(starpu_task* task, const TaskOptions& o, const char* what) {
    // Tiles of a distributed TileMatrix (registered with StarPU-MPI): owner-computes insertion, the rank that
    // owns the written tile runs the task, so that only the tasks a rank runs reach its Sequence.
    bool distributed = false;
    for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task) && !distributed; ++i)
        distributed = is_distributed(STARPU_TASK_GET_HANDLE(task, i));
    if (distributed)
        mpi_insert(task, o.priority, o.rank, [&](starpu_task* local) { submit_here(local, o, what); });
    else
        submit_here(task, o, what);
}

}  // namespace starfact::detail
