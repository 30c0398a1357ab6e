// laswp_rows codelet: one copy of a distributed LU's row exchange (algorithms/lu_row_exchange.hpp): rows of one
// matrix into rows of another by index lists, dst(to[r], :) := src(from[r], :), both with the same columns.
//   buffers: 0 = src (R), 1 = dst (W when the task writes every row of it, else RW)
//   cl_arg:  RowsArgs, then the lists `from` and `to` (count ints each)
// CPU: the row copies. CUDA: the lists to device memory of the task's own, one kernel (kernels/lu/gather_rows.cu).
#include <complex>
#include <cstring>
#include <vector>

#include "codelets/lu_codelets.hpp"
#include "kernels/lu/lu_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct RowsArgs {
    int count;           // rows copied
    bool urgent;         // CUDA: the worker's highest-priority stream
    CudaContexts* cuda;  // per-worker streams and workspaces (CUDA implementation)
};
const int* from_of(const RowsArgs* a) { return reinterpret_cast<const int*>(a + 1); }
const int* to_of(const RowsArgs* a) { return from_of(a) + a->count; }

template <typename T>
void rows_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const RowsArgs*>(cl_arg);
    const T* src = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* dst = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const int64_t lds = STARPU_MATRIX_GET_LD(buffers[0]), ldd = STARPU_MATRIX_GET_LD(buffers[1]);
    const int cols = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1]));
    const int *from = from_of(a), *to = to_of(a);
    for (int c = 0; c < cols; ++c)
        for (int r = 0; r < a->count; ++r) dst[to[r] + c * ldd] = src[from[r] + c * lds];
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void rows_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const RowsArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, a->urgent);
    const size_t bytes = 2 * static_cast<size_t>(a->count) * sizeof(int);
    // The lists in memory of this task's own (stream-ordered): the worker's workspace could still be read by its
    // previous task on another of its streams. From pageable memory: staged before the call returns.
    int* lists = nullptr;
    if (cudaMallocAsync(reinterpret_cast<void**>(&lists), bytes, ws.stream) != cudaSuccess ||
        cudaMemcpyAsync(lists, from_of(a), bytes, cudaMemcpyHostToDevice, ws.stream) != cudaSuccess)
        STARPU_ABORT_MSG("laswp_rows: copy of the row lists failed");
    gpu::launch_copy_rows(reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                          STARPU_MATRIX_GET_LD(buffers[0]), lists, lists + a->count, a->count,
                          static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1])),
                          reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1])), STARPU_MATRIX_GET_LD(buffers[1]),
                          sizeof(T), ws.stream);
    if (cudaFreeAsync(lists, ws.stream) != cudaSuccess) STARPU_ABORT_MSG("laswp_rows: cudaFreeAsync failed");
}
#endif

template <typename T>
void define_rows(Kernel& k) {
    define_kernel(k, "laswp_rows",
                  by_letter<T>("starfact_slaswp_rows", "starfact_dlaswp_rows", "starfact_claswp_rows",
                               "starfact_zlaswp_rows"),
                  rows_cpu<T>, STARFACT_CUDA_IMPL(rows_cuda<T>), {});  // modes per task
}

}  // namespace

template <typename T>
void insert_laswp_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t src, starpu_data_handle_t dst,
                       bool whole, const std::vector<int>& from, const std::vector<int>& to) {
    const int count = static_cast<int>(from.size());
    const size_t size = sizeof(RowsArgs) + 2 * from.size() * sizeof(int);
    auto* args = static_cast<RowsArgs*>(std::malloc(size));  // StarPU frees cl_arg with free()
    *args = RowsArgs{count, o.urgent, cuda_contexts(rt)};
    std::memcpy(args + 1, from.data(), from.size() * sizeof(int));
    std::memcpy(reinterpret_cast<int*>(args + 1) + count, to.data(), to.size() * sizeof(int));
    starpu_task* t = starpu_task_create();
    t->cl = &kernel<define_rows<T>>(rt).cl;
    const starpu_data_handle_t handles[] = {src, dst};
    const starpu_data_access_mode modes[] = {STARPU_R, whole ? STARPU_W : STARPU_RW};
    set_dynamic_buffers(t, handles, modes, 2);
    t->cl_arg = args;
    t->cl_arg_size = size;
    t->cl_arg_free = 1;
    t->flops = 0;
    submit(t, o, "laswp_rows");
}

#define STARFACT_LASWP_ROWS(T)                                                                                      \
    template void insert_laswp_rows<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                    \
                                       starpu_data_handle_t, bool, const std::vector<int>&, const std::vector<int>&);
STARFACT_LASWP_ROWS(float)
STARFACT_LASWP_ROWS(double)
STARFACT_LASWP_ROWS(std::complex<float>)
STARFACT_LASWP_ROWS(std::complex<double>)
#undef STARFACT_LASWP_ROWS

}  // namespace starfact::detail
