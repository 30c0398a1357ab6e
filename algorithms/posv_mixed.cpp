// Mixed-precision SPD solve (mixed.hpp): factor D A D (D = diag(A)^-1/2) in float tiles, the trailing updates in
// the requested tensor-core arithmetic, then refine X in double (docs/mixed_precision.md):
//
//   F := float(D A D + shift I);  potrf(F)                        one task graph, with ||A||_inf and X0
//   X0 := D F^-T F^-1 D B
//   while potrf(F) breaks down: again with a larger shift         (Higham & Pranesh, SISC 2021)
//   repeat:  R := B - A X  (double)                                classical refinement (LAPACK's dsposv)
//            stop when every column's backward error reaches the tolerance, or a step gains less than stall_ratio
//            X += D F^-T F^-1 D R
//   then, for the columns still above the tolerance:               GMRES-IR (Carson & Higham, SISC 2018), in its
//            flexible form: GMRES on A d = r right-preconditioned by M^-1 = D F^-T F^-1 D (applied in float, which
//            the flexible form admits), every column at once, the Krylov vectors in the solve's memory (GPU when
//            GPUs work on it; algorithms/mixed_gmres.cpp);  x += d
//   then, if still above:  the double potrf + potrs on A (fallback)
//
// The refinement is the one driver of algorithms/refine_driver.cpp, over this solve's operator and preconditioner
// (MixedOps, algorithms/mixed_ops.cpp). The same for a complex<double> Hermitian A with a complex<float> factor
// (Options::factor Fp32 or Tf32; ComplexMixedOps, algorithms/mixed_complex_ops.cpp): D = diag(Re A)^-1/2, F^-H for
// F^-T, the complex<double> factorization as the fallback.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/mixed_complex_ops.hpp"
#include "algorithms/mixed_ops.hpp"
#include "algorithms/plan_tables.hpp"
#include "algorithms/planned.hpp"
#include "algorithms/submit.hpp"
#include "kernels/scalar.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"

namespace starfact {

const char* to_string(SolveReport::Path p) {
    switch (p) {
        case SolveReport::Path::Direct: return "direct";
        case SolveReport::Path::Refined: return "refined";
        case SolveReport::Path::Gmres: return "gmres";
        case SolveReport::Path::Fallback: return "fallback";
        case SolveReport::Path::Failed: return "failed";
    }
    return "?";
}

namespace detail {

/// The operator and preconditioner of a refined solve of T: the real SPD solve's, or the Hermitian one's.
template <typename T>
using MixedOpsOf = std::conditional_t<is_complex_v<T>, ComplexMixedOps, MixedOps>;

/// The plain posv of T with the call's plan (the complex forms take the plan's task mapping).
template <typename T>
int posv_direct(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, const Plan& plan) {
    if constexpr (is_complex_v<T>) {
        Options o = opts;
        o.mapping = plan.task_mapping;
        return posv(A, B, o);
    } else {
        return posv_planned(A, B, opts, plan);
    }
}

template <typename T>
int posv_reported(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report,
                  const Refinement& refine, const Plan& plan) {
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](int info) {
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return info;
    };
    report = SolveReport{};
    report.factor = opts.factor;
    require_factor_precision<T>("posv", opts.factor, true);
    if (!lower_factor<T>(opts.factor)) {  // the plain solve (a float one in a tensor-core arithmetic too)
        report.path = SolveReport::Path::Direct;
        const int info = posv_direct(A, B, opts, plan);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    }
    if constexpr (is_double_v<T>) {  // double, or complex<double>
        require_mixed_solve("posv", A, B, opts, refine);
        const int64_t n = A.n(), c = B.n();
        if (n == 0 || c == 0) {
            report.path = SolveReport::Path::Refined;
            return finish(0);
        }
        Options hi = opts;  // the double factorization's options
        hi.factor = Precision::Native;
        if (!low_factor_planned(plan, opts, report)) {  // the plan runs the double path here, as it planned it
            const int info = posv_direct(A, B, hi, plan);
            if (info > 0) report.path = SolveReport::Path::Failed;
            return finish(info);
        }
        report.tolerance = mixed_tolerance(refine, n);
        report.shift = first_shift(refine, opts.factor);
        MixedOpsOf<T> ops(A, B, opts, plan);
        if constexpr (!is_complex_v<T>) ops.set_tile_tolerance(refine.tile_tolerance);
        const int low_info = ops.factor(report.shift);  // F, D, ||A||, X0 = M^-1 B
        report.factorizations = 1;
        report.factor_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        switch (refine_mixed(ops, low_info, refine, opts.factor, report, "posv")) {
            case MixedOutcome::Solved: return finish(0);
            case MixedOutcome::Failed: ops.restore_b(); return finish(0);  // B as it was
            case MixedOutcome::Fallback: break;
        }
        // The double factorization, on A itself (as LAPACK's dsposv), from the original right-hand sides: a second
        // factorization in another arithmetic than the plan's, planned as the double posv it is.
        ops.restore_b();
        const int info = posv(A, B, hi);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    } else {
        return finish(0);  // not reached: float solves take the plain path above
    }
}
template int posv_reported<float>(TileMatrix<float>&, TileMatrix<float>&, const Options&, SolveReport&,
                                  const Refinement&, const Plan&);
template int posv_reported<double>(TileMatrix<double>&, TileMatrix<double>&, const Options&, SolveReport&,
                                   const Refinement&, const Plan&);
template int posv_reported<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&,
                                                const Options&, SolveReport&, const Refinement&, const Plan&);
template int posv_reported<std::complex<double>>(TileMatrix<std::complex<double>>&,
                                                 TileMatrix<std::complex<double>>&, const Options&, SolveReport&,
                                                 const Refinement&, const Plan&);

}  // namespace detail

template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report, const Refinement& refine) {
    return detail::posv_reported(A, B, opts, report, refine,
                                 detail::plan_tiles(Operation::Posv, A, opts, B.n(), refine.always_low));
}

template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts,
         SolveReport& report, const Refinement& refine, const Tiling& tiling) {
    detail::require_solve_arrays("posv", n, nrhs, A, lda, B, ldb, sizeof(T), tiling);
    detail::require_factor_precision<T>("posv", opts.factor, true);
    detail::array_residency(rt, B, tiling, "posv", "B");
    Request request{Operation::Posv, detail::element_precision<T>(), n, n, nrhs, opts, tiling};
    request.always_low = refine.always_low;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, true), b(rt, n, nrhs, p.nb, B, ldb, tiling, false);
    const int info = detail::posv_reported(a.tiles(), b.tiles(), opts, report, refine, p);
    if (report.path == SolveReport::Path::Fallback || report.path == SolveReport::Path::Failed ||
        report.path == SolveReport::Path::Direct)
        a.write_back();
    if (info == 0 && report.path != SolveReport::Path::Failed) b.write_back();
    return info;
}

template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, const Options&, SolveReport&, const Refinement&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, const Options&, SolveReport&, const Refinement&);
template int posv<float>(Runtime&, int64_t, int64_t, float*, int64_t, float*, int64_t, const Options&, SolveReport&,
                         const Refinement&, const Tiling&);
template int posv<double>(Runtime&, int64_t, int64_t, double*, int64_t, double*, int64_t, const Options&,
                          SolveReport&, const Refinement&, const Tiling&);
template int posv<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&,
                                       const Options&, SolveReport&, const Refinement&);
template int posv<std::complex<double>>(TileMatrix<std::complex<double>>&, TileMatrix<std::complex<double>>&,
                                        const Options&, SolveReport&, const Refinement&);
template int posv<std::complex<float>>(Runtime&, int64_t, int64_t, std::complex<float>*, int64_t,
                                       std::complex<float>*, int64_t, const Options&, SolveReport&, const Refinement&,
                                       const Tiling&);
template int posv<std::complex<double>>(Runtime&, int64_t, int64_t, std::complex<double>*, int64_t,
                                        std::complex<double>*, int64_t, const Options&, SolveReport&,
                                        const Refinement&, const Tiling&);

}  // namespace starfact
