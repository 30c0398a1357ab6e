// Shared parts of the experiment drivers (driver_common.hpp).
#include "support/driver_common.hpp"

#include <starpu.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <complex>
#include <thread>
#include <string>
#include <utility>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <stdexcept>

#include "starfact/error.hpp"
#include "support/trace.hpp"

namespace starfact::support {

double clock_seconds() {
#ifdef STARFACT_SIMULATION
    return starpu_timing_now() * 1e-6;
#else
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

Grid parse_grid(const std::string& text, const char* flag) {
    const auto x = text.find('x');
    int p = 0, q = 0;
    size_t used_p = 0, used_q = 0;
    try {
        if (x != std::string::npos) {
            p = std::stoi(text.substr(0, x), &used_p);
            q = std::stoi(text.substr(x + 1), &used_q);
        }
    } catch (const std::exception&) {
        used_p = 0;
    }
    if (x == std::string::npos || used_p != x || used_q != text.size() - x - 1 || p < 1 || q < 1 || p > 65536 ||
        q > 65536)
        throw std::invalid_argument(std::string(flag) + " needs PxQ with positive integers P and Q, e.g. 2x3 (got '" +
                                    text + "')");
    return {p, q};
}

bool parse_common_flag(Cli& cli, const std::string& f, DriverFlags& s) {
    if (f == "--n") s.n = cli.integer(1, int64_t(1) << 20);
    else if (f == "--nb") s.nb = cli.integer(1, int64_t(1) << 20);
    else if (f == "--prec") s.prec = cli.choice({"s", "d"})[0];
    else if (f == "--seed") s.seed = static_cast<uint64_t>(cli.integer(0, INT64_MAX));
    else if (f == "--gpu-only") { cli.no_value(); s.mapping = static_cast<int>(Mapping::GpuOnly); }
    else if (f == "--hybrid") { cli.no_value(); s.mapping = static_cast<int>(Mapping::Hybrid); }
    else if (f == "--cpu-only") { cli.no_value(); s.mapping = static_cast<int>(Mapping::CpuOnly); }
    else if (f == "--sched") s.sched = cli.value();
    else if (f == "--device-resident") { cli.no_value(); s.device_resident = true; }
    else if (f == "--host-resident") { cli.no_value(); s.device_resident = false; }  // (after tools/simulate.sh's)
    else if (f == "--ncpus") s.ncpus = static_cast<int>(cli.integer(0, 4096));
    else if (f == "--ncuda") s.ncuda = static_cast<int>(cli.integer(0, 64));
    else if (f == "--streams") s.streams = static_cast<int>(cli.integer(1, 64));
    else if (f == "--perfmodel-dir") s.perfmodel_dir = cli.value();
    else if (f == "--gpu-mem-limit") s.gpu_mem_limit_mb = cli.integer(1, int64_t(1) << 30);
    else if (f == "--warmup") s.warmup = static_cast<int>(cli.integer(0, 1000));
    else if (f == "--repeat") s.repeat = static_cast<int>(cli.integer(1, 1000));
    else if (f == "--check") {
        cli.no_value();
        if (!kRunComputes)
            throw std::invalid_argument("--check: a simulated run computes nothing (kernels run in SimGrid's virtual time "
                                        "only, docs/simulation.md): drop it");
        s.check = true;
    }
    else if (f == "--no-check") { cli.no_value(); s.check = false; }
    else if (f == "--no-vendor") { cli.no_value(); s.vendor = false; }
    else if (f == "--csv") { cli.no_value(); s.csv = true; }
    else return false;
    return true;
}

namespace {

/// The help of each flag of common_flags_help().
const std::pair<const char*, const char*> kCommonFlagHelp[] = {
    {"--n", "  --n N             matrix order (default 16384 with a GPU, 2000 without)\n"},
    {"--prec", "  --prec s|d        precision: s = float, d = double (default d)\n"},
    {"--seed", "  --seed S          random seed (default 1)\n"},
    {"--gpu-only", "  --gpu-only        every task on CUDA workers (default when a GPU is present)\n"},
    {"--hybrid", "  --hybrid          StarPU chooses among CPU and CUDA workers\n"},
    {"--cpu-only", "  --cpu-only        every task on CPU workers (default without a GPU)\n"},
    {"--sched", "  --sched NAME      StarPU scheduler (default dmdas; STARPU_SCHED, if set, wins)\n"},
    {"--streams", "  --streams N       CUDA workers (streams) per GPU (default 4; STARPU_NWORKER_PER_CUDA wins)\n"},
    {"--gpu-mem-limit",
     "  --gpu-mem-limit MB\n"
     "                    MiB of each GPU's memory StarPU may use for tiles (STARPU_LIMIT_CUDA_MEM, which wins):\n"
     "                    host-resident tiles beyond it are evicted and fetched again (out-of-core,\n"
     "                    docs/out_of_core.md); not with --device-resident\n"},
    {"--perfmodel-dir",
     "  --perfmodel-dir D performance models directory (default ~/.cache/starfact/perfmodels unless\n"
     "                    STARPU_PERF_MODEL_DIR or STARPU_HOME is set; this flag wins over both)\n"},
    {"--warmup", "  --warmup K        untimed runs first; they also calibrate the performance models (default 2)\n"},
    {"--repeat", "  --repeat R        timed runs (default 3); summaries use their median\n"},
    {"--csv", "  --csv             CSV rows instead of the table (notes start with '#')\n"},
    {"--help", "  --help            this text\n"},
};

}  // namespace

std::string common_flags_help(std::initializer_list<const char*> flags) {
    std::string text;
    for (const char* flag : flags) {
        const auto* entry = std::find_if(std::begin(kCommonFlagHelp), std::end(kCommonFlagHelp),
                                         [&](const auto& h) { return std::strcmp(h.first, flag) == 0; });
        if (entry == std::end(kCommonFlagHelp)) throw std::logic_error(std::string("no shared help for ") + flag);
        text += entry->second;
    }
    return text;
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
    cfg.profiling = s.profiling || counts_transfers(s, cpu_only_run);
    cfg.cuda_memory_limit_mb = s.gpu_mem_limit_mb;
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    cfg.perfmodel_dir = std::string(cache ? cache : std::string(home ? home : ".") + "/.cache") + "/starfact/perfmodels";
    return cfg;
}

template <typename T>
std::vector<T> host_matrix(int64_t n, const char* tool) {
    const double bytes = static_cast<double>(n) * static_cast<double>(n) * sizeof(T);
    const double available = static_cast<double>(available_host_memory());
    const auto refuse = [&](const std::string& why) {
        return RuntimeError(std::string(tool) + ": cannot allocate the " + std::to_string(n) + " x " + std::to_string(n) +
                            " host matrix (" + fmt("%.1f", bytes * 1e-9) + " GB" + why + ")" +
                            (std::string(tool) == "starpu_chol" ? "; --no-check generates the matrix tile by tile instead"
                                                                : ""));
    };
    // Refused up front: under Linux's overcommit an allocation beyond the memory succeeds and the OOM killer ends
    // the run later, while the matrix is being filled.
    if (bytes > available) throw refuse(", " + fmt("%.1f", available * 1e-9) + " GB available");
    try {
        return std::vector<T>(static_cast<size_t>(n) * static_cast<size_t>(n));
    } catch (const std::bad_alloc&) {
        throw refuse("");
    }
}
template std::vector<float> host_matrix<float>(int64_t, const char*);
template std::vector<double> host_matrix<double>(int64_t, const char*);
template std::vector<std::complex<float>> host_matrix<std::complex<float>>(int64_t, const char*);
template std::vector<std::complex<double>> host_matrix<std::complex<double>>(int64_t, const char*);

int gpus_in_use(const DriverFlags& s) {
    int ndev = built_with_cuda() ? cuda_device_count() : 0;
    if (s.ncuda >= 0) ndev = std::min(ndev, s.ncuda);
    if (const char* e = std::getenv("STARPU_NCUDA")) {  // StarPU's variable wins over --ncuda
        const int v = std::atoi(e);
        if (v >= 0) ndev = std::min(built_with_cuda() ? cuda_device_count() : 0, v);
    }
    return ndev;
}

bool counts_transfers(const DriverFlags& s, bool cpu_only_run) {
    if (cpu_only_run || s.mapping == static_cast<int>(Mapping::CpuOnly)) return false;
    // Host-resident tiles move host <-> GPU; device-resident ones move only between GPUs, so only with several.
    return !s.device_resident || gpus_in_use(s) > 1;
}

std::string transfer_summary(const Runtime::Transfers& t, double seconds) {
    const double gb = 1e-9;
    return "; moved host->GPU " + fmt("%.2f", t.host_to_gpu * gb) + " GB, GPU->host " + fmt("%.2f", t.gpu_to_host * gb) +
           " GB" + (t.gpu_to_gpu ? ", GPU->GPU " + fmt("%.2f", t.gpu_to_gpu * gb) + " GB" : std::string()) + " in " +
           std::to_string(t.count) + " transfers (" + fmt("%.1f", seconds > 0 ? t.total() * gb / seconds : 0.0) +
           " GB/s over the run)";
}


bool model_based(const std::string& sched) { return sched.rfind("dm", 0) == 0 || sched == "pheft" || sched == "peager"; }

bool models_present(const Runtime& rt, char prec, const std::vector<const char*>& kernels) {
    char host[256] = "";
    gethostname(host, sizeof host);
    if (const char* named = std::getenv("STARPU_HOSTNAME"))  // StarPU names the model files after it when set
        std::snprintf(host, sizeof host, "%s", named);
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

int driver_main(const char* name, int argc, char** argv, const DriverFlags& flags,
                const std::function<void(int, char**)>& parse, const std::function<int(Runtime&, Mapping)>& run) {
    try {
        parse(argc, argv);
        if (!flags.perfmodel_dir.empty()) setenv("STARPU_PERF_MODEL_DIR", flags.perfmodel_dir.c_str(), 1);
        if (!flags.trace_dir.empty()) prepare_trace(flags.trace_dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
    try {
        int rc;
        std::vector<std::string> workers;
        {
            const Mapping mapping = default_mapping(flags);
            Runtime rt(runtime_config(flags, flags.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly));
            rt.require_mapping(mapping, name);
            if (flags.device_resident && rt.cuda_devices() == 0)
                throw InvalidArgument(name, "--device-resident", "needs a GPU, and none is usable");
            rc = run(rt, mapping);
            workers = worker_names();
        }  // StarPU shuts down here and writes the FxT file
        if (!flags.trace_dir.empty() && rc == 0)
            rc = finish_trace(flags.trace_dir, workers, std::string(name) + " (last timed run)", name, flags.csv);
        return rc;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
}

}  // namespace starfact::support
