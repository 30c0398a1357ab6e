// laswp codelet: applies the row interchanges of one tile-LU step to one tile column.
//   buffers: 0 .. count-1 = the tiles A[k][j] .. A[mt-1][j] (RW), count = the step's pivots (R)
// The interchanges, in order: row offset + i (row i of the first tile) with global row piv[i] - 1, which
// lies in tile (piv[i] - 1 - offset) / nb of the column. CPU: a loop; CUDA: the interchanges composed into one
// permutation, then the rows moved in parallel
// (kernels/lu/laswp.cu), which moves complex elements as pairs of their real type.
#include <algorithm>
#include <complex>
#include <string>

#include "codelets/lu_codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {
namespace {

struct LaswpArgs {
    int64_t offset;      // global row of the first tile's first row
    int count;           // tiles
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
};

template <typename T>
void laswp_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpArgs*>(cl_arg);
    const int* piv = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[a->count]));
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[a->count]));
    const int nb = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    const int cols = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    T* top = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int64_t ld_top = STARPU_MATRIX_GET_LD(buffers[0]);
    for (int i = 0; i < kb; ++i) {
        const int64_t r = piv[i] - 1 - a->offset;  // row within the tile column
        if (r == i) continue;
        const int t = static_cast<int>(r / nb);
        T* other = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[t])) + (r - static_cast<int64_t>(t) * nb);
        const int64_t ld = STARPU_MATRIX_GET_LD(buffers[t]);
        for (int j = 0; j < cols; ++j) std::swap(top[i + j * ld_top], other[j * ld]);
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void laswp_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpArgs*>(cl_arg);
    gpu::ColumnTiles<T> tiles;
    tiles.count = a->count;
    tiles.nb = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    tiles.ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    tiles.ld_last = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[a->count - 1]));
    tiles.cols = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    for (int t = 0; t < a->count; ++t) tiles.tile[t] = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[t]));
    const int* piv = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[a->count]));
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[a->count]));
    gpu::WorkerStream ws(a->cuda, a->urgent);
    gpu::launch_laswp<T>(tiles, piv, kb, a->offset, ws.stream);
}
#endif

template <typename T>
void define_laswp(Kernel& k) {
    const char* symbol = by_letter<T>("starfact_slaswp", "starfact_dlaswp", "starfact_claswp", "starfact_zlaswp");
    define_kernel(k, "laswp", symbol, laswp_cpu<T>, STARFACT_CUDA_IMPL(laswp_cuda<T>), {});  // modes per task (dyn_modes)
}

}  // namespace

template <typename T>
void insert_laswp(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& col,
                  starpu_data_handle_t piv, int64_t offset) {
    Kernel& k = kernel<define_laswp<T>>(rt);
    const int count = static_cast<int>(col.size());
    if (count > kLaswpMaxTiles && (o.mapping != Mapping::CpuOnly && rt.cuda_workers() > 0))
        throw RuntimeError("starfact: a CUDA laswp task takes at most " + std::to_string(kLaswpMaxTiles) + " tiles");
    const int nbuffers = count + 1;
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->nbuffers = nbuffers;
    // StarPU frees dyn_handles and dyn_modes with free() when the task is destroyed.
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(nbuffers * sizeof(starpu_data_handle_t)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(nbuffers * sizeof(starpu_data_access_mode)));
    for (int i = 0; i < count; ++i) {
        t->dyn_handles[i] = col[i];
        t->dyn_modes[i] = STARPU_RW;
    }
    t->dyn_handles[count] = piv;
    t->dyn_modes[count] = STARPU_R;
    t->cl_arg = pack(LaswpArgs{offset, count, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(LaswpArgs);
    t->cl_arg_free = 1;
    t->flops = 0;
    submit(t, o, "laswp");
}

template void insert_laswp<float>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,
                                  starpu_data_handle_t, int64_t);
template void insert_laswp<double>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,
                                   starpu_data_handle_t, int64_t);
template void insert_laswp<std::complex<float>>(const Runtime&, const TaskOptions&,
                                                const std::vector<starpu_data_handle_t>&, starpu_data_handle_t, int64_t);
template void insert_laswp<std::complex<double>>(const Runtime&, const TaskOptions&,
                                                 const std::vector<starpu_data_handle_t>&, starpu_data_handle_t, int64_t);

}  // namespace starfact::detail
