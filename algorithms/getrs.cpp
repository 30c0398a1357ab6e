// Tile LU solve with the factors of getrf: A X = B  <=>  L U X = P B, for the four element types.
//
//   interchanges:  for every tile column j of B, k = 0 .. mt-1:  laswp  B[k..mt-1][j] by piv[k]
//   forward:       for k = 0 .. mt-1, every j:
//                    trsm  B[k][j] := L[k][k]^-1 B[k][j]               (left, lower, unit)
//                    for m = k+1 .. mt-1:  gemm  B[m][j] -= L[m][k] B[k][j]
//   backward:      for k = mt-1 .. 0, every j:
//                    trsm  B[k][j] := U[k][k]^-1 B[k][j]               (left, upper, non-unit)
//                    for m = 0 .. k-1:     gemm  B[m][j] -= U[m][k] B[k][j]
#include <algorithm>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/lu_interchanges.hpp"
#include "algorithms/lu_submit.hpp"
#include "algorithms/mixed_ops.hpp"  // lower_factor
#include "algorithms/planned.hpp"
#include "codelets/codelets.hpp"
#include "codelets/lu_codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/lu.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

namespace detail {
template <typename T>
void submit_getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                  RunStats* stats, const char* function, const Plan& plan) {
    if (LU.distributed() || B.distributed() || piv.distributed())  // every rank, before any communication
        agree(LU.runtime(), function,
              {{"n", LU.n()}, {"nb", LU.nb()}, {"nrhs", B.n()}, {"A (tag of its first tile)", first_tag(LU)},
               {"B (tag of its first tile)", first_tag(B)},
               {"piv (tag of its first step)", piv.steps() > 0 ? mpi_tag(piv.step(0)) : -1}});
    detail::require_square(function, "A", LU);
    detail::require_right_hand_sides(function, LU, B);
    require_pivots_shaped_for(function, piv, LU);
    require(B.grid() == LU.grid(), function, "B",
            "must be distributed over the grid of A (got " + std::to_string(B.grid().p) + " x " +
                std::to_string(B.grid().q) + ", A has " + std::to_string(LU.grid().p) + " x " +
                std::to_string(LU.grid().q) + ")");
    require(!B.layout().lower_only, function, "B", "must store every tile (got a lower_only matrix)");
    require(&B.runtime() == &LU.runtime(), function, "B", "belongs to another Runtime");
    require(&piv.runtime() == &LU.runtime(), function, "piv", "belongs to another Runtime");
    require(&seq.runtime() == &LU.runtime(), function, "seq", "belongs to another Runtime than A");
    Runtime& rt = LU.runtime();
    rt.require_mapping(opts.mapping, function);
    const int64_t mt = LU.mt(), nt = B.nt();
    require_gpu_tiles(rt, opts, mt, function, "A");
    require(B.grid().p == 1 || rt.cpu_workers() > 0 || laswp_tile_on_cuda(B.nb()), function, "mapping",
            "leaves this rank no CPU worker: a distributed LU solve applies its row interchanges on CPU workers " +
                laswp_tile_cpu_reason());
    if (mt == 0 || nt == 0) return;
    submit_getrs_tasks<T>(rt, operation_task_options(rt, opts, plan, stats, &SequenceAccess::state(seq)), LU, piv, B,
                          opts.variant.kind != Variant::Kind::NoPrio);
}
template void submit_getrs<float>(const TileMatrix<float>&, const Pivots&, TileMatrix<float>&, Sequence&,
                                  const Options&, RunStats*, const char*, const Plan&);
template void submit_getrs<double>(const TileMatrix<double>&, const Pivots&, TileMatrix<double>&, Sequence&,
                                   const Options&, RunStats*, const char*, const Plan&);
template void submit_getrs<std::complex<float>>(const TileMatrix<std::complex<float>>&, const Pivots&,
                                                TileMatrix<std::complex<float>>&, Sequence&, const Options&, RunStats*,
                                                const char*, const Plan&);
template void submit_getrs<std::complex<double>>(const TileMatrix<std::complex<double>>&, const Pivots&,
                                                 TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                 RunStats*, const char*, const Plan&);

template <typename T>
void submit_getrs_tasks(const Runtime& rt, TaskOptions o, const TileMatrix<T>& LU, const Pivots& piv,
                        TileMatrix<T>& B, bool priorities) {
    const int64_t mt = LU.mt(), nt = B.nt();
    const PriorityScale prio(priorities, static_cast<int>(2 * mt + 2));
    TaskNames name(*o.sequence);
    // B's tile columns spread over several ranks: the interchanges tile by tile, on the owners of B's tiles.
    std::unique_ptr<TileInterchanges<T>> interchanges;
    const int rows = tile_interchange_rows_for_tests().load();  // tests: tile by tile in one process too
    if (B.grid().p > 1 || (rows > 1 && !B.distributed())) interchanges = std::make_unique<TileInterchanges<T>>(B, rows);
    for (int64_t j = 0; j < nt; ++j)
        for (int64_t k = 0; k < mt; ++k) {
            o.priority = prio(static_cast<int>(2 * mt + 2));
            o.name = name("laswp_rhs", k, j);
            if (interchanges) {
                interchanges->submit(rt, o, k, j, piv.step(k));
                continue;
            }
            std::vector<starpu_data_handle_t> col;
            for (int64_t m = k; m < mt; ++m) col.push_back(B.tile(m, j));
            insert_laswp<T>(rt, o, col, piv.step(k), k * LU.nb());
        }
    for (int64_t k = 0; k < mt; ++k) {
        for (int64_t j = 0; j < nt; ++j) {
            o.priority = prio(static_cast<int>(2 * mt - 2 * k));
            o.name = name("trsm_fwd", k, j);
            insert_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, T(1), LU.tile(k, k), B.tile(k, j));
            for (int64_t m = k + 1; m < mt; ++m) {
                o.priority = prio(static_cast<int>(2 * mt - 2 * k - (m - k)));
                o.name = name("gemm_fwd", m, j, k);
                insert_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, T(-1), LU.tile(m, k), B.tile(k, j), T(1), B.tile(m, j));
            }
        }
    }
    for (int64_t k = mt - 1; k >= 0; --k) {
        for (int64_t j = 0; j < nt; ++j) {
            o.priority = prio(static_cast<int>(2 * k + 1));
            o.name = name("trsm_bwd", k, j);
            insert_trsm<T>(rt, o, Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, T(1), LU.tile(k, k),
                           B.tile(k, j));
            for (int64_t m = 0; m < k; ++m) {
                o.priority = prio(static_cast<int>(2 * k - (k - m)));
                o.name = name("gemm_bwd", m, j, k);
                insert_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, T(-1), LU.tile(m, k), B.tile(k, j), T(1), B.tile(m, j));
            }
        }
    }
}
template void submit_getrs_tasks<float>(const Runtime&, TaskOptions, const TileMatrix<float>&, const Pivots&,
                                        TileMatrix<float>&, bool);
template void submit_getrs_tasks<double>(const Runtime&, TaskOptions, const TileMatrix<double>&, const Pivots&,
                                         TileMatrix<double>&, bool);
template void submit_getrs_tasks<std::complex<float>>(const Runtime&, TaskOptions,
                                                      const TileMatrix<std::complex<float>>&, const Pivots&,
                                                      TileMatrix<std::complex<float>>&, bool);
template void submit_getrs_tasks<std::complex<double>>(const Runtime&, TaskOptions,
                                                       const TileMatrix<std::complex<double>>&, const Pivots&,
                                                       TileMatrix<std::complex<double>>&, bool);

namespace {
/// gesv on distributed data: every rank, before any check one rank could fail alone (docs/mpi.md).
template <typename T>
void agree_gesv(const TileMatrix<T>& A, const Pivots& piv, const TileMatrix<T>& B) {
    if (A.distributed() || B.distributed() || piv.distributed())
        agree(A.runtime(), "gesv",
              {{"n", A.n()}, {"nb", A.nb()}, {"nrhs", B.n()}, {"A (tag of its first tile)", first_tag(A)},
               {"B (tag of its first tile)", first_tag(B)}});
}
}  // namespace

template <typename T>
int gesv_planned(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts, const Plan& plan) {
    agree_gesv(A, piv, B);
    require_square("gesv", "A", A);  // a rectangular A named as such, before B is checked against it
    require_right_hand_sides("gesv", A, B);
    Sequence seq(A.runtime());
    submit_getrf(A, &piv, seq, opts, nullptr, "gesv", plan, true);
    const int info = seq.wait();
    if (info == 0) {
        submit_getrs<T>(A, piv, B, seq, opts, nullptr, "gesv", plan);
        seq.wait();
    }
    return info;
}
template int gesv_planned<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, const Options&, const Plan&);
template int gesv_planned<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, const Options&, const Plan&);
template int gesv_planned<std::complex<float>>(TileMatrix<std::complex<float>>&, Pivots&,
                                               TileMatrix<std::complex<float>>&, const Options&, const Plan&);
template int gesv_planned<std::complex<double>>(TileMatrix<std::complex<double>>&, Pivots&,
                                                TileMatrix<std::complex<double>>&, const Options&, const Plan&);

template <typename T>
int submit_gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                const Plan& plan) {
    agree_gesv(A, piv, B);
    require_square("gesv", "A", A);  // a rectangular A named as such, before B is checked against it
    require_right_hand_sides("gesv", A, B);
    // never the double LU where a refined solve was asked for (the refinement decides on the host: no submit form)
    require(!lower_factor<T>(opts.factor), "async::gesv", "factor",
            std::string("is ") + to_string(opts.factor) + ": the mixed-precision gesv has no submit form; call "
            "gesv(A, piv, B, opts, report) (lu.hpp), or factor fp64 here");
    const int op = submit_getrf(A, &piv, seq, opts, nullptr, "gesv", plan);
    submit_getrs<T>(A, piv, B, seq, opts, nullptr, "gesv", plan);
    return op;
}
template int submit_gesv<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, Sequence&, const Options&,
                                const Plan&);
template int submit_gesv<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, Sequence&, const Options&,
                                 const Plan&);
template int submit_gesv<std::complex<float>>(TileMatrix<std::complex<float>>&, Pivots&,
                                              TileMatrix<std::complex<float>>&, Sequence&, const Options&, const Plan&);
template int submit_gesv<std::complex<double>>(TileMatrix<std::complex<double>>&, Pivots&,
                                               TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                               const Plan&);
}  // namespace detail

template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    Sequence seq(LU.runtime());
    detail::submit_getrs(LU, piv, B, seq, opts, nullptr, "getrs",
                         detail::plan_tiles(Operation::Getrs, LU, opts, B.n()));
    seq.wait();
}

template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    if (detail::lower_factor<T>(opts.factor)) {
        SolveReport report;  // the refined solve (gesv_mixed.cpp); its report is not asked for here
        return gesv(A, piv, B, opts, report);
    }
    return detail::gesv_planned(A, piv, B, opts, detail::plan_tiles(Operation::Gesv, A, opts, B.n()));
}

namespace async {
template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    detail::submit_getrs(LU, piv, B, seq, opts, nullptr, "getrs",
                         detail::plan_tiles(Operation::Getrs, LU, opts, B.n()));
}
template <typename T>
void getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
           const Plan& plan) {
    detail::require_plan("getrs", plan, Operation::Getrs, LU, opts, B.n());
    detail::submit_getrs(LU, piv, B, seq, opts, nullptr, "getrs", plan);
}
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    return detail::submit_gesv(A, piv, B, seq, opts, detail::plan_tiles(Operation::Gesv, A, opts, B.n()));
}
template <typename T>
int gesv(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("gesv", plan, Operation::Gesv, A, opts, B.n());
    return detail::submit_gesv(A, piv, B, seq, opts, plan);
}
template void getrs<float>(const TileMatrix<float>&, const Pivots&, TileMatrix<float>&, Sequence&, const Options&);
template void getrs<double>(const TileMatrix<double>&, const Pivots&, TileMatrix<double>&, Sequence&, const Options&);
template void getrs<float>(const TileMatrix<float>&, const Pivots&, TileMatrix<float>&, Sequence&, const Options&,
                           const Plan&);
template void getrs<double>(const TileMatrix<double>&, const Pivots&, TileMatrix<double>&, Sequence&, const Options&,
                            const Plan&);
template int gesv<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, Sequence&, const Options&);
template int gesv<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, Sequence&, const Options&);
template int gesv<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template int gesv<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, Sequence&, const Options&, const Plan&);
}  // namespace async

template <typename T>
int gesv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb,
         const Options& opts, const Tiling& tiling) {
    detail::require_nonnegative("gesv", "n", n);
    detail::require_nonnegative("gesv", "nrhs", nrhs);
    detail::require_leading_dimension("gesv", "lda", lda, n, "n", n, sizeof(T));
    detail::require_leading_dimension("gesv", "ldb", ldb, n, "n", nrhs, sizeof(T));
    detail::require_tiling("gesv", tiling);
    detail::require_array("gesv", "A", A, n == 0);
    detail::require_array("gesv", "ipiv", ipiv, n == 0);
    detail::require_array("gesv", "B", B, n == 0 || nrhs == 0);
    if (detail::lower_factor<T>(opts.factor)) {
        SolveReport report;  // the refined solve (gesv_mixed.cpp), which tiles for its own factorization
        return gesv(rt, n, nrhs, A, lda, ipiv, B, ldb, opts, report, Refinement{}, tiling);
    }
    detail::array_residency(rt, B, tiling, "gesv", "B");
    Request request;
    request.op = Operation::Gesv;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.nrhs = nrhs;
    request.options = opts;
    request.tiling = tiling;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, false), b(rt, n, nrhs, p.nb, B, ldb, tiling, false);
    Pivots piv(a.tiles());
    const int info = detail::gesv_planned(a.tiles(), piv, b.tiles(), opts, p);
    a.write_back();
    const std::vector<int64_t> pivots = piv.ipiv();
    std::copy(pivots.begin(), pivots.end(), ipiv);
    if (info == 0) b.write_back();
    return info;
}

template void getrs<float>(const TileMatrix<float>&, const Pivots&, TileMatrix<float>&, const Options&);
template void getrs<double>(const TileMatrix<double>&, const Pivots&, TileMatrix<double>&, const Options&);
template int gesv<float>(TileMatrix<float>&, Pivots&, TileMatrix<float>&, const Options&);
template int gesv<double>(TileMatrix<double>&, Pivots&, TileMatrix<double>&, const Options&);
template int gesv<float>(Runtime&, int64_t, int64_t, float*, int64_t, int64_t*, float*, int64_t, const Options&,
                         const Tiling&);
template int gesv<double>(Runtime&, int64_t, int64_t, double*, int64_t, int64_t*, double*, int64_t, const Options&,
                          const Tiling&);

}  // namespace starfact
