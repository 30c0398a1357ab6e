// bench_potf2: one nb x nb diagonal tile, fused potf2 (kernels/potf2/) vs cusolverDnXpotrf on the
// same device data in the same run (input restored before every run, untimed): median times (CUDA
// events, after warm-up), GFLOP/s (n^3/3), ratio, achieved GB/s vs a device-to-device copy, residuals.
// --sweep times every compiled (ib, cut-off, looped), GPU time (queued), and prints the best per
// (precision, nb): the tuning table. With the batched Cholesky module in the build, tiles of order <= 128
// are also factored by its small-matrix kernel with a batch of one (the "leaf" line): is it ever the faster
// diagonal-tile kernel (a leaf for tiny diagonal tiles)?
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#include "starfact/check.hpp"
#include "support/cli.hpp"
#ifdef STARFACT_BENCH_BATCHED_LEAF
#include "starfact/batched_cholesky.hpp"
#endif

using starfact::detail::gpu::Potf2Config;
namespace sb = starfact::bench;

namespace {

struct Options {
    std::vector<int> nbs{64, 128, 256, 384, 512, 768, 1024, 2048};
    std::string prec = "both";
    int warmup = 5;
    int repeat = 20;
    int ib = 0;      // 0: tuning table
    int cutoff = 0;  // 0: tuning table
    int looped = -1; // -1: tuning table
    int rdiag = -1;  // -1: tuning table
    int blocked = -1; // -1: tuning table
    bool csv = false;
    bool sweep = false;
    bool autotune = false;
};

void usage() {
    std::printf(
        "bench_potf2: fused potf2 vs cusolverDnXpotrf on one nb x nb tile (same device data, same run)\n"
        "  --nb LIST      tile orders, comma separated (default 64,128,256,384,512,768,1024,2048)\n"
        "  --prec P       s, d or both (default both)\n"
        "  --warmup N     untimed runs before timing (default 5)\n"
        "  --repeat N     timed runs; the median is printed (default 20)\n"
        "  --ib N         inner blocking of the fused kernel (8 or 16; default: tuning table)\n"
        "  --cutoff N     recursion cut-off in [16, 128] (default: tuning table)\n"
        "  --looped 0|1   diagonal block by runtime loops (1) or unrolled registers (0) (default: table)\n"
        "  --rdiag 0|1    replicated-diagonal kernel (1; needs ib 8) or the left/right-looking leaf (0) (default: table)\n"
        "  --blocked 0|1  tiles above the cut-off: block columns (1) or recursive halving (0) (default: table)\n"
        "  --sweep        time every configuration per precision and nb (GPU time), print the best\n"
        "  --auto         --sweep, then the full row for the best configuration of each nb, and the\n"
        "                 tuning-table rows (kernels/potf2/potf2_tuning.hpp) they give\n"
        "  --csv          comma-separated output\n"
        "  --help         this text\n"
        "columns: prec nb ib cutoff looped; ours_us cusolver_us speedup (= cusolver/ours): launched from an idle GPU,\n"
        "         host launch latency included; *_q: queued behind a 1 ms spin kernel, GPU time only; host_us: one\n"
        "         potf2_tile call on the host; GFLOP/s (n^3/3) from the queued times; ours_GBs (lower triangle read\n"
        "         + written, queued) vs copy_GBs (cudaMemcpy D2D of the tile); residuals ||A-LL^T||/(||A|| n eps)\n"
        "leaf lines (builds with the batched Cholesky module, nb <= 128): the same tile through\n"
        "         starfact::batched::device::potrf with a batch of one, cold and queued, and ours_q / leaf_q\n");
}

Options parse(int argc, char** argv) {
    Options o;
    starfact::support::Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            usage();
            std::exit(0);
        } else if (f == "--nb") {
            o.nbs.clear();
            for (int64_t nb : starfact::support::int_list(cli.value(), "--nb", 1, 16384)) o.nbs.push_back(static_cast<int>(nb));
        } else if (f == "--prec") {
            o.prec = cli.choice({"s", "d", "both"});
        } else if (f == "--warmup") {
            o.warmup = static_cast<int>(cli.integer(0, 1000));
        } else if (f == "--repeat") {
            o.repeat = static_cast<int>(cli.integer(1, 10000));
        } else if (f == "--ib") {
            o.ib = static_cast<int>(cli.integer(8, 16));
            if (o.ib != 8 && o.ib != 16) throw std::invalid_argument("--ib must be 8 or 16");
        } else if (f == "--cutoff") {
            o.cutoff = static_cast<int>(cli.integer(starfact::detail::gpu::kPotf2MinCutoff,
                                                    starfact::detail::gpu::kPotf2LeafMax));
        } else if (f == "--looped") {
            o.looped = static_cast<int>(cli.integer(0, 1));
        } else if (f == "--rdiag") {
            o.rdiag = static_cast<int>(cli.integer(0, 1));
        } else if (f == "--blocked") {
            o.blocked = static_cast<int>(cli.integer(0, 1));
        } else if (f == "--csv") {
            cli.no_value();
            o.csv = true;
        } else if (f == "--sweep") {
            cli.no_value();
            o.sweep = true;
        } else if (f == "--auto") {
            cli.no_value();
            o.autotune = true;
        } else {
            cli.unknown();
        }
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
double time_ours(const Handles& h, const Tile<T>& t, const Potf2Config& c, const Options& o, bool queued) {
    return sb::time_median(
        h.stream, o.warmup, o.repeat,
        [&](cudaStream_t s) {
            starfact::detail::gpu::potf2_tile_tuned<T>(c, h.cublas, s, t.n, t.work, t.n, t.info, 0, t.ws, Tile<T>::kWs);
        },
        [&](cudaStream_t s) { prepare_run(t, s, queued); });
}

/// Median host time of one potf2_tile call (argument checks + enqueue), the stream drained in between.
template <typename T>
double host_enqueue(const Handles& h, const Tile<T>& t, const Potf2Config& c) {
    std::vector<double> v;
    for (int r = 0; r < 15; ++r) {
        t.reset(h.stream);
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
        const auto t0 = std::chrono::steady_clock::now();
        starfact::detail::gpu::potf2_tile_tuned<T>(c, h.cublas, h.stream, t.n, t.work, t.n, t.info, 0, t.ws, Tile<T>::kWs);
        const auto t1 = std::chrono::steady_clock::now();
        v.push_back(std::chrono::duration<double>(t1 - t0).count());
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
    }
    return sb::median(v);
}

#ifdef STARFACT_BENCH_BATCHED_LEAF
/// The batched small-matrix Cholesky kernel on this one tile (batch of one, the library's tuned choice).
template <typename T>
double time_batched_leaf(const Handles& h, const Tile<T>& t, const Options& o, bool queued) {
    return sb::time_median(
        h.stream, o.warmup, o.repeat,
        [&](cudaStream_t s) { starfact::batched::device::potrf<T>(t.n, t.work, t.n, int64_t(t.n) * t.n, t.info, 1, s); },
        [&](cudaStream_t s) { prepare_run(t, s, queued); });
}
#endif

template <typename T>
double time_cusolver(const Handles& h, Tile<T>& t, const Options& o, bool queued) {
    return sb::time_median(
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

double gflops(int n, double s) { return double(n) * n * n / 3.0 / s * 1e-9; }

std::string name(const Potf2Config& c) {
    return "ib=" + std::to_string(c.ib) + " cutoff=" + std::to_string(c.cutoff) + (c.looped ? " looped" : "") +
           (c.rdiag ? " rdiag" : c.right_looking ? " right" : " left") + (c.blocked ? " blocked" : " recursive");
}

/// The configurations the sweep times (looped = false: the looped diagonal block lost everywhere).
std::vector<Potf2Config> sweep_configs(int n) {
    std::vector<Potf2Config> v;
    for (int ib : starfact::detail::gpu::kPotf2Ibs)
        for (bool rl : {false, true})
            for (bool blocked : {false, true})
                for (int cutoff : {32, 64, 96, 128}) {
                    if (blocked && n <= cutoff) continue;  // same as recursive: a single leaf
                    if (n <= cutoff && cutoff != 128) continue;  // single leaf: cut-off irrelevant
                    v.push_back(Potf2Config{ib, cutoff, false, rl, blocked});
                }
    for (bool blocked : {false, true})  // the replicated-diagonal kernel (ib 8 only)
        for (int cutoff : {32, 64, 96, 128}) {
            if (blocked && n <= cutoff) continue;
            if (n <= cutoff && cutoff != 128) continue;
            v.push_back(Potf2Config{8, cutoff, false, false, blocked, true});
        }
    return v;
}

/// Whether the factor now in t.work is a correct factorization (info 0, residual < 60); `res`: its residual.
template <typename T>
bool factor_ok(const Handles& h, const Tile<T>& t, double& res) {
    int info = -1;
    res = t.residual(h.stream, &info);
    return info == 0 && res < 60.0;
}

template <typename T>
bool bench_row(const Handles& h, const Options& o, Tile<T>& t, const Potf2Config& c);

template <typename T>
bool run_bench(const Handles& h, const Options& o) {
    bool ok = true;
    for (int n : o.nbs) {
        Tile<T> t(n, h.solver, h.params, 20240601u + n);
        Potf2Config c = starfact::detail::gpu::potf2_default_config<T>(n);
        if (o.ib) c.ib = o.ib;
        if (o.cutoff) c.cutoff = o.cutoff;
        if (o.looped >= 0) c.looped = o.looped != 0;
        if (o.rdiag >= 0) c.rdiag = o.rdiag != 0;
        if (o.blocked >= 0) c.blocked = o.blocked != 0;
        ok = bench_row<T>(h, o, t, c) && ok;
    }
    return ok;
}

#ifdef STARFACT_POTF2_PROFILE
}  // namespace
namespace starfact::detail::gpu {
void potf2_rdiag_clocks(long long* out, int count);
}
namespace {
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

template <typename T>
bool bench_row(const Handles& h, const Options& o, Tile<T>& t, const Potf2Config& c) {
    bool ok = true;
    const int n = t.n;
#ifdef STARFACT_POTF2_PROFILE
    if (c.rdiag) print_phases<T>(h, t, c);
#endif
    {
        const double ours = time_ours<T>(h, t, c, o, false);
        const double ours_q = time_ours<T>(h, t, c, o, true);
        const double host = host_enqueue<T>(h, t, c);
        int info_ours = -1, info_sol = -1;
        const double res_ours = t.residual(h.stream, &info_ours);
        const double vendor = time_cusolver<T>(h, t, o, false);
        const double vendor_q = time_cusolver<T>(h, t, o, true);
        const double res_sol = t.residual(h.stream, &info_sol);
        const double bytes = 2.0 * double(n) * (n + 1) / 2.0 * sizeof(T);
        const double copy = sb::copy_bandwidth(size_t(n) * n * sizeof(T), h.stream);
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

/// Times every sweep configuration for one tile; prints one line each; returns the fastest correct one.
template <typename T>
Potf2Config sweep_tile(const Handles& h, const Options& o, Tile<T>& t, bool& ok) {
    const int n = t.n;
    const double vendor = time_cusolver<T>(h, t, o, true);
    Potf2Config best{0, 0};
    double best_s = 0;
    for (const Potf2Config& c : sweep_configs(n)) {
        const double s = time_ours<T>(h, t, c, o, true);
        double res = 0;
        const bool good = factor_ok(h, t, res);
        ok = ok && good;
        std::printf(o.csv ? "sweep,%s,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.2f%s\n"
                          : "sweep %-2s nb=%5d ib=%2d cutoff=%3d looped=%d right=%d blocked=%d rdiag=%d %9.1f us  "
                            "(cusolver %9.1f us, x%.2f)%s\n",
                    prec_name<T>(), n, c.ib, c.cutoff, int(c.looped), int(c.right_looking), int(c.blocked),
                    int(c.rdiag), s * 1e6,
                    vendor * 1e6, vendor / s, good ? "" : " FAILED");
        if (good && (best.ib == 0 || s < best_s)) {
            best = c;
            best_s = s;
        }
    }
    std::printf(o.csv ? "best,%s,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.2f\n"
                      : "best  %-2s nb=%5d ib=%2d cutoff=%3d looped=%d right=%d blocked=%d rdiag=%d %9.1f us  "
                        "(cusolver %9.1f us, x%.2f)\n",
                prec_name<T>(), n, best.ib, best.cutoff, int(best.looped), int(best.right_looking), int(best.blocked),
                int(best.rdiag),
                best_s * 1e6, vendor * 1e6, vendor / best_s);
    std::fflush(stdout);
    return best;
}

template <typename T>
bool run_sweep(const Handles& h, const Options& o) {
    bool ok = true;
    std::vector<std::string> table;
    for (int n : o.nbs) {
        Tile<T> t(n, h.solver, h.params, 20240601u + n);
        const Potf2Config best = sweep_tile<T>(h, o, t, ok);
        if (o.autotune && best.ib != 0) ok = bench_row<T>(h, o, t, best) && ok;
        char row[160];
        std::snprintf(row, sizeof row, "{%d, {%d, %d, %s, %s, %s, %s}},", n, best.ib, best.cutoff,
                      best.looped ? "true" : "false", best.right_looking ? "true" : "false",
                      best.blocked ? "true" : "false", best.rdiag ? "true" : "false");
        table.push_back(row);
    }
    std::printf("table,%s: ", prec_name<T>());
    for (const auto& r : table) std::printf("%s ", r.c_str());
    std::printf("\n");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_potf2: %s\n", e.what());
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("bench_potf2: no CUDA device, nothing to do\n");
        return 0;
    }
    cudaDeviceProp prop{};
    STARFACT_BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("# bench_potf2 on %s (%d SMs); warmup %d, median of %d; cusolverDnXpotrf on the same data\n",
                prop.name, prop.multiProcessorCount, o.warmup, o.repeat);
    Handles h;
    bool ok = true;
    try {
        if (o.autotune) o.sweep = true;
        if ((!o.sweep || o.autotune) && !o.csv)
            std::printf("prec     nb  ib cutoff looped   ours_us cusolver_us speedup ours_q_us cusolver_q_us speedup_q host_us "
                        "ours_gflops cus_gflops  ours_GBs  copy_GBs  res_ours  res_cus\n");
        if ((!o.sweep || o.autotune) && o.csv)
            std::printf("prec,nb,ib,cutoff,looped,ours_us,cusolver_us,speedup,ours_q_us,cusolver_q_us,speedup_q,host_us,"
                        "ours_gflops,cusolver_gflops,ours_GBs,copy_GBs,res_ours,res_cusolver\n");
        for (const char* p : {"s", "d"}) {
            if (o.prec != "both" && o.prec != p) continue;
            if (p[0] == 's')
                ok = (o.sweep ? run_sweep<float>(h, o) : run_bench<float>(h, o)) && ok;
            else
                ok = (o.sweep ? run_sweep<double>(h, o) : run_bench<double>(h, o)) && ok;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_potf2: %s\n", e.what());
        return 1;
    }
    return ok ? 0 : 1;
}
