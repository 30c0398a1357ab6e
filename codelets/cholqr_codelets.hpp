// Internal: the Cholesky QR's codelets (codelets/qr_cholqr.cpp) and their insert helpers, called by
// algorithms/cholqr.cpp. The factored matrix is one tile column of row tiles A_i (n columns, n <= the tile's rows);
// the small matrices (Gram matrices, Cholesky factors, T, R) are n x n. Lower Cholesky factors: G = L L^T, R = L^T.
#pragma once
#include <starpu.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "codelets/codelets.hpp"
#include "starfact/cholesky.hpp"  // RunStats

namespace starfact::detail {

/// How many passes one Cholesky QR runs, decided on the device while it runs: 3 (shifted Cholesky QR 3), or 2 when
/// the second pass's Gram matrix shows its input orthonormal to within kSkipDistance (then passes 1 and 2 are the
/// CholeskyQR2 of the shifted first pass's Q, and the third pass's tasks return at once). Written by the second
/// pass's Cholesky task, read by the tasks of the third pass and by the reconstruction, which all depend on it
/// through their data; kept alive by the Sequence until they complete.
/// With it, what the breakdown checks share: the factorization's breakdown record, the trace of the first pass's Gram
/// matrix (||A||_F^2) and whether the last pass's Gram matrix was far from the identity, which the reconstruction
/// reports at the column it finds the weakest.
struct QrStatus;

/// The part of a tile that a Cholesky QR task works on (the blocked form's panels and trailing columns, and applying
/// its block reflectors): rows row0 and below of the `cols` columns from col0 (cols < 0: to the tile's last). The
/// default is the whole tile.
struct TileWindow {
    int row0 = 0, col0 = 0, cols = -1;
    bool whole() const { return row0 == 0 && col0 == 0 && cols < 0; }
};

struct CholqrPasses {
    std::atomic<int> count{3};
    RunStats* stats = nullptr;  // the blocking form's: the reconstruction sets stats->qr_passes
    QrStatus* status = nullptr;
    std::atomic<bool> unorthogonal{false};
    // The first pass's Gram matrix was rounded to TF32 (`low`), and the second pass's Cholesky failed: A is beyond
    // that pass's range, and the blocking form starts over with a double first pass (no breakdown is reported).
    bool low = false;
    std::atomic<bool> low_failed{false};
};

/// W := X^T X (the full symmetric n x n Gram matrix of the tile X). `low` (double): of X rounded to TF32, products
/// summed in float (on GPUs, tensor cores), unless an entry of X is outside [2^-50, 2^50] or zero.
template <typename T>
void insert_cholqr_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t W,
                        bool low = false, TileWindow x = {});
/// X := X V (V upper: a previous pass's L^-T), then W := X^T X. With `third` (the third pass's): nothing when
/// third->count is 2.
template <typename T>
void insert_cholqr_solve_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t V, starpu_data_handle_t X,
                              starpu_data_handle_t W, const CholqrPasses* third = nullptr, TileWindow x = {});
/// X := X V (V upper: the reconstruction's M^-1).
template <typename T>
void insert_cholqr_solve(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t V, starpu_data_handle_t X,
                         TileWindow x = {});
/// Wp += the sum of the Wi (a node of the reduction tree). With `third`: nothing when third->count is 2.
template <typename T>
void insert_cholqr_add(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& Wi,
                       starpu_data_handle_t Wp, const CholqrPasses* third = nullptr);
/// L := the lower Cholesky factor of G (+ s I, s = 11 (m n + n (n + 1)) u trace(G) when `shift`: the shift of
/// Fukaya et al. 2020, m the factored matrix's rows), strictly upper part zero, and V := L^-T (upper, by a solve
/// against the identity). If the factorization fails it is retried with growing shifts (L stays finite). Breakdowns
/// (*info := the column if *info was 0, recorded in passes->status): the first pass (`shift`) checks A^T A itself, NaN
/// on its diagonal (QrBreakdown::NotFinite), its trace infinite (Overflow) or below the smallest normal number / eps
/// (Underflow); a later pass whose unshifted Cholesky fails, RankDeficient. With `check` (the last pass's Gram), ||G -
/// I||_F > 0.9 (the previous pass did not orthogonalise) sets passes->unorthogonal. The second pass's task (`decide`)
/// sets passes->count to 2 when ||G - I||_F <= kSkipDistance and the factorization succeeded unshifted; the third
/// pass's (`check`) does nothing when it is 2. `low` with `shift` (a first pass whose Gram matrix was rounded to
/// TF32): s = 2^-22 max_j G(j, j) first, then from 2^-11 max_j G(j, j) on. With passes->low, a failure of the first
/// or second pass's Cholesky sets passes->low_failed instead of a breakdown (the blocking form starts over).
/// `first_column`: the factored columns' first in A (a panel of the blocked form), added to the columns reported.
template <typename T>
void insert_cholqr_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t G, starpu_data_handle_t L,
                         starpu_data_handle_t V, starpu_data_handle_t info, int64_t m, bool shift, bool check,
                         CholqrPasses* passes, bool decide = false, bool low = false, int first_column = 0);
/// The Householder reconstruction (Ballard et al. 2015) from the top block Q2(0:n, :) of tile A0 before the last
/// pass and the three Cholesky factors: Qt := Q2(0:n, :) L3^-T (the orthogonal factor's top block), the modified LU
/// Qt - S = Y1 U, T := -U S Y1^-T (into the first n rows of the tile Tf), V := M^-1 = L3^-T U^-1 (upper; the last
/// pass's solve is Y_i = Q2_i M^-1 with M = U L3^T), RY := S (L1 L2 L3)^T on and above the diagonal, Y1 below it.
/// When passes->count is 2: A0 holds Q1, L2 is the last factor (Qt := Q1(0:n, :) L2^-T, M = U L2^T, R = S (L1 L2)^T)
/// and L3 is not read. X: an n x (n + 1) scratch. The rank check: R(j, j) = L1(j, j) L2(j, j) L3(j, j) up to its sign;
/// the first j with |R(j, j)| < kRankTolerance max_i |R(i, i)| (cond(R) > 1 / kRankTolerance: numerically rank
/// deficient, also when A^T A is exactly singular and the shifted passes went through), or else the j of the least
/// |R(j, j)| when passes->unorthogonal, is a breakdown: *info := j + 1 if *info was 0, QrBreakdown::RankDeficient.
/// Windows (a panel of the blocked form): `a0` the panel in the first tile (n = its columns, its top block from its
/// first row), `t` where T goes in Tf (its first n rows; a window that does not start at column 0 keeps the rest of
/// Tf: the other panels' T); `first_column` as insert_cholqr_potrf's.
template <typename T>
void insert_cholqr_householder(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A0,
                               starpu_data_handle_t L1, starpu_data_handle_t L2, starpu_data_handle_t L3,
                               starpu_data_handle_t Tf, starpu_data_handle_t V, starpu_data_handle_t RY,
                               starpu_data_handle_t X, starpu_data_handle_t info, CholqrPasses* passes,
                               TileWindow a0 = {}, TileWindow t = {}, int first_column = 0);
/// A0(0:n, 0:n) := RY (of the window a0).
template <typename T>
void insert_cholqr_store(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t RY, starpu_data_handle_t A0,
                         TileWindow a0 = {});
/// Side Left: W := Y^T C (n x cols); Right: W := C Y (rows x n). `unit`: Y is the first tile, whose first n rows
/// hold the unit lower Y1 (R above its diagonal is not read). Y and C may be windows `y`, `c` of one tile (the blocked
/// form's trailing columns: one handle, read once).
template <typename T>
void insert_cholqr_ytc(const Runtime& rt, const TaskOptions& o, Side side, bool unit, starpu_data_handle_t Y,
                       starpu_data_handle_t C, starpu_data_handle_t W, TileWindow y = {}, TileWindow c = {});
/// Left: W := op(T) W; Right: W := W op(T); op(T) = T^T when `trans`. T: the first n rows of the tile Tf (of its
/// window t).
template <typename T>
void insert_cholqr_tmul(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t Tf,
                        starpu_data_handle_t W, TileWindow t = {});
/// Left: C -= Y W; Right: C -= W Y^T. `unit` as insert_cholqr_ytc's (then one more n x cols scratch tile Z). Windows
/// as insert_cholqr_ytc's.
template <typename T>
void insert_cholqr_update(const Runtime& rt, const TaskOptions& o, Side side, starpu_data_handle_t Y,
                          starpu_data_handle_t W, starpu_data_handle_t C, starpu_data_handle_t Z = nullptr,
                          TileWindow y = {}, TileWindow c = {});
/// STARFACT_QR_WIDEN, read at each call: Off ("off": float's Cholesky QR in float everywhere, and the panel tree's
/// square float panels one geqrf each), Force ("force": the float column widened on CPU workers too), or Default
/// (widened on GPUs: algorithms/cholqr.cpp, codelets/qr_panel.cpp).
enum class QrWiden { Default, Off, Force };
QrWiden qr_widen_setting();
/// Makes every CUDA worker's workspace large enough for the Cholesky of the n x n Gram matrices, and its scratch
/// for the solves over tiles of `rows` rows (0: no solves, as in applying Q).
template <typename T>
void reserve_cholqr_workspace(const Runtime& rt, int64_t n, int64_t rows = 0);

}  // namespace starfact::detail
