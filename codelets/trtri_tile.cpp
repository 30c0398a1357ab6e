// trtri_tile codelet: A := A^-1 in place for a lower-triangular, non-unit tile, reporting LAPACK info; for the four
// element types (LAPACKE <s|d|c|z>trtri, cusolverDnXtrtri on the tile's CUDA data type; models starfact_<t>trtri_tile).
// (codelets/trtri.cpp is the out-of-place variant of the inverse panel solve of potrf.)
//   buffers: 0 = A (RW, the tile), 1 = info (RW, one int: 0 or the first zero diagonal, global, 1-based)

#include <complex>

#include "codelets/codelets.hpp"
#include "codelets/inverse_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/scalar.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct TrtriTileArgs {
    int64_t offset;      // global index of the tile's first column
    CudaContexts* cuda;  // per-worker cuSOLVER handles and workspaces (CUDA implementation)
    bool urgent;         // TaskOptions::urgent
};

template <typename T>
void trtri_tile_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrtriTileArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    const int local = cpu::trtri(static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0])), A,
                                 static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])));
    if (local > 0 && *info == 0) *info = static_cast<int>(a->offset + local);
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void trtri_tile_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrtriTileArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    const int ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    gpu::WorkerStream ws(a->cuda, a->urgent);
    gpu::after_worker_stream(c, ws.stream);
    if (ws.stream != c.stream) cusolverDnSetStream(c.solver, ws.stream);
    const cusolverStatus_t s = cusolverDnXtrtri(c.solver, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n,
                                                gpu::cuda_type<T>(), A, ld, c.work, c.work_bytes, c.host_work,
                                                c.host_work_bytes, c.dev_info);
    if (ws.stream != c.stream) cusolverDnSetStream(c.solver, c.stream);
    if (s != CUSOLVER_STATUS_SUCCESS) STARPU_ABORT_MSG("cusolverDnXtrtri failed");
    gpu::launch_merge_info(c.dev_info, info, a->offset, ws.stream);
}

template <typename T>
Workspace inverse_tile_workspace(cusolverDnHandle_t h, int n) {
    Workspace w;
    if (cusolverDnXtrtri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n, gpu::cuda_type<T>(), nullptr, n,
                                    &w.device, &w.host) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDnXtrtri_bufferSize failed");
    w.scratch = static_cast<size_t>(n) * n * sizeof(T);  // lauum_tile's copy of L
    return w;
}
#endif

template <typename T>
void define_trtri_tile(Kernel& k) {
    define_kernel(k, "trtri",
                  by_letter<T>("starfact_strtri_tile", "starfact_dtrtri_tile", "starfact_ctrtri_tile",
                               "starfact_ztrtri_tile"),
                  trtri_tile_cpu<T>, STARFACT_CUDA_IMPL(trtri_tile_cuda<T>),
                  {STARPU_RW, STARPU_RW});
}

}  // namespace

template <typename T>
void insert_trtri_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                       int64_t offset) {
    const double n = tile_rows(A);
    starpu_task* t = starpu_task_create();
    t->cl = &kernel<define_trtri_tile<T>>(rt).cl;
    t->handles[0] = A;
    t->handles[1] = info;
    t->cl_arg = pack(TrtriTileArgs{offset, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(TrtriTileArgs);
    t->cl_arg_free = 1;
    // (in real operations: a complex multiply-add is 4 times a real one)
    t->flops = (is_complex_v<T> ? 4.0 : 1.0) * (n * n * n / 3.0 + 2.0 * n / 3.0);
    submit(t, o, "trtri");
}

template <typename T>
void reserve_inverse_tile_workspace(const Runtime& rt, int nb) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() > 0) cuda_contexts(rt)->reserve(nb, inverse_tile_workspace<T>);
#else
    (void)rt;
    (void)nb;
#endif
}

template void insert_trtri_tile<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t,
                                       int64_t);
template void insert_trtri_tile<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                        starpu_data_handle_t, int64_t);
template void insert_trtri_tile<std::complex<float>>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                                     starpu_data_handle_t, int64_t);
template void insert_trtri_tile<std::complex<double>>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                                      starpu_data_handle_t, int64_t);
template void reserve_inverse_tile_workspace<float>(const Runtime&, int);
template void reserve_inverse_tile_workspace<double>(const Runtime&, int);
template void reserve_inverse_tile_workspace<std::complex<float>>(const Runtime&, int);
template void reserve_inverse_tile_workspace<std::complex<double>>(const Runtime&, int);

}  // namespace starfact::detail
