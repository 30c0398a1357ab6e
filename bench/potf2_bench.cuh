// The harness of the potf2 benches (bench/bench_potf2.cu, the library's configurations, and the tuning tool
// tools/tune/potf2/tune_potf2.cu, every configuration of the sweep): one nb x nb tile on the device, the
// fused potf2 through an entry point against cusolverDnXpotrf on the same data in the same run (input
// restored before every run, untimed), CUDA-event medians after warm-up, cold or queued behind a spin
// kernel, residuals, and the full bench row. With STARFACT_BENCH_BATCHED_LEAF (builds with the batched
// Cholesky module) tiles up to 128 are also factored by its small-matrix kernel with a batch of one; with
// STARFACT_POTF2_PROFILE (bench_potf2_prof) the rdiag kernel's phase clocks are printed.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#include "starfact/check.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"
#ifdef STARFACT_BENCH_BATCHED_LEAF
#include "starfact/batched_cholesky.hpp"
#endif

#ifdef STARFACT_POTF2_PROFILE
namespace starfact::detail::gpu {
void potf2_rdiag_clocks(long long* out, int count);
}
#endif

namespace starfact::bench::potf2 {

using starfact::detail::gpu::Potf2Aux;
using starfact::detail::gpu::Potf2Config;

/// A potf2 entry point with an explicit configuration (the library's potf2_tile_tuned, or the tool's).
template <typename T>
using Entry = void (*)(const Potf2Config&, cublasHandle_t, cudaStream_t, int, T*, int, int*, int64_t, void*, size_t,
                       const Potf2Aux*);

/// The options every potf2 bench has.
struct Options {
    std::vector<int> nbs{64, 128, 256, 384, 512, 768, 1024, 2048};
    std::string prec = "both";
    int warmup = 5;
    int repeat = 20;
    bool csv = false;
    int cutoff = 0;    // 0: tuning table
    int blocked = -1;  // -1: tuning table

    /// The tuning table's configuration changed by --cutoff and --blocked.
    void adjust(Potf2Config& c) const {
        if (cutoff) c.cutoff = cutoff;
        if (blocked >= 0) c.blocked = blocked != 0;
    }
};

/// The help lines of Options' flags.
constexpr const char* kOptionsHelp =
    "  --nb LIST      tile orders, comma separated (default 64,128,256,384,512,768,1024,2048)\n"
    "  --prec P       s, d or both (default both)\n"
    "  --warmup N     untimed runs before timing (default 5)\n"
    "  --repeat N     timed runs; the median is printed (default 20)\n"
    "  --csv          comma-separated output\n"
    "  --cutoff N     leaf order / block-column width in [16, 128] (default: tuning table)\n"
    "  --blocked 0|1  tiles above the cut-off: block columns (1) or recursive halving (0) (default: table)\n"
    "  --help         this text\n";

/// What bench_row prints, for the help texts.
constexpr const char* kColumnsHelp =
    "columns: prec nb ib cutoff looped; ours_us cusolver_us speedup (= cusolver/ours): launched from an idle GPU,\n"
    "         host launch latency included; *_q: queued behind a 1 ms spin kernel, GPU time only; host_us: one\n"
    "         potf2_tile call on the host; GFLOP/s (n^3/3) from the queued times; ours_GBs (lower triangle read\n"
    "         + written, queued) vs copy_GBs (cudaMemcpy D2D of the tile); residuals ||A-LL^T||/(||A|| n eps)\n"
    "leaf lines (builds with the batched Cholesky module, nb <= 128): the same tile through\n"
    "         starfact::batched::device::potrf with a batch of one, cold and queued, and ours_q / leaf_q\n";

/// Handles Options' flags (--nb, --prec, --warmup, --repeat, --csv, --cutoff, --blocked); true if `flag` was
/// one of them.
inline bool option_flag(support::Cli& cli, const std::string& flag, Options& o) {
    if (support::timing_flag(cli, flag, o.warmup, o.repeat, 1000, 10000)) return true;
    if (flag == "--nb") {
        o.nbs.clear();
        for (int64_t nb : support::int_list(cli.value(), "--nb", 1, 16384)) o.nbs.push_back(static_cast<int>(nb));
    } else if (flag == "--prec") {
        o.prec = cli.choice({"s", "d", "both"});
    } else if (flag == "--csv") {
        cli.no_value();
        o.csv = true;
    } else if (flag == "--cutoff") {
        o.cutoff = static_cast<int>(
            cli.integer(starfact::detail::gpu::kPotf2MinCutoff, starfact::detail::gpu::kPotf2LeafMax));
    } else if (flag == "--blocked") {
        o.blocked = static_cast<int>(cli.integer(0, 1));
    } else {
        return false;
    }
    return true;
}

/// The command line of a potf2 bench: Options' flags, "--help" (usage(), exit 0), and the rest through
/// more(cli, flag, o), which returns false for a flag it does not know. Throws std::invalid_argument.
template <typename O, typename More>
O parse_options(int argc, char** argv, void (*usage)(), More more) {
    O o;
    support::Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            usage();
            std::exit(0);
        }
        if (!option_flag(cli, f, o) && !more(cli, f, o)) cli.unknown();
    }
    return o;
}

/// Keeps the GPU busy for about `ns` nanoseconds: launched before a timed region, it lets the host enqueue
/// the whole region before the GPU reaches it, so that the events measure GPU time only ("queued").
__global__ void spin_kernel(long long ns) {
    long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

template <typename T> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }

/// Device data of one tile order: the SPD input, the working copy, info, workspaces.
template <typename T>
struct Tile {
    int n;
    std::vector<T> host;
    T* orig = nullptr;
    T* work = nullptr;
    int* info = nullptr;
    void* ws = nullptr;
    void* sol_dev = nullptr;
    std::vector<char> sol_host;
    size_t sol_dev_bytes = 0;
    static constexpr size_t kWs = 4096;

    Tile(int n_, cusolverDnHandle_t sol, cusolverDnParams_t params, uint64_t seed) : n(n_), host(size_t(n_) * n_) {
        starfact::random_symmetric<T>(n, host.data(), n, seed, static_cast<double>(n));
        const size_t bytes = host.size() * sizeof(T);
        STARFACT_BENCH_CUDA(cudaMalloc(&orig, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&work, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int)));
        STARFACT_BENCH_CUDA(cudaMalloc(&ws, kWs));
        STARFACT_BENCH_CUDA(cudaMemcpy(orig, host.data(), bytes, cudaMemcpyHostToDevice));
        size_t hb = 0;
        STARFACT_BENCH_STATUS(cusolverDnXpotrf_bufferSize(sol, params, CUBLAS_FILL_MODE_LOWER, n, cuda_type<T>(), work, n,
                                                   cuda_type<T>(), &sol_dev_bytes, &hb));
        STARFACT_BENCH_CUDA(cudaMalloc(&sol_dev, std::max<size_t>(sol_dev_bytes, 1)));
        sol_host.resize(std::max<size_t>(hb, 1));
    }
    ~Tile() {
        cudaFree(orig);
        cudaFree(work);
        cudaFree(info);
        cudaFree(ws);
        cudaFree(sol_dev);
    }
    void reset(cudaStream_t s) const {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(work, orig, host.size() * sizeof(T), cudaMemcpyDeviceToDevice, s));
        STARFACT_BENCH_CUDA(cudaMemsetAsync(info, 0, sizeof(int), s));
    }
    /// Residual of the factor now in `work` (and the info), after the stream's work is done.
    double residual(cudaStream_t s, int* info_out) const {
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(s));
        std::vector<T> L(host.size());
        STARFACT_BENCH_CUDA(cudaMemcpy(L.data(), work, L.size() * sizeof(T), cudaMemcpyDeviceToHost));
        STARFACT_BENCH_CUDA(cudaMemcpy(info_out, info, sizeof(int), cudaMemcpyDeviceToHost));
        return starfact::potrf_residual<T>(n, host.data(), n, L.data(), n);
    }
};

struct Handles {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    cusolverDnParams_t params = nullptr;
    Handles() {
        STARFACT_BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        STARFACT_BENCH_STATUS(cublasCreate(&cublas));
        STARFACT_BENCH_STATUS(cublasSetStream(cublas, stream));
        STARFACT_BENCH_STATUS(cusolverDnCreate(&solver));
        STARFACT_BENCH_STATUS(cusolverDnSetStream(solver, stream));
        STARFACT_BENCH_STATUS(cusolverDnCreateParams(&params));
    }
    ~Handles() {
        cusolverDnDestroyParams(params);
        cusolverDnDestroy(solver);
        cublasDestroy(cublas);
        cudaStreamDestroy(stream);
    }
};

/// Untimed step before each run: restore the input; `queued`: then keep the GPU busy while the host enqueues.
template <typename T>
void prepare_run(const Tile<T>& t, cudaStream_t s, bool queued) {
    t.reset(s);
    if (queued) spin_kernel<<<1, 1, 0, s>>>(1000000);  // 1 ms: covers the enqueue of the largest tile
}

template <typename T>
double time_ours(const Handles& h, const Tile<T>& t, const Potf2Config& c, const Options& o, bool queued,
                 Entry<T> entry) {
    return time_median(
        h.stream, o.warmup, o.repeat,
        [&](cudaStream_t s) { entry(c, h.cublas, s, t.n, t.work, t.n, t.info, 0, t.ws, Tile<T>::kWs, nullptr); },
        [&](cudaStream_t s) { prepare_run(t, s, queued); });
}

/// Median host time of one potf2_tile call (argument checks + enqueue), the stream drained in between.
template <typename T>
double host_enqueue(const Handles& h, const Tile<T>& t, const Potf2Config& c, Entry<T> entry) {
    std::vector<double> v;
    for (int r = 0; r < 15; ++r) {
        t.reset(h.stream);
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
        const auto t0 = std::chrono::steady_clock::now();
        entry(c, h.cublas, h.stream, t.n, t.work, t.n, t.info, 0, t.ws, Tile<T>::kWs, nullptr);
        const auto t1 = std::chrono::steady_clock::now();
        v.push_back(std::chrono::duration<double>(t1 - t0).count());
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
    }
    return median(v);
}

#ifdef STARFACT_BENCH_BATCHED_LEAF
/// The batched small-matrix Cholesky kernel on this one tile (batch of one, the library's tuned choice).
template <typename T>
double time_batched_leaf(const Handles& h, const Tile<T>& t, const Options& o, bool queued) {
    return time_median(
        h.stream, o.warmup, o.repeat,
        [&](cudaStream_t s) { starfact::batched::device::potrf<T>(t.n, t.work, t.n, int64_t(t.n) * t.n, t.info, 1, s); },
        [&](cudaStream_t s) { prepare_run(t, s, queued); });
}
#endif

template <typename T>
double time_cusolver(const Handles& h, Tile<T>& t, const Options& o, bool queued) {
    return time_median(
        h.stream, o.warmup, o.repeat,
        [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(cusolverDnXpotrf(h.solver, h.params, CUBLAS_FILL_MODE_LOWER, t.n, cuda_type<T>(), t.work, t.n,
                                            cuda_type<T>(), t.sol_dev, t.sol_dev_bytes, t.sol_host.data(),
                                            t.sol_host.size(), t.info));
        },
        [&](cudaStream_t s) { prepare_run(t, s, queued); });
}

template <typename T>
const char* prec_name() {
    return sizeof(T) == 4 ? "s" : "d";
}

inline double gflops(int n, double s) { return double(n) * n * n / 3.0 / s * 1e-9; }

inline std::string name(const Potf2Config& c) {
    return "ib=" + std::to_string(c.ib) + " cutoff=" + std::to_string(c.cutoff) + (c.looped ? " looped" : "") +
           (c.rdiag ? " rdiag" : c.right_looking ? " right" : " left") + (c.blocked ? " blocked" : " recursive");
}

/// Whether the factor now in t.work is a correct factorization (info 0, residual < 60); `res`: its residual.
template <typename T>
bool factor_ok(const Handles& h, const Tile<T>& t, double& res) {
    int info = -1;
    res = t.residual(h.stream, &info);
    return info == 0 && res < 60.0;
}

#ifdef STARFACT_POTF2_PROFILE
/// Phase clocks of the rdiag kernel's last launch (block 0): load, then per panel (A) and (C), write-back.
template <typename T>
void print_phases(const Handles& h, const Tile<T>& t, const Potf2Config& c) {
    constexpr int kMarks = 2 + 2 * 128 / 8 + 2;
    long long clk[kMarks];
    std::fill(clk, clk + kMarks, -1LL);
    t.reset(h.stream);
    STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
    starfact::detail::gpu::potf2_tile_tuned<T>(c, h.cublas, h.stream, t.n, t.work, t.n, t.info, 0, t.ws, Tile<T>::kWs);
    STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
    starfact::detail::gpu::potf2_rdiag_clocks(clk, kMarks);
    std::printf("phases %s nb=%d (cycles): load %lld |", prec_name<T>(), t.n, clk[1] - clk[0]);
    long long prev = clk[1];
    for (int k = 0; k < 16; ++k) {
        const long long a = clk[2 + 2 * k], cc = clk[3 + 2 * k];
        if (a <= 0 || a < prev) break;
        std::printf(" A%d %lld", k, a - prev);
        prev = a;
        if (cc > prev) {
            std::printf(" C%d %lld", k, cc - prev);
            prev = cc;
        }
    }
    std::printf(" | end %lld | total %lld\n", clk[kMarks - 1] - prev, clk[kMarks - 1] - clk[0]);
}
#endif

/// The full row of configuration c on tile t (the entry point `entry`): ours and cuSOLVER, cold and queued,
/// host time, GFLOP/s, bandwidth, residuals; the "leaf" line in builds with the batched module.
template <typename T>
bool bench_row(const Handles& h, const Options& o, Tile<T>& t, const Potf2Config& c, Entry<T> entry) {
    bool ok = true;
    const int n = t.n;
#ifdef STARFACT_POTF2_PROFILE
    if (c.rdiag) print_phases<T>(h, t, c);
#endif
    {
        const double ours = time_ours<T>(h, t, c, o, false, entry);
        const double ours_q = time_ours<T>(h, t, c, o, true, entry);
        const double host = host_enqueue<T>(h, t, c, entry);
        int info_ours = -1, info_sol = -1;
        const double res_ours = t.residual(h.stream, &info_ours);
        const double vendor = time_cusolver<T>(h, t, o, false);
        const double vendor_q = time_cusolver<T>(h, t, o, true);
        const double res_sol = t.residual(h.stream, &info_sol);
        const double bytes = 2.0 * double(n) * (n + 1) / 2.0 * sizeof(T);
        const double copy = copy_bandwidth(size_t(n) * n * sizeof(T), h.stream);
        const bool good = info_ours == 0 && info_sol == 0 && res_ours < 60.0;
        ok = ok && good;
        std::printf(o.csv ? "%s,%d,%d,%d,%d,%.1f,%.1f,%.2f,%.1f,%.1f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3g,%.3g%s\n"
                          : "%-4s %6d %3d %6d %6d %9.1f %11.1f %7.2f %9.1f %13.1f %9.2f %7.1f %11.1f %10.1f %9.1f %9.1f %9.3g %9.3g%s\n",
                    prec_name<T>(), n, c.ib, c.cutoff, int(c.looped), ours * 1e6, vendor * 1e6, vendor / ours,
                    ours_q * 1e6, vendor_q * 1e6, vendor_q / ours_q, host * 1e6, gflops(n, ours_q), gflops(n, vendor_q),
                    bytes / ours_q * 1e-9, copy * 1e-9, res_ours, res_sol,
                    good ? "" : (o.csv ? ",FAILED" : "  FAILED"));
        std::printf(o.csv ? "config,%s,%d,%s\n" : "       config %s nb=%d: %s\n", prec_name<T>(), n, name(c).c_str());
#ifdef STARFACT_BENCH_BATCHED_LEAF
        if (n <= 128) {
            const double leaf = time_batched_leaf<T>(h, t, o, false), leaf_q = time_batched_leaf<T>(h, t, o, true);
            double res_leaf = 0;
            const bool leaf_ok = factor_ok(h, t, res_leaf);
            ok = ok && leaf_ok;
            std::printf(o.csv ? "leaf,%s,%d,%.1f,%.1f,%.2f,%.3g%s\n"
                              : "       leaf %s nb=%d: batched kernel, batch 1: %.1f us, queued %.1f us (ours_q / leaf_q = %.2f), "
                                "residual %.3g%s\n",
                        prec_name<T>(), n, leaf * 1e6, leaf_q * 1e6, ours_q / leaf_q, res_leaf,
                        leaf_ok ? "" : (o.csv ? ",FAILED" : "  FAILED"));
        }
#endif
        std::fflush(stdout);
    }
    return ok;
}

/// bench_row for every nb of o: the tuning table's configuration, changed by o.adjust and then adjust(config).
template <typename T, typename Adjust>
bool bench_rows(const Handles& h, const Options& o, Adjust adjust, Entry<T> entry) {
    bool ok = true;
    for (int n : o.nbs) {
        Tile<T> t(n, h.solver, h.params, 20240601u + n);
        Potf2Config c = starfact::detail::gpu::potf2_default_config<T>(n);
        o.adjust(c);
        adjust(c);
        ok = bench_row<T>(h, o, t, c, entry) && ok;
    }
    return ok;
}

/// The column header of bench_row's lines.
inline void print_row_header(bool csv) {
    if (!csv)
        std::printf("prec     nb  ib cutoff looped   ours_us cusolver_us speedup ours_q_us cusolver_q_us speedup_q host_us "
                    "ours_gflops cus_gflops  ours_GBs  copy_GBs  res_ours  res_cus\n");
    else
        std::printf("prec,nb,ib,cutoff,looped,ours_us,cusolver_us,speedup,ours_q_us,cusolver_q_us,speedup_q,host_us,"
                    "ours_gflops,cusolver_gflops,ours_GBs,copy_GBs,res_ours,res_cusolver\n");
}

}  // namespace starfact::bench::potf2
