// Internal: the tile-level vector algebra of the refinement's flexible GMRES (algorithms/mixed_gmres.cpp), on
// double tiles whose rows are tiled like A's. A Krylov panel holds, per row tile, blocks of g columns side by side
// (block l: columns [l g, (l + 1) g)); column j of every block belongs to right-hand side j, so that all right-hand
// sides iterate in lockstep and one task per row tile does every column's work (codelets/krylov.cpp). `reals`: the
// real numbers per entry of the panels' tiles (2: complex tiles of m rows, read as 2m real rows, their real and
// imaginary parts interleaved; GMRES over the reals, algorithms/refine_ops.hpp); coefficient tiles are real.
#pragma once
#include <starpu.h>

#include <vector>

#include "codelets/codelets.hpp"

namespace starfact::detail {

/// Out(:, out_col + j) := beta Out(:, out_col + j) + alpha sum_{l < blocks} X(:, x_col + l g + j) C(l, j), j < g, on
/// one row tile; C is a small coefficient tile (at least blocks x g). X null: X is Out itself (its columns read must
/// not overlap the ones written).
void insert_krylov_combine(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t out, int out_col,
                           starpu_data_handle_t x, int x_col, int blocks, int g, starpu_data_handle_t c, double beta,
                           double alpha = 1.0, int reals = 1);
/// X(:, col + j) := sign X(:, col + j) / ||.|| for j < g on one row tile, the norm from the second Gram-Schmidt
/// pass's inner products in H (kernels/mixed/krylov_normalize.hpp: H(k + 1, j) - sum_{l <= k} H(l, j)^2); zero
/// where mask(0, j) is 0 or that norm is not positive.
void insert_krylov_normalize(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t x, int col, int g, int k,
                             starpu_data_handle_t h, starpu_data_handle_t mask, double sign, int reals = 1);
/// H(l, j) := sum over the row tiles P_i of P_i(:, l g + j) . P_i(:, y_col + j), l < blocks, j < g: every block's
/// column against block y_col's, in one task over the whole panel (one small result to read back).
void insert_krylov_dot(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t h,
                       const std::vector<starpu_data_handle_t>& panel, int blocks, int g, int y_col, int reals = 1);
/// X(:, col + j) *= C(0, j), j < g, on one row tile.
void insert_krylov_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t x, int col, int g,
                         starpu_data_handle_t c);

}  // namespace starfact::detail
