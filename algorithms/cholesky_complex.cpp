// The complex tile Cholesky (starfact/cholesky_complex.hpp): right-looking task graphs over the tile codelets of
// codelets/complex_tiles.cpp (CPU and CUDA implementations; opts.mapping says which workers may run them), submitted
// into a Sequence: the caller's (async::) or one of the call's own, waited for before returning.
//   potrf, step k:  potrf A_kk;  trsm A_mk := A_mk L_kk^-H (m > k);  herk A_nn -= A_nk A_nk^H (n > k);
//                   gemm A_mn -= A_mk A_nk^H (m > n > k)
//   potrs, column block j of B:  forward  trsm B_kj := L_kk^-1 B_kj, gemm B_mj -= L_mk B_kj (m > k);
//                                backward trsm B_kj := L_kk^-H B_kj, gemm B_mj -= L_km^H B_kj (m < k)
#include "starfact/cholesky_complex.hpp"

#include <starpu.h>

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/complex_submit.hpp"
#include "codelets/complex_codelets.hpp"
#include "starfact/error.hpp"

namespace starfact {
namespace {

using detail::Diag;
using detail::Op;
using detail::Side;
using detail::Uplo;

/// Submits potrf of A into seq, its info a new operation of seq; returns the operation's index.
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, const char* function) {
    detail::require_square(function, "A", A);
    detail::require_local(function, "A", A);
    const Runtime& rt = A.runtime();
    detail::TaskOptions o = detail::sequence_task_options(rt, seq, opts, function);
    if (opts.mapping != Mapping::CpuOnly) {  // the diagonal tiles' order: nb, or n when one tile holds A
        const int64_t order = std::max<int64_t>(1, std::min(A.nb(), A.m()));
        detail::reserve_potrf_workspace<T>(rt, static_cast<int>(order), DiagKernel::Cusolver);
    }
    starpu_data_handle_t info = nullptr;
    const int op = o.sequence->add_operation(&info);
    const int64_t mt = A.mt();
    for (int64_t k = 0; k < mt; ++k) {
        o.priority = static_cast<int>(2 * (mt - k));  // the panel first
        detail::insert_complex_potrf<T>(rt, o, A.tile(k, k), info, k * A.nb());
        for (int64_t m = k + 1; m < mt; ++m)
            detail::insert_complex_trsm<T>(rt, o, Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, A.tile(k, k),
                                           A.tile(m, k));
        o.priority = 0;
        for (int64_t n = k + 1; n < mt; ++n) {
            if (n == k + 1) o.priority = static_cast<int>(2 * (mt - k) - 1);  // the next panel's column
            detail::insert_complex_herk<T>(rt, o, A.tile(n, k), A.tile(n, n));
            for (int64_t m = n + 1; m < mt; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::NoTrans, Op::ConjTrans, A.tile(m, k), A.tile(n, k),
                                               A.tile(m, n));
            o.priority = 0;
        }
    }
    return op;
}

/// Submits the solve L L^H X = B into seq.
template <typename T>
void submit_potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts, const char* function) {
    detail::require_square(function, "L", L);
    detail::require_right_hand_sides(function, L, B);
    detail::require_local(function, "L", L);
    detail::require_local(function, "B", B);
    const Runtime& rt = L.runtime();
    const detail::TaskOptions o = detail::sequence_task_options(rt, seq, opts, function);
    const int64_t mt = L.mt();
    for (int64_t j = 0; j < B.nt(); ++j) {
        for (int64_t k = 0; k < mt; ++k) {  // L Y = B
            detail::insert_complex_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, L.tile(k, k),
                                           B.tile(k, j));
            for (int64_t m = k + 1; m < mt; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::NoTrans, Op::NoTrans, L.tile(m, k), B.tile(k, j),
                                               B.tile(m, j));
        }
        for (int64_t k = mt - 1; k >= 0; --k) {  // L^H X = Y
            detail::insert_complex_trsm<T>(rt, o, Side::Left, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, L.tile(k, k),
                                           B.tile(k, j));
            for (int64_t m = 0; m < k; ++m)
                detail::insert_complex_gemm<T>(rt, o, Op::ConjTrans, Op::NoTrans, L.tile(k, m), B.tile(k, j),
                                               B.tile(m, j));
        }
    }
}

template <typename T>
int potrf_complex(TileMatrix<T>& A, const Options& opts) {
    Sequence seq(A.runtime());
    submit_potrf(A, seq, opts, "potrf");
    return seq.wait();
}

template <typename T>
void potrs_complex(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts) {
    Sequence seq(L.runtime());
    submit_potrs(L, B, seq, opts, "potrs");
    seq.wait();
}

template <typename T>
int posv_complex(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts) {
    detail::require_square("posv", "A", A);
    detail::require_right_hand_sides("posv", A, B);
    Sequence seq(A.runtime());
    submit_potrf(A, seq, opts, "posv");
    const int info = seq.wait();
    if (info == 0) {  // B untouched otherwise
        submit_potrs(A, B, seq, opts, "posv");
        seq.wait();
    }
    return info;
}

template <typename T>
int posv_async(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts) {
    detail::require_square("posv", "A", A);
    detail::require_right_hand_sides("posv", A, B);
    const int op = submit_potrf(A, seq, opts, "posv");
    submit_potrs(A, B, seq, opts, "posv");
    return op;
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
    return submit_potrf(A, seq, opts, "potrf");
}
int potrf(TileMatrix<std::complex<double>>& A, Sequence& seq, const Options& opts) {
    return submit_potrf(A, seq, opts, "potrf");
}
void potrs(const TileMatrix<std::complex<float>>& L, TileMatrix<std::complex<float>>& B, Sequence& seq,
           const Options& opts) {
    submit_potrs(L, B, seq, opts, "potrs");
}
void potrs(const TileMatrix<std::complex<double>>& L, TileMatrix<std::complex<double>>& B, Sequence& seq,
           const Options& opts) {
    submit_potrs(L, B, seq, opts, "potrs");
}
int posv(TileMatrix<std::complex<float>>& A, TileMatrix<std::complex<float>>& B, Sequence& seq, const Options& opts) {
    return posv_async(A, B, seq, opts);
}
int posv(TileMatrix<std::complex<double>>& A, TileMatrix<std::complex<double>>& B, Sequence& seq,
         const Options& opts) {
    return posv_async(A, B, seq, opts);
}
}  // namespace async

}  // namespace starfact
