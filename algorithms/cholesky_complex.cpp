// The complex tile Cholesky's public forms (starfact/cholesky_complex.hpp): the real Cholesky's graphs and checks
// (algorithms/potrf.cpp, potrf_api.cpp, potrs.cpp) on std::complex<float> and std::complex<double> tiles, through the
// complex tile helpers of codelets/complex_tiles.cpp (L L^H: conjugate transposes, herk for syrk), planned as
// plan_complex says; on one process or distributed over MPI ranks, as the real ones.
//   blocking: potrf and potrs on a Sequence of their own; posv factors, waits, and solves when info is 0 (B
//             untouched otherwise)
//   async::   the same tasks submitted into the caller's Sequence
#include "starfact/cholesky_complex.hpp"

#include <complex>

#include "algorithms/planned.hpp"
#include "algorithms/submit.hpp"
#include "starfact/plan.hpp"

namespace starfact {
namespace {

template <typename T>
int potrf_complex(TileMatrix<T>& A, const Options& opts) {
    Sequence seq(A.runtime());
    detail::submit_potrf(A, seq, opts, nullptr);
    return seq.wait();
}

template <typename T>
void potrs_submit(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    detail::submit_potrs(L, B, seq, opts, nullptr, detail::plan_tiles(Operation::Potrs, L, opts, B.n()));
}

template <typename T>
void potrs_complex(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts) {
    Sequence seq(L.runtime());
    potrs_submit(L, B, seq, opts);
    seq.wait();
}

template <typename T>
int posv_complex(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts) {
    return detail::posv_planned(A, B, opts, detail::plan_tiles(Operation::Posv, A, opts, B.n()));
}

template <typename T>
int posv_submit(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    return detail::submit_posv(A, B, seq, opts, detail::plan_tiles(Operation::Posv, A, opts, B.n()));
}

/// The submit forms with the caller's plan, checked against the call as the real forms check it.
template <typename T>
int potrf_planned(TileMatrix<T>& A, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("potrf", plan, Operation::Potrf, A, opts);
    return detail::submit_potrf(A, seq, opts, nullptr, plan);
}

template <typename T>
void potrs_planned(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("potrs", plan, Operation::Potrs, L, opts, B.n());
    detail::submit_potrs(L, B, seq, opts, nullptr, plan);
}

template <typename T>
int posv_submit_planned(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("posv", plan, Operation::Posv, A, opts, B.n());
    return detail::submit_posv(A, B, seq, opts, plan);
}

}  // namespace

int potrf(TileMatrix<std::complex<float>>& A, const Options& opts) { return potrf_complex(A, opts); }
int potrf(TileMatrix<std::complex<double>>& A, const Options& opts) { return potrf_complex(A, opts); }
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, const Options& opts) {
    potrs_complex(L, B, opts);
}
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, const Options& opts) {
    potrs_complex(L, B, opts);
}
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, const Options& opts) {
    return posv_complex(A, B, opts);
}
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, const Options& opts) {
    return posv_complex(A, B, opts);
}

namespace async {
int potrf(TileMatrix<std::complex<float>>& A, Sequence& seq, const Options& opts) {
    return detail::submit_potrf(A, seq, opts, nullptr);
}
int potrf(TileMatrix<std::complex<double>>& A, Sequence& seq, const Options& opts) {
    return detail::submit_potrf(A, seq, opts, nullptr);
}
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, Sequence& seq,
           const Options& opts) {
    potrs_submit(L, B, seq, opts);
}
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, Sequence& seq,
           const Options& opts) {
    potrs_submit(L, B, seq, opts);
}
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, Sequence& seq, const Options& opts) {
    return posv_submit(A, B, seq, opts);
}
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts) {
    return posv_submit(A, B, seq, opts);
}

int potrf(TileMatrix<std::complex<float>>& A, Sequence& seq, const Options& opts, const Plan& plan) {
    return potrf_planned(A, seq, opts, plan);
}
int potrf(TileMatrix<std::complex<double>>& A, Sequence& seq, const Options& opts, const Plan& plan) {
    return potrf_planned(A, seq, opts, plan);
}
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, Sequence& seq,
           const Options& opts, const Plan& plan) {
    potrs_planned(L, B, seq, opts, plan);
}
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, Sequence& seq,
           const Options& opts, const Plan& plan) {
    potrs_planned(L, B, seq, opts, plan);
}
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, Sequence& seq, const Options& opts,
         const Plan& plan) {
    return posv_submit_planned(A, B, seq, opts, plan);
}
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, Sequence& seq, const Options& opts,
         const Plan& plan) {
    return posv_submit_planned(A, B, seq, opts, plan);
}
}  // namespace async

}  // namespace starfact
