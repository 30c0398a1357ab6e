// starpu_lu's factorization run, every precision (--prec s|d from examples/starpu_lu.cpp, c|z from
// examples/starpu_lu_complex.cpp): the tile LU with partial pivoting of a random matrix on the plan's tiles (warm-up
// runs, then one line per timed run with the residual ||P A - L U||_1 / (||A||_1 n eps) of the last), a solve with the
// factors (getrs) and its residual, then the vendor's getrf on the same matrix in the same process (cusolverDnXgetrf
// on a device copy with a GPU, else one LAPACKE call) and the summary with the median and the ratio vendor / starfact.
// The scalar traits (kernels/scalar.hpp) decide what differs: complex runs count 4x the real flops and have no
// variant, task count or simulation path.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "examples/starpu_lu.hpp"
#include "kernels/scalar.hpp"
#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"
#include "support/host_checks.hpp"

namespace starfact::lu_driver {

/// The run of `s` on T (float, double, std::complex<float>, std::complex<double>); returns the exit status: 0, 2 for
/// a singular matrix (info > 0), 3 for a residual >= 60 or NaN.
template <typename T>
int run_factor(const Settings& s, Runtime& rt, Mapping mapping) {
    using support::fmt;
    using support::residual_text;
    constexpr bool complex = detail::is_complex_v<T>;
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    Request request;
    request.op = Operation::Getrf;
    request.element = support::element_of(detail::lapack_letter<T>());  // Fp32, Fp64, C64 or C128
    request.m = request.n = n;
    request.options.mapping = mapping;
    request.tiling = Tiling{s.nb > 0 ? s.nb : 0, residency};  // no --nb: the plan's
    const Plan planned = plan(request, Machine::of(rt));
    const int64_t nb = planned.nb;
    const double flops = (complex ? 4.0 : 1.0) * getrf_flops(n);  // a complex multiply-add is 4 real ones
    const support::Table table(s.csv, {"impl", "n", "nb", "prec", "mapping", "sched", "residency", "run", "seconds",
                                       "GFLOP/s", "residual", "info"});
    table.note("starpu_lu: " + rt.describe());
    table.note("plan: " + planned.to_string());
    const std::vector<const char*> kernels = complex ? std::vector<const char*>{"getrf_panel", "laswp", "trsm_tile",
                                                                                 "gemm_tile"}
                                                     : std::vector<const char*>{"getrf_panel", "laswp", "trsm", "gemm"};
    if (support::model_based(rt.scheduler()) && !support::models_present(rt, s.prec, kernels))
        table.note("note: performance models not yet calibrated on this machine: the " + std::to_string(s.warmup) +
                   " warm-up run(s) calibrate them" + (s.warmup == 0 ? " (none requested: dmda* timings are uncalibrated)" : ""));

    // A simulated run (docs/simulation.md; real precisions only) computes nothing: no n x n host array; each run only
    // makes the tiles valid where they live (random_symmetric on tiles does nothing else there).
    std::vector<T> A;
    if (support::kRunComputes) {
        A = support::host_matrix<T>(n, "starpu_lu");
        support::random_general<T>(n, n, A.data(), n, s.seed);
    }
    // The device copy serves the cuSOLVER baseline (and the device-resident imports): without the baseline the tiles
    // come from the host array, and the first GPU keeps its memory for them.
    const support::DeviceCopy<T> ref(gpu && s.vendor, n, A.data());
    TileMatrix<T> tiles(rt, n, nb, residency);
    Pivots piv(tiles);
    Options opts;
    opts.mapping = mapping;  // the complex LU's only option
    if constexpr (!complex) opts.variant = Variant::parse(s.priorities ? "right" : "noprio");
    table.header();
    const std::vector<std::string> prefix = {"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec),
                                             to_string(mapping), rt.scheduler(), to_string(residency)};
    int info = 0;
    double residual = -1;
    RunStats stats;            // (real runs: the complex LU counts no tasks)
    Runtime::Transfers moved;  // in the last run
    const std::vector<double> seconds = support::timed_runs(
        "starpu_lu", s.warmup, s.repeat,
        [&](const support::Run&) {
            if (support::kRunComputes) {
                const T* src = residency == Residency::Device && ref.device_copy() ? ref.device_copy() : A.data();
                tiles.import(src, n);
            } else if constexpr (!complex) {
                random_symmetric(tiles, s.seed, 0.0);
            }
            rt.transfers();  // resets StarPU's bus counters
            stats.tasks = 0;
        },
        [&](const support::Run& r) {
            const bool trace = r.last && !s.trace_dir.empty();
            if (trace) rt.trace_start();
            if constexpr (complex)
                info = getrf(tiles, piv, opts);
            else
                info = getrf(tiles, piv, opts, stats);
            if (trace) rt.trace_stop();
            moved = rt.transfers();
        },
        [&](const support::Run& r, double sec) {
            if (r.last && s.check && info == 0) {
                std::vector<T> LU(A.size());
                tiles.export_to(LU.data(), n);
                const std::vector<int64_t> ipiv = piv.ipiv();
                Runtime::Paused quiet(rt);
                residual = support::lu_residual<T>(n, A.data(), LU.data(), ipiv.data());
            }
            std::vector<std::string> cells = prefix;
            cells.push_back(std::to_string(r.timed_index));
            cells.push_back(fmt("%.4f", sec));
            cells.push_back(fmt("%.1f", flops / sec * 1e-9));
            cells.push_back(residual_text(r.last ? residual : -1));
            cells.push_back(std::to_string(info));
            table.row(cells);
            return info == 0;
        });
    if (info != 0) {
        table.note("matrix is singular: info = " + std::to_string(info));
        return 2;
    }
    double solve_residual = -1;
    if (s.check) {  // A X = B with the factors of the last run
        std::vector<T> B(static_cast<size_t>(n) * static_cast<size_t>(s.nrhs)), X(B.size());
        support::random_general<T>(n, s.nrhs, B.data(), n, s.seed + 1);
        TileMatrix<T> b(rt, n, s.nrhs, nb, residency);
        b.import(B.data(), n);
        getrs(tiles, piv, b, opts);
        b.export_to(X.data(), n);
        Runtime::Paused quiet(rt);
        solve_residual = support::general_solve_residual<T>(n, s.nrhs, A.data(), X.data(), B.data());
        table.note("solve: nrhs = " + std::to_string(s.nrhs) + ", residual ||A X - B|| / (||A|| ||X|| n eps) = " +
                   residual_text(solve_residual));
    }
    const double ours = support::median(seconds);
    std::string summary = "summary: starfact median " + fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                          (complex ? " GFLOP/s (complex " + std::string(1, s.prec) + "getrf, 4x the real flops)"
                                   : " GFLOP/s, " + std::to_string(stats.tasks) + " tasks");
    if (gpu && support::counts_transfers(s, false))
        summary += support::transfer_summary(moved, seconds.empty() ? 0.0 : seconds.back());
    if (s.vendor) {
        support::VendorRun v;
#ifdef STARFACT_HAVE_CUDA
        if (ref.dev) v = ref.dev->cusolver_getrf(s.warmup, s.repeat);
#endif
        if (v.name.empty()) {
            Runtime::Paused quiet(rt);
            v = support::lapacke_getrf<T>(n, A.data(), s.warmup, s.repeat, s.check);
        }
        if (ref.device() >= 0)
            table.note("vendor: cusolverDnXgetrf " +
                       std::string(!complex ? "" : detail::is_single_v<T> ? "(CUDA_C_32F) " : "(CUDA_C_64F) ") +
                       "on GPU " + std::to_string(ref.device()) + " alone, on its own copy of the matrix");
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row({v.name, std::to_string(n), "-", std::string(1, s.prec), "-", "-",
                       v.name == "cusolver" ? "device" : "host", std::to_string(i + 1), fmt("%.4f", v.seconds[i]),
                       fmt("%.1f", flops / v.seconds[i] * 1e-9),
                       residual_text(i + 1 == v.seconds.size() ? v.residual : -1), std::to_string(v.info)});
        summary += support::vendor_summary(v, flops, ours);
    }
    table.note(summary);
    // Either residual at 60 or above fails the run, and so does a NaN one (-1: not computed).
    const auto fails = [](double r) { return r != -1 && !(r < 60); };
    if (fails(residual) || fails(solve_residual)) {
        table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

}  // namespace starfact::lu_driver
