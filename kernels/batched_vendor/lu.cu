// The vendor path of the batched LU (vendor.hpp): cublas<t>getrfBatched, getrsBatched and getriBatched on pointer
// arrays built on the device, piece by piece. The vendor keeps member i's pivots at i * n: pivots of another member
// stride go through a scratch copy (cudaMemcpy2DAsync).
#include <complex>

#include "kernels/batched_vendor/common.cuh"
#include "kernels/cuda_blas.hpp"

namespace starfact::batched::vendor {
namespace {

/// count members' n pivots from `from` (members `from_stride` apart) to `to` (`to_stride` apart), on the stream.
void copy_pivots(int* to, int64_t to_stride, const int* from, int64_t from_stride, int n, int64_t count,
                 cudaStream_t stream) {
    check(cudaMemcpy2DAsync(to, static_cast<size_t>(to_stride) * sizeof(int), from,
                            static_cast<size_t>(from_stride) * sizeof(int), static_cast<size_t>(n) * sizeof(int),
                            static_cast<size_t>(count), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpy2DAsync (pivots)");
}

}  // namespace

template <typename T>
void getrf(const Handles& h, int n, gpu::LuBatch<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch) {
    if (batch == 0 || n == 0) return;
    const bool packed = stride_piv == n;  // the vendor's pivot layout: written in place
    const int64_t piece = piece_size(batch, packed ? 0 : n * int64_t(sizeof(int)));
    Scratch<T*> ptrs(piece, h.stream);
    Scratch<int> piv(packed ? 0 : piece * n, h.stream);
    for (int64_t first = 0; first < batch; first += piece) {
        const int count = static_cast<int>(std::min(piece, batch - first));
        pointers<T>(ptrs.get(), A.base, A.stride, A.ptrs, first, count, nullptr, nullptr, h.stream);
        int* p = packed ? ipiv + first * n : piv.get();
        check(detail::gpu::getrf_batched<T>(h.blas, n, ptrs.get(), A.ld, p, info + first, count),
              "cublas<t>getrfBatched");
        if (!packed) copy_pivots(ipiv + first * stride_piv, stride_piv, p, n, n, count, h.stream);
    }
}

template <typename T>
void getrs(const Handles& h, int n, gpu::LuBatch<T> LU, const int* ipiv, int64_t stride_piv, gpu::LuBatch<T> B,
           int nrhs, bool identity, int64_t batch) {
    if (batch == 0 || n == 0 || nrhs == 0) return;
    const bool packed = stride_piv == n;
    const int64_t piece = piece_size(batch, packed ? 0 : n * int64_t(sizeof(int)));
    Scratch<T*> lp(piece, h.stream), bp(piece, h.stream);
    Scratch<int> piv(packed ? 0 : piece * n, h.stream), info(identity ? piece : 0, h.stream);
    for (int64_t first = 0; first < batch; first += piece) {
        const int count = static_cast<int>(std::min(piece, batch - first));
        pointers<T>(lp.get(), LU.base, LU.stride, LU.ptrs, first, count, nullptr, nullptr, h.stream);
        pointers<T>(bp.get(), B.base, B.stride, B.ptrs, first, count, nullptr, nullptr, h.stream);
        const int* p = ipiv + first * stride_piv;
        if (!packed) {
            copy_pivots(piv.get(), n, p, stride_piv, n, count, h.stream);
            p = piv.get();
        }
        if (identity) {
            check(detail::gpu::getri_batched<T>(h.blas, n, lp.get(), LU.ld, p, bp.get(), B.ld, info.get(), count),
                  "cublas<t>getriBatched");
        } else {
            int arg = 0;  // the vendor's check of its arguments (host)
            check(detail::gpu::getrs_batched<T>(h.blas, detail::Op::NoTrans, n, nrhs, lp.get(), LU.ld, p, bp.get(),
                                                B.ld, &arg, count),
                  "cublas<t>getrsBatched");
            if (arg != 0)
                throw RuntimeError("starfact::batched: cublas<t>getrsBatched refused argument " + std::to_string(-arg));
        }
    }
}

template <typename T>
void inverse(const Handles& h, int n, gpu::LuBatch<T> A, gpu::LuBatch<T> C, int* ipiv, int64_t stride_piv, int* info,
             int64_t batch) {
    if (batch == 0 || n == 0) return;
    // A is read only (C may be A): the factorization works on a packed copy W, whose inverse getri writes into C
    const int64_t nn = static_cast<int64_t>(n) * n;
    const int64_t piece = piece_size(batch, nn * int64_t(sizeof(T)) + n * int64_t(sizeof(int)));
    Scratch<T> W(piece * nn, h.stream), dummy(static_cast<int64_t>(C.ld) * n, h.stream);
    Scratch<T*> ap(piece, h.stream), wp(piece, h.stream), cp(piece, h.stream);
    Scratch<int> piv(piece * n, h.stream), getri_info(piece, h.stream);
    for (int64_t first = 0; first < batch; first += piece) {
        const int count = static_cast<int>(std::min(piece, batch - first));
        int* inf = info + first;
        pointers<T>(ap.get(), A.base, A.stride, A.ptrs, first, count, nullptr, nullptr, h.stream);
        pointers<T>(wp.get(), W.get(), nn, nullptr, 0, count, nullptr, nullptr, h.stream);
        copy_members<T>(ap.get(), A.ld, wp.get(), n, n, count, h.stream);
        check(detail::gpu::getrf_batched<T>(h.blas, n, wp.get(), n, piv.get(), inf, count), "cublas<t>getrfBatched");
        // singular members invert into the scratch matrix: their C stays unwritten
        pointers<T>(cp.get(), C.base, C.stride, C.ptrs, first, count, inf, dummy.get(), h.stream);
        check(detail::gpu::getri_batched<T>(h.blas, n, wp.get(), n, piv.get(), cp.get(), C.ld, getri_info.get(), count),
              "cublas<t>getriBatched");
        if (ipiv) copy_pivots(ipiv + first * stride_piv, stride_piv, piv.get(), n, n, count, h.stream);
    }
}

#define STARFACT_BATCHED_VENDOR_LU(T)                                                                                \
    template void getrf<T>(const Handles&, int, gpu::LuBatch<T>, int*, int64_t, int*, int64_t);                      \
    template void getrs<T>(const Handles&, int, gpu::LuBatch<T>, const int*, int64_t, gpu::LuBatch<T>, int, bool,    \
                           int64_t);                                                                                 \
    template void inverse<T>(const Handles&, int, gpu::LuBatch<T>, gpu::LuBatch<T>, int*, int64_t, int*, int64_t);
STARFACT_BATCHED_VENDOR_LU(std::complex<float>)
STARFACT_BATCHED_VENDOR_LU(std::complex<double>)
#undef STARFACT_BATCHED_VENDOR_LU

}  // namespace starfact::batched::vendor
