// Internal: what the vendor path's two translation units (cholesky.cu, lu.cu) share: stream-ordered scratch, the
// status checks, the pieces a batch is cut into, and the small kernels that build the vendor's pointer arrays and copy
// members. Everything has internal linkage (one copy per translation unit).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/batched_vendor/vendor.hpp"
#include "kernels/scalar.hpp"
#include "starfact/error.hpp"

namespace starfact::batched::vendor {
namespace {

/// Members per vendor call: at most 2^20 (the vendor's counts are ints; pointer arrays of 8 MiB), and at most
/// `budget` bytes of per-member scratch.
inline int64_t piece_size(int64_t batch, int64_t member_bytes, int64_t budget = int64_t(256) << 20) {
    const int64_t by_bytes = std::max<int64_t>(1, budget / std::max<int64_t>(1, member_bytes));
    return std::max<int64_t>(1, std::min({batch, int64_t(1) << 20, by_bytes}));
}

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw RuntimeError(std::string("starfact::batched: ") + what + ": " + cudaGetErrorString(e));
}
inline void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw RuntimeError(std::string("starfact::batched: ") + what + " failed (cuBLAS status " + std::to_string(s) +
                           ")");
}
inline void check(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw RuntimeError(std::string("starfact::batched: ") + what + " failed (cuSOLVER status " +
                           std::to_string(s) + ")");
}

/// Device scratch of `count` elements of E, stream-ordered: allocated and freed on the stream (what the vendor calls
/// queued before the free still use it).
template <typename E>
class Scratch {
public:
    Scratch(int64_t count, cudaStream_t stream) : stream_(stream) {
        check(cudaMallocAsync(reinterpret_cast<void**>(&p_), static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(E),
                              stream),
              "cudaMallocAsync");
    }
    ~Scratch() { cudaFreeAsync(p_, stream_); }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    E* get() const { return p_; }

private:
    E* p_ = nullptr;
    cudaStream_t stream_;
};

constexpr int kThreads = 256;
inline unsigned blocks(int64_t count) { return static_cast<unsigned>((count + kThreads - 1) / kThreads); }

/// out[i] = the matrix of member first + i (ptrs[first + i], or base + (first + i) * stride), or `dummy` when info is
/// not null and info[i] != 0 (info already offset to the piece), for i < count.
template <typename T>
__global__ void pointers_kernel(T** out, T* base, int64_t stride, T* const* ptrs, int64_t first, int64_t count,
                                const int* info, T* dummy) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    T* p = ptrs ? ptrs[first + i] : base + (first + i) * stride;
    out[i] = info && info[i] != 0 ? dummy : p;
}
template <typename T>
void pointers(T** out, T* base, int64_t stride, T* const* ptrs, int64_t first, int64_t count, const int* info,
              T* dummy, cudaStream_t stream) {
    pointers_kernel<T><<<blocks(count), kThreads, 0, stream>>>(out, base, stride, ptrs, first, count, info, dummy);
    check(cudaGetLastError(), "pointer array kernel launch");
}

/// The n x n member i of `from` (ld from_ld) copied into the member i of `to` (ld to_ld), i < count, element by
/// element as pairs of reals (T is complex; a real T copies as itself).
template <typename T>
__global__ void copy_kernel(T* const* from, int from_ld, T* const* to, int to_ld, int n, int64_t count) {
    using R = detail::real_t<T>;
    constexpr int parts = detail::is_complex_v<T> ? 2 : 1;
    const int64_t total = count * n * n;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
         k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t i = k / (n * n);
        const int e = static_cast<int>(k - i * n * n), r = e % n, c = e / n;
        const R* s = reinterpret_cast<const R*>(from[i] + r + static_cast<int64_t>(c) * from_ld);
        R* d = reinterpret_cast<R*>(to[i] + r + static_cast<int64_t>(c) * to_ld);
        for (int p = 0; p < parts; ++p) d[p] = s[p];
    }
}
template <typename T>
void copy_members(T* const* from, int from_ld, T* const* to, int to_ld, int n, int64_t count, cudaStream_t stream) {
    const int64_t total = count * n * n;
    const unsigned g = static_cast<unsigned>(std::min<int64_t>(blocks(total), 65535));
    copy_kernel<T><<<g, kThreads, 0, stream>>>(from, from_ld, to, to_ld, n, count);
    check(cudaGetLastError(), "copy kernel launch");
}

}  // namespace
}  // namespace starfact::batched::vendor
