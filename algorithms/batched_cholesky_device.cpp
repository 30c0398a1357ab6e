// The public starfact::batched::device API of the batched Cholesky, with its argument checks, on top of
// the launchers of kernels/batched_chol/launch.hpp (float, double) and of the vendor path
// (kernels/batched_vendor/vendor.hpp: the complex types).
#include "kernels/batched_chol/launch.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <complex>
#include <cstddef>
#include <string>

#include "kernels/batched_vendor/vendor.hpp"
#include "kernels/scalar.hpp"
#include "starfact/batched_cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact::batched::device {
namespace {

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }

void after_launch(const char* f) {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw RuntimeError(std::string("starfact::") + f + ": kernel launch failed: " + cudaGetErrorString(e));
}

enum class Kind { Potrf, Potrs, Posv };

/// One call of the device API as received: the matrices (strided when ptrs is null, then with
/// strideA / strideB), the right-hand sides (potrs, posv), info (potrf, posv).
template <typename T>
struct Call {
    Kind kind;
    int64_t n, nrhs, lda, ldb, batch;
    gpu::Layout<T> A, B;
    const void* a_ptr;  // the user's A / L argument (base pointer or pointer array)
    const void* b_ptr;
    int64_t strideA, strideB;
    int* info;
};

/// The one argument check of every entry point (in argument order: n, nrhs, lda, strideA, ldb,
/// strideB, batch, A, B, info), then the kernel arguments.
template <typename T>
gpu::Args<T> checked(const char* f, const Call<T>& c, Stream stream) {
    const bool solve = c.kind != Kind::Potrf, strided = c.A.ptrs == nullptr;
    const char* a_name = c.kind == Kind::Potrs ? "L" : "A";
    const char* sa_name = c.kind == Kind::Potrs ? "strideL" : "strideA";
    auto check_ld = [&](const char* name, int64_t ld) {
        const int64_t lo = c.n > 1 ? c.n : 1;
        require(ld >= lo && ld <= INT_MAX / lo, f, name, [&] {
            return "must be >= max(1, n) = " + std::to_string(lo) + " with " + name + " * n < 2^31" + got(ld);
        });
    };
    auto check_stride = [&](const char* name, int64_t stride, int64_t minimum) {
        require(stride >= minimum, f, name, [&] { return "must be >= " + std::to_string(minimum) + got(stride); });
    };
    // messages are built only on failure: this check runs on every call, and a call on a tiny batch
    // takes a few microseconds in all
    require(c.n >= 0 && c.n <= kMaxCholeskyOrder, f, "n", [&] { return "must be in [0, 128]" + got(c.n); });
    if (solve)
        require(c.nrhs >= 0 && c.nrhs <= INT_MAX, f, "nrhs", [&] { return "must be >= 0 and <= 2^31-1" + got(c.nrhs); });
    check_ld("lda", c.lda);
    if (strided) check_stride(sa_name, c.strideA, c.lda * c.n);
    if (solve) {
        check_ld("ldb", c.ldb);
        if (strided) check_stride("strideB", c.strideB, c.ldb * c.nrhs);
    }
    require(c.batch >= 0, f, "batch", [&] { return "must be >= 0" + got(c.batch); });
    const bool work = c.batch > 0 && c.n > 0 && (!solve || c.nrhs > 0);
    require(c.a_ptr != nullptr || !(c.kind == Kind::Potrs ? work : c.n > 0 && c.batch > 0), f, a_name, "is null");
    if (solve) require(c.b_ptr != nullptr || !work, f, "B", "is null");
    if (c.kind != Kind::Potrs) require(c.info != nullptr || c.batch == 0, f, "info", "is null");
    gpu::Args<T> a;
    a.n = static_cast<int>(c.n);
    a.nrhs = static_cast<int>(c.nrhs);
    a.A = c.A;
    a.lda = static_cast<int>(c.lda);
    a.B = c.B;
    a.ldb = static_cast<int>(c.ldb);
    a.info = c.info;
    a.batch = c.batch;
    a.stream = stream;
    return a;
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

/// The launcher of operation K on T. Float and double: our batched kernels (kernels/batched_chol/). The complex
/// types, which those kernels do not handle (they are real by design): the vendor's batched routines
/// (kernels/batched_vendor/: cusolverDn<t>potrfBatched, two cublas<t>trsmBatched for the solves) with the calling
/// thread's handles bound to the caller's stream.
template <typename T, Kind K>
bool launch(const gpu::Args<T>& a) {
    if constexpr (detail::is_complex_v<T>) {
        const vendor::Handles h = vendor::thread_handles(a.stream);
        if constexpr (K == Kind::Potrf) vendor::potrf<T>(h, a);
        else if constexpr (K == Kind::Potrs) vendor::potrs<T>(h, a);
        else vendor::posv<T>(h, a);
        return true;
    } else {
        if constexpr (K == Kind::Potrf) return gpu::launch_potrf<T>(a);
        else if constexpr (K == Kind::Potrs) return gpu::launch_potrs<T>(a);
        else return gpu::launch_posv<T>(a);
    }
}

/// Checks, then launches a batch; an empty order still reports info = 0 for every member, and
/// solves with nrhs = 0 do nothing.
template <typename T>
void run(const char* f, bool (*launch)(const gpu::Args<T>&), const Call<T>& c, Stream stream) {
    const gpu::Args<T> a = checked(f, c, stream);
    if (c.kind == Kind::Potrs && a.nrhs == 0) return;
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
void potrf(int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch, Stream stream) {
    run<T>("batched::device::potrf", launch<T, Kind::Potrf>,
           Call<T>{Kind::Potrf, n, 0, lda, 0, batch, strided(A, strideA), {}, A, nullptr, strideA, 0, info}, stream);
}

template <typename T>
void potrf(int64_t n, T* const* A, int64_t lda, int* info, int64_t batch, Stream stream) {
    run<T>("batched::device::potrf", launch<T, Kind::Potrf>,
           Call<T>{Kind::Potrf, n, 0, lda, 0, batch, array(A), {}, A, nullptr, 0, 0, info}, stream);
}

template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* L, int64_t lda, int64_t strideL, T* B, int64_t ldb, int64_t strideB,
           int64_t batch, Stream stream) {
    T* l = const_cast<T*>(L);  // the kernels only read it
    run<T>("batched::device::potrs", launch<T, Kind::Potrs>,
           Call<T>{Kind::Potrs, n, nrhs, lda, ldb, batch, strided(l, strideL), strided(B, strideB), L, B, strideL,
                   strideB, nullptr},
           stream);
}

template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* const* L, int64_t lda, T* const* B, int64_t ldb, int64_t batch,
           Stream stream) {
    T* const* l = const_cast<T* const*>(L);  // the kernels only read the factors
    run<T>("batched::device::potrs", launch<T, Kind::Potrs>,
           Call<T>{Kind::Potrs, n, nrhs, lda, ldb, batch, array(l), array(B), L, B, 0, 0, nullptr}, stream);
}

template <typename T>
void posv(int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb, int64_t strideB, int* info,
          int64_t batch, Stream stream) {
    run<T>("batched::device::posv", launch<T, Kind::Posv>,
           Call<T>{Kind::Posv, n, nrhs, lda, ldb, batch, strided(A, strideA), strided(B, strideB), A, B, strideA,
                   strideB, info},
           stream);
}

template <typename T>
void posv(int64_t n, int64_t nrhs, T* const* A, int64_t lda, T* const* B, int64_t ldb, int* info, int64_t batch,
          Stream stream) {
    run<T>("batched::device::posv", launch<T, Kind::Posv>,
           Call<T>{Kind::Posv, n, nrhs, lda, ldb, batch, array(A), array(B), A, B, 0, 0, info}, stream);
}

#define STARFACT_BATCHED_INSTANTIATE(T)                                                                        \
    template void potrf<T>(int64_t, T*, int64_t, int64_t, int*, int64_t, Stream);                              \
    template void potrf<T>(int64_t, T* const*, int64_t, int*, int64_t, Stream);                                \
    template void potrs<T>(int64_t, int64_t, const T*, int64_t, int64_t, T*, int64_t, int64_t, int64_t, Stream); \
    template void potrs<T>(int64_t, int64_t, const T* const*, int64_t, T* const*, int64_t, int64_t, Stream);   \
    template void posv<T>(int64_t, int64_t, T*, int64_t, int64_t, T*, int64_t, int64_t, int*, int64_t, Stream); \
    template void posv<T>(int64_t, int64_t, T* const*, int64_t, T* const*, int64_t, int*, int64_t, Stream);
STARFACT_BATCHED_INSTANTIATE(float)
STARFACT_BATCHED_INSTANTIATE(double)
STARFACT_BATCHED_INSTANTIATE(std::complex<float>)
STARFACT_BATCHED_INSTANTIATE(std::complex<double>)
#undef STARFACT_BATCHED_INSTANTIATE

}  // namespace starfact::batched::device
