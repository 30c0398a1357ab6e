// Internal: the tiles of one mixed-precision SPD solve (algorithms/mixed_ops.cpp), those of the flexible GMRES of
// every refined solve (algorithms/mixed_gmres.cpp), and the SPD solve's products and solves with its factor.
#pragma once
#include <cstdint>
#include <memory>

#include "algorithms/mixed_ops.hpp"
#include "codelets/codelets.hpp"
#include "kernels/scalar.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// The SPD solve's own tiles beside RefineOps' vectors: F (the float factor, private_lower), d (scaling), s (row sums
/// of |A|), in device memory when GPUs work on the solve, else in host memory; with whole-matrix refinement tasks, W:
/// the inverses of F's diagonal tiles (tile (k, 0) holds F_kk^-1), made after each factorization.
struct MixedOps::Tiles {
    std::unique_ptr<TileMatrix<float>> factor;
    TileMatrix<float>& F;
    std::unique_ptr<TileMatrix<float>> W;
    TileMatrix<double> d, s;
    Tiles(const TileMatrix<double>& A, Residency r)
        : factor(private_lower<float>(A, r)),
          F(*factor),
          d(A.runtime(), A.n(), 1, A.nb(), r),
          s(A.runtime(), A.n(), 1, A.nb(), r) {}
    const TileMatrix<float>* inverses() const { return W.get(); }
};

/// The Krylov space of one group of g right-hand sides (columns [c0, c0 + g) of B's column tile jc), m vectors per
/// restart cycle, in the solve's memory: V (m + 1 blocks of g columns: block l holds every column's l-th basis
/// vector), Z = M^-1 V (m blocks), the blocks M^-1 and A are applied to (in, out, w, with their float scratch `low`
/// and column scales S), and the small tiles the host exchanges with it: H and H2 (the two Gram-Schmidt passes' inner
/// products, which the device also uses as coefficients, read back), scale, mask (the columns iterating) and y
/// (written), ones (copies). Every panel is one column tile wide: (m + 1) g <= nb. T: the solve's element type
/// (RefineOps<T>); the coefficients are real (GMRES over the reals, refine_ops.hpp).
template <typename T>
struct KrylovSpace {
    int64_t jc, c0;
    int g, m;
    TileMatrix<T> V, Z, in, out, w;
    TileMatrix<double> S;
    TileMatrix<single_t<T>> low;
    TileMatrix<double> H, H2, mask, scale, y, ones;
    KrylovSpace(Runtime& rt, int64_t n, int64_t nb, int64_t jc_, int64_t c0_, int g_, int m_, Residency r);
};

/// Out := D F^-T F^-1 D In, or Out += that when `accumulate`, without waiting: each column of In scaled by a power
/// of two before its conversion to float (S), so that no value leaves float's range whatever In's magnitude; Z is
/// the float scratch of In's shape. W: the inverses of F's diagonal tiles, given when whole_matrix_refinement.
void submit_apply_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F, const TileMatrix<float>* W,
                      const TileMatrix<double>& d, const TileMatrix<double>& In, TileMatrix<double>& S,
                      TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate);

/// Whether the refinement's solves and products run as whole-matrix tasks (codelets/refine_fused.cpp), on the GPU
/// when one works on the solve: at most one GPU. On several GPUs they stay tasks per tile row and sweep step, so that
/// each GPU works on the tiles it holds.
bool whole_matrix_refinement(const Runtime& rt, Mapping mapping);

/// Whether a low-precision factorization stops at its breakdown (codelets/breakdown.hpp): yes, unless
/// STARFACT_BREAKDOWN_STOP=off (every factorization to its end, for comparisons).
bool breakdown_stop();

/// o for a task of the refinement that works on the solve's own tiles: on the GPUs when GPUs work on the solve (the
/// tiles are there, and a CPU worker would take a whole-matrix task's time).
TaskOptions on_solve_memory(const Runtime& rt, TaskOptions o);

/// R := B0 - A X (or -A X without B0), without waiting: whole-matrix tasks or tasks per block row, as
/// whole_matrix_refinement says.
void submit_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A, const TileMatrix<double>* B0,
                     const TileMatrix<double>& X, TileMatrix<double>& R);

}  // namespace starfact::detail
