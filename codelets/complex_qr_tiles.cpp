// The complex tile-QR codelets (complex_qr_codelets.hpp), CPU implementations only: LAPACKE's c/z geqrt, gemqrt,
// tpqrt (l = 0 for TS, l = rows for TT) and tpmqrt with inner blocking ib, Q^H applied with LAPACK's trans 'C'; and
// the small ones of gels and orgqr (R's exactly zero diagonal, the triangular solves with R or R^H on a tile's
// leading rows and their updates, the identity pattern, zeroed rows, a tile's conjugate transpose).
//   geqrt:  0 = A (RW), 1 = T (W)              unmqr:   0 = V (R), 1 = T (R), 2 = C (RW)
//   tpqrt:  0 = A1 (RW), 1 = A2 (RW), 2 = T (W)  tpmqrt: 0 = V (R), 1 = T (R), 2 = C1 (RW), 3 = C2 (RW)
//   diag_info: 0 = R (R), 1 = info (RW)   trsm: 0 = R (R), 1 = B (RW)   gemm: 0 = A (R), 1 = B (R), 2 = C (RW)
//   laset, zero_rows: 0 = A (W / RW)      adjoint: 0 = A (R), 1 = B (W)
// Performance models starfact_<c|z><name>_tile.
#include <algorithm>
#include <complex>

#include "codelets/complex_qr_codelets.hpp"
#include "codelets/qr_codelets.hpp"
#include "codelets/qr_status.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cpu_lapack.hpp"
#include "kernels/scalar.hpp"

namespace starfact::detail {
namespace {

struct ComplexQrArgs {
    int ib = 0;             // inner blocking of the LAPACK kernels
    bool tt = false;        // tpqrt/tpmqrt: triangle on triangle (TT) rather than triangle on square (TS)
    bool adjoint = false;   // unmqr/tpmqrt: Q^H; trsm: R^H; gemm: A^H
    bool right = false;     // unmqr/tpmqrt: C op(Q) rather than op(Q) C
    int64_t r0 = 0, c0 = 0;  // diag_info: r0 = the tile's diagonal's global offset; laset: its first row, column;
                             // zero_rows: r0 = the first row zeroed
    QrStatus* status = nullptr;  // diag_info: where the breakdown is recorded
};

/// Rows of the bottom tile that take part in a TS (all) or TT (its upper trapezoid) kernel with n columns.
int bottom_rows(bool tt, int rows, int n) { return tt ? std::min(rows, n) : rows; }
char side_char(const ComplexQrArgs& a) { return a.right ? 'R' : 'L'; }
char trans_char(const ComplexQrArgs& a) { return a.adjoint ? 'C' : 'N'; }

[[noreturn]] void lapack_failed(const char* what, int info) {
    STARPU_ABORT_MSG("starfact: LAPACKE complex %s failed with info %d", what, info);
}

template <typename T>
void geqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile A = qr_tile(buffers[0]), Tt = qr_tile(buffers[1]);
    const int k = std::min(A.rows, A.cols);
    if (k == 0) return;
    const int ib = std::min(a->ib, k);
    const int info = cpu::geqrt(A.rows, A.cols, ib, ptr<T>(A), A.ld, ptr<T>(Tt), Tt.ld,
                                qr_cpu_work<T>(static_cast<size_t>(ib) * A.cols));
    if (info != 0) lapack_failed("geqrt", info);
}

template <typename T>
void unmqr_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile V = qr_tile(buffers[0]), Tt = qr_tile(buffers[1]), C = qr_tile(buffers[2]);
    const int k = std::min(V.rows, V.cols);
    if (k == 0 || C.rows == 0 || C.cols == 0) return;
    const int ib = std::min(a->ib, k);
    const int info = cpu::gemqrt(side_char(*a), trans_char(*a), C.rows, C.cols, k, ib, ptr<T>(V), V.ld, ptr<T>(Tt),
                                 Tt.ld, ptr<T>(C), C.ld,
                                 qr_cpu_work<T>(static_cast<size_t>(ib) * (a->right ? C.rows : C.cols)));
    if (info != 0) lapack_failed("gemqrt", info);
}

template <typename T>
void tpqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile A1 = qr_tile(buffers[0]), A2 = qr_tile(buffers[1]), Tt = qr_tile(buffers[2]);
    const int n = A2.cols, m = bottom_rows(a->tt, A2.rows, n);
    if (n == 0 || m == 0) return;
    const int ib = std::min(a->ib, n);
    const int info = cpu::tpqrt(m, n, a->tt ? m : 0, ib, ptr<T>(A1), A1.ld, ptr<T>(A2), A2.ld, ptr<T>(Tt), Tt.ld,
                                qr_cpu_work<T>(static_cast<size_t>(ib) * n));
    if (info != 0) lapack_failed("tpqrt", info);
}

template <typename T>
void tpmqrt_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile V = qr_tile(buffers[0]), Tt = qr_tile(buffers[1]), C1 = qr_tile(buffers[2]),
                 C2 = qr_tile(buffers[3]);
    const int k = V.cols, m = bottom_rows(a->tt, V.rows, k);
    // Left: C2's first m rows and C1's first k rows, C1.cols wide; right: their columns, C1.rows high.
    const int other = a->right ? C1.rows : C1.cols;
    if (k == 0 || m == 0 || other == 0) return;
    const int ib = std::min(a->ib, k);
    const int rows = a->right ? other : m, cols = a->right ? m : other;  // LAPACK's m, n: those of C2's block
    const int info = cpu::tpmqrt(side_char(*a), trans_char(*a), rows, cols, k, a->tt ? m : 0, ib, ptr<T>(V), V.ld,
                                 ptr<T>(Tt), Tt.ld, ptr<T>(C1), C1.ld, ptr<T>(C2), C2.ld,
                                 qr_cpu_work<T>(static_cast<size_t>(ib) * other));
    if (info != 0) lapack_failed("tpmqrt", info);
}

template <typename T>
void diag_info_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile R = qr_tile(buffers[0]);
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    if (*info != 0) return;
    for (int i = 0; i < std::min(R.rows, R.cols); ++i)
        if (ptr<T>(R)[i + static_cast<int64_t>(i) * R.ld] == T(0)) {
            *info = static_cast<int>(a->r0 + i + 1);
            a->status->record(QrBreakdown::ZeroDiagonal, *info);
            return;
        }
}

template <typename T>
void trsm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile R = qr_tile(buffers[0]), B = qr_tile(buffers[1]);
    if (R.cols == 0 || B.cols == 0) return;
    cpu::trsm(Side::Left, Uplo::Upper, a->adjoint ? Op::ConjTrans : Op::NoTrans, Diag::NonUnit, R.cols, B.cols, T(1),
              ptr<T>(R), R.ld, ptr<T>(B), B.ld);
}

template <typename T>
void gemm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]), C = qr_tile(buffers[2]);
    const int p = a->adjoint ? A.cols : A.rows, q = a->adjoint ? A.rows : A.cols;
    if (p == 0 || q == 0 || C.cols == 0) return;
    cpu::gemm(a->adjoint ? Op::ConjTrans : Op::NoTrans, Op::NoTrans, p, C.cols, q, T(-1), ptr<T>(A), A.ld, ptr<T>(B),
              B.ld, T(1), ptr<T>(C), C.ld);
}

template <typename T>
void laset_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile A = qr_tile(buffers[0]);
    for (int j = 0; j < A.cols; ++j)
        for (int i = 0; i < A.rows; ++i)
            ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld] = a->r0 + i == a->c0 + j ? T(1) : T(0);
}

template <typename T>
void zero_rows_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexQrArgs*>(cl_arg);
    const QrTile A = qr_tile(buffers[0]);
    for (int j = 0; j < A.cols; ++j)
        for (int64_t i = a->r0; i < A.rows; ++i) ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld] = T(0);
}

template <typename T>
void adjoint_cpu(void* buffers[], void*) {
    const QrTile A = qr_tile(buffers[0]), B = qr_tile(buffers[1]);
    for (int j = 0; j < A.cols; ++j)
        for (int i = 0; i < A.rows; ++i)
            ptr<T>(B)[j + static_cast<int64_t>(i) * B.ld] = conj_of(ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld]);
}

// One history-based model per codelet, named after the tile kernel; no CUDA implementation.
#define STARFACT_COMPLEX_QR_KERNEL(define, name, cpu, ...)                                                            \
    template <typename T>                                                                                             \
    void define(Kernel& k) {                                                                                          \
        define_kernel(k, name, by_letter<T>("", "", "starfact_c" name "_tile", "starfact_z" name "_tile"), cpu<T>,  \
                      nullptr, {__VA_ARGS__});                                                                        \
    }
STARFACT_COMPLEX_QR_KERNEL(define_geqrt, "geqrt", geqrt_cpu, STARPU_RW, STARPU_W)
STARFACT_COMPLEX_QR_KERNEL(define_unmqr, "unmqr", unmqr_cpu, STARPU_R, STARPU_R, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_tsqrt, "tsqrt", tpqrt_cpu, STARPU_RW, STARPU_RW, STARPU_W)
STARFACT_COMPLEX_QR_KERNEL(define_ttqrt, "ttqrt", tpqrt_cpu, STARPU_RW, STARPU_RW, STARPU_W)
STARFACT_COMPLEX_QR_KERNEL(define_tsmqr, "tsmqr", tpmqrt_cpu, STARPU_R, STARPU_R, STARPU_RW, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_ttmqr, "ttmqr", tpmqrt_cpu, STARPU_R, STARPU_R, STARPU_RW, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_qr_diag_info, "qr_diag_info", diag_info_cpu, STARPU_R, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_qr_trsm, "qr_trsm", trsm_cpu, STARPU_R, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_qr_gemm, "qr_gemm", gemm_cpu, STARPU_R, STARPU_R, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_qr_laset, "qr_laset", laset_cpu, STARPU_W)
STARFACT_COMPLEX_QR_KERNEL(define_qr_zero_rows, "qr_zero_rows", zero_rows_cpu, STARPU_RW)
STARFACT_COMPLEX_QR_KERNEL(define_qr_adjoint, "qr_adjoint", adjoint_cpu, STARPU_R, STARPU_W)
#undef STARFACT_COMPLEX_QR_KERNEL

/// A task of codelet k on `handles` with a copy of args, counting `flops` (real operations), submitted with o.
void insert(const Kernel& k, const TaskOptions& o, std::initializer_list<starpu_data_handle_t> handles,
            const ComplexQrArgs& args, double flops, const char* what) {
    starpu_task* t = qr_packed_task(k, args, flops);
    int i = 0;
    for (starpu_data_handle_t h : handles) t->handles[i++] = h;
    submit(t, o, what);
}

}  // namespace

// Flop counts in real operations: a complex multiply-add is 8 of them, 4 times the real count's 2.
template <typename T>
void insert_complex_geqrt(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t Tf,
                          int ib) {
    static_assert(is_complex_v<T>, "the complex QR's codelets take complex tiles");
    const double m = tile_rows(A), n = tile_cols(A), k = std::min(m, n);
    ComplexQrArgs a;
    a.ib = ib;
    insert(kernel<define_geqrt<T>>(rt), o, {A, Tf}, a, 4 * (2 * m * n * k - (m + n) * k * k + 2 * k * k * k / 3),
           "geqrt");
}

template <typename T>
void insert_complex_unmqr(const Runtime& rt, const TaskOptions& o, Side side, bool adjoint, starpu_data_handle_t V,
                          starpu_data_handle_t Tf, starpu_data_handle_t C, int ib) {
    ComplexQrArgs a;
    a.ib = ib;
    a.adjoint = adjoint;
    a.right = side == Side::Right;
    // m: the order of Q (C's rows from the left, its columns from the right), n: C's other dimension.
    const double m = a.right ? tile_cols(C) : tile_rows(C), n = a.right ? tile_rows(C) : tile_cols(C),
                 k = std::min(tile_rows(V), tile_cols(V));
    insert(kernel<define_unmqr<T>>(rt), o, {V, Tf, C}, a, 4 * (4 * m * n * k - 2 * n * k * k), "unmqr");
}

template <typename T>
void insert_complex_tpqrt(const Runtime& rt, const TaskOptions& o, bool tt, starpu_data_handle_t A1,
                          starpu_data_handle_t A2, starpu_data_handle_t Tf, int ib) {
    const double n = tile_cols(A2), m = bottom_rows(tt, tile_rows(A2), tile_cols(A2));
    ComplexQrArgs a;
    a.ib = ib;
    a.tt = tt;
    insert(tt ? kernel<define_ttqrt<T>>(rt) : kernel<define_tsqrt<T>>(rt), o, {A1, A2, Tf}, a,
           4 * (tt ? 2 * n * n * n / 3 : 2 * m * n * n), tt ? "ttqrt" : "tsqrt");
}

template <typename T>
void insert_complex_tpmqrt(const Runtime& rt, const TaskOptions& o, bool tt, Side side, bool adjoint,
                           starpu_data_handle_t V, starpu_data_handle_t Tf, starpu_data_handle_t C1,
                           starpu_data_handle_t C2, int ib) {
    ComplexQrArgs a;
    a.ib = ib;
    a.tt = tt;
    a.adjoint = adjoint;
    a.right = side == Side::Right;
    const double k = tile_cols(V), m = bottom_rows(tt, tile_rows(V), tile_cols(V)),
                 n = a.right ? tile_rows(C1) : tile_cols(C1);
    insert(tt ? kernel<define_ttmqr<T>>(rt) : kernel<define_tsmqr<T>>(rt), o, {V, Tf, C1, C2}, a,
           4 * (tt ? 2 * k * k * n : 4 * m * n * k), tt ? "ttmqr" : "tsmqr");
}

template <typename T>
void insert_complex_qr_diag_info(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R,
                                 starpu_data_handle_t info, int64_t offset, QrStatus* status) {
    ComplexQrArgs a;
    a.r0 = offset;
    a.status = status;
    insert(kernel<define_qr_diag_info<T>>(rt), o, {R, info}, a, 0, "qr_diag_info");
}

template <typename T>
void insert_complex_qr_trsm(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t B,
                            bool adjoint) {
    const double k = tile_cols(R), n = tile_cols(B);
    ComplexQrArgs a;
    a.adjoint = adjoint;
    insert(kernel<define_qr_trsm<T>>(rt), o, {R, B}, a, 4 * k * k * n, "qr_trsm");
}

template <typename T>
void insert_complex_qr_gemm(const Runtime& rt, const TaskOptions& o, bool adjoint, starpu_data_handle_t A,
                            starpu_data_handle_t B, starpu_data_handle_t C) {
    const double m = tile_rows(A), k = tile_cols(A), n = tile_cols(C);
    ComplexQrArgs a;
    a.adjoint = adjoint;
    insert(kernel<define_qr_gemm<T>>(rt), o, {A, B, C}, a, 8 * m * n * k, "qr_gemm");
}

template <typename T>
void insert_complex_qr_laset(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t r0, int64_t c0) {
    ComplexQrArgs a;
    a.r0 = r0;
    a.c0 = c0;
    insert(kernel<define_qr_laset<T>>(rt), o, {A}, a, 0, "qr_laset");
}

template <typename T>
void insert_complex_qr_zero_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t first) {
    ComplexQrArgs a;
    a.r0 = first;
    insert(kernel<define_qr_zero_rows<T>>(rt), o, {A}, a, 0, "qr_zero_rows");
}

template <typename T>
void insert_complex_qr_adjoint(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A,
                               starpu_data_handle_t B) {
    insert(kernel<define_qr_adjoint<T>>(rt), o, {A, B}, ComplexQrArgs{}, 0, "qr_adjoint");
}

#define STARFACT_COMPLEX_QR_TILES(T)                                                                                 \
    template void insert_complex_geqrt<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                  \
                                          starpu_data_handle_t, int);                                                \
    template void insert_complex_unmqr<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,      \
                                          starpu_data_handle_t, starpu_data_handle_t, int);                          \
    template void insert_complex_tpqrt<T>(const Runtime&, const TaskOptions&, bool, starpu_data_handle_t,            \
                                          starpu_data_handle_t, starpu_data_handle_t, int);                          \
    template void insert_complex_tpmqrt<T>(const Runtime&, const TaskOptions&, bool, Side, bool,                     \
                                           starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,         \
                                           starpu_data_handle_t, int);                                               \
    template void insert_complex_qr_diag_info<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,           \
                                                 starpu_data_handle_t, int64_t, QrStatus*);                          \
    template void insert_complex_qr_trsm<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                \
                                            starpu_data_handle_t, bool);                                             \
    template void insert_complex_qr_gemm<T>(const Runtime&, const TaskOptions&, bool, starpu_data_handle_t,          \
                                            starpu_data_handle_t, starpu_data_handle_t);                             \
    template void insert_complex_qr_laset<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, int64_t,      \
                                             int64_t);                                                               \
    template void insert_complex_qr_zero_rows<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, int64_t); \
    template void insert_complex_qr_adjoint<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,             \
                                               starpu_data_handle_t);
STARFACT_COMPLEX_QR_TILES(std::complex<float>)
STARFACT_COMPLEX_QR_TILES(std::complex<double>)
#undef STARFACT_COMPLEX_QR_TILES

}  // namespace starfact::detail
