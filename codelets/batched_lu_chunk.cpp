// Batched LU chunk codelets (getrf and in-place inverse of a chunk of contiguous n x n matrices):
//   getrf buffers:   0 = A (vector, RW, count*n*n), 1 = ipiv (vector, W, count*n), 2 = info (vector, W, count)
//   inverse buffers: 0 = A (vector, RW), 1 = info (vector, W)
// CPU: a LAPACKE loop; CUDA: starfact's batched kernels on the worker's stream (asynchronous).
// Defined through Runtime::kernel, so the codelets belong to the Runtime.
#include <lapacke.h>

#include <string>

#include "codelets/cuda/batched_lu/chunk_codelet.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <starpu_cuda.h>

#include "codelets/cuda/batched_lu/launch.hpp"
#endif

namespace starfact::detail {
namespace {

struct ChunkArgs {
    int n;
    int64_t count;
};

inline int lapack_getrf(int n, float* A, int* ipiv) { return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv); }
inline int lapack_getrf(int n, double* A, int* ipiv) { return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv); }
inline int lapack_getri(int n, float* A, const int* ipiv, float* work, int lwork) {
    return LAPACKE_sgetri_work(LAPACK_COL_MAJOR, n, A, n, ipiv, work, lwork);
}
inline int lapack_getri(int n, double* A, const int* ipiv, double* work, int lwork) {
    return LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, A, n, ipiv, work, lwork);
}

template <typename T>
void getrf_chunk_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ChunkArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    int* ipiv = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    int* info = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[2]));
    const int64_t nn = int64_t(a->n) * a->n;
    for (int64_t b = 0; b < a->count; ++b) info[b] = lapack_getrf(a->n, A + b * nn, ipiv + b * a->n);
}

template <typename T>
void inverse_chunk_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ChunkArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    int* info = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    const int64_t nn = int64_t(a->n) * a->n;
    int ipiv[32];
    T work[32 * 32];
    for (int64_t b = 0; b < a->count; ++b) {
        T* M = A + b * nn;
        info[b] = lapack_getrf(a->n, M, ipiv);
        if (info[b] == 0) lapack_getri(a->n, M, ipiv, work, 32 * 32);
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void getrf_chunk_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ChunkArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    int* ipiv = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    int* info = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[2]));
    const int64_t nn = int64_t(a->n) * a->n;
    const batched::kernels::BatchRef<T> ref{A, nullptr, nn, a->n};
    if (batched::kernels::getrf_dispatch<T>(a->n, ref, ipiv, a->n, info, a->count, starpu_cuda_get_local_stream()) !=
        cudaSuccess)
        STARPU_ABORT_MSG("batched getrf kernel launch failed");
}

template <typename T>
void inverse_chunk_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ChunkArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffers[0]));
    int* info = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    const int64_t nn = int64_t(a->n) * a->n;
    const batched::kernels::BatchRef<T> ref{A, nullptr, nn, a->n};
    if (batched::kernels::inverse_dispatch<T>(a->n, ref, ref, nullptr, a->n, info, a->count, starpu_cuda_get_local_stream()) !=
        cudaSuccess)
        STARPU_ABORT_MSG("batched inverse kernel launch failed");
}
#endif

template <typename T> constexpr const char* prec_name();
template <> constexpr const char* prec_name<float>() { return "s"; }
template <> constexpr const char* prec_name<double>() { return "d"; }

/// Perf-model footprint: the order n and the chunk size (history models key on it).
uint32_t chunk_footprint(starpu_task* task) {
    const auto* a = static_cast<const ChunkArgs*>(task->cl_arg);
    return starpu_hash_crc32c_be(static_cast<uint32_t>(a->n), starpu_hash_crc32c_be(static_cast<uint32_t>(a->count), 0));
}

template <typename T>
void define_getrf_chunk(Kernel& k) {
    define_kernel(k, "batched_getrf_chunk",
                  sizeof(T) == 4 ? "starfact_batched_sgetrf_chunk" : "starfact_batched_dgetrf_chunk",
                  getrf_chunk_cpu<T>, STARFACT_CUDA_IMPL(getrf_chunk_cuda<T>), {STARPU_RW, STARPU_W, STARPU_W});
    k.model.footprint = chunk_footprint;
}

template <typename T>
void define_inverse_chunk(Kernel& k) {
    define_kernel(k, "batched_inverse_chunk",
                  sizeof(T) == 4 ? "starfact_batched_sinverse_chunk" : "starfact_batched_dinverse_chunk",
                  inverse_chunk_cpu<T>, STARFACT_CUDA_IMPL(inverse_chunk_cuda<T>), {STARPU_RW, STARPU_W});
    k.model.footprint = chunk_footprint;
}

}  // namespace

template <typename T>
void insert_batched_lu_chunk(const Runtime& rt, const TaskOptions& o, BatchedLuOp op, int n, int64_t count,
                             starpu_data_handle_t A, starpu_data_handle_t ipiv, starpu_data_handle_t info) {
    const bool inv = op == BatchedLuOp::Inverse;
    const std::string key = std::string(inv ? "batched_inverse_chunk<" : "batched_getrf_chunk<") + prec_name<T>() + ">";
    Kernel& k = rt.kernel(key, inv ? define_inverse_chunk<T> : define_getrf_chunk<T>);
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->handles[0] = A;
    if (inv) {
        t->handles[1] = info;
    } else {
        t->handles[1] = ipiv;
        t->handles[2] = info;
    }
    t->cl_arg = pack(ChunkArgs{n, count});
    t->cl_arg_size = sizeof(ChunkArgs);
    t->cl_arg_free = 1;
    const double dn = n;
    const double lu = 2.0 / 3.0 * dn * dn * dn - dn * dn / 2.0 + 5.0 / 6.0 * dn;
    const double ri = 4.0 / 3.0 * dn * dn * dn - dn * dn + 5.0 / 3.0 * dn;
    t->flops = static_cast<double>(count) * (inv ? lu + ri : lu);
    submit(t, o, inv ? "batched_inverse_chunk" : "batched_getrf_chunk");
}

template void insert_batched_lu_chunk<float>(const Runtime&, const TaskOptions&, BatchedLuOp, int, int64_t,
                                             starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);
template void insert_batched_lu_chunk<double>(const Runtime&, const TaskOptions&, BatchedLuOp, int, int64_t,
                                              starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);

}  // namespace starfact::detail
