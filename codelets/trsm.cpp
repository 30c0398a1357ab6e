// trsm codelet: B := alpha * op(A)^-1 B (Left) or alpha * B op(A)^-1 (Right), A triangular.
//   buffers: 0 = A (R, triangular tile), 1 = B (RW)
// On CUDA, float tiles of a mixed-precision factor (TaskOptions::compute: their own codelets, so that their
// performance models are their own) solve the Cholesky panel's form (Right, Lower, Trans, NonUnit, alpha 1) and the
// LU's row-panel form (Left, Lower, NoTrans, Unit, alpha 1) by recursive halving into tensor-core gemms
// (kernels/trsm_recursive.hpp).
#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/trsm_recursive.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

template <typename T>
struct TrsmArgs {
    Side side;
    Uplo uplo;
    Op op;
    Diag diag;
    T alpha;
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
    int compute;  // TaskOptions::compute (float on CUDA: the recursive form's gemms on tensor cores)
    BreakdownWatch* watch;  // TaskOptions::watch: return at once after a breakdown
};

template <typename T>
void trsm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrsmArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    cpu::trsm(a->side, a->uplo, a->op, a->diag, static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])),
              static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1])), a->alpha, A,
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), B,
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void trsm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrsmArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const T* A = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])), n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1]));
    const int lda = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), ldb = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    // Only with tensor-core gemms: in float and double the recursion ran no faster than cuBLAS's own trsm
    // (tools/tune/trsm, docs/mixed_precision.md)
    const bool panel = a->compute != 0 && a->side == Side::Right && a->uplo == Uplo::Lower && a->op == Op::Trans &&
                       a->diag == Diag::NonUnit && a->alpha == T(1) && n > gpu::kTrsmRecursiveBase;
    // The tensor-core LU's row panels, L_kk^-1 A_kj (the mixed-precision gesv's float factorization)
    const bool lu_row = a->compute != 0 && a->side == Side::Left && a->uplo == Uplo::Lower && a->op == Op::NoTrans &&
                        a->diag == Diag::Unit && a->alpha == T(1) && m > gpu::kTrsmRecursiveBase;
    const cublasStatus_t s =
        panel    ? gpu::trsm_right_lower_trans(ws.cublas, a->compute, m, n, A, lda, B, ldb)
        : lu_row ? gpu::trsm_left_lower_unit(ws.cublas, a->compute, m, n, A, lda, B, ldb)
                 : gpu::trsm(ws.cublas, a->side, a->uplo, a->op, a->diag, m, n, a->alpha, A, lda, B, ldb);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

/// The float trsm in a tensor-core arithmetic: its own codelet, so that its performance model is its own.
template <int Compute>
struct TrsmFast {
    static void define(Kernel& k);
};
template <int Compute>
void TrsmFast<Compute>::define(Kernel& k) {
    static const char* const symbols[] = {"", "starfact_strsm_tf32", "starfact_strsm_bf16", "starfact_strsm_fp16",
                                                "starfact_strsm_tf32x3"};
    define_kernel(k, "trsm", symbols[Compute], trsm_cpu<float>, STARFACT_CUDA_IMPL(trsm_cuda<float>),
                  {STARPU_R, STARPU_RW});
}

}  // namespace

/// The trsm codelet for precision T in arithmetic `compute` (TaskOptions::compute).
template <typename T>
const starpu_codelet* trsm_codelet(const Runtime& rt, int compute) {
    return by_compute<T, TrsmFast>(rt, compute, &codelets<T>(rt).trsm.cl);
}

template <typename T>
void define_trsm(Kernel& k) {
    define_kernel(k, "trsm", by_precision<T>("starfact_strsm", "starfact_dtrsm"),
                  trsm_cpu<T>, STARFACT_CUDA_IMPL(trsm_cuda<T>), {STARPU_R, STARPU_RW});
}

template <typename T>
void insert_trsm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                 starpu_data_handle_t A, starpu_data_handle_t B) {
    const double m = tile_rows(B), n = tile_cols(B);
    starpu_task* t = starpu_task_create();
    const int compute = is_real_single_v<T> ? o.compute : 0;
    t->cl = const_cast<starpu_codelet*>(trsm_codelet<T>(rt, compute));
    t->handles[0] = A;
    t->handles[1] = B;
    t->cl_arg = pack(TrsmArgs<T>{side, uplo, op, diag, alpha, cuda_contexts(rt), o.urgent, compute, o.watch});
    t->cl_arg_size = sizeof(TrsmArgs<T>);
    t->cl_arg_free = 1;
    t->flops = side == Side::Left ? m * m * n : m * n * n;
    submit(t, o, "trsm");
}

template void define_trsm<float>(Kernel&);
template void define_trsm<double>(Kernel&);
template void insert_trsm<float>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag, float,
                                 starpu_data_handle_t, starpu_data_handle_t);
template void insert_trsm<double>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag, double,
                                  starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
