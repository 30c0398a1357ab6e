// Host side of the batched LU kernels: the public starfact::batched::device API (getrf, getrs, getri,
// inverse) with its argument checks, on top of the launchers of launch.hpp (float, double) and of the vendor path
// (kernels/batched_vendor/vendor.hpp: the complex types). Each operation has one implementation for both layouts
// (Matrices: strided, or a device array of pointers).
#include "kernels/batched_lu/launch.hpp"

#include <climits>
#include <complex>
#include <string>

#include "kernels/batched_vendor/vendor.hpp"
#include "kernels/scalar.hpp"
#include "starfact/batched_lu.hpp"
#include "starfact/error.hpp"

namespace starfact::batched::device {
namespace {

using gpu::LuBatch;

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }

/// One matrix argument as received: its pointer (base or pointer array; checked for null), leading
/// dimension and, in the strided layout, stride (checked against ld * cols).
template <typename T>
struct Matrices {
    const T* base;
    const T* const* ptrs;
    int64_t ld, stride;
    bool strided() const { return ptrs == nullptr; }
    const void* pointer() const { return strided() ? static_cast<const void*>(base) : static_cast<const void*>(ptrs); }
    LuBatch<T> batch() const {  // the kernels only read their inputs: the casts keep one view type
        return LuBatch<T>{const_cast<T*>(base), const_cast<T* const*>(ptrs), stride, static_cast<int>(ld)};
    }
};
template <typename T>
Matrices<T> strided(const T* A, int64_t ld, int64_t stride) {
    return Matrices<T>{A, nullptr, ld, stride};
}
template <typename T>
Matrices<T> pointers(const T* const* A, int64_t ld) {
    return Matrices<T>{nullptr, A, ld, 0};
}

/// The checks of one call, in argument order (n and batch first); messages are built only on failure.
struct Checks {
    const char* f;
    int64_t n;
    Checks(const char* function, int64_t order, int64_t batch) : f(function), n(order) {
        require(n >= 0 && n <= kMaxLuOrder, f, "n", [&] { return "must be in [0, 32]" + got(n); });
        require(batch >= 0 && batch <= INT_MAX, f, "batch", [&] { return "must be in [0, 2^31 - 1]" + got(batch); });
    }
    void nrhs(int64_t v) const {
        require(v >= 0 && v <= INT_MAX, f, "nrhs", [&] { return "must be in [0, 2^31 - 1]" + got(v); });
    }
    void stride(const char* name, int64_t v, int64_t minimum) const {
        require(v >= minimum, f, name, [&] { return "must be >= " + std::to_string(minimum) + got(v); });
    }
    /// ld >= max(1, n) with ld * n < 2^31 and, when strided, stride >= ld * cols.
    template <typename T>
    void matrices(const Matrices<T>& m, const char* ld_name, const char* stride_name, int64_t cols) const {
        const int64_t lo = n > 1 ? n : 1;
        require(m.ld >= lo && m.ld <= INT_MAX / lo, f, ld_name, [&] {
            return "must be >= max(1, n) = " + std::to_string(lo) + " with " + ld_name + " * n < 2^31" + got(m.ld);
        });
        if (m.strided()) stride(stride_name, m.stride, m.ld * cols);
    }
    void pointer(const char* name, const void* p) const { require(p != nullptr, f, name, "is null"); }
    void launched(cudaError_t e) const {
        if (e != cudaSuccess)
            throw RuntimeError(std::string("starfact::") + f + ": kernel launch failed: " + cudaGetErrorString(e));
    }
};

// The starts of the operations. Float and double: our batched kernels (kernels/batched_lu/). The complex types, which those kernels
// do not handle (they are real by design): the vendor's batched routines (kernels/batched_vendor/:
// cublas<t>getrfBatched, getrsBatched, getriBatched; the fused inverse as a copy, getrfBatched and getriBatched)
// with the calling thread's cuBLAS handle bound to the caller's stream.
template <typename T>
cudaError_t start_getrf(int n, LuBatch<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch, Stream s) {
    if constexpr (detail::is_complex_v<T>) {
        vendor::getrf<T>(vendor::thread_handles(s), n, A, ipiv, stride_piv, info, batch);
        return cudaGetLastError();
    } else {
        return gpu::launch_getrf<T>(n, A, ipiv, stride_piv, info, batch, s);
    }
}
template <typename T>
cudaError_t start_getrs(int n, LuBatch<T> LU, const int* ipiv, int64_t stride_piv, LuBatch<T> B, int nrhs,
                         bool identity, int64_t batch, Stream s) {
    if constexpr (detail::is_complex_v<T>) {
        vendor::getrs<T>(vendor::thread_handles(s), n, LU, ipiv, stride_piv, B, nrhs, identity, batch);
        return cudaGetLastError();
    } else {
        return gpu::launch_getrs<T>(n, LU, ipiv, stride_piv, B, B, nrhs, identity, batch, s);
    }
}
template <typename T>
cudaError_t start_inverse(int n, LuBatch<T> A, LuBatch<T> C, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                           Stream s) {
    if constexpr (detail::is_complex_v<T>) {
        vendor::inverse<T>(vendor::thread_handles(s), n, A, C, ipiv, stride_piv, info, batch);
        return cudaGetLastError();
    } else {
        return gpu::launch_inverse<T>(n, A, C, ipiv, stride_piv, info, batch, s);
    }
}

template <typename T>
void getrf_(int64_t n, const Matrices<T>& A, int* ipiv, int64_t stride_piv, int* info, int64_t batch, Stream s) {
    const Checks c("batched::device::getrf", n, batch);
    c.matrices(A, "lda", "strideA", n);
    c.stride("stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    c.pointer("A", A.pointer());
    c.pointer("ipiv", ipiv);
    c.pointer("info", info);
    c.launched(start_getrf<T>(int(n), A.batch(), ipiv, stride_piv, info, batch, s));
}

/// getrs (nrhs columns of B) or getri (identity: B is the output C, n columns of the identity).
template <typename T>
void getrs_(const char* f, bool identity, int64_t n, int64_t nrhs, const Matrices<T>& LU, const int* ipiv,
            int64_t stride_piv, const Matrices<T>& B, int64_t batch, Stream s) {
    const Checks c(f, n, batch);
    const char* b = identity ? "C" : "B";
    if (!identity) c.nrhs(nrhs);
    c.matrices(LU, "lda", "strideLU", n);
    c.matrices(B, identity ? "ldc" : "ldb", identity ? "strideC" : "strideB", nrhs);
    c.stride("stride_piv", stride_piv, n);
    if (n == 0 || nrhs == 0 || batch == 0) return;
    c.pointer("LU", LU.pointer());
    c.pointer("ipiv", ipiv);
    c.pointer(b, B.pointer());
    if (identity && LU.strided()) require(B.pointer() != LU.pointer(), f, "C", "must not alias LU (out of place)");
    const LuBatch<T> out = B.batch();
    c.launched(start_getrs<T>(int(n), LU.batch(), ipiv, stride_piv, out, int(nrhs), identity, batch, s));
}

template <typename T>
void inverse_(int64_t n, const Matrices<T>& A, const Matrices<T>& C, int* ipiv, int64_t stride_piv, int* info,
              int64_t batch, Stream s) {
    const Checks c("batched::device::inverse", n, batch);
    c.matrices(A, "lda", "strideA", n);
    c.matrices(C, "ldc", "strideC", n);
    if (ipiv) c.stride("stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    c.pointer("A", A.pointer());
    c.pointer("C", C.pointer());
    c.pointer("info", info);
    if (A.strided() && A.pointer() == C.pointer())
        require(A.ld == C.ld && A.stride == C.stride, c.f, "C",
                "may alias A only with ldc == lda and strideC == strideA");
    c.launched(start_inverse<T>(int(n), A.batch(), C.batch(), ipiv, stride_piv, info, batch, s));
}

}  // namespace

template <typename T>
void getrf(int64_t n, T* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
           Stream stream) {
    getrf_<T>(n, strided<T>(A, lda, strideA), ipiv, stride_piv, info, batch, stream);
}
template <typename T>
void getrf(int64_t n, T* const* A, int64_t lda, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
           Stream stream) {
    getrf_<T>(n, pointers<T>(A, lda), ipiv, stride_piv, info, batch, stream);
}

template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* LU, int64_t lda, int64_t strideLU, const int* ipiv, int64_t stride_piv,
           T* B, int64_t ldb, int64_t strideB, int64_t batch, Stream stream) {
    getrs_<T>("batched::device::getrs", false, n, nrhs, strided(LU, lda, strideLU), ipiv, stride_piv,
              strided<T>(B, ldb, strideB), batch, stream);
}
template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* const* LU, int64_t lda, const int* ipiv, int64_t stride_piv,
           T* const* B, int64_t ldb, int64_t batch, Stream stream) {
    getrs_<T>("batched::device::getrs", false, n, nrhs, pointers(LU, lda), ipiv, stride_piv, pointers<T>(B, ldb),
              batch, stream);
}

template <typename T>
void getri(int64_t n, const T* LU, int64_t lda, int64_t strideLU, const int* ipiv, int64_t stride_piv, T* C,
           int64_t ldc, int64_t strideC, int64_t batch, Stream stream) {
    getrs_<T>("batched::device::getri", true, n, n, strided(LU, lda, strideLU), ipiv, stride_piv,
              strided<T>(C, ldc, strideC), batch, stream);
}
template <typename T>
void getri(int64_t n, const T* const* LU, int64_t lda, const int* ipiv, int64_t stride_piv, T* const* C,
           int64_t ldc, int64_t batch, Stream stream) {
    getrs_<T>("batched::device::getri", true, n, n, pointers(LU, lda), ipiv, stride_piv, pointers<T>(C, ldc), batch,
              stream);
}

template <typename T>
void inverse(int64_t n, const T* A, int64_t lda, int64_t strideA, T* C, int64_t ldc, int64_t strideC, int* ipiv,
             int64_t stride_piv, int* info, int64_t batch, Stream stream) {
    inverse_<T>(n, strided(A, lda, strideA), strided<T>(C, ldc, strideC), ipiv, stride_piv, info, batch, stream);
}
template <typename T>
void inverse(int64_t n, const T* const* A, int64_t lda, T* const* C, int64_t ldc, int* ipiv, int64_t stride_piv,
             int* info, int64_t batch, Stream stream) {
    inverse_<T>(n, pointers(A, lda), pointers<T>(C, ldc), ipiv, stride_piv, info, batch, stream);
}

#define STARFACT_BATCHED_LU_DEVICE(T)                                                                              \
    template void getrf<T>(int64_t, T*, int64_t, int64_t, int*, int64_t, int*, int64_t, Stream);                   \
    template void getrf<T>(int64_t, T* const*, int64_t, int*, int64_t, int*, int64_t, Stream);                     \
    template void getrs<T>(int64_t, int64_t, const T*, int64_t, int64_t, const int*, int64_t, T*, int64_t, int64_t, \
                           int64_t, Stream);                                                                       \
    template void getrs<T>(int64_t, int64_t, const T* const*, int64_t, const int*, int64_t, T* const*, int64_t,    \
                           int64_t, Stream);                                                                       \
    template void getri<T>(int64_t, const T*, int64_t, int64_t, const int*, int64_t, T*, int64_t, int64_t, int64_t, \
                           Stream);                                                                                \
    template void getri<T>(int64_t, const T* const*, int64_t, const int*, int64_t, T* const*, int64_t, int64_t,    \
                           Stream);                                                                                \
    template void inverse<T>(int64_t, const T*, int64_t, int64_t, T*, int64_t, int64_t, int*, int64_t, int*,       \
                             int64_t, Stream);                                                                     \
    template void inverse<T>(int64_t, const T* const*, int64_t, T* const*, int64_t, int*, int64_t, int*, int64_t,  \
                             Stream);
STARFACT_BATCHED_LU_DEVICE(float)
STARFACT_BATCHED_LU_DEVICE(double)
STARFACT_BATCHED_LU_DEVICE(std::complex<float>)
STARFACT_BATCHED_LU_DEVICE(std::complex<double>)
#undef STARFACT_BATCHED_LU_DEVICE

}  // namespace starfact::batched::device
