// Tile product L^T L of a lower-triangular matrix, in place (LAPACK's lauum, 'L'), in the order of Agullo,
// Bouwmeester, Dongarra, Kurzak, Langou and Rosenberg (VECPAR 2010): step k reads tile row k of L only,
// which trtri finishes at its step k, so that the product follows the inversion in one task graph.
//
//   for k = 0 .. mt-1:
//     for n < k:           syrk   A[n][n] += A[k][n]^T A[k][n]
//                          for n < m < k:  gemm  A[m][n] += A[k][m]^T A[k][n]
//     for n < k:           trmm   A[k][n] := L[k][k]^T A[k][n]           (left, lower, transposed)
//                          lauum  A[k][k] := L[k][k]^T L[k][k]
//
// (L^T L)[m][n] = sum_{k >= max(m, n)} L[k][m]^T L[k][n]: step k adds row k's terms; the trmm and the
// diagonal lauum give the k = m terms of row k, whose later terms come from the gemms of steps > k.
//
// On complex tiles the product is L^H L: ^T reads ^H (adjoint_op: Op::ConjTrans), and the syrk is the Hermitian herk
// (real alpha and beta: the complex tile helpers of codelets/complex_tiles.cpp), the diagonal tile's lauum LAPACK's
// clauum/zlauum (or its CUDA form, codelets/lauum_tile.cpp).
#include <complex>
#include <string>

#include "algorithms/dag.hpp"
#include "algorithms/inverse_submit.hpp"
#include "codelets/codelets.hpp"
#include "codelets/inverse_codelets.hpp"
#include "kernels/scalar.hpp"
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
void submit_lauum(TileMatrix<T>& L, Sequence& seq, const Options& opts, RunStats* stats) {
    Runtime& rt = checked_triangle(L, seq, opts, "lauum");
    constexpr Op adjoint = adjoint_op<is_complex_v<T>>();  // L^T, or L^H on complex tiles
    const int64_t mt = L.mt();
    if (mt == 0) return;
    if (opts.mapping != Mapping::CpuOnly) reserve_inverse_tile_workspace<T>(rt, static_cast<int>(L.nb()));
    const PriorityScale prio(opts.variant.kind != Variant::Kind::NoPrio, inverse_raw_max(mt));
    TaskNames name(SequenceAccess::state(seq));
    TaskOptions o = operation_task_options(rt, opts, L.nb(), stats, &SequenceAccess::state(seq));
    for (int64_t k = 0; k < mt; ++k) {
        TraceIteration step(rt, k);
        o.priority = prio(static_cast<int>(2 * (mt - k) - 2));
        o.urgent = false;
        for (int64_t n = 0; n < k; ++n) {
            o.name = name("lauum_syrk", n, k);
            insert_syrk<T>(rt, o, Uplo::Lower, adjoint, T(1), L.tile(k, n), T(1), L.tile(n, n));
            for (int64_t m = n + 1; m < k; ++m) {
                o.name = name("lauum_gemm", m, n, k);
                insert_gemm<T>(rt, o, adjoint, Op::NoTrans, T(1), L.tile(k, m), L.tile(k, n), T(1), L.tile(m, n));
            }
        }
        for (int64_t n = 0; n < k; ++n) {
            o.name = name("trmm", k, n);
            insert_trmm<T>(rt, o, Side::Left, Uplo::Lower, adjoint, Diag::NonUnit, T(1), L.tile(k, k), L.tile(k, n));
        }
        o.urgent = true;  // the diagonal chain: lauum(k) waits for trtri(k), the last step for all of them
        o.name = name("lauum", k, k);
        insert_lauum_tile<T>(rt, o, L.tile(k, k));
    }
}
template void submit_lauum<float>(TileMatrix<float>&, Sequence&, const Options&, RunStats*);
template void submit_lauum<double>(TileMatrix<double>&, Sequence&, const Options&, RunStats*);
template void submit_lauum<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&,
                                                RunStats*);
template void submit_lauum<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                 RunStats*);
}  // namespace detail

template <typename T>
void lauum(TileMatrix<T>& L, const Options& opts) {
    Sequence seq(L.runtime());
    detail::submit_lauum(L, seq, opts, nullptr);
    seq.wait();
}

namespace async {
template <typename T>
void lauum(TileMatrix<T>& L, Sequence& seq, const Options& opts) {
    detail::submit_lauum(L, seq, opts, nullptr);
}
template void lauum<float>(TileMatrix<float>&, Sequence&, const Options&);
template void lauum<double>(TileMatrix<double>&, Sequence&, const Options&);
template void lauum<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&);
template void lauum<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&);
}  // namespace async

template void lauum<float>(TileMatrix<float>&, const Options&);
template void lauum<double>(TileMatrix<double>&, const Options&);
template void lauum<std::complex<float>>(TileMatrix<std::complex<float>>&, const Options&);
template void lauum<std::complex<double>>(TileMatrix<std::complex<double>>&, const Options&);

}  // namespace starfact
