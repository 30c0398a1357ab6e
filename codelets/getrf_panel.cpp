// getrf_panel codelet: the panel of one tile-LU step, with partial pivoting over the whole tile column.
//   buffers: 0 .. count-1 = the tiles A[k][k] .. A[mt-1][k] (RW), count = info (RW, one int),
//            count+1 = the step's pivots (W, vector of int; absent without pivoting)
// CPU: gathers the column into a contiguous array, LAPACKE getrf, scatters it back.
// CUDA: gathers into the worker's device scratch (cudaMemcpy2DAsync on the worker's stream, or its
// highest-priority stream when the task is urgent), cuSOLVER
// <t>getrf with device pivots, scatters back, and a one-block kernel writes the global pivots and info.
// A column of one tile (the last step, or a matrix of one tile) is factored in place, without the copies;
// so is the diagonal tile without pivoting (getrf_nopiv).
// Real and complex tiles alike (the complex LU: algorithms/getrf_complex.cpp).

#include <algorithm>
#include <complex>
#include <vector>

#include "codelets/lu_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct PanelArgs {
    int64_t offset;      // global index of the panel's first row and column
    int count;           // tiles in the column
    bool pivoting;
    bool urgent;         // CUDA: on the worker's highest-priority stream (the panel is the critical path)
    CudaContexts* cuda;  // per-worker cuSOLVER handles and workspaces (CUDA implementation)
};

/// Unpivoted LU of an n x n tile in place (right-looking, rank-1 updates); returns the first exactly-zero
/// pivot (1-based) or 0. A zero pivot leaves its column unscaled (no division by zero).
template <typename T>
int getrf_nopiv_tile(int n, T* A, int ld) {
    int info = 0;
    for (int j = 0; j < n; ++j) {
        T* col = A + j + static_cast<int64_t>(j) * ld;
        const T p = col[0];
        if (p == T(0)) {
            if (info == 0) info = j + 1;
            continue;
        }
        const T inv = T(1) / p;
        for (int i = 1; i < n - j; ++i) col[i] *= inv;
        if (j + 1 < n) cpu::ger(n - j - 1, n - j - 1, T(-1), col + 1, 1, col + ld, ld, col + ld + 1, ld);
    }
    return info;
}

template <typename T>
void panel_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const PanelArgs*>(cl_arg);
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[a->count]));
    const int kb = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    int local;
    if (!a->pivoting) {
        local = getrf_nopiv_tile(kb, reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                                 static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])));
    } else if (a->count == 1) {
        std::vector<int> ip(static_cast<size_t>(kb));
        local = cpu::getrf(kb, kb, reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                           static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), ip.data());
        int* piv = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[a->count + 1]));
        for (int i = 0; i < kb; ++i) piv[i] = static_cast<int>(a->offset + ip[i]);
    } else {
        int rows = 0;
        for (int t = 0; t < a->count; ++t) rows += static_cast<int>(STARPU_MATRIX_GET_NX(buffers[t]));
        std::vector<T> P(static_cast<size_t>(rows) * kb);
        auto copy = [&](bool gather) {
            int r0 = 0;
            for (int t = 0; t < a->count; ++t) {
                T* tile = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[t]));
                const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[t]));
                const int64_t ld = STARPU_MATRIX_GET_LD(buffers[t]);
                for (int j = 0; j < kb; ++j) {
                    T* p = P.data() + r0 + static_cast<int64_t>(j) * rows;
                    T* q = tile + j * ld;
                    if (gather) std::copy(q, q + m, p);
                    else std::copy(p, p + m, q);
                }
                r0 += m;
            }
        };
        copy(true);
        std::vector<int> ip(static_cast<size_t>(kb));
        local = cpu::getrf(rows, kb, P.data(), rows, ip.data());
        copy(false);
        int* piv = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[a->count + 1]));
        for (int i = 0; i < kb; ++i) piv[i] = static_cast<int>(a->offset + ip[i]);
    }
    if (local > 0 && *info == 0) *info = static_cast<int>(a->offset + local);
}

#ifdef STARFACT_HAVE_CUDA
constexpr size_t kAlign = 256;
inline size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

/// Device workspace (c.work) of a panel of `rows` rows, at most `rows` columns: cuSOLVER's getrf
/// workspace for a rows x rows matrix (an upper bound for narrower panels), then rows device pivots.
template <typename T>
Workspace getrf_work_need(cusolverDnHandle_t h, int rows) {
    int lwork = 0;
    if (gpu::getrf_buffer_size(h, rows, rows, static_cast<T*>(nullptr), rows, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>getrf_bufferSize failed");
    Workspace w;
    w.device = aligned(static_cast<size_t>(lwork) * sizeof(T)) + static_cast<size_t>(rows) * sizeof(int);
    return w;
}
/// Device scratch (c.scratch) for the gathered panel: `units` blocks of 1024 elements.
template <typename T>
Workspace getrf_panel_need(cusolverDnHandle_t, int units) {
    Workspace w;
    w.scratch = static_cast<size_t>(units) * 1024 * sizeof(T);
    return w;
}

template <typename T>
void panel_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const PanelArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const cudaStream_t s = ws.stream;
    // cuSOLVER's handle is bound to the worker's stream: moved to the urgent one for this task only
    struct SolverStream {
        cusolverDnHandle_t h;
        cudaStream_t home;
        ~SolverStream() { cusolverDnSetStream(h, home); }
    } bind{c.solver, c.stream};
    if (cusolverDnSetStream(c.solver, s) != CUSOLVER_STATUS_SUCCESS) STARPU_ABORT_MSG("cusolverDnSetStream failed");
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[a->count]));
    const int kb = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    int rows = 0;
    for (int t = 0; t < a->count; ++t) rows += static_cast<int>(STARPU_MATRIX_GET_NX(buffers[t]));
    T* P;
    int ldp;
    const bool gather = a->pivoting && a->count > 1;
    if (gather) {
        if (static_cast<size_t>(rows) * kb * sizeof(T) > c.scratch_bytes)
            STARPU_ABORT_MSG("getrf panel scratch too small: reserve_getrf_panel_workspace was not called");
        P = static_cast<T*>(c.scratch);
        ldp = rows;
        int r0 = 0;
        for (int t = 0; t < a->count; ++t) {
            const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[t]));
            if (cudaMemcpy2DAsync(P + r0, sizeof(T) * rows, reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[t])),
                                  sizeof(T) * STARPU_MATRIX_GET_LD(buffers[t]), sizeof(T) * m, kb,
                                  cudaMemcpyDeviceToDevice, s) != cudaSuccess)
                STARPU_ABORT_MSG("getrf panel: gather failed");
            r0 += m;
        }
    } else {
        P = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
        ldp = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    }
    int lwork = 0;
    if (gpu::getrf_buffer_size(c.solver, rows, kb, P, ldp, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>getrf_bufferSize failed");
    const size_t work_bytes = aligned(static_cast<size_t>(lwork) * sizeof(T));
    if (work_bytes + static_cast<size_t>(kb) * sizeof(int) > c.work_bytes)
        STARPU_ABORT_MSG("getrf panel workspace too small: reserve_getrf_panel_workspace was not called");
    int* dev_ipiv = a->pivoting ? reinterpret_cast<int*>(static_cast<char*>(c.work) + work_bytes) : nullptr;
    if (gpu::getrf(c.solver, rows, kb, P, ldp, static_cast<T*>(c.work), dev_ipiv, c.dev_info) !=
        CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>getrf failed");
    int* piv = nullptr;
    if (gather) {
        int r0 = 0;
        for (int t = 0; t < a->count; ++t) {
            const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[t]));
            if (cudaMemcpy2DAsync(reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[t])),
                                  sizeof(T) * STARPU_MATRIX_GET_LD(buffers[t]), P + r0, sizeof(T) * rows, sizeof(T) * m,
                                  kb, cudaMemcpyDeviceToDevice, s) != cudaSuccess)
                STARPU_ABORT_MSG("getrf panel: scatter failed");
            r0 += m;
        }
    }
    if (a->pivoting) piv = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[a->count + 1]));
    gpu::launch_panel_pivots(dev_ipiv, a->pivoting ? kb : 0, c.dev_info, piv, info, a->offset, s);
}
#endif

template <typename T>
constexpr const char* panel_symbol(bool p) {
    return p ? by_letter<T>("starfact_sgetrf_panel", "starfact_dgetrf_panel", "starfact_cgetrf_panel",
                            "starfact_zgetrf_panel")
             : by_letter<T>("starfact_sgetrf_nopiv", "starfact_dgetrf_nopiv", "starfact_cgetrf_nopiv",
                            "starfact_zgetrf_nopiv");
}

template <typename T, bool PIVOTING>
void define_panel(Kernel& k) {
    const char* name = PIVOTING ? "getrf_panel" : "getrf_nopiv";
    define_kernel(k, name, panel_symbol<T>(PIVOTING), panel_cpu<T>, STARFACT_CUDA_IMPL(panel_cuda<T>),
                  {});  // modes per task (dyn_modes)
}

}  // namespace

template <typename T>
void insert_getrf_panel(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& col,
                        starpu_data_handle_t piv, starpu_data_handle_t info, int64_t offset, bool pivoting) {
    Kernel& k = pivoting ? kernel<define_panel<T, true>>(rt) : kernel<define_panel<T, false>>(rt);
    const int count = static_cast<int>(col.size());
    const int nbuffers = count + (pivoting ? 2 : 1);
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->nbuffers = nbuffers;
    // StarPU frees dyn_handles and dyn_modes with free() when the task is destroyed.
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(nbuffers * sizeof(starpu_data_handle_t)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(nbuffers * sizeof(starpu_data_access_mode)));
    double rows = 0;
    for (int i = 0; i < count; ++i) {
        t->dyn_handles[i] = col[i];
        t->dyn_modes[i] = STARPU_RW;
        rows += tile_rows(col[i]);
    }
    t->dyn_handles[count] = info;
    t->dyn_modes[count] = STARPU_RW;
    if (pivoting) {
        t->dyn_handles[count + 1] = piv;
        t->dyn_modes[count + 1] = STARPU_W;
    }
    t->cl_arg = pack(PanelArgs{offset, count, pivoting, o.urgent, cuda_contexts(rt)});
    t->cl_arg_size = sizeof(PanelArgs);
    t->cl_arg_free = 1;
    const double n = tile_cols(col[0]);
    t->flops = (is_complex_v<T> ? 4.0 : 1.0) * (rows * n * n - n * n * n / 3.0);  // real operations
    submit(t, o, pivoting ? "getrf_panel" : "getrf_nopiv");
}

template <typename T>
void reserve_getrf_panel_workspace(const Runtime& rt, int64_t rows, int64_t gathered_cols) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || rows == 0) return;
    CudaContexts* c = cuda_contexts(rt);
    c->reserve(static_cast<int>(rows), getrf_work_need<T>);
    if (gathered_cols > 0)
        c->reserve(static_cast<int>((rows * std::min(rows, gathered_cols) + 1023) / 1024), getrf_panel_need<T>);
#else
    (void)rt;
    (void)rows;
    (void)gathered_cols;
#endif
}

template void insert_getrf_panel<float>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,
                                        starpu_data_handle_t, starpu_data_handle_t, int64_t, bool);
template void insert_getrf_panel<double>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,
                                         starpu_data_handle_t, starpu_data_handle_t, int64_t, bool);
template void insert_getrf_panel<std::complex<float>>(const Runtime&, const TaskOptions&,
                                                      const std::vector<starpu_data_handle_t>&, starpu_data_handle_t,
                                                      starpu_data_handle_t, int64_t, bool);
template void insert_getrf_panel<std::complex<double>>(const Runtime&, const TaskOptions&,
                                                       const std::vector<starpu_data_handle_t>&, starpu_data_handle_t,
                                                       starpu_data_handle_t, int64_t, bool);
template void reserve_getrf_panel_workspace<float>(const Runtime&, int64_t, int64_t);
template void reserve_getrf_panel_workspace<double>(const Runtime&, int64_t, int64_t);
template void reserve_getrf_panel_workspace<std::complex<float>>(const Runtime&, int64_t, int64_t);
template void reserve_getrf_panel_workspace<std::complex<double>>(const Runtime&, int64_t, int64_t);

}  // namespace starfact::detail
