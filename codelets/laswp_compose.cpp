// laswp_compose codelet: the row interchanges of one tile-LU step composed into the permutation that the
// tile-by-tile tasks read (codelets/laswp_tile.cpp; the vector's layout: codelets/lu_codelets.hpp), once per step
// instead of once per task.
//   buffers: 0 = the step's pivots (R), 1 = the composed permutation (W)
// CPU: compose_interchanges; CUDA (steps of up to kLaswpTileCudaMaxRows pivots): one block planning the pivots in
// shared memory (kernels/lu/laswp_tile.cu), which writes the same vector.
#include <algorithm>
#include <cstdint>

#include "codelets/lu_codelets.hpp"
#include "kernels/lu/laswp_tile_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct LaswpComposeArgs {
    int64_t offset;      // global row of the top tile's first row
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
};

void laswp_compose_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpComposeArgs*>(cl_arg);
    const int* piv = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[0]));
    int* out = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    const RowPermutation p = compose_interchanges(piv, kb, a->offset);
    const int count = static_cast<int>(p.below.size());
    std::fill(out, out + composed_size(kb), -1);
    out[0] = count;
    for (int i = 0; i < kb; ++i) out[1 + i] = static_cast<int>(p.top[static_cast<size_t>(i)]);
    for (int q = 0; q < count; ++q) {
        out[1 + kb + q] = static_cast<int>(p.below[static_cast<size_t>(q)].first);
        out[1 + 2 * kb + q] = static_cast<int>(p.below[static_cast<size_t>(q)].second);
    }
}

#ifdef STARFACT_HAVE_CUDA
void laswp_compose_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpComposeArgs*>(cl_arg);
    const int* piv = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[0]));
    int* out = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    gpu::WorkerStream ws(a->cuda, a->urgent);
    gpu::launch_compose_interchanges(piv, kb, a->offset, out, ws.stream);
}
#endif

void define_laswp_compose(Kernel& k) {
    define_kernel(k, "laswp_compose", "starfact_laswp_compose", laswp_compose_cpu,
                  STARFACT_CUDA_IMPL(laswp_compose_cuda), {STARPU_R, STARPU_W});
}

}  // namespace

void insert_laswp_compose(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t piv,
                          starpu_data_handle_t composed, int64_t offset, int64_t nb) {
    Kernel& k = kernel<define_laswp_compose>(rt);
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->handles[0] = piv;
    t->handles[1] = composed;
    t->cl_arg = pack(LaswpComposeArgs{offset, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(LaswpComposeArgs);
    t->cl_arg_free = 1;
    t->flops = 0;
    TaskOptions where = o;
    if (!laswp_tile_on_cuda(nb)) where.mapping = Mapping::CpuOnly;  // no CUDA implementation for such steps
    submit(t, where, "laswp_compose");
}

}  // namespace starfact::detail
