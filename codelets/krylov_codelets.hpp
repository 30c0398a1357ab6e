// Internal: the tile-level vector algebra of the refinement's flexible GMRES (algorithms/mixed_gmres.cpp), on
// double tiles whose rows are tiled like A's. A Krylov panel holds, per row tile, blocks of g columns side by side
// (block l: columns [l g, (l + 1) g)); column j of every block belongs to right-hand side j, so that all right-hand
// sides iterate in lockstep and one task per row tile does every column's work (codelets/krylov.cpp).
#pragma once
#include <starpu.h>

#include <vector>

#include "codelets/codelets.hpp"

namespace starfact::detail {

/// Out(:, out_col + j) := beta Out(:, out_col + j) + sum_{l < blocks} X(:, x_col + l g + j) C(l, j), j < g, on one
/// row tile; C is a small coefficient tile (blocks x g). X null: X is Out itself (its columns read must not overlap
/// the ones written).
void insert_krylov_combine(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t out, int out_col,
                           starpu_data_handle_t x, int x_col, int blocks, int g, starpu_data_handle_t c, double beta);
/// H(l, j) := sum over the row tiles P_i of P_i(:, l g + j) . P_i(:, y_col + j), l < blocks, j < g: every block's
/// column against block y_col's, in one task over the whole panel (one small result to read back).
void insert_krylov_dot(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t h,
                       const std::vector<starpu_data_handle_t>& panel, int blocks, int g, int y_col);
/// X(:, col + j) *= C(0, j), j < g, on one row tile.
void insert_krylov_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t x, int col, int g,
                         starpu_data_handle_t c);

}  // namespace starfact::detail
