// qr_panel codelet: the panel of the blocked Householder QR (QrTree::Kind::Panel), one task per tile column.
//   buffers: 0 .. count-1 = the tiles A[k][k] .. A[mt-1][k] (RW), count = T (W: the tile Tf.t_tile(k, k))
// The tiles are gathered into one contiguous M x w matrix (M: their rows, w: their columns, M >= w), factored, and
// scattered back: R above the diagonal of the first tile, the w reflectors below it (unit diagonal implicit) and in
// the tiles below, T (w x w, upper: Q = I - Y T Y^T, LAPACK's larft forward columnwise) in T's first w rows.
// CPU: LAPACKE geqrt with the inner blocking w (one recursive geqrt3 and its T) on a per-thread array.
// CUDA: the gathered panel in the worker's device scratch (cudaMemcpy2DAsync); a tall panel (cholqr::kPanelAspect rows
// per column) by the Cholesky QR with the Householder form rebuilt (codelets/cholqr_panel.hpp), or, when that breaks
// down, gathered again and by cuSOLVER <t>geqrf (float's Cholesky QR on a double copy: two passes against three); a
// real panel too square for it by recursive halving (factor_panel: the halves tall enough take the Cholesky QR, the
// others halve again down to cuSOLVER's geqrf on kPanelMinWidth to 2 kPanelMinWidth columns). Complex panels: no
// Cholesky QR (its kernels are real); complex<double> panels halve as double ones do, down to cuSOLVER's geqrf,
// complex<float> ones take one geqrf; every transpose is the conjugate one. cuSOLVER's parts form T by the UT
// transform (Joffrain, Low, Quintana-Orti, van de Geijn, ACM TOMS 32(2), 2006) as the GEQRT codelet forms it:
// T^-1 = striu(Y^H Y) + diag(1 / tau), Y^H Y by two herks (the unit lower top block copied, then the rows below in
// place), one trsm against the identity; on the worker's highest-priority stream when the task is urgent.
#include <algorithm>
#include <array>
#include <complex>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "codelets/cholqr_codelets.hpp"
#include "codelets/cholqr_panel.hpp"
#include "codelets/qr_codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "kernels/cpu_lapack.hpp"
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

/// Whether a rows x w panel of T's is factored by the Cholesky QR (real T only).
template <typename T>
bool tall_panel(int rows, int w) {
    return !is_complex_v<T> && rows >= cholqr::kPanelAspect * w && w >= cholqr::kPanelMinWidth;
}

/// The panel's device workspace, all of it in the worker's scratch (the scratch of no codelet that the QR's graphs
/// pipeline beside the panel, which may run on the worker's urgent stream while the worker's stream still runs
/// tasks using c.work): the gathered M x w panel, tau (w), the copied top block and Y^T Y (w x w each), cuSOLVER's
/// devInfo, geqrf's workspace (lwork), then, for a tall panel, the Cholesky QR's (cholqr_bytes). Reserved before
/// the graph runs (reserve_qr_panel_workspace): a tall panel's Cholesky QR allocating its own workspace in the task
/// found no memory beside StarPU's buffers at 524288 x 8192 in double and fell back to cuSOLVER's geqrf.
template <typename T>
struct PanelWorkspace {
    T *panel, *tau, *top, *yty, *work;
    int* info;
    void* cholqr = nullptr;
    static size_t fixed_bytes(int rows, int w) {
        const size_t ww = static_cast<size_t>(w) * w;
        return aligned(static_cast<size_t>(rows) * w * sizeof(T)) + aligned(static_cast<size_t>(w) * sizeof(T)) +
               2 * aligned(ww * sizeof(T)) + aligned(sizeof(int));
    }
    static size_t cholqr_bytes(cusolverDnHandle_t h, int rows, int w) {
        if constexpr (is_complex_v<T>) {
            return 0;
        } else {
            return aligned(cholqr::panel_cholqr_bytes<T>(h, rows, w));
        }
    }
    /// (the Cholesky QR's part only where the reservation left room for it: a task never grows the scratch for it,
    /// and without it the Cholesky QR allocates its own)
    PanelWorkspace(CudaWorkerContext& c, int rows, int w, int lwork) {
        const size_t base = fixed_bytes(rows, w) + aligned(static_cast<size_t>(lwork) * sizeof(T));
        const size_t own = tall_panel<T>(rows, w) ? cholqr_bytes(c.solver, rows, w) : 0;
        grow_scratch(c, base);
        char* p = static_cast<char*>(c.scratch);
        panel = reinterpret_cast<T*>(p);
        tau = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(rows) * w * sizeof(T)));
        top = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(w) * sizeof(T)));
        yty = reinterpret_cast<T*>(p += aligned(static_cast<size_t>(w) * w * sizeof(T)));
        info = reinterpret_cast<int*>(p += aligned(static_cast<size_t>(w) * w * sizeof(T)));
        work = reinterpret_cast<T*>(p += aligned(sizeof(int)));
        if (own > 0 && c.scratch_bytes >= base + own) cholqr = p + aligned(static_cast<size_t>(lwork) * sizeof(T));
    }
};

inline void cuda_ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) STARPU_ABORT_MSG("starfact: qr panel: %s failed: %s", what, cudaGetErrorString(e));
}
inline void cublas_ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_ABORT_MSG("starfact: qr panel: cuBLAS %s failed (status %d)", what, int(s));
}

/// The Householder leaf: cuSOLVER <t>geqrf of the rows x w panel P (leading dimension ldp), T by the UT transform.
template <typename T>
void householder_leaf(const gpu::WorkerStream& ws, cusolverDnHandle_t solver, const PanelWorkspace<T>& pw, int lwork,
                      T* P, int rows, int w, int ldp, T* Tm, int ldt) {
    int need = 0;
    if (gpu::geqrf_buffer_size(solver, rows, w, P, ldp, &need) != CUSOLVER_STATUS_SUCCESS || need > lwork)
        STARPU_ABORT_MSG("starfact: qr panel: cuSOLVER's geqrf workspace for a part exceeds the panel's");
    if (gpu::geqrf(solver, rows, w, P, ldp, pw.tau, pw.work, lwork, pw.info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf failed");
    // Y^H Y = Y1^H Y1 + Y2^H Y2: Y1 the unit lower top w x w block, Y2 the rows - w rows below it.
    using R = real_t<T>;
    gpu::launch_copy_unit_lower(P, ldp, pw.top, w, w, w, ws.stream);
    cublas_ok(gpu::herk(ws.cublas, Uplo::Upper, Op::ConjTrans, w, w, R(1), pw.top, w, R(0), pw.yty, w), "herk");
    if (rows > w)
        cublas_ok(gpu::herk(ws.cublas, Uplo::Upper, Op::ConjTrans, w, rows - w, R(1), P + w, ldp, R(1), pw.yty, w),
                  "herk");
    gpu::launch_qr_ut_triangle(pw.yty, w, pw.tau, w, Tm, ldt, ws.stream);
    cublas_ok(gpu::trsm(ws.cublas, Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, w, w, T(1), pw.yty, w, Tm, ldt),
              "trsm");
    gpu::launch_qr_fix_identity(Tm, ldt, pw.tau, w, ws.stream);
}

/// Whether float panels' Cholesky QR parts run on a double copy (two passes against float's three, as the column's
/// widening in algorithms/cholqr.cpp) and float panels too square for it halve as double ones do:
/// STARFACT_QR_WIDEN=off keeps float's own passes and one geqrf per square panel (A/B runs).
inline bool widen_float_parts() { return qr_widen_setting() != QrWiden::Off; }

/// A float rows x w part P (leading dimension ldp) by the Cholesky QR on a double copy, its T (w x w) narrowed into
/// Tm; false as panel_cholqr_cuda (P as it was), or no memory for the copy.
inline bool widened_cholqr(const gpu::WorkerStream& ws, const CudaWorkerContext& c, float* P, int rows, int w, int ldp,
                           float* Tm, int ldt) {
    double* Q = nullptr;
    const size_t entries = static_cast<size_t>(rows) * w, square = static_cast<size_t>(w) * w;
    if (cudaMallocAsync(reinterpret_cast<void**>(&Q), (entries + square) * sizeof(double), ws.stream) != cudaSuccess) {
        cudaGetLastError();  // no room for the copy: the caller's Householder leaf
        return false;
    }
    double* Td = Q + entries;
    cuda_ok(gpu::widen(rows, w, P, ldp, Q, rows, ws.stream), "widen");
    const bool done = cholqr::panel_cholqr_cuda<double>(ws, c, Q, rows, w, Td, w);
    if (done) {
        cuda_ok(gpu::narrow(rows, w, Q, rows, P, ldp, ws.stream), "narrow");
        cuda_ok(gpu::narrow(w, w, Td, w, Tm, ldt, ws.stream), "narrow");
    }
    cuda_ok(cudaFreeAsync(Q, ws.stream), "cudaFreeAsync");
    return done;
}

/// A tall contiguous M x w panel by the Cholesky QR in place (float's on a double copy; `space`: double's and
/// float's own workspace, panel_cholqr_cuda); false as panel_cholqr_cuda.
template <typename T>
bool tall_cholqr(const gpu::WorkerStream& ws, const CudaWorkerContext& c, T* P, int M, int w, T* Tm, int ldt,
                 void* space) {
    if constexpr (std::is_same<T, float>::value)
        if (widen_float_parts()) return widened_cholqr(ws, c, P, M, w, M, Tm, ldt);
    return cholqr::panel_cholqr_cuda<T>(ws, c, P, M, w, Tm, ldt, space);
}

/// The Cholesky QR of the rows x w part P (leading dimension ldp) of a panel, through a contiguous copy (its
/// workspace stream-ordered; float's widened to double); false: it broke down, or no memory was left for the copy,
/// and P is as it was.
template <typename T>
bool cholqr_part(const gpu::WorkerStream& ws, const CudaWorkerContext& c, T* P, int rows, int w, int ldp, T* Tm,
                 int ldt) {
    if constexpr (is_complex_v<T>) {  // (the Cholesky QR's kernels are real)
        return false;
    } else {
        if constexpr (std::is_same<T, float>::value)
            if (widen_float_parts()) return widened_cholqr(ws, c, P, rows, w, ldp, Tm, ldt);
        T* Q = nullptr;
        const size_t pitch = static_cast<size_t>(rows) * sizeof(T);
        if (cudaMallocAsync(reinterpret_cast<void**>(&Q), pitch * w, ws.stream) != cudaSuccess) {
            cudaGetLastError();  // no room for the copy: the caller's Householder leaf
            return false;
        }
        cuda_ok(cudaMemcpy2DAsync(Q, pitch, P, sizeof(T) * ldp, pitch, w, cudaMemcpyDeviceToDevice, ws.stream), "copy");
        const bool done = cholqr::panel_cholqr_cuda<T>(ws, c, Q, rows, w, Tm, ldt);
        if (done)
            cuda_ok(cudaMemcpy2DAsync(P, sizeof(T) * ldp, Q, pitch, pitch, w, cudaMemcpyDeviceToDevice, ws.stream),
                    "copy");
        cuda_ok(cudaFreeAsync(Q, ws.stream), "cudaFreeAsync");
        return done;
    }
}

/// The rows x w panel P (leading dimension ldp, rows >= w) factored in place: R above its diagonal, the reflectors
/// below (unit diagonal implicit), T (w x w, upper, zeros below: Q = I - Y T Y^T) into Tm. A tall panel
/// (cholqr::kPanelAspect rows per column) by the Cholesky QR with its Householder form rebuilt; a panel too square
/// for it and wide enough to halve by recursion (Elmroth and Gustavson, IBM J. Res. Dev. 44(4), 2000): its left half,
/// Q1^T applied to the right half by gemms, the right half's rows below the first, and T's coupling block
/// T12 = -T1 (Y1^T Y2) T2; every other part, or a Cholesky QR that breaks down, by cuSOLVER's geqrf.
template <typename T>
void factor_panel(const gpu::WorkerStream& ws, const CudaWorkerContext& c, cusolverDnHandle_t solver,
                  const PanelWorkspace<T>& pw, int lwork, T* P, int rows, int w, int ldp, T* Tm, int ldt) {
    const bool tall = tall_panel<T>(rows, w);
    if (tall && cholqr_part<T>(ws, c, P, rows, w, ldp, Tm, ldt)) return;
    if (tall || w < 2 * cholqr::kPanelMinWidth) {
        householder_leaf<T>(ws, solver, pw, lwork, P, rows, w, ldp, Tm, ldt);
        return;
    }
    const int w1 = (w / 2 + 31) / 32 * 32, w2 = w - w1;
    factor_panel<T>(ws, c, solver, pw, lwork, P, rows, w1, ldp, Tm, ldt);
    // C := Q1^H C = C - Y1 T1^H (Y1^H C), C the right half; Y1's unit lower top block copied into pw.top
    T* C = P + static_cast<size_t>(w1) * ldp;
    T* Y1top = pw.top;
    T* W = pw.yty;                                  // w1 x w2
    T* W2 = pw.top + static_cast<size_t>(w1) * w1;  // w1 x w2, beside Y1top
    gpu::launch_copy_unit_lower(P, ldp, Y1top, w1, w1, w1, ws.stream);
    cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, w1, w2, w1, T(1), Y1top, w1, C, ldp, T(0), W, w1),
              "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, w1, w2, rows - w1, T(1), P + w1, ldp, C + w1, ldp,
                        T(1), W, w1),
              "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, w1, w2, w1, T(1), Tm, ldt, W, w1, T(0), W2, w1), "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, w1, w2, w1, T(-1), Y1top, w1, W2, w1, T(1), C, ldp),
              "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, rows - w1, w2, w1, T(-1), P + w1, ldp, W2, w1, T(1),
                        C + w1, ldp),
              "gemm");
    T* T2 = Tm + w1 + static_cast<size_t>(w1) * ldt;
    factor_panel<T>(ws, c, solver, pw, lwork, C + w1, rows - w1, w2, ldp, T2, ldt);
    // T12 = -T1 S T2, S = Y1^H Y2 over the rows from w1 on (Y2 is zero above them): Y2's unit lower top in pw.top
    T* Y2top = pw.top;
    T* S = pw.yty;                                  // w1 x w2
    T* X = pw.top + static_cast<size_t>(w2) * w2;   // w1 x w2, beside Y2top
    gpu::launch_copy_unit_lower(C + w1, ldp, Y2top, w2, w2, w2, ws.stream);
    cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, w1, w2, w2, T(1), P + w1, ldp, Y2top, w2, T(0), S,
                        w1), "gemm");
    if (rows - w1 > w2)
        cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, w1, w2, rows - w1 - w2, T(1), P + w1 + w2, ldp,
                            C + w1 + w2, ldp, T(1), S, w1), "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, w1, w2, w1, T(1), Tm, ldt, S, w1, T(0), X, w1), "gemm");
    cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, w1, w2, w2, T(-1), X, w1, T2, ldt, T(0),
                        Tm + static_cast<size_t>(w1) * ldt, ldt), "gemm");
    cuda_ok(cudaMemset2DAsync(Tm + w1, sizeof(T) * ldt, 0, sizeof(T) * w2, w1, ws.stream), "memset");
}

/// Whether a rows x w panel (not tall) is halved by factor_panel: double, complex<double> and (parts widened) float
/// panels wide enough. Float's parts in float's own three passes ran slower than one geqrf; complex<float> panels
/// halved into cuSOLVER's geqrf ran slower too (on one H200, bench_complex --op geqrf --prec c: 0.914x cuSOLVER at
/// 16384 against 0.969x with one geqrf per panel).
template <typename T>
bool halved(int rows, int w) {
    const bool kind = std::is_same<real_t<T>, double>::value || (std::is_same<T, float>::value && widen_float_parts());
    return kind && !tall_panel<T>(rows, w) && w >= 2 * cholqr::kPanelMinWidth;
}

/// The largest cuSOLVER geqrf workspace (elements) among the parts that factoring a rows x w panel may give
/// cuSOLVER: the whole panel and, where factor_panel halves it, its halves' parts (cuSOLVER's workspace need not
/// shrink with the part: complex parts of a few hundred columns ask for more than the whole panel).
template <typename T>
int panel_lwork(cusolverDnHandle_t h, int rows, int w) {
    int need = 0;
    if (gpu::geqrf_buffer_size(h, rows, w, static_cast<T*>(nullptr), rows, &need) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf_bufferSize failed");
    if (halved<T>(rows, w)) {
        const int w1 = (w / 2 + 31) / 32 * 32;
        need = std::max({need, panel_lwork<T>(h, rows, w1), panel_lwork<T>(h, rows - w1, w - w1)});
    }
    return need;
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
    const int lwork = panel_lwork<T>(c.solver, M, w);
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
    if (tall_panel<T>(M, w)) {  // tall: the Cholesky QR in place, else (a breakdown) gathered again, by Householder
        if constexpr (!is_complex_v<T>)
            if (tall_cholqr<T>(ws, c, P, M, w, Tm, Tt.ld, pw.cholqr)) {
                copy(false);
                return;
            }
        copy(true);
        householder_leaf<T>(ws, c.solver, pw, lwork, P, M, w, M, Tm, Tt.ld);
    } else if (halved<T>(M, w)) {
        // too square for the Cholesky QR: halved
        factor_panel<T>(ws, c, c.solver, pw, lwork, P, M, w, M, Tm, Tt.ld);
    } else {
        householder_leaf<T>(ws, c.solver, pw, lwork, P, M, w, M, Tm, Tt.ld);
    }
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
    need.scratch = PanelWorkspace<T>::fixed_bytes(rows, w) + aligned(static_cast<size_t>(lwork + 1) * sizeof(T));
    // the Cholesky QR's workspace where a panel of this bucket's widths, (w / 2, w], may be tall
    if (rows >= cholqr::kPanelAspect * (w / 2 + 1) && w >= cholqr::kPanelMinWidth)
        need.scratch += PanelWorkspace<T>::cholqr_bytes(h, rows, w);
    return need;
}
template <typename T, size_t... L>
constexpr std::array<Workspace (*)(cusolverDnHandle_t, int), sizeof...(L)> qr_panel_needs(std::index_sequence<L...>) {
    return {qr_panel_need<T, static_cast<int>(L)>...};
}
#endif

template <typename T>
void define_qr_panel(Kernel& k) {
    define_kernel(k, "qr_panel",
                  by_letter<T>("starfact_sqr_panel", "starfact_dqr_panel", "starfact_cqr_panel", "starfact_zqr_panel"),
                  qr_panel_cpu<T>, STARFACT_CUDA_IMPL(qr_panel_cuda<T>), {});  // modes per task (dyn_modes)
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
                                    flop_scale<T>() * (2 * m * n * n - 2 * n * n * n / 3 + m * n * n));  // geqrf, T
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
STARFACT_QR_PANEL(std::complex<float>)
STARFACT_QR_PANEL(std::complex<double>)
#undef STARFACT_QR_PANEL

}  // namespace starfact::detail
