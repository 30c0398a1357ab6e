// Internal: the insert helpers of the mixed-precision solve's element-wise codelets (codelets/mixed.cpp).
// Vectors are one-column tiles of doubles; d is the diagonal scaling A[a][a]^-1/2.
#pragma once
#include <starpu.h>

#include "codelets/codelets.hpp"
#include "kernels/mixed/convert.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// d := A[k][k]'s diagonal^-1/2 (NaN where not positive).
void insert_diag_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d);
/// S(0, jc) := per column b of X's column block jc, the smallest power of two >= max_i |d_i X_ib| (NaN when the
/// column holds NaN or Inf): one task reading every tile of the block. S is 1 x c, tiled like X's columns.
void insert_column_scales(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& X,
                          const TileMatrix<double>& d, TileMatrix<double>& S, int64_t jc);
/// F := float(D_rows X S^-1), S: the column scales of X's block (|F| <= 1, so no value leaves float's range).
void insert_to_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t d_rows,
                   starpu_data_handle_t S, starpu_data_handle_t F);
/// X += D_rows Z S.
void insert_add_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Z, starpu_data_handle_t d_rows,
                    starpu_data_handle_t S, starpu_data_handle_t X);
/// F := float(D_rows A D_cols) for a tile of A and s_rows += |A|'s row sums, t_cols += its column sums; a diagonal
/// tile (d_cols and t_cols null): columns scaled by d_rows, `shift` added to the diagonal of F, s_rows += the row
/// sums of the symmetric tile.
void insert_to_low_sums(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d_rows,
                        starpu_data_handle_t d_cols, starpu_data_handle_t F, starpu_data_handle_t s_rows,
                        starpu_data_handle_t t_cols, double shift = 0);
/// out (1 x 1) := the sum of squares of the float tile F (a lower-stored diagonal tile: of its symmetric tile).
void insert_sum_squares(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t F, bool diagonal,
                        starpu_data_handle_t out);
/// Y := X (tiles of one element type, any: they are copied as bytes).
void insert_copy(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t Y);
/// X := double(F) (F a float tile, X a double tile of the same shape).
void insert_widen(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t F, starpu_data_handle_t X);
/// F := float(X), rounded to nearest, over X's rows and columns (F may have more rows: they are not written).
void insert_narrow(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t F);
/// X := 0 (any element type).
void insert_zero(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X);

/// R(i, jc) := B0(i, jc) - (A X)(i, jc) in one task (codelets/refine_sweeps.cpp): A symmetric with its lower tiles
/// stored; without B0, R(i, jc) := -(A X)(i, jc).
void insert_residual_rows(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A,
                          const TileMatrix<double>* B0, const TileMatrix<double>& X, TileMatrix<double>& R, int64_t i,
                          int64_t jc);
/// Step k of the triangular solve with the lower factor L on column block jc of Z, in one task: forward,
/// Z_k := L_kk^-1 Z_k then Z_i -= L_ik Z_k below; backward, Z_k -= sum L_ik^T Z_i then Z_k := L_kk^-T Z_k.
void insert_sweep(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& L, TileMatrix<float>& Z, int64_t k,
                  int64_t jc, bool forward);

/// Out(:, jc) := D F^-T F^-1 D In(:, jc) (or += when `accumulate`) in one task (codelets/refine_fused.cpp): the
/// column scales into S(0, jc), the conversion to float into Z(:, jc), both sweeps over every tile of F (its
/// diagonal blocks through W(k, 0) = F_kk^-1, strictly upper part zero), the conversion back.
void insert_solve_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F,
                      const TileMatrix<float>& W, const TileMatrix<double>& d, const TileMatrix<double>& In,
                      TileMatrix<double>& S, TileMatrix<float>& Z, TileMatrix<double>& Out, int64_t jc,
                      bool accumulate);
/// R(:, jc) := B0(:, jc) - (A X)(:, jc) in one task reading each of A's lower tiles once; without B0, := -(A X).
void insert_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A, const TileMatrix<double>* B0,
                     const TileMatrix<double>& X, TileMatrix<double>& R, int64_t jc);

}  // namespace starfact::detail
