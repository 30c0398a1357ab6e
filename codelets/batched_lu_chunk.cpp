// The batched LU chunk codelets (batched_lu_chunk.hpp): getrf or in-place inverse of a chunk of a strided
// batch of n x n matrices.
//   getrf buffers:   0 = A (vector, RW), 1 = ipiv (vector, RW: the entries between members' pivots, when stride_piv
//                    exceeds n, are the caller's and must come back as they were from a CUDA worker's copy),
//                    2 = info (vector, W, count)
//   inverse buffers: 0 = A (vector, RW), 1 = info (vector, W)
// CPU: a LAPACKE loop (the scalar layer's s, d, c, z); CUDA: the batched kernels (launch.hpp) on the worker's stream
// (asynchronous) for float and double, and for the complex types, which those kernels do not handle, the vendor's
// batched routines (kernels/batched_vendor/: cublas<t>getrfBatched, getriBatched) with StarPU's cuBLAS handle of the
// worker, on the same stream.
// Defined through detail::kernel<define>(rt) (codelets/codelets.hpp), so the codelets belong to the Runtime.
#include "codelets/batched_lu_chunk.hpp"


#include <complex>

#include "kernels/cpu_lapack.hpp"
#include "kernels/scalar.hpp"
#include "runtime/runtime_state.hpp"
#include "starfact/batched_lu.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <starpu_cuda.h>

#include <starpu_cublas_v2.h>

#include <exception>

#include "kernels/batched_lu/launch.hpp"
#include "kernels/batched_vendor/vendor.hpp"
#endif

namespace starfact::detail {
namespace {

/// A task's buffers (the same on CPU and GPU workers: pointers into the worker's memory node).
template <typename T, bool INV>
struct Buffers {
    T* A;
    int* ipiv;
    int* info;
    explicit Buffers(void* buffers[])
        : A(reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]))),
          ipiv(INV ? nullptr : reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]))),
          info(reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[INV ? 1 : 2]))) {}
};

template <typename T, bool INV>
void chunk_cpu(void* buffers[], void* cl_arg) {
    const auto* c = static_cast<const LuChunk*>(cl_arg);
    const Buffers<T, INV> b(buffers);
    int piv[32];
    T work[32 * 32];
    for (int64_t i = 0; i < c->count; ++i) {
        T* M = b.A + i * c->strideA;
        if (INV) {
            b.info[i] = cpu::getrf(c->n, c->n, M, c->lda, piv);
            if (b.info[i] == 0) cpu::getri(c->n, M, c->lda, piv, work, 32 * 32);
        } else {
            b.info[i] = cpu::getrf(c->n, c->n, M, c->lda, b.ipiv + i * c->stride_piv);
        }
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T, bool INV>
void chunk_cuda(void* buffers[], void* cl_arg) {
    const auto* c = static_cast<const LuChunk*>(cl_arg);
    const Buffers<T, INV> b(buffers);
    const batched::gpu::LuBatch<T> A{b.A, nullptr, c->strideA, c->lda};
    const cudaStream_t s = starpu_cuda_get_local_stream();
    if constexpr (is_complex_v<T>) {
        // our kernels are real: the vendor's batched routines, with StarPU's cuBLAS handle (bound to s)
        const batched::vendor::Handles h{starpu_cublas_get_local_handle(), nullptr, s};
        try {
            if (INV) batched::vendor::inverse<T>(h, c->n, A, A, nullptr, c->n, b.info, c->count);
            else batched::vendor::getrf<T>(h, c->n, A, b.ipiv, c->stride_piv, b.info, c->count);
        } catch (const std::exception& e) {
            STARPU_ABORT_MSG("batched LU chunk: %s", e.what());
        }
    } else {
        const cudaError_t e = INV ? batched::gpu::launch_inverse<T>(c->n, A, A, nullptr, c->n, b.info, c->count, s)
                                  : batched::gpu::launch_getrf<T>(c->n, A, b.ipiv, c->stride_piv, b.info, c->count, s);
        if (e != cudaSuccess) STARPU_ABORT_MSG("batched LU chunk: kernel launch failed: %s", cudaGetErrorString(e));
    }
}
#endif

/// Perf-model footprint: the order n and the chunk size (history models key on it).
uint32_t chunk_footprint(starpu_task* task) {
    const auto* c = static_cast<const LuChunk*>(task->cl_arg);
    return starpu_hash_crc32c_be(static_cast<uint32_t>(c->n),
                                 starpu_hash_crc32c_be(static_cast<uint32_t>(c->count), 0));
}

template <typename T, bool INV>
void define_chunk(Kernel& k) {
    if (INV)
        define_kernel(k, "batched_inverse_chunk",
                      by_letter<T>("starfact_batched_sinverse_chunk", "starfact_batched_dinverse_chunk",
                                   "starfact_batched_cinverse_chunk", "starfact_batched_zinverse_chunk"),
                      chunk_cpu<T, INV>, STARFACT_CUDA_IMPL((chunk_cuda<T, INV>)), {STARPU_RW, STARPU_W});
    else
        define_kernel(k, "batched_getrf_chunk",
                      by_letter<T>("starfact_batched_sgetrf_chunk", "starfact_batched_dgetrf_chunk",
                                   "starfact_batched_cgetrf_chunk", "starfact_batched_zgetrf_chunk"),
                      chunk_cpu<T, INV>, STARFACT_CUDA_IMPL((chunk_cuda<T, INV>)), {STARPU_RW, STARPU_RW, STARPU_W});
    k.model.footprint = chunk_footprint;
}

}  // namespace

template <typename T>
void insert_lu_chunk(const Runtime& rt, const TaskOptions& o, const LuChunk& c, starpu_data_handle_t A,
                     starpu_data_handle_t ipiv, starpu_data_handle_t info) {
    const bool inv = c.op == LuChunkOp::Inverse;
    Kernel& k = inv ? kernel<define_chunk<T, true>>(rt) : kernel<define_chunk<T, false>>(rt);
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->handles[0] = A;
    if (inv) {
        t->handles[1] = info;
    } else {
        t->handles[1] = ipiv;
        t->handles[2] = info;
    }
    t->cl_arg = pack(c);
    t->cl_arg_size = sizeof(LuChunk);
    t->cl_arg_free = 1;
    // a complex multiply-add is four real ones
    t->flops = static_cast<double>(c.count) * (is_complex_v<T> ? 4.0 : 1.0) *
               (batched::getrf_flops(c.n) + (inv ? batched::getri_flops(c.n) : 0.0));
    TaskOptions named = o;
    named.name = inv ? "batched_inverse_chunk" : "batched_getrf_chunk";
    submit(t, named, named.name);
}

template void insert_lu_chunk<float>(const Runtime&, const TaskOptions&, const LuChunk&, starpu_data_handle_t,
                                     starpu_data_handle_t, starpu_data_handle_t);
template void insert_lu_chunk<double>(const Runtime&, const TaskOptions&, const LuChunk&, starpu_data_handle_t,
                                      starpu_data_handle_t, starpu_data_handle_t);
template void insert_lu_chunk<std::complex<float>>(const Runtime&, const TaskOptions&, const LuChunk&,
                                                   starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);
template void insert_lu_chunk<std::complex<double>>(const Runtime&, const TaskOptions&, const LuChunk&,
                                                    starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
