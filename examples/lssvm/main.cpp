// starfact_lssvm: LS-SVM training and prediction on starfact tiles (Cholesky or CG), against the all-vendor
// pipeline on the same data in the same run. Flags: --help, docs/lssvm.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../../support/cli.hpp"  // header-only, standard library only
#include "dataset.hpp"
#include "lssvm.hpp"

namespace {

using namespace lssvm;
using starfact::support::Cli;
using starfact::support::split_list;

const char* kHelp = R"(starfact_lssvm: LS-SVM classification (one-vs-all) on starfact tiles.

Data (features scaled to [0, 1]):
  --data-dir DIR        Fashion-MNIST IDX files (default /usr/share/datasets/fashion-mnist,
                        Debian package dataset-fashion-mnist); used unless --train is given
  --train FILE          LIBSVM or CSV training file (label first); --test FILE the test file, with
                        the training file's feature count (without --test: training only, no test
                        accuracy)
  --format F            auto (by extension: .csv is CSV, else LIBSVM), libsvm, csv
  --features D          LIBSVM feature count (default: the largest index seen)
  --train-size N        first N training samples (default: all; more than the file has is an error)
  --test-size N         first N test samples (default: all; more than the file has is an error;
                        0: training only)
Model:
  --kernel K            rbf (default) or linear
  --gamma G             RBF width (default: 1 / (d * variance of the training features))
  --C C                 regularisation, H = K + I/C (default 100)
Solver and machine:
  --solver S            cholesky (default), cg, or both (one table)
  --cg-tol LIST         CG tolerances |r|/|b|, one row each (default 1e-2,1e-4)
  --cg-maxit N          CG iteration cap (default 2000)
  --prec P              d (default), s, or both
  --factor-prec P       Cholesky in double with the factorization in P: native (default: double, one task
                        graph), fp32, tf32, bf16 or fp16 (the mixed-precision solve refined to double accuracy,
                        after the assembly; docs/mixed_precision.md); its path and iterations are printed
  --shift S             with --factor-prec: the low-precision factorization's diagonal shift in units of its
                        unit roundoff (starfact::Refinement::shift; default: none unless it breaks down)
  --refine-tol T        with --factor-prec: the backward error the refinement stops at (default: sqrt(n) u,
                        LAPACK's dsposv rule)
  --gmres-iterations K  with --factor-prec: GMRES iterations allowed (default 60)
  --refine-budget X     with --factor-prec: the time the shifted factorizations and GMRES may take, in units of
                        the first factorization's time, before the fallback (default 2; 0: no limit)
  --gpu-only | --hybrid | --cpu-only   where tasks run (default: gpu-only when a GPU is present)
  --nb N                tile size (default: starfact's tuned plan for the order)
  --streams N           CUDA workers (streams) per GPU (default: starfact's tuned plan)
  --no-overlap          wait after each phase (per-phase durations instead of completion times)
  --vendor | --no-vendor   the cuBLAS/cuSOLVER pipeline on the same data (default: on with a GPU)
  --reference           the LAPACKE reference (host, full matrix; for small sets)
  --no-check            skip the relative residual |H x - r| / |r| (recomputes H by tasks)
  --warmup W            untimed runs before the timed ones (default 1 with a GPU, else 0)
  --repeat R            timed runs; the table shows the median total (default 1)
  --min-accuracy A      exit 3 if a solver's test accuracy is below A
  --csv FILE            also write the table as CSV
  --quiet               no progress lines
Exit status: 0 ok, 1 bad arguments or data, 2 H not positive definite, 3 below --min-accuracy or a
Cholesky residual above 1e-6 (double) or 1e-2 (single), 4 runtime failure.
)";

struct Args {
    std::string data_dir = "/usr/share/datasets/fashion-mnist", train, test, format = "auto";
    int64_t features = 0, train_size = -1, test_size = -1;
    Hyper hyper = [] {
        Hyper h;
        h.C = 100;  // test accuracy 0.908 on Fashion-MNIST with the RBF "scale" width (docs/lssvm.md)
        return h;
    }();
    std::string solver = "cholesky", prec = "d";
    starfact::Precision factor = starfact::Precision::Native;
    starfact::Refinement refine;
    std::vector<double> cg_tols = {1e-2, 1e-4};
    int cg_maxit = 2000;
    int mapping = -1;  // -1: default
    int64_t nb = 0;
    int streams = 0;
    bool overlap = true, reference = false, check = true, quiet = false;
    int vendor = -1;
    int warmup = -1, repeat = 1;
    double min_accuracy = -1;
    std::string csv;
};

double number(const std::string& v, const std::string& flag) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(x)) throw std::invalid_argument(flag + " needs a number (got '" + v + "')");
    return x;
}

Args parse(int argc, char** argv) {
    Args a;
    Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::fputs(kHelp, stdout);
            std::exit(0);
        } else if (f == "--data-dir") a.data_dir = cli.value();
        else if (f == "--train") a.train = cli.value();
        else if (f == "--test") a.test = cli.value();
        else if (f == "--format") a.format = cli.choice({"auto", "libsvm", "csv"});
        else if (f == "--features") a.features = cli.integer(1, int64_t(1) << 30);
        else if (f == "--train-size") a.train_size = cli.integer(2, int64_t(1) << 40);
        else if (f == "--test-size") a.test_size = cli.integer(0, int64_t(1) << 40);
        else if (f == "--kernel") a.hyper.kernel = parse_kernel(cli.choice({"rbf", "linear"}));
        else if (f == "--gamma") {
            a.hyper.gamma = number(cli.value(), f);
            if (!(a.hyper.gamma > 0)) throw std::invalid_argument("--gamma must be > 0");
        } else if (f == "--C") {
            a.hyper.C = number(cli.value(), f);
            if (!(a.hyper.C > 0)) throw std::invalid_argument("--C must be > 0 (got " + std::to_string(a.hyper.C) + ")");
        } else if (f == "--solver") a.solver = cli.choice({"cholesky", "cg", "both"});
        else if (f == "--cg-tol") {
            a.cg_tols.clear();
            for (const auto& s : split_list(cli.value())) {
                const double t = number(s, f);
                if (!(t > 0 && t < 1)) throw std::invalid_argument("--cg-tol values must be in (0, 1) (got " + s + ")");
                a.cg_tols.push_back(t);
            }
            if (a.cg_tols.empty()) throw std::invalid_argument("--cg-tol needs at least one value");
        } else if (f == "--cg-maxit") a.cg_maxit = static_cast<int>(cli.integer(1, 1000000));
        else if (f == "--prec") a.prec = cli.choice({"d", "s", "both"});
        else if (f == "--factor-prec") a.factor = starfact::parse_precision(cli.value(), "--factor-prec");
        else if (f == "--shift") {
            a.refine.shift = number(cli.value(), f);
            if (!(a.refine.shift >= 0)) throw std::invalid_argument("--shift must be >= 0");
        } else if (f == "--refine-tol") {
            a.refine.tolerance = number(cli.value(), f);
            if (!(a.refine.tolerance > 0 && a.refine.tolerance < 1)) throw std::invalid_argument("--refine-tol must be in (0, 1)");
        } else if (f == "--gmres-iterations") a.refine.gmres_iterations = static_cast<int>(cli.integer(0, 100000));
        else if (f == "--refine-budget") {
            a.refine.time_budget = number(cli.value(), f);
            if (!(a.refine.time_budget >= 0)) throw std::invalid_argument("--refine-budget must be >= 0 (0: no limit)");
        }
        else if (f == "--gpu-only") cli.no_value(), a.mapping = static_cast<int>(starfact::Mapping::GpuOnly);
        else if (f == "--hybrid") cli.no_value(), a.mapping = static_cast<int>(starfact::Mapping::Hybrid);
        else if (f == "--cpu-only") cli.no_value(), a.mapping = static_cast<int>(starfact::Mapping::CpuOnly);
        else if (f == "--nb") a.nb = cli.integer(16, 32768);
        else if (f == "--streams") a.streams = static_cast<int>(cli.integer(1, 16));
        else if (f == "--no-overlap") cli.no_value(), a.overlap = false;
        else if (f == "--vendor") cli.no_value(), a.vendor = 1;
        else if (f == "--no-vendor") cli.no_value(), a.vendor = 0;
        else if (f == "--reference") cli.no_value(), a.reference = true;
        else if (f == "--no-check") cli.no_value(), a.check = false;
        else if (f == "--warmup") a.warmup = static_cast<int>(cli.integer(0, 100));
        else if (f == "--repeat") a.repeat = static_cast<int>(cli.integer(1, 100));
        else if (f == "--min-accuracy") a.min_accuracy = number(cli.value(), f);
        else if (f == "--csv") a.csv = cli.value();
        else if (f == "--quiet") cli.no_value(), a.quiet = true;
        else cli.unknown();
    }
    if (!a.test.empty() && a.train.empty()) throw std::invalid_argument("--test needs --train");
    if (starfact::refines_double(a.factor) && a.prec != "d")
        throw std::invalid_argument("--factor-prec refines a double solve: use --prec d");
    if (a.factor != starfact::Precision::Native && a.solver == "cg")
        throw std::invalid_argument("--factor-prec chooses the Cholesky factorization: drop --solver cg");
    const bool no_test = (!a.train.empty() && a.test.empty()) || a.test_size == 0;
    if (!a.train.empty() && a.test.empty() && a.test_size >= 0)
        throw std::invalid_argument("--test-size needs --test (without it there is no test set)");
    if (a.min_accuracy >= 0 && no_test)
        throw std::invalid_argument("--min-accuracy needs a test set (--test FILE, and a --test-size above 0)");
    return a;
}

/// A size flag asks for the first N samples: a set with fewer is an error, not a smaller run than the one asked for.
void check_size(const char* flag, int64_t want, const Dataset& ds) {
    if (want > ds.n)
        throw DataError(std::string(flag) + " " + std::to_string(want) + " is more than the " + std::to_string(ds.n) +
                        " samples in " + ds.source + " (leave " + flag + " out to use them all)");
}

/// The mixed-precision solve's report: its path, iterations and backward error; after a fall-back, why (the
/// low-precision factor broke down at a column, or refinement did not reach the tolerance) and that the answer is
/// the double factorization's.
void print_mixed(const std::string& name, const starfact::SolveReport& m) {
    using Path = starfact::SolveReport::Path;
    if (m.path == Path::Fallback || m.path == Path::Failed) {
        std::printf("%s: path %s: %s; %s (%lld tasks of broken-down factorizations skipped)\n", name.c_str(),
                    starfact::to_string(m.path), m.reason.c_str(),
                    m.path == Path::Fallback ? "solved by the double factorization" : "no solution",
                    static_cast<long long>(m.skipped_tasks));
        return;
    }
    std::printf("%s: path %s, %d refinement + %d GMRES iterations, %d factorization(s), diagonal shift %.2e, "
                "backward error %.2e (factor and first solve %.3f s)\n",
                name.c_str(), starfact::to_string(m.path), m.iterations, m.gmres_iterations, m.factorizations, m.shift,
                m.backward_error, m.factor_seconds);
}

struct Row {
    std::string solver, prec;
    Result r;
    bool tested = true;  // false: no test set, so no test accuracy to print
    double residual = -1;
    double vendor_total = 0;  // the vendor row's total in the same precision (ratio column)
};

void print_row(const Row& w, FILE* csv) {
    const Timings& t = w.r.t;
    char iters[32] = "-", res[32] = "-", ratio[32] = "", test[32] = "-", test_csv[32] = "";
    if (w.solver.rfind("cg", 0) == 0) std::snprintf(iters, sizeof iters, "%d%s", w.r.cg_iterations, w.r.cg_converged ? "" : "*");
    if (w.residual >= 0) std::snprintf(res, sizeof res, "%.2e", w.residual);
    if (w.vendor_total > 0) std::snprintf(ratio, sizeof ratio, "%.2f", w.vendor_total / t.total);
    if (w.tested) {
        std::snprintf(test, sizeof test, "%.4f", w.r.test_accuracy);
        std::snprintf(test_csv, sizeof test_csv, "%.6f", w.r.test_accuracy);
    }
    std::printf("%-16s %-4s %9.3f %9.3f %9.3f %9.3f %9.3f %7s %8.4f %8s %9s %6s\n", w.solver.c_str(), w.prec.c_str(),
                t.assemble, t.factor, t.solve, t.predict, t.total, iters, w.r.train_accuracy, test, res, ratio);
    if (csv)
        std::fprintf(csv, "%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%s,%.6f,%s,%s,%s\n", w.solver.c_str(), w.prec.c_str(),
                     t.setup, t.assemble, t.factor, t.solve, t.predict, t.total, iters, w.r.train_accuracy,
                     test_csv, res, ratio);
    std::fflush(stdout);
}

template <typename T>
int run_all(const Args& a, const Engine& engine, const Dataset& train, const Dataset& test, RunOptions base,
            std::vector<Row>& rows, FILE* csv) {
    const char* prec = sizeof(T) == 4 ? "s" : "d";
    const bool gpu = engine.runtime().cuda_workers() > 0 && base.mapping != starfact::Mapping::CpuOnly;
    const int warmup = a.warmup >= 0 ? a.warmup : (gpu ? 1 : 0);
    int status = 0;
    auto timed = [&](const RunOptions& o, auto&& once) {
        std::vector<Result> runs;
        for (int i = 0; i < warmup + a.repeat; ++i) {
            Result r = once(o);
            if (r.info != 0) return r;
            if (i >= warmup) runs.push_back(std::move(r));
        }
        std::sort(runs.begin(), runs.end(), [](const Result& x, const Result& y) { return x.t.total < y.t.total; });
        return std::move(runs[runs.size() / 2]);
    };
    double vendor_total = 0;
    if (a.vendor == 1 || (a.vendor == -1 && gpu && have_vendor_pipeline())) {
        Row w{"vendor", prec};
        w.tested = test.n > 0;
        w.r = timed(base, [&](const RunOptions&) { return vendor_pipeline<T>(train, test, a.hyper); });
        if (w.r.info > 0) {
            std::fprintf(stderr, "vendor pipeline: cuSOLVER potrf reports H not positive definite (column %d)\n", w.r.info);
        } else {
            vendor_total = w.r.t.total;
            print_row(w, csv);
            rows.push_back(w);
        }
    }
    std::vector<std::pair<std::string, RunOptions>> runs;
    if (a.solver != "cg") {
        RunOptions o = base;
        o.solver = Solver::Cholesky;
        runs.push_back({base.factor == starfact::Precision::Native ? std::string("cholesky")
                                                                   : "cholesky " + std::string(starfact::to_string(base.factor)),
                        o});
    }
    if (a.solver != "cholesky")
        for (double tol : a.cg_tols) {
            RunOptions o = base;
            o.solver = Solver::Cg;
            o.cg_tol = tol;
            char name[32];
            std::snprintf(name, sizeof name, "cg tol=%.0e", tol);
            runs.push_back({name, o});
        }
    for (auto& [name, o] : runs) {
        Row w{name, prec};
        w.tested = test.n > 0;
        w.r = timed(o, [&](const RunOptions& oo) { return run<T>(engine, train, test, a.hyper, oo); });
        if (w.r.info > 0) {
            std::fprintf(stderr,
                         "error: H = K + I/C is not positive definite in %s precision (the factorization failed at "
                         "column %d of %lld): use a smaller C (more regularisation, now %g)%s\n",
                         sizeof(T) == 4 ? "single" : "double", w.r.info, static_cast<long long>(train.n), a.hyper.C,
                         sizeof(T) == 4 ? " or --prec d" : "");
            status = std::max(status, 2);
            continue;
        }
        if (a.check) w.residual = relative_residual<T>(engine, train, a.hyper, w.r, o);
        if (o.solver == Solver::Cholesky && o.factor != starfact::Precision::Native && sizeof(T) == sizeof(double))
            print_mixed(name, w.r.mixed);
        if (o.solver == Solver::Cholesky) w.vendor_total = vendor_total;
        print_row(w, csv);
        if (a.min_accuracy >= 0 && w.r.test_accuracy < a.min_accuracy) {
            std::fprintf(stderr, "error: %s test accuracy %.4f below --min-accuracy %.4f\n", name.c_str(),
                         w.r.test_accuracy, a.min_accuracy);
            status = std::max(status, 3);
        }
        const double limit = sizeof(T) == 4 ? 1e-2 : 1e-6;  // well above what a backward-stable solve leaves
        if (o.solver == Solver::Cholesky && w.residual > limit) {
            std::fprintf(stderr, "error: Cholesky relative residual %.2e above %.0e\n", w.residual, limit);
            status = std::max(status, 3);
        }
        rows.push_back(std::move(w));
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    try {
        a = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starfact_lssvm: %s\n", e.what());
        return 1;
    }
    Split data;
    const auto t_load = std::chrono::steady_clock::now();
    try {
        if (a.train.empty()) {
            if (!a.quiet) std::fprintf(stderr, "loading Fashion-MNIST from %s ...\n", a.data_dir.c_str());
            data = load_fashion_mnist(a.data_dir, a.train_size, a.test_size);
        } else {
            const Format f = parse_format(a.format);
            data.train = load_text(a.train, f, a.features, a.train_size);
            if (!a.test.empty()) {
                data.test = load_text(a.test, f, data.train.d, a.test_size);
                align_to(data.test, data.train);
            }
            const MinMax scale = MinMax::fit(data.train);
            scale.apply(data.train);
            if (data.test.n > 0) scale.apply(data.test);
        }
        check_size("--train-size", a.train_size, data.train);
        check_size("--test-size", a.test_size, data.test);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starfact_lssvm: %s\n", e.what());
        return 1;
    }
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
    if (data.train.classes() < 2) {
        std::fprintf(stderr, "starfact_lssvm: the training set has %d class(es); one-vs-all needs at least 2\n",
                     data.train.classes());
        return 1;
    }
    try {
        starfact::RuntimeConfig cfg;
        starfact::Mapping mapping;
        if (a.mapping >= 0) mapping = static_cast<starfact::Mapping>(a.mapping);
        else mapping = starfact::cuda_device_count() > 0 ? starfact::Mapping::GpuOnly : starfact::Mapping::CpuOnly;
        if (mapping == starfact::Mapping::CpuOnly) cfg.ncuda = 0;
        if (mapping == starfact::Mapping::GpuOnly) cfg.ncpus = 0;
        if (mapping != starfact::Mapping::CpuOnly)  // the factorization's tuned stream count for this order
            cfg.workers_per_gpu = a.streams > 0 ? a.streams : [&] {
                starfact::Request request;
                request.m = request.n = data.train.n;
                request.options.mapping = mapping;
                request.tiling.residency = starfact::Residency::Device;
                return starfact::plan(request, starfact::Machine{1, 1, 1}).streams_per_gpu;
            }();
        starfact::Runtime rt(cfg);
        Engine engine(rt);
        const double gamma = effective_gamma(a.hyper, data.train);
        std::printf("data: %lld training, %lld test samples, %lld features, %d classes (loaded in %.2f s)\n",
                    static_cast<long long>(data.train.n), static_cast<long long>(data.test.n),
                    static_cast<long long>(data.train.d), data.train.classes(), load_s);
        if (data.test.n == 0)
            std::printf("no test set (%s): training only, without predictions or test accuracy\n",
                        a.test_size == 0 ? "--test-size 0" : "--train without --test");
        std::printf("model: %s kernel%s, C = %g; %s\n", to_string(a.hyper.kernel),
                    a.hyper.kernel == KernelType::Rbf ? (", gamma = " + std::to_string(gamma)).c_str() : "",
                    a.hyper.C, rt.describe().c_str());
        std::printf("%s, %s; times in s%s\n", starfact::to_string(mapping), a.overlap ? "one task graph" : "phase by phase",
                    a.overlap ? " (starfact rows: completion times of each phase from the start)" : "");
        std::printf("%-16s %-4s %9s %9s %9s %9s %9s %7s %8s %8s %9s %6s\n", "solver", "prec", "assemble", "factor",
                    "solve", "predict", "total", "iters", "train", "test", "residual", "ratio");
        FILE* csv = nullptr;
        if (!a.csv.empty()) {
            csv = std::fopen(a.csv.c_str(), "w");
            if (!csv) throw std::runtime_error("cannot write " + a.csv);
            std::fprintf(csv, "solver,prec,setup_s,assemble_s,factor_s,solve_s,predict_s,total_s,iterations,"
                              "train_accuracy,test_accuracy,relative_residual,vendor_ratio\n");
        }
        RunOptions base;
        base.mapping = mapping;
        base.nb = a.nb;
        base.overlap = a.overlap;
        base.cg_maxit = a.cg_maxit;
        base.progress = !a.quiet;
        base.factor = a.factor;
        base.refine = a.refine;
        std::vector<Row> rows;
        int status = 0;
        if (a.prec != "s") status = std::max(status, run_all<double>(a, engine, data.train, data.test, base, rows, csv));
        if (a.prec != "d") status = std::max(status, run_all<float>(a, engine, data.train, data.test, base, rows, csv));
        if (a.reference) {
            Row w{"lapacke", "d"};
            w.tested = data.test.n > 0;
            const auto t0 = std::chrono::steady_clock::now();
            w.r = reference_lapacke(data.train, data.test, a.hyper);
            w.r.t.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (w.r.info != 0) {
                std::fprintf(stderr, "error: LAPACKE dposv: H not positive definite (column %d)\n", w.r.info);
                status = std::max(status, 2);
            } else {
                print_row(w, csv);
            }
        }
        if (csv) std::fclose(csv);
        return status;
    } catch (const starfact::InvalidArgument& e) {
        std::fprintf(stderr, "starfact_lssvm: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starfact_lssvm: %s\n", e.what());
        return 4;
    }
}
