// The log-determinant of an SPD matrix from its tile Cholesky factor L: log det A = 2 sum_i log L(i, i).
//
//   for k = 0 .. mt-1:  logdet  acc += sum_i log L[k][k](i, i)      (one task per diagonal tile)
//
// The tasks chain through one small StarPU variable without a home (acc, codelets/logdet_tile.cpp), so the sum is
// taken in the tiles' order whatever runs them; each runs where the mapping allows, next to its tile (host or GPU
// memory), and reads only that tile. The last one writes the caller's LogDet and the operation's info. Logarithms
// are summed, never the diagonal multiplied: the result is right where det A overflows or underflows.
#include <limits>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/submit.hpp"
#include "codelets/logdet_codelets.hpp"
#include "kernels/logdet_diagonal.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"
#include "starfact/logdet.hpp"
#include "starfact/plan.hpp"

namespace starfact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
int submit_logdet(const TileMatrix<T>& L, Sequence& seq, LogDet& result, const Options& opts) {
    detail::require_square("logdet", "L", L);
    require(!L.distributed(), "logdet", "L", "is distributed over MPI ranks, which logdet does not support");
    Runtime& rt = L.runtime();
    require(&seq.runtime() == &rt, "logdet", "seq", "belongs to another Runtime than L");
    rt.require_mapping(opts.mapping, "logdet");
    detail::SequenceState& state = detail::SequenceAccess::state(seq);
    starpu_data_handle_t info = nullptr;
    const int op = state.add_operation(&info);
    if (L.n() == 0) {
        result = LogDet{1.0, 0.0};  // the empty product
        return op;
    }
    result = LogDet{kNaN, kNaN};  // until the last task writes it
    starpu_data_handle_t acc = nullptr;
    starpu_variable_data_register(&acc, -1, 0, sizeof(detail::DiagonalLogSum));  // no home: StarPU allocates it
    detail::TaskNames name(state);
    detail::TaskOptions o = detail::operation_task_options(rt, opts, L.nb(), nullptr, &state);
    const int64_t mt = L.mt();
    try {
        for (int64_t k = 0; k < mt; ++k) {
            const bool last = k == mt - 1;
            o.name = name("logdet", k);
            detail::insert_logdet_tile<T>(rt, o, acc, L.tile(k, k), k * L.nb(), k == 0, last ? info : nullptr,
                                          last ? &result : nullptr);
        }
    } catch (...) {
        starpu_data_unregister_submit(acc);
        throw;
    }
    starpu_data_unregister_submit(acc);  // freed once the last task is done
    return op;
}

}  // namespace

namespace async {
template <typename T>
int logdet(const TileMatrix<T>& L, Sequence& seq, LogDet& result, const Options& opts) {
    return submit_logdet(L, seq, result, opts);
}
template int logdet<float>(const TileMatrix<float>&, Sequence&, LogDet&, const Options&);
template int logdet<double>(const TileMatrix<double>&, Sequence&, LogDet&, const Options&);
}  // namespace async

template <typename T>
int logdet(const TileMatrix<T>& L, LogDet& result, const Options& opts) {
    Sequence seq(L.runtime());
    submit_logdet(L, seq, result, opts);
    return seq.wait();
}

template <typename T>
int potrf_logdet(Runtime& rt, int64_t n, T* A, int64_t lda, LogDet& result, const Options& opts,
                 const Tiling& tiling) {
    const Plan p = detail::cholesky_array_plan("potrf_logdet", rt, n, A, lda, opts, tiling);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, true);
    int factored = 0, info = 0;
    {
        Sequence seq(rt);
        const int op = detail::submit_potrf(a.tiles(), seq, opts, nullptr, p);
        const int det = submit_logdet(a.tiles(), seq, result, opts);
        seq.wait();
        factored = seq.info(op);
        info = factored != 0 ? factored : seq.info(det);
    }
    if (factored != 0) result = LogDet{kNaN, kNaN};
    a.write_back();
    return info;
}

template int logdet<float>(const TileMatrix<float>&, LogDet&, const Options&);
template int logdet<double>(const TileMatrix<double>&, LogDet&, const Options&);
template int potrf_logdet<float>(Runtime&, int64_t, float*, int64_t, LogDet&, const Options&, const Tiling&);
template int potrf_logdet<double>(Runtime&, int64_t, double*, int64_t, LogDet&, const Options&, const Tiling&);

}  // namespace starfact
