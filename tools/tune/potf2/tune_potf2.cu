// tune_potf2: the tuning sweep of the fused potf2. Times every configuration (inner blocking ib, cut-off,
// the library's replicated-diagonal leaf and the single-block left-/right-looking leaves the library does
// not compile, recursive or blocked form) of one nb x nb tile per precision and nb against
// cusolverDnXpotrf (bench/potf2_bench.cuh), prints the best per (precision, nb), and with --auto the full
// bench row of each best and the rows of the tuning table (kernels/potf2/potf2_tuning.hpp). Without
// --sweep/--auto: the full row of one configuration (the table's, changed by --ib --cutoff --looped
// --right --rdiag --blocked). tools/sweep_potf2.sh runs it on the GPU machine; docs/potf2.md.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/potf2_bench.cuh"
#include "kernels/potf2/potf2_tuning.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"
#include "tools/tune/potf2/variants.hpp"

namespace bp = starfact::bench::potf2;
using starfact::detail::gpu::Potf2Config;

namespace {

/// Every configuration: the library's for rdiag, the tool's single-block leaves otherwise.
template <typename T>
constexpr bp::Entry<T> kEntry = &starfact::detail::gpu::potf2_tile_any<T>;

struct Options : bp::Options {
    int ib = 0;       // 0: tuning table
    int looped = -1;  // -1: tuning table
    int right = -1;   // -1: tuning table
    int rdiag = -1;   // -1: tuning table
    bool sweep = false;
    bool autotune = false;
};

void usage() {
    std::printf("tune_potf2: every configuration of the fused potf2 vs cusolverDnXpotrf on one nb x nb tile\n%s"
                "  --sweep        time every configuration per precision and nb (GPU time, queued), print the best\n"
                "  --auto         --sweep, then the full row for the best configuration of each nb, and the\n"
                "                 tuning-table rows (kernels/potf2/potf2_tuning.hpp) they give\n"
                "  one configuration (without --sweep/--auto; default: the tuning table's, --cutoff/--blocked above):\n"
                "  --ib N         columns per panel of the leaf (8 or 16; rdiag takes 8)\n"
                "  --rdiag 0|1    the library's replicated-diagonal leaf (1) or a single-block leaf (0)\n"
                "  --right 0|1    single-block leaf: right-looking look-ahead (1) or left-looking (0)\n"
                "  --looped 0|1   single-block leaf: diagonal block by runtime loops (1) or unrolled registers (0)\n"
                "sweep lines: prec nb ib cutoff looped right blocked rdiag, queued time, cuSOLVER's, speedup\n%s",
                bp::kOptionsHelp, bp::kColumnsHelp);
}

/// The tool's own flags (bp::parse_options does the common ones).
bool tool_flag(starfact::support::Cli& cli, const std::string& f, Options& o) {
    if (f == "--ib") {
        o.ib = static_cast<int>(cli.integer(8, 16));
        if (o.ib != 8 && o.ib != 16) throw std::invalid_argument("--ib must be 8 or 16");
    } else if (f == "--looped" || f == "--right" || f == "--rdiag") {
        const int v = static_cast<int>(cli.integer(0, 1));
        (f == "--looped" ? o.looped : f == "--right" ? o.right : o.rdiag) = v;
    } else if (f == "--sweep" || f == "--auto") {
        cli.no_value();
        (f == "--sweep" ? o.sweep : o.autotune) = true;
    } else {
        return false;
    }
    return true;
}

Options parse(int argc, char** argv) { return bp::parse_options<Options>(argc, argv, usage, tool_flag); }

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

template <typename T>
bool run_bench(const bp::Handles& h, const Options& o) {
    auto adjust = [&](Potf2Config& c) {
        if (o.ib) c.ib = o.ib;
        if (o.looped >= 0) c.looped = o.looped != 0;
        if (o.right >= 0) c.right_looking = o.right != 0;
        if (o.rdiag >= 0) c.rdiag = o.rdiag != 0;
    };
    return bp::bench_rows<T>(h, o, adjust, kEntry<T>);
}

/// Times every sweep configuration for one tile; prints one line each; returns the fastest correct one.
template <typename T>
Potf2Config sweep_tile(const bp::Handles& h, const Options& o, bp::Tile<T>& t, bool& ok) {
    const int n = t.n;
    const double vendor = bp::time_cusolver<T>(h, t, o, true);
    Potf2Config best{0, 0};
    double best_s = 0;
    for (const Potf2Config& c : sweep_configs(n)) {
        const double s = bp::time_ours<T>(h, t, c, o, true, kEntry<T>);
        double res = 0;
        const bool good = bp::factor_ok(h, t, res);
        ok = ok && good;
        std::printf(o.csv ? "sweep,%s,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.2f%s\n"
                          : "sweep %-2s nb=%5d ib=%2d cutoff=%3d looped=%d right=%d blocked=%d rdiag=%d %9.1f us  "
                            "(cusolver %9.1f us, x%.2f)%s\n",
                    bp::prec_name<T>(), n, c.ib, c.cutoff, int(c.looped), int(c.right_looking), int(c.blocked),
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
                bp::prec_name<T>(), n, best.ib, best.cutoff, int(best.looped), int(best.right_looking), int(best.blocked),
                int(best.rdiag),
                best_s * 1e6, vendor * 1e6, vendor / best_s);
    std::fflush(stdout);
    return best;
}

template <typename T>
bool run_sweep(const bp::Handles& h, const Options& o) {
    bool ok = true;
    std::vector<std::string> table;
    for (int n : o.nbs) {
        bp::Tile<T> t(n, h.solver, h.params, 20240601u + n);
        const Potf2Config best = sweep_tile<T>(h, o, t, ok);
        if (o.autotune && best.ib != 0) ok = bp::bench_row<T>(h, o, t, best, kEntry<T>) && ok;
        char row[160];
        std::snprintf(row, sizeof row, "{%d, {%d, %d, %s, %s, %s, %s}},", n, best.ib, best.cutoff,
                      best.looped ? "true" : "false", best.right_looking ? "true" : "false",
                      best.blocked ? "true" : "false", best.rdiag ? "true" : "false");
        table.push_back(row);
    }
    std::printf("table,%s: ", bp::prec_name<T>());
    for (const auto& r : table) std::printf("%s ", r.c_str());
    std::printf("\n");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!starfact::support::parse_command_line("tune_potf2", parse, argc, argv, o)) return 2;
    cudaDeviceProp prop{};
    if (!starfact::support::first_cuda_device("tune_potf2", prop, stdout, "no CUDA device, nothing to do")) return 0;
    std::printf("# tune_potf2 on %s (%d SMs); warmup %d, median of %d; cusolverDnXpotrf on the same data\n",
                prop.name, prop.multiProcessorCount, o.warmup, o.repeat);
    bp::Handles h;
    bool ok = true;
    try {
        if (o.autotune) o.sweep = true;
        if (!o.sweep || o.autotune) bp::print_row_header(o.csv);
        for (const char* p : {"s", "d"}) {
            if (o.prec != "both" && o.prec != p) continue;
            if (p[0] == 's')
                ok = (o.sweep ? run_sweep<float>(h, o) : run_bench<float>(h, o)) && ok;
            else
                ok = (o.sweep ? run_sweep<double>(h, o) : run_bench<double>(h, o)) && ok;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tune_potf2: %s\n", e.what());
        return 1;
    }
    return ok ? 0 : 1;
}
