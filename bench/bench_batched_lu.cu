// Bench of the batched LU kernels (starfact::batched) against cuBLAS on the same device data in
// the same run: getrf vs cublas<t>getrfBatched, the fused inverse vs cublas<t>getrfBatched +
// cublas<t>getriBatched and vs cublas<t>matinvBatched, and a LAPACKE loop on the CPU (all
// hardware threads, on a sample of the batch, scaled to the batch). GFLOP/s use LAWN 41 counts;
// GB/s count the matrix bytes read + written once, against a device-to-device copy of the same
// bytes timed in the same run. Warm-up, then medians of CUDA-event timings.
//   bench_batched_lu [--n 2,4,...|2-32] [--batch 1000000] [--prec s|d|both|c|z] [--warmup 2] [--repeat 5]
//                    [--cpu-batch 20000] [--csv FILE] [--no-vendor] [--sweep]
// --prec c|z times the complex batched API (the vendor path, kernels/batched_vendor/) against the bare cuBLAS
// routines instead (bench/batched_complex.cuh; --n, --batch, --warmup, --repeat apply).
// --sweep (builds configured with -DSTARFACT_BATCHED_LU_SWEEP=ON) times the variants of the getrf
// and inverse kernels (nFTB, staging, pivot search, look-ahead) for n = 8, 16, 32 instead
// (tools/tune_batched_lu.sh).
#include <cublas_v2.h>
#include <lapacke.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/batched_complex.cuh"
#include "bench/common.hpp"
#include "kernels/cpu_lapack.hpp"
#include "kernels/cuda_blas.hpp"
#include "starfact/batched_lu.hpp"
#include "support/cli.hpp"
#ifdef STARFACT_BLU_SWEEP
#include "kernels/batched_lu/getrf_kernel.cuh"
#include "kernels/batched_lu/inverse_kernel.cuh"
#endif

extern "C" void openblas_set_num_threads(int);  // OpenBLAS: the loop's threads each run a 1-thread LAPACK

using starfact::bench::median;
using starfact::bench::time_median;
namespace sb = starfact::batched;
namespace cpu = starfact::detail::cpu;  // the scalar layer: LAPACKE s/d, cuBLAS S/D by the element type
namespace gpu = starfact::detail::gpu;

namespace {

struct Options {
    std::vector<int> sizes;
    int64_t batch = 1000000;
    std::string prec = "both";
    int warmup = 2, repeat = 5;
    int64_t cpu_batch = 20000;
    std::string csv;
    bool vendor = true, sweep = false;
};

std::vector<int> parse_sizes(const std::string& text) {
    std::vector<int> v;
    size_t p = 0;
    while (p <= text.size()) {
        const size_t q = std::min(text.find(',', p), text.size());
        const std::string item = text.substr(p, q - p);
        const size_t dash = item.find('-');
        try {
            const int lo = std::stoi(item.substr(0, dash));
            const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
            if (lo < 1 || hi > 32 || lo > hi) throw std::invalid_argument("");
            for (int n = lo; n <= hi; ++n) v.push_back(n);
        } catch (const std::exception&) {
            throw std::invalid_argument("--n needs sizes in [1, 32] like 2,4,8 or 2-32 (got '" + text + "')");
        }
        p = q + 1;
    }
    return v;
}

Options parse(int argc, char** argv) {
    starfact::support::Cli cli(argc, argv);
    Options o;
    o.sizes = parse_sizes("2-32");
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--n") o.sizes = parse_sizes(cli.value());
        else if (f == "--batch") o.batch = cli.integer(1, 2000000000);
        else if (f == "--prec") o.prec = cli.choice({"s", "d", "both", "c", "z"});
        else if (f == "--warmup") o.warmup = int(cli.integer(0, 100));
        else if (f == "--repeat") o.repeat = int(cli.integer(1, 1000));
        else if (f == "--cpu-batch") o.cpu_batch = cli.integer(0, 100000000);
        else if (f == "--csv") o.csv = cli.value();
        else if (f == "--no-vendor") { cli.no_value(); o.vendor = false; }
        else if (f == "--sweep") { cli.no_value(); o.sweep = true; }
        else if (f == "--help") {
            std::printf("bench_batched_lu [--n 2-32] [--batch 1000000] [--prec s|d|both|c|z] [--warmup 2] [--repeat 5]\n"
                        "                 [--cpu-batch 20000] [--csv FILE] [--no-vendor] [--sweep]\n");
            std::exit(0);
        } else cli.unknown();
    }
    return o;
}

template <typename T>
__global__ void fill_uniform(T* a, size_t count, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
        uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        a[i] = T(double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    }
}
template <typename T>
__global__ void fill_pointers(T** p, T* base, int64_t stride, int64_t batch) {
    for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < batch; b += int64_t(gridDim.x) * blockDim.x)
        p[b] = base + b * stride;
}

/// Seconds of a LAPACKE loop (getrf, or getrf + getri) over `count` matrices on all hardware threads.
template <typename T>
double cpu_loop(std::vector<T> A, int n, int64_t count, bool inverse) {
    const int nt = std::max(1u, std::thread::hardware_concurrency());
    openblas_set_num_threads(1);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> th;
    for (int t = 0; t < nt; ++t)
        th.emplace_back([&, t] {
            int piv[32];
            T work[32 * 32];
            for (int64_t b = t; b < count; b += nt) {
                T* M = A.data() + b * n * n;
                if (cpu::getrf<T>(n, n, M, n, piv) == 0 && inverse) cpu::getri<T>(n, M, n, piv, work, 32 * 32);
            }
        });
    for (auto& x : th) x.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Case {
    const char* prec;
    int n;
    int64_t batch;
    double copy_s, ours_getrf_s, cublas_getrf_s, ours_inv_s, cublas_getri_s, cublas_matinv_s, cpu_getrf_s, cpu_inv_s;
    int piv_equal, piv_checked;
    double max_diff;
};

template <typename T>
Case run_case(const Options& o, int n, cublasHandle_t h, cudaStream_t st) {
    const int64_t batch = o.batch, nn = int64_t(n) * n;
    const size_t bytes = size_t(batch) * nn * sizeof(T);
    T *A0, *A, *C;
    T **PA, **PA0, **PC;
    int *piv, *info, *piv2;
    STARFACT_BENCH_CUDA(cudaMalloc(&A0, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&A, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&C, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&PA, batch * sizeof(T*)));
    STARFACT_BENCH_CUDA(cudaMalloc(&PA0, batch * sizeof(T*)));
    STARFACT_BENCH_CUDA(cudaMalloc(&PC, batch * sizeof(T*)));
    STARFACT_BENCH_CUDA(cudaMalloc(&piv, batch * n * sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMalloc(&piv2, batch * n * sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMalloc(&info, batch * sizeof(int)));
    fill_uniform<T><<<4096, 256, 0, st>>>(A0, size_t(batch) * nn, 0x5eed0000ull + n);
    fill_pointers<T><<<1024, 256, 0, st>>>(PA, A, nn, batch);
    fill_pointers<T><<<1024, 256, 0, st>>>(PA0, A0, nn, batch);
    fill_pointers<T><<<1024, 256, 0, st>>>(PC, C, nn, batch);
    STARFACT_BENCH_CUDA(cudaStreamSynchronize(st));
    auto reset = [&](cudaStream_t s) { STARFACT_BENCH_CUDA(cudaMemcpyAsync(A, A0, bytes, cudaMemcpyDeviceToDevice, s)); };
    Case c{starfact::detail::is_real_single_v<T> ? "s" : "d", n, batch, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    c.copy_s = time_median(st, o.warmup, o.repeat, reset);
    c.ours_getrf_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t s) {
        sb::device::getrf<T>(n, A, n, nn, piv, n, info, batch, s);
    }, reset);
    c.ours_inv_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t s) {
        sb::device::inverse<T>(n, A0, n, nn, C, n, nn, nullptr, n, info, batch, s);
    });
    if (o.vendor) {
        // Same data: our factors vs cuBLAS's on a sample (pivots equal, largest entry difference).
        const int64_t k = std::min<int64_t>(batch, 2000);
        std::vector<T> ours(k * nn), theirs(k * nn);
        std::vector<int> p1(k * n), p2(k * n);
        reset(st);
        sb::device::getrf<T>(n, A, n, nn, piv, n, info, batch, st);
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(ours.data(), A, k * nn * sizeof(T), cudaMemcpyDeviceToHost, st));
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(p1.data(), piv, k * n * sizeof(int), cudaMemcpyDeviceToHost, st));
        c.cublas_getrf_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(gpu::getrf_batched<T>(h, n, PA, n, piv2, info, int(batch)));
        }, reset);
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(theirs.data(), A, k * nn * sizeof(T), cudaMemcpyDeviceToHost, st));
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(p2.data(), piv2, k * n * sizeof(int), cudaMemcpyDeviceToHost, st));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(st));
        c.piv_checked = int(k);
        for (int64_t b = 0; b < k; ++b) {
            bool same = true;
            for (int i = 0; i < n; ++i) same = same && p1[b * n + i] == p2[b * n + i];
            c.piv_equal += same;
            if (same)
                for (int64_t i = 0; i < nn; ++i)
                    c.max_diff = std::max(c.max_diff, std::fabs(double(ours[b * nn + i]) - double(theirs[b * nn + i])));
        }
        c.cublas_getri_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(gpu::getrf_batched<T>(h, n, PA, n, piv2, info, int(batch)));
            STARFACT_BENCH_STATUS(gpu::getri_batched<T>(h, n, PA, n, piv2, PC, n, info, int(batch)));
        }, reset);
        c.cublas_matinv_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(gpu::matinv_batched<T>(h, n, PA0, n, PC, n, info, int(batch)));
        });
    }
    if (o.cpu_batch > 0) {
        const int64_t k = std::min(batch, o.cpu_batch);
        std::vector<T> host(k * nn);
        STARFACT_BENCH_CUDA(cudaMemcpy(host.data(), A0, k * nn * sizeof(T), cudaMemcpyDeviceToHost));
        const double scale = double(batch) / double(k);
        c.cpu_getrf_s = scale * cpu_loop<T>(host, n, k, false);
        c.cpu_inv_s = scale * cpu_loop<T>(host, n, k, true);
    }
    cudaFree(A0); cudaFree(A); cudaFree(C); cudaFree(PA); cudaFree(PA0); cudaFree(PC);
    cudaFree(piv); cudaFree(piv2); cudaFree(info);
    return c;
}

void report(const Case& c, FILE* csv) {
    const double bytes = double(c.batch) * c.n * c.n * (c.prec[0] == 's' ? 4 : 8);
    const double copy_bw = 2 * bytes / c.copy_s;
    const double lu = sb::getrf_flops(c.n) * c.batch, inv = (sb::getrf_flops(c.n) + sb::getri_flops(c.n)) * c.batch;
    auto ms = [](double s) { return s * 1e3; };
    auto ratio = [](double a, double b) { return a > 0 && b > 0 ? a / b : 0.0; };
    std::printf("%s %2d %8lld | copy %6.0f GB/s | getrf %8.3f ms %7.1f GF/s %6.0f GB/s %5.1f%% copy | cublas %8.3f ms x%5.2f"
                " | inv %8.3f ms %7.1f GF/s %5.1f%% copy | getrf+getri %8.3f ms x%5.2f | matinv %8.3f ms x%5.2f"
                " | cpu getrf %9.2f ms inv %9.2f ms | piv==cublas %d/%d maxdiff %.1e\n",
                c.prec, c.n, (long long)c.batch, copy_bw * 1e-9, ms(c.ours_getrf_s), lu / c.ours_getrf_s * 1e-9,
                2 * bytes / c.ours_getrf_s * 1e-9, 100 * c.copy_s / c.ours_getrf_s, ms(c.cublas_getrf_s),
                ratio(c.cublas_getrf_s, c.ours_getrf_s), ms(c.ours_inv_s), inv / c.ours_inv_s * 1e-9,
                100 * c.copy_s / c.ours_inv_s, ms(c.cublas_getri_s), ratio(c.cublas_getri_s, c.ours_inv_s),
                ms(c.cublas_matinv_s), ratio(c.cublas_matinv_s, c.ours_inv_s), ms(c.cpu_getrf_s), ms(c.cpu_inv_s),
                c.piv_equal, c.piv_checked, c.max_diff);
    std::fflush(stdout);
    if (csv) {
        std::fprintf(csv, "%s,%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                     c.prec, c.n, (long long)c.batch, ms(c.copy_s), copy_bw * 1e-9, ms(c.ours_getrf_s),
                     lu / c.ours_getrf_s * 1e-9, 2 * bytes / c.ours_getrf_s * 1e-9, ms(c.cublas_getrf_s),
                     c.cublas_getrf_s > 0 ? lu / c.cublas_getrf_s * 1e-9 : 0, ms(c.ours_inv_s), inv / c.ours_inv_s * 1e-9,
                     ms(c.cublas_getri_s), c.cublas_getri_s > 0 ? inv / c.cublas_getri_s * 1e-9 : 0,
                     ms(c.cublas_matinv_s), c.cublas_matinv_s > 0 ? inv / c.cublas_matinv_s * 1e-9 : 0,
                     c.cpu_getrf_s > 0 ? lu / c.cpu_getrf_s * 1e-9 : 0, c.cpu_inv_s > 0 ? inv / c.cpu_inv_s * 1e-9 : 0);
        std::fflush(csv);
    }
}

#ifdef STARFACT_BLU_SWEEP
namespace k = starfact::batched::gpu;

template <typename T, int N, int THREADS, bool STAGE, int SEARCH, bool LA, int MINB = 0>
void sweep_one(const Options& o, T* A0, T* A, T* C, int* piv, int* info, size_t bytes, double copy_s, cudaStream_t st) {
    constexpr int NFTB = THREADS / k::seg_lanes(N);
    const k::LuBatch<T> ra{A, nullptr, N * N, N}, r0{A0, nullptr, N * N, N}, rc{C, nullptr, N * N, N};
    auto reset = [&](cudaStream_t s) { STARFACT_BENCH_CUDA(cudaMemcpyAsync(A, A0, bytes, cudaMemcpyDeviceToDevice, s)); };
    const double tf = time_median(st, o.warmup, o.repeat, [&](cudaStream_t s) {
        STARFACT_BENCH_CUDA((k::run_getrf<T, N, NFTB, STAGE, SEARCH, LA, MINB>(ra, piv, N, info, o.batch, s)));
    }, reset);
    const double ti = time_median(st, o.warmup, o.repeat, [&](cudaStream_t s) {
        STARFACT_BENCH_CUDA((k::run_inverse<T, N, NFTB, STAGE, SEARCH, LA, MINB>(r0, rc, nullptr, N, info, o.batch, s)));
    });
    std::printf("sweep %s n=%2d nftb=%3d threads=%3d stage=%d search=%-6s lookahead=%d minblocks=%2d | getrf %8.3f ms"
                " %5.1f%% copy | inverse %8.3f ms %5.1f%% copy\n",
                starfact::detail::is_real_single_v<T> ? "s" : "d", N, NFTB, THREADS, int(STAGE),
                k::search_for<k::seg_lanes(N), SEARCH>() == k::kSearchReduce ? "reduce" : "shfl", int(LA), MINB, tf * 1e3,
                100 * copy_s / tf, ti * 1e3, 100 * copy_s / ti);
    std::fflush(stdout);
}

template <typename T, int N>
void sweep_n(const Options& o, cudaStream_t st) {
    const size_t bytes = size_t(o.batch) * N * N * sizeof(T);
    T *A0, *A, *C;
    int *piv, *info;
    STARFACT_BENCH_CUDA(cudaMalloc(&A0, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&A, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&C, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&piv, o.batch * N * sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMalloc(&info, o.batch * sizeof(int)));
    fill_uniform<T><<<4096, 256, 0, st>>>(A0, size_t(o.batch) * N * N, 0x5eed0000ull + N);
    const double copy_s = time_median(st, o.warmup, o.repeat, [&](cudaStream_t s) {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(A, A0, bytes, cudaMemcpyDeviceToDevice, s));
    });
    // Register path: search strategy x look-ahead x block size x register cap (the reduce search
    // only exists for n > 8); then the staged path. The first variant runs twice: its first
    // timing absorbs the clock ramp after the allocations.
    constexpr int R = N > 8 ? k::kSearchReduce : k::kSearchButterfly;
    sweep_one<T, N, 256, false, k::kSearchButterfly, false>(o, A0, A, C, piv, info, bytes, copy_s, st);
    sweep_one<T, N, 256, false, k::kSearchButterfly, false>(o, A0, A, C, piv, info, bytes, copy_s, st);
    sweep_one<T, N, 64, false, R, false>(o, A0, A, C, piv, info, bytes, copy_s, st);
    sweep_one<T, N, 64, false, R, true>(o, A0, A, C, piv, info, bytes, copy_s, st);
    sweep_one<T, N, 256, false, R, false>(o, A0, A, C, piv, info, bytes, copy_s, st);
    sweep_one<T, N, 256, false, R, true>(o, A0, A, C, piv, info, bytes, copy_s, st);
    if constexpr (N == 32) {
        sweep_one<T, N, 128, false, R, false, 5>(o, A0, A, C, piv, info, bytes, copy_s, st);
        sweep_one<T, N, 64, false, R, false, 10>(o, A0, A, C, piv, info, bytes, copy_s, st);
        sweep_one<T, N, 64, false, R, false, 12>(o, A0, A, C, piv, info, bytes, copy_s, st);
    }
    sweep_one<T, N, 64, true, R, false>(o, A0, A, C, piv, info, bytes, copy_s, st);
    cudaFree(A0); cudaFree(A); cudaFree(C); cudaFree(piv); cudaFree(info);
}

template <typename T>
void sweep(const Options& o, cudaStream_t st) {
    sweep_n<T, 8>(o, st);
    sweep_n<T, 16>(o, st);
    sweep_n<T, 32>(o, st);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_batched_lu: %s\n", e.what());
        return 2;
    }
    cudaDeviceProp prop{};
    STARFACT_BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, batch %lld, warmup %d, median of %d; CPU loop: %u threads on %lld matrices, scaled\n",
                prop.name, (long long)o.batch, o.warmup, o.repeat, std::max(1u, std::thread::hardware_concurrency()),
                (long long)std::min(o.batch, o.cpu_batch));
    cudaStream_t st;
    STARFACT_BENCH_CUDA(cudaStreamCreate(&st));
    if (o.sweep) {
#ifdef STARFACT_BLU_SWEEP
        if (o.prec != "d") sweep<float>(o, st);
        if (o.prec != "s") sweep<double>(o, st);
        return 0;
#else
        std::fprintf(stderr, "bench_batched_lu: --sweep needs a build with -DSTARFACT_BATCHED_LU_SWEEP=ON\n");
        return 2;
#endif
    }
    if (o.prec == "c" || o.prec == "z") {  // the complex API against the bare vendor routines
        if (o.prec == "c") starfact::bench::complex_batched::lu<std::complex<float>>(o.sizes, o.batch, o.warmup, o.repeat, st);
        else starfact::bench::complex_batched::lu<std::complex<double>>(o.sizes, o.batch, o.warmup, o.repeat, st);
        cudaStreamDestroy(st);
        return 0;
    }
    cublasHandle_t h;
    STARFACT_BENCH_STATUS(cublasCreate(&h));
    STARFACT_BENCH_STATUS(cublasSetStream(h, st));
    FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
    if (csv)
        std::fprintf(csv, "prec,n,batch,copy_ms,copy_GBs,getrf_ms,getrf_GFs,getrf_GBs,cublas_getrf_ms,cublas_getrf_GFs,"
                          "inv_ms,inv_GFs,cublas_getri_ms,cublas_getri_GFs,cublas_matinv_ms,cublas_matinv_GFs,"
                          "cpu_getrf_GFs,cpu_inv_GFs\n");
    for (const char* p : {"s", "d"}) {
        if (o.prec != "both" && o.prec != p) continue;
        for (int n : o.sizes) report(p[0] == 's' ? run_case<float>(o, n, h, st) : run_case<double>(o, n, h, st), csv);
    }
    if (csv) std::fclose(csv);
    cublasDestroy(h);
    cudaStreamDestroy(st);
    return 0;
}
