// starpu_chol: the starfact experiment driver for tile Cholesky. See --help and docs/starpu_chol.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "examples/cli.hpp"
#include "examples/reference.hpp"
#include "starfact/starfact.hpp"

namespace {

using namespace starfact;
using starfact::examples::Cli;
using starfact::examples::VendorRun;

const char* kHelp = R"(usage: starpu_chol [flags]

Factors a random SPD matrix (entries uniform in [-0.5, 0.5], n added to the diagonal) with starfact's
tile Cholesky under StarPU, prints one line per timed run, then the vendor's potrf on the same matrix
in the same process (cuSOLVER on device-resident data when a GPU is used, else one LAPACKE call with
all OpenBLAS threads) and the ratio vendor_time / starfact_time (> 1: starfact is faster).

problem
  --n N             matrix order (default 16384 with a GPU, 2000 without)
  --nb NB           tile size (default: GPU mappings 512 for n <= 8192, 1024 for n <= 24576, else 2048;
                    cpu-only 256)
  --prec s|d        precision: s = float, d = double (default d)
  --seed S          random seed (default 1)
mapping and runtime
  --gpu-only        every task on CUDA workers (default when a GPU is present)
  --hybrid          StarPU chooses among CPU and CUDA workers
  --cpu-only        every task on CPU workers (default without a GPU)
  --sched NAME      StarPU scheduler (default dmdas; STARPU_SCHED, if set, wins)
  --device-resident tiles live in GPU memory (default: pinned host memory)
  --ncpus N         CPU workers (default: StarPU's choice; STARPU_NCPU wins)
  --ncuda N         CUDA devices (default: all; STARPU_NCUDA wins)
  --streams N       CUDA workers (streams) per GPU (default 1; STARPU_NWORKER_PER_CUDA wins)
  --no-priorities   submit every task at the same priority
runs and output
  --warmup K        untimed runs first, to calibrate performance models (default 1)
  --repeat R        timed runs (default 3); the summary uses their median
  --check           compute the scaled residual ||A - L L^T||_1 / (||A||_1 n eps) (default on;
                    on the GPU when one is present); exit status 3 if it is >= 60
  --no-check        skip the residual
  --no-vendor       skip the cuSOLVER / LAPACKE baseline
  --csv             CSV rows instead of the table (summary lines start with '#')
  --help            this text

exit status: 0 ok, 1 bad arguments or runtime error, 2 matrix not SPD (info > 0), 3 residual >= 60
)";

struct Settings {
    int64_t n = -1, nb = -1;
    char prec = 'd';
    uint64_t seed = 1;
    int mapping = -1;  // -1: default from the hardware
    std::string sched = "dmdas";
    bool device_resident = false, check = true, vendor = true, csv = false, priorities = true;
    int ncpus = -1, ncuda = -1, streams = 0;
    int warmup = 1, repeat = 3;
};

Settings parse(int argc, char** argv) {
    Settings s;
    Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::cout << kHelp;
            std::exit(0);
        } else if (f == "--n") s.n = cli.integer(1, int64_t(1) << 20);
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
        else if (f == "--no-priorities") { cli.no_value(); s.priorities = false; }
        else if (f == "--warmup") s.warmup = static_cast<int>(cli.integer(0, 1000));
        else if (f == "--repeat") s.repeat = static_cast<int>(cli.integer(1, 1000));
        else if (f == "--check") { cli.no_value(); s.check = true; }
        else if (f == "--no-check") { cli.no_value(); s.check = false; }
        else if (f == "--no-vendor") { cli.no_value(); s.vendor = false; }
        else if (f == "--csv") { cli.no_value(); s.csv = true; }
        else cli.unknown();
    }
    return s;
}

int64_t default_nb(Mapping m, int64_t n) {
    if (m == Mapping::CpuOnly) return 256;
    return n <= 8192 ? 512 : n <= 24576 ? 1024 : 2048;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k == 0 ? 0.0 : k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

class Report {
public:
    Report(bool csv) : csv_(csv) {}
    void header() const {
        if (csv_)
            std::printf("impl,n,nb,prec,mapping,sched,residency,run,seconds,gflops,residual,info\n");
        else
            std::printf("%-9s %7s %5s %4s %-9s %-10s %-9s %4s %10s %10s %10s %5s\n", "impl", "n", "nb", "prec",
                        "mapping", "sched", "residency", "run", "seconds", "GFLOP/s", "residual", "info");
    }
    void row(const std::string& impl, int64_t n, const std::string& nb, char prec, const std::string& mapping,
             const std::string& sched, const std::string& residency, int run, double sec, double residual,
             int info) const {
        const double gflops = potrf_flops(n) / sec * 1e-9;
        char res[32];
        if (residual < 0) std::snprintf(res, sizeof res, "-");
        else std::snprintf(res, sizeof res, "%.3g", residual);
        if (csv_)
            std::printf("%s,%lld,%s,%c,%s,%s,%s,%d,%.6f,%.1f,%s,%d\n", impl.c_str(), static_cast<long long>(n),
                        nb.c_str(), prec, mapping.c_str(), sched.c_str(), residency.c_str(), run, sec, gflops, res,
                        info);
        else
            std::printf("%-9s %7lld %5s %4c %-9s %-10s %-9s %4d %10.4f %10.1f %10s %5d\n", impl.c_str(),
                        static_cast<long long>(n), nb.c_str(), prec, mapping.c_str(), sched.c_str(),
                        residency.c_str(), run, sec, gflops, res, info);
        std::fflush(stdout);
    }
    void note(const std::string& text) const {
        std::printf("%s%s\n", csv_ ? "# " : "", text.c_str());
        std::fflush(stdout);
    }

private:
    bool csv_;
};

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
    const int64_t nb = s.nb > 0 ? s.nb : default_nb(mapping, n);
    const bool use_gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Report report(s.csv);
    report.note("starpu_chol: " + rt.describe());

    std::vector<T> A(static_cast<size_t>(n) * n);
    random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
#ifdef STARFACT_HAVE_CUDA
    std::unique_ptr<examples::DeviceReference<T>> ref;
    if (use_gpu && (s.check || s.vendor || s.device_resident))
        ref = std::make_unique<examples::DeviceReference<T>>(n, A.data());
#endif
    TileMatrix<T> tiles(rt, n, nb, residency);
    Options opts;
    opts.mapping = mapping;
    opts.priorities = s.priorities;

    report.header();
    std::vector<double> times;
    int info = 0;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        const T* src = A.data();
#ifdef STARFACT_HAVE_CUDA
        if (ref && residency == Residency::Device) src = ref->original();  // device-to-device refill
#endif
        tiles.import(src, n);
        rt.trace_start();
        const auto t0 = std::chrono::steady_clock::now();
        info = potrf(tiles, opts);
        const auto t1 = std::chrono::steady_clock::now();
        rt.trace_stop();
        const double sec = std::chrono::duration<double>(t1 - t0).count();
        if (r < s.warmup) {
            std::fprintf(stderr, "[starpu_chol] warmup %d/%d: %.3f s\n", r + 1, s.warmup, sec);
            continue;
        }
        times.push_back(sec);
        double residual = -1;
        const bool last = r == s.warmup + s.repeat - 1;
        if (last && s.check && info == 0) {
#ifdef STARFACT_HAVE_CUDA
            if (ref) residual = ref->residual_of(tiles);
#endif
            if (residual < 0) {
                std::vector<T> L(A.size());
                tiles.export_to(L.data(), n);
                Runtime::Paused quiet(rt);
                residual = potrf_residual<T>(n, A.data(), n, L.data(), n);
            }
        }
        report.row("starfact", n, std::to_string(nb), s.prec, to_string(mapping), rt.scheduler(),
                   to_string(residency), r - s.warmup + 1, sec, residual, info);
        if (info != 0) {
            report.note("matrix is not positive definite: info = " + std::to_string(info));
            return 2;
        }
        if (residual >= 60) {
            report.note("residual check FAILED (>= 60)");
            return 3;
        }
    }
    const double ours = median(times);
    char line[512];
    std::snprintf(line, sizeof line, "summary: starfact median %.4f s, %.1f GFLOP/s", ours,
                  potrf_flops(n) / ours * 1e-9);
    std::string summary = line;
    if (s.vendor) {
        VendorRun v;
#ifdef STARFACT_HAVE_CUDA
        if (ref) v = ref->cusolver_potrf(s.warmup, s.repeat, s.check);
#endif
        if (v.name.empty()) {
            Runtime::Paused quiet(rt);
            v = examples::lapacke_potrf<T>(n, A.data(), s.warmup, s.repeat, s.check);
        }
        const std::string vres = v.name == "cusolver" ? "device" : "host";
        for (size_t i = 0; i < v.seconds.size(); ++i)
            report.row(v.name, n, "-", s.prec, "-", "-", vres, static_cast<int>(i + 1), v.seconds[i],
                       i + 1 == v.seconds.size() ? v.residual : -1, v.info);
        const double theirs = median(v.seconds);
        std::snprintf(line, sizeof line, "; %s median %.4f s, %.1f GFLOP/s; ratio %s/starfact = %.3f", v.name.c_str(),
                      theirs, potrf_flops(n) / theirs * 1e-9, v.name.c_str(), theirs / ours);
        summary += line;
    }
    report.note(summary);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Settings s;
    try {
        s = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starpu_chol: %s\n", e.what());
        return 1;
    }
    try {
        RuntimeConfig cfg;
        cfg.ncpus = s.ncpus;
        cfg.ncuda = s.mapping == static_cast<int>(Mapping::CpuOnly) && s.ncuda < 0 ? 0 : s.ncuda;
        cfg.workers_per_gpu = s.streams;
        cfg.scheduler = s.sched;
        Runtime rt(cfg);
        const Mapping mapping = s.mapping >= 0 ? static_cast<Mapping>(s.mapping)
                                               : (rt.cuda_workers() > 0 ? Mapping::GpuOnly : Mapping::CpuOnly);
        rt.require_mapping(mapping, "starpu_chol");
        if (s.device_resident && rt.cuda_devices() == 0)
            throw InvalidArgument("starpu_chol", "--device-resident", "needs a GPU, and none is usable");
        return s.prec == 's' ? run<float>(s, rt, mapping) : run<double>(s, rt, mapping);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starpu_chol: %s\n", e.what());
        return 1;
    }
}
