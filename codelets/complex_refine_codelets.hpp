// Internal: the codelets of the mixed-precision Hermitian solve (codelets/complex_refine.cpp; the solve and the
// residual: the real solve's whole-matrix codelets, codelets/refine_fused.cpp, on complex T), on complex<double> A,
// right-hand sides and solutions and the complex<float> factor F. The scaling vector d2 is 2n x 1 doubles tiled by
// 2 nb: tile i holds each d_a of A's tile row i twice (convert_complex.hpp), so that the real conversion kernels scale
// a complex tile read as twice its rows.
#pragma once
#include <starpu.h>

#include <complex>

#include "codelets/codelets.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// d2(k) := each Re(A_kk[a][a])^-1/2 twice (NaN where not positive and finite).
void insert_diag_scale_pairs(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d2);
/// F := complex<float>(D_rows A D_cols) for a tile of A, s_rows += the row sums of |A| (moduli), t_cols += its column
/// sums; a diagonal tile (d2_cols and t_cols null): F's lower triangle with a real diagonal + shift, zeros above, and
/// s_rows += the row sums of the Hermitian tile.
void insert_to_low_sums_complex(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A,
                                starpu_data_handle_t d2_rows, starpu_data_handle_t d2_cols, starpu_data_handle_t F,
                                starpu_data_handle_t s_rows, starpu_data_handle_t t_cols, double shift = 0);
/// Out(:, jc) := D F^-H F^-1 D In(:, jc) (or += when `accumulate`) in one task: In's columns scaled by powers of two
/// into S(0, jc) (the largest real or imaginary part of each scaled column), converted to complex<float> into
/// Z(:, jc), both triangular sweeps over F's lower tiles (trsm on the diagonal tiles, products below), converted back.
void insert_solve_low_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<std::complex<float>>& F,
                              const TileMatrix<double>& d2, const TileMatrix<std::complex<double>>& In,
                              TileMatrix<double>& S, TileMatrix<std::complex<float>>& Z,
                              TileMatrix<std::complex<double>>& Out, int64_t jc, bool accumulate);
/// R(:, jc) := B0(:, jc) - (A X)(:, jc) in one task reading each of A's lower tiles once (A Hermitian: A_ik and, for
/// i > k, A_ik^H); without B0, R := -(A X).
void insert_residual_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<std::complex<double>>& A,
                             const TileMatrix<std::complex<double>>* B0, const TileMatrix<std::complex<double>>& X,
                             TileMatrix<std::complex<double>>& R, int64_t jc);

}  // namespace starfact::detail
