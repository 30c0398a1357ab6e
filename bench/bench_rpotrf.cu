// bench_rpotrf: the recursive Cholesky (kernels/rpotrf/) of one n x n device-resident matrix against
// cusolverDnXpotrf on the same data in the same run: median times (CUDA events on the caller's stream), TFLOP/s,
// ratio cusolver / ours, and the scaled residual ||A - L L^T||_1 / (||A||_1 n eps) (orders up to --check-max).
// --sweep times a grid of configurations per (precision, n) and prints the best: the rows of
// kernels/rpotrf/rpotrf_tuning.hpp. Precision t: float storage with TF32 gemms (the mixed solve's factor),
// compared with cuSOLVER's spotrf; its residual is in float epsilons and is not checked.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/random_symmetric.hpp"
#include "kernels/rpotrf/rpotrf.hpp"
#include "kernels/rpotrf/rpotrf_tuning.hpp"
#include "starfact/check.hpp"
#include "starfact/cholesky.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"
#include "support/reference.hpp"

namespace sb = starfact::bench;
namespace gpu = starfact::detail::gpu;
using gpu::RpotrfConfig;
using gpu::RpotrfLeaf;

namespace {

const char* kHelp =
    "bench_rpotrf: the recursive Cholesky of one n x n device-resident matrix vs cusolverDnXpotrf (same data, same run)\n"
    "  --n LIST         orders, comma separated (default 3000,4096,6007,8192,11000,16384,20480)\n"
    "  --prec LIST      of s (float), d (double), t (float storage, TF32 gemms); default s,d\n"
    "  --warmup N       untimed runs first (default 2)\n"
    "  --repeat N       timed runs; medians are printed (default 5)\n"
    "  --leaf N         leaf order (default: the tuning table)\n"
    "  --leaf-kind K    fused or cusolver (default: the tuning table)\n"
    "  --trsm-base N    panel-solve recursion base, a multiple of 64 (default: the tuning table)\n"
    "  --syrk-base N    update recursion base (default: the tuning table)\n"
    "  --inverse 0|1    panel solves by the inverted leaf blocks (default: the tuning table)\n"
    "  --sweep          time a grid of configurations per (precision, n), print the best (table rows)\n"
    "  --profile        also print where the time of the table's configuration goes (leaves, panel solves, updates)\n"
    "  --check-max N    compute residuals up to this order (default 24576: the host copy of larger orders is slow)\n"
    "  --csv            comma-separated rows\n"
    "  --help           this text\n"
    "columns: prec n config ours_ms cusolver_ms ratio(cusolver/ours) ours_TFLOPs cusolver_TFLOPs res_ours "
    "res_cusolver\n";

struct Options {
    std::vector<int> ns{3000, 4096, 6007, 8192, 11000, 16384, 20480};
    std::vector<std::string> precs{"s", "d"};
    int warmup = 2, repeat = 5;
    int leaf = 0, trsm_base = 0, syrk_base = 0, inverse = -1;
    std::string leaf_kind;
    int check_max = 24576;
    bool sweep = false, csv = false, profile = false;
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
            for (int64_t n : starfact::support::int_list(cli.value(), "--n", 1, 46340 * 2)) o.ns.push_back(static_cast<int>(n));
        } else if (f == "--prec") {
            o.precs = starfact::support::split_list(cli.value());
            for (const std::string& s : o.precs)
                if (s != "s" && s != "d" && s != "t")
                    throw std::invalid_argument("--prec takes s, d and t (got '" + s + "')");
        } else if (starfact::support::timing_flag(cli, f, o.warmup, o.repeat, 1000, 1000)) {
            continue;
        } else if (f == "--leaf") o.leaf = static_cast<int>(cli.integer(64, 4096));
        else if (f == "--leaf-kind") o.leaf_kind = cli.choice({"fused", "cusolver"});
        else if (f == "--trsm-base") o.trsm_base = static_cast<int>(cli.integer(64, 1 << 16));
        else if (f == "--syrk-base") o.syrk_base = static_cast<int>(cli.integer(64, 1 << 16));
        else if (f == "--inverse") o.inverse = static_cast<int>(cli.integer(0, 1));
        else if (f == "--check-max") o.check_max = static_cast<int>(cli.integer(0, 1 << 20));
        else if (f == "--sweep") { cli.no_value(); o.sweep = true; }
        else if (f == "--profile") { cli.no_value(); o.profile = true; }
        else if (f == "--csv") { cli.no_value(); o.csv = true; }
        else cli.unknown();
    }
    return o;
}

struct Handles {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    Handles() {
        STARFACT_BENCH_CUDA(cudaStreamCreate(&stream));
        STARFACT_BENCH_STATUS(cublasCreate(&cublas));
        STARFACT_BENCH_STATUS(cublasSetStream(cublas, stream));
        STARFACT_BENCH_STATUS(cusolverDnCreate(&solver));
        STARFACT_BENCH_STATUS(cusolverDnSetStream(solver, stream));
    }
    ~Handles() {
        cudaDeviceSynchronize();
        cusolverDnDestroy(solver);
        cublasDestroy(cublas);
        cudaStreamDestroy(stream);
    }
};

std::string name(const RpotrfConfig& c) {
    return std::string(c.leaf_kind == RpotrfLeaf::Fused ? "fused" : "cusolver") + " l" + std::to_string(c.leaf) +
           (c.trsm_inverse ? std::string(" inv") : " t" + std::to_string(c.trsm_base)) + " s" +
           std::to_string(c.syrk_base);
}

struct Result {
    double seconds = 0, residual = -1;
    int info = 0;
};

constexpr uint64_t kSeed = 1;

/// One order of one precision: the vendor's reference, our work copy, the workspace.
template <typename T>
struct Problem {
    int n;
    bool checked;
    starfact::support::DeviceReference<T>* ref = nullptr;
    T* work = nullptr;
    int* info = nullptr;
    void* ws = nullptr;
    size_t ws_bytes = 0;
    Problem(int n_, bool check) : n(n_), checked(check) {
        if (checked) {
            std::vector<T> host(static_cast<size_t>(n) * n);
            starfact::random_symmetric<T>(n, host.data(), n, kSeed, static_cast<double>(n));
            ref = new starfact::support::DeviceReference<T>(n, host.data());
        } else {
            ref = new starfact::support::DeviceReference<T>(n, kSeed, static_cast<double>(n));
        }
        STARFACT_BENCH_CUDA(cudaMalloc(&work, static_cast<size_t>(n) * n * sizeof(T)));
        STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int)));
    }
    ~Problem() {
        delete ref;
        cudaFree(work);
        cudaFree(info);
        cudaFree(ws);
    }
    void reset(cudaStream_t st) {
        if (ref->original())
            STARFACT_BENCH_CUDA(cudaMemcpyAsync(work, ref->original(), static_cast<size_t>(n) * n * sizeof(T),
                                                cudaMemcpyDeviceToDevice, st));
        else
            STARFACT_BENCH_CUDA(gpu::launch_random_symmetric<T>(work, n, n, n, 0, 0, kSeed, static_cast<double>(n), st));
        STARFACT_BENCH_CUDA(cudaMemsetAsync(info, 0, sizeof(int), st));
    }
    Result run(const Handles& h, const RpotrfConfig& c, const Options& o) {
        const size_t need = gpu::rpotrf_workspace_bytes<T>(h.solver, n, c);
        if (need > ws_bytes) {
            cudaFree(ws);
            STARFACT_BENCH_CUDA(cudaMalloc(&ws, need));
            ws_bytes = need;
        }
        Result r;
        r.seconds = sb::time_median(
            h.stream, o.warmup, o.repeat,
            [&](cudaStream_t st) { gpu::rpotrf<T>(h.cublas, h.solver, st, n, work, n, info, 0, ws, ws_bytes, c); },
            [&](cudaStream_t st) { reset(st); });
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(h.stream));
        STARFACT_BENCH_CUDA(cudaMemcpy(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost));
        if (r.info == 0 && checked) r.residual = ref->residual_of_device(work, n);
        return r;
    }
    /// One untimed run with events around every operation (after the timed runs: the kernels are warm).
    void profile(const Handles& h, const RpotrfConfig& c, const std::string& prec) {
        gpu::RpotrfProfile prof;
        reset(h.stream);
        cudaEvent_t e0, e1;
        STARFACT_BENCH_CUDA(cudaEventCreate(&e0));
        STARFACT_BENCH_CUDA(cudaEventCreate(&e1));
        STARFACT_BENCH_CUDA(cudaEventRecord(e0, h.stream));
        gpu::rpotrf<T>(h.cublas, h.solver, h.stream, n, work, n, info, 0, ws, ws_bytes, c, &prof);
        STARFACT_BENCH_CUDA(cudaEventRecord(e1, h.stream));
        STARFACT_BENCH_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        STARFACT_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        prof.finish();
        const double total = ms * 1e-3;
        const double parts = prof.seconds[0] + prof.seconds[1] + prof.seconds[2];
        std::printf("# profile %s n=%d %s: total %.3f ms = leaves %.3f ms (%d) + panel solves %.3f ms (%d) + updates "
                    "%.3f ms (%d) + gaps %.3f ms\n",
                    prec.c_str(), n, name(c).c_str(), total * 1e3, prof.seconds[0] * 1e3, prof.calls[0],
                    prof.seconds[1] * 1e3, prof.calls[1], prof.seconds[2] * 1e3, prof.calls[2], (total - parts) * 1e3);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
};

/// The grid of --sweep.
std::vector<RpotrfConfig> sweep_configs(int n, int compute) {
    std::vector<RpotrfConfig> v;
    struct Leaf { int order; RpotrfLeaf kind; };
    std::vector<Leaf> leaves{{128, RpotrfLeaf::Fused}, {256, RpotrfLeaf::Fused}, {512, RpotrfLeaf::Fused},
                             {1024, RpotrfLeaf::Fused}, {512, RpotrfLeaf::Cusolver}, {1024, RpotrfLeaf::Cusolver}};
    if (!gpu::rpotrf_fused_leaf_available()) leaves = {{512, RpotrfLeaf::Cusolver}, {1024, RpotrfLeaf::Cusolver}};
    for (const Leaf& l : leaves) {
        if (l.order >= n && l.order != 128) continue;
        for (int inverse : {0, 1})
            for (int sb_ : {1024, 1 << 16}) {
                RpotrfConfig c;
                c.leaf = l.order;
                c.leaf_kind = l.kind;
                c.trsm_base = 256;
                c.trsm_inverse = inverse == 1;
                c.syrk_base = sb_;
                c.compute = compute;
                v.push_back(c);
            }
    }
    return v;
}

double tflops(int n, double s) { return starfact::potrf_flops(n) / s * 1e-12; }

template <typename T>
bool bench(const Options& o, const Handles& h, int n, const std::string& prec) {
    const int compute = prec == "t" ? 1 : 0;
    const bool check = n <= o.check_max;
    Problem<T> p(n, check);
    const starfact::support::VendorRun v = p.ref->cusolver_potrf(o.warmup, o.repeat, check);
    const double vs = sb::median(v.seconds);
    bool ok = v.info == 0;
    auto row = [&](const RpotrfConfig& c, const Result& r, const char* mark) {
        const bool good = r.info == 0 && (!check || compute || (r.residual >= 0 && r.residual < 60));
        ok = ok && good;
        const char* fmt = o.csv ? "%s,%d,%s,%.4f,%.4f,%.3f,%.2f,%.2f,%.3g,%.3g,%d%s\n"
                                : "%-4s %6d %-26s %9.3f %11.3f %6.3f %7.2f %8.2f %9.3g %9.3g %d%s";
        std::printf(fmt, prec.c_str(), n, name(c).c_str(), r.seconds * 1e3, vs * 1e3, vs / r.seconds,
                    tflops(n, r.seconds), tflops(n, vs), r.residual, v.residual, r.info, mark);
        if (!o.csv) std::printf("%s\n", good ? "" : "  FAILED");
        std::fflush(stdout);
    };
    RpotrfConfig table = gpu::rpotrf_default_config<T>(n, compute);
    if (o.leaf) table.leaf = o.leaf;
    if (!o.leaf_kind.empty()) table.leaf_kind = o.leaf_kind == "fused" ? RpotrfLeaf::Fused : RpotrfLeaf::Cusolver;
    if (o.trsm_base) table.trsm_base = o.trsm_base;
    if (o.syrk_base) table.syrk_base = o.syrk_base;
    if (o.inverse >= 0) table.trsm_inverse = o.inverse == 1;
    if (!o.sweep) {
        row(table, p.run(h, table, o), "");
        if (o.profile) p.profile(h, table, prec);
        return ok;
    }
    RpotrfConfig best = table;
    double best_s = 1e300;
    for (const RpotrfConfig& c : sweep_configs(n, compute)) {
        const Result r = p.run(h, c, o);
        row(c, r, "");
        if (r.info == 0 && r.seconds < best_s) {
            best_s = r.seconds;
            best = c;
        }
    }
    row(table, p.run(h, table, o), "  (table)");
    std::printf("%sbest %s n=%d: %s, %.3f ms, x%.3f cusolver\n", o.csv ? "# " : "", prec.c_str(), n,
                name(best).c_str(), best_s * 1e3, vs / best_s);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!starfact::support::parse_command_line("bench_rpotrf", parse, argc, argv, o)) return 1;
    cudaDeviceProp prop{};
    if (!starfact::support::first_cuda_device("bench_rpotrf", prop, stderr, "no CUDA device")) return 77;
    std::printf("%sbench_rpotrf on %s; warmup %d, median of %d; cusolverDnXpotrf on the same data\n",
                o.csv ? "# " : "", prop.name, o.warmup, o.repeat);
    if (o.csv)
        std::printf("prec,n,config,ours_ms,cusolver_ms,ratio,ours_TFLOPs,cusolver_TFLOPs,res_ours,res_cusolver,info\n");
    else
        std::printf("prec      n config                       ours_ms cusolver_ms  ratio  ours_TF cusolv_TF  res_ours "
                    "res_cusol info\n");
    Handles h;
    bool ok = true;
    for (int n : o.ns)
        for (const std::string& prec : o.precs) {
            try {
                ok = (prec == "d" ? bench<double>(o, h, n, prec) : bench<float>(o, h, n, prec)) && ok;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "bench_rpotrf: %s n=%d: %s\n", prec.c_str(), n, e.what());
                ok = false;
            }
        }
    return ok ? 0 : 2;
}
