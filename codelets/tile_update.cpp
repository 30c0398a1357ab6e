// tile_update codelet: every pending update of one tile in a single task (coarse left-looking).
//   off-diagonal tile:  C -= sum_j A_j B_j^T    buffers: 0 = C (RW), 1..k = A_j (R), k+1..2k = B_j (R)
//   diagonal tile:      C -= sum_j A_j A_j^T    buffers: 0 = C (RW), 1..k = A_j (R)   (lower triangle)
// The number of buffers varies with the column (STARPU_VARIABLE_NBUFFERS).
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct TileUpdateArgs {
    int count;     // k: number of (A_j, B_j) pairs
    int diagonal;  // 1: syrk form
};

#define TILE(i) reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[i]))
#define ROWS(i) static_cast<int>(STARPU_MATRIX_GET_NX(buffers[i]))
#define COLS(i) static_cast<int>(STARPU_MATRIX_GET_NY(buffers[i]))
#define LD(i) static_cast<int>(STARPU_MATRIX_GET_LD(buffers[i]))

template <typename T>
void tile_update_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TileUpdateArgs*>(cl_arg);
    for (int j = 1; j <= a->count; ++j) {
        if (a->diagonal)
            cpu::syrk(Uplo::Lower, Op::NoTrans, ROWS(0), COLS(j), T(-1), TILE(j), LD(j), T(1), TILE(0), LD(0));
        else
            cpu::gemm(Op::NoTrans, Op::Trans, ROWS(0), COLS(0), COLS(j), T(-1), TILE(j), LD(j), TILE(j + a->count),
                      LD(j + a->count), T(1), TILE(0), LD(0));
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void tile_update_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TileUpdateArgs*>(cl_arg);
    cublasHandle_t h = starpu_cublas_get_local_handle();
    for (int j = 1; j <= a->count; ++j) {
        const cublasStatus_t s =
            a->diagonal ? gpu::syrk(h, Uplo::Lower, Op::NoTrans, ROWS(0), COLS(j), T(-1), TILE(j), LD(j), T(1), TILE(0),
                                    LD(0))
                        : gpu::gemm(h, Op::NoTrans, Op::Trans, ROWS(0), COLS(0), COLS(j), T(-1), TILE(j), LD(j),
                                    TILE(j + a->count), LD(j + a->count), T(1), TILE(0), LD(0));
        if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
    }
}
#endif

#undef TILE
#undef ROWS
#undef COLS
#undef LD

}  // namespace

template <typename T>
void define_tile_update(Kernel& k) {
    define_kernel(k, "tile_update", by_precision<T>("starfact_stile_update", "starfact_dtile_update"),
                  tile_update_cpu<T>,
                  STARFACT_CUDA_IMPL(tile_update_cuda<T>), {});  // modes per task (dyn_modes)
}

template <typename T>
void insert_tile_update(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t C,
                        const std::vector<starpu_data_handle_t>& A, const std::vector<starpu_data_handle_t>& B) {
    const bool diagonal = B.empty();
    const int count = static_cast<int>(A.size());
    const int nbuffers = 1 + count + (diagonal ? 0 : count);
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&codelets<T>(rt).tile_update.cl);
    t->nbuffers = nbuffers;
    // StarPU frees dyn_handles and dyn_modes with free() when the task is destroyed.
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(nbuffers * sizeof(starpu_data_handle_t)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(nbuffers * sizeof(starpu_data_access_mode)));
    t->dyn_handles[0] = C;
    t->dyn_modes[0] = STARPU_RW;
    double flops = 0;
    const double m = tile_rows(C), n = tile_cols(C);
    for (int j = 0; j < count; ++j) {
        t->dyn_handles[1 + j] = A[j];
        t->dyn_modes[1 + j] = STARPU_R;
        if (!diagonal) {
            t->dyn_handles[1 + count + j] = B[j];
            t->dyn_modes[1 + count + j] = STARPU_R;
        }
        flops += diagonal ? m * (m + 1) * tile_cols(A[j]) : 2.0 * m * n * tile_cols(A[j]);
    }
    t->cl_arg = pack(TileUpdateArgs{count, diagonal ? 1 : 0});
    t->cl_arg_size = sizeof(TileUpdateArgs);
    t->cl_arg_free = 1;
    t->flops = flops;
    submit(t, o, "tile_update");
}

template void define_tile_update<float>(Kernel&);
template void define_tile_update<double>(Kernel&);
template void insert_tile_update<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                        const std::vector<starpu_data_handle_t>&,
                                        const std::vector<starpu_data_handle_t>&);
template void insert_tile_update<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                         const std::vector<starpu_data_handle_t>&,
                                         const std::vector<starpu_data_handle_t>&);

}  // namespace starfact::detail
