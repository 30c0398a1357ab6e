// trtri codelet: Linv := L^-1 for a lower-triangular diagonal tile, strictly upper part zeroed, so
// that the panel solves of the inverse path (codelets/trsm_inverse.cpp) are plain gemms. On CUDA by recursive
// halving into gemms (kernels/trtri_recursive.hpp), in the tensor-core arithmetic of a mixed-precision factor's
// float tiles (TaskOptions::compute: their own codelets, so that their performance models are their own).
//   buffers: 0 = L (R, the factored diagonal tile), 1 = Linv (W, a temporary tile)
#include <cstring>
#include <type_traits>

#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/trtri_recursive.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct TrtriArgs {
    CudaContexts* cuda;
    int compute;  // TaskOptions::compute (float on CUDA: the recursion's gemms on tensor cores)
    BreakdownWatch* watch;  // TaskOptions::watch: return at once after a breakdown
};

template <typename T>
void copy_lower_zero_upper(const T* L, int ldl, T* X, int ldx, int n) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) X[i + j * ldx] = i >= j ? L[i + j * ldl] : T(0);
}

template <typename T>
void trtri_cpu(void* buffers[], void* cl_arg) {
    if (skip_after_breakdown(static_cast<const TrtriArgs*>(cl_arg)->watch)) return;
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    T* X = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const int ldx = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    copy_lower_zero_upper(reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                          static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), X, ldx, n);
    cpu::trtri(n, X, ldx);  // a singular L (failed potrf) is reported by potrf's info already
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void trtri_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TrtriArgs*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    CudaWorkerContext& c = a->cuda->local();
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    const int ldl = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    T* X = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    const int ldx = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1]));
    if (static_cast<size_t>(gpu::trtri_recursive_scratch(n)) * sizeof(T) > c.scratch_bytes)
        STARPU_ABORT_MSG("trtri: scratch too small (reserve_inverse_workspace not called for this tile size)");
    const T* L = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const cublasStatus_t s = gpu::trtri_lower_recursive<T>(starpu_cublas_get_local_handle(), c.stream, a->compute, n,
                                                           L, ldl, X, ldx, static_cast<T*>(c.scratch));
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

#ifdef STARFACT_HAVE_CUDA
template <typename T>
Workspace trtri_workspace(cusolverDnHandle_t, int n) {
    Workspace w;
    w.scratch = static_cast<size_t>(n) * n * sizeof(T);  // trsm_inverse's out-of-place gemm, trtri's products
    return w;
}
#endif

/// The float trtri in a tensor-core arithmetic: its own codelet, so that its performance model is its own.
template <int Compute>
struct TrtriFast {
    static void define(Kernel& k);
};
template <int Compute>
void TrtriFast<Compute>::define(Kernel& k) {
    static const char* const symbols[] = {"", "starfact_strtri_tf32", "starfact_strtri_bf16", "starfact_strtri_fp16",
                                                "starfact_strtri_tf32x3"};
    define_kernel(k, "trtri", symbols[Compute], trtri_cpu<float>, STARFACT_CUDA_IMPL(trtri_cuda<float>),
                  {STARPU_R, STARPU_W});
}

}  // namespace

template <typename T>
void reserve_inverse_workspace(const Runtime& rt, int nb) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() > 0) cuda_contexts(rt)->reserve(nb, trtri_workspace<T>);
#else
    (void)rt;
    (void)nb;
#endif
}

template <typename T>
void define_trtri(Kernel& k) {
    define_kernel(k, "trtri", by_precision<T>("starfact_strtri", "starfact_dtrtri"),
                  trtri_cpu<T>, STARFACT_CUDA_IMPL(trtri_cuda<T>), {STARPU_R, STARPU_W});
}

template <typename T>
void insert_trtri(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t L, starpu_data_handle_t Linv) {
    const double n = tile_rows(L);
    starpu_task* t = starpu_task_create();
    const int compute = is_real_single_v<T> ? o.compute : 0;
    t->cl = const_cast<starpu_codelet*>(by_compute<T, TrtriFast>(rt, compute, &codelets<T>(rt).trtri.cl));
    t->handles[0] = L;
    t->handles[1] = Linv;
    t->cl_arg = pack(TrtriArgs{cuda_contexts(rt), compute, o.watch});
    t->cl_arg_size = sizeof(TrtriArgs);
    t->cl_arg_free = 1;
    t->flops = n * n * n / 3.0;
    submit(t, o, "trtri");
}

template void reserve_inverse_workspace<float>(const Runtime&, int);
template void reserve_inverse_workspace<double>(const Runtime&, int);
template void define_trtri<float>(Kernel&);
template void define_trtri<double>(Kernel&);
template void insert_trtri<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t);
template void insert_trtri<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
