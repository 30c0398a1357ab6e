// gemm codelet: C := alpha * op(A) op(B) + beta * C.
//   buffers: 0 = A (R), 1 = B (R), 2 = C (RW)
#include <type_traits>

#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

template <typename T>
struct GemmArgs {
    Op opa, opb;
    T alpha, beta;
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
    int compute;  // TaskOptions::compute (float on CUDA: tensor cores)
    BreakdownWatch* watch;  // TaskOptions::watch: return at once after a breakdown
};

struct GemmDims {
    int m, n, k, lda, ldb, ldc;
};
template <typename T>
GemmDims gemm_dims(void* buffers[], const GemmArgs<T>* a) {
    GemmDims d;
    d.m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[2]));
    d.n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[2]));
    d.k = static_cast<int>(a->opa == Op::NoTrans ? STARPU_MATRIX_GET_NY(buffers[0]) : STARPU_MATRIX_GET_NX(buffers[0]));
    d.lda = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    d.ldb = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    d.ldc = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[2]));
    return d;
}

template <typename T>
void gemm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const GemmArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const GemmDims d = gemm_dims(buffers, a);
    cpu::gemm(a->opa, a->opb, d.m, d.n, d.k, a->alpha, reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
              d.lda, reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[1])), d.ldb, a->beta,
              reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[2])), d.ldc);
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void gemm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const GemmArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const GemmDims d = gemm_dims(buffers, a);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const T* B = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    T* C = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[2]));
    cublasStatus_t s;
    if constexpr (is_real_single_v<T>) {
        s = a->compute ? gpu::gemm_fast(ws.cublas, a->compute, a->opa, a->opb, d.m, d.n, d.k, a->alpha, A, d.lda, B,
                                        d.ldb, a->beta, C, d.ldc)
                       : gpu::gemm(ws.cublas, a->opa, a->opb, d.m, d.n, d.k, a->alpha, A, d.lda, B, d.ldb, a->beta, C,
                                   d.ldc);
    } else {
        s = gpu::gemm(ws.cublas, a->opa, a->opb, d.m, d.n, d.k, a->alpha, A, d.lda, B, d.ldb, a->beta, C, d.ldc);
    }
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

/// The float gemm in a tensor-core arithmetic: its own codelet, so that its performance model is its own.
template <int Compute>
struct GemmFast {
    static void define(Kernel& k);
};
template <int Compute>
void GemmFast<Compute>::define(Kernel& k) {
    static const char* const symbols[] = {"", "starfact_sgemm_tf32", "starfact_sgemm_bf16", "starfact_sgemm_fp16",
                                                "starfact_sgemm_tf32x3"};
    define_kernel(k, "gemm", symbols[Compute], gemm_cpu<float>, STARFACT_CUDA_IMPL(gemm_cuda<float>),
                  {STARPU_R, STARPU_R, STARPU_RW});
}

}  // namespace

template <typename T>
void define_gemm(Kernel& k) {
    define_kernel(k, "gemm", by_precision<T>("starfact_sgemm", "starfact_dgemm"),
                  gemm_cpu<T>, STARFACT_CUDA_IMPL(gemm_cuda<T>),
                  {STARPU_R, STARPU_R, STARPU_RW});
}

/// The gemm codelet for precision T in arithmetic `compute` (TaskOptions::compute).
template <typename T>
const starpu_codelet* gemm_codelet(const Runtime& rt, int compute) {
    return by_compute<T, GemmFast>(rt, compute, &codelets<T>(rt).gemm.cl);
}

template <typename T>
void insert_gemm(const Runtime& rt, const TaskOptions& o, Op opa, Op opb, T alpha, starpu_data_handle_t A,
                 starpu_data_handle_t B, T beta, starpu_data_handle_t C) {
    const double m = tile_rows(C), n = tile_cols(C), k = opa == Op::NoTrans ? tile_cols(A) : tile_rows(A);
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(gemm_codelet<T>(rt, o.compute));
    t->handles[0] = A;
    t->handles[1] = B;
    t->handles[2] = C;
    t->cl_arg = pack(GemmArgs<T>{opa, opb, alpha, beta, cuda_contexts(rt), o.urgent, o.compute, o.watch});
    t->cl_arg_size = sizeof(GemmArgs<T>);
    t->cl_arg_free = 1;
    t->flops = 2.0 * m * n * k;
    submit(t, o, "gemm");
}

template void define_gemm<float>(Kernel&);
template void define_gemm<double>(Kernel&);
template void insert_gemm<float>(const Runtime&, const TaskOptions&, Op, Op, float, starpu_data_handle_t,
                                 starpu_data_handle_t, float, starpu_data_handle_t);
template void insert_gemm<double>(const Runtime&, const TaskOptions&, Op, Op, double, starpu_data_handle_t,
                                  starpu_data_handle_t, double, starpu_data_handle_t);

}  // namespace starfact::detail
