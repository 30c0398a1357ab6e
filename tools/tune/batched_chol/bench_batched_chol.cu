// Bench: batched small Cholesky (starfact::batched::device) vs cuSOLVER potrfBatched/potrsBatched and a
// loop of LAPACKE calls on the CPU, same data, same run. For each precision, batch and order n:
// potrf (the library's tuned kernel choice, IEEE default and the fast-math variant; then each kernel
// forced: the left-looking one and every resident variant of the tuning space, tools/tune/batched_chol/
// variants.hpp), potrs (nrhs = 1; also on members off 16-byte boundaries, which stage with one-element
// copies), posv (the library's choice, and the fused kernel and the two passes potrf + potrs forced),
// cuSOLVER, CPU loop;
// median times (CUDA events, warm-up first; the input is restored, untimed, before every run),
// GFLOP/s, GB/s and the ratio to a device-to-device copy of the same bytes measured in this run
// (one copy of potrf's bytes, one of potrs's: at small n both are latency-bound, so each kernel is held
// against a copy of its own traffic), and the time of an empty kernel (the launch floor of a timed run).
//   bytes (brief):   potrf 2 n^2 (each matrix read once, written once); potrs n^2 + 2 n
//   bytes (touched): what the kernels really move: potrf 2 * n(n+1)/2 (lower triangle), potrs n(n+1)/2 + 2 n
//   bench_batched_chol [--sizes 5,8,...|all] [--batches 10000,100000] [--prec s|d|both|c|z] [--no-cpu] [--quick]
//                      [--lda-pad P | --lda-align16] [--csv FILE] [--warmup K] [--repeat R]        (--help describes each flag)
// --prec c|z times the complex batched API (the vendor path, kernels/batched_vendor/) against the bare cuSOLVER and
// cuBLAS routines instead (bench/batched_complex.cuh; --sizes, --batches, --warmup, --repeat apply).
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/batched_complex.cuh"
#include "bench/common.hpp"
#include "bench/spd_batch.cuh"
#include "kernels/batched_chol/dispatch.cuh"
#include "kernels/batched_chol/resident_dispatch.cuh"
#include "kernels/cpu_lapack.hpp"
#include "kernels/cuda_blas.hpp"
#include "starfact/batched_cholesky.hpp"
#include "starfact/cholesky.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"
#include "tools/tune/batched_chol/variants.hpp"

using namespace starfact;
using starfact::bench::time_median;

namespace {

template <typename T>
cusolverStatus_t vendor_potrf(cusolverDnHandle_t h, int n, T** A, int lda, int* info, int batch) {
    return starfact::detail::gpu::potrf_batched<T>(h, n, A, lda, info, batch);
}
template <typename T>
cusolverStatus_t vendor_potrs(cusolverDnHandle_t h, int n, T** A, int lda, T** B, int ldb, int* info, int batch) {
    return starfact::detail::gpu::potrs_batched<T>(h, n, 1, A, lda, B, ldb, info, batch);
}
template <typename T>
int cpu_potrf(int n, T* A, int lda) {
    return starfact::detail::cpu::potrf<T>(n, A, lda);
}

__global__ void empty_kernel() {}

template <typename T>
__global__ void fill_rhs(T* B, int64_t count) {
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < count; e += int64_t(gridDim.x) * blockDim.x)
        B[e] = static_cast<T>((e * 7919 % 1000) / 1000.0 - 0.5);
}

/// The fast-math potrf (rsqrt pivots; the resident kernel also rcp + Newton) with the library's kernel
/// choice for n: instantiated here only.
template <typename T, int I = 0>
void potrf_fast(const batched::gpu::Args<T>& a) {
    using namespace batched::gpu;
    if constexpr (I == 0) {
        const batched::gpu::Variant v = potrf_choice(a.n, sizeof(T) == 8, columns_aligned16(a));
        if (v.family != Family::LeftLooking) {
            run_variant_of<T, true, kLibraryVariants>(a, v);
            return;
        }
    }
    if constexpr (I < kNumSizes) {
        if constexpr (left_looking<T>(kSizes[I]).nt > 0)  // not skipped by T
            if (padded_order<T>(a.n) == kSizes[I]) return run_factor_tuned<T, kSizes[I], true, false>(a);
        potrf_fast<T, I + 1>(a);
    }
}

struct Config {
    std::vector<int> sizes{5, 8, 16, 24, 32, 33, 48, 64, 80, 95, 96, 100, 128};
    std::vector<int64_t> batches{10000, 100000};
    bool single = true, dbl = true, cpu = true;
    int lda_pad = 0;     // --lda-pad: lda = n + lda_pad
    bool lda_align16 = false;  // --lda-align16: lda = n rounded up to 16 bytes
    bool quick = false;  // --quick: no fast-math potrf, no forced potrf kernels, no misaligned potrs
    int warmup = 3, repeat = 10;
    std::string csv;
};

struct Row {
    const char* prec;
    int64_t batch;
    int n, lda;
    double ours, fast, vendor, ours_s, vendor_s, posv, cpu, copy_bw;
    double copy_s_bw;                // copy bandwidth on potrs's bytes ((n^2 + 2n) / 2 per member copied)
    double posv_fused, posv_two;     // posv forced: the fused kernel, potrf + potrs
    double launch;                   // an empty kernel, timed like the others
    double ours_s_elem;  // potrs on misaligned members (one-element copies instead of 16-byte ones), batch - 1
    double left;                                         // left-looking kernel forced
    double res[std::size(batched::gpu::kCandidateVariants)];  // each resident variant forced
    batched::gpu::Variant choice;                             // the library's choice
};

template <typename T>
Row bench_one(int n, int64_t batch, const Config& cfg, cudaStream_t st, cusolverDnHandle_t sol) {
    constexpr int E = 16 / static_cast<int>(sizeof(T));
    const int lda = cfg.lda_align16 ? (n + E - 1) / E * E : n + cfg.lda_pad;  // members lda * n apart
    const int64_t nn = int64_t(lda) * n;  // member stride
    const size_t abytes = static_cast<size_t>(batch * nn) * sizeof(T), bbytes = static_cast<size_t>(batch * n) * sizeof(T);
    const size_t matrix_bytes = static_cast<size_t>(batch * n * n) * sizeof(T);  // the n x n matrices (copy reference)
    T *A0, *A, *B0, *B;
    int *info, *vinfo;
    T **pA, **pB;
    STARFACT_BENCH_CUDA(cudaMalloc(&A0, abytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&A, abytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&B0, bbytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&B, bbytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&info, batch * sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMalloc(&vinfo, batch * sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMalloc(&pA, batch * sizeof(T*)));
    STARFACT_BENCH_CUDA(cudaMalloc(&pB, batch * sizeof(T*)));
    std::vector<T*> hp(static_cast<size_t>(batch));
    for (int64_t i = 0; i < batch; ++i) hp[i] = A + i * nn;
    STARFACT_BENCH_CUDA(cudaMemcpy(pA, hp.data(), batch * sizeof(T*), cudaMemcpyHostToDevice));
    for (int64_t i = 0; i < batch; ++i) hp[i] = B + i * n;
    STARFACT_BENCH_CUDA(cudaMemcpy(pB, hp.data(), batch * sizeof(T*), cudaMemcpyHostToDevice));
    starfact::bench::fill_spd<T><<<4096, 256, 0, st>>>(A0, n, lda, batch);
    fill_rhs<T><<<1024, 256, 0, st>>>(B0, batch * n);
    STARFACT_BENCH_CUDA(cudaStreamSynchronize(st));

    auto resetA = [&](cudaStream_t s) { STARFACT_BENCH_CUDA(cudaMemcpyAsync(A, A0, abytes, cudaMemcpyDeviceToDevice, s)); };
    auto resetB = [&](cudaStream_t s) { STARFACT_BENCH_CUDA(cudaMemcpyAsync(B, B0, bbytes, cudaMemcpyDeviceToDevice, s)); };
    const int w = cfg.warmup, r = cfg.repeat;
    Row row{sizeof(T) == 4 ? "s" : "d", batch, n, lda, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {}, {}};
    row.copy_bw = bench::copy_bandwidth(matrix_bytes, st);
    row.copy_s_bw = bench::copy_bandwidth(static_cast<size_t>(batch * (int64_t(n) * n + 2 * n) / 2) * sizeof(T), st);
    row.launch = time_median(st, w, r, [&](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); });

    row.vendor = time_median(st, w, r, [&](cudaStream_t) { STARFACT_BENCH_STATUS(vendor_potrf(sol, n, pA, lda, vinfo, int(batch))); }, resetA);
    std::vector<T> vend(static_cast<size_t>(std::min<int64_t>(batch, 64) * nn));
    STARFACT_BENCH_CUDA(cudaMemcpy(vend.data(), A, vend.size() * sizeof(T), cudaMemcpyDeviceToHost));

    batched::gpu::Args<T> fa;
    fa.n = n;
    fa.A.base = A;
    fa.A.stride = nn;
    fa.lda = lda;
    fa.info = info;
    fa.batch = batch;
    fa.stream = st;
    row.choice = batched::gpu::potrf_choice(n, sizeof(T) == 8, batched::gpu::columns_aligned16(fa));
    const double nan = std::nan("");
    row.fast = cfg.quick ? nan : time_median(st, w, r, [&](cudaStream_t) { potrf_fast<T>(fa); }, resetA);
    STARFACT_BENCH_CUDA(cudaGetLastError());
    row.left = cfg.quick ? nan : time_median(st, w, r, [&](cudaStream_t) { batched::gpu::launch_potrf_variant<T>(fa, {}); }, resetA);
    // STARFACT_BENCH_SKIP_KINDS=residentdyn,residentpipe: variants of those kinds (variants.hpp, family_kind)
    // are not run (time NaN), e.g. when their forced tests failed just before on the same machine.
    const std::string skip = std::string(",") + (std::getenv("STARFACT_BENCH_SKIP_KINDS") ? std::getenv("STARFACT_BENCH_SKIP_KINDS") : "") + ",";
    for (size_t v = 0; v < std::size(batched::gpu::kCandidateVariants); ++v) {
        const batched::gpu::Variant c = batched::gpu::kCandidateVariants[v];
        if (cfg.quick || skip.find(std::string(",") + batched::gpu::family_kind(c.family) + ",") != std::string::npos) {
            row.res[v] = std::nan("");
            continue;
        }
        row.res[v] = time_median(st, w, r, [&](cudaStream_t) { batched::gpu::launch_potrf_candidate<T>(fa, c); }, resetA);
    }
    STARFACT_BENCH_CUDA(cudaGetLastError());
    row.ours = time_median(st, w, r, [&](cudaStream_t s) { batched::device::potrf<T>(n, A, lda, nn, info, batch, s); }, resetA);
    // our factor vs cuSOLVER's on the first members, and every info
    std::vector<T> ours(vend.size());
    STARFACT_BENCH_CUDA(cudaMemcpy(ours.data(), A, ours.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<int> hinfo(static_cast<size_t>(batch));
    STARFACT_BENCH_CUDA(cudaMemcpy(hinfo.data(), info, batch * sizeof(int), cudaMemcpyDeviceToHost));
    double diff = 0;
    for (size_t k = 0; k < ours.size(); ++k) {
        const int64_t i = static_cast<int64_t>(k % nn) % lda, j = static_cast<int64_t>(k % nn) / lda;
        if (i >= j && i < n) diff = std::max(diff, std::abs(double(ours[k]) - double(vend[k])));
    }
    int bad = 0;
    for (int v : hinfo) bad += v != 0;
    if (bad || diff > 1e-2) std::printf("  WARNING n=%d: %d members with info != 0, max |L - L_cusolver| = %.3g\n", n, bad, diff);

    // solves on the factor left in A by the last potrf run
    row.ours_s = time_median(st, w, r, [&](cudaStream_t s) { batched::device::potrs<T>(n, 1, A, lda, nn, B, n, n, batch, s); }, resetB);
    row.vendor_s = time_median(st, w, r, [&](cudaStream_t) { STARFACT_BENCH_STATUS(vendor_potrs(sol, n, pA, lda, pB, n, vinfo, int(batch))); }, resetB);
    // the same solve with every member one element off a 16-byte boundary: the staging falls back to
    // one-element copies (batch - 1 members so that the shifted last one stays inside A)
    row.ours_s_elem = batch > 1 && !cfg.quick ? time_median(st, w, r, [&](cudaStream_t s) { batched::device::potrs<T>(n, 1, A + 1, lda, nn, B, n, n, batch - 1, s); }, resetB) : 0.0;
    row.posv = time_median(st, w, r, [&](cudaStream_t s) { batched::device::posv<T>(n, 1, A, lda, nn, B, n, n, info, batch, s); },
                           [&](cudaStream_t s) { resetA(s); resetB(s); });
    batched::gpu::Args<T> pa = fa;  // posv, strided, nrhs = 1
    pa.nrhs = 1;
    pa.B.base = B;
    pa.B.stride = n;
    pa.ldb = n;
    row.posv_fused = time_median(st, w, r, [&](cudaStream_t) { batched::gpu::launch_posv_fused<T>(pa); },
                                 [&](cudaStream_t s) { resetA(s); resetB(s); });
    row.posv_two = time_median(st, w, r, [&](cudaStream_t) { batched::gpu::launch_posv_two_pass<T>(pa); },
                               [&](cudaStream_t s) { resetA(s); resetB(s); });
    STARFACT_BENCH_CUDA(cudaGetLastError());

    if (cfg.cpu && batch <= 10000) {
        std::vector<T> h(static_cast<size_t>(batch * nn));
        STARFACT_BENCH_CUDA(cudaMemcpy(h.data(), A0, abytes, cudaMemcpyDeviceToHost));
        std::vector<T> work(h);
        for (int64_t i = 0; i < std::min<int64_t>(batch, 200); ++i) cpu_potrf(n, work.data() + i * nn, lda);  // warm-up
        work = h;
        const auto t0 = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < batch; ++i) cpu_potrf(n, work.data() + i * nn, lda);
        row.cpu = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    cudaFree(A0); cudaFree(A); cudaFree(B0); cudaFree(B); cudaFree(info); cudaFree(vinfo); cudaFree(pA); cudaFree(pB);
    return row;
}

/// "NT/OCC/IB" + the family's tag, as the bench has always printed a resident variant.
std::string variant_name(const batched::gpu::Variant& v) {
    return std::to_string(v.nt) + "/" + std::to_string(v.occ) + "/" + std::to_string(batched::gpu::inner_block(v.family)) +
           batched::gpu::family_tag(v.family);
}
std::string fixed1(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

void print(const Row& w, size_t word, std::FILE* csv) {
    const double n = w.n, b = double(w.batch), gf = b * potrf_flops(w.n) * 1e-9, gs = b * potrs_flops(w.n, 1) * 1e-9;
    const double brief = 2.0 * n * n * word * b, touched = n * (n + 1) * word * b;
    const double sbrief = (n * n + 2 * n) * word * b, stouched = (n * (n + 1) / 2 + 2 * n) * word * b;
    const double copy = w.copy_bw, copy_s = w.copy_s_bw;
    const std::string kernel = w.choice.family != batched::gpu::Family::LeftLooking ? "res" + variant_name(w.choice) : "left";
    std::string variants;
    for (size_t v = 0; v < std::size(batched::gpu::kCandidateVariants); ++v)
        variants += " " + variant_name(batched::gpu::kCandidateVariants[v]) + " " + fixed1(w.res[v] * 1e6);
    std::printf("%s %6lld %3d | potrf %8.1f us %7.1f GF/s %6.0f GB/s %5.1f%% copy (touched %5.1f%%) | fast %8.1f us | "
                "cuSOLVER %9.1f us x%5.1f | potrs %7.1f us %5.1f%% copy (touched %5.1f%%) vs cuSOLVER %8.1f us x%5.1f | "
                "potrs(elem copies) %7.1f us | posv %8.1f us (fused %8.1f, two-pass %8.1f) vs cuSOLVER potrf+potrs x%5.1f | "
                "CPU loop %9.1f us x%6.1f | copy %5.0f GB/s, potrs bytes %5.0f GB/s | empty kernel %4.1f us | kernel %s | left %8.1f us | resident%s\n",
                w.prec, static_cast<long long>(w.batch), w.n, w.ours * 1e6, gf / w.ours, brief / w.ours * 1e-9,
                100 * brief / w.ours / copy, 100 * touched / w.ours / copy, w.fast * 1e6, w.vendor * 1e6, w.vendor / w.ours,
                w.ours_s * 1e6, 100 * sbrief / w.ours_s / copy_s, 100 * stouched / w.ours_s / copy_s, w.vendor_s * 1e6,
                w.vendor_s / w.ours_s, w.ours_s_elem * 1e6, w.posv * 1e6, w.posv_fused * 1e6, w.posv_two * 1e6,
                (w.vendor + w.vendor_s) / w.posv, w.cpu * 1e6, w.cpu > 0 ? w.cpu / w.ours : 0.0, copy * 1e-9, copy_s * 1e-9,
                w.launch * 1e6, kernel.c_str(), w.left * 1e6, variants.c_str());
    std::fflush(stdout);
    std::string csv_variants;  // resident variant times, in kCandidateVariants order, ';'-separated
    for (size_t v = 0; v < std::size(batched::gpu::kCandidateVariants); ++v)
        csv_variants += (v ? ";" : "") + std::to_string(w.res[v] * 1e6);
    if (csv)
        std::fprintf(csv, "%s,%lld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%.3f,%s,%.3f,%.3f,%.3f,%.2f,%.3f,%d\n", w.prec,
                     static_cast<long long>(w.batch), w.n, w.ours * 1e6, w.fast * 1e6, w.vendor * 1e6, w.ours_s * 1e6,
                     w.vendor_s * 1e6, w.posv * 1e6, w.cpu * 1e6, copy * 1e-9, gf / w.ours, gf / w.fast, gf / w.vendor,
                     w.cpu > 0 ? gf / w.cpu : 0.0, gs / w.ours_s, gs / w.vendor_s, w.choice.nt, w.choice.occ, w.left * 1e6,
                     csv_variants.c_str(), w.ours_s_elem * 1e6, w.posv_fused * 1e6, w.posv_two * 1e6, copy_s * 1e-9,
                     w.launch * 1e6, w.lda);
}

}  // namespace

int main(int argc, char** argv) {
    Config cfg;
    char complex_prec = 0;  // 'c' or 'z': the complex rows only
    try {
        starfact::support::Cli cli(argc, argv);
        while (!cli.done()) {
            const std::string f = cli.next();
            if (f == "--sizes") {
                const std::string v = cli.value();
                cfg.sizes.clear();
                if (v == "all") {
                    for (int n = 1; n <= 128; ++n) cfg.sizes.push_back(n);
                } else {
                    for (int64_t x : starfact::support::int_list(v, f, 1, 128)) cfg.sizes.push_back(static_cast<int>(x));
                }
            } else if (f == "--batches") {
                cfg.batches = starfact::support::int_list(cli.value(), f, 1, 2000000);
            } else if (f == "--prec") {
                const std::string p = cli.choice({"s", "d", "both", "c", "z"});
                cfg.single = p == "s" || p == "both";
                cfg.dbl = p == "d" || p == "both";
                complex_prec = p == "c" || p == "z" ? p[0] : 0;
            } else if (f == "--lda-pad") {
                cfg.lda_pad = static_cast<int>(cli.integer(0, 64));
            } else if (f == "--lda-align16") {
                cli.no_value();
                cfg.lda_align16 = true;
            } else if (f == "--quick") {
                cli.no_value();
                cfg.quick = true;
            } else if (f == "--no-cpu") {
                cli.no_value();
                cfg.cpu = false;
            } else if (f == "--csv") {
                cfg.csv = cli.value();
            } else if (starfact::support::timing_flag(cli, f, cfg.warmup, cfg.repeat, 100, 1000)) {
                continue;
            } else if (f == "--help") {
                std::printf(
                    "bench_batched_chol [--sizes 5,8,...|all] [--batches 10000,100000] [--prec s|d|both|c|z] [--no-cpu] [--quick]\n"
                    "                   [--lda-pad P | --lda-align16] [--csv FILE] [--warmup K] [--repeat R]\n"
                    "  --sizes     orders n (1..128), comma-separated, or all (default 5,8,16,24,32,33,48,64,80,95,96,100,128)\n"
                    "  --batches   batch counts (default 10000,100000)\n"
                    "  --prec      s, d or both (default both); c or z: the complex API (the vendor path) against the\n"
                    "              bare cuSOLVER/cuBLAS batched routines\n"
                    "  --no-cpu    skip the LAPACKE loop on the CPU (it runs for batches <= 10000)\n"
                    "  --lda-pad P leading dimension n + P instead of n (0..64, default 0): e.g. 1 puts odd n on 16-byte column\n"
                    "              boundaries in float, to separate the cost of unaligned columns from that of the order\n"
                    "  --lda-align16  leading dimension n rounded up to a multiple of 16 bytes (every column 16-byte\n"
                    "              aligned; overrides --lda-pad): the measurements behind the aligned kernel table\n"
                    "  --quick     skip the fast-math potrf, the forced potrf kernels (left-looking, resident variants) and\n"
                    "              the misaligned potrs (those columns read nan); posv's two paths are still timed\n"
                    "  --csv FILE  also write one CSV row per (precision, batch, n)\n"
                    "  --warmup K  untimed runs before the timed ones (default 3); --repeat R timed runs, median (default 10)\n");
                return 0;
            } else {
                cli.unknown();
            }
        }
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_batched_chol: %s\n", e.what());
        return 2;
    }
    cudaDeviceProp prop;
    STARFACT_BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    const std::string lda_rule = cfg.lda_align16 ? "n rounded up to 16 bytes" : "n + " + std::to_string(cfg.lda_pad);
    std::printf("device: %s, %d SMs; batched Cholesky (lower), strided, lda = %s; medians of %d runs after %d warm-ups\n",
                prop.name, prop.multiProcessorCount, lda_rule.c_str(), cfg.repeat, cfg.warmup);
    std::printf("GF/s with LAWN 41 flops; %% copy = GB/s (brief bytes: potrf 2n^2, potrs n^2+2n) / GB/s of a copy of the "
                "same bytes (potrf's, potrs's); touched = lower-triangle bytes; xR = time ratio (other / ours)\n");
    std::FILE* csv = cfg.csv.empty() ? nullptr : std::fopen(cfg.csv.c_str(), "w");
    if (csv)
        std::fprintf(csv, "prec,batch,n,potrf_us,potrf_fast_us,cusolver_potrf_us,potrs_us,cusolver_potrs_us,posv_us,"
                          "cpu_us,copy_GBs,gflops,gflops_fast,gflops_cusolver,gflops_cpu,gflops_potrs,"
                          "gflops_cusolver_potrs,kernel_nt,kernel_occ,left_us,resident_variants_us,potrs_elem_us,"
                          "posv_fused_us,posv_two_pass_us,copy_potrs_GBs,empty_kernel_us,lda\n");
    cudaStream_t st;
    STARFACT_BENCH_CUDA(cudaStreamCreate(&st));
    if (complex_prec) {
        namespace cb = starfact::bench::complex_batched;
        if (complex_prec == 'c') cb::cholesky<std::complex<float>>(cfg.sizes, cfg.batches, cfg.warmup, cfg.repeat, st);
        else cb::cholesky<std::complex<double>>(cfg.sizes, cfg.batches, cfg.warmup, cfg.repeat, st);
        cudaStreamDestroy(st);
        if (csv) std::fclose(csv);
        return 0;
    }
    cusolverDnHandle_t sol;
    STARFACT_BENCH_STATUS(cusolverDnCreate(&sol));
    STARFACT_BENCH_STATUS(cusolverDnSetStream(sol, st));
    for (int prec = 0; prec < 2; ++prec) {
        if ((prec == 0 && !cfg.single) || (prec == 1 && !cfg.dbl)) continue;
        for (int64_t batch : cfg.batches)
            for (int n : cfg.sizes) {
                if (prec == 0) print(bench_one<float>(n, batch, cfg, st, sol), sizeof(float), csv);
                else print(bench_one<double>(n, batch, cfg, st, sol), sizeof(double), csv);
            }
    }
    cusolverDnDestroy(sol);
    cudaStreamDestroy(st);
    if (csv) std::fclose(csv);
    return 0;
}
