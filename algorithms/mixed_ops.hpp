// Internal: the mixed-precision SPD solve's operator and preconditioner (algorithms/posv_mixed.cpp), on the tiles of
// one solve: the scaled float factor F of D A D (+ a diagonal shift), the products with A (its lower tiles) and the
// solves with F. The refinement that iterates with them is the one driver of algorithms/refine_ops.hpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/refine_ops.hpp"
#include "codelets/codelets.hpp"
#include "kernels/scalar.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

class TileArithmetic;
class BreakdownWatch;

class MixedOps final : public RefineOps<double> {
public:
    /// A (lower triangle, read only) and B (its columns become the solution X) of one solve, as RefineOps. The
    /// solve's own tiles live in GPU memory when GPUs work on it (the float factor as a workspace when it would take
    /// more than half their free memory), else in host memory. `plan`: the solve's (a refined posv's on A's tiles),
    /// whose kernels every factorization of F takes (the shifted retries and the ladder's rungs of the same call, all
    /// tensor-core arithmetics when one is, plan without planning again).
    MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts, const Plan& plan,
             const TileMatrix<double>* source = nullptr, bool a_unordered = false);
    ~MixedOps() override;

    /// Per-tile arithmetic (Refinement::tile_tolerance): when > 0 and the factor's arithmetic is a tensor-core one,
    /// each factorization gives every tile of F the arithmetic the rule of tile_arithmetic.hpp picks (the
    /// conversion is then waited for before the factorization is submitted: the rule needs the norms of F's tiles).
    void set_tile_tolerance(double tolerance) { tile_tolerance_ = tolerance; }
    int64_t low_tiles() const override;
    int64_t off_diagonal_tiles() const override;
    std::string tile_summary() const override;
    int64_t skipped_tasks() const override;
    /// One task graph: d = diag(A)^-1/2, F = float(D A D + shift I), ||A||_inf, potrf(F), X = M^-1 B0
    /// (M^-1 = D F^-T F^-1 D), and, the first time, B0 = B. Waits; returns potrf(F)'s info.
    int factor(double shift) override;
    bool shifts() const override { return true; }
    const char* factorization_name() const override { return "factorization"; }
    /// A diagonal entry that is not positive and finite, or ||A||_inf not finite.
    std::string unusable() const override;
    /// factor() in two halves: the graph submitted into seq (returns potrf(F)'s operation), then, after seq.wait(),
    /// d and ||A|| gathered and potrf(F)'s info returned.
    int submit_factor(Sequence& seq, double shift);
    int finish_factor(Sequence& seq, int op);

private:
    void submit_precondition(const TaskOptions& o, const TileMatrix<double>& In, TileMatrix<double>& S,
                             TileMatrix<float>& Z, TileMatrix<double>& Out, bool accumulate) override;
    void submit_product(const TaskOptions& o, const TileMatrix<double>* B0, const TileMatrix<double>& X,
                        TileMatrix<double>& R) override;
    struct Tiles;
    Plan plan_;
    bool diagonal_positive_ = true;
    double tile_tolerance_ = 0;
    std::unique_ptr<TileArithmetic> arith_;  // the last factorization's per-tile arithmetic; null without
    std::unique_ptr<Tiles> t_;
    std::unique_ptr<BreakdownWatch> watch_;  // stops each factorization of F at its breakdown
};

/// Whether a solve of T in precision p takes the refined path: a double matrix factored in a lower precision, or a
/// complex<double> one factored in complex<float> (Fp32, Tf32: algorithms/mixed_complex_ops.hpp).
template <typename T>
constexpr bool lower_factor(Precision p) {
    if constexpr (is_complex_v<T>) return is_double_v<T> && refines_complex_double(p);
    else return is_real_double_v<T> && refines_double(p);
}

/// A lower-triangular n x n matrix of A's order and tiles, private to a solve (its float factor, or a copy of A):
/// in device memory when `where` is Device and it takes at most half of what the GPUs have free (one allocation
/// per GPU, given back in one free, on A's tiles' devices), otherwise a workspace, whose tiles StarPU allocates
/// where they are written and may evict to host memory (a matrix too large for the GPUs). `full`: the whole square
/// (the LU's factor), not only the lower tiles.
/// (T: the private matrix's elements; S: A's, double or std::complex<double>.)
template <typename T, typename S>
std::unique_ptr<TileMatrix<T>> private_lower(const TileMatrix<S>& A, Residency where, bool full = false);

/// The submit form of the mixed-precision solve (algorithms/posv_mixed_async.cpp) with the call's plan (refined);
/// report null: its own, dropped. T: double or std::complex<double>.
template <typename T>
int submit_posv_mixed(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport* report,
                      const Refinement& refine, const Plan& plan);

/// posv with a report (mixed.hpp) on tiles, with the call's plan (posv's on A's tiles, B's columns as nrhs,
/// refine.always_low): the blocking tile and array forms' common part.
template <typename T>
int posv_reported(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report,
                  const Refinement& refine, const Plan& plan);

}  // namespace starfact::detail
