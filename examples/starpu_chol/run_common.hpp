// What starpu_chol's run modes share: the order, tile size, layout and options of a run, the vendor reference
// and residuals (Reference), the warm-up + timed runs of one configuration (measure), and the modes themselves
// (one file each: run_single.cpp, run_potri.cpp, run_grid.cpp, run_compare.cpp, run_sweep.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "examples/starpu_chol/settings.hpp"
#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"
#include "support/host_checks.hpp"
#include "support/profile.hpp"
#include "support/reference.hpp"

namespace starfact::chol_driver {

using support::fmt;
using support::median;
using support::residual_text;
using support::Table;
using support::VendorRun;

/// --n, else 16384 with a GPU and 2000 without.
int64_t matrix_order(const Settings& s, const Runtime& rt);

/// The tile layout of a run: this process's matrix (or `grid`'s ranks), the flags' device placement.
TileLayout layout_of(const Settings& s, bool lower_only, const Grid& grid = Grid{});

/// "placement=2d device-grid=2x2" for the notes of device-resident runs ("" for host-resident ones).
template <typename T>
std::string placement_text(const TileMatrix<T>& tiles);

/// The algorithm choices of a run: the flags' panel solve and diagonal kernel, this mapping and variant.
Options options_for(const Settings& s, Mapping mapping, const Variant& variant);

/// The tile size of a run: --nb, else the tuned plan for this order, precision, mapping, residency and GPU count.
int64_t tile_size(const Settings& s, Mapping m, int64_t n, const Runtime& rt);
/// The library's plan of the run's operation (`op`: --op's) for these flags (plan.hpp): what --plan prints and
/// each run notes before its timings.
Plan driver_plan(const Settings& s, Mapping m, int64_t n, const Runtime& rt, const std::string& op);

/// Whether this machine already has history for the four Cholesky kernels of this precision (s, d, c or z).
bool models_present(const Runtime& rt, char prec);

/// Device-side copy of A, cuSOLVER baseline and residuals when a GPU is in use (no-op otherwise); on the host
/// (LAPACKE, BLAS) with StarPU's workers paused without one. Every precision: T real (A symmetric) or complex (A
/// Hermitian, run_complex.cpp).
template <typename T>
struct Reference : support::DeviceCopy<T> {
    using support::DeviceCopy<T>::DeviceCopy;
    double residual(const Runtime& rt, const TileMatrix<T>& L, int64_t n, const T* A) const {
#ifdef STARFACT_HAVE_CUDA
        if (this->dev) return this->dev->residual_of(L);
#endif
        std::vector<T> Lh(static_cast<size_t>(n) * static_cast<size_t>(n));
        L.export_to(Lh.data(), n);
        Runtime::Paused quiet(rt);
        return support::cholesky_residual<T>(n, A, Lh.data());
    }
    VendorRun vendor(const Runtime& rt, int64_t n, const T* A, int warmup, int repeat, bool check,
                     bool host_path = false) const {
#ifdef STARFACT_HAVE_CUDA
        if (this->dev) return this->dev->cusolver_potrf(warmup, repeat, check, host_path);
#endif
        (void)host_path;
        Runtime::Paused quiet(rt);
        return support::lapacke_potrf<T>(n, A, warmup, repeat, check);
    }
};

struct Measured {
    std::vector<double> seconds;
    double residual = -1;
    int info = 0;
    int64_t tasks = 0;
    support::BusyShare busy;
    Runtime::Transfers moved;  ///< bytes StarPU moved in the last timed run (when counted)
};

/// Warm-up + timed runs of one configuration on `tiles`, refilled before every run from A (null: generated where
/// the tiles live). `trace_last`: FxT records the last run; `per_run`: a row per timed run, after `row_prefix`.
template <typename T>
Measured measure(const Settings& s, Runtime& rt, TileMatrix<T>& tiles, const Reference<T>& ref, const T* A, int64_t n,
                 Options opts, bool trace_last, const Table* per_run, const std::vector<std::string>& row_prefix);

/// The end of a run's output: the summary note, then exit status 3 with a note when `residual` is >= 60, else 0.
int summary_status(const Table& table, const std::string& summary, double residual);

/// The run modes; each returns the exit status (see --help).
/// One configuration, one line per run, then the vendor on the same matrix.
int run_single(const Settings& s, Runtime& rt, Mapping mapping);
/// --prec c|z (called by run_single): the complex Cholesky of a random Hermitian positive definite matrix, a solve
/// with its factor, and the vendor's c/z potrf on the same matrix (run_complex.cpp).
int run_complex(const Settings& s, Runtime& rt, Mapping mapping);
/// --op potri: potrf + trtri + lauum as one graph, and the vendor's potrf + potri.
int run_potri(const Settings& s, Runtime& rt, Mapping mapping);
/// --op posv --factor-prec: the refined solve against cuSOLVER's double solves (run_mixed.cpp).
int run_mixed(const Settings& s, Runtime& rt, Mapping mapping);
/// --prec z --op posv --factor-prec fp32|tf32: the mixed-precision Hermitian solve against starfact's complex<double>
/// posv and cuSOLVER's zpotrf (run_mixed_complex.cpp).
int run_mixed_complex(const Settings& s, Runtime& rt, Mapping mapping);
/// potrf, or posv (--op posv), on a matrix spread over `grid` (1 x 1: this process's own matrix).
int run_grid(const Settings& s, Runtime& rt, Mapping mapping, const Grid& grid);
/// --compare: every scheduler x mapping x variant on the same matrix, one table.
int run_compare(const Settings& s);
/// --sweep: every order x precision x mapping, one CSV.
int run_sweep(const Settings& s);

}  // namespace starfact::chol_driver
