// Internal: the one refinement driver of the mixed-precision solves (algorithms/refine_driver.cpp) and what it
// iterates with. A refined solve (the SPD posv, algorithms/mixed_ops.cpp; the LU gesv, algorithms/gesv_mixed_ops.cpp)
// is a RefineOps: it factors a scaled float copy of A (factor()) and gives the driver two task graphs, the product
// with A (R := B0 - A X) and the solve with the low-precision factor (Out := M^-1 In); classical refinement, the
// flexible GMRES (algorithms/mixed_gmres.cpp), the stopping rules, the time budget and the fall-back decision are
// written once, over them. Host vectors are column-major n x c (c: B's columns).
//
// T is the solve's element type: double (the SPD and LU solves) or std::complex<double> (the Hermitian solve,
// algorithms/mixed_complex_ops.cpp), whose low-precision factor holds std::complex<float> (single_t<T>). The backward
// errors take the moduli of complex entries. GMRES runs over the reals on a complex solve (C^n as R^2n with the inner
// product Re(u^H v), the Euclidean one of the interleaved real and imaginary parts): A and M^-1 are R-linear, so the
// flexible GMRES is the same algorithm, and the same Krylov codelets (real coefficients; a tile of m complex rows read
// as 2m real ones) and Hessenberg matrix on the host serve both. Its Krylov space over R lies in the complex one of the
// same dimension, so it may need more iterations than a complex GMRES would (each iteration costs the same).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "kernels/scalar.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

template <typename T>
struct KrylovSpace;

/// The operator (A, in double) and preconditioner (M^-1, through the low-precision factor) of one refined solve,
/// and the vectors every refined solve keeps in its own memory: B0 (the right-hand sides), R (residual), Z (float
/// right-hand sides of the solves with M), S (column scales of the block being converted), in device memory when
/// GPUs work on the solve (vector_residency), else in host memory.
template <typename T>
class RefineOps {
public:
    using Low = single_t<T>;  ///< the low-precision factor's element type
    /// A (read only) and B (its columns become the solution X) of one solve; opts.factor is the arithmetic of the
    /// low-precision factorization. With `source`, the right-hand sides are read from it and B only receives X (the
    /// submit form: B is its private copy). With `a_unordered`, whatever reads A after the first graph runs outside
    /// A's implicit dependencies (the submit form holds A behind a gate, runtime/gate.hpp); `a_lower`: A's lower
    /// tiles are the ones read (the SPD solve).
    RefineOps(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, const TileMatrix<T>* source,
              bool a_unordered, bool a_lower);
    virtual ~RefineOps();
    RefineOps(const RefineOps&) = delete;
    RefineOps& operator=(const RefineOps&) = delete;

    int64_t n() const { return n_; }
    int64_t columns() const { return c_; }
    /// The precision M is factored in: Options::factor, or with Auto the ladder's current rung (Tf32 first).
    Precision low_precision() const { return lo_.factor; }
    /// The next factor() factors in p.
    void set_low_precision(Precision p) { lo_.factor = p; }
    /// ||A||_inf, known after factor().
    double anorm() const { return anorm_; }

    /// One task graph: the scaling, the conversion of A to float (with ||A||_inf), the low-precision factorization
    /// (with a diagonal shift where shifts() says so) and X = M^-1 B0, and, the first time, B0 = B. Waits; returns
    /// the low-precision factorization's info (> 0: it broke down at that column).
    virtual int factor(double shift) = 0;
    /// Whether a factorization that breaks down may be repeated with a diagonal shift (Higham and Pranesh, SISC 2021):
    /// the SPD solve's Cholesky; not the LU, whose zero pivot a shift of D A D does not cure in general.
    virtual bool shifts() const = 0;
    /// What the report calls the low-precision factorization ("factorization", "LU").
    virtual const char* factorization_name() const = 0;
    /// After factor(): why A cannot be refined ("" when it can): NaN or Inf in it, a diagonal entry of an SPD
    /// matrix that is not positive.
    virtual std::string unusable() const = 0;
    /// After factor(), with per-tile arithmetic (the SPD solve's Refinement::tile_tolerance): the off-diagonal tiles
    /// in the factor's own arithmetic, all off-diagonal tiles, and every rung's count (TileArithmetic::summary());
    /// -1, 0 and "" without.
    virtual int64_t low_tiles() const { return -1; }
    virtual int64_t off_diagonal_tiles() const { return 0; }
    virtual std::string tile_summary() const { return {}; }
    /// Tasks of the low-precision factorizations that did not run because their factorization had broken down
    /// (codelets/breakdown.hpp), over every factorization so far.
    virtual int64_t skipped_tasks() const { return 0; }

    /// The original right-hand sides B0 on the host.
    void b_host(std::vector<T>& b) const;
    /// R = B0 - A X; r and x receive R and X on the host.
    void residual(std::vector<T>& r, std::vector<T>& x);
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
    int gmres(const std::vector<bool>& active, const std::vector<double>& target, std::vector<T> r, int restart,
              int budget, const std::function<bool()>& out_of_time);
    /// B := B0 (before the fallback's double solve, or when B is refused).
    void restore_b();

protected:
    /// Out := M^-1 In (Out += M^-1 In when `accumulate`), without waiting: In converted to float column by column
    /// through power-of-two scales (S: 1 x In's columns, tiled like them; Z: the float scratch of In's shape).
    virtual void submit_precondition(const TaskOptions& o, const TileMatrix<T>& In, TileMatrix<double>& S,
                                     TileMatrix<Low>& Z, TileMatrix<T>& Out, bool accumulate) = 0;
    /// R := B0 - A X (without B0: R := -A X), without waiting.
    virtual void submit_product(const TaskOptions& o, const TileMatrix<T>* B0, const TileMatrix<T>& X,
                                TileMatrix<T>& R) = 0;
    /// An operation's task options (the refinement's, in double), A read as the submit form needs.
    TaskOptions options(Sequence& seq) const;
    /// B0 := B (or the submit form's source), into `seq`: the first factor()'s graph.
    void submit_copy_b(const TaskOptions& o);

    struct Vectors {
        TileMatrix<T> B0, R;
        TileMatrix<Low> Z;
        TileMatrix<double> S;
        Vectors(const TileMatrix<T>& A, int64_t c, Residency r);
    };
    TileMatrix<T>& A_;
    TileMatrix<T>& B_;
    const TileMatrix<T>& source_;
    bool a_unordered_;
    std::vector<starpu_data_handle_t> a_tiles_;  // A's tiles read, sorted (TaskOptions::unordered_data)
    bool first_ = true;                          // until the first factor()'s graph is submitted
    Options hi_, lo_;
    int64_t n_, c_;
    double anorm_ = 0;
    std::unique_ptr<Vectors> v_;
    std::vector<std::unique_ptr<KrylovSpace<T>>> krylov_;  // per group of right-hand sides, made on first use
};

/// Where a refined solve keeps its vectors (right-hand sides, residuals, its private solution): device memory when
/// GPUs work on it, else host memory.
Residency vector_residency(const Runtime& rt, Mapping mapping);

/// The unit roundoff of the arithmetic a factor precision's products round their inputs to: 2^-24 (Fp32), 2^-11
/// (Tf32, Fp16), 2^-8 (Bf16), 2^-21 (Tf32x3).
double factor_unit_roundoff(Precision p);

/// The refinement's target backward error: refine.tolerance, or LAPACK's dsposv / dsgesv rule sqrt(n) u.
double mixed_tolerance(const Refinement& refine, int64_t n);

/// How a refined solve ends once its refinement decided (refine_mixed).
enum class MixedOutcome {
    Solved,    ///< X in B, to the tolerance (report.path Refined or Gmres)
    Fallback,  ///< the double factorization must solve it (report.path Fallback, report.reason why)
    Failed,    ///< neither, and the fallback is off (report.path Failed; the caller restores B)
};

/// Whether the call's plan (a posv's or gesv's, Plan::refined) factors A in opts.factor (the plan's choice, or
/// Refinement::always_low asked for it); if not, the report says why (path Direct and its reason) and the caller runs
/// the double path with that plan.
bool low_factor_planned(const Plan& plan, const Options& opts, SolveReport& report);

/// The shift of the first factorization: refine.shift u when set, else 0.
double first_shift(const Refinement& refine, Precision factor);

/// The one refinement driver: everything after the first factorization (ops.factor returned low_info). While the
/// low-precision factorization breaks down, it is repeated with a larger diagonal shift (refine.shift_retries times,
/// where ops.shifts()); then classical refinement, then GMRES-IR preconditioned by the factor against A itself
/// (Carson and Higham, SIAM J. Sci. Comput. 40(2), 2018). With `requested` Auto, a Tf32 factor that breaks down or
/// whose refinement does not reach the tolerance is replaced once by a Tf32x3 one (the ladder; report.rungs says
/// which and why). Fills the report (path, factor, rungs, low_info, shift, attempts, iterations, gmres_iterations,
/// backward_error, reason). Throws InvalidArgument from `function` naming B when B holds NaN or Inf (after restoring
/// B).
template <typename T>
MixedOutcome refine_mixed(RefineOps<T>& ops, int low_info, const Refinement& refine, Precision requested,
                          SolveReport& report, const char* function);

/// The argument checks of a refined solve (after the factor precision's): B's shape, not distributed, the
/// refinement settings, the mapping. Throws InvalidArgument naming the argument.
template <typename T>
void require_mixed_solve(const char* function, const TileMatrix<T>& A, const TileMatrix<T>& B, const Options& opts,
                         const Refinement& refine);

}  // namespace starfact::detail
