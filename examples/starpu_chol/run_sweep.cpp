// starpu_chol --sweep: for every order x precision x mapping, the tuned plan's run against the vendor on the same
// matrix, one CSV row each, the cuBLAS gemm rate of each precision first as the ceiling.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"

namespace starfact::chol_driver {
namespace {

/// One point of --sweep: the plan's run and the vendor's on the same matrix; appends a CSV row.
template <typename T>
void sweep_point(const Settings& s, Runtime& rt, Mapping mapping, int64_t n, std::ofstream& csv, size_t index,
                 size_t total) {
    Settings one = s;
    one.prec = sizeof(T) == 4 ? 's' : 'd';
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const int64_t nb = tile_size(one, mapping, n, rt);
    std::vector<T> A(static_cast<size_t>(n) * n);
    random_symmetric<T>(n, A.data(), n, s.seed + static_cast<uint64_t>(n), static_cast<double>(n));
    const Reference<T> ref(gpu, n, A.data());
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, false));
    const Options opts = options_for(s, mapping, s.variant);
    const Measured m = measure<T>(one, rt, tiles, ref, A.data(), n, opts, false, nullptr, {});
    const double ours = median(m.seconds);
    VendorRun v;
    if (s.vendor && m.info == 0) v = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, false);
    const double theirs = v.seconds.empty() ? 0 : median(v.seconds);
    const double tf = potrf_flops(n) * 1e-12;
    csv << to_string(mapping) << ',' << one.prec << ',' << n << ',' << nb << ',' << to_string(residency) << ','
        << fmt("%.6f", ours) << ',' << fmt("%.3f", tf / ours) << ',' << (v.name.empty() ? "-" : v.name) << ','
        << fmt("%.6f", theirs) << ',' << fmt("%.3f", theirs > 0 ? tf / theirs : 0) << ','
        << fmt("%.3f", theirs > 0 ? theirs / ours : 0) << ',' << residual_text(m.residual) << ',' << m.info << '\n';
    csv.flush();
    std::fprintf(stderr, "[starpu_chol] sweep %zu/%zu: %s %c n=%lld nb=%lld: %.4f s, %.2f TFLOP/s%s%s\n", index, total,
                 to_string(mapping), one.prec, static_cast<long long>(n), static_cast<long long>(nb), ours, tf / ours,
                 theirs > 0 ? (", x" + fmt("%.3f", theirs / ours) + " " + v.name).c_str() : "",
                 m.residual >= 60 || m.info != 0 ? "  FAILED" : "");
    if (m.info != 0) throw RuntimeError("--sweep: the test matrix of n = " + std::to_string(n) + " is not SPD");
    if (m.residual >= 60) throw RuntimeError("--sweep: residual >= 60 at n = " + std::to_string(n));
}

}  // namespace

int run_sweep(const Settings& s) {
    std::vector<Mapping> mappings = s.mappings;
    const bool have_gpu = built_with_cuda() && cuda_device_count() > 0;
    if (mappings.empty() && s.mapping >= 0) mappings = {static_cast<Mapping>(s.mapping)};  // --gpu-only etc.
    if (mappings.empty()) mappings = have_gpu ? std::vector<Mapping>{Mapping::GpuOnly, Mapping::Hybrid}
                                              : std::vector<Mapping>{Mapping::CpuOnly};
    std::ofstream csv(s.sweep_csv);
    if (!csv) throw std::invalid_argument("--sweep-csv: cannot write " + s.sweep_csv);
    csv << "mapping,prec,n,nb,residency,seconds,TFLOPs,vendor,vendor_seconds,vendor_TFLOPs,ratio,residual,info\n";
#ifdef STARFACT_HAVE_CUDA
    if (have_gpu)
        for (char p : s.precs) {  // the ceiling: cuBLAS gemm at n = 8192
            const double tf = p == 's' ? support::cublas_gemm_tflops<float>(8192)
                                       : support::cublas_gemm_tflops<double>(8192);
            csv << "gemm," << p << ",8192,-,device,-," << fmt("%.3f", tf) << ",cublas,-,-,-,-,0\n";
        }
#endif
    const size_t total = mappings.size() * s.precs.size() * s.ns.size();
    size_t index = 0;
    for (Mapping mapping : mappings) {
        Runtime rt(support::runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly));
        rt.require_mapping(mapping, "starpu_chol --sweep");
        std::fprintf(stderr, "[starpu_chol] sweep %s: %s\n", to_string(mapping), rt.describe().c_str());
        for (char p : s.precs)
            for (int64_t n : s.ns) {
                ++index;
                if (p == 's') sweep_point<float>(s, rt, mapping, n, csv, index, total);
                else sweep_point<double>(s, rt, mapping, n, csv, index, total);
            }
    }
    std::printf("sweep: %zu points in %s; plot: python3 tools/plot_sweep.py %s -o starpu_chol_sweep.png\n", total,
                s.sweep_csv.c_str(), s.sweep_csv.c_str());
    return 0;
}

}  // namespace starfact::chol_driver
