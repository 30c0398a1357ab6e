// Inverse of an SPD matrix (LAPACK's potri after potrf): potrf, trtri and lauum of A submitted as one task
// graph, without a wait in between (Agullo, Bouwmeester, Dongarra, Kurzak, Langou and Rosenberg, "Towards an
// efficient tile matrix inversion of symmetric positive definite matrices on multicore architectures",
// VECPAR 2010). StarPU orders the three phases tile by tile: step k of trtri starts once potrf has finished
// tile column k and the updates that read it, step k of lauum once trtri has finished tile row k. The loops
// are in algorithms/potrf.cpp, algorithms/trtri.cpp and algorithms/lauum.cpp.
//
// The same graphs invert complex Hermitian positive definite matrices (std::complex<float>, std::complex<double>):
// A = L L^H, A^-1 = L^-H L^-1, planned as plan_complex says (right-looking, LAPACK's and cuSOLVER's potrf on the
// diagonal tiles, trsm panels).
#include <algorithm>
#include <complex>
#include <string>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/inverse_submit.hpp"
#include "algorithms/planned.hpp"
#include "algorithms/submit.hpp"
#include "starfact/error.hpp"
#include "starfact/inverse.hpp"

namespace starfact {

double potri_flops(int64_t n) {
    const double N = static_cast<double>(n);
    return potrf_flops(n) + (N * N * N / 3.0 + 2.0 * N / 3.0) + (N * N * N / 3.0 + N * N / 2.0 + N / 6.0);
}

namespace {
/// potrf, trtri and lauum of A into `seq`, the factorization with the call's plan (potri's on A's tiles).
template <typename T>
int submit_potri(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats, const Plan& plan) {
    detail::require_square("potri", "A", A);
    require(!A.distributed(), "potri", "A", "is distributed over MPI ranks, which potri does not support");
    const int op = detail::submit_potrf(A, seq, opts, stats, plan);
    detail::submit_trtri(A, seq, opts, stats);
    detail::submit_lauum(A, seq, opts, stats);
    return op;
}
}  // namespace

template <typename T>
int potri(TileMatrix<T>& A, const Options& opts) {
    RunStats ignored;
    return potri(A, opts, ignored);
}

template <typename T>
int potri(TileMatrix<T>& A, const Options& opts, RunStats& stats) {
    Sequence seq(A.runtime());
    submit_potri(A, seq, opts, &stats, detail::plan_tiles(Operation::Potri, A, opts));
    return seq.wait();  // the first nonzero info: potrf's, else trtri's
}

namespace async {
template <typename T>
int potri(TileMatrix<T>& A, Sequence& seq, const Options& opts) {
    return submit_potri(A, seq, opts, nullptr, detail::plan_tiles(Operation::Potri, A, opts));
}
template <typename T>
int potri(TileMatrix<T>& A, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("potri", plan, Operation::Potri, A, opts);
    return submit_potri(A, seq, opts, nullptr, plan);
}
template int potri<float>(TileMatrix<float>&, Sequence&, const Options&);
template int potri<double>(TileMatrix<double>&, Sequence&, const Options&);
template int potri<float>(TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template int potri<double>(TileMatrix<double>&, Sequence&, const Options&, const Plan&);
template int potri<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&);
template int potri<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&);
template int potri<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&, const Plan&);
template int potri<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&, const Plan&);
}  // namespace async

template <typename T>
int potri(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts, const Tiling& tiling) {
    detail::require_nonnegative("potri", "n", n);
    detail::require_leading_dimension("potri", "lda", lda, n, "n", n, sizeof(T));
    detail::require_tiling("potri", tiling);
    detail::require_array("potri", "A", A, n == 0);
    Request request;
    request.op = Operation::Potri;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.nrhs = 0;
    request.options = opts;
    request.tiling = tiling;
    const Plan p = plan(rt, request, A);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, true);
    int info = 0;
    {
        Sequence seq(rt);
        submit_potri(a.tiles(), seq, opts, nullptr, p);
        info = seq.wait();
    }
    a.write_back();
    return info;
}

template int potri<float>(TileMatrix<float>&, const Options&);
template int potri<double>(TileMatrix<double>&, const Options&);
template int potri<float>(TileMatrix<float>&, const Options&, RunStats&);
template int potri<double>(TileMatrix<double>&, const Options&, RunStats&);
template int potri<float>(Runtime&, int64_t, float*, int64_t, const Options&, const Tiling&);
template int potri<double>(Runtime&, int64_t, double*, int64_t, const Options&, const Tiling&);
template int potri<std::complex<float>>(TileMatrix<std::complex<float>>&, const Options&);
template int potri<std::complex<double>>(TileMatrix<std::complex<double>>&, const Options&);
template int potri<std::complex<float>>(TileMatrix<std::complex<float>>&, const Options&, RunStats&);
template int potri<std::complex<double>>(TileMatrix<std::complex<double>>&, const Options&, RunStats&);
template int potri<std::complex<float>>(Runtime&, int64_t, std::complex<float>*, int64_t, const Options&,
                                        const Tiling&);
template int potri<std::complex<double>>(Runtime&, int64_t, std::complex<double>*, int64_t, const Options&,
                                         const Tiling&);

}  // namespace starfact
