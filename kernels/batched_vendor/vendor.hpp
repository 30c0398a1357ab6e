// Internal: the vendor path of the batched API, for the element types starfact's own batched kernels do not handle
// (the complex ones: kernels/batched_chol/ and kernels/batched_lu/ are real by design). Each operation of the
// batched Cholesky and LU on a batch in device memory, in either layout, asynchronous on a stream, through the
// scalar layer's batched cuSOLVER and cuBLAS routines (kernels/cuda_blas.hpp):
//   potrf    cusolverDn<t>potrfBatched, then one kernel that applies the batched kernels' info rule (the first
//            column whose pivot's real part is not a positive finite number: NaN and Inf caught)
//   potrs    two cublas<t>trsmBatched (L, then L^H), any number of right-hand sides (cusolverDn<t>potrsBatched takes
//            one only, and writes the upper triangle of the factors: seen on an H200 with CUDA 13)
//   getrf    cublas<t>getrfBatched
//   getrs    cublas<t>getrsBatched
//   getri    cublas<t>getriBatched (out of place)
//   inverse  a copy of A, cublas<t>getrfBatched on it, cublas<t>getriBatched into C
// The pointer arrays the vendor takes are built on the device (kernels/batched_vendor/common.cuh) from a strided
// batch, or from the caller's array; members whose info is not 0 have their outputs pointed at a scratch matrix, so
// that they keep their right-hand sides (posv), or their C (inverse), as the real kernels leave them. Batches go to
// the vendor in pieces of at most 2^20 members (its counts are ints; the scratch stays small). Scratch memory is
// stream-ordered (cudaMallocAsync). Failures throw starfact::RuntimeError naming the routine.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "kernels/batched_chol/launch.hpp"
#include "kernels/batched_lu/launch.hpp"
#include "starfact/error.hpp"

namespace starfact::batched::vendor {

/// The cuBLAS and cuSOLVER handles a vendor call runs with, both bound to `stream`.
struct Handles {
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    cudaStream_t stream = nullptr;
};

/// The calling thread's handles on its current device (created on first use, destroyed when the thread ends),
/// bound to `stream`: the device API's, which runs on the caller's thread. The StarPU chunk codelets take their
/// worker's handles instead (runtime/cuda_contexts.hpp).
inline Handles thread_handles(cudaStream_t stream) {
    struct Cache {
        std::map<int, std::pair<cublasHandle_t, cusolverDnHandle_t>> by_device;
        ~Cache() {
            for (auto& [device, h] : by_device) {
                (void)device;
                if (h.first) cublasDestroy(h.first);
                if (h.second) cusolverDnDestroy(h.second);
            }
        }
    };
    thread_local Cache cache;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) throw RuntimeError("starfact::batched: cudaGetDevice failed");
    auto& h = cache.by_device[device];
    if (!h.first && cublasCreate(&h.first) != CUBLAS_STATUS_SUCCESS) {
        h.first = nullptr;
        throw RuntimeError("starfact::batched: cublasCreate failed");
    }
    if (!h.second && cusolverDnCreate(&h.second) != CUSOLVER_STATUS_SUCCESS) {
        h.second = nullptr;
        throw RuntimeError("starfact::batched: cusolverDnCreate failed");
    }
    if (cublasSetStream(h.first, stream) != CUBLAS_STATUS_SUCCESS ||
        cusolverDnSetStream(h.second, stream) != CUSOLVER_STATUS_SUCCESS)
        throw RuntimeError("starfact::batched: binding the cuBLAS/cuSOLVER handles to the stream failed");
    return Handles{h.first, h.second, stream};
}

// ---- Cholesky (kernels/batched_vendor/cholesky.cu): the arguments of the real launchers (batched_chol/launch.hpp);
// a.stream is ignored (h.stream is used).

/// potrf of a.batch members a.A (order a.n, a.lda); info written to a.info (required).
template <typename T>
void potrf(const Handles& h, const gpu::Args<T>& a);
/// potrs with the factors a.A on the right-hand sides a.B (a.nrhs columns); when a.info is not null, members whose
/// info is not 0 keep their B.
template <typename T>
void potrs(const Handles& h, const gpu::Args<T>& a);
/// potrf, then potrs of the members that succeeded.
template <typename T>
void posv(const Handles& h, const gpu::Args<T>& a);

// ---- LU (kernels/batched_vendor/lu.cu): the arguments of the real launchers (batched_lu/launch.hpp).

/// getrf of each n x n member of A; pivots at ipiv + i * stride_piv, info[i].
template <typename T>
void getrf(const Handles& h, int n, gpu::LuBatch<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch);
/// getrs of B (nrhs columns) with the factors LU and pivots; identity: C := A^-1 into B (getri; nrhs = n).
template <typename T>
void getrs(const Handles& h, int n, gpu::LuBatch<T> LU, const int* ipiv, int64_t stride_piv, gpu::LuBatch<T> B,
           int nrhs, bool identity, int64_t batch);
/// C := A^-1 (C may be A); ipiv may be null (else it receives the pivots); members with info > 0 leave C unwritten.
template <typename T>
void inverse(const Handles& h, int n, gpu::LuBatch<T> A, gpu::LuBatch<T> C, int* ipiv, int64_t stride_piv, int* info,
             int64_t batch);

}  // namespace starfact::batched::vendor
#endif
