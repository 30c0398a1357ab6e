// Host side of the batched Cholesky kernels: dispatch of a runtime order to the range that
// instantiates it (ranges.hpp), and the public starfact::batched::device API with its argument checks.
#include "codelets/cuda/batched_chol/launch.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <string>

#include "codelets/cuda/batched_chol/ranges.hpp"
#include "codelets/cuda/batched_chol/tuned_table.hpp"
#include "starfact/batched_cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact::batched::gpu {

PotrfConfig potrf_config(int n, bool is_double) {
    const int p = padded_order(n);
    if (p == 0) return PotrfConfig{0, 0, 0};
    return is_double ? kTunedDouble[p] : kTunedFloat[p];
}

int potrs_group(int n) { return potrs_group_for(padded_order(n)); }

namespace {
template <typename T, Op OP>
bool dispatch(const Args<T>& a) {
    const int padded = padded_order(a.n);
#define STARFACT_BATCHED_CALL(R_OP, LO, HI) \
    if (Op::R_OP == OP && padded >= LO && padded <= HI) return range<T, Op::R_OP, LO, HI>(a);
    STARFACT_BATCHED_RANGES(STARFACT_BATCHED_CALL)
#undef STARFACT_BATCHED_CALL
    return false;
}
}  // namespace

template <typename T> bool launch_potrf(const Args<T>& a) { return a.batch == 0 || dispatch<T, Op::Potrf>(a); }
template <typename T> bool launch_potrs(const Args<T>& a) { return a.batch == 0 || dispatch<T, Op::Potrs>(a); }
template <typename T> bool launch_posv(const Args<T>& a) { return a.batch == 0 || dispatch<T, Op::Posv>(a); }

template bool launch_potrf<float>(const Args<float>&);
template bool launch_potrf<double>(const Args<double>&);
template bool launch_potrs<float>(const Args<float>&);
template bool launch_potrs<double>(const Args<double>&);
template bool launch_posv<float>(const Args<float>&);
template bool launch_posv<double>(const Args<double>&);

}  // namespace starfact::batched::gpu

namespace starfact::batched::device {
namespace {

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }

void check_order(const char* f, int64_t n) {
    require(n >= 0 && n <= kMaxCholeskyOrder, f, "n", "must be in [0, 128]" + got(n));
}
void check_ld(const char* f, const char* name, int64_t ld, int64_t n) {
    const int64_t lo = n > 1 ? n : 1;
    require(ld >= lo && ld * lo <= INT_MAX, f, name,
            "must be >= max(1, n) = " + std::to_string(lo) + " with " + name + " * n < 2^31" + got(ld));
}
void check_stride(const char* f, const char* name, int64_t stride, int64_t minimum) {
    require(stride >= minimum, f, name, "must be >= " + std::to_string(minimum) + got(stride));
}
void check_count(const char* f, const char* name, int64_t v, int64_t hi = INT64_MAX) {
    require(v >= 0 && v <= hi, f, name, "must be >= 0" + std::string(hi < INT64_MAX ? " and <= 2^31-1" : "") + got(v));
}
void check_ptr(const char* f, const char* name, const void* p, bool needed) {
    require(p != nullptr || !needed, f, name, "is null");
}
void after_launch(const char* f) {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw RuntimeError(std::string("starfact::") + f + ": kernel launch failed: " + cudaGetErrorString(e));
}

template <typename T>
gpu::Layout<T> strided(T* p, int64_t stride) {
    gpu::Layout<T> l;
    l.base = p;
    l.stride = stride;
    return l;
}
template <typename T>
gpu::Layout<T> array(T* const* p) {
    gpu::Layout<T> l;
    l.ptrs = p;
    return l;
}

/// Launches a batch; an empty order still reports info = 0 for every member.
template <typename T>
void run(const char* f, bool (*launch)(const gpu::Args<T>&), const gpu::Args<T>& a) {
    if (a.n == 0 && a.batch > 0 && a.info) {
        if (cudaMemsetAsync(a.info, 0, a.batch * sizeof(int), a.stream) != cudaSuccess) after_launch(f);
        return;
    }
    if (a.n == 0 || a.batch == 0) return;
    if (!launch(a)) throw InvalidArgument(f, "n", "has no compiled kernel" + got(a.n));
    after_launch(f);
}

}  // namespace

template <typename T>
void potrf(int64_t n, T* A, int64_t lda, int64_t strideA, int64_t batch, int* info, CUstream_st* stream) {
    const char* f = "batched::device::potrf";
    check_order(f, n);
    check_ld(f, "lda", lda, n);
    check_stride(f, "strideA", strideA, lda * n);
    check_count(f, "batch", batch);
    check_ptr(f, "A", A, n > 0 && batch > 0);
    check_ptr(f, "info", info, batch > 0);
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.A = strided(A, strideA);
    a.lda = static_cast<int>(lda);
    a.info = info;
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_potrf<T>, a);
}

template <typename T>
void potrf(int64_t n, T* const* A, int64_t lda, int64_t batch, int* info, CUstream_st* stream) {
    const char* f = "batched::device::potrf";
    check_order(f, n);
    check_ld(f, "lda", lda, n);
    check_count(f, "batch", batch);
    check_ptr(f, "A", A, n > 0 && batch > 0);
    check_ptr(f, "info", info, batch > 0);
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.A = array(A);
    a.lda = static_cast<int>(lda);
    a.info = info;
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_potrf<T>, a);
}

template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* L, int64_t lda, int64_t strideL, T* B, int64_t ldb, int64_t strideB,
           int64_t batch, CUstream_st* stream) {
    const char* f = "batched::device::potrs";
    check_order(f, n);
    check_count(f, "nrhs", nrhs, INT_MAX);
    check_ld(f, "lda", lda, n);
    check_stride(f, "strideL", strideL, lda * n);
    check_ld(f, "ldb", ldb, n);
    check_stride(f, "strideB", strideB, ldb * nrhs);
    check_count(f, "batch", batch);
    check_ptr(f, "L", L, n > 0 && nrhs > 0 && batch > 0);
    check_ptr(f, "B", B, n > 0 && nrhs > 0 && batch > 0);
    if (nrhs == 0) return;
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.nrhs = static_cast<int>(nrhs);
    a.A = strided(const_cast<T*>(L), strideL);
    a.lda = static_cast<int>(lda);
    a.B = strided(B, strideB);
    a.ldb = static_cast<int>(ldb);
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_potrs<T>, a);
}

template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* const* L, int64_t lda, T* const* B, int64_t ldb, int64_t batch,
           CUstream_st* stream) {
    const char* f = "batched::device::potrs";
    check_order(f, n);
    check_count(f, "nrhs", nrhs, INT_MAX);
    check_ld(f, "lda", lda, n);
    check_ld(f, "ldb", ldb, n);
    check_count(f, "batch", batch);
    check_ptr(f, "L", L, n > 0 && nrhs > 0 && batch > 0);
    check_ptr(f, "B", B, n > 0 && nrhs > 0 && batch > 0);
    if (nrhs == 0) return;
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.nrhs = static_cast<int>(nrhs);
    a.A = array(const_cast<T* const*>(L));
    a.lda = static_cast<int>(lda);
    a.B = array(B);
    a.ldb = static_cast<int>(ldb);
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_potrs<T>, a);
}

template <typename T>
void posv(int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb, int64_t strideB,
          int64_t batch, int* info, CUstream_st* stream) {
    const char* f = "batched::device::posv";
    check_order(f, n);
    check_count(f, "nrhs", nrhs, INT_MAX);
    check_ld(f, "lda", lda, n);
    check_stride(f, "strideA", strideA, lda * n);
    check_ld(f, "ldb", ldb, n);
    check_stride(f, "strideB", strideB, ldb * nrhs);
    check_count(f, "batch", batch);
    check_ptr(f, "A", A, n > 0 && batch > 0);
    check_ptr(f, "B", B, n > 0 && nrhs > 0 && batch > 0);
    check_ptr(f, "info", info, batch > 0);
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.nrhs = static_cast<int>(nrhs);
    a.A = strided(A, strideA);
    a.lda = static_cast<int>(lda);
    a.B = strided(B, strideB);
    a.ldb = static_cast<int>(ldb);
    a.info = info;
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_posv<T>, a);
}

template <typename T>
void posv(int64_t n, int64_t nrhs, T* const* A, int64_t lda, T* const* B, int64_t ldb, int64_t batch, int* info,
          CUstream_st* stream) {
    const char* f = "batched::device::posv";
    check_order(f, n);
    check_count(f, "nrhs", nrhs, INT_MAX);
    check_ld(f, "lda", lda, n);
    check_ld(f, "ldb", ldb, n);
    check_count(f, "batch", batch);
    check_ptr(f, "A", A, n > 0 && batch > 0);
    check_ptr(f, "B", B, n > 0 && nrhs > 0 && batch > 0);
    check_ptr(f, "info", info, batch > 0);
    gpu::Args<T> a;
    a.n = static_cast<int>(n);
    a.nrhs = static_cast<int>(nrhs);
    a.A = array(A);
    a.lda = static_cast<int>(lda);
    a.B = array(B);
    a.ldb = static_cast<int>(ldb);
    a.info = info;
    a.batch = batch;
    a.stream = stream;
    run<T>(f, gpu::launch_posv<T>, a);
}

#define STARFACT_BATCHED_INSTANTIATE(T)                                                                        \
    template void potrf<T>(int64_t, T*, int64_t, int64_t, int64_t, int*, CUstream_st*);                        \
    template void potrf<T>(int64_t, T* const*, int64_t, int64_t, int*, CUstream_st*);                          \
    template void potrs<T>(int64_t, int64_t, const T*, int64_t, int64_t, T*, int64_t, int64_t, int64_t,        \
                           CUstream_st*);                                                                      \
    template void potrs<T>(int64_t, int64_t, const T* const*, int64_t, T* const*, int64_t, int64_t,            \
                           CUstream_st*);                                                                      \
    template void posv<T>(int64_t, int64_t, T*, int64_t, int64_t, T*, int64_t, int64_t, int64_t, int*,         \
                          CUstream_st*);                                                                       \
    template void posv<T>(int64_t, int64_t, T* const*, int64_t, T* const*, int64_t, int64_t, int*, CUstream_st*);
STARFACT_BATCHED_INSTANTIATE(float)
STARFACT_BATCHED_INSTANTIATE(double)
#undef STARFACT_BATCHED_INSTANTIATE

}  // namespace starfact::batched::device
