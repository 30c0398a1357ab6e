// qr_panel codelet: the panel of the blocked Householder QR (QrTree::Kind::Panel), one task per tile column.
//   buffers: 0 .. count-1 = the tiles A[k][k] .. A[mt-1][k] (RW), count = T (W: the tile Tf.t_tile(k, k))
// The tiles are gathered into one contiguous M x w matrix (M: their rows, w: their columns, M >= w), factored, and
// scattered back: R above the diagonal of the first tile, the w reflectors below it (unit diagonal implicit) and in
// the tiles below, T (w x w, upper: Q = I - Y T Y^T, LAPACK's larft forward columnwise) in T's first w rows.
// CPU: LAPACKE geqrt with the inner blocking w (one recursive geqrt3 and its T) on a per-thread array.
// CUDA: the gathered panel in the worker's device scratch (cudaMemcpy2DAsync); a tall panel (cholqr::kPanelAspect rows
// per column) by the Cholesky QR with the Householder form rebuilt (codelets/cholqr_panel.hpp), or, when that breaks
// down, gathered again and, like every other panel, by cuSOLVER <t>geqrf, T by the UT
// transform (Joffrain, Low, Quintana-Orti, van de Geijn, ACM TOMS 32(2), 2006) as the GEQRT codelet forms it:
// T^-1 = striu(Y^T Y) + diag(1 / tau), Y^T Y by two syrks (the unit lower top block copied, then the rows below in
// place), one trsm against the identity; on the worker's highest-priority stream when the task is urgent.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>
#include <vector>

#include "codelets/cholqr_panel.hpp"
#include "codelets/qr_codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/qr_cpu.hpp"
#include "kernels/qr/qr_cuda_blas.hpp"
#include "kernels/qr/qr_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct QrPanelArgs {
    int count;           // tiles in the panel
    bool urgent;         // CUDA: on the worker's highest-priority stream (the panel is the critical path)
    CudaContexts* cuda;  // per-worker cuSOLVER handles and workspaces (CUDA implementation)
};

/// The panel's shape: w columns (the first tile's), M rows (all tiles').
struct PanelShape {
    int rows = 0, cols = 0;
};
inline PanelShape shape_of(void* buffers[], int count) {
    PanelShape s;
    s.cols = qr_tile(buffers[0]).cols;
    for (int t = 0; t < count; ++t) s.rows += qr_tile(buffers[t]).rows;
    return s;
}

// ---- CPU -------------------------------------------------------------------------------------------

template <typename T>
void qr_panel_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrPanelArgs*>(cl_arg);
    const PanelShape s = shape_of(buffers, a->count);
    const QrTile Tt = qr_tile(buffers[a->count]);
    if (s.cols == 0) return;
    const size_t panel = static_cast<size_t>(s.rows) * s.cols;
    T* P = qr_cpu_work<T>(panel + static_cast<size_t>(s.cols) * s.cols);
    T* work = P + panel;
    auto copy = [&](bool gather) {
        int r0 = 0;
        for (int t = 0; t < a->count; ++t) {
            const QrTile A = qr_tile(buffers[t]);
            for (int j = 0; j < s.cols; ++j) {
                T* tile_col = ptr<T>(A) + static_cast<int64_t>(j) * A.ld;
                T* panel_col = P + r0 + static_cast<int64_t>(j) * s.rows;
                if (gather)
                    std::copy(tile_col, tile_col + A.rows, panel_col);
                else
                    std::copy(panel_col, panel_col + A.rows, tile_col);
            }
            r0 += A.rows;
        }
    };
    copy(true);
    const int info = cpu::geqrt(s.rows, s.cols, s.cols, P, s.rows, ptr<T>(Tt), Tt.ld, work);
    if (info != 0) STARPU_ABORT_MSG("starfact: LAPACKE geqrt (panel) failed with info %d", info);
    copy(false);
}

// ---- CUDA ------------------------------------------------------------------------------------------

#ifdef STARFACT_HAVE_CUDA
constexpr size_t kAlign = 256;
inline size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

/// Grows the worker's scratch to `bytes` where reserve_qr_panel_workspace left it smaller (cuSOLVER's geqrf workspace
/// for the task's panel above the one queried for the whole matrix's), once the worker's streams are done with it.
inline void grow_scratch(CudaWorkerContext& c, size_t bytes) {
    if (c.scratch_bytes >= bytes) return;
    if (cudaStreamSynchronize(c.stream) != cudaSuccess || cudaStreamSynchronize(c.aux_stream) != cudaSuccess)
        STARPU_ABORT_MSG("starfact: qr panel: cudaStreamSynchronize failed");
    cudaFree(c.scratch);
    c.scratch = nullptr;
    c.scratch_bytes = 0;
    if (cudaMalloc(&c.scratch, bytes) != cudaSuccess)
        STARPU_ABORT_MSG("starfact: qr panel: cudaMalloc(scratch) failed");
    c.scratch_bytes = bytes;
}

/// The panel's device workspace, all of it in the worker's scratch (the scratch of no codelet that the QR's graphs
/// pipeline beside the panel, which may run on the worker's urgent stream while the worker's stream still runs
/// tasks using c.work): the gathered M x w panel, tau (w), the copied top block and Y^T Y (w x w each), cuSOLVER's
/// devInfo, then geqrf's workspace (lwork).
template <typename T>
struct PanelWorkspace {
    T *panel, *tau, *top, *yty, *work;
    int* info;
    static size_t fixed_bytes(int rows, int w) {
        const size_t ww = static_cast<size_t>(w) * w;
        return aligned(static_cast<size_t>(rows) * w * sizeof(T)) + aligned(static_cast<size_t>(w) * sizeof(T)) +
               2 * aligned(ww * sizeof(T)) + aligned(sizeof(int));
    }
    PanelWorkspace(CudaWorkerContext& c, int rows, int w, int lwork) {
        grow_scratch(c, fixed_bytes(rows, w) + static_cast<size_t>(lwork) * sizeof(T));
        char* p = static_cast<char*>(c.scratch);
        panel = reinterpret_cast<T*>(p);
        tau = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(rows) * w * sizeof(T)));
        top = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(w) * sizeof(T)));
        yty = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(w) * w * sizeof(T)));
        info = reinterpret_cast<int*>(p += aligned(static_cast<size_t>(w) * w * sizeof(T)));
        work = reinterpret_cast<T*>(p += aligned(sizeof(int)));
    }
};

inline void cuda_ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) STARPU_ABORT_MSG("starfact: qr panel: %s failed: %s", what, cudaGetErrorString(e));
}
inline void cublas_ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_ABORT_MSG("starfact: qr panel: cuBLAS %s failed (status %d)", what, int(s));
}

template <typename T>
void qr_panel_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrPanelArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const cudaStream_t stream = ws.stream;
    // cuSOLVER's handle is bound to the worker's stream: moved to the urgent one for this task only
    struct SolverStream {
        cusolverDnHandle_t h;
        cudaStream_t home;
        ~SolverStream() { cusolverDnSetStream(h, home); }
    } bind{c.solver, c.stream};
    if (cusolverDnSetStream(c.solver, stream) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDnSetStream failed");
    const PanelShape s = shape_of(buffers, a->count);
    const QrTile Tt = qr_tile(buffers[a->count]);
    const int M = s.rows, w = s.cols;
    if (w == 0) return;
    int lwork = 0;
    if (gpu::geqrf_buffer_size(c.solver, M, w, static_cast<T*>(c.scratch), M, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf_bufferSize failed");
    const PanelWorkspace<T> pw(c, M, w, lwork);
    T* P = pw.panel;
    auto copy = [&](bool gather) {
        int r0 = 0;
        for (int t = 0; t < a->count; ++t) {
            const QrTile A = qr_tile(buffers[t]);
            if (gather)
                cuda_ok(cudaMemcpy2DAsync(P + r0, sizeof(T) * M, ptr<T>(A), sizeof(T) * A.ld, sizeof(T) * A.rows, w,
                                          cudaMemcpyDeviceToDevice, stream),
                        "gather");
            else
                cuda_ok(cudaMemcpy2DAsync(ptr<T>(A), sizeof(T) * A.ld, P + r0, sizeof(T) * M, sizeof(T) * A.rows, w,
                                          cudaMemcpyDeviceToDevice, stream),
                        "scatter");
            r0 += A.rows;
        }
    };
    copy(true);
    T* Tm = ptr<T>(Tt);
    if (M >= cholqr::kPanelAspect * w && w >= cholqr::kPanelMinWidth) {  // tall: the Cholesky QR, else Householder
        if (cholqr::panel_cholqr_cuda<T>(ws, c, P, M, w, Tm, Tt.ld)) {
            copy(false);
            return;
        }
        copy(true);
    }
    if (gpu::geqrf(c.solver, M, w, P, M, pw.tau, pw.work, lwork, pw.info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf failed");
    // Y^T Y = Y1^T Y1 + Y2^T Y2: Y1 the unit lower top w x w block, Y2 the M - w rows below it.
    gpu::launch_copy_unit_lower(P, M, pw.top, w, w, w, stream);
    cublas_ok(gpu::syrk(ws.cublas, Uplo::Upper, Op::Trans, w, w, T(1), pw.top, w, T(0), pw.yty, w), "syrk");
    if (M > w)
        cublas_ok(gpu::syrk(ws.cublas, Uplo::Upper, Op::Trans, w, M - w, T(1), P + w, M, T(1), pw.yty, w), "syrk");
    gpu::launch_qr_ut_triangle(pw.yty, w, pw.tau, w, Tm, Tt.ld, stream);
    cublas_ok(
        gpu::trsm(ws.cublas, Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, w, w, T(1), pw.yty, w, Tm, Tt.ld),
        "trsm");
    gpu::launch_qr_fix_identity(Tm, Tt.ld, pw.tau, w, stream);
    copy(false);
}

/// The workspace of panels of up to 2^LogW columns and `rows` rows (PanelWorkspace, in the scratch); one `need` per
/// bucket of widths, so that CudaContexts::reserve keeps one record per bucket.
template <typename T, int LogW>
Workspace qr_panel_need(cusolverDnHandle_t h, int rows) {
    const int w = std::min(rows, 1 << LogW);
    int lwork = 0;
    if (gpu::geqrf_buffer_size(h, rows, w, static_cast<T*>(nullptr), rows, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf_bufferSize failed");
    Workspace need;
    need.scratch = PanelWorkspace<T>::fixed_bytes(rows, w) + static_cast<size_t>(lwork + 1) * sizeof(T);
    return need;
}
template <typename T, size_t... L>
constexpr std::array<Workspace (*)(cusolverDnHandle_t, int), sizeof...(L)> qr_panel_needs(std::index_sequence<L...>) {
    return {qr_panel_need<T, static_cast<int>(L)>...};
}
#endif

template <typename T>
void define_qr_panel(Kernel& k) {
    define_kernel(k, "qr_panel", by_precision<T>("starfact_sqr_panel", "starfact_dqr_panel"), qr_panel_cpu<T>,
                  STARFACT_CUDA_IMPL(qr_panel_cuda<T>), {});  // modes per task (dyn_modes)
}

}  // namespace

template <typename T>
void insert_qr_panel(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& panel,
                     starpu_data_handle_t Tf) {
    const int count = static_cast<int>(panel.size());
    std::vector<starpu_data_handle_t> handles(panel);
    handles.push_back(Tf);
    std::vector<starpu_data_access_mode> modes(static_cast<size_t>(count), STARPU_RW);
    modes.push_back(STARPU_W);
    double m = 0;
    for (starpu_data_handle_t h : panel) m += tile_rows(h);
    const double n = count > 0 ? tile_cols(panel[0]) : 0;
    starpu_task* t = qr_packed_task(kernel<define_qr_panel<T>>(rt), QrPanelArgs{count, o.urgent, cuda_contexts(rt)},
                                    2 * m * n * n - 2 * n * n * n / 3 + m * n * n);  // geqrf and T
    set_dynamic_buffers(t, handles.data(), modes.data(), count + 1);
    submit(t, o, "qr_panel");
}

template <typename T>
void reserve_qr_panel_workspace(const Runtime& rt, int64_t rows, int64_t w) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || rows == 0 || w == 0) return;
    static constexpr auto needs = qr_panel_needs<T>(std::make_index_sequence<21>{});
    int log_w = 0;
    while ((int64_t(1) << log_w) < w && log_w < 20) ++log_w;
    cuda_contexts(rt)->reserve(static_cast<int>(rows), needs[static_cast<size_t>(log_w)]);
#else
    (void)rt;
    (void)rows;
    (void)w;
#endif
}

#define STARFACT_QR_PANEL(T)                                                                                   \
    template void insert_qr_panel<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&, \
                                     starpu_data_handle_t);                                                   \
    template void reserve_qr_panel_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_QR_PANEL(float)
STARFACT_QR_PANEL(double)
#undef STARFACT_QR_PANEL

}  // namespace starfact::detail
