// lauum_tile codelet: A := L^T L (L^H L on complex tiles) for the lower-triangular tile L held in A (lower triangle in
// and out), for the four element types (models starfact_<t>lauum_tile).
//   buffers: 0 = A (RW, the tile; its strictly upper part is neither read nor written)
// CPU: LAPACKE <s|d|c|z>lauum. cuSOLVER has no lauum: the CUDA implementation copies L into the worker's scratch tile,
// zeroes the copy's upper part (Lz) and writes the lower triangle of Lz^H Lz into A with one cuBLAS herk (syrk on
// real tiles), which reads the full Lz and writes only the lower triangle, so the upper part of A stays as it was.

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

struct LauumTileArgs {
    CudaContexts* cuda;  // per-worker scratch tiles (CUDA implementation)
    bool urgent;         // TaskOptions::urgent
};

template <typename T>
void lauum_tile_cpu(void* buffers[], void*) {
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    cpu::lauum(static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0])), A, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])));
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void lauum_tile_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LauumTileArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    const int ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    if (c.scratch_bytes < static_cast<size_t>(n) * n * sizeof(T))
        STARPU_ABORT_MSG("lauum_tile: scratch tile not reserved (reserve_inverse_tile_workspace)");
    T* Lz = static_cast<T*>(c.scratch);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    gpu::after_worker_stream(c, ws.stream);
    if (cudaMemcpy2DAsync(Lz, n * sizeof(T), A, ld * sizeof(T), n * sizeof(T), n, cudaMemcpyDeviceToDevice,
                          ws.stream) != cudaSuccess)
        STARPU_ABORT_MSG("lauum_tile: cudaMemcpy2DAsync failed");
    gpu::launch_zero_upper<T>(Lz, n, n, ws.stream);
    const cublasStatus_t s =
        gpu::herk(ws.cublas, Uplo::Lower, Op::ConjTrans, n, n, real_t<T>(1), Lz, n, real_t<T>(0), A, ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

template <typename T>
void define_lauum_tile(Kernel& k) {
    define_kernel(k, "lauum",
                  by_letter<T>("starfact_slauum_tile", "starfact_dlauum_tile", "starfact_clauum_tile",
                               "starfact_zlauum_tile"),
                  lauum_tile_cpu<T>, STARFACT_CUDA_IMPL(lauum_tile_cuda<T>),
                  {STARPU_RW});
}

}  // namespace

template <typename T>
void insert_lauum_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A) {
    const double n = tile_rows(A);
    starpu_task* t = starpu_task_create();
    t->cl = &kernel<define_lauum_tile<T>>(rt).cl;
    t->handles[0] = A;
    t->cl_arg = pack(LauumTileArgs{cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(LauumTileArgs);
    t->cl_arg_free = 1;
    t->flops = (is_complex_v<T> ? 4.0 : 1.0) * (n * n * n / 3.0 + n * n / 2.0 + n / 6.0);
    submit(t, o, "lauum");
}

template void insert_lauum_tile<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t);
template void insert_lauum_tile<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t);
template void insert_lauum_tile<std::complex<float>>(const Runtime&, const TaskOptions&, starpu_data_handle_t);
template void insert_lauum_tile<std::complex<double>>(const Runtime&, const TaskOptions&, starpu_data_handle_t);

}  // namespace starfact::detail
