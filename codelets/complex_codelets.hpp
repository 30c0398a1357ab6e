// Internal: the complex tile codelets of the complex Cholesky and LU (codelets/complex_tiles.cpp): CPU implementations
// through the scalar layer's c and z routines and, in a CUDA build, CUDA ones (cuSOLVER, cuBLAS); T is
// std::complex<float> or std::complex<double>.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"

namespace starfact::detail {

/// A := L with A = L L^H (the tile's lower triangle); on failure *info (if 0) := offset + the tile's LAPACK info.
/// With o.watch (the mixed-precision solve's factor), a failure is reported there, and this and the trsm, herk and
/// gemm tasks of that factorization return without computing once one was (codelets/breakdown.hpp).
///   buffers: 0 = A (RW), 1 = info (RW, one int)
template <typename T>
void insert_complex_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                          int64_t offset);
// (its CUDA workspace: reserve_potrf_workspace<T>(rt, nb, DiagKernel::Cusolver), codelets/codelets.hpp)
/// B := op(L)^-1 B (Left) or B op(L)^-1 (Right), L the `uplo` triangle of tile L (unit diagonal when diag is Unit).
template <typename T>
void insert_complex_trsm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag,
                         starpu_data_handle_t L, starpu_data_handle_t B);
/// C := C - A A^H, C's lower triangle (Hermitian rank-k update).
template <typename T>
void insert_complex_herk(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t C);
/// C := C - op(A) op(B).
template <typename T>
void insert_complex_gemm(const Runtime& rt, const TaskOptions& o, Op a, Op b, starpu_data_handle_t A,
                         starpu_data_handle_t B, starpu_data_handle_t C);

}  // namespace starfact::detail
