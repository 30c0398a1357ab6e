// Host entry points of the batched LU kernels (include/starfact/batched_lu.hpp, device part):
// argument checks naming the offending argument, then the per-precision dispatchers.
#include <climits>
#include <string>

#include "codelets/cuda/batched_lu/launch.hpp"
#include "starfact/batched_lu.hpp"
#include "starfact/error.hpp"

namespace starfact::batched {
namespace {

using kernels::BatchRef;

std::string got(int64_t v) { return "(got " + std::to_string(v) + ")"; }

void check_common(const char* fn, int n, int64_t batch) {
    require(n >= 0 && n <= kMaxOrder, fn, "n", "must be in [0, 32] " + got(n));
    require(batch >= 0 && batch <= INT_MAX, fn, "batch", "must be in [0, 2^31 - 1] " + got(batch));
}
void check_ld(const char* fn, const char* name, int ld, int rows) {
    require(ld >= (rows > 1 ? rows : 1), fn, name, "must be >= max(1, n) " + got(ld));
}
void check_stride(const char* fn, const char* name, int64_t stride, int64_t need) {
    require(stride >= need, fn, name, "must be >= " + std::to_string(need) + " " + got(stride));
}
void check_ptr(const char* fn, const char* name, const void* p) { require(p != nullptr, fn, name, "must not be null"); }
void check_launch(const char* fn, cudaError_t e) {
    if (e != cudaSuccess) throw RuntimeError(std::string("starfact::") + fn + ": kernel launch failed: " + cudaGetErrorString(e));
}
template <typename T>
BatchRef<T> strided(const T* A, int ld, int64_t stride) {
    return BatchRef<T>{const_cast<T*>(A), nullptr, stride, ld};
}
template <typename T>
BatchRef<T> pointers(const T* const* A, int ld) {
    return BatchRef<T>{nullptr, const_cast<T* const*>(A), 0, ld};
}

}  // namespace

template <typename T>
void getrf_batched(int n, T* A, int lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                   Stream stream) {
    const char* fn = "getrf_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_stride(fn, "strideA", strideA, int64_t(lda) * n);
    check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "A", A);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "info", info);
    check_launch(fn, kernels::getrf_dispatch<T>(n, strided(A, lda, strideA), ipiv, stride_piv, info, batch, stream));
}

template <typename T>
void getrf_batched(int n, T* const* Aarray, int lda, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                   Stream stream) {
    const char* fn = "getrf_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "Aarray", Aarray);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "info", info);
    check_launch(fn, kernels::getrf_dispatch<T>(n, pointers(Aarray, lda), ipiv, stride_piv, info, batch, stream));
}

template <typename T>
void getrs_batched(int n, int nrhs, const T* LU, int lda, int64_t strideA, const int* ipiv, int64_t stride_piv, T* B,
                   int ldb, int64_t strideB, int64_t batch, Stream stream) {
    const char* fn = "getrs_batched";
    check_common(fn, n, batch);
    require(nrhs >= 0, fn, "nrhs", "must be >= 0 " + got(nrhs));
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldb", ldb, n);
    check_stride(fn, "strideA", strideA, int64_t(lda) * n);
    check_stride(fn, "stride_piv", stride_piv, n);
    check_stride(fn, "strideB", strideB, int64_t(ldb) * nrhs);
    if (n == 0 || nrhs == 0 || batch == 0) return;
    check_ptr(fn, "LU", LU);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "B", B);
    const auto b = strided<T>(B, ldb, strideB);
    check_launch(fn, kernels::getrs_dispatch<T>(n, strided(LU, lda, strideA), ipiv, stride_piv, b, b, nrhs, false,
                                                batch, stream));
}

template <typename T>
void getrs_batched(int n, int nrhs, const T* const* LUarray, int lda, const int* ipiv, int64_t stride_piv,
                   T* const* Barray, int ldb, int64_t batch, Stream stream) {
    const char* fn = "getrs_batched";
    check_common(fn, n, batch);
    require(nrhs >= 0, fn, "nrhs", "must be >= 0 " + got(nrhs));
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldb", ldb, n);
    check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || nrhs == 0 || batch == 0) return;
    check_ptr(fn, "LUarray", LUarray);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "Barray", Barray);
    const auto b = pointers<T>(Barray, ldb);
    check_launch(fn, kernels::getrs_dispatch<T>(n, pointers(LUarray, lda), ipiv, stride_piv, b, b, nrhs, false, batch,
                                                stream));
}

template <typename T>
void getri_batched(int n, const T* LU, int lda, int64_t strideA, const int* ipiv, int64_t stride_piv, T* C, int ldc,
                   int64_t strideC, int64_t batch, Stream stream) {
    const char* fn = "getri_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldc", ldc, n);
    check_stride(fn, "strideA", strideA, int64_t(lda) * n);
    check_stride(fn, "stride_piv", stride_piv, n);
    check_stride(fn, "strideC", strideC, int64_t(ldc) * n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "LU", LU);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "C", C);
    require(static_cast<const void*>(C) != static_cast<const void*>(LU), fn, "C", "must not alias LU (out of place)");
    const auto c = strided<T>(C, ldc, strideC);
    check_launch(fn, kernels::getrs_dispatch<T>(n, strided(LU, lda, strideA), ipiv, stride_piv, c, c, n, true, batch,
                                                stream));
}

template <typename T>
void getri_batched(int n, const T* const* LUarray, int lda, const int* ipiv, int64_t stride_piv, T* const* Carray,
                   int ldc, int64_t batch, Stream stream) {
    const char* fn = "getri_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldc", ldc, n);
    check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "LUarray", LUarray);
    check_ptr(fn, "ipiv", ipiv);
    check_ptr(fn, "Carray", Carray);
    const auto c = pointers<T>(Carray, ldc);
    check_launch(fn, kernels::getrs_dispatch<T>(n, pointers(LUarray, lda), ipiv, stride_piv, c, c, n, true, batch,
                                                stream));
}

template <typename T>
void inverse_batched(int n, const T* A, int lda, int64_t strideA, T* C, int ldc, int64_t strideC, int* ipiv,
                     int64_t stride_piv, int* info, int64_t batch, Stream stream) {
    const char* fn = "inverse_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldc", ldc, n);
    check_stride(fn, "strideA", strideA, int64_t(lda) * n);
    check_stride(fn, "strideC", strideC, int64_t(ldc) * n);
    if (ipiv) check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "A", A);
    check_ptr(fn, "C", C);
    check_ptr(fn, "info", info);
    if (static_cast<const void*>(A) == static_cast<const void*>(C))
        require(lda == ldc && strideA == strideC, fn, "C", "may alias A only with ldc == lda and strideC == strideA");
    check_launch(fn, kernels::inverse_dispatch<T>(n, strided(A, lda, strideA), strided<T>(C, ldc, strideC), ipiv,
                                                  stride_piv, info, batch, stream));
}

template <typename T>
void inverse_batched(int n, const T* const* Aarray, int lda, T* const* Carray, int ldc, int* ipiv, int64_t stride_piv,
                     int* info, int64_t batch, Stream stream) {
    const char* fn = "inverse_batched";
    check_common(fn, n, batch);
    check_ld(fn, "lda", lda, n);
    check_ld(fn, "ldc", ldc, n);
    if (ipiv) check_stride(fn, "stride_piv", stride_piv, n);
    if (n == 0 || batch == 0) return;
    check_ptr(fn, "Aarray", Aarray);
    check_ptr(fn, "Carray", Carray);
    check_ptr(fn, "info", info);
    check_launch(fn, kernels::inverse_dispatch<T>(n, pointers(Aarray, lda), pointers<T>(Carray, ldc), ipiv, stride_piv,
                                                  info, batch, stream));
}

#define STARFACT_BLU_INSTANTIATE(T)                                                                                   \
    template void getrf_batched<T>(int, T*, int, int64_t, int*, int64_t, int*, int64_t, Stream);                      \
    template void getrf_batched<T>(int, T* const*, int, int*, int64_t, int*, int64_t, Stream);                        \
    template void getrs_batched<T>(int, int, const T*, int, int64_t, const int*, int64_t, T*, int, int64_t, int64_t,   \
                                   Stream);                                                                           \
    template void getrs_batched<T>(int, int, const T* const*, int, const int*, int64_t, T* const*, int, int64_t,      \
                                   Stream);                                                                           \
    template void getri_batched<T>(int, const T*, int, int64_t, const int*, int64_t, T*, int, int64_t, int64_t,       \
                                   Stream);                                                                           \
    template void getri_batched<T>(int, const T* const*, int, const int*, int64_t, T* const*, int, int64_t, Stream);  \
    template void inverse_batched<T>(int, const T*, int, int64_t, T*, int, int64_t, int*, int64_t, int*, int64_t,     \
                                     Stream);                                                                         \
    template void inverse_batched<T>(int, const T* const*, int, T* const*, int, int*, int64_t, int*, int64_t, Stream);
STARFACT_BLU_INSTANTIATE(float)
STARFACT_BLU_INSTANTIATE(double)

}  // namespace starfact::batched
