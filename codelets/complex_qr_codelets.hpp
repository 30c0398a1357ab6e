// Internal: the complex tile-QR codelets (codelets/complex_qr_tiles.cpp), CPU implementations through the scalar
// layer's c and z LAPACKE and CBLAS routines (no CUDA codelet yet), and their insert helpers, called by
// algorithms/geqrf_complex.cpp and algorithms/unmqr_complex.cpp. The kernels are the real tile QR's
// (codelets/qr_codelets.hpp) in LAPACK's storage: V below the diagonal of a factored tile (GEQRT), in a whole tile
// (TS) or in the upper trapezoid of a merged one (TT), T upper triangular, ib x K, of blocks of ib reflectors; Q is
// applied as it is (NoTrans) or as Q^H (`adjoint`). T is std::complex<float> or std::complex<double>.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"

namespace starfact::detail {

struct QrStatus;  // codelets/qr_status.hpp

/// GEQRT: A (m x n tile) = Q R in place, T (W) its triangular factors, inner blocking ib.
template <typename T>
void insert_complex_geqrt(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t Tf,
                          int ib);
/// UNMQR: C := op(Q) C (Left) or C op(Q) (Right) with the Q of GEQRT(V, T), op(Q) = Q^H when `adjoint`.
template <typename T>
void insert_complex_unmqr(const Runtime& rt, const TaskOptions& o, Side side, bool adjoint, starpu_data_handle_t V,
                          starpu_data_handle_t Tf, starpu_data_handle_t C, int ib);
/// TSQRT (tt false) / TTQRT (tt true): the QR of [R1; A2], R1 the upper triangle of the top tile A1, A2 a full tile
/// (TS) or the upper trapezoid of one (TT); R1 := the new R, A2 := the reflectors, T (W) their factor.
template <typename T>
void insert_complex_tpqrt(const Runtime& rt, const TaskOptions& o, bool tt, starpu_data_handle_t A1,
                          starpu_data_handle_t A2, starpu_data_handle_t Tf, int ib);
/// TSMQR / TTMQR: [C1; C2] := op(Q) [C1; C2] (Left) or [C1 C2] := [C1 C2] op(Q) (Right) with the Q of TSQRT / TTQRT
/// (V: the bottom tile, T); op(Q) = Q^H when `adjoint`.
template <typename T>
void insert_complex_tpmqrt(const Runtime& rt, const TaskOptions& o, bool tt, Side side, bool adjoint,
                           starpu_data_handle_t V, starpu_data_handle_t Tf, starpu_data_handle_t C1,
                           starpu_data_handle_t C2, int ib);
/// If *info == 0 and R(i, i) (the diagonal of the tile R) is exactly zero for some i: *info = offset + i + 1 (the
/// first such i), and status records QrBreakdown::ZeroDiagonal.
template <typename T>
void insert_complex_qr_diag_info(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R,
                                 starpu_data_handle_t info, int64_t offset, QrStatus* status);
/// B(0:k, :) := op(R)^-1 B(0:k, :), R the k x k upper triangle of the tile R (k: its columns), op(R) = R^H when
/// `adjoint`; B's rows below k untouched.
template <typename T>
void insert_complex_qr_trsm(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t R, starpu_data_handle_t B,
                            bool adjoint);
/// C(0:p, :) -= op(A) B(0:q, :), op(A) p x q: A (`adjoint` false) or A^H; C's rows below p untouched.
template <typename T>
void insert_complex_qr_gemm(const Runtime& rt, const TaskOptions& o, bool adjoint, starpu_data_handle_t A,
                            starpu_data_handle_t B, starpu_data_handle_t C);
/// A := the identity pattern of the tile whose first row is global row r0 and first column global column c0.
template <typename T>
void insert_complex_qr_laset(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t r0, int64_t c0);
/// A(first:, :) := 0 (the tile's rows from `first` on).
template <typename T>
void insert_complex_qr_zero_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, int64_t first);
/// B := A^H (B's tile has A's shape transposed).
template <typename T>
void insert_complex_qr_adjoint(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A,
                               starpu_data_handle_t B);

}  // namespace starfact::detail
