// Mixed-precision LU solve (gesv with a report, lu.hpp): equilibrate A by power-of-two row and column scales, factor
// Dr A Dc in float tiles with partial pivoting, the trailing updates in the requested tensor-core arithmetic, then
// refine X in double (docs/mixed_precision.md; Haidar, Tomov, Dongarra and Higham, SC18, for the tensor-core LU
// with iterative refinement):
//
//   Dr, Dc, F := float(Dr A Dc);  getrf(F)                       one task graph, with ||A||_inf and X0
//   X0 := Dc F^-1 Dr B
//   classical refinement, then GMRES-IR preconditioned by the float LU (Carson & Higham, SISC 2018)
//                                                                the one driver of algorithms/refine_driver.cpp, over
//                                                                LuRefineOps (algorithms/gesv_mixed_ops.cpp)
//   then, if the float LU has a zero pivot, A holds NaN or Inf, or refinement falls short: the double getrf +
//   getrs on A (fallback; A then holds the double LU, piv its interchanges, as LAPACK's dsgesv)
#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/gesv_mixed_ops.hpp"
#include "algorithms/lu_submit.hpp"
#include "algorithms/mixed_ops.hpp"  // lower_factor
#include "algorithms/planned.hpp"
#include "kernels/scalar.hpp"
#include "starfact/error.hpp"
#include "starfact/lu.hpp"
#include "starfact/mixed.hpp"

namespace starfact {

namespace detail {

template <typename T>
int gesv_reported(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, SolveReport& report,
                  const Refinement& refine, const Plan& plan) {
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](int info) {
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return info;
    };
    report = SolveReport{};
    report.factor = opts.factor;
    require_factor_precision<T>("gesv", opts.factor, true);
    if (!lower_factor<T>(opts.factor)) {  // the plain solve (a float one with tensor-core updates too)
        report.path = SolveReport::Path::Direct;
        const int info = gesv_planned(A, piv, B, opts, plan);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    }
    if constexpr (detail::is_real_double_v<T>) {
        require_mixed_solve("gesv", A, B, opts, refine);
        require_square("gesv", "A", A);
        require_pivots_shaped_for("gesv", piv, A);
        require(&piv.runtime() == &A.runtime(), "gesv", "piv", "belongs to another Runtime than A");
        const int64_t n = A.n(), c = B.n();
        if (n == 0 || c == 0) {
            report.path = SolveReport::Path::Refined;
            return finish(0);
        }
        Options hi = opts;  // the double factorization's options
        hi.factor = Precision::Native;
        if (!low_factor_planned(plan, opts, report)) {  // the plan runs the double path here, as it planned it
            const int info = gesv_planned(A, piv, B, hi, plan);
            if (info > 0) report.path = SolveReport::Path::Failed;
            return finish(info);
        }
        report.tolerance = mixed_tolerance(refine, n);
        auto ops = std::make_unique<LuRefineOps>(A, piv, B, opts, plan);
        const int low_info = ops->factor(0);  // Dr, Dc, F, ||A||, X0 = M^-1 B
        report.factorizations = 1;
        report.factor_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        switch (refine_mixed(*ops, low_info, refine, opts.factor, report, "gesv")) {
            case MixedOutcome::Solved: return finish(0);
            case MixedOutcome::Failed: ops->restore_b(); return finish(0);  // B as it was
            case MixedOutcome::Fallback: break;
        }
        // The double LU, on A itself (as LAPACK's dsgesv), from the original right-hand sides; the float factor is
        // given back first. A second factorization in another arithmetic than the plan's, planned as the double
        // gesv it is.
        ops->restore_b();
        ops.reset();
        const int info = gesv(A, piv, B, hi);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    } else {
        return finish(0);  // not reached: float solves take the plain path above
    }
}
template int gesv_reported<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, const Options&, SolveReport&,
                                  const Refinement&, const Plan&);
template int gesv_reported<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, const Options&, SolveReport&,
                                   const Refinement&, const Plan&);

}  // namespace detail

template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, SolveReport& report,
         const Refinement& refine) {
    return detail::gesv_reported(A, piv, B, opts, report, refine,
                                 detail::plan_tiles(Operation::Gesv, A, opts, B.n(), refine.always_low));
}

template <typename T>
int gesv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb,
         const Options& opts, SolveReport& report, const Refinement& refine, const Tiling& tiling) {
    detail::require_solve_arrays("gesv", n, nrhs, A, lda, B, ldb, sizeof(T), tiling);
    detail::require_array("gesv", "ipiv", ipiv, n == 0);
    detail::require_factor_precision<T>("gesv", opts.factor, true);
    detail::array_residency(rt, B, tiling, "gesv", "B");
    Request request;
    request.op = Operation::Gesv;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.nrhs = nrhs;
    request.options = opts;
    request.tiling = tiling;
    request.always_low = refine.always_low;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, false), b(rt, n, nrhs, p.nb, B, ldb, tiling, false);
    Pivots piv(a.tiles());
    const int info = detail::gesv_reported(a.tiles(), piv, b.tiles(), opts, report, refine, p);
    if (report.path == SolveReport::Path::Fallback || report.path == SolveReport::Path::Failed ||
        report.path == SolveReport::Path::Direct)
        a.write_back();
    const std::vector<int64_t> pivots = piv.ipiv();  // the float LU's after a refined solve, as LAPACK's dsgesv
    std::copy(pivots.begin(), pivots.end(), ipiv);
    if (info == 0 && report.path != SolveReport::Path::Failed) b.write_back();
    return info;
}

template int gesv<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, const Options&, SolveReport&,
                         const Refinement&);
template int gesv<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, const Options&, SolveReport&,
                          const Refinement&);
template int gesv<float>(Runtime&, int64_t, int64_t, float*, int64_t, int64_t*, float*, int64_t, const Options&,
                         SolveReport&, const Refinement&, const Tiling&);
template int gesv<double>(Runtime&, int64_t, int64_t, double*, int64_t, int64_t*, double*, int64_t, const Options&,
                          SolveReport&, const Refinement&, const Tiling&);

}  // namespace starfact
