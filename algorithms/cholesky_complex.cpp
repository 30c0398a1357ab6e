// The complex tile Cholesky (starfact/cholesky_complex.hpp): right-looking task graphs over the tile codelets of
// codelets/complex_tiles.cpp (CPU and CUDA implementations; opts.mapping says which workers may run them),
// submitted in order and waited for before returning.
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

template <typename T>
int potrf_complex(TileMatrix<T>& A, const Options& opts) {
    detail::require_square("potrf", "A", A);
    detail::require_local("potrf", "A", A);
    const Runtime& rt = A.runtime();
    detail::ComplexTasks s(rt, "potrf", opts);
    if (opts.mapping != Mapping::CpuOnly) {  // the diagonal tiles' order: nb, or n when one tile holds A
        const int64_t order = std::max<int64_t>(1, std::min(A.nb(), A.m()));
        detail::reserve_potrf_workspace<T>(rt, static_cast<int>(order), DiagKernel::Cusolver);
    }
    detail::InfoVariable info;
    const starpu_data_handle_t info_handle = info.handle();
    const int64_t mt = A.mt();
    try {
        for (int64_t k = 0; k < mt; ++k) {
            s.o.priority = static_cast<int>(2 * (mt - k));  // the panel first
            detail::insert_complex_potrf<T>(rt, s.o, A.tile(k, k), info_handle, k * A.nb());
            for (int64_t m = k + 1; m < mt; ++m)
                detail::insert_complex_trsm<T>(rt, s.o, detail::Side::Right, detail::Uplo::Lower, detail::Op::ConjTrans,
                                               detail::Diag::NonUnit, A.tile(k, k), A.tile(m, k));
            s.o.priority = 0;
            for (int64_t n = k + 1; n < mt; ++n) {
                if (n == k + 1) s.o.priority = static_cast<int>(2 * (mt - k) - 1);  // the next panel's column
                detail::insert_complex_herk<T>(rt, s.o, A.tile(n, k), A.tile(n, n));
                for (int64_t m = n + 1; m < mt; ++m)
                    detail::insert_complex_gemm<T>(rt, s.o, detail::Op::NoTrans, detail::Op::ConjTrans, A.tile(m, k),
                                                   A.tile(n, k), A.tile(m, n));
                s.o.priority = 0;
            }
        }
        s.wait("potrf");
    } catch (...) {
        s.wait("potrf");
        throw;
    }
    return info.value();
}

template <typename T>
void potrs_complex(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts) {
    detail::require_square("potrs", "L", L);
    detail::require_right_hand_sides("potrs", L, B);
    detail::require_local("potrs", "L", L);
    detail::require_local("potrs", "B", B);
    const Runtime& rt = L.runtime();
    detail::ComplexTasks s(rt, "potrs", opts);
    const int64_t mt = L.mt();
    using detail::Diag;
    using detail::Op;
    using detail::Side;
    using detail::Uplo;
    try {
        for (int64_t j = 0; j < B.nt(); ++j) {
            for (int64_t k = 0; k < mt; ++k) {  // L Y = B
                detail::insert_complex_trsm<T>(rt, s.o, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit,
                                               L.tile(k, k), B.tile(k, j));
                for (int64_t m = k + 1; m < mt; ++m)
                    detail::insert_complex_gemm<T>(rt, s.o, Op::NoTrans, Op::NoTrans, L.tile(m, k), B.tile(k, j),
                                                   B.tile(m, j));
            }
            for (int64_t k = mt - 1; k >= 0; --k) {  // L^H X = Y
                detail::insert_complex_trsm<T>(rt, s.o, Side::Left, Uplo::Lower, Op::ConjTrans, Diag::NonUnit,
                                               L.tile(k, k), B.tile(k, j));
                for (int64_t m = 0; m < k; ++m)
                    detail::insert_complex_gemm<T>(rt, s.o, Op::ConjTrans, Op::NoTrans, L.tile(k, m), B.tile(k, j),
                                                   B.tile(m, j));
            }
        }
        s.wait("potrs");
    } catch (...) {
        s.wait("potrs");
        throw;
    }
}

template <typename T>
int posv_complex(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts) {
    detail::require_square("posv", "A", A);
    detail::require_right_hand_sides("posv", A, B);
    const int info = potrf_complex(A, opts);
    if (info == 0) potrs_complex(A, B, opts);
    return info;
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

}  // namespace starfact
