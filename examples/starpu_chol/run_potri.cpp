// starpu_chol --op potri: potrf + trtri + lauum as one graph, timed per run; its inverse residual; the vendor's
// potrf + potri on the same matrix (cuSOLVER on device-resident data, else LAPACKE) and the ratio vendor / ours.
// --prec s|d: a random symmetric positive definite matrix; --prec c|z: a random Hermitian one (complex off-diagonal
// entries, real diagonal), the inverse L^-H L^-1, GFLOP/s counting 4x the real flops.
#include <chrono>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"
#include "kernels/scalar.hpp"
#include "support/reference_complex.hpp"

namespace starfact::chol_driver {
namespace {

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = matrix_order(s, rt);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Plan planned = driver_plan(s, mapping, n, rt, "potri");
    const int64_t nb = planned.nb;
    const Table table(s.csv, {"impl", "n", "nb", "prec", "mapping", "sched", "residency", "run", "seconds", "GFLOP/s",
                              "residual", "info"});
    table.note("starpu_chol --op potri: " + rt.describe());
    table.note("plan: " + planned.to_string());
    constexpr bool complex = detail::is_complex_v<T>;
    const double flops = (complex ? 4.0 : 1.0) * potri_flops(n);  // a complex multiply-add is 4 real ones
    std::vector<T> A = support::host_matrix<T>(n, "starpu_chol");
    if constexpr (complex)
        support::random_hermitian<T>(n, A.data(), n, s.seed, static_cast<double>(n));
    else
        random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
    const Reference<T> ref(gpu, n, A.data());
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, false));
    if (residency == Residency::Device) table.note(placement_text(tiles));
    const Options opts = options_for(s, mapping, s.variant);
    const std::vector<std::string> prefix = {"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec),
                                             to_string(mapping), rt.scheduler(), to_string(residency)};
    table.header();
    Measured m;
    RunStats stats;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        const bool last = r == s.warmup + s.repeat - 1;
        tiles.import(residency == Residency::Device && ref.device_copy() ? ref.device_copy() : A.data(), n);
        stats.tasks = 0;
        const bool trace = last && !s.trace_dir.empty();  // FxT records the last run (the phases' overlap)
        if (trace) rt.trace_start();
        const auto t0 = std::chrono::steady_clock::now();
        m.info = potri(tiles, opts, stats);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (trace) rt.trace_stop();
        if (r < s.warmup) {
            std::fprintf(stderr, "[starpu_chol] warm-up %d/%d: %.3f s\n", r + 1, s.warmup, sec);
            continue;
        }
        m.seconds.push_back(sec);
        m.tasks = stats.tasks;
        if (last && s.check && m.info == 0) {
#ifdef STARFACT_HAVE_CUDA
            if constexpr (!complex)
                if (ref.dev) m.residual = ref.dev->inverse_residual_of(tiles);
#endif
            if (m.residual < 0) {
                std::vector<T> X(A.size());
                tiles.export_to(X.data(), n);
                Runtime::Paused quiet(rt);
                m.residual = potri_residual<T>(n, A.data(), n, X.data(), n);
            }
        }
        std::vector<std::string> cells = prefix;
        for (const std::string& c : {std::to_string(r - s.warmup + 1), fmt("%.4f", sec),
                                     fmt("%.1f", flops / sec * 1e-9), residual_text(last ? m.residual : -1),
                                     std::to_string(m.info)})
            cells.push_back(c);
        table.row(cells);
        if (m.info != 0) break;
    }
    if (m.info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(m.info));
        return 2;
    }
    const double ours = median(m.seconds);
    std::string summary = "summary: starfact potri median " + fmt("%.4f", ours) + " s, " +
                          fmt("%.1f", flops / ours * 1e-9) + " GFLOP/s, " + std::to_string(m.tasks) + " tasks";
    if (s.vendor) {
        VendorRun v;
#ifdef STARFACT_HAVE_CUDA
        if (ref.dev) {
            if constexpr (complex)
                v = ref.dev->cusolver_potri(s.warmup, s.repeat, s.check, A.data());
            else
                v = ref.dev->cusolver_potri(s.warmup, s.repeat, s.check);
        }
#endif
        if (v.name.empty()) {
            Runtime::Paused quiet(rt);
            v = support::lapacke_potri<T>(n, A.data(), s.warmup, s.repeat, s.check);
        }
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row({v.name, std::to_string(n), "-", std::string(1, s.prec), "-", "-",
                       v.name == "cusolver" ? "device" : "host", std::to_string(i + 1), fmt("%.4f", v.seconds[i]),
                       fmt("%.1f", flops / v.seconds[i] * 1e-9),
                       residual_text(i + 1 == v.seconds.size() ? v.residual : -1), std::to_string(v.info)});
        const double theirs = median(v.seconds);
        summary += "; " + v.name + " potrf+potri median " + fmt("%.4f", theirs) + " s; ratio " + v.name +
                   "/starfact = " + fmt("%.3f", theirs / ours);
    }
    return summary_status(table, summary, m.residual);
}

}  // namespace

int run_potri(const Settings& s, Runtime& rt, Mapping mapping) {
    switch (s.prec) {
    case 's': return run<float>(s, rt, mapping);
    case 'c': return run<std::complex<float>>(s, rt, mapping);
    case 'z': return run<std::complex<double>>(s, rt, mapping);
    default: return run<double>(s, rt, mapping);
    }
}

}  // namespace starfact::chol_driver
