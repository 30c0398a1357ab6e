// Internal: the mixed-precision gesv's operator and preconditioner (algorithms/gesv_mixed.cpp), on the tiles of one
// solve: the float LU of the equilibrated matrix Dr A Dc (power-of-two row and column scales, as LAPACK's dgeequb),
// the products with A (all its tiles) and the solves with the float LU. The refinement that iterates with them is
// the one driver of algorithms/refine_ops.hpp.
#pragma once
#include <memory>
#include <string>

#include "algorithms/refine_ops.hpp"
#include "starfact/lu.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

class LuRefineOps final : public RefineOps<double> {
public:
    /// A (n x n, read only), piv (shaped for A: it receives the float LU's interchanges) and B (its columns become
    /// the solution X) of one solve; opts.factor is the arithmetic of the float LU's trailing updates. `plan`: the
    /// solve's (a refined gesv's on A's tiles), whose task mapping the float LU takes. The float factor lives in GPU
    /// memory when GPUs work on the solve (as a workspace when it would take more than half their free memory),
    /// else in host memory, with the scales and the vectors.
    LuRefineOps(TileMatrix<double>& A, Pivots& piv, TileMatrix<double>& B, const Options& opts, const Plan& plan);
    ~LuRefineOps() override;

    /// One task graph: the row scales Dr (1 / the power of two at or above each row's largest |a_ij|), the column
    /// scales Dc of Dr A (the same rule: Dr A Dc has entries of magnitude at most 1, and a largest entry in (1/2, 1]
    /// in every row and column), F = float(Dr A Dc) with the row sums of |A| in the same pass, getrf(F) in
    /// Options::factor's arithmetic, X = M^-1 B0 (M^-1 = Dc F^-1 Dr), and, the first time, B0 = B. Waits; returns
    /// getrf(F)'s info (> 0: an exactly zero pivot). `shift` is not used (shifts() is false).
    int factor(double shift) override;
    bool shifts() const override { return false; }
    const char* factorization_name() const override { return "LU"; }
    /// NaN or Inf in A (a row or column scale that is not finite).
    std::string unusable() const override;

private:
    void submit_precondition(const TaskOptions& o, const TileMatrix<double>& In, TileMatrix<double>& S,
                             TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) override;
    void submit_product(const TaskOptions& o, const TileMatrix<double>* B0, const TileMatrix<double>& X,
                        TileMatrix<double>& R) override;
    Plan plan_;
    Pivots& piv_;
    std::unique_ptr<TileMatrix<float>> F_;
    TileMatrix<double> dr_, dc_, s_, t_;  // row and column scales, row and column sums of |A|
    bool finite_ = true;
};

/// gesv with a report (mixed.hpp) on tiles, with the call's plan (gesv's on A's tiles, B's columns as nrhs,
/// refine.always_low): the blocking tile and array forms' common part.
template <typename T>
int gesv_reported(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, SolveReport& report,
                  const Refinement& refine, const Plan& plan);

}  // namespace starfact::detail
