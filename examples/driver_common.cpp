// Shared parts of the experiment drivers (driver_common.hpp).
#include "examples/driver_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "starfact/error.hpp"

namespace starfact::examples {

bool parse_common_flag(Cli& cli, const std::string& f, DriverFlags& s) {
    if (f == "--n") s.n = cli.integer(1, int64_t(1) << 20);
    else if (f == "--nb") s.nb = cli.integer(1, 16384);
    else if (f == "--prec") s.prec = cli.choice({"s", "d"})[0];
    else if (f == "--seed") s.seed = static_cast<uint64_t>(cli.integer(0, INT64_MAX));
    else if (f == "--gpu-only") { cli.no_value(); s.mapping = static_cast<int>(Mapping::GpuOnly); }
    else if (f == "--hybrid") { cli.no_value(); s.mapping = static_cast<int>(Mapping::Hybrid); }
    else if (f == "--cpu-only") { cli.no_value(); s.mapping = static_cast<int>(Mapping::CpuOnly); }
    else if (f == "--sched") s.sched = cli.value();
    else if (f == "--device-resident") { cli.no_value(); s.device_resident = true; }
    else if (f == "--ncpus") s.ncpus = static_cast<int>(cli.integer(0, 4096));
    else if (f == "--ncuda") s.ncuda = static_cast<int>(cli.integer(0, 64));
    else if (f == "--streams") s.streams = static_cast<int>(cli.integer(1, 64));
    else if (f == "--perfmodel-dir") s.perfmodel_dir = cli.value();
    else if (f == "--warmup") s.warmup = static_cast<int>(cli.integer(0, 1000));
    else if (f == "--repeat") s.repeat = static_cast<int>(cli.integer(1, 1000));
    else if (f == "--check") { cli.no_value(); s.check = true; }
    else if (f == "--no-check") { cli.no_value(); s.check = false; }
    else if (f == "--no-vendor") { cli.no_value(); s.vendor = false; }
    else if (f == "--csv") { cli.no_value(); s.csv = true; }
    else return false;
    return true;
}

Mapping default_mapping(const DriverFlags& s) {
    if (s.mapping >= 0) return static_cast<Mapping>(s.mapping);
    return built_with_cuda() && cuda_device_count() > 0 ? Mapping::GpuOnly : Mapping::CpuOnly;
}

RuntimeConfig runtime_config(const DriverFlags& s, const std::string& sched, bool cpu_only_run, bool gpu_only_run) {
    RuntimeConfig cfg;
    cfg.ncpus = s.ncpus >= 0 ? s.ncpus : gpu_only_run ? 0 : -1;
    cfg.ncuda = cpu_only_run && s.ncuda < 0 ? 0 : s.ncuda;
    cfg.workers_per_gpu = s.streams;
    cfg.scheduler = sched;
    cfg.trace = !s.trace_dir.empty();
    cfg.calibrate = s.calibrate;
    cfg.profiling = s.profiling;
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    cfg.perfmodel_dir = std::string(cache ? cache : std::string(home ? home : ".") + "/.cache") + "/starfact/perfmodels";
    return cfg;
}

bool model_based(const std::string& sched) { return sched.rfind("dm", 0) == 0 || sched == "pheft" || sched == "peager"; }

bool models_present(const Runtime& rt, char prec, const std::vector<const char*>& kernels) {
    char host[256] = "";
    gethostname(host, sizeof host);
    for (const char* k : kernels) {
        const std::string f = rt.perfmodel_dir() + "/codelets/45/starfact_" + prec + k + "." + host;
        if (access(f.c_str(), R_OK) != 0) return false;
    }
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k == 0 ? 0.0 : k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string residual_text(double r) { return r < 0 ? "-" : fmt("%.3g", r); }

void Table::row(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
        if (csv_) line += (i ? "," : "") + cells[i];
        else {
            const size_t w = std::max<size_t>(cols_[i].size(), i == 0 ? 11 : 9);
            std::string c = cells[i];
            if (c.size() < w) c = (i == 0 ? c + std::string(w - c.size(), ' ') : std::string(w - c.size(), ' ') + c);
            line += (i ? " " : "") + c;
        }
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

void Table::note(const std::string& text) const {
    std::printf("%s%s\n", csv_ ? "# " : "", text.c_str());
    std::fflush(stdout);
}

std::string vendor_summary(const VendorRun& v, double flops, double ours) {
    const double theirs = median(v.seconds);
    return "; " + v.name + " median " + fmt("%.4f", theirs) + " s, " + fmt("%.1f", flops / theirs * 1e-9) +
           " GFLOP/s; ratio " + v.name + "/starfact = " + fmt("%.3f", theirs / ours);
}

}  // namespace starfact::examples
