// trmm codelet: B := alpha * op(A) B (Left) or alpha * B op(A) (Right), A triangular, for the four element types
// (op(A) = A^H with Op::ConjTrans on complex tiles; models starfact_<t>trmm).
//   buffers: 0 = A (R, triangular tile), 1 = B (RW)
// cuBLAS's trmm is out of place (C := alpha op(A) B); gpu::trmm passes B as C, BLAS's in-place product.

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

template <typename T>
struct TrmmArgs {
    Side side;
    Uplo uplo;
    Op op;
    Diag diag;
    T alpha;
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
};

template <typename T>
void trmm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrmmArgs<T>*>(cl_arg);
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    cpu::trmm(a->side, a->uplo, a->op, a->diag, static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])),
              static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1])), a->alpha, A,
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), B, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void trmm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrmmArgs<T>*>(cl_arg);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const cublasStatus_t s =
        gpu::trmm(ws.cublas, a->side, a->uplo, a->op, a->diag, static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])),
                  static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1])), a->alpha, A,
                  static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), B, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

template <typename T>
void define_trmm(Kernel& k) {
    define_kernel(k, "trmm", by_letter<T>("starfact_strmm", "starfact_dtrmm", "starfact_ctrmm", "starfact_ztrmm"),
                  trmm_cpu<T>, STARFACT_CUDA_IMPL(trmm_cuda<T>), {STARPU_R, STARPU_RW});
}

}  // namespace

template <typename T>
void insert_trmm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                 starpu_data_handle_t A, starpu_data_handle_t B) {
    const double m = tile_rows(B), n = tile_cols(B);
    starpu_task* t = starpu_task_create();
    t->cl = &kernel<define_trmm<T>>(rt).cl;
    t->handles[0] = A;
    t->handles[1] = B;
    t->cl_arg = pack(TrmmArgs<T>{side, uplo, op, diag, alpha, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(TrmmArgs<T>);
    t->cl_arg_free = 1;
    t->flops = (is_complex_v<T> ? 4.0 : 1.0) * (side == Side::Left ? m * m * n : m * n * n);
    submit(t, o, "trmm");
}

template void insert_trmm<float>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag, float,
                                 starpu_data_handle_t, starpu_data_handle_t);
template void insert_trmm<double>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag, double,
                                  starpu_data_handle_t, starpu_data_handle_t);
template void insert_trmm<std::complex<float>>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag,
                                               std::complex<float>, starpu_data_handle_t, starpu_data_handle_t);
template void insert_trmm<std::complex<double>>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag,
                                                std::complex<double>, starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
