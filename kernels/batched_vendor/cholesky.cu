// The vendor path of the batched Cholesky (vendor.hpp): cusolverDn<t>potrfBatched with the batched kernels' info
// rule applied after it, and two cublas<t>trsmBatched for the solve, on pointer arrays built on the device, piece by
// piece.
#include <complex>

#include "kernels/batched_vendor/common.cuh"
#include "kernels/cuda_blas.hpp"

namespace starfact::batched::vendor {
namespace {

/// The batched kernels' info rule on what the vendor computed: info[i] := the first column j + 1 (j below the
/// vendor's info when that is > 0, else below n) whose diagonal entry's real part is not a positive finite number,
/// else the vendor's info (LAPACK's: the first leading minor found not definite).
template <typename T>
__global__ void diagonal_info_kernel(T* const* L, int n, int lda, int* info, int64_t count) {
    using R = detail::real_t<T>;
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const int reported = info[i];
    const int last = reported > 0 ? reported : n;
    const T* a = L[i];
    for (int j = 0; j < last; ++j) {
        const R d = reinterpret_cast<const R*>(a + j + static_cast<int64_t>(j) * lda)[0];
        if (!(d > R(0)) || !isfinite(d)) {
            info[i] = j + 1;
            return;
        }
    }
    info[i] = reported > 0 ? reported : 0;
}

}  // namespace

template <typename T>
void potrf(const Handles& h, const gpu::Args<T>& a) {
    if (a.batch == 0 || a.n == 0) return;
    const int64_t piece = piece_size(a.batch, 0);
    Scratch<T*> ptrs(piece, h.stream);
    for (int64_t first = 0; first < a.batch; first += piece) {
        const int count = static_cast<int>(std::min(piece, a.batch - first));
        pointers<T>(ptrs.get(), a.A.base, a.A.stride, a.A.ptrs, first, count, nullptr, nullptr, h.stream);
        int* info = a.info + first;
        check(detail::gpu::potrf_batched<T>(h.solver, a.n, ptrs.get(), a.lda, info, count),
              "cusolverDn<t>potrfBatched");
        diagonal_info_kernel<T><<<blocks(count), kThreads, 0, h.stream>>>(ptrs.get(), a.n, a.lda, info, count);
        check(cudaGetLastError(), "info kernel launch");
    }
}

template <typename T>
void potrs(const Handles& h, const gpu::Args<T>& a) {
    if (a.batch == 0 || a.n == 0 || a.nrhs == 0) return;
    const int64_t piece = piece_size(a.batch, 0);
    Scratch<T*> lp(piece, h.stream), bp(piece, h.stream);
    // members whose info is not 0 solve into this matrix instead of their B (its contents are never read)
    Scratch<T> dummy(a.info ? static_cast<int64_t>(a.ldb) * a.nrhs : 0, h.stream);
    for (int64_t first = 0; first < a.batch; first += piece) {
        const int count = static_cast<int>(std::min(piece, a.batch - first));
        pointers<T>(lp.get(), a.A.base, a.A.stride, a.A.ptrs, first, count, nullptr, nullptr, h.stream);
        pointers<T>(bp.get(), a.B.base, a.B.stride, a.B.ptrs, first, count, a.info ? a.info + first : nullptr,
                    dummy.get(), h.stream);
        // L Y = B, then L^H X = Y: cuBLAS's batched triangular solves, any nrhs. (cuSOLVER's potrsBatched, which
        // takes one right-hand side, writes the upper triangle of the factors, seen on an H200 with CUDA 13: the
        // factors are const here, and the batched API leaves that triangle untouched.)
        using detail::Diag;
        using detail::Op;
        using detail::Side;
        using detail::Uplo;
        const T* const* L = lp.get();
        check(detail::gpu::trsm_batched<T>(h.blas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, a.n, a.nrhs,
                                           T(1), L, a.lda, bp.get(), a.ldb, count),
              "cublas<t>trsmBatched");
        check(detail::gpu::trsm_batched<T>(h.blas, Side::Left, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, a.n,
                                           a.nrhs, T(1), L, a.lda, bp.get(), a.ldb, count),
              "cublas<t>trsmBatched");
    }
}

template <typename T>
void posv(const Handles& h, const gpu::Args<T>& a) {
    potrf<T>(h, a);
    potrs<T>(h, a);  // skips the members whose info is not 0
}

#define STARFACT_BATCHED_VENDOR_CHOLESKY(T)                   \
    template void potrf<T>(const Handles&, const gpu::Args<T>&); \
    template void potrs<T>(const Handles&, const gpu::Args<T>&); \
    template void posv<T>(const Handles&, const gpu::Args<T>&);
STARFACT_BATCHED_VENDOR_CHOLESKY(std::complex<float>)
STARFACT_BATCHED_VENDOR_CHOLESKY(std::complex<double>)
#undef STARFACT_BATCHED_VENDOR_CHOLESKY

}  // namespace starfact::batched::vendor
