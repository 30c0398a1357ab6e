// The batched Cholesky chunk codelets (batched_chol_chunk.hpp): one task factors (and for posv solves) a
// contiguous chunk of a strided batch of small matrices. CPU: a loop of LAPACKE calls (the scalar layer's s, d, c,
// z); CUDA: the batched kernels (launch.hpp) on StarPU's stream of the worker for float and double, and for the
// complex types, which those kernels do not handle, the vendor's batched routines (kernels/batched_vendor/:
// cusolverDn<t>potrfBatched, cublas<t>trsmBatched) with the worker's handles on the same stream.
//   potrf: buffers 0 = A chunk (RW, vector of T), 1 = info chunk (W, vector of int)
//   posv:  buffers 0 = A chunk (RW), 1 = B chunk (RW), 2 = info chunk (W)
// Each codelet is owned by the Runtime (detail::kernel<define> in codelets/codelets.hpp), one per precision and operation.
#include "codelets/batched_chol_chunk.hpp"

#include <cmath>
#include <complex>
#include <exception>

#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/scalar.hpp"
#include "runtime/runtime_state.hpp"
#include "starfact/cholesky.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <starpu_cuda.h>

#include "kernels/batched_chol/launch.hpp"
#include "kernels/batched_vendor/vendor.hpp"
#include "runtime/cuda_contexts.hpp"
#endif

namespace starfact::detail {
namespace {

/// LAPACK's potrf on one matrix, with the kernels' info rule: the first column whose computed pivot
/// (its real part, for complex T) is not a positive finite number (OpenBLAS lets NaN pivots through, so the
/// diagonal is checked).
template <typename T>
int factor_one(int n, T* A, int lda) {
    int info = cpu::potrf(n, A, lda);
    const int last = info > 0 ? info : n;
    for (int j = 0; j < last; ++j) {
        const real_t<T> d = real_of(A[j + static_cast<int64_t>(j) * lda]);
        if (!(d > real_t<T>(0)) || !std::isfinite(d)) {
            if (info <= 0 || j + 1 < info) info = j + 1;
            break;
        }
    }
    return info < 0 ? 0 : info;
}

/// A task's buffers (the same on CPU and GPU workers: pointers into the worker's memory node).
template <typename T, bool POSV>
struct Buffers {
    T* A;
    T* B;
    int* info;
    explicit Buffers(void* buffers[])
        : A(reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]))),
          B(POSV ? reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[1])) : nullptr),
          info(reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[POSV ? 2 : 1]))) {}
};

template <typename T, bool POSV>
void chunk_cpu(void* buffers[], void* cl_arg) {
    const auto* c = static_cast<const CholeskyChunk*>(cl_arg);
    const Buffers<T, POSV> b(buffers);
    for (int64_t i = 0; i < c->count; ++i) {
        T* Ai = b.A + i * c->strideA;
        const int inf = factor_one(c->n, Ai, c->lda);
        b.info[i] = inf;
        if (POSV && inf == 0 && c->nrhs > 0) cpu::potrs(c->n, c->nrhs, Ai, c->lda, b.B + i * c->strideB, c->ldb);
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T, bool POSV>
void chunk_cuda(void* buffers[], void* cl_arg) {
    const auto* c = static_cast<const CholeskyChunk*>(cl_arg);
    const Buffers<T, POSV> b(buffers);
    batched::gpu::Args<T> g;
    g.n = c->n;
    g.nrhs = c->nrhs;
    g.A.base = b.A;
    g.A.stride = c->strideA;
    g.lda = c->lda;
    if (POSV) {
        g.B.base = b.B;
        g.B.stride = c->strideB;
        g.ldb = c->ldb;
    }
    g.info = b.info;
    g.batch = c->count;
    g.stream = starpu_cuda_get_local_stream();
    if constexpr (is_complex_v<T>) {
        // our kernels are real: the vendor's batched routines, with the worker's handles on its stream
        const batched::vendor::Handles h{starpu_cublas_get_local_handle(), c->cuda->local().solver, g.stream};
        try {
            POSV ? batched::vendor::posv<T>(h, g) : batched::vendor::potrf<T>(h, g);
        } catch (const std::exception& e) {
            STARPU_ABORT_MSG("batched chunk: %s", e.what());
        }
    } else {
        const bool ok = POSV ? batched::gpu::launch_posv<T>(g) : batched::gpu::launch_potrf<T>(g);
        if (!ok) STARPU_ABORT_MSG("batched chunk: no kernel for this order");
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) STARPU_ABORT_MSG("batched chunk: kernel launch failed: %s", cudaGetErrorString(e));
    }
}
#endif

template <typename T, bool POSV>
constexpr const char* chunk_symbol() {
    return POSV ? by_letter<T>("starfact_batched_sposv_chunk", "starfact_batched_dposv_chunk",
                               "starfact_batched_cposv_chunk", "starfact_batched_zposv_chunk")
                : by_letter<T>("starfact_batched_spotrf_chunk", "starfact_batched_dpotrf_chunk",
                               "starfact_batched_cpotrf_chunk", "starfact_batched_zpotrf_chunk");
}

template <typename T, bool POSV>
void define_chunk(Kernel& k) {
    if (POSV)
        define_kernel(k, "batched_posv_chunk", chunk_symbol<T, POSV>(), chunk_cpu<T, POSV>,
                      STARFACT_CUDA_IMPL((chunk_cuda<T, POSV>)), {STARPU_RW, STARPU_RW, STARPU_W});
    else
        define_kernel(k, "batched_potrf_chunk", chunk_symbol<T, POSV>(), chunk_cpu<T, POSV>,
                      STARFACT_CUDA_IMPL((chunk_cuda<T, POSV>)), {STARPU_RW, STARPU_W});
}


}  // namespace

template <typename T>
void insert_cholesky_chunk(const Runtime& rt, const TaskOptions& o, const CholeskyChunk& c, starpu_data_handle_t A,
                           starpu_data_handle_t B, starpu_data_handle_t info) {
    const bool posv = B != nullptr;
    Kernel& k = posv ? kernel<define_chunk<T, true>>(rt) : kernel<define_chunk<T, false>>(rt);
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->handles[0] = A;
    if (posv) t->handles[1] = B;
    t->handles[posv ? 2 : 1] = info;
    CholeskyChunk args = c;
    args.cuda = cuda_contexts(rt);
    t->cl_arg = pack(args);
    t->cl_arg_size = sizeof(CholeskyChunk);
    t->cl_arg_free = 1;
    // a complex multiply-add is four real ones
    t->flops = static_cast<double>(c.count) * (is_complex_v<T> ? 4.0 : 1.0) *
               (potrf_flops(c.n) + (posv ? potrs_flops(c.n, c.nrhs) : 0.0));
    TaskOptions named = o;
    named.name = posv ? "batched_posv_chunk" : "batched_potrf_chunk";
    submit(t, named, named.name);
}

template void insert_cholesky_chunk<float>(const Runtime&, const TaskOptions&, const CholeskyChunk&,
                                           starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);
template void insert_cholesky_chunk<double>(const Runtime&, const TaskOptions&, const CholeskyChunk&,
                                            starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);
template void insert_cholesky_chunk<std::complex<float>>(const Runtime&, const TaskOptions&, const CholeskyChunk&,
                                                         starpu_data_handle_t, starpu_data_handle_t,
                                                         starpu_data_handle_t);
template void insert_cholesky_chunk<std::complex<double>>(const Runtime&, const TaskOptions&, const CholeskyChunk&,
                                                          starpu_data_handle_t, starpu_data_handle_t,
                                                          starpu_data_handle_t);

}  // namespace starfact::detail
