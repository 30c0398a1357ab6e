// bench_potrf_tile: one n x n matrix factored on one GPU by our tile kernel (kernels/potf2/: the
// one-stream blocked form and the two-stream look-ahead form) against cusolverDnXpotrf on the same device
// data in the same run: median times (CUDA events on the caller's stream, launched from an idle GPU, so
// host enqueue latency counts as it does for a lone call), TFLOP/s, ratio cusolver / ours, and the scaled
// residual ||A - L L^T||_1 / (||A||_1 n eps) of every configuration (computed on the device).
// --sweep times a grid of configurations per (precision, n) and prints the best: the rows of the tuning
// table in kernels/potf2/potf2_tuning.hpp.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"
#include "starfact/check.hpp"
#include "starfact/cholesky.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"
#include "support/reference.hpp"

using starfact::detail::gpu::Potf2Aux;
using starfact::detail::gpu::Potf2Config;
namespace sb = starfact::bench;

namespace {

const char* kHelp =
    "bench_potrf_tile: one n x n matrix on one GPU, our tile kernel vs cusolverDnXpotrf (same data, same run)\n"
    "  --n LIST        orders, comma separated (default 1024,2048,3000,4096,6000,8192,12288,16384)\n"
    "  --prec P        s, d or both (default both)\n"
    "  --warmup N      untimed runs first (default 3)\n"
    "  --repeat N      timed runs; medians are printed (default 7)\n"
    "  --cutoff N      panel width / leaf order in [16, 128] (default: tuning table)\n"
    "  --group N       two-stream form with groups of N columns; 0: the one-stream blocked form (default: table)\n"
    "  --bulk-piece N  columns per piece of the bulk update of the two-stream form; 0: auto (default: table)\n"
    "  --sweep         time a grid of configurations per (precision, n), print the best of each (table rows)\n"
    "  --csv           comma-separated rows\n"
    "  --help          this text\n"
    "columns: prec n config ours_ms cusolver_ms ratio(cusolver/ours) ours_TFLOPs cusolver_TFLOPs res_ours "
    "res_cusolver\n";

struct Options {
    std::vector<int> ns{1024, 2048, 3000, 4096, 6000, 8192, 12288, 16384};
    std::string prec = "both";
    int warmup = 3, repeat = 7;
    int cutoff = 0, group = -1, bulk_piece = -1;
    bool sweep = false, csv = false;
};

Options parse(int argc, char** argv) {
    Options o;
    starfact::support::Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
        } else if (f == "--n") {
            o.ns.clear();
            for (int64_t n : starfact::support::int_list(cli.value(), "--n", 1, 46340)) o.ns.push_back(static_cast<int>(n));
        }
        else if (f == "--prec") o.prec = cli.choice({"s", "d", "both"});
        else if (starfact::support::timing_flag(cli, f, o.warmup, o.repeat, 1000, 1000)) continue;
        else if (f == "--cutoff") o.cutoff = static_cast<int>(cli.integer(starfact::detail::gpu::kPotf2MinCutoff,
                                                                          starfact::detail::gpu::kPotf2LeafMax));
        else if (f == "--group") o.group = static_cast<int>(cli.integer(0, 1 << 16));
        else if (f == "--bulk-piece") o.bulk_piece = static_cast<int>(cli.integer(0, 1 << 16));
        else if (f == "--sweep") { cli.no_value(); o.sweep = true; }
        else if (f == "--csv") { cli.no_value(); o.csv = true; }
        else cli.unknown();
    }
    return o;
}

/// The caller's stream and cuBLAS handle, and the second stream set (Potf2Aux), as a CUDA worker has them.
struct Streams {
    cudaStream_t main = nullptr;
    cublasHandle_t cublas = nullptr;
    Potf2Aux aux;
    Streams() {
        int least = 0, greatest = 0;
        STARFACT_BENCH_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        STARFACT_BENCH_CUDA(cudaStreamCreate(&main));
        STARFACT_BENCH_CUDA(cudaStreamCreateWithPriority(&aux.stream, cudaStreamNonBlocking, greatest));
        STARFACT_BENCH_STATUS(cublasCreate(&cublas));
        STARFACT_BENCH_STATUS(cublasSetStream(cublas, main));
        STARFACT_BENCH_STATUS(cublasCreate(&aux.cublas));
        STARFACT_BENCH_STATUS(cublasSetStream(aux.cublas, aux.stream));
        for (cudaEvent_t& e : aux.events) STARFACT_BENCH_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    ~Streams() {
        cudaDeviceSynchronize();
        for (cudaEvent_t e : aux.events) cudaEventDestroy(e);
        cublasDestroy(aux.cublas);
        cublasDestroy(cublas);
        cudaStreamDestroy(aux.stream);
        cudaStreamDestroy(main);
    }
};

std::string name(const Potf2Config& c) {
    if (c.group > 0)
        return "la c" + std::to_string(c.cutoff) + " g" + std::to_string(c.group) + " p" + std::to_string(c.bulk_piece);
    return std::string(c.blocked ? "blocked" : "recursive") + " c" + std::to_string(c.cutoff);
}

struct Result {
    double seconds = 0, residual = -1;
    int info = 0;
};

template <typename T>
struct Problem {
    int n;
    starfact::support::DeviceReference<T> ref;
    T* work = nullptr;
    int* info = nullptr;
    void* ws = nullptr;
    static constexpr size_t kWs = 256;
    Problem(int n_, const std::vector<T>& host) : n(n_), ref(n_, host.data()) {
        STARFACT_BENCH_CUDA(cudaMalloc(&work, static_cast<size_t>(n) * n * sizeof(T)));
        STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int)));
        STARFACT_BENCH_CUDA(cudaMalloc(&ws, kWs));
    }
    ~Problem() {
        cudaFree(work);
        cudaFree(info);
        cudaFree(ws);
    }
    Result run(const Streams& s, const Potf2Config& c, const Options& o) {
        const size_t bytes = static_cast<size_t>(n) * n * sizeof(T);
        Result r;
        r.seconds = sb::time_median(
            s.main, o.warmup, o.repeat,
            [&](cudaStream_t st) {
                starfact::detail::gpu::potf2_tile_tuned<T>(c, s.cublas, st, n, work, n, info, 0, ws, kWs, &s.aux);
            },
            [&](cudaStream_t st) {
                STARFACT_BENCH_CUDA(cudaMemcpyAsync(work, ref.original(), bytes, cudaMemcpyDeviceToDevice, st));
                STARFACT_BENCH_CUDA(cudaMemsetAsync(info, 0, sizeof(int), st));
            });
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(s.main));
        STARFACT_BENCH_CUDA(cudaMemcpy(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost));
        if (r.info == 0) r.residual = ref.residual_of_device(work, n);
        return r;
    }
};

/// The grid of --sweep: the one-stream blocked form, and the two-stream form by panel width, group and
/// bulk piece (a quarter of the update, or one piece).
std::vector<Potf2Config> sweep_configs(int n) {
    std::vector<Potf2Config> v;
    v.push_back(Potf2Config{8, 64, false, false, true, true});
    v.push_back(Potf2Config{8, 128, false, false, true, true});
    for (int cutoff : {64, 128})
        for (int group : {256, 512, 1024})
            for (int piece : {0, 1 << 16}) {
                if (group >= n) continue;
                Potf2Config c{8, cutoff, false, false, true, true};
                c.group = group;
                c.bulk_piece = piece;
                v.push_back(c);
            }
    return v;
}

double tflops(int n, double s) { return starfact::potrf_flops(n) / s * 1e-12; }

template <typename T>
bool bench(const Options& o, const Streams& s, int n, const char* prec) {
    std::vector<T> host(static_cast<size_t>(n) * n);
    starfact::random_symmetric<T>(n, host.data(), n, 1, static_cast<double>(n));
    Problem<T> p(n, host);
    const starfact::support::VendorRun v = p.ref.cusolver_potrf(o.warmup, o.repeat, true);
    const double vs = sb::median(v.seconds);
    bool ok = v.info == 0;
    auto row = [&](const Potf2Config& c, const Result& r, const char* mark) {
        const bool good = r.info == 0 && r.residual >= 0 && r.residual < 60;
        ok = ok && good;
        if (o.csv)
            std::printf("%s,%d,%s,%.4f,%.4f,%.3f,%.2f,%.2f,%.3g,%.3g,%d%s\n", prec, n, name(c).c_str(), r.seconds * 1e3,
                        vs * 1e3, vs / r.seconds, tflops(n, r.seconds), tflops(n, vs), r.residual, v.residual, r.info,
                        mark);
        else
            std::printf("%-4s %6d %-22s %9.3f %11.3f %6.3f %7.2f %8.2f %9.3g %9.3g%s%s\n", prec, n, name(c).c_str(),
                        r.seconds * 1e3, vs * 1e3, vs / r.seconds, tflops(n, r.seconds), tflops(n, vs), r.residual,
                        v.residual, good ? "" : "  FAILED", mark);
        std::fflush(stdout);
    };
    Potf2Config table = starfact::detail::gpu::potf2_default_config<T>(n);
    if (!o.sweep) {
        if (o.cutoff) table.cutoff = o.cutoff;
        if (o.group >= 0) table.group = o.group;
        if (o.bulk_piece >= 0) table.bulk_piece = o.bulk_piece;
        row(table, p.run(s, table, o), "");
        return ok;
    }
    Potf2Config best = table;
    double best_s = 1e300;
    for (const Potf2Config& c : sweep_configs(n)) {
        const Result r = p.run(s, c, o);
        row(c, r, "");
        if (r.info == 0 && r.residual < 60 && r.seconds < best_s) {
            best_s = r.seconds;
            best = c;
        }
    }
    row(table, p.run(s, table, o), "  (table)");
    std::printf("%sbest %s n=%d: %s, %.3f ms, x%.3f cusolver\n", o.csv ? "# " : "", prec, n, name(best).c_str(),
                best_s * 1e3, vs / best_s);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!starfact::support::parse_command_line("bench_potrf_tile", parse, argc, argv, o)) return 1;
    cudaDeviceProp prop{};
    if (!starfact::support::first_cuda_device("bench_potrf_tile", prop, stderr, "no CUDA device")) return 77;
    std::printf("%sbench_potrf_tile on %s; warmup %d, median of %d; cusolverDnXpotrf on the same data\n",
                o.csv ? "# " : "", prop.name, o.warmup, o.repeat);
    if (o.csv)
        std::printf("prec,n,config,ours_ms,cusolver_ms,ratio,ours_TFLOPs,cusolver_TFLOPs,res_ours,res_cusolver,info\n");
    else
        std::printf("prec      n config                   ours_ms cusolver_ms  ratio  ours_TF cusolv_TF  res_ours "
                    "res_cusol\n");
    Streams s;
    bool ok = true;
    for (int n : o.ns) {
        if (o.prec != "d") ok = bench<float>(o, s, n, "s") && ok;
        if (o.prec != "s") ok = bench<double>(o, s, n, "d") && ok;
    }
    return ok ? 0 : 2;
}
