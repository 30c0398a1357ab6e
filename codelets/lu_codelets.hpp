// Internal: the tile-LU codelets (defined through detail::kernel<define>, so the Runtime owns them) and their
// insert helpers, called by algorithms/getrf.cpp and algorithms/getrs.cpp. insert_getrf_panel and insert_laswp also
// take complex tiles (the complex LU, algorithms/getrf_complex.cpp): CPU implementations only for those.
#pragma once
#include <starpu.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codelets/codelets.hpp"
#include "kernels/lu/lu_kernels.hpp"

namespace starfact::detail {

/// Panel of step k: factors the column of tiles `col` (A[k][k] .. A[mt-1][k], all nb rows but the last)
/// with partial pivoting over the whole column; writes the step's pivots (global, 1-based) into `piv`
/// and, if a pivot is exactly zero and *info is still 0, info = offset + local column (1-based).
/// `offset`: global index of the panel's first row and column (k nb).
/// `pivoting` false: no interchanges (getrf_nopiv's diagonal tile; `col` is then one tile, piv unused).
template <typename T>
void insert_getrf_panel(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& col,
                        starpu_data_handle_t piv, starpu_data_handle_t info, int64_t offset, bool pivoting);

/// Applies the interchanges of one step (`piv`, global 1-based rows, the first at global row `offset`) to
/// the tiles `col` of one tile column (tiles k .. mt-1, each nb rows but the last), in order.
template <typename T>
void insert_laswp(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& col,
                  starpu_data_handle_t piv, int64_t offset);

/// The interchanges of one step composed into one permutation of a tile column's rows (0: the column's first row,
/// global row `offset`): top[i] is the original row that row i of the top tile (i < kb) ends up holding; `below`
/// lists, by row, the rows under the top tile that change, each with the original row it receives (always a row of
/// the top tile).
struct RowPermutation {
    std::vector<int64_t> top;
    std::vector<std::pair<int64_t, int64_t>> below;
};
RowPermutation compose_interchanges(const int* piv, int kb, int64_t offset);

/// The composed permutation of one step as the tile-by-tile tasks read it: a StarPU vector of composed_size(kb) ints,
/// [0] the count c of rows below the top tile that change, [1, 1 + kb) RowPermutation::top, [1 + kb, 1 + kb + c) the
/// rows of `below` (ascending) and [1 + 2 kb, 1 + 2 kb + c) the rows they receive; the entries past c are -1.
constexpr int64_t composed_size(int64_t kb) { return 1 + 3 * kb; }
/// Largest tile (rows) whose tile-by-tile interchanges have a CUDA implementation: the compose kernel plans a step's
/// pivots in shared memory, the top kernel holds a column of the top tile in registers (kernels/lu/laswp_tile.cu).
constexpr int64_t kLaswpTileCudaMaxRows = 4096;
/// Whether the tile-by-tile interchanges of tiles of nb rows can run on CUDA workers in this build.
bool laswp_tile_on_cuda(int64_t nb);
/// Why they run on CPU workers only where laswp_tile_on_cuda is false, in parentheses (for refusals).
std::string laswp_tile_cpu_reason();

/// The phases of the interchanges applied tile by tile (codelets/laswp_tile.cpp: distributed matrices).
enum class LaswpTilePhase : int { Gather, Spread, Top };
/// One task of the interchanges of one step applied tile by tile (buffers and modes as codelets/laswp_tile.cpp
/// lists them per phase, the step's composed permutation in place of pivots): offset is the top tile's first global
/// row, nb the tile size, tile = t - k (gather, spread), p the grid's rows (top). CPU and CUDA implementations (the
/// CUDA one for nb <= kLaswpTileCudaMaxRows; larger tiles run on CPU workers), one performance model per phase.
template <typename T>
void insert_laswp_tile(const Runtime& rt, const TaskOptions& o, LaswpTilePhase phase,
                       const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>& buffers,
                       int64_t offset, int64_t nb, int64_t tile, int p);
/// The task composing the interchanges of one step (`piv`, R: global 1-based rows, the first at global row `offset`)
/// into `composed` (W: composed_size(kb) ints) for the tile-by-tile tasks (codelets/laswp_compose.cpp); nb: the tile
/// size, which decides whether it may run on CUDA workers.
void insert_laswp_compose(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t piv,
                          starpu_data_handle_t composed, int64_t offset, int64_t nb);

/// The panel of a step by tournament pivoting (codelets/getrf_tournament.cpp; algorithms/lu_tournament.hpp): the
/// candidate sets are a kb x kb matrix of rows (`values`) and a vector of kb ints (`rows`: their global rows, 0-based,
/// -1 past the count). getrf_select: the rows that partial pivoting picks among the leaf's `tiles` (tiles first,
/// first + stride, ... of a tile column of tiles of nb rows; R) into a candidate set (W).
template <typename T>
void insert_getrf_select(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t values,
                         starpu_data_handle_t rows, const std::vector<starpu_data_handle_t>& tiles, int64_t nb,
                         int64_t first, int64_t stride);
/// getrf_merge: the picks of partial pivoting among candidate sets a (RW) and b (R), into a.
template <typename T>
void insert_getrf_merge(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t values_a,
                        starpu_data_handle_t rows_a, starpu_data_handle_t values_b, starpu_data_handle_t rows_b);
/// getrf_winners: the step's pivots `piv` (W) that bring the winners' rows `rows` (R), in order, to global rows
/// offset, offset + 1, ... (tournament_pivots).
void insert_getrf_winners(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t rows,
                          starpu_data_handle_t piv, int64_t offset);
/// LAPACK-style pivots (global, 1-based, sequential interchanges from global row `offset`) that bring the kb rows
/// `winners` (global, 0-based, distinct) to rows offset .. offset + kb - 1 in that order.
std::vector<int> tournament_pivots(const int* winners, int kb, int64_t offset);
/// Makes every CUDA worker's workspace large enough for the tournament's stacks of up to `rows` rows of `cols`
/// columns (cuSOLVER's getrf workspace and pivots, two copies of the stack and its picks).
template <typename T>
void reserve_getrf_tournament_workspace(const Runtime& rt, int64_t rows, int64_t cols);

/// One copy of a distributed LU's row exchange (codelets/laswp_rows.cpp; algorithms/lu_row_exchange.hpp):
/// dst(to[r], :) := src(from[r], :) for r < from.size(), src and dst matrices of the same columns (src R; dst W when
/// `whole`, the copy writing every row of it, else RW).
template <typename T>
void insert_laswp_rows(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t src, starpu_data_handle_t dst,
                       bool whole, const std::vector<int>& from, const std::vector<int>& to);

/// Makes every CUDA worker's workspace large enough for panels of up to `rows` rows: cuSOLVER's getrf
/// workspace and device pivots, and, when `gathered_cols` > 0, the gathered copy of a rows x gathered_cols
/// column of several tiles (a column of one tile is factored in place).
template <typename T>
void reserve_getrf_panel_workspace(const Runtime& rt, int64_t rows, int64_t gathered_cols);

}  // namespace starfact::detail
