// The complex tile LU's public forms (starfact/lu_complex.hpp): the real LU's graphs and checks (algorithms/getrf.cpp,
// getrs.cpp: the panel with partial pivoting over the whole tile column, the interchanges, trsm and gemm) on
// std::complex<float> and std::complex<double> tiles, through the complex tile helpers of codelets/complex_tiles.cpp,
// planned as plan_complex says; on one process or distributed over MPI ranks (the panel on the rank of the diagonal
// tile, the interchanges tile by tile across the grid rows), as the real ones.
//   blocking: getrf and getrs on a Sequence of their own; gesv factors, waits, and solves when info is 0 (B untouched
//             otherwise)
//   async::   the same tasks submitted into the caller's Sequence
#include <complex>

#include "algorithms/lu_submit.hpp"
#include "algorithms/planned.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/plan.hpp"

namespace starfact {
namespace {

template <typename T>
int getrf_submit(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts) {
    return detail::submit_getrf(A, &piv, seq, opts, nullptr, "getrf", detail::plan_tiles(Operation::Getrf, A, opts));
}

template <typename T>
int getrf_complex(TileMatrix<T>& A, Pivots& piv, const Options& opts) {
    Sequence seq(A.runtime());
    detail::submit_getrf(A, &piv, seq, opts, nullptr, "getrf", detail::plan_tiles(Operation::Getrf, A, opts), true);
    return seq.wait();
}

template <typename T>
void getrs_submit(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    detail::submit_getrs(LU, piv, B, seq, opts, nullptr, "getrs",
                         detail::plan_tiles(Operation::Getrs, LU, opts, B.n()));
}

template <typename T>
void getrs_complex(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    Sequence seq(LU.runtime());
    getrs_submit(LU, piv, B, seq, opts);
    seq.wait();
}

template <typename T>
int gesv_complex(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    return detail::gesv_planned(A, piv, B, opts, detail::plan_tiles(Operation::Gesv, A, opts, B.n()));
}

template <typename T>
int gesv_submit(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    return detail::submit_gesv(A, piv, B, seq, opts, detail::plan_tiles(Operation::Gesv, A, opts, B.n()));
}

/// The submit forms with the caller's plan, checked against the call as the real forms check it.
template <typename T>
int getrf_planned(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("getrf", plan, Operation::Getrf, A, opts);
    return detail::submit_getrf(A, &piv, seq, opts, nullptr, "getrf", plan);
}

template <typename T>
void getrs_planned(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                   const Plan& plan) {
    detail::require_plan("getrs", plan, Operation::Getrs, LU, opts, B.n());
    detail::submit_getrs(LU, piv, B, seq, opts, nullptr, "getrs", plan);
}

template <typename T>
int gesv_submit_planned(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                        const Plan& plan) {
    detail::require_plan("gesv", plan, Operation::Gesv, A, opts, B.n());
    return detail::submit_gesv(A, piv, B, seq, opts, plan);
}

}  // namespace

int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, const Options& opts) { return getrf_complex(A, piv, opts); }
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, const Options& opts) { return getrf_complex(A, piv, opts); }
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           const Options& opts) {
    getrs_complex(LU, piv, B, opts);
}
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           const Options& opts) {
    getrs_complex(LU, piv, B, opts);
}
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, const Options& opts) {
    return gesv_complex(A, piv, B, opts);
}
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, const Options& opts) {
    return gesv_complex(A, piv, B, opts);
}

namespace async {
int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, Sequence& seq, const Options& opts) {
    return getrf_submit(A, piv, seq, opts);
}
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, Sequence& seq, const Options& opts) {
    return getrf_submit(A, piv, seq, opts);
}
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           Sequence& seq, const Options& opts) {
    getrs_submit(LU, piv, B, seq, opts);
}
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           Sequence& seq, const Options& opts) {
    getrs_submit(LU, piv, B, seq, opts);
}
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts) {
    return gesv_submit(A, piv, B, seq, opts);
}
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts) {
    return gesv_submit(A, piv, B, seq, opts);
}

int getrf(TileMatrix<std::complex<float>>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan) {
    return getrf_planned(A, piv, seq, opts, plan);
}
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, Sequence& seq, const Options& opts, const Plan& plan) {
    return getrf_planned(A, piv, seq, opts, plan);
}
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           Sequence& seq, const Options& opts, const Plan& plan) {
    getrs_planned(LU, piv, B, seq, opts, plan);
}
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           Sequence& seq, const Options& opts, const Plan& plan) {
    getrs_planned(LU, piv, B, seq, opts, plan);
}
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts, const Plan& plan) {
    return gesv_submit_planned(A, piv, B, seq, opts, plan);
}
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts, const Plan& plan) {
    return gesv_submit_planned(A, piv, B, seq, opts, plan);
}
}  // namespace async

}  // namespace starfact
