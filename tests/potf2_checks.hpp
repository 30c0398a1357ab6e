// The checks of tests/test_potf2_gpu.cpp: a stream set like a CUDA worker's (Gpu), potf2 on host data through the
// device (run_potf2), and the checks of one tile against LAPACK: SPD, non-SPD, NaN input. The tuning tool's
// checks (tools/tune/potf2/check_variants.cpp) run the same checks through their own entry point (tuned_entry).
#pragma once
#include <catch2/catch.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#include "tests/gpu_hog.hpp"
#include "tests/support.hpp"

namespace starfact::test::potf2_checks {

using namespace starfact;
using starfact::detail::gpu::Potf2Config;
using starfact::test::fresh_seed;
using starfact::test::kResidualLimit;
using starfact::test::spd_matrix;


/// A stream and a cuBLAS handle bound to it, for the calls of one test case, and the second stream set
/// of the two-stream form (as every CUDA worker of the runtime has it).
struct Gpu {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    starfact::detail::gpu::Potf2Aux aux;
    Gpu() {
        int least = 0, greatest = 0;
        REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
        REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
        REQUIRE(cublasCreate(&cublas) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cublasSetStream(cublas, stream) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cudaStreamCreateWithPriority(&aux.stream, cudaStreamNonBlocking, greatest) == cudaSuccess);
        REQUIRE(cublasCreate(&aux.cublas) == CUBLAS_STATUS_SUCCESS);
        REQUIRE(cublasSetStream(aux.cublas, aux.stream) == CUBLAS_STATUS_SUCCESS);
        for (cudaEvent_t& e : aux.events)
            REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
    }
    ~Gpu() {
        cudaDeviceSynchronize();
        for (cudaEvent_t e : aux.events) cudaEventDestroy(e);
        cublasDestroy(aux.cublas);
        cudaStreamDestroy(aux.stream);
        cublasDestroy(cublas);
        cudaStreamDestroy(stream);
    }
    Gpu(const Gpu&) = delete;
    Gpu& operator=(const Gpu&) = delete;
};

/// ib/cutoff/looped/right_looking/blocked/rdiag[/group/bulk_piece], or "default".
inline std::string describe(const Potf2Config* c) {
    if (!c) return "default";
    std::string s = std::to_string(c->ib) + "/" + std::to_string(c->cutoff) + "/" + std::to_string(c->looped) + "/" +
                    std::to_string(c->right_looking) + "/" + std::to_string(c->blocked) + "/" +
                    std::to_string(c->rdiag);
    if (c->group > 0)
        s += "/g" + std::to_string(c->group) + "/p" + std::to_string(c->bulk_piece);
    return s;
}

template <typename T>
const char* prec() {
    return sizeof(T) == 4 ? "s" : "d";
}

/// CPU LAPACK reference on A (in place): the NaN markers of the strictly upper triangle are zeroed
/// first, so the reference does not depend on whether the host LAPACK reads them.
template <typename T>
int lapack_potrf(int n, T* A, int ld) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) A[i + size_t(j) * ld] = T(0);
    return starfact::detail::cpu::potrf<T>(n, A, ld);
}

/// The entry point run_potf2 calls for an explicit configuration: the library's potf2_tile_tuned, unless a
/// caller (the tuning tool's checks) points it at another with the same signature.
template <typename T>
using TunedEntry = void (*)(const Potf2Config&, cublasHandle_t, cudaStream_t, int, T*, int, int*, int64_t, void*,
                            size_t, const starfact::detail::gpu::Potf2Aux*);
template <typename T>
inline TunedEntry<T> tuned_entry = &starfact::detail::gpu::potf2_tile_tuned<T>;

/// Runs potf2 on a device copy of the host array A (ld x n, in place) with *info preset to info0;
/// returns the final info. config == nullptr: the public potf2_tile (default configuration); otherwise
/// tuned_entry<T>. The
/// workspace starts non-zero (potf2 must not rely on a cleared one). hog != nullptr: a GPU-hogging kernel
/// (tests/gpu_hog.cu) is launched on that stream for hog_us x (1..8) just before potf2.
template <typename T>
int run_potf2(Gpu& g, std::vector<T>& A, int n, int ld, int info0 = 0, int64_t offset = 0,
              const Potf2Config* config = nullptr, cudaStream_t hog = nullptr, double hog_us = 0) {
    T* dA = nullptr;
    int* dinfo = nullptr;
    void* work = nullptr;
    const size_t bytes = A.size() * sizeof(T);
    const size_t wbytes = 4096;
    REQUIRE(cudaMalloc(&dA, std::max<size_t>(bytes, 1)) == cudaSuccess);
    REQUIRE(cudaMalloc(&dinfo, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&work, wbytes) == cudaSuccess);
    REQUIRE(cudaMemset(work, 0x7f, wbytes) == cudaSuccess);
    REQUIRE(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(dinfo, &info0, sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    if (hog) REQUIRE(test::launch_gpu_hog(hog, hog_us));
    if (config)
        tuned_entry<T>(*config, g.cublas, g.stream, n, dA, ld, dinfo, offset, work, wbytes, &g.aux);
    else
        starfact::detail::gpu::potf2_tile<T>(g.cublas, g.stream, n, dA, ld, dinfo, offset, work,
                                   starfact::detail::gpu::potf2_workspace_bytes<T>(n), &g.aux);
    REQUIRE(cudaStreamSynchronize(g.stream) == cudaSuccess);
    if (hog) REQUIRE(cudaStreamSynchronize(hog) == cudaSuccess);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    int info = -1;
    REQUIRE(cudaMemcpy(A.data(), dA, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(dA);
    cudaFree(dinfo);
    cudaFree(work);
    return info;
}

/// Same bits (so that NaN markers compare equal).
template <typename T>
bool same(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The strictly upper triangle and the padding rows of out are bit-identical to in.
template <typename T>
bool untouched_outside_lower(const std::vector<T>& in, const std::vector<T>& out, int n, int ld) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ld; ++i)
            if ((i < j || i >= n) && !same(in[i + size_t(j) * ld], out[i + size_t(j) * ld])) return false;
    return true;
}

/// SPD test matrix whose strictly upper triangle is NaN (it must not be read) and padding is -777.
template <typename T>
std::vector<T> spd_with_nan_upper(int n, int ld, uint64_t seed) {
    std::vector<T> A = spd_matrix<T>(n, ld, seed);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) A[i + size_t(j) * ld] = std::numeric_limits<T>::quiet_NaN();
    return A;
}

/// Factors a fresh SPD matrix and checks info, the residual and the untouched storage.
template <typename T>
void check_spd(Gpu& g, int n, int ld, const Potf2Config* config = nullptr) {
    const uint64_t seed = fresh_seed();
    INFO("prec=" << prec<T>() << " n=" << n << " ld=" << ld << " seed=" << seed << " config="
                 << describe(config));
    const std::vector<T> A = spd_with_nan_upper<T>(n, ld, seed);
    std::vector<T> L = A;
    const int info = run_potf2<T>(g, L, n, ld, 0, 0, config);
    REQUIRE(info == 0);
    const double res = potrf_residual<T>(n, A.data(), ld, L.data(), ld);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(untouched_outside_lower(A, L, n, ld));
}

/// max |X(i,j) - R(i,j)| over the lower triangle of columns [0, jend), skipping row skip_row.
template <typename T>
double max_diff_lower(const std::vector<T>& X, const std::vector<T>& R, int n, int ld, int jend, int skip_row = -1) {
    double d = 0;
    for (int j = 0; j < jend; ++j)
        for (int i = j; i < n; ++i)
            if (i != skip_row) d = std::max(d, std::fabs(double(X[i + size_t(j) * ld]) - double(R[i + size_t(j) * ld])));
    return d;
}

/// Columns [jfrom, n) of X hold the identity in their lower triangle.
template <typename T>
bool identity_from(const std::vector<T>& X, int n, int ld, int jfrom) {
    for (int j = jfrom; j < n; ++j)
        for (int i = j; i < n; ++i)
            if (X[i + size_t(j) * ld] != (i == j ? T(1) : T(0))) return false;
    return true;
}

/// Non-SPD at column k (0-based; A(k,k) made negative): info = offset + k + 1 (as LAPACK's), columns
/// before k equal LAPACK's L of the unmodified matrix, the identity from k on, nothing else touched.
/// With info0 != 0 the info stays info0 and the output is the same.
template <typename T>
void check_not_spd(Gpu& g, int n, int k, int info0, const Potf2Config* config = nullptr) {
    const int ld = n + 3;
    const int64_t offset = 1000;
    const uint64_t seed = fresh_seed();
    INFO("prec=" << prec<T>() << " n=" << n << " k=" << k << " info0=" << info0 << " seed=" << seed << " config="
                 << describe(config));
    const std::vector<T> A = spd_with_nan_upper<T>(n, ld, seed);
    std::vector<T> ref = A;
    REQUIRE(lapack_potrf(n, ref.data(), ld) == 0);
    std::vector<T> B = A;
    B[k + size_t(k) * ld] = T(-1);
    std::vector<T> lap = B;
    REQUIRE(lapack_potrf(n, lap.data(), ld) == k + 1);
    std::vector<T> L = B;
    const int info = run_potf2<T>(g, L, n, ld, info0, offset, config);
    CHECK(info == (info0 != 0 ? info0 : offset + k + 1));
    const double scale = std::max(1.0, max_diff_lower(ref, std::vector<T>(ref.size(), T(0)), n, ld, k));
    const double err = max_diff_lower(L, ref, n, ld, k) / scale;
    INFO("max relative difference to LAPACK in the columns before k: " << err);
    CHECK(err < 100.0 * n * std::numeric_limits<T>::epsilon());
    CHECK(identity_from(L, n, ld, k));
    CHECK(untouched_outside_lower(B, L, n, ld));
}

/// A NaN at (r, c), r >= c: info = r + 1; the columns before r equal LAPACK's L of the clean matrix
/// except in row r, the identity from column r on (no NaN written there), nothing else touched.
template <typename T>
void check_nan(Gpu& g, int n, int r, int c) {
    const int ld = n;
    const uint64_t seed = fresh_seed();
    INFO("prec=" << prec<T>() << " n=" << n << " NaN at (" << r << ", " << c << ") seed=" << seed);
    const std::vector<T> A = spd_with_nan_upper<T>(n, ld, seed);
    std::vector<T> ref = A;
    REQUIRE(lapack_potrf(n, ref.data(), ld) == 0);
    std::vector<T> B = A;
    B[r + size_t(c) * ld] = std::numeric_limits<T>::quiet_NaN();
    std::vector<T> L = B;
    const int info = run_potf2<T>(g, L, n, ld);
    CHECK(info == r + 1);
    const double scale = std::max(1.0, max_diff_lower(ref, std::vector<T>(ref.size(), T(0)), n, ld, r));
    const double err = max_diff_lower(L, ref, n, ld, r, r) / scale;
    INFO("max relative difference to LAPACK outside row r: " << err);
    CHECK(err < 100.0 * n * std::numeric_limits<T>::epsilon());
    CHECK(identity_from(L, n, ld, r));
    CHECK(untouched_outside_lower(B, L, n, ld));
}

/// The library's configurations of the sweep (the replicated-diagonal leaf): single leaf, recursive with
/// its leaf, blocked with fused panels. {ib, cutoff, looped, right_looking, blocked, rdiag}
inline const std::vector<Potf2Config>& all_configs() {
    static const std::vector<Potf2Config> c = {
        {8, 32, false, false, false, true},  {8, 64, false, false, false, true}, {8, 128, false, false, false, true},
        {8, 32, false, false, true, true},   {8, 64, false, false, true, true},  {8, 128, false, false, true, true},
        {8, 96, false, false, true, true},   {8, 16, false, false, true, true}};
    return c;
}

}  // namespace starfact::test::potf2_checks
