// Tile inverse of a lower-triangular matrix, in place (LAPACK's trtri, 'L', 'N'), in the order of Agullo,
// Bouwmeester, Dongarra, Kurzak, Langou and Rosenberg, "Towards an efficient tile matrix inversion of
// symmetric positive definite matrices on multicore architectures" (VECPAR 2010): step k uses only tile
// column k and tile row k of L, which potrf finishes at its step k, so that the inversion follows the
// factorization in one task graph.
//
//   for k = 0 .. mt-1:
//     for m > k:           trsm   A[m][k] := -A[m][k] L[k][k]^-1        (right, lower, no transpose)
//     for m > k, n < k:    gemm   A[m][n] += A[m][k] A[k][n]
//     for n < k:           trsm   A[k][n] := L[k][k]^-1 A[k][n]          (left, lower, no transpose)
//                          trtri  A[k][k] := L[k][k]^-1
//
// Row k is final after step k; A[k][n] (n < k) holds -sum_{j=n}^{k-1} L[k][j] X[j][n] (X = L^-1) before its
// left solve.
//
// No transposition in the graph: the same tasks on the four element types (the complex ones through the complex tile
// helpers of codelets/complex_tiles.cpp and the trtri_tile codelet's c and z instances).
#include <complex>
#include <string>

#include "algorithms/dag.hpp"
#include "algorithms/inverse_submit.hpp"
#include "codelets/codelets.hpp"
#include "codelets/inverse_codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/inverse.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

namespace detail {
template <typename T>
int submit_trtri(TileMatrix<T>& L, Sequence& seq, const Options& opts, RunStats* stats) {
    Runtime& rt = checked_triangle(L, seq, opts, "trtri");
    SequenceState& state = SequenceAccess::state(seq);
    starpu_data_handle_t info;
    const int op = state.add_operation(&info);
    const int64_t mt = L.mt();
    if (mt == 0) return op;
    if (opts.mapping != Mapping::CpuOnly) reserve_inverse_tile_workspace<T>(rt, static_cast<int>(L.nb()));
    const PriorityScale prio(opts.variant.kind != Variant::Kind::NoPrio, inverse_raw_max(mt));
    TaskNames name(state);
    TaskOptions o = operation_task_options(rt, opts, L.nb(), stats, &state);
    auto raw = [mt](int64_t k, int64_t m) { return static_cast<int>(2 * (mt - k) - 1 - (m - k)); };
    for (int64_t k = 0; k < mt; ++k) {
        TraceIteration step(rt, k);
        o.urgent = true;  // the panel feeds this step's updates, the diagonal the next phase
        for (int64_t m = k + 1; m < mt; ++m) {
            o.priority = prio(raw(k, m));
            o.name = name("trtri_trsm_r", m, k);
            insert_trsm<T>(rt, o, Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, T(-1), L.tile(k, k),
                           L.tile(m, k));
        }
        o.urgent = false;
        for (int64_t m = k + 1; m < mt; ++m)
            for (int64_t n = 0; n < k; ++n) {
                o.priority = prio(raw(k, m));
                o.name = name("trtri_gemm", m, n, k);
                insert_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, T(1), L.tile(m, k), L.tile(k, n), T(1), L.tile(m, n));
            }
        for (int64_t n = 0; n < k; ++n) {
            o.priority = prio(raw(k, k));
            o.name = name("trtri_trsm_l", k, n);
            insert_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, T(1), L.tile(k, k),
                           L.tile(k, n));
        }
        o.urgent = true;
        o.priority = prio(raw(k, k));
        o.name = name("trtri", k, k);
        insert_trtri_tile<T>(rt, o, L.tile(k, k), info, k * L.nb());
    }
    return op;
}
template int submit_trtri<float>(TileMatrix<float>&, Sequence&, const Options&, RunStats*);
template int submit_trtri<double>(TileMatrix<double>&, Sequence&, const Options&, RunStats*);
template int submit_trtri<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&, RunStats*);
template int submit_trtri<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                RunStats*);
}  // namespace detail

template <typename T>
int trtri(TileMatrix<T>& L, const Options& opts) {
    Sequence seq(L.runtime());
    detail::submit_trtri(L, seq, opts, nullptr);
    return seq.wait();
}

namespace async {
template <typename T>
int trtri(TileMatrix<T>& L, Sequence& seq, const Options& opts) {
    return detail::submit_trtri(L, seq, opts, nullptr);
}
template int trtri<float>(TileMatrix<float>&, Sequence&, const Options&);
template int trtri<double>(TileMatrix<double>&, Sequence&, const Options&);
template int trtri<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&);
template int trtri<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&);
}  // namespace async

template int trtri<float>(TileMatrix<float>&, const Options&);
template int trtri<double>(TileMatrix<double>&, const Options&);
template int trtri<std::complex<float>>(TileMatrix<std::complex<float>>&, const Options&);
template int trtri<std::complex<double>>(TileMatrix<std::complex<double>>&, const Options&);

}  // namespace starfact
