// Tile Cholesky solve with the factor L from potrf: A X = B  <=>  L Y = B, then L^T X = Y (L^H on complex tiles, as
// every ^T below).
//
//   forward:   for k = 0 .. mt-1, for each tile column j of B:
//                trsm  B[k][j] := L[k][k]^-1 B[k][j]
//                for m = k+1 .. mt-1:  gemm  B[m][j] -= L[m][k] B[k][j]
//   backward:  for k = mt-1 .. 0, for each j:
//                trsm  B[k][j] := L[k][k]^-T B[k][j]
//                for m = 0 .. k-1:     gemm  B[m][j] -= L[k][m]^T B[k][j]
#include <algorithm>
#include <complex>
#include <string>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/mixed_ops.hpp"
#include "algorithms/planned.hpp"
#include "algorithms/submit.hpp"
#include "codelets/codelets.hpp"
#include "kernels/scalar.hpp"
#include "runtime/mpi.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts) {
    RunStats ignored;
    potrs(L, B, opts, ignored);
}

template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts, RunStats& stats) {
    Sequence seq(L.runtime());
    detail::submit_potrs(L, B, seq, opts, &stats, detail::plan_tiles(Operation::Potrs, L, opts, B.n()));
    seq.wait();
}

namespace detail {
template <typename T>
void submit_potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, RunStats* stats,
                  const Plan& plan) {
    if (L.distributed() || B.distributed())  // every rank, before any communication (docs/mpi.md)
        detail::agree(L.runtime(), "potrs",
                      {{"n", L.n()}, {"nb", L.nb()}, {"nrhs", B.n()}, {"A (tag of its first tile)", first_tag(L)},
                       {"B (tag of its first tile)", first_tag(B)}});
    detail::require_square("potrs", "A", L);
    detail::require_right_hand_sides("potrs", L, B);
    require(&B.runtime() == &L.runtime(), "potrs", "B", "belongs to another Runtime");
    require(&seq.runtime() == &L.runtime(), "potrs", "seq", "belongs to another Runtime than A");
    require(B.grid() == L.grid(), "potrs", "B",
            "must be distributed over the grid of A (got " + std::to_string(B.grid().p) + " x " +
                std::to_string(B.grid().q) + ", A has " + std::to_string(L.grid().p) + " x " +
                std::to_string(L.grid().q) + ")");
    require(!B.layout().lower_only, "potrs", "B", "must store every tile (got a lower_only matrix)");
    Runtime& rt = L.runtime();
    rt.require_mapping(opts.mapping, "potrs");
    const int64_t mt = L.mt(), nt = B.nt();
    if (mt == 0 || nt == 0) return;
    const detail::PriorityScale prio(opts.variant.kind != Variant::Kind::NoPrio, static_cast<int>(2 * mt + 1));
    detail::TaskNames name(SequenceAccess::state(seq));
    detail::TaskOptions o = detail::operation_task_options(rt, opts, plan, stats, &SequenceAccess::state(seq));
    constexpr Op adjoint = adjoint_op<is_complex_v<T>>();  // L^T, or L^H on complex tiles
    for (int64_t k = 0; k < mt; ++k) {
        for (int64_t j = 0; j < nt; ++j) {
            o.priority = prio(static_cast<int>(2 * mt - 2 * k));
            o.name = name("trsm_fwd", k, j);
            detail::insert_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, T(1), L.tile(k, k),
                                   B.tile(k, j));
            for (int64_t m = k + 1; m < mt; ++m) {
                o.priority = prio(static_cast<int>(2 * mt - 2 * k - (m - k)));
                o.name = name("gemm_fwd", m, j, k);
                detail::insert_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, T(-1), L.tile(m, k), B.tile(k, j), T(1),
                                       B.tile(m, j));
            }
        }
    }
    for (int64_t k = mt - 1; k >= 0; --k) {
        for (int64_t j = 0; j < nt; ++j) {
            o.priority = prio(static_cast<int>(2 * k + 1));
            o.name = name("trsm_bwd", k, j);
            detail::insert_trsm<T>(rt, o, Side::Left, Uplo::Lower, adjoint, Diag::NonUnit, T(1), L.tile(k, k),
                                   B.tile(k, j));
            for (int64_t m = 0; m < k; ++m) {
                o.priority = prio(static_cast<int>(2 * k - (k - m)));
                o.name = name("gemm_bwd", m, j, k);
                detail::insert_gemm<T>(rt, o, adjoint, Op::NoTrans, T(-1), L.tile(k, m), B.tile(k, j), T(1),
                                       B.tile(m, j));
            }
        }
    }
}
template void submit_potrs<float>(const TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, RunStats*,
                                  const Plan&);
template void submit_potrs<double>(const TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&,
                                   RunStats*, const Plan&);
template void submit_potrs<std::complex<float>>(const TileMatrix<std::complex<float>>&,
                                                TileMatrix<std::complex<float>>&, Sequence&, const Options&, RunStats*,
                                                const Plan&);
template void submit_potrs<std::complex<double>>(const TileMatrix<std::complex<double>>&,
                                                 TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                 RunStats*, const Plan&);

template <typename T>
int posv_planned(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, const Plan& plan) {
    if (A.distributed() || B.distributed())  // every rank, before any communication (docs/mpi.md)
        agree(A.runtime(), "posv",
              {{"n", A.n()}, {"nb", A.nb()}, {"nrhs", B.n()}, {"A (tag of its first tile)", first_tag(A)},
               {"B (tag of its first tile)", first_tag(B)}});
    require_square("posv", "A", A);  // a rectangular A named as such, before B is checked against it
    require_right_hand_sides("posv", A, B);
    Sequence seq(A.runtime());
    submit_potrf(A, seq, opts, nullptr, plan);
    const int info = seq.wait();
    if (info == 0) {
        submit_potrs(A, B, seq, opts, nullptr, plan);
        seq.wait();
    }
    return info;
}
template int posv_planned<float>(TileMatrix<float>&, TileMatrix<float>&, const Options&, const Plan&);
template int posv_planned<double>(TileMatrix<double>&, TileMatrix<double>&, const Options&, const Plan&);
template int posv_planned<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&,
                                               const Options&, const Plan&);
template int posv_planned<std::complex<double>>(TileMatrix<std::complex<double>>&, TileMatrix<std::complex<double>>&,
                                                const Options&, const Plan&);

template <typename T>
int submit_posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    if (A.distributed() || B.distributed())  // every rank, before any communication (docs/mpi.md)
        agree(A.runtime(), "posv",
              {{"n", A.n()}, {"nb", A.nb()}, {"nrhs", B.n()}, {"A (tag of its first tile)", first_tag(A)},
               {"B (tag of its first tile)", first_tag(B)}, {"factor", to_string(opts.factor)}});
    Options plain = opts;
    if constexpr (detail::is_real_double_v<T>) {
        if (lower_factor<T>(opts.factor)) {  // the refined solve (mixed.hpp), its report dropped
            require_mixed_solve("async::posv", A, B, opts, Refinement{});
            if (plan.refined) return submit_posv_mixed(A, B, seq, opts, nullptr, Refinement{}, plan);
            plain.factor = Precision::Native;  // the plan runs the double path here
        }
    }
    require_square("posv", "A", A);  // a rectangular A named as such, before B is checked against it
    require_right_hand_sides("posv", A, B);
    const int op = submit_potrf(A, seq, plain, nullptr, plan);
    submit_potrs(A, B, seq, plain, nullptr, plan);
    return op;
}
template int submit_posv<float>(TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template int submit_posv<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&, const Plan&);
template int submit_posv<std::complex<float>>(TileMatrix<std::complex<float>>&, TileMatrix<std::complex<float>>&,
                                              Sequence&, const Options&, const Plan&);
template int submit_posv<std::complex<double>>(TileMatrix<std::complex<double>>&, TileMatrix<std::complex<double>>&,
                                               Sequence&, const Options&, const Plan&);
}  // namespace detail

namespace async {
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    detail::submit_potrs(L, B, seq, opts, nullptr, detail::plan_tiles(Operation::Potrs, L, opts, B.n()));
}
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("potrs", plan, Operation::Potrs, L, opts, B.n());
    detail::submit_potrs(L, B, seq, opts, nullptr, plan);
}
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    return detail::submit_posv(A, B, seq, opts, detail::plan_tiles(Operation::Posv, A, opts, B.n()));
}
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("posv", plan, Operation::Posv, A, opts, B.n());
    return detail::submit_posv(A, B, seq, opts, plan);
}
template void potrs<float>(const TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&);
template void potrs<double>(const TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&);
template void potrs<float>(const TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template void potrs<double>(const TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&, const Plan&);
template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&);
template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, Sequence&, const Options&, const Plan&);
}  // namespace async

template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts) {
    if (detail::lower_factor<T>(opts.factor)) {
        SolveReport report;  // the refined solve (mixed.hpp); its report is not asked for here
        return posv(A, B, opts, report);
    }
    return detail::posv_planned(A, B, opts, detail::plan_tiles(Operation::Posv, A, opts, B.n()));
}

template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts,
         const Tiling& tiling) {
    detail::require_solve_arrays("posv", n, nrhs, A, lda, B, ldb, sizeof(T), tiling);
    if (detail::lower_factor<T>(opts.factor)) {
        SolveReport report;  // the refined solve (mixed.hpp), which tiles for its own factorization
        return posv(rt, n, nrhs, A, lda, B, ldb, opts, report, Refinement{}, tiling);
    }
    detail::array_residency(rt, B, tiling, "posv", "B");
    Request request;
    request.op = Operation::Posv;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.nrhs = nrhs;
    request.options = opts;
    request.tiling = tiling;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, true), b(rt, n, nrhs, p.nb, B, ldb, tiling, false);
    const int info = detail::posv_planned(a.tiles(), b.tiles(), opts, p);
    a.write_back();
    if (info == 0) b.write_back();
    return info;
}

template void potrs<float>(const TileMatrix<float>&, TileMatrix<float>&, const Options&);
template void potrs<double>(const TileMatrix<double>&, TileMatrix<double>&, const Options&);
template void potrs<float>(const TileMatrix<float>&, TileMatrix<float>&, const Options&, RunStats&);
template void potrs<double>(const TileMatrix<double>&, TileMatrix<double>&, const Options&, RunStats&);
template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, const Options&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, const Options&);
template int posv<float>(Runtime&, int64_t, int64_t, float*, int64_t, float*, int64_t, const Options&,
                         const Tiling&);
template int posv<double>(Runtime&, int64_t, int64_t, double*, int64_t, double*, int64_t, const Options&,
                          const Tiling&);

}  // namespace starfact
