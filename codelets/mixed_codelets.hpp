// Internal: the insert helpers of the mixed-precision solve's element-wise codelets (codelets/mixed.cpp).
// Vectors are one-column tiles of doubles; d is the diagonal scaling A[a][a]^-1/2.
#pragma once
#include <starpu.h>

#include "codelets/codelets.hpp"
#include "kernels/mixed/convert.hpp"

namespace starfact::detail {

/// d := A[k][k]'s diagonal^-1/2 (NaN where not positive).
void insert_diag_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d);
/// F := float(D_rows X D_cols): d_cols used when columns is Own; SameAsRows for a diagonal tile, None for a block
/// of right-hand sides.
void insert_to_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t d_rows,
                   starpu_data_handle_t d_cols, ColumnScale columns, starpu_data_handle_t F);
/// X += D_rows Z.
void insert_add_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Z, starpu_data_handle_t d_rows,
                    starpu_data_handle_t X);
/// s_rows += |A|'s row sums, t_cols (when given) += its column sums; diagonal: A is a lower-stored diagonal tile.
void insert_abs_sums(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, bool diagonal,
                     starpu_data_handle_t s_rows, starpu_data_handle_t t_cols);
/// Y := X.
void insert_copy(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t Y);
/// X := 0.
void insert_zero(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X);

/// Y -= A X for a diagonal tile A of which the lower triangle is stored (the symmetric product).
void insert_symm(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t X,
                 starpu_data_handle_t Y);

}  // namespace starfact::detail
