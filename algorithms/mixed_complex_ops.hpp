// Internal: the mixed-precision Hermitian solve's operator and preconditioner (algorithms/posv_mixed.cpp with a
// complex<double> A and Options::factor Fp32 or Tf32), on the tiles of one solve: the complex<float> factor F of
// D A D (+ a diagonal shift), D = diag(Re a_ii)^-1/2, the products with A (its lower tiles, Hermitian) and the solves
// with F. The refinement that iterates with them is the one driver of algorithms/refine_ops.hpp, as for the real SPD
// solve (MixedOps, algorithms/mixed_ops.hpp); its products and solves are whole-matrix tasks everywhere
// (codelets/complex_refine.cpp), and the factorization is the complex tile Cholesky's graph over codelets that take
// TF32 tensor cores for Tf32 (codelets/complex_tiles.cpp), stopped at its breakdown as the real one is
// (codelets/breakdown.hpp). Not here: per-tile arithmetic (Refinement::tile_tolerance is refused for complex matrices)
// and the ladder (Auto is the complex<double> factorization).
#pragma once
#include <complex>
#include <memory>
#include <string>

#include "algorithms/refine_ops.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

class BreakdownWatch;

class ComplexMixedOps final : public RefineOps<std::complex<double>> {
public:
    using Z = std::complex<double>;
    using C = std::complex<float>;
    /// A (lower triangle, read only) and B (its columns become the solution X) of one solve, as RefineOps; `plan`:
    /// the solve's (a refined posv's on A's tiles), whose task mapping the factorization's tasks take. F lives in GPU
    /// memory when GPUs work on the solve (a workspace when it would take more than half their free memory), else in
    /// host memory, with the scaling and the vectors.
    ComplexMixedOps(TileMatrix<Z>& A, TileMatrix<Z>& B, const Options& opts, const Plan& plan,
                    const TileMatrix<Z>* source = nullptr, bool a_unordered = false);
    ~ComplexMixedOps() override;

    /// One task graph: d = diag(Re A)^-1/2, F = complex<float>(D A D + shift I), ||A||_inf, potrf(F) (the trailing
    /// updates in TF32 on CUDA workers for Tf32), X = M^-1 B0 (M^-1 = D F^-H F^-1 D), and, the first time, B0 = B.
    /// Waits; returns potrf(F)'s info.
    int factor(double shift) override;
    bool shifts() const override { return true; }
    const char* factorization_name() const override { return "factorization"; }
    /// A diagonal entry whose real part is not positive and finite.
    std::string unusable() const override;
    int64_t skipped_tasks() const override;
    /// factor() in two halves (the submit form): the graph submitted into seq (returns potrf(F)'s operation), then,
    /// after seq.wait(), d and ||A|| gathered and potrf(F)'s info returned.
    int submit_factor(Sequence& seq, double shift);
    int finish_factor(Sequence& seq, int op);

private:
    void submit_precondition(const TaskOptions& o, const TileMatrix<Z>& In, TileMatrix<double>& S, TileMatrix<C>& Zs,
                             TileMatrix<Z>& Out, bool accumulate) override;
    void submit_product(const TaskOptions& o, const TileMatrix<Z>* B0, const TileMatrix<Z>& X,
                        TileMatrix<Z>& R) override;
    /// Submits the tile Cholesky of F into seq (its tasks with the low precision's arithmetic); returns its operation.
    int submit_low_potrf(Sequence& seq);
    Plan plan_;
    std::unique_ptr<TileMatrix<C>> F_;
    TileMatrix<double> d2_, s_;  // the scaling, each entry twice (2n x 1, tiles of 2 nb); the row sums of |A| (n x 1)
    bool diagonal_positive_ = true;
    std::unique_ptr<BreakdownWatch> watch_;  // stops each factorization of F at its breakdown
};

}  // namespace starfact::detail
