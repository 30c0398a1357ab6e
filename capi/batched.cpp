// The C ABI's batched solves: Cholesky (orders up to 128) and LU with partial pivoting (orders up to 32) of every
// member of a strided batch, in place. Host batches run the StarPU entry points (starfact::batched::potrf, posv,
// getrf; the LU's solve with the factors is a LAPACKE loop here, the StarPU API having no batched getrs); device
// batches run the batched kernels (starfact::batched::device) on the legacy default stream of their device.
#include <lapacke.h>

#include <algorithm>
#include <cstdint>
#include <string>

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

/// Checks the batch of matrices a (square members) and the optional right-hand sides b (as many members, as many
/// rows, the same dtype and memory).
void check_batches(const char* function, const starfact_c_batch* a, const starfact_c_batch* b) {
    check_batch(function, "a", a);
    require(a->rows == a->cols, function, "a", [&] {
        return "must hold square matrices (got " + std::to_string(a->rows) + " x " + std::to_string(a->cols) + ")";
    });
    if (!b) return;
    check_batch(function, "b", b);
    require(b->count == a->count, function, "b", [&] {
        return "must have as many members as a (" + std::to_string(a->count) + "; got " + std::to_string(b->count) +
               ")";
    });
    require(b->rows == a->rows, function, "b", [&] {
        return "must have " + std::to_string(a->rows) + " rows, as a (got " + std::to_string(b->rows) + ")";
    });
    require_same_dtype(function, "b", b->dtype, a->dtype, "a");
    require(b->device == a->device, function, "b", "must be in the memory a is in (host, or a's CUDA device)");
}

template <typename T>
T* data(const starfact_c_batch& b) {
    return static_cast<T*>(b.data);
}

/// The members whose info is not 0.
[[maybe_unused]] int64_t count_failed(const int32_t* info, int64_t count) {
    return std::count_if(info, info + count, [](int32_t v) { return v != 0; });
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
        lapack_int r;
        if constexpr (sizeof(T) == sizeof(float))
            r = LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, f, static_cast<lapack_int>(lu.ld), p, x,
                                    static_cast<lapack_int>(b.ld));
        else
            r = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, f, static_cast<lapack_int>(lu.ld), p, x,
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
        const char* f = "posv_batched";
        Runtime& rt = runtime_of(runtime, f);
        check_batches(f, a, b);
        require(info != nullptr || a->count == 0, f, "info", "is null");
        const ParsedOptions p = parse_options(f, options);
        int64_t bad = 0;
#ifdef STARFACT_HAVE_BATCHED_CHOL
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            if (a->device == STARFACT_C_HOST) {
                bad = b ? batched::posv<T>(rt, a->rows, b->cols, data<T>(*a), a->ld, a->stride, data<T>(*b), b->ld,
                                           b->stride, info, a->count, p.batched)
                        : batched::potrf<T>(rt, a->rows, data<T>(*a), a->ld, a->stride, info, a->count, p.batched);
                return;
            }
#ifdef STARFACT_HAVE_CUDA
            DeviceScope scope(a->device, a->count);
            if (b)
                batched::device::posv<T>(a->rows, b->cols, data<T>(*a), a->ld, a->stride, data<T>(*b), b->ld,
                                         b->stride, scope.info(), a->count, nullptr);
            else
                batched::device::potrf<T>(a->rows, data<T>(*a), a->ld, a->stride, scope.info(), a->count, nullptr);
            scope.finish(info, a->count);
            bad = count_failed(info, a->count);
#endif
        });
#else
        (void)rt;
        (void)p;
        require_module(false, "batched Cholesky (batched_chol)");
#endif
        if (failed) *failed = bad;
    });
}

int starfact_c_batched_gesv(starfact_c_runtime* runtime, const starfact_c_batch* a, int32_t* ipiv,
                            int64_t stride_piv, const starfact_c_batch* b, int32_t* info,
                            const starfact_c_options* options, int64_t* failed) {
    return guarded([&] {
        const char* f = "gesv_batched";
        Runtime& rt = runtime_of(runtime, f);
        check_batches(f, a, b);
        require(info != nullptr || a->count == 0, f, "info", "is null");
        require(ipiv != nullptr || a->count * a->rows == 0, f, "piv", "is null");
        check_pivot_stride(f, stride_piv, a->rows, a->count);
        const ParsedOptions p = parse_options(f, options);
        int64_t bad = 0;
#ifdef STARFACT_HAVE_BATCHED_LU
        dispatch(a->dtype, [&](auto tag) {
            using T = decltype(tag);
            if (a->device == STARFACT_C_HOST) {
                bad = batched::getrf<T>(rt, a->rows, data<T>(*a), a->ld, a->stride, ipiv, stride_piv, info, a->count,
                                        p.batched);
                if (b) host_getrs<T>(*a, ipiv, stride_piv, *b, info);
                return;
            }
#ifdef STARFACT_HAVE_CUDA
            DeviceScope scope(a->device, a->count);
            batched::device::getrf<T>(a->rows, data<T>(*a), a->ld, a->stride, ipiv, stride_piv, scope.info(),
                                      a->count, nullptr);
            if (b)
                batched::device::getrs<T>(a->rows, b->cols, data<T>(*a), a->ld, a->stride, ipiv, stride_piv,
                                          data<T>(*b), b->ld, b->stride, a->count, nullptr);
            scope.finish(info, a->count);
            bad = count_failed(info, a->count);
#endif
        });
#else
        (void)rt;
        (void)p;
        require_module(false, "batched LU (batched_lu)");
#endif
        if (failed) *failed = bad;
    });
}

int starfact_c_batched_getrs(starfact_c_runtime* runtime, const starfact_c_batch* lu, const int32_t* ipiv,
                             int64_t stride_piv, const starfact_c_batch* b, const starfact_c_options* options) {
    return guarded([&] {
        const char* f = "getrs_batched";
        runtime_of(runtime, f);
        check_batches(f, lu, b);
        require(b != nullptr, f, "b", "is missing (null descriptor)");
        require(ipiv != nullptr || lu->count * lu->rows == 0, f, "piv", "is null");
        check_pivot_stride(f, stride_piv, lu->rows, lu->count);
        parse_options(f, options);
#ifdef STARFACT_HAVE_BATCHED_LU
        require(lu->rows <= batched::kMaxLuOrder, f, "lu", [&] {
            return "must hold matrices of order <= " + std::to_string(batched::kMaxLuOrder) + " (got " +
                   std::to_string(lu->rows) + ")";
        });
        dispatch(lu->dtype, [&](auto tag) {
            using T = decltype(tag);
            if (lu->device == STARFACT_C_HOST) {
                host_getrs<T>(*lu, ipiv, stride_piv, *b, nullptr);
                return;
            }
#ifdef STARFACT_HAVE_CUDA
            DeviceScope scope(lu->device, 0);
            batched::device::getrs<T>(lu->rows, b->cols, data<T>(*lu), lu->ld, lu->stride, ipiv, stride_piv,
                                      data<T>(*b), b->ld, b->stride, lu->count, nullptr);
            scope.finish(nullptr, 0);
#endif
        });
#else
        require_module(false, "batched LU (batched_lu)");
#endif
    });
}

}  // extern "C"
