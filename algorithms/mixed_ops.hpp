// Internal: the task graphs of the mixed-precision solve (algorithms/posv_mixed.cpp), on the tiles of one solve:
// the scaled float factor F of D A D (+ a diagonal shift), the refinement's products with A and solves with F.
// Host vectors are column-major n x c (c: B's columns).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

struct KrylovSpace;

class MixedOps {
public:
    /// A (lower triangle, read only) and B (its columns become the solution X) of one solve; opts.factor is the
    /// arithmetic of F's factorization. With `source`, the right-hand sides are read from it and B only receives X
    /// (the submit form: B is its private copy). With `a_unordered`, whatever reads A after the first graph runs
    /// outside A's implicit dependencies (the submit form holds A behind a gate, runtime/gate.hpp). The solve's own
    /// tiles live in GPU memory when GPUs work on it (the float factor as a workspace when it would take more than
    /// half their free memory), else in host memory. `plan`: the solve's (a refined posv's on A's tiles), whose
    /// kernels every factorization of F takes (the shifted retries and the ladder's rungs of the same call, all
    /// tensor-core arithmetics when one is, plan without planning again).
    MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts, const Plan& plan,
             const TileMatrix<double>* source = nullptr, bool a_unordered = false);
    ~MixedOps();
    MixedOps(const MixedOps&) = delete;
    MixedOps& operator=(const MixedOps&) = delete;

    int64_t n() const { return n_; }
    /// The precision F is factored in: Options::factor, or with Auto the ladder's current rung (Tf32 first).
    Precision low_precision() const { return lo_.factor; }
    /// The next factor() factors in p.
    void set_low_precision(Precision p) { lo_.factor = p; }
    /// Per-tile arithmetic (Refinement::tile_tolerance): when > 0 and the factor's arithmetic is a tensor-core one,
    /// each factorization takes it only for the tiles of F the rule of tile_arithmetic.hpp finds small, float for
    /// the others (the conversion is then waited for before the factorization is submitted: the rule needs the
    /// norms of F's tiles).
    void set_tile_tolerance(double tolerance) { tile_tolerance_ = tolerance; }
    /// After a factorization with per-tile arithmetic: its off-diagonal tiles in the factor's arithmetic, and all
    /// off-diagonal tiles; -1 and 0 without.
    int64_t low_tiles() const { return low_tiles_; }
    int64_t off_diagonal_tiles() const { return off_diagonal_tiles_; }
    /// TileArithmetic::summary() of the last factorization with per-tile arithmetic; empty without.
    const std::string& tile_summary() const { return tile_summary_; }
    int64_t columns() const { return c_; }
    /// One task graph: d = diag(A)^-1/2, F = float(D A D + shift I), ||A||_inf, potrf(F), X = M^-1 B0
    /// (M^-1 = D F^-T F^-1 D), and, the first time, B0 = B. Waits; returns potrf(F)'s info.
    int factor(double shift);
    /// factor() in two halves: the graph submitted into seq (returns potrf(F)'s operation), then, after seq.wait(),
    /// d and ||A|| gathered and potrf(F)'s info returned.
    int submit_factor(Sequence& seq, double shift);
    int finish_factor(Sequence& seq, int op);
    /// After finish_factor: whether every diagonal entry of A is positive and finite, and ||A||_inf finite (no NaN
    /// or Inf in A's lower triangle, no overflow of its row sums).
    bool diagonal_positive() const { return diagonal_positive_; }
    double anorm() const { return anorm_; }
    /// The original right-hand sides B0 on the host.
    void b_host(std::vector<double>& b) const;
    /// R = B0 - A X; r and x receive R and X on the host.
    void residual(std::vector<double>& r, std::vector<double>& x);
    /// X += M^-1 R (R from the last residual()).
    void correct();
    /// Restarted flexible GMRES (right preconditioning, Saad, SIAM J. Sci. Comput. 14(2), 1993) on A d_j = r_j for
    /// every column j with active[j] (r: R of the last residual(), given on the host), d_j0 = 0, then X += d; the
    /// columns in lockstep, the Krylov vectors in the solve's memory (algorithms/mixed_gmres.cpp). Each iteration is
    /// one block solve with the low-precision factor, z = M^-1 v (in float: an inexact preconditioner, which the
    /// flexible form admits), one block product with A and two passes of classical Gram-Schmidt, with two small
    /// reads back of the inner products. The recurrence tracks ||r_j - A d_j||_2; a column stops once it is at most
    /// target[j]; all stop after `budget` iterations or once `out_of_time()`. Restarts every `restart` vectors (at
    /// most nb - 1 per cycle: a panel of Krylov vectors is one tile wide). Returns the iterations used.
    int gmres(const std::vector<bool>& active, const std::vector<double>& target, std::vector<double> r, int restart,
              int budget, const std::function<bool()>& out_of_time);
    /// B := B0 (before the fallback's double solve, or when B is refused).
    void restore_b();

private:
    struct Tiles;
    TaskOptions options(Sequence& seq) const;  // an operation's task options, A read as the submit form needs
    TileMatrix<double>& A_;
    TileMatrix<double>& B_;
    const TileMatrix<double>& source_;
    bool a_unordered_;
    std::vector<starpu_data_handle_t> a_tiles_;  // A's tiles, sorted (TaskOptions::unordered_data)
    bool first_ = true;
    Options hi_, lo_;
    Plan plan_;
    int64_t n_, c_;
    double anorm_ = 0;
    bool diagonal_positive_ = true;
    double tile_tolerance_ = 0;
    int64_t low_tiles_ = -1, off_diagonal_tiles_ = 0;
    std::string tile_summary_;
    std::unique_ptr<Tiles> t_;
    std::vector<std::unique_ptr<KrylovSpace>> krylov_;  // per group of right-hand sides, made on first use
};

/// Whether a solve of T in precision p takes the refined path (a double matrix factored in a lower precision).
template <typename T>
constexpr bool lower_factor(Precision p) {
    return sizeof(T) == sizeof(double) && refines_double(p);
}

/// Where a mixed-precision solve keeps its vectors (right-hand sides, residuals, its private solution): device
/// memory when GPUs work on it, else host memory.
Residency vector_residency(const Runtime& rt, Mapping mapping);

/// A lower-triangular n x n matrix of A's order and tiles, private to a solve (its float factor, or a copy of A):
/// in device memory when `where` is Device and it takes at most half of what the GPUs have free (one allocation
/// per GPU, given back in one free, on A's tiles' devices), otherwise a workspace, whose tiles StarPU allocates
/// where they are written and may evict to host memory (a matrix too large for the GPUs).
template <typename T>
std::unique_ptr<TileMatrix<T>> private_lower(const TileMatrix<double>& A, Residency where);

/// The unit roundoff of the arithmetic a factor precision's products round their inputs to: 2^-24 (Fp32), 2^-11
/// (Tf32, Fp16), 2^-8 (Bf16).
double factor_unit_roundoff(Precision p);

/// The refinement's target backward error: refine.tolerance, or LAPACK's dsposv rule sqrt(n) u.
double mixed_tolerance(const Refinement& refine, int64_t n);

/// How a mixed-precision solve ends once its refinement decided (refine_mixed).
enum class MixedOutcome {
    Solved,    ///< X in B, to the tolerance (report.path Refined or Gmres)
    Fallback,  ///< the double factorization must solve it (report.path Fallback, report.reason why)
    Failed,    ///< neither, and the fallback is off (report.path Failed; the caller restores B)
};

/// Whether the call's plan (a posv's, Plan::refined) factors A in opts.factor (the plan's choice, or
/// Refinement::always_low asked for it); if not, the report says why (path Direct and its reason) and the caller runs
/// the double path with that plan.
bool low_factor_planned(const Plan& plan, const Options& opts, SolveReport& report);

/// The shift of the first factorization: refine.shift u when set, else 0.
double first_shift(const Refinement& refine, Precision factor);

/// Everything after the first factorization (ops.factor / finish_factor returned low_info): while the
/// low-precision factorization breaks down, it is repeated with a larger diagonal shift (refine.shift_retries times);
/// then classical refinement, then GMRES-IR preconditioned by the (shifted) factor against A itself. With `requested`
/// Auto, a Tf32 factor that breaks down or whose refinement does not reach the tolerance is replaced once by a Tf32x3
/// one (the ladder; report.rungs says which and why). Fills the report (path, factor, rungs, low_info, shift,
/// attempts, iterations, gmres_iterations, backward_error, reason). Throws
/// InvalidArgument from `function` naming B when B holds NaN or Inf (after restoring B).
MixedOutcome refine_mixed(MixedOps& ops, int low_info, const Refinement& refine, Precision requested,
                          SolveReport& report, const char* function);

/// The submit form of the mixed-precision solve (algorithms/posv_mixed_async.cpp) with the call's plan (refined);
/// report null: its own, dropped.
int submit_posv_mixed(TileMatrix<double>& A, TileMatrix<double>& B, Sequence& seq, const Options& opts,
                      SolveReport* report, const Refinement& refine, const Plan& plan);

/// posv with a report (mixed.hpp) on tiles, with the call's plan (posv's on A's tiles, B's columns as nrhs,
/// refine.always_low): the blocking tile and array forms' common part.
template <typename T>
int posv_reported(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report,
                  const Refinement& refine, const Plan& plan);

/// The argument checks of the mixed-precision posv (after the factor precision's): B's shape, not distributed, the
/// refinement settings, the mapping. Throws InvalidArgument naming the argument.
void require_mixed_solve(const char* function, const TileMatrix<double>& A, const TileMatrix<double>& B,
                         const Options& opts, const Refinement& refine);

}  // namespace starfact::detail
