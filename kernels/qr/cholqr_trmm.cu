// X := X triu(V) in place on the FP64 tensor cores (kernels/qr/cholqr_trmm.hpp).
//
// A gemm of tiles BM x BN x BK (thread block) and WM x WN (warp) on mma.m16n8k4.f64, its operands staged through
// shared memory in Stages buffers by cp.async. The in-place product needs one thing more than a gemm: a thread block
// owns BM rows of X and walks their block columns J from the last to the first, each the sum over k < end(J) of
// X(rows, k-tile) V(k-tile, J); J's results are written once every read of its own columns is done, and the block
// columns before J (all that is left to form) read none of them. V's strictly lower entries load as zeros.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/qr/cholqr_trmm.hpp"

namespace starfact::detail::gpu {
namespace {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int Stages_>
struct TrmmTiles {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, Stages = Stages_;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN, kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kMi = WM / 16, kNi = WN / 8;  // mma tiles of a warp
    static constexpr int kMinBlocks = 512 / kThreads;  // two blocks of 256 threads per multiprocessor: 128 registers
    // Shared layouts: A as [BK][BM + 4] (X's columns, rows contiguous), B as [BN][BK + 4] (V's columns): the pads
    // put the 16 lanes of a half warp's 8-byte fragment reads in 16 different bank pairs.
    static constexpr int kLda = BM + 4, kLdb = BK + 4;
    static constexpr int kStageA = BK * kLda, kStageB = BN * kLdb;
    static constexpr size_t kSharedBytes = sizeof(double) * Stages * (kStageA + kStageB);
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0 && BK % 4 == 0, "tile shapes");
};

using Tiles = TrmmTiles<kCholqrTrmmRows, 64, 16, 32, 32, 3>;

/// 8 bytes global -> shared, asynchronously; zeros when !valid (src is then not read).
__device__ __forceinline__ void copy8(double* dst, const double* src, bool valid) {
    const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 8 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void wait_groups() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/// D += A B, one m16n8k4 step of the warp (lane 4 g + t: A(g, t), A(g + 8, t); B(t, g); D(g, 2t..2t+1),
/// D(g + 8, 2t..2t+1)). The m16n8k8 and m16n8k16 steps measured slower here (docs/qr.md, "The solve in place").
__device__ __forceinline__ void dmma_16x8x4(double (&d)[4], double a0, double a1, double b) {
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a0), "d"(a1), "d"(b));
}

template <typename C>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks) trmm_inplace_kernel(double* X, int64_t ldx, int m, int n,
                                                                 const double* V, int64_t ldv) {
    extern __shared__ double shared[];
    double* As = shared;
    double* Bs = shared + C::Stages * C::kStageA;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp % C::kWarpsM, wn = warp / C::kWarpsM, g = lane >> 2, t = lane & 3;
    const int row0 = blockIdx.x * C::BM;
    double* Xb = X + row0;
    const int rows = min(C::BM, m - row0);

    for (int j0 = ((n - 1) / C::BN) * C::BN; j0 >= 0; j0 -= C::BN) {
        const int jend = min(j0 + C::BN, n), ktiles = (jend + C::BK - 1) / C::BK;
        auto load = [&](int kt, int stage) {
            const int k0 = kt * C::BK;
            double* a = As + stage * C::kStageA;
            for (int e = tid; e < C::BM * C::BK; e += C::kThreads) {  // consecutive threads, consecutive rows
                const int r = e % C::BM, k = e / C::BM;
                const bool ok = r < rows && k0 + k < jend;
                copy8(a + k * C::kLda + r, ok ? Xb + r + static_cast<int64_t>(k0 + k) * ldx : X, ok);
            }
            double* b = Bs + stage * C::kStageB;
            for (int e = tid; e < C::BN * C::BK; e += C::kThreads) {
                const int k = e % C::BK, c = e / C::BK, gk = k0 + k, gc = j0 + c;
                const bool ok = gc < jend && gk <= gc;  // the upper triangle only
                copy8(b + c * C::kLdb + k, ok ? V + gk + static_cast<int64_t>(gc) * ldv : V, ok);
            }
        };
        double acc[C::kMi][C::kNi][4] = {};
#pragma unroll
        for (int s = 0; s < C::Stages - 1; ++s) {
            if (s < ktiles) load(s, s);
            commit();
        }
        for (int kt = 0; kt < ktiles; ++kt) {
            wait_groups<C::Stages - 2>();
            __syncthreads();
            if (kt + C::Stages - 1 < ktiles) load(kt + C::Stages - 1, (kt + C::Stages - 1) % C::Stages);
            commit();
            const double* a = As + (kt % C::Stages) * C::kStageA + wm * C::WM + g;
            const double* b = Bs + (kt % C::Stages) * C::kStageB + (wn * C::WN + g) * C::kLdb + t;
#pragma unroll
            for (int kk = 0; kk < C::BK; kk += 4) {
                double af[C::kMi][2], bf[C::kNi];
#pragma unroll
                for (int i = 0; i < C::kMi; ++i) {
                    af[i][0] = a[(kk + t) * C::kLda + i * 16];
                    af[i][1] = a[(kk + t) * C::kLda + i * 16 + 8];
                }
#pragma unroll
                for (int j = 0; j < C::kNi; ++j) bf[j] = b[j * 8 * C::kLdb + kk];
#pragma unroll
                for (int i = 0; i < C::kMi; ++i)
#pragma unroll
                    for (int j = 0; j < C::kNi; ++j) dmma_16x8x4(acc[i][j], af[i][0], af[i][1], bf[j]);
            }
        }
        wait_groups<0>();
        __syncthreads();  // every read of X(rows, J) done; the next block column's loads reuse the stages
#pragma unroll
        for (int i = 0; i < C::kMi; ++i)
#pragma unroll
            for (int j = 0; j < C::kNi; ++j)
#pragma unroll
                for (int h = 0; h < 4; ++h) {
                    const int r = wm * C::WM + i * 16 + g + (h >> 1) * 8, c = j0 + wn * C::WN + j * 8 + 2 * t + (h & 1);
                    if (r < rows && c < jend) Xb[r + static_cast<int64_t>(c) * ldx] = acc[i][j][h];
                }
    }
}

}  // namespace

void launch_cholqr_trmm_inplace(double* X, int64_t ldx, int m, int n, const double* V, int64_t ldv,
                                cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    // The shared memory beyond 48 KiB is a setting of the current device's context: set on every launch (the
    // workers of several GPUs call this), a driver call of microseconds beside a kernel of tenths of milliseconds.
    const cudaError_t configured = cudaFuncSetAttribute(
        trmm_inplace_kernel<Tiles>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(Tiles::kSharedBytes));
    if (configured != cudaSuccess)
        throw std::runtime_error(std::string("cholqr trmm: cudaFuncSetAttribute: ") + cudaGetErrorString(configured));
    const auto blocks = static_cast<unsigned>((static_cast<int64_t>(m) + Tiles::BM - 1) / Tiles::BM);
    trmm_inplace_kernel<Tiles><<<blocks, Tiles::kThreads, Tiles::kSharedBytes, stream>>>(X, ldx, m, n, V, ldv);
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess)
        throw std::runtime_error(std::string("cholqr trmm: launch: ") + cudaGetErrorString(launched));
}

}  // namespace starfact::detail::gpu
