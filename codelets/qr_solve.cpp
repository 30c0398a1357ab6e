// The tile QR's small codelets: the exactly-zero diagonal of R (gels' info), the identity pattern of a tile
// (orgqr's start), the triangular solves with R or R^T on the leading rows of a tile and the update that goes with
// R^T (gels), the transpose of a tile and the zeroing of a tile's last rows (gels of a wide matrix). For complex
// tiles every transpose is the conjugate one (R^H, A^H).
//   qr_diag_info: 0 = R (R), 1 = info (RW, one int)
//   qr_laset:     0 = A (W)
//   qr_trsm:      0 = R (R), 1 = B (RW)
//   qr_gemm_t:    0 = A (R), 1 = B (R), 2 = C (RW)
//   qr_transpose: 0 = A (R), 1 = B (W)
//   qr_zero_rows: 0 = A (RW)
#include <algorithm>
#include <complex>

#include "codelets/qr_codelets.hpp"
#include "codelets/qr_status.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/qr_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct OffsetArgs {
    int64_t r0, c0;      // qr_diag_info: r0 = the global offset of the tile's diagonal; qr_laset: its first row,
                         // column; qr_zero_rows: r0 = the first row zeroed
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool trans = false;  // qr_trsm: solve with R^T (complex: R^H)
    QrStatus* status = nullptr;  // qr_diag_info: where the breakdown is recorded
};


template <typename T>
void diag_info_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const T* R = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    const int k = static_cast<int>(std::min(STARPU_MATRIX_GET_NX(buffers[0]), STARPU_MATRIX_GET_NY(buffers[0])));
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    if (*info != 0) return;
    for (int i = 0; i < k; ++i)
        if (R[i + static_cast<int64_t>(i) * ld] == T(0)) {
            *info = static_cast<int>(a->r0 + i + 1);
            a->status->record(QrBreakdown::ZeroDiagonal, *info);
            return;
        }
}

template <typename T>
void laset_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int ld = static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0]));
    const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0])), n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) A[i + static_cast<int64_t>(j) * ld] = (a->r0 + i == a->c0 + j) ? T(1) : T(0);
}

template <typename T>
void qr_trsm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const int k = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1]));
    if (k == 0 || n == 0) return;
    cpu::trsm(Side::Left, Uplo::Upper, a->trans ? Op::ConjTrans : Op::NoTrans, Diag::NonUnit, k, n, T(1),
              reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1])),
              static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
}

/// C(0:r, :) -= A^H B(0:k, :), A k x r: only C's first r rows (A's columns) take part.
template <typename T>
void gemm_t_cpu(void* buffers[], void*) {
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]), C = qr_tile(buffers[2]);
    if (A.rows == 0 || A.cols == 0 || C.cols == 0) return;
    cpu::gemm(Op::ConjTrans, Op::NoTrans, A.cols, C.cols, A.rows, T(-1), ptr<T>(A), A.ld, ptr<T>(B), B.ld, T(1), ptr<T>(C),
              C.ld);
}

template <typename T>
void transpose_cpu(void* buffers[], void*) {
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]);
    for (int j = 0; j < A.cols; ++j)
        for (int i = 0; i < A.rows; ++i)
            ptr<T>(B)[j + static_cast<int64_t>(i) * B.ld] = conj_of(ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld]);
}

template <typename T>
void zero_rows_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const QrTile A = qr_tile(buffers[0]);
    for (int j = 0; j < A.cols; ++j)
        for (int64_t i = a->r0; i < A.rows; ++i) ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld] = T(0);
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void diag_info_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    CudaWorkerContext& c = a->cuda->local();
    const int k = static_cast<int>(std::min(STARPU_MATRIX_GET_NX(buffers[0]), STARPU_MATRIX_GET_NY(buffers[0])));
    // The first zero into devInfo (0: none), read back so that the reason is known on the host, then merged.
    if (cudaMemsetAsync(c.dev_info, 0, sizeof(int), ws.stream) != cudaSuccess)
        STARPU_ABORT_MSG("qr_diag_info: cudaMemsetAsync failed");
    gpu::launch_qr_diag_info(reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                             static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), k, c.dev_info, 0, ws.stream);
    int local = 0;
    if (cudaMemcpyAsync(&local, c.dev_info, sizeof(int), cudaMemcpyDeviceToHost, ws.stream) != cudaSuccess ||
        cudaStreamSynchronize(ws.stream) != cudaSuccess)
        STARPU_ABORT_MSG("qr_diag_info: reading the result back failed");
    if (local == 0) return;
    a->status->record(QrBreakdown::ZeroDiagonal, a->r0 + local);
    gpu::launch_merge_info(c.dev_info, reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1])), a->r0, ws.stream);
}

template <typename T>
void laset_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    gpu::launch_qr_laset(reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                         static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])), static_cast<int>(STARPU_MATRIX_GET_NX(buffers[0])),
                         static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0])), a->r0 - a->c0, ws.stream);
}

template <typename T>
void qr_trsm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const int k = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]));
    const int n = static_cast<int>(STARPU_MATRIX_GET_NY(buffers[1]));
    if (k == 0 || n == 0) return;
    const cublasStatus_t s = gpu::trsm(ws.cublas, Side::Left, Uplo::Upper, a->trans ? Op::ConjTrans : Op::NoTrans,
                                       Diag::NonUnit, k, n, T(1),
                                       reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                                       static_cast<int>(STARPU_MATRIX_GET_LD(buffers[0])),
                                       reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[1])),
                                       static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])));
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

template <typename T>
void gemm_t_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]), C = qr_tile(buffers[2]);
    if (A.rows == 0 || A.cols == 0 || C.cols == 0) return;
    const cublasStatus_t s = gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, A.cols, C.cols, A.rows, T(-1), ptr<T>(A),
                                       A.ld, ptr<T>(B), B.ld, T(1), ptr<T>(C), C.ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

template <typename T>
void transpose_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]);
    if (A.rows == 0 || A.cols == 0) return;
    const cublasStatus_t s = gpu::geam<T>(ws.cublas, Op::ConjTrans, Op::NoTrans, A.cols, A.rows, T(1), ptr<T>(A), A.ld,
                                          T(0), ptr<T>(B), B.ld, ptr<T>(B), B.ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

template <typename T>
void zero_rows_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const OffsetArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const QrTile A = qr_tile(buffers[0]);
    if (a->r0 >= A.rows || A.cols == 0) return;
    if (cudaMemset2DAsync(ptr<T>(A) + a->r0, sizeof(T) * A.ld, 0, sizeof(T) * (A.rows - a->r0), A.cols, ws.stream) !=
        cudaSuccess)
        STARPU_ABORT_MSG("qr_zero_rows: cudaMemset2DAsync failed");
}
#endif

template <typename T>
void define_diag_info(Kernel& k) {
    define_kernel(k, "qr_diag_info", by_letter<T>("starfact_sqr_diag_info", "starfact_dqr_diag_info",
                                                  "starfact_cqr_diag_info", "starfact_zqr_diag_info"),
                  diag_info_cpu<T>, STARFACT_CUDA_IMPL(diag_info_cuda<T>), {STARPU_R, STARPU_RW});
}
template <typename T>
void define_laset(Kernel& k) {
    define_kernel(k, "qr_laset", by_letter<T>("starfact_sqr_laset", "starfact_dqr_laset",
                                              "starfact_cqr_laset", "starfact_zqr_laset"), laset_cpu<T>,
                  STARFACT_CUDA_IMPL(laset_cuda<T>), {STARPU_W});
}
template <typename T>
void define_qr_trsm(Kernel& k) {
    define_kernel(k, "qr_trsm", by_letter<T>("starfact_sqr_trsm", "starfact_dqr_trsm",
                                             "starfact_cqr_trsm", "starfact_zqr_trsm"), qr_trsm_cpu<T>,
                  STARFACT_CUDA_IMPL(qr_trsm_cuda<T>), {STARPU_R, STARPU_RW});
}
template <typename T>
void define_gemm_t(Kernel& k) {
    define_kernel(k, "qr_gemm_t", by_letter<T>("starfact_sqr_gemm_t", "starfact_dqr_gemm_t",
                                               "starfact_cqr_gemm_t", "starfact_zqr_gemm_t"), gemm_t_cpu<T>,
                  STARFACT_CUDA_IMPL(gemm_t_cuda<T>), {STARPU_R, STARPU_R, STARPU_RW});
}
template <typename T>
void define_transpose(Kernel& k) {
    define_kernel(k, "qr_transpose", by_letter<T>("starfact_sqr_transpose", "starfact_dqr_transpose",
                                                  "starfact_cqr_transpose", "starfact_zqr_transpose"),
                  transpose_cpu<T>, STARFACT_CUDA_IMPL(transpose_cuda<T>), {STARPU_R, STARPU_W});
}
template <typename T>
void define_zero_rows(Kernel& k) {
    define_kernel(k, "qr_zero_rows", by_letter<T>("starfact_sqr_zero_rows", "starfact_dqr_zero_rows",
                                                  "starfact_cqr_zero_rows", "starfact_zqr_zero_rows"),
                  zero_rows_cpu<T>, STARFACT_CUDA_IMPL(zero_rows_cuda<T>), {STARPU_RW});
}

}  // namespace

template <typename T>
void insert_qr_diag_info(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t info,
                         int64_t offset, QrStatus* status) {
    starpu_task* t =
        qr_packed_task(kernel<define_diag_info<T>>(rt), OffsetArgs{offset, 0, cuda_contexts(rt), false, status});
    t->handles[0] = R;
    t->handles[1] = info;
    submit(t, o, "qr_diag_info");
}

template <typename T>
void insert_qr_laset(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t r0, int64_t c0) {
    starpu_task* t = qr_packed_task(kernel<define_laset<T>>(rt), OffsetArgs{r0, c0, cuda_contexts(rt)});
    t->handles[0] = A;
    submit(t, o, "qr_laset");
}

template <typename T>
void insert_qr_trsm(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t B,
                    bool trans) {
    const double k = tile_cols(R), n = tile_cols(B);
    starpu_task* t =
        qr_packed_task(kernel<define_qr_trsm<T>>(rt), OffsetArgs{0, 0, cuda_contexts(rt), trans},
                                    flop_scale<T>() * k * k * n);
    t->handles[0] = R;
    t->handles[1] = B;
    submit(t, o, "qr_trsm");
}

template <typename T>
void insert_qr_gemm_t(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t B,
                      starpu_data_handle_t C) {
    starpu_task* t = qr_packed_task(kernel<define_gemm_t<T>>(rt), OffsetArgs{0, 0, cuda_contexts(rt)},
                                    flop_scale<T>() * 2.0 * tile_rows(A) * tile_cols(A) * tile_cols(C));
    t->handles[0] = A;
    t->handles[1] = B;
    t->handles[2] = C;
    submit(t, o, "qr_gemm_t");
}

template <typename T>
void insert_qr_transpose(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t B) {
    starpu_task* t = qr_packed_task(kernel<define_transpose<T>>(rt), OffsetArgs{0, 0, cuda_contexts(rt)});
    t->handles[0] = A;
    t->handles[1] = B;
    submit(t, o, "qr_transpose");
}

template <typename T>
void insert_qr_zero_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t first) {
    starpu_task* t = qr_packed_task(kernel<define_zero_rows<T>>(rt), OffsetArgs{first, 0, cuda_contexts(rt)});
    t->handles[0] = A;
    submit(t, o, "qr_zero_rows");
}

#define STARFACT_QR_SOLVE(T)                                                                                     \
    template void insert_qr_diag_info<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,               \
                                         starpu_data_handle_t, int64_t, QrStatus*);                             \
    template void insert_qr_laset<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, int64_t, int64_t); \
    template void insert_qr_trsm<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, \
                                    bool);                                                                      \
    template void insert_qr_gemm_t<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, \
                                      starpu_data_handle_t);                                                    \
    template void insert_qr_transpose<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,              \
                                         starpu_data_handle_t);                                                 \
    template void insert_qr_zero_rows<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, int64_t);
STARFACT_QR_SOLVE(float)
STARFACT_QR_SOLVE(double)
STARFACT_QR_SOLVE(std::complex<float>)
STARFACT_QR_SOLVE(std::complex<double>)
#undef STARFACT_QR_SOLVE

}  // namespace starfact::detail
