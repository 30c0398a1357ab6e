// Right-looking tile Cholesky (lower), A = L L^T:
//
//   for k = 0 .. mt-1
//     potrf  A[k][k]
//     for m = k+1 .. mt-1:  trsm  A[m][k] := A[m][k] L[k][k]^-T
//     for m = k+1 .. mt-1:  syrk  A[m][m] -= A[m][k] A[m][k]^T
//                           for n = k+1 .. m-1:  gemm  A[m][n] -= A[m][k] A[n][k]^T
//
// Critical-path priorities: a task writing tile (m, n) gets 2(mt - n) - (m - n), potrf one more:
// columns nearer the left (the next panel) first, and within a column the rows nearest the
// diagonal, which feed the next potrf. docs/algorithms.md explains the choice.
#include <algorithm>
#include <string>

#include "algorithms/dag.hpp"
#include "codelets/codelets.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

double potrf_flops(int64_t n) {
    const double N = static_cast<double>(n);
    return N * N * N / 3.0 + N * N / 2.0 + N / 6.0;
}

template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts) {
    require(A.m() == A.n(), "potrf", "A", "must be square (got " + std::to_string(A.m()) + " x " +
                                             std::to_string(A.n()) + ")");
    Runtime& rt = A.runtime();
    rt.require_mapping(opts.mapping, "potrf");
    if (A.n() == 0) return 0;
    if (opts.mapping != Mapping::CpuOnly) detail::reserve_potrf_workspace<T>(rt, static_cast<int>(A.nb()));

    int info = 0;
    starpu_data_handle_t info_handle;
    starpu_variable_data_register(&info_handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&info), sizeof(int));

    const int64_t mt = A.mt();
    const detail::PriorityScale prio(opts.priorities, static_cast<int>(2 * mt + 1));
    auto target = [&](int64_t m, int64_t n) { return static_cast<int>(2 * (mt - n) - (m - n)); };
    detail::TaskNames name;
    detail::TaskOptions o;
    o.mapping = opts.mapping;
    for (int64_t k = 0; k < mt; ++k) {
        starpu_iteration_push(static_cast<unsigned long>(k));
        o.priority = prio(target(k, k) + 1);
        o.name = name("potrf", k, k);
        detail::insert_potrf<T>(rt, o, A.tile(k, k), info_handle, k * A.nb());
        for (int64_t m = k + 1; m < mt; ++m) {
            o.priority = prio(target(m, k));
            o.name = name("trsm", m, k);
            detail::insert_trsm<T>(rt, o, Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, T(1), A.tile(k, k),
                                   A.tile(m, k));
        }
        for (int64_t m = k + 1; m < mt; ++m) {
            o.priority = prio(target(m, m));
            o.name = name("syrk", m, k);
            detail::insert_syrk<T>(rt, o, Uplo::Lower, Op::NoTrans, T(-1), A.tile(m, k), T(1), A.tile(m, m));
            for (int64_t n = k + 1; n < m; ++n) {
                o.priority = prio(target(m, n));
                o.name = name("gemm", m, n, k);
                detail::insert_gemm<T>(rt, o, Op::NoTrans, Op::Trans, T(-1), A.tile(m, k), A.tile(n, k), T(1),
                                       A.tile(m, n));
            }
        }
        starpu_iteration_pop();
    }
    starpu_task_wait_for_all();
    starpu_data_unregister(info_handle);  // brings the final info back to `info`
    return info;
}

template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts) {
    require(n >= 0, "potrf", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(lda >= std::max<int64_t>(1, n), "potrf", "lda",
            "must be >= max(1, n) = " + std::to_string(std::max<int64_t>(1, n)) + " (got " + std::to_string(lda) + ")");
    require(opts.nb > 0, "potrf", "nb", "must be > 0 (got " + std::to_string(opts.nb) + ")");
    require(A != nullptr || n == 0, "potrf", "A", "is null");
    TileMatrix<T> tiles(rt, n, opts.nb, opts.residency);
    tiles.import(A, lda);
    const int info = potrf(tiles, opts);
    tiles.export_to(A, lda);
    return info;
}

template int potrf<float>(TileMatrix<float>&, const Options&);
template int potrf<double>(TileMatrix<double>&, const Options&);
template int potrf<float>(Runtime&, int64_t, float*, int64_t, const Options&);
template int potrf<double>(Runtime&, int64_t, double*, int64_t, const Options&);

}  // namespace starfact
