// Internal: the insert helpers of the equilibration codelets (codelets/equilibrate.cpp) of the mixed-precision gesv.
// Vectors are one-column tiles of doubles, tiled like A's rows (r, d) or like its columns (c).
#pragma once
#include <starpu.h>

#include "codelets/codelets.hpp"

namespace starfact::detail {

/// r := max(r, the row maxima of |A|) for one tile of A (NaN wins).
void insert_row_max(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t r);
/// c := max(c, the column maxima of |D_rows A|) for one tile of A (NaN wins).
void insert_col_max(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d_rows,
                    starpu_data_handle_t c);
/// s := 1 / the smallest power of two >= s, entry by entry (1 for 0; NaN for NaN or infinity).
void insert_inverse_pow2(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t s);

}  // namespace starfact::detail
