// Internal: the task graphs of the mixed-precision solve (algorithms/posv_mixed.cpp), on the tiles of one solve:
// the scaled float factor F of D A D, the refinement's products with A and solves with F. Host vectors are
// column-major n x c (c: B's columns) or n (one column).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "starfact/cholesky.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

class MixedOps {
public:
    /// A (lower triangle, read only) and B (its columns become the solution X) of one solve; opts.factor is the
    /// arithmetic of F's factorization.
    MixedOps(TileMatrix<double>& A, TileMatrix<double>& B, const Options& opts);
    ~MixedOps();
    MixedOps(const MixedOps&) = delete;
    MixedOps& operator=(const MixedOps&) = delete;

    int64_t n() const { return n_; }
    /// One task graph: d = diag(A)^-1/2, F = float(D A D), ||A||_inf, B0 = B, potrf(F), X = M^-1 B0
    /// (M^-1 = D F^-T F^-1 D). Waits; returns potrf(F)'s info.
    int factor();
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
    Options hi_, lo_;
    int64_t n_, c_;
    double anorm_ = 0;
    std::unique_ptr<Tiles> t_;
};

}  // namespace starfact::detail
