// The C ABI's batched solves: Cholesky (orders up to 128) and LU with partial pivoting (orders up to 32) of every
// member of a strided batch, in place. Host batches run the StarPU entry points (starfact::batched::potrf, posv,
// getrf; the LU's solve with the factors is a LAPACKE loop here, the StarPU API having no batched getrs); device
// batches run the batched kernels (starfact::batched::device) on the legacy default stream of their device. Every
// element type: float32, float64, and complex64 and complex128 (Hermitian for the Cholesky), whose GPU path is the
// vendor's batched routines (include/starfact/batched_cholesky.hpp, batched_lu.hpp).

#include <lapacke.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "capi/arrays.hpp"
#include "capi/errors.hpp"
#include "capi/options.hpp"
#include "capi/runtime.hpp"
#include "starfact/starfact.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::capi {
namespace {

// The largest orders of the batched modules (a module not built refuses every call, NOT_BUILT).
#ifdef STARFACT_HAVE_BATCHED_CHOL
constexpr int64_t kCholeskyOrder = batched::kMaxCholeskyOrder;
#else
constexpr int64_t kCholeskyOrder = INT64_MAX;
#endif
#ifdef STARFACT_HAVE_BATCHED_LU
constexpr int64_t kLuOrder = batched::kMaxLuOrder;
#else
constexpr int64_t kLuOrder = INT64_MAX;
#endif

/// The bounds of the batched kernels (32-bit offsets and counts) on the batch `argument`: ld * max(rows, cols) <
/// 2^31, and a member count < 2^31 in device memory.
void check_kernel_bounds(const char* function, const char* argument, const starfact_c_batch& b) {
    const int64_t extent = std::max<int64_t>({1, b.rows, b.cols});
    require(b.ld <= INT32_MAX / extent, function, argument, [&] {
        return "must have ld * max(rows, cols) < 2^31, the batched kernels' offsets (got ld " + std::to_string(b.ld) +
               ", " + std::to_string(b.rows) + " x " + std::to_string(b.cols) + ")";
    });
    require(b.device == STARFACT_C_HOST || b.count <= INT32_MAX, function, argument, [&] {
        return "must have at most 2^31 - 1 members in device memory (got " + std::to_string(b.count) + ")";
    });
}

/// Checks the batch of matrices `a_name` (square members of order <= max_order) and the optional right-hand sides b
/// (as many members, as many rows, the same dtype and memory), each failure naming the C ABI's argument.
void check_batches(const char* function, const char* a_name, const starfact_c_batch* a, int64_t max_order,
                   const starfact_c_batch* b) {
    check_batch(function, a_name, a, Elements::RealOrComplex);
    require(a->rows == a->cols, function, a_name, [&] {
        return "must hold square matrices (got " + std::to_string(a->rows) + " x " + std::to_string(a->cols) + ")";
    });
    require(a->rows <= max_order, function, a_name, [&] {
        return "must hold matrices of order <= " + std::to_string(max_order) + " (got " + std::to_string(a->rows) +
               ")";
    });
    check_kernel_bounds(function, a_name, *a);
    if (!b) return;
    check_batch(function, "b", b, Elements::RealOrComplex);
    require(b->count == a->count, function, "b", [&] {
        return "must have as many members as " + std::string(a_name) + " (" + std::to_string(a->count) + "; got " +
               std::to_string(b->count) + ")";
    });
    require(b->rows == a->rows, function, "b", [&] {
        return "must have " + std::to_string(a->rows) + " rows, as " + a_name + " (got " + std::to_string(b->rows) +
               ")";
    });
    require_same_dtype(function, "b", b->dtype, a->dtype, a_name);
    require(b->device == a->device, function, "b", [&] {
        return "must be in the memory " + std::string(a_name) + " is in (host, or " + a_name + "'s CUDA device)";
    });
    check_kernel_bounds(function, "b", *b);
}

/// Checks the pivots of the batch `a` (order n): ipiv not null unless empty, stride_piv >= n.
void check_pivots(const char* function, const void* ipiv, int64_t stride_piv, const starfact_c_batch& a) {
    require(ipiv != nullptr || a.count * a.rows == 0, function, "ipiv", "is null");
    check_pivot_stride(function, stride_piv, a.rows, a.count);
}

/// The batch as the C++ entry points take it: the stride of a single member is never used, and is made valid.
starfact_c_batch members(const starfact_c_batch& b) {
    starfact_c_batch m = b;
    if (m.count <= 1) m.stride = std::max(m.stride, m.ld * m.cols);
    return m;
}

/// The C++ names of the batched entry points' arguments (batched_options.hpp) and the C ABI's: the members of the
/// matrices (n, lda, strideA, A, batch; the factors of the device getrs: LU, strideLU) are `a_name`'s, those of the
/// right-hand sides (nrhs, ldb, strideB, B) b's.
std::array<CName, 11> batched_names(const char* a_name) {
    return {{{"n", a_name},
             {"lda", a_name},
             {"strideA", a_name},
             {"A", a_name},
             {"batch", a_name},
             {"LU", a_name},
             {"strideLU", a_name},
             {"nrhs", "b"},
             {"ldb", "b"},
             {"strideB", "b"},
             {"B", "b"}}};
}

template <typename T>
T* data(const starfact_c_batch& b) {
    return static_cast<T*>(b.data);
}

/// The members whose info is not 0.
[[maybe_unused]] int64_t count_failed(const int32_t* info, int64_t count) {
    return std::count_if(info, info + count, [](int32_t v) { return v != 0; });
}

/// LAPACKE's getrs ('N') of one member, of T's letter (the C ABI sits above the library's scalar layer).
template <typename T>
lapack_int lapacke_getrs(lapack_int n, lapack_int nrhs, const T* f, lapack_int ldf, const lapack_int* p, T* x,
                         lapack_int ldx) {
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, f, ldf, p, x, ldx);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, f, ldf, p, x, ldx);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, reinterpret_cast<const lapack_complex_float*>(f),
                                   ldf, p, reinterpret_cast<lapack_complex_float*>(x), ldx);
    else
        return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, reinterpret_cast<const lapack_complex_double*>(f),
                                   ldf, p, reinterpret_cast<lapack_complex_double*>(x), ldx);
}

/// LAPACKE getrs of every member of b whose factorization succeeded (info[k] == 0).
template <typename T>
[[maybe_unused]] void host_getrs(const starfact_c_batch& lu, const int32_t* ipiv, int64_t stride_piv, const starfact_c_batch& b,
                const int32_t* info) {
    const auto n = static_cast<lapack_int>(lu.rows), nrhs = static_cast<lapack_int>(b.cols);
    if (n == 0 || nrhs == 0) return;
    for (int64_t k = 0; k < lu.count; ++k) {
        if (info && info[k] != 0) continue;
        const T* f = data<T>(lu) + k * lu.stride;
        const lapack_int* p = ipiv + k * stride_piv;
        T* x = data<T>(b) + k * b.stride;
        const lapack_int r = lapacke_getrs(n, nrhs, f, static_cast<lapack_int>(lu.ld), p, x,
                                           static_cast<lapack_int>(b.ld));
        if (r != 0) throw RuntimeError("starfact: LAPACKE getrs of batch member " + std::to_string(k) + " failed (" +
                                       std::to_string(r) + ")");
    }
}

[[maybe_unused]] void require_module(bool built, const char* name) {
    if (!built) throw NotBuilt("a", std::string("starfact: this build has no ") + name + " module");
}

#ifdef STARFACT_HAVE_CUDA
/// Makes `device` current for the scope (the calling thread's device is restored) and holds a device buffer of
/// `count` ints for the infos.
class DeviceScope {
public:
    DeviceScope(int device, int64_t count) {
        check(cudaGetDevice(&previous_), "cudaGetDevice");
        check(cudaSetDevice(device), "cudaSetDevice");
        if (count > 0) check(cudaMalloc(&info_, static_cast<size_t>(count) * sizeof(int)), "cudaMalloc");
    }
    ~DeviceScope() {
        if (info_) cudaFree(info_);
        cudaSetDevice(previous_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    int* info() const { return info_; }
    /// Waits for the kernels and copies the infos to the host.
    void finish(int32_t* host_info, int64_t count) {
        check(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
        if (count > 0 && host_info)
            check(cudaMemcpy(host_info, info_, static_cast<size_t>(count) * sizeof(int), cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
    }
    static void check(cudaError_t e, const char* what) {
        if (e != cudaSuccess) throw RuntimeError(std::string("starfact: ") + what + ": " + cudaGetErrorString(e));
    }

private:
    int previous_ = 0;
    int* info_ = nullptr;
};
#endif

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_batched_posv(starfact_c_runtime* runtime, const starfact_c_batch* a, const starfact_c_batch* b,
                            int32_t* info, const starfact_c_options* options, int64_t* failed) {
    return guarded([&] {
        const char* f = "batched_posv";
        Runtime& rt = runtime_of(runtime, f);
        check_batches(f, "a", a, kCholeskyOrder, b);
        require(info != nullptr || a->count == 0, f, "info", "is null");
        const ParsedOptions p = parse_options(f, options);
        const starfact_c_batch ma = members(*a), mb = b ? members(*b) : starfact_c_batch{};
        int64_t bad = 0;
#ifdef STARFACT_HAVE_BATCHED_CHOL
        as_c_call(f, batched_names("a"), [&] {
            dispatch_any(a->dtype, [&](auto tag) {
                using T = decltype(tag);
                if (a->device == STARFACT_C_HOST) {
                    bad = b ? batched::posv<T>(rt, ma.rows, mb.cols, data<T>(ma), ma.ld, ma.stride, data<T>(mb), mb.ld,
                                               mb.stride, info, ma.count, p.batched)
                            : batched::potrf<T>(rt, ma.rows, data<T>(ma), ma.ld, ma.stride, info, ma.count, p.batched);
                    return;
                }
#ifdef STARFACT_HAVE_CUDA
                DeviceScope scope(a->device, a->count);
                if (b)
                    batched::device::posv<T>(ma.rows, mb.cols, data<T>(ma), ma.ld, ma.stride, data<T>(mb), mb.ld,
                                             mb.stride, scope.info(), ma.count, nullptr);
                else
                    batched::device::potrf<T>(ma.rows, data<T>(ma), ma.ld, ma.stride, scope.info(), ma.count, nullptr);
                scope.finish(info, a->count);
                bad = count_failed(info, a->count);
#endif
            });
        });
#else
        (void)rt;
        (void)p;
        (void)ma;
        (void)mb;
        require_module(false, "batched Cholesky (batched_chol)");
#endif
        if (failed) *failed = bad;
    });
}

int starfact_c_batched_gesv(starfact_c_runtime* runtime, const starfact_c_batch* a, int32_t* ipiv,
                            int64_t stride_piv, const starfact_c_batch* b, int32_t* info,
                            const starfact_c_options* options, int64_t* failed) {
    return guarded([&] {
        const char* f = "batched_gesv";
        Runtime& rt = runtime_of(runtime, f);
        check_batches(f, "a", a, kLuOrder, b);
        require(info != nullptr || a->count == 0, f, "info", "is null");
        check_pivots(f, ipiv, stride_piv, *a);
        const ParsedOptions p = parse_options(f, options);
        const starfact_c_batch ma = members(*a), mb = b ? members(*b) : starfact_c_batch{};
        int64_t bad = 0;
#ifdef STARFACT_HAVE_BATCHED_LU
        as_c_call(f, batched_names("a"), [&] {
            dispatch_any(a->dtype, [&](auto tag) {
                using T = decltype(tag);
                if (a->device == STARFACT_C_HOST) {
                    bad = batched::getrf<T>(rt, ma.rows, data<T>(ma), ma.ld, ma.stride, ipiv, stride_piv, info,
                                            ma.count, p.batched);
                    if (b) host_getrs<T>(ma, ipiv, stride_piv, mb, info);
                    return;
                }
#ifdef STARFACT_HAVE_CUDA
                DeviceScope scope(a->device, a->count);
                batched::device::getrf<T>(ma.rows, data<T>(ma), ma.ld, ma.stride, ipiv, stride_piv, scope.info(),
                                          ma.count, nullptr);
                if (b)
                    batched::device::getrs<T>(ma.rows, mb.cols, data<T>(ma), ma.ld, ma.stride, ipiv, stride_piv,
                                              data<T>(mb), mb.ld, mb.stride, ma.count, nullptr);
                scope.finish(info, a->count);
                bad = count_failed(info, a->count);
#endif
            });
        });
#else
        (void)rt;
        (void)p;
        (void)ma;
        (void)mb;
        require_module(false, "batched LU (batched_lu)");
#endif
        if (failed) *failed = bad;
    });
}

int starfact_c_batched_getrs(starfact_c_runtime* runtime, const starfact_c_batch* lu, const int32_t* ipiv,
                             int64_t stride_piv, const starfact_c_batch* b, const starfact_c_options* options) {
    return guarded([&] {
        const char* f = "batched_getrs";
        runtime_of(runtime, f);
        require(b != nullptr, f, "b", "is missing (null descriptor)");
        check_batches(f, "lu", lu, kLuOrder, b);
        check_pivots(f, ipiv, stride_piv, *lu);
        parse_options(f, options);
        const starfact_c_batch ml = members(*lu), mb = members(*b);
#ifdef STARFACT_HAVE_BATCHED_LU
        as_c_call(f, batched_names("lu"), [&] {
            dispatch_any(lu->dtype, [&](auto tag) {
                using T = decltype(tag);
                if (lu->device == STARFACT_C_HOST) {
                    host_getrs<T>(ml, ipiv, stride_piv, mb, nullptr);
                    return;
                }
#ifdef STARFACT_HAVE_CUDA
                DeviceScope scope(lu->device, 0);
                batched::device::getrs<T>(ml.rows, mb.cols, data<T>(ml), ml.ld, ml.stride, ipiv, stride_piv,
                                          data<T>(mb), mb.ld, mb.stride, ml.count, nullptr);
                scope.finish(nullptr, 0);
#endif
            });
        });
#else
        (void)ml;
        (void)mb;
        require_module(false, "batched LU (batched_lu)");
#endif
    });
}

}  // extern "C"
