// syrk codelet: C := alpha * op(A) op(A)^T + beta * C, C symmetric (uplo triangle updated).
//   buffers: 0 = A (R), 1 = C (RW)
#include <type_traits>

#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/syrk_recursive.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

template <typename T>
struct SyrkArgs {
    Uplo uplo;
    Op op;
    T alpha, beta;
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
    int compute;  // TaskOptions::compute (float on CUDA: the whole tile by a tensor-core gemm)
    BreakdownWatch* watch;  // TaskOptions::watch: return at once after a breakdown
};

template <typename T>
void syrk_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const SyrkArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* C = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1]));
    const int k = static_cast<int>(a->op == Op::NoTrans ? STARPU_MATRIX_GET_NY(buffers[0])
                                                        : STARPU_MATRIX_GET_NX(buffers[0]));
    cpu::syrk(a->uplo, a->op, n, k, a->alpha, A, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), a->beta, C,
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void syrk_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const SyrkArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* C = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1]));
    const int k = static_cast<int>(a->op == Op::NoTrans ? STARPU_MATRIX_GET_NY(buffers[0])
                                                        : STARPU_MATRIX_GET_NX(buffers[0]));
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const int lda = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), ldc = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    cublasStatus_t s;
    if constexpr (is_real_single_v<T>) {
        // cuBLAS has no tensor-core syrk: the Cholesky's form (Lower, NoTrans) by halving into gemms, blocks of
        // kSyrkRecursiveBase on the diagonal whole (kernels/syrk_recursive.hpp); other forms one gemm over the whole
        // tile (both triangles: n^2 k more flops).
        const Op other = a->op == Op::NoTrans ? Op::Trans : Op::NoTrans;
        if (a->compute && a->uplo == Uplo::Lower && a->op == Op::NoTrans)
            s = gpu::syrk_lower_fast(ws.cublas, a->compute, n, k, a->alpha, A, lda, a->beta, C, ldc);
        else
            s = a->compute ? gpu::gemm_fast(ws.cublas, a->compute, a->op, other, n, n, k, a->alpha, A, lda, A, lda,
                                            a->beta, C, ldc)
                           : gpu::syrk(ws.cublas, a->uplo, a->op, n, k, a->alpha, A, lda, a->beta, C, ldc);
    } else {
        s = gpu::syrk(ws.cublas, a->uplo, a->op, n, k, a->alpha, A, lda, a->beta, C, ldc);
    }
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

/// The float syrk in a tensor-core arithmetic: its own codelet, so that its performance model is its own.
template <int Compute>
struct SyrkFast {
    static void define(Kernel& k);
};
template <int Compute>
void SyrkFast<Compute>::define(Kernel& k) {
    static const char* const symbols[] = {"", "starfact_ssyrk_tf32", "starfact_ssyrk_bf16", "starfact_ssyrk_fp16",
                                                "starfact_ssyrk_tf32x3"};
    define_kernel(k, "syrk", symbols[Compute], syrk_cpu<float>, STARFACT_CUDA_IMPL(syrk_cuda<float>),
                  {STARPU_R, STARPU_RW});
}

template <typename T>
const starpu_codelet* syrk_codelet(const Runtime& rt, int compute) {
    return by_compute<T, SyrkFast>(rt, compute, &codelets<T>(rt).syrk.cl);
}

}  // namespace

template <typename T>
void define_syrk(Kernel& k) {
    define_kernel(k, "syrk", by_precision<T>("starfact_ssyrk", "starfact_dsyrk"),
                  syrk_cpu<T>, STARFACT_CUDA_IMPL(syrk_cuda<T>), {STARPU_R, STARPU_RW});
}

template <typename T>
void insert_syrk(const Runtime& rt, const TaskOptions& o, Uplo uplo, Op op, T alpha, starpu_data_handle_t A,
                 T beta, starpu_data_handle_t C) {
    const double n = tile_rows(C), k = op == Op::NoTrans ? tile_cols(A) : tile_rows(A);
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(syrk_codelet<T>(rt, o.compute));
    t->handles[0] = A;
    t->handles[1] = C;
    t->cl_arg = pack(SyrkArgs<T>{uplo, op, alpha, beta, cuda_contexts(rt), o.urgent, o.compute, o.watch});
    t->cl_arg_size = sizeof(SyrkArgs<T>);
    t->cl_arg_free = 1;
    t->flops = n * (n + 1) * k;
    submit(t, o, "syrk");
}

template void define_syrk<float>(Kernel&);
template void define_syrk<double>(Kernel&);
template void insert_syrk<float>(const Runtime&, const TaskOptions&, Uplo, Op, float, starpu_data_handle_t, float,
                                 starpu_data_handle_t);
template void insert_syrk<double>(const Runtime&, const TaskOptions&, Uplo, Op, double, starpu_data_handle_t,
                                  double, starpu_data_handle_t);

}  // namespace starfact::detail
