// The complex tile LU with partial pivoting (starfact/lu_complex.hpp): right-looking task graphs over tile codelets
// with CPU and CUDA implementations (the LU's panel and interchanges, codelets/getrf_panel.cpp and codelets/laswp.cpp,
// and the complex trsm and gemm of codelets/complex_tiles.cpp), on the workers opts.mapping allows, submitted into a
// Sequence: the caller's (async::) or one of the call's own, waited for before returning. The steps are the real LU's
// (algorithms/getrf.cpp, algorithms/getrs.cpp):
//   getrf, step k:  panel   A[k..mt-1][k] with partial pivoting over the whole tile column, its pivots into piv[k]
//                   j > k:  laswp A[k..mt-1][j] by piv[k];  trsm A[k][j] := L[k][k]^-1 A[k][j] (left, lower, unit);
//                           gemm A[m][j] -= A[m][k] A[k][j] (m > k)
//                   j < k:  laswp A[k..mt-1][j] by piv[k] (L into LAPACK's layout)
//   getrs:          laswp B[k..mt-1][j] by piv[k] (k = 0 .. mt-1), then L Y = P B and U X = Y tile by tile
#include <starpu.h>

#include <complex>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/complex_submit.hpp"
#include "algorithms/lu_submit.hpp"
#include "codelets/complex_codelets.hpp"
#include "codelets/lu_codelets.hpp"
#include "starfact/error.hpp"
#include "starfact/lu_complex.hpp"

namespace starfact {
namespace {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

/// Tiles k .. mt-1 of tile column j of M.
template <typename T>
std::vector<starpu_data_handle_t> column(const TileMatrix<T>& M, int64_t k, int64_t j) {
    std::vector<starpu_data_handle_t> c;
    for (int64_t m = k; m < M.mt(); ++m) c.push_back(M.tile(m, j));
    return c;
}

template <typename T>
void require_pivots(const char* function, const Pivots& piv, const TileMatrix<T>& A) {
    detail::require_pivots_shaped_for(function, piv, A);
    require(&piv.runtime() == &A.runtime(), function, "piv", "belongs to another Runtime than A");
}

/// Submits getrf of A into seq, its info a new operation of seq; returns the operation's index.
template <typename T>
int submit_getrf(TileMatrix<T>& A, Pivots& piv, Sequence& seq, const Options& opts, const char* function) {
    detail::require_square(function, "A", A);
    require(!A.layout().lower_only, function, "A", "must store every tile (got a lower_only matrix)");
    detail::require_local(function, "A", A);
    require_pivots(function, piv, A);
    const Runtime& rt = A.runtime();
    detail::TaskOptions o = detail::sequence_task_options(rt, seq, opts, function);
    const int64_t mt = A.mt();
    detail::require_gpu_tiles(rt, opts, mt, function, "A");
    if (opts.mapping != Mapping::CpuOnly && mt > 0)  // the CUDA panel's gathered column and cuSOLVER's workspace
        detail::reserve_getrf_panel_workspace<T>(rt, A.n(), mt > 1 ? A.nb() : 0);
    starpu_data_handle_t info = nullptr;
    const int op = o.sequence->add_operation(&info);
    for (int64_t k = 0; k < mt; ++k) {
        const int64_t offset = k * A.nb();
        o.priority = static_cast<int>(2 * (mt - k) + 1);  // the panel first, on its worker's urgent stream
        o.urgent = true;
        detail::insert_getrf_panel<T>(rt, o, column(A, k, k), piv.step(k), info, offset, true);
        for (int64_t j = k + 1; j < mt; ++j) {
            o.priority = j == k + 1 ? static_cast<int>(2 * (mt - k)) : 0;  // the next panel's column next
            o.urgent = j == k + 1;
            detail::insert_laswp<T>(rt, o, column(A, k, j), piv.step(k), offset);
            detail::insert_complex_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, A.tile(k, k),
                                           A.tile(k, j));
            for (int64_t m = k + 1; m < mt; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, A.tile(m, k), A.tile(k, j),
                                               A.tile(m, j));
        }
        o.priority = 0;  // the columns of L to the left: off the critical path
        o.urgent = false;
        for (int64_t j = 0; j < k; ++j) detail::insert_laswp<T>(rt, o, column(A, k, j), piv.step(k), offset);
    }
    return op;
}

/// getrs' checks, for `function` (getrs, or gesv before it factors).
template <typename T>
void require_solve(const char* function, const TileMatrix<T>& A, const Pivots& piv, const TileMatrix<T>& B) {
    detail::require_square(function, "A", A);
    detail::require_right_hand_sides(function, A, B);
    require(!B.layout().lower_only, function, "B", "must store every tile (got a lower_only matrix)");
    require(&B.runtime() == &A.runtime(), function, "B", "belongs to another Runtime than A");
    detail::require_local(function, "A", A);
    detail::require_local(function, "B", B);
    require_pivots(function, piv, A);
}

/// Submits the solve A X = B with the factors of getrf (the interchanges of B, then the two triangular solves).
template <typename T>
void submit_getrs(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts,
                  const char* function) {
    require_solve(function, LU, piv, B);
    const Runtime& rt = LU.runtime();
    const detail::TaskOptions o = detail::sequence_task_options(rt, seq, opts, function);
    const int64_t mt = LU.mt();
    detail::require_gpu_tiles(rt, opts, mt, function, "A");
    for (int64_t j = 0; j < B.nt(); ++j) {
        for (int64_t k = 0; k < mt; ++k)  // P B
            detail::insert_laswp<T>(rt, o, column(B, k, j), piv.step(k), k * LU.nb());
        for (int64_t k = 0; k < mt; ++k) {  // L Y = P B
            detail::insert_complex_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, LU.tile(k, k),
                                           B.tile(k, j));
            for (int64_t m = k + 1; m < mt; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, LU.tile(m, k), B.tile(k, j),
                                               B.tile(m, j));
        }
        for (int64_t k = mt - 1; k >= 0; --k) {  // U X = Y
            detail::insert_complex_trsm<T>(rt, o, Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, LU.tile(k, k),
                                           B.tile(k, j));
            for (int64_t m = 0; m < k; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, LU.tile(m, k), B.tile(k, j),
                                               B.tile(m, j));
        }
    }
}

template <typename T>
int getrf_complex(TileMatrix<T>& A, Pivots& piv, const Options& opts) {
    Sequence seq(A.runtime());
    submit_getrf(A, piv, seq, opts, "getrf");
    return seq.wait();
}

template <typename T>
void getrs_complex(const TileMatrix<T>& LU, const Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    Sequence seq(LU.runtime());
    submit_getrs(LU, piv, B, seq, opts, "getrs");
    seq.wait();
}

template <typename T>
int gesv_complex(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, const Options& opts) {
    require_solve("gesv", A, piv, B);
    Sequence seq(A.runtime());
    submit_getrf(A, piv, seq, opts, "gesv");
    const int info = seq.wait();
    if (info == 0) {  // B untouched otherwise
        submit_getrs(A, piv, B, seq, opts, "gesv");
        seq.wait();
    }
    return info;
}

template <typename T>
int gesv_async(TileMatrix<T>& A, Pivots& piv, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    require_solve("gesv", A, piv, B);
    const int op = submit_getrf(A, piv, seq, opts, "gesv");
    submit_getrs(A, piv, B, seq, opts, "gesv");
    return op;
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
    return submit_getrf(A, piv, seq, opts, "getrf");
}
int getrf(TileMatrix<std::complex<double>>& A, Pivots& piv, Sequence& seq, const Options& opts) {
    return submit_getrf(A, piv, seq, opts, "getrf");
}
void getrs(const TileMatrix<std::complex<float>>& LU, const Pivots& piv, TileMatrix<std::complex<float>>& B,
           Sequence& seq, const Options& opts) {
    submit_getrs(LU, piv, B, seq, opts, "getrs");
}
void getrs(const TileMatrix<std::complex<double>>& LU, const Pivots& piv, TileMatrix<std::complex<double>>& B,
           Sequence& seq, const Options& opts) {
    submit_getrs(LU, piv, B, seq, opts, "getrs");
}
int gesv(TileMatrix<std::complex<float>>& A, Pivots& piv, TileMatrix<std::complex<float>>& B, Sequence& seq,
         const Options& opts) {
    return gesv_async(A, piv, B, seq, opts);
}
int gesv(TileMatrix<std::complex<double>>& A, Pivots& piv, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts) {
    return gesv_async(A, piv, B, seq, opts);
}
}  // namespace async

}  // namespace starfact
