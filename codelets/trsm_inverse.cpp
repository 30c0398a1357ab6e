// trsm_inverse codelet: the panel solve of the inverse path, B := B Linv^T with Linv = L^-1 from the
// trtri codelet (strictly upper part zero). On the GPU it is one gemm into the worker's scratch tile
// and a copy back: cuBLAS dtrsm on square tiles runs several times slower than dgemm (traces in
// docs/variants.md); MAGMA's trsm inverts diagonal blocks for the same reason.
//   buffers: 0 = Linv (R), 1 = B (RW)
#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct TrsmInverseArgs {
    CudaContexts* cuda;
    int compute;  // TaskOptions::compute (float on CUDA: the gemm on tensor cores)
    BreakdownWatch* watch;  // TaskOptions::watch: return at once after a breakdown
};

template <typename T>
void trsm_inverse_cpu(void* buffers[], void* cl_arg) {
    if (skip_after_breakdown(static_cast<const TrsmInverseArgs*>(cl_arg)->watch)) return;
    const T* Linv = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    cpu::trmm(Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])),
              static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1])), T(1), Linv,
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), B, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void trsm_inverse_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrsmInverseArgs*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    CudaWorkerContext& c = a->cuda->local();
    const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[1])), n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1]));
    const int ldb = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    T* B = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    if (static_cast<size_t>(m) * n * sizeof(T) > c.scratch_bytes)
        STARPU_ABORT_MSG("trsm_inverse: scratch too small (reserve_inverse_workspace not called for this tile size)");
    T* X = static_cast<T*>(c.scratch);
    const T* Linv = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int ldl = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    cublasStatus_t s;
    if constexpr (is_real_single_v<T>)
        s = a->compute ? gpu::gemm_fast(starpu_cublas_get_local_handle(), a->compute, Op::NoTrans, Op::Trans, m, n, n,
                                        T(1), B, ldb, Linv, ldl, T(0), X, m)
                       : gpu::gemm(starpu_cublas_get_local_handle(), Op::NoTrans, Op::Trans, m, n, n, T(1), B, ldb,
                                   Linv, ldl, T(0), X, m);
    else
        s = gpu::gemm(starpu_cublas_get_local_handle(), Op::NoTrans, Op::Trans, m, n, n, T(1), B, ldb, Linv, ldl, T(0),
                      X, m);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
    if (cudaMemcpy2DAsync(B, ldb * sizeof(T), X, m * sizeof(T), m * sizeof(T), n, cudaMemcpyDeviceToDevice, c.stream) !=
        cudaSuccess)
        STARPU_ABORT_MSG("trsm_inverse: cudaMemcpy2DAsync failed");
}
#endif

/// The float solve in a tensor-core arithmetic: its own codelet, so that its performance model is its own.
template <int Compute>
struct TrsmInverseFast {
    static void define(Kernel& k);
};
template <int Compute>
void TrsmInverseFast<Compute>::define(Kernel& k) {
    static const char* const symbols[] = {"", "starfact_strsm_inverse_tf32", "starfact_strsm_inverse_bf16",
                                          "starfact_strsm_inverse_fp16", "starfact_strsm_inverse_tf32x3"};
    define_kernel(k, "trsm_inv", symbols[Compute], trsm_inverse_cpu<float>,
                  STARFACT_CUDA_IMPL(trsm_inverse_cuda<float>), {STARPU_R, STARPU_RW});
}

}  // namespace

template <typename T>
void define_trsm_inverse(Kernel& k) {
    define_kernel(k, "trsm_inv", by_precision<T>("starfact_strsm_inverse", "starfact_dtrsm_inverse"),
                  trsm_inverse_cpu<T>,
                  STARFACT_CUDA_IMPL(trsm_inverse_cuda<T>), {STARPU_R, STARPU_RW});
}

template <typename T>
void insert_trsm_inverse(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Linv, starpu_data_handle_t B) {
    const double m = tile_rows(B), n = tile_cols(B);
    starpu_task* t = starpu_task_create();
    const int compute = is_real_single_v<T> ? o.compute : 0;
    t->cl = const_cast<starpu_codelet*>(by_compute<T, TrsmInverseFast>(rt, compute, &codelets<T>(rt).trsm_inverse.cl));
    t->handles[0] = Linv;
    t->handles[1] = B;
    t->cl_arg = pack(TrsmInverseArgs{cuda_contexts(rt), compute, o.watch});
    t->cl_arg_size = sizeof(TrsmInverseArgs);
    t->cl_arg_free = 1;
    t->flops = m * n * n;  // counted as the trsm it replaces
    submit(t, o, "trsm_inv");
}

template void define_trsm_inverse<float>(Kernel&);
template void define_trsm_inverse<double>(Kernel&);
template void insert_trsm_inverse<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t);
template void insert_trsm_inverse<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
