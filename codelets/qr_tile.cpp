// The tile-QR kernels as codelets: GEQRT, UNMQR, TSQRT/TTQRT (one codelet, `tt`), TSMQR/TTMQR (one codelet).
//   geqrt:  0 = A (RW), 1 = T (W)
//   unmqr:  0 = V (R), 1 = T (R), 2 = C (RW)
//   tpqrt:  0 = A1 (RW, top), 1 = A2 (RW, bottom), 2 = T (W)
//   tpmqrt: 0 = V (R, the bottom tile of tpqrt), 1 = T (R), 2 = C1 (RW, top / left), 3 = C2 (RW, bottom / right)
// The applications take a side: op(Q) C (left: Q acts on C's rows, C1 above C2) or C op(Q) (right: on its columns,
// C1 beside C2).
// Every precision: s, d, c, z (Q^T of a real Q, Q^H of a complex one: LAPACK's trans 'T' or 'C', cuBLAS's
// transposes conjugated through Op::ConjTrans, V^H V by herk).
// CPU: LAPACKE's geqrt, gemqrt, tpqrt (l = 0 for TS, l = rows for TT) and tpmqrt with inner blocking ib.
// CUDA: cuSOLVER's geqrf on the tile (GEQRT), or on [triu(R1); A2] stacked in the worker's workspace (TS, TT: R1
// is upper triangular, so the reflectors' top block comes out as the identity and the bottom block is what
// tpqrt stores); T from V^T V and tau by the UT transform (Joffrain, Low, Quintana-Orti, van de Geijn, ACM TOMS
// 32(2), 2006): T^-1 = striu(V^T V) + diag(1 / tau), inverted by one trsm. Applying Q^T is then gemm, trmm, gemm
// on cuBLAS (from the right: the same with the operands' roles transposed). The CUDA kernels form one T per tile
// (LAPACK's layout with ib = K), which the CPU kernels read and write alike when ib >= K: factors made by either
// kind of worker serve the other.
#include <algorithm>
#include <array>
#include <complex>
#include <utility>
#include <vector>

#include "codelets/qr_codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/cpu_lapack.hpp"
#include "kernels/qr/qr_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct QrArgs {
    int ib;              // inner blocking of the CPU kernels
    bool tt;             // tpqrt/tpmqrt: triangle on triangle (TT) rather than triangle on square (TS)
    bool trans;          // unmqr/tpmqrt: apply Q^T (complex: Q^H)
    bool right;          // unmqr/tpmqrt: C op(Q) rather than op(Q) C
    CudaContexts* cuda;  // per-worker cuSOLVER handles and workspaces (CUDA implementation)
};

using Tile = QrTile;
inline Tile tile(void* buffer) { return qr_tile(buffer); }

/// Rows of the bottom tile that take part in a TS (all) or TT (its upper trapezoid) kernel with n columns.
inline int bottom_rows(bool tt, int rows, int n) { return tt ? std::min(rows, n) : rows; }

/// LAPACK's side and trans characters of an application on T's tiles (the adjoint: 'T' real, 'C' complex).
inline char side_char(const QrArgs& a) { return a.right ? 'R' : 'L'; }
template <typename T>
char trans_char(const QrArgs& a) {
    return a.trans ? (is_complex_v<T> ? 'C' : 'T') : 'N';
}
inline Side side_of(const QrArgs& a) { return a.right ? Side::Right : Side::Left; }

[[noreturn]] inline void lapack_failed(const char* what, int info) {
    STARPU_ABORT_MSG("starfact: LAPACKE %s failed with info %d", what, info);
}

// ---- CPU -------------------------------------------------------------------------------------------

template <typename T>
void geqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    const Tile A = tile(buffers[0]), Tt = tile(buffers[1]);
    const int k = std::min(A.rows, A.cols);
    if (k == 0) return;
    const int ib = std::min(a->ib, k);
    const int info = cpu::geqrt(A.rows, A.cols, ib, ptr<T>(A), A.ld, ptr<T>(Tt), Tt.ld,
                                qr_cpu_work<T>(static_cast<size_t>(ib) * A.cols));
    if (info != 0) lapack_failed("geqrt", info);
}

template <typename T>
void unmqr_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    const Tile V = tile(buffers[0]), Tt = tile(buffers[1]), C = tile(buffers[2]);
    const int k = std::min(V.rows, V.cols);
    if (k == 0 || C.cols == 0 || C.rows == 0) return;
    const int ib = std::min(a->ib, k);
    const int info = cpu::gemqrt(side_char(*a), trans_char<T>(*a), C.rows, C.cols, k, ib, ptr<T>(V), V.ld, ptr<T>(Tt),
                                 Tt.ld, ptr<T>(C), C.ld,
                                 qr_cpu_work<T>(static_cast<size_t>(ib) * (a->right ? C.rows : C.cols)));
    if (info != 0) lapack_failed("gemqrt", info);
}

template <typename T>
void tpqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    const Tile A1 = tile(buffers[0]), A2 = tile(buffers[1]), Tt = tile(buffers[2]);
    const int n = A2.cols, m = bottom_rows(a->tt, A2.rows, n);
    if (n == 0 || m == 0) return;
    const int ib = std::min(a->ib, n);
    const int info = cpu::tpqrt(m, n, a->tt ? m : 0, ib, ptr<T>(A1), A1.ld, ptr<T>(A2), A2.ld, ptr<T>(Tt), Tt.ld,
                                qr_cpu_work<T>(static_cast<size_t>(ib) * n));
    if (info != 0) lapack_failed("tpqrt", info);
}

template <typename T>
void tpmqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    const Tile V = tile(buffers[0]), Tt = tile(buffers[1]), C1 = tile(buffers[2]), C2 = tile(buffers[3]);
    const int k = V.cols, m = bottom_rows(a->tt, V.rows, k);
    // Left: C2's first m rows and C1's first k rows, C1.cols wide; right: C2's first m columns and C1's first k
    // columns, C1.rows high.
    const int other = a->right ? C1.rows : C1.cols;
    if (k == 0 || m == 0 || other == 0) return;
    const int ib = std::min(a->ib, k);
    const int rows = a->right ? other : m, cols = a->right ? m : other;  // LAPACK's m, n: those of C2's block
    const int info = cpu::tpmqrt(side_char(*a), trans_char<T>(*a), rows, cols, k, a->tt ? m : 0, ib, ptr<T>(V), V.ld,
                                 ptr<T>(Tt), Tt.ld, ptr<T>(C1), C1.ld, ptr<T>(C2), C2.ld,
                                 qr_cpu_work<T>(static_cast<size_t>(ib) * other));
    if (info != 0) lapack_failed("tpmqrt", info);
}

// ---- CUDA ------------------------------------------------------------------------------------------

#ifdef STARFACT_HAVE_CUDA
constexpr size_t kAlign = 256;
inline size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

/// The worker's QR workspace for a task whose tiles have at most `rows` rows, whose reflectors are `k` columns and
/// whose updated tiles are at most `cols` wide, carved from c.work: tau (k), X ((rows + k) x k: the stacked [R1; A2]
/// or a dense V), Y and Z (k x max(k, cols) each: V^T V, or the products of an application), then cuSOLVER's geqrf
/// workspace (the rest).
template <typename T>
struct QrWorkspace {
    T *tau, *X, *Y, *Z, *work;
    int lwork;
    static size_t fixed_bytes(int rows, int k, int cols) {
        const size_t r = static_cast<size_t>(rows), kk = static_cast<size_t>(k),
                     w = static_cast<size_t>(std::max(k, cols));
        return aligned(kk * sizeof(T)) + aligned((r + kk) * kk * sizeof(T)) + 2 * aligned(kk * w * sizeof(T));
    }
    QrWorkspace(CudaWorkerContext& c, int rows, int k, int cols) {
        const size_t r = static_cast<size_t>(rows), kk = static_cast<size_t>(k),
                     w = static_cast<size_t>(std::max(k, cols));
        char* p = static_cast<char*>(c.work);
        tau = reinterpret_cast<T*>(p);
        X = reinterpret_cast<T*>(p += aligned(kk * sizeof(T)));
        Y = reinterpret_cast<T*>(p += aligned((r + kk) * kk * sizeof(T)));
        Z = reinterpret_cast<T*>(p += aligned(kk * w * sizeof(T)));
        work = reinterpret_cast<T*>(p += aligned(kk * w * sizeof(T)));
        const size_t used = fixed_bytes(rows, k, cols);
        if (used > c.work_bytes) STARPU_ABORT_MSG("QR workspace too small: reserve_qr_workspace was not called");
        lwork = static_cast<int>(std::min<size_t>((c.work_bytes - used) / sizeof(T), 1u << 30));
    }
};

/// The largest rows among a task's tiles.
inline int rows_of(std::initializer_list<Tile> tiles) {
    int s = 1;
    for (const Tile& t : tiles) s = std::max(s, t.rows);
    return s;
}

inline void cublas_ok(cublasStatus_t s) {
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

/// cuSOLVER's geqrf of the m x n matrix A in place on the worker's stream; tau out.
template <typename T>
void device_geqrf(CudaWorkerContext& c, const QrWorkspace<T>& w, int m, int n, T* A, int lda) {
    int lwork = 0;
    if (gpu::geqrf_buffer_size(c.solver, m, n, A, lda, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf_bufferSize failed");
    if (lwork > w.lwork) STARPU_ABORT_MSG("QR workspace too small for cusolverDn<t>geqrf");
    if (gpu::geqrf(c.solver, m, n, A, lda, w.tau, w.work, w.lwork, c.dev_info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf failed");
}

/// T (k x k) of the reflectors V (dense m x k, unit part explicit) and w.tau: W = V^H V (herk into w.Y), then the
/// UT triangle and T := W^-1 (trsm).
template <typename T>
void device_build_t(const gpu::WorkerStream& ws, const QrWorkspace<T>& w, int m, int k, const T* V, int ldv, T* Tm,
                    int ldt) {
    cublas_ok(gpu::herk(ws.cublas, Uplo::Upper, Op::ConjTrans, k, m, real_t<T>(1), V, ldv, real_t<T>(0), w.Y, k));
    gpu::launch_qr_ut_triangle(w.Y, k, w.tau, k, Tm, ldt, ws.stream);
    cublas_ok(gpu::trsm(ws.cublas, Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, k, k, T(1), w.Y, k, Tm, ldt));
    gpu::launch_qr_fix_identity(Tm, ldt, w.tau, k, ws.stream);
}

template <typename T>
void geqrt_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile A = tile(buffers[0]), Tt = tile(buffers[1]);
    const int k = std::min(A.rows, A.cols);
    if (k == 0) return;
    const QrWorkspace<T> w(c, A.rows, k, k);
    device_geqrf(c, w, A.rows, A.cols, ptr<T>(A), A.ld);
    gpu::launch_copy_unit_lower(ptr<T>(A), A.ld, w.X, A.rows, A.rows, k, ws.stream);
    device_build_t(ws, w, A.rows, k, w.X, A.rows, ptr<T>(Tt), Tt.ld);
}

/// Q or Q^H applied in the UT form: from the left [C1; C2] -= V op(T) (V^H [C1; C2]), from the right the same steps
/// with the operands' roles transposed, [C1 C2] -= (([C1 C2] V) op(T)) V^H; V = [I; V2] (TS, TT: C1 has k rows, from
/// the right k columns) or V dense and no C1 (GEQRT's reflectors). m x n: C2's shape; `trans`: op(T) = T^H (real
/// T: the transposes).
template <typename T>
void device_apply(const gpu::WorkerStream& ws, const QrWorkspace<T>& w, Side side, bool trans, int m, int n, int k,
                  const T* V, int ldv, const T* Tm, int ldt, T* C1, int ldc1, T* C2, int ldc2) {
    const bool left = side == Side::Left;
    const int wr = left ? k : m, wc = left ? n : k;  // W = V^T [C1; C2] or [C1 C2] V, wr x wc in w.Y (ld wr)
    T beta = T(0);
    if (C1) {
        if (cudaMemcpy2DAsync(w.Y, sizeof(T) * wr, C1, sizeof(T) * ldc1, sizeof(T) * wr, wc, cudaMemcpyDeviceToDevice,
                              ws.stream) != cudaSuccess)
            STARPU_ABORT_MSG("tpmqrt: copy of C1 failed");
        beta = T(1);
    }
    if (left)
        cublas_ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, k, n, m, T(1), V, ldv, C2, ldc2, beta, w.Y, k));
    else
        cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, m, k, n, T(1), C2, ldc2, V, ldv, beta, w.Y, m));
    cublas_ok(gpu::trmm(ws.cublas, side, Uplo::Upper, trans ? Op::ConjTrans : Op::NoTrans, Diag::NonUnit, wr, wc, T(1),
                        Tm, ldt, w.Y, wr, w.Z, wr));
    if (C1) cublas_ok(gpu::geam(ws.cublas, wr, wc, T(1), C1, ldc1, T(-1), w.Z, wr, C1, ldc1));
    if (left)
        cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, m, n, k, T(-1), V, ldv, w.Z, k, T(1), C2, ldc2));
    else
        cublas_ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::ConjTrans, m, n, k, T(-1), w.Z, m, V, ldv, T(1), C2, ldc2));
}

template <typename T>
void unmqr_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile V = tile(buffers[0]), Tt = tile(buffers[1]), C = tile(buffers[2]);
    const int k = std::min(V.rows, V.cols);
    if (k == 0 || C.cols == 0 || C.rows == 0) return;
    const QrWorkspace<T> w(c, rows_of({V, C}), k, a->right ? C.rows : C.cols);
    gpu::launch_copy_unit_lower(ptr<T>(V), V.ld, w.X, V.rows, V.rows, k, ws.stream);
    device_apply<T>(ws, w, side_of(*a), a->trans, C.rows, C.cols, k, w.X, V.rows, ptr<T>(Tt), Tt.ld, nullptr, 0,
                    ptr<T>(C), C.ld);
}

template <typename T>
void tpqrt_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile A1 = tile(buffers[0]), A2 = tile(buffers[1]), Tt = tile(buffers[2]);
    const int n = A2.cols, m = bottom_rows(a->tt, A2.rows, n);
    if (n == 0 || m == 0) return;
    const QrWorkspace<T> w(c, rows_of({A1, A2}), n, n);
    const int lds = n + m;
    T* S = w.X;
    T* S2 = w.X + n;  // the bottom block
    gpu::launch_copy_upper(ptr<T>(A1), A1.ld, S, lds, n, n, gpu::Below::Zero, ws.stream);
    if (a->tt) {
        gpu::launch_copy_upper(ptr<T>(A2), A2.ld, S2, lds, m, n, gpu::Below::Zero, ws.stream);
    } else if (cudaMemcpy2DAsync(S2, sizeof(T) * lds, ptr<T>(A2), sizeof(T) * A2.ld, sizeof(T) * m, n,
                                 cudaMemcpyDeviceToDevice, ws.stream) != cudaSuccess) {
        STARPU_ABORT_MSG("tpqrt: gather failed");
    }
    device_geqrf(c, w, lds, n, S, lds);
    // R into A1's upper triangle (its reflectors below the diagonal stay), V2 into A2 (TT: its upper trapezoid).
    gpu::launch_copy_upper(S, lds, ptr<T>(A1), A1.ld, n, n, gpu::Below::Keep, ws.stream);
    if (a->tt) {
        gpu::launch_copy_upper(S2, lds, ptr<T>(A2), A2.ld, m, n, gpu::Below::Keep, ws.stream);
    } else if (cudaMemcpy2DAsync(ptr<T>(A2), sizeof(T) * A2.ld, S2, sizeof(T) * lds, sizeof(T) * m, n,
                                 cudaMemcpyDeviceToDevice, ws.stream) != cudaSuccess) {
        STARPU_ABORT_MSG("tpqrt: scatter failed");
    }
    // V = [I; V2]: V^H V = I + V2^H V2, whose strictly upper part is V2^H V2's (TT: zeros below V2's trapezoid).
    device_build_t(ws, w, m, n, S2, lds, ptr<T>(Tt), Tt.ld);
}

template <typename T>
void tpmqrt_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const QrArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile V = tile(buffers[0]), Tt = tile(buffers[1]), C1 = tile(buffers[2]), C2 = tile(buffers[3]);
    const int k = V.cols, m = bottom_rows(a->tt, V.rows, k), other = a->right ? C1.rows : C1.cols;
    if (k == 0 || m == 0 || other == 0) return;
    const QrWorkspace<T> w(c, rows_of({V, C1, C2}), k, other);
    const T* V2 = ptr<T>(V);
    int ldv = V.ld;
    if (a->tt) {  // the upper trapezoid, zeros below (the tile's lower part holds its own GEQRT's reflectors)
        gpu::launch_copy_upper(ptr<T>(V), V.ld, w.X, m, m, k, gpu::Below::Zero, ws.stream);
        V2 = w.X;
        ldv = m;
    }
    const int rows = a->right ? other : m, cols = a->right ? m : other;  // C2's block
    device_apply<T>(ws, w, side_of(*a), a->trans, rows, cols, k, V2, ldv, ptr<T>(Tt), Tt.ld, ptr<T>(C1), C1.ld,
                    ptr<T>(C2), C2.ld);
}

/// The workspace of the QR kernels on tiles of up to nb rows and columns whose reflector blocks are at most
/// 2^LogK columns (the tall-and-skinny plans' tiles are nb x n, n much smaller than nb): one `need` per bucket of
/// reflector widths, so that CudaContexts::reserve keeps one record per bucket.
template <typename T, int LogK>
Workspace qr_work_need(cusolverDnHandle_t h, int nb) {
    const int k = std::min(nb, 1 << LogK);
    int lwork = 0;
    if (gpu::geqrf_buffer_size(h, nb + k, k, static_cast<T*>(nullptr), nb + k, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>geqrf_bufferSize failed");
    Workspace w;
    w.device = QrWorkspace<T>::fixed_bytes(nb, k, nb) + aligned(static_cast<size_t>(lwork + 1) * sizeof(T));
    return w;
}
template <typename T, size_t... L>
constexpr std::array<Workspace (*)(cusolverDnHandle_t, int), sizeof...(L)> qr_needs(std::index_sequence<L...>) {
    return {qr_work_need<T, static_cast<int>(L)>...};
}
#endif

// ---- definitions -----------------------------------------------------------------------------------

template <typename T>
void define_geqrt(Kernel& k) {
    define_kernel(k, "geqrt", by_letter<T>("starfact_sgeqrt", "starfact_dgeqrt",
                                           "starfact_cgeqrt", "starfact_zgeqrt"), geqrt_cpu<T>,
                  STARFACT_CUDA_IMPL(geqrt_cuda<T>), {STARPU_RW, STARPU_W});
}
template <typename T>
void define_unmqr(Kernel& k) {
    define_kernel(k, "unmqr", by_letter<T>("starfact_sunmqr", "starfact_dunmqr",
                                           "starfact_cunmqr", "starfact_zunmqr"), unmqr_cpu<T>,
                  STARFACT_CUDA_IMPL(unmqr_cuda<T>), {STARPU_R, STARPU_R, STARPU_RW});
}
template <typename T, bool TT>
void define_tpqrt(Kernel& k) {
    define_kernel(k, TT ? "ttqrt" : "tsqrt",
                  TT ? by_letter<T>("starfact_sttqrt", "starfact_dttqrt", "starfact_cttqrt", "starfact_zttqrt")
                     : by_letter<T>("starfact_stsqrt", "starfact_dtsqrt", "starfact_ctsqrt", "starfact_ztsqrt"),
                  tpqrt_cpu<T>, STARFACT_CUDA_IMPL(tpqrt_cuda<T>), {STARPU_RW, STARPU_RW, STARPU_W});
}
template <typename T, bool TT>
void define_tpmqrt(Kernel& k) {
    define_kernel(k, TT ? "ttmqr" : "tsmqr",
                  TT ? by_letter<T>("starfact_sttmqr", "starfact_dttmqr", "starfact_cttmqr", "starfact_zttmqr")
                     : by_letter<T>("starfact_stsmqr", "starfact_dtsmqr", "starfact_ctsmqr", "starfact_ztsmqr"),
                  tpmqrt_cpu<T>, STARFACT_CUDA_IMPL(tpmqrt_cuda<T>), {STARPU_R, STARPU_R, STARPU_RW, STARPU_RW});
}

}  // namespace

template <typename T>
void insert_geqrt(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t Tf, int ib) {
    const double m = tile_rows(A), n = tile_cols(A), k = std::min(m, n);
    starpu_task* t = qr_packed_task(kernel<define_geqrt<T>>(rt), QrArgs{ib, false, false, false, cuda_contexts(rt)},
                                    flop_scale<T>() * (2 * m * n * k - (m + n) * k * k + 2 * k * k * k / 3));
    t->handles[0] = A;
    t->handles[1] = Tf;
    submit(t, o, "geqrt");
}

template <typename T>
void insert_unmqr(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t V,
                  starpu_data_handle_t Tf, starpu_data_handle_t C, int ib) {
    const bool right = side == Side::Right;
    // m: the order of Q (C's rows from the left, its columns from the right), n: C's other dimension.
    const double m = right ? tile_cols(C) : tile_rows(C), n = right ? tile_rows(C) : tile_cols(C),
                 k = std::min(tile_rows(V), tile_cols(V));
    starpu_task* t = qr_packed_task(kernel<define_unmqr<T>>(rt), QrArgs{ib, false, trans, right, cuda_contexts(rt)},
                                    flop_scale<T>() * (4 * m * n * k - 2 * n * k * k));
    t->handles[0] = V;
    t->handles[1] = Tf;
    t->handles[2] = C;
    submit(t, o, "unmqr");
}

template <typename T>
void insert_tpqrt(const Runtime& rt, const TaskOptions& o, bool tt, starpu_data_handle_t A1, starpu_data_handle_t A2,
                  starpu_data_handle_t Tf, int ib) {
    const double n = tile_cols(A2), m = bottom_rows(tt, tile_rows(A2), tile_cols(A2));
    const Kernel& k = tt ? kernel<define_tpqrt<T, true>>(rt) : kernel<define_tpqrt<T, false>>(rt);
    starpu_task* t =
        qr_packed_task(k, QrArgs{ib, tt, false, false, cuda_contexts(rt)},
                       flop_scale<T>() * (tt ? 2 * n * n * n / 3 : 2 * m * n * n));
    t->handles[0] = A1;
    t->handles[1] = A2;
    t->handles[2] = Tf;
    submit(t, o, tt ? "ttqrt" : "tsqrt");
}

template <typename T>
void insert_tpmqrt(const Runtime& rt, const TaskOptions& o, bool tt, Side side, bool trans, starpu_data_handle_t V,
                   starpu_data_handle_t Tf, starpu_data_handle_t C1, starpu_data_handle_t C2, int ib) {
    const bool right = side == Side::Right;
    const double k = tile_cols(V), m = bottom_rows(tt, tile_rows(V), tile_cols(V)),
                 n = right ? tile_rows(C1) : tile_cols(C1);
    const Kernel& kk = tt ? kernel<define_tpmqrt<T, true>>(rt) : kernel<define_tpmqrt<T, false>>(rt);
    starpu_task* t =
        qr_packed_task(kk, QrArgs{ib, tt, trans, right, cuda_contexts(rt)},
                       flop_scale<T>() * (tt ? 2 * k * k * n : 4 * m * n * k));
    t->handles[0] = V;
    t->handles[1] = Tf;
    t->handles[2] = C1;
    t->handles[3] = C2;
    submit(t, o, tt ? "ttmqr" : "tsmqr");
}

template <typename T>
void reserve_qr_workspace(const Runtime& rt, int64_t nb, int64_t k) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || nb == 0 || k == 0) return;
    static constexpr auto needs = qr_needs<T>(std::make_index_sequence<21>{});
    int log_k = 0;
    while ((int64_t(1) << log_k) < std::min(nb, k) && log_k < 20) ++log_k;
    cuda_contexts(rt)->reserve(static_cast<int>(nb), needs[static_cast<size_t>(log_k)]);
#else
    (void)rt;
    (void)nb;
    (void)k;
#endif
}

#define STARFACT_QR_TILE(T)                                                                                         \
    template void insert_geqrt<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, int); \
    template void insert_unmqr<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,              \
                                  starpu_data_handle_t, starpu_data_handle_t, int);                                 \
    template void insert_tpqrt<T>(const Runtime&, const TaskOptions&, bool, starpu_data_handle_t, starpu_data_handle_t, \
                                  starpu_data_handle_t, int);                                                       \
    template void insert_tpmqrt<T>(const Runtime&, const TaskOptions&, bool, Side, bool, starpu_data_handle_t,       \
                                   starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t, int);          \
    template void reserve_qr_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_QR_TILE(float)
STARFACT_QR_TILE(double)
STARFACT_QR_TILE(std::complex<float>)
STARFACT_QR_TILE(std::complex<double>)
#undef STARFACT_QR_TILE

}  // namespace starfact::detail
