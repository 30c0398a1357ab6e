// bench_potf2: one nb x nb diagonal tile, the library's fused potf2 (kernels/potf2/) vs cusolverDnXpotrf on
// the same device data in the same run (input restored before every run, untimed): median times (CUDA
// events, after warm-up), GFLOP/s (n^3/3), ratio, achieved GB/s vs a device-to-device copy, residuals
// (bench/potf2_bench.cuh). The tuning table's configuration, or one given by --cutoff / --blocked. With the
// batched Cholesky module in the build, tiles of order <= 128 are also factored by its small-matrix kernel
// with a batch of one (the "leaf" line): is it ever the faster diagonal-tile kernel? The sweep over every
// configuration, the single-block leaves the library does not compile included, is tune_potf2
// (tools/tune/potf2/).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/potf2_bench.cuh"
#include "kernels/potf2/potf2_tuning.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"

namespace bp = starfact::bench::potf2;
using starfact::detail::gpu::Potf2Config;

namespace {

void usage() {
    std::printf("bench_potf2: fused potf2 vs cusolverDnXpotrf on one nb x nb tile (same device data, same run)\n%s%s"
                "every configuration of the tuning sweep, the single-block leaves included: tune_potf2 "
                "(tools/tune/potf2/)\n",
                bp::kOptionsHelp, bp::kColumnsHelp);
}

bp::Options parse(int argc, char** argv) {
    return bp::parse_options<bp::Options>(argc, argv, usage,
                                          [](starfact::support::Cli&, const std::string&, bp::Options&) { return false; });
}

template <typename T>
bool run_bench(const bp::Handles& h, const bp::Options& o) {
    return bp::bench_rows<T>(h, o, [](Potf2Config&) {}, &starfact::detail::gpu::potf2_tile_tuned<T>);
}

}  // namespace

int main(int argc, char** argv) {
    bp::Options o;
    if (!starfact::support::parse_command_line("bench_potf2", parse, argc, argv, o)) return 2;
    cudaDeviceProp prop{};
    if (!starfact::support::first_cuda_device("bench_potf2", prop, stdout, "no CUDA device, nothing to do")) return 0;
    std::printf("# bench_potf2 on %s (%d SMs); warmup %d, median of %d; cusolverDnXpotrf on the same data\n",
                prop.name, prop.multiProcessorCount, o.warmup, o.repeat);
    bp::Handles h;
    bool ok = true;
    try {
        bp::print_row_header(o.csv);
        if (o.prec != "d") ok = run_bench<float>(h, o) && ok;
        if (o.prec != "s") ok = run_bench<double>(h, o) && ok;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_potf2: %s\n", e.what());
        return 1;
    }
    return ok ? 0 : 1;
}
