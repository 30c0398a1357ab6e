// Internal: the tile-QR codelets (defined through detail::kernel<define>, so the Runtime owns them) and their
// insert helpers, called by algorithms/geqrf.cpp and algorithms/ormqr.cpp. The kernels of the tile QR
// (Buttari, Langou, Kurzak, Dongarra 2009) in LAPACK's storage: V below the diagonal of a factored tile (GEQRT) or
// in a whole tile (TS) or in the upper trapezoid of a merged tile (TT), T upper triangular, ib x K, of blocks of
// ib reflectors (the CUDA kernels: ib = K, one block).
#pragma once
#include <starpu.h>

#include <cstdint>
#include <vector>

#include "codelets/codelets.hpp"
#include "kernels/qr/qr_scale_rule.hpp"

namespace starfact::detail {

struct QrStatus;  // codelets/qr_status.hpp

/// A matrix buffer as the QR codelets read it: address, rows, columns, leading dimension.
struct QrTile {
    void* ptr;
    int rows, cols, ld;
};
inline QrTile qr_tile(void* buffer) {
    return {reinterpret_cast<void*>(STARPU_MATRIX_GET_PTR(buffer)), static_cast<int>(STARPU_MATRIX_GET_NX(buffer)),
            static_cast<int>(STARPU_MATRIX_GET_NY(buffer)), static_cast<int>(STARPU_MATRIX_GET_LD(buffer))};
}
template <typename T>
T* ptr(const QrTile& t) {
    return static_cast<T*>(t.ptr);
}

/// A per-thread CPU workspace of at least n entries (a worker runs one codelet at a time; a codelet takes one).
template <typename T>
T* qr_cpu_work(size_t n) {
    thread_local std::vector<T> w;
    if (w.size() < n) w.resize(n);
    return w.data();
}

/// A task of the kernel k whose argument is a copy of args (freed with the task), counting `flops`.
template <typename Args>
starpu_task* qr_packed_task(const Kernel& k, const Args& args, double flops = 0) {
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&k.cl);
    t->cl_arg = pack(args);
    t->cl_arg_size = sizeof(Args);
    t->cl_arg_free = 1;
    t->flops = flops;
    return t;
}

/// GEQRT: A (m x n tile) = Q R in place, T (W) its triangular factors, inner blocking ib.
template <typename T>
void insert_geqrt(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t Tf, int ib);
/// UNMQR: C := op(Q) C (side Left: Q acts on C's rows) or C op(Q) (Right: on its columns) with the Q of
/// GEQRT(V, T); `trans`: Q^T.
template <typename T>
void insert_unmqr(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t V,
                  starpu_data_handle_t Tf, starpu_data_handle_t C, int ib);
/// TSQRT (tt false) / TTQRT (tt true): the QR of [R1; A2], R1 the upper triangle of the top tile A1 (its first n
/// rows), A2 a full tile (TS) or the upper trapezoid of one (TT, its first min(rows, n) rows); R1 is overwritten by
/// the new R, A2's full tile (TS) or upper trapezoid (TT) by the reflectors, T (W) by their factor.
template <typename T>
void insert_tpqrt(const Runtime& rt, const TaskOptions& o, bool tt, starpu_data_handle_t A1, starpu_data_handle_t A2,
                  starpu_data_handle_t Tf, int ib);
/// TSMQR / TTMQR: [C1; C2] := op(Q) [C1; C2] (side Left) or [C1 C2] := [C1 C2] op(Q) (Right) with the Q of
/// TSQRT / TTQRT (V: the bottom tile, T); C1's first n rows (Right: columns; n: V's columns) and C2's rows (Right:
/// columns) of V (TS: all; TT: min(rows, n)) take part.
template <typename T>
void insert_tpmqrt(const Runtime& rt, const TaskOptions& o, bool tt, Side side, bool trans, starpu_data_handle_t V,
                   starpu_data_handle_t Tf, starpu_data_handle_t C1, starpu_data_handle_t C2, int ib);
/// If *info == 0 and R(i, i) (the diagonal of the tile R's upper triangle) is exactly zero for some i:
/// *info = offset + i + 1 (the first such i), and status records QrBreakdown::ZeroDiagonal.
template <typename T>
void insert_qr_diag_info(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t info,
                         int64_t offset, QrStatus* status);
/// R's check (codelets/qr_finite.cpp): if *info == 0 and the tiles of one tile column of R (`tiles`, top to bottom;
/// the last one on R's diagonal when `last_diagonal`: its upper triangle only) hold NaN or Inf, *info := the first
/// such global column (column0: the tile column's first) + 1, and status records QrBreakdown::NotFinite.
template <typename T>
void insert_qr_finite_check(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                            bool last_diagonal, int64_t column0, starpu_data_handle_t info, QrStatus* status);
/// gels' scaling (codelets/qr_scaling.cpp), over the tiles of one tile column (top to bottom, nb rows each but the
/// last) and M, a vector of two doubles [max |A|, max |B|]: M[which] := max(M[which], the largest
/// magnitude of the tiles' first `rows` rows) (NaN wins); `init`: the first such task, which sets M to 0 first.
/// The tiles are the column's tile rows first_tile, first_tile + tile_step, ... (a rank's share of a distributed
/// column; by default all of them).
template <typename T>
void insert_qr_absmax(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                      int64_t nb, int64_t rows, int which, bool init, starpu_data_handle_t M, int64_t first_tile = 0,
                      int64_t tile_step = 1);
/// The tiles' rows [first, last) times 2^qr_rescale_exponent(M, ranges, which) (the tiles: as insert_qr_absmax's).
template <typename T>
void insert_qr_rescale(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                       int64_t nb, int64_t first, int64_t last, const QrScaleRanges& ranges, QrRescale which,
                       starpu_data_handle_t M, int64_t first_tile = 0, int64_t tile_step = 1);
/// M := the element-wise largest of M and `other` (two doubles each; NaN wins), or other's copy with `init` (M
/// written first here). On CPU workers.
void insert_qr_absmax_merge(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t M, starpu_data_handle_t other,
                            bool init);
/// A := the identity pattern of the tile whose first row is global row r0 and first column global column c0.
template <typename T>
void insert_qr_laset(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t r0, int64_t c0);
/// B(0:k, :) := R^-1 B(0:k, :) (`trans`: R^-T), R the k x k upper triangle of the tile R (k its columns); B's rows
/// below k untouched.
template <typename T>
void insert_qr_trsm(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t B,
                    bool trans = false);
/// C(0:r, :) -= A^T B(0:k, :) for the k x r tile A: C's rows below r untouched (the update of a solve with R^T).
template <typename T>
void insert_qr_gemm_t(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t B,
                      starpu_data_handle_t C);
/// B := A^T (B's tile has A's shape transposed).
template <typename T>
void insert_qr_transpose(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t B);
/// A(first:, :) := 0 (the tile's rows from `first` on).
template <typename T>
void insert_qr_zero_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t first);

/// The panel of the blocked Householder QR (codelets/qr_panel.cpp): the tiles `panel` (tile column k from tile row k
/// down, top to bottom; w columns, M rows in all, M >= w) are factored as one M x w matrix, R above the diagonal of
/// the first tile, the w reflectors below it (unit diagonal implicit) and in the tiles below, T (w x w, upper, LAPACK's
/// larft forward columnwise) into the first w rows of Tf.
template <typename T>
void insert_qr_panel(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& panel,
                     starpu_data_handle_t Tf);
/// Makes every CUDA worker's workspace large enough for a panel of up to `rows` x w.
template <typename T>
void reserve_qr_panel_workspace(const Runtime& rt, int64_t rows, int64_t w);

/// Makes every CUDA worker's workspace large enough for the QR kernels on tiles of up to nb rows and columns whose
/// blocks of reflectors are at most k columns (k: min(nb, n) of the factored matrix).
template <typename T>
void reserve_qr_workspace(const Runtime& rt, int64_t nb, int64_t k);

}  // namespace starfact::detail
