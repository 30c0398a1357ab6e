// potrf codelet: Cholesky of one diagonal tile (lower), reporting LAPACK info into a shared int.
//   buffers: 0 = A (RW, the tile), 1 = info (RW, one int: 0 or first failing global column)
#include <algorithm>
#include <complex>
#include <cmath>
#include <vector>

#include "codelets/breakdown.hpp"
#include "codelets/codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"
#ifdef STARFACT_HAVE_CUDA
#include "kernels/rpotrf/rpotrf_tuning.hpp"
#endif
#ifdef STARFACT_HAVE_POTF2
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#endif

namespace starfact::detail {
namespace {

struct PotrfArgs {
    int64_t offset;       // global index of the tile's first column
    CudaContexts* cuda;   // per-worker cuSOLVER handles (CUDA implementation)
    bool urgent;          // TaskOptions::urgent
    int compute;          // TaskOptions::compute: the recursive kernel's gemms on float tiles
    BreakdownWatch* watch;  // TaskOptions::watch: a breakdown reported there; nothing done after one
    int slot;             // the watch's slot for this tile's info (CUDA), -1 without
};

/// First column (1-based) among the first n whose diagonal is not a positive finite number, or 0.
template <typename T>
int first_bad_diagonal(const T* L, int n, int ld) {
    for (int j = 0; j < n; ++j) {
        const T d = L[j + static_cast<int64_t>(j) * ld];
        if (!(d > T(0)) || !std::isfinite(d)) return j + 1;
    }
    return 0;
}

template <typename T>
void potrf_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const PotrfArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0]));
    const int ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    if (skip_after_breakdown(a->watch)) return;
    int local = cpu::potrf(n, A, ld);
    // OpenBLAS lets a NaN diagonal through (NaN <= 0 is false): check what was computed.
    const int bad = first_bad_diagonal(A, local > 0 ? local : n, ld);
    if (bad > 0 && (local <= 0 || bad < local)) local = bad;
    if (local > 0 && *info == 0) *info = static_cast<int>(a->offset + local);
    if (a->watch) a->watch->report(*info);
}

#ifdef STARFACT_HAVE_CUDA
/// What both CUDA implementations read from their buffers and arguments.
template <typename T>
struct DiagTile {
    T* A;
    int n, ld;
    int* info;
    int64_t offset;
    CudaWorkerContext* c;
    BreakdownWatch* watch;
    int slot;
};
template <typename T>
DiagTile<T> diag_tile(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const PotrfArgs*>(cl_arg);
    return {reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])), static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0])),
            static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1])),
            a->offset, &a->cuda->local(), a->watch, a->slot};
}

/// cuSOLVER potrf, then a one-block kernel merging devInfo and a diagonal check into *info.
template <typename T>
void potrf_cuda(void* buffers[], void* cl_arg) {
    const DiagTile<T> t = diag_tile<T>(buffers, cl_arg);
    if (skip_after_breakdown(t.watch)) return;
    int lwork = 0;
    if (gpu::potrf_buffer_size(t.c->solver, t.n, t.A, t.ld, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    if (static_cast<size_t>(lwork) * sizeof(T) > t.c->work_bytes)
        STARPU_ABORT_MSG("potrf workspace too small: Runtime::reserve was not called for this tile size");
    if (gpu::potrf(t.c->solver, t.n, t.A, t.ld, static_cast<T*>(t.c->work), lwork, t.c->dev_info) !=
        CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf failed");
    gpu::launch_potrf_info<T>(t.A, t.n, t.ld, t.c->dev_info, t.info, t.offset, t.c->stream);
    if (t.watch) t.watch->watch_device_info(t.slot, t.info, t.c->stream);
}

/// Our recursive Cholesky (kernels/rpotrf/): the tile's updates and panel solves as large gemms, in the task's
/// arithmetic (tensor cores for the float factor of a mixed-precision solve), info merged on the device.
template <typename T>
void potrf_recursive_cuda(void* buffers[], void* cl_arg) {
    const DiagTile<T> t = diag_tile<T>(buffers, cl_arg);
    if (skip_after_breakdown(t.watch)) return;
    const auto* a = static_cast<const PotrfArgs*>(cl_arg);
    const gpu::RpotrfConfig c = gpu::rpotrf_default_config<T>(t.n, a->compute);
    try {
        gpu::rpotrf<T>(starpu_cublas_get_local_handle(), t.c->solver, t.c->stream, t.n, t.A, t.ld, t.info, t.offset,
                       t.c->work, t.c->work_bytes, c);
    } catch (const std::exception& e) {
        STARPU_ABORT_MSG("%s (reserve_potrf_workspace was not called for this tile size?)", e.what());
    }
    if (t.watch) t.watch->watch_device_info(t.slot, t.info, t.c->stream);
}

#ifdef STARFACT_HAVE_POTF2
/// The worker's second stream set, as the two-stream form of large tiles takes it.
gpu::Potf2Aux aux_of(const CudaWorkerContext& c) {
    gpu::Potf2Aux aux;
    aux.stream = c.aux_stream;
    aux.cublas = c.aux_cublas;
    aux.events[0] = c.aux_events[0];
    aux.events[1] = c.aux_events[1];
    return aux;
}

/// Our fused potf2 (kernels/potf2/): one asynchronous call, info merged on the device.
template <typename T>
void potrf_fused_cuda(void* buffers[], void* cl_arg) {
    const DiagTile<T> t = diag_tile<T>(buffers, cl_arg);
    if (skip_after_breakdown(t.watch)) return;
    if (gpu::potf2_workspace_bytes<T>(t.n) > t.c->work_bytes)
        STARPU_ABORT_MSG("potf2 workspace too small: reserve_potrf_workspace was not called for this tile size");
    const auto* a = static_cast<const PotrfArgs*>(cl_arg);
    if (a->urgent && gpu::potf2_default_config<T>(t.n).group == 0) {
        // A one-stream form on the highest-priority stream (the two-stream form puts its chain there).
        gpu::WorkerStream ws(a->cuda, true);
        gpu::potf2_tile<T>(ws.cublas, ws.stream, t.n, t.A, t.ld, t.info, t.offset, t.c->work, t.c->work_bytes);
        if (t.watch) t.watch->watch_device_info(t.slot, t.info, ws.stream);
        return;
    }
    const gpu::Potf2Aux aux = aux_of(*t.c);
    gpu::potf2_tile<T>(starpu_cublas_get_local_handle(), t.c->stream, t.n, t.A, t.ld, t.info, t.offset, t.c->work,
                       t.c->work_bytes, &aux);
    if (t.watch) t.watch->watch_device_info(t.slot, t.info, t.c->stream);
}
#endif
#endif

#ifdef STARFACT_HAVE_CUDA
template <typename T>
Workspace recursive_potrf_workspace(cusolverDnHandle_t h, int n) {
    Workspace w;
    w.device = gpu::rpotrf_workspace_bytes<T>(h, n, gpu::rpotrf_default_config<T>(n));
    return w;
}

template <typename T>
Workspace potrf_workspace(cusolverDnHandle_t h, int n) {
    // cuSOLVER sizes the workspace from (n, lda) alone; the matrix pointer is not read here.
    int lwork = 0;
    if (gpu::potrf_buffer_size(h, n, static_cast<T*>(nullptr), n, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    Workspace w;
    w.device = static_cast<size_t>(lwork) * sizeof(T);
#ifdef STARFACT_HAVE_POTF2
    if constexpr (!is_complex_v<T>) w.device = std::max(w.device, gpu::potf2_workspace_bytes<T>(n));  // real kernels
#endif
    return w;
}
#endif

template <typename T>
const char* potrf_symbol(DiagKernel kind) {
    switch (kind) {
        case DiagKernel::Fused: return by_precision<T>("starfact_spotrf_fused", "starfact_dpotrf_fused");
        case DiagKernel::Recursive: return by_precision<T>("starfact_spotrf_recursive", "starfact_dpotrf_recursive");
        default: return by_letter<T>("starfact_spotrf", "starfact_dpotrf", "starfact_cpotrf", "starfact_zpotrf");
    }
}

}  // namespace

// A simulation build has both, as the CUDA build it simulates (STARFACT_CUDA_IMPL).
bool recursive_potrf_available() {
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)
    return true;
#else
    return false;
#endif
}

bool fused_potf2_available() {
#if defined(STARFACT_HAVE_POTF2) || defined(STARFACT_SIMULATION)
    return true;
#else
    return false;
#endif
}

template <typename T>
void define_potrf(Kernel& k, DiagKernel kind) {
    starpu_cuda_func_t cuda = STARFACT_CUDA_IMPL(potrf_cuda<T>);
#ifdef STARFACT_HAVE_CUDA
    if (kind == DiagKernel::Recursive) cuda = potrf_recursive_cuda<T>;
#endif
#ifdef STARFACT_HAVE_POTF2
    if (kind == DiagKernel::Fused) cuda = potrf_fused_cuda<T>;
#endif
    define_kernel(k, "potrf", potrf_symbol<T>(kind), potrf_cpu<T>, cuda, {STARPU_RW, STARPU_RW});
}

template <typename T>
void insert_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                  int64_t offset, DiagKernel kind) {
    const double n = tile_rows(A);
    starpu_task* t = starpu_task_create();
    const Codelets<T>& cl = codelets<T>(rt);
    t->cl = const_cast<starpu_codelet*>(kind == DiagKernel::Fused && fused_potf2_available()    ? &cl.potrf_fused.cl
                                        : kind == DiagKernel::Recursive && recursive_potrf_available() ? &cl.potrf_recursive.cl
                                                                                                   : &cl.potrf.cl);
    t->handles[0] = A;
    t->handles[1] = info;
    t->cl_arg = pack(PotrfArgs{offset, cuda_contexts(rt), o.urgent, o.compute, o.watch, o.watch ? o.watch->take_slot() : -1});
    t->cl_arg_size = sizeof(PotrfArgs);
    t->cl_arg_free = 1;
    t->flops = n * n * n / 3.0 + n * n / 2.0 + n / 6.0;
    submit(t, o, "potrf");
}

#ifdef STARFACT_HAVE_POTF2
/// On one CUDA worker: factors an identity-like matrix of order n with the default configuration of
/// each precision (the one-stream and the two-stream forms, our kernels and cuBLAS's), synchronously.
template <typename T>
void warm_up_order(CudaWorkerContext& c, int n) {
    T* A = nullptr;
    int* info = nullptr;
    void* ws = nullptr;
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(T);
    if (cudaMalloc(&A, bytes) != cudaSuccess || cudaMalloc(&info, sizeof(int)) != cudaSuccess ||
        cudaMalloc(&ws, 256) != cudaSuccess) {
        cudaFree(A);
        cudaFree(info);
        return;  // no memory to spare: the first factorization pays the loading instead
    }
    cudaMemsetAsync(A, 0, bytes, c.stream);
    cudaMemsetAsync(info, 0, sizeof(int), c.stream);
    cudaStreamSynchronize(c.stream);
    const std::vector<T> ones(static_cast<size_t>(n), T(1));  // the diagonal, by a strided copy
    cudaMemcpy2D(A, (n + 1) * sizeof(T), ones.data(), sizeof(T), sizeof(T), n, cudaMemcpyHostToDevice);
    const gpu::Potf2Aux aux = aux_of(c);
    gpu::potf2_tile<T>(starpu_cublas_get_local_handle(), c.stream, n, A, n, info, 0, ws, 256, &aux);
    cudaStreamSynchronize(c.stream);
    cudaFree(A);
    cudaFree(info);
    cudaFree(ws);
}

void warm_up_on_worker(void* arg) {
    CudaWorkerContext& c = static_cast<CudaContexts*>(arg)->local();
    for (int n : {1000, 3100}) {  // the one-stream and the two-stream rows of the tuning table
        warm_up_order<float>(c, n);
        warm_up_order<double>(c, n);
    }
    cudaGetLastError();
}
#endif

void warm_up_gpu_kernels(const Runtime& rt) {
#ifdef STARFACT_HAVE_POTF2
    if (rt.cuda_workers() > 0) starpu_execute_on_each_worker(warm_up_on_worker, cuda_contexts(rt), STARPU_CUDA);
#else
    (void)rt;
#endif
}

template <typename T>
void reserve_potrf_workspace(const Runtime& rt, int nb, DiagKernel kind) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0) return;
    if constexpr (is_complex_v<T>) cuda_contexts(rt)->reserve(nb, potrf_workspace<T>);  // cuSOLVER's potrf only
    else cuda_contexts(rt)->reserve(nb, kind == DiagKernel::Recursive ? recursive_potrf_workspace<T> : potrf_workspace<T>);
#else
    (void)rt;
    (void)nb;
#endif
    (void)kind;
}

template void reserve_potrf_workspace<float>(const Runtime&, int, DiagKernel);
template void reserve_potrf_workspace<double>(const Runtime&, int, DiagKernel);
template void reserve_potrf_workspace<std::complex<float>>(const Runtime&, int, DiagKernel);
template void reserve_potrf_workspace<std::complex<double>>(const Runtime&, int, DiagKernel);
template void define_potrf<float>(Kernel&, DiagKernel);
template void define_potrf<double>(Kernel&, DiagKernel);
template void insert_potrf<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t,
                                  int64_t, DiagKernel);
template void insert_potrf<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t,
                                   int64_t, DiagKernel);

}  // namespace starfact::detail
