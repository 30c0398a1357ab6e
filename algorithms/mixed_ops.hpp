// Internal: the task graphs of the mixed-precision solve (algorithms/posv_mixed.cpp), on the tiles of one solve:
// the scaled float factor F of D A D, the refinement's products with A and solves with F. Host vectors are
// column-major n x c (c: B's columns) or n (one column).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "starfact/cholesky.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

class MixedOps {
public:
    /// A (lower triangle, read only) and B (its columns become the solution X) of one solve; opts.factor is the
    /// arithmetic of F's factorization. With `source`, the right-hand sides are read from it and B only receives X
    /// (the submit form: B is its private copy). With `a_unordered`, the products with A after the first graph run
    /// outside A's implicit dependencies (the submit form holds A behind a gate, runtime/gate.hpp).
    MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts,
             const TileMatrix<double>* source = nullptr, bool a_unordered = false);
    ~MixedOps();
    MixedOps(const MixedOps&) = delete;
    MixedOps& operator=(const MixedOps&) = delete;

    int64_t n() const { return n_; }
    /// One task graph: d = diag(A)^-1/2, F = float(D A D), ||A||_inf, B0 = B, potrf(F), X = M^-1 B0
    /// (M^-1 = D F^-T F^-1 D). Waits; returns potrf(F)'s info.
    int factor();
    /// factor() in two halves: the graph submitted into seq (returns potrf(F)'s operation), then, after seq.wait(),
    /// ||A|| gathered and potrf(F)'s info returned.
    int submit_factor(Sequence& seq);
    int finish_factor(Sequence& seq, int op);
    double anorm() const { return anorm_; }
    /// The original right-hand sides B0 on the host.
    void b_host(std::vector<double>& b) const;
    /// R = B0 - A X; r and x receive R and X on the host.
    void residual(std::vector<double>& r, std::vector<double>& x);
    /// X += M^-1 R (R from the last residual()).
    void correct();
    /// w = A v, for one column.
    void apply_a(const std::vector<double>& v, std::vector<double>& w);
    /// z = M^-1 v, for one column.
    void apply_low(const std::vector<double>& v, std::vector<double>& z);
    /// X := x (n x c on the host).
    void set_solution(const std::vector<double>& x);
    /// B := B0 (before the fallback's double solve).
    void restore_b();

private:
    struct Tiles;
    TileMatrix<double>& A_;
    TileMatrix<double>& B_;
    const TileMatrix<double>& source_;
    bool a_unordered_;
    Options hi_, lo_;
    int64_t n_, c_;
    double anorm_ = 0;
    std::unique_ptr<Tiles> t_;
};

/// Whether a solve of T in precision p takes the refined path (a double matrix factored in a lower precision).
template <typename T>
constexpr bool lower_factor(Precision p) {
    return sizeof(T) == sizeof(double) && p != Precision::Native && p != Precision::Fp64;
}

/// The refinement's target backward error: refine.tolerance, or LAPACK's dsposv rule sqrt(n) u.
double mixed_tolerance(const Refinement& refine, int64_t n);

/// The refinement of the mixed-precision solve after ops.factor() succeeded (algorithms/posv_mixed.cpp): classical
/// refinement, then GMRES-IR for the columns still above `tolerance`; X is left in B. Sets report.iterations,
/// gmres_iterations, path (Refined or Gmres) and backward_error; returns whether every column reached the tolerance.
bool refine_solution(MixedOps& ops, const Refinement& refine, double tolerance, SolveReport& report);

/// The submit form of the mixed-precision solve (algorithms/posv_mixed_async.cpp); report null: its own, dropped.
int submit_posv_mixed(TileMatrix<double>& A, TileMatrix<double>& B, Sequence& seq, const Options& opts,
                      SolveReport* report, const Refinement& refine);

/// The argument checks of the mixed-precision posv (after the factor precision's): B's shape, not distributed, the
/// refinement settings, the mapping. Throws InvalidArgument naming the argument.
void require_mixed_solve(const char* function, const TileMatrix<double>& A, const TileMatrix<double>& B,
                         const Options& opts, const Refinement& refine);

}  // namespace starfact::detail
