// The planning entry (include/starfact/plan.hpp): one Plan per call, from the tables of algorithms/plan.cpp, each
// asked once; the doors of the tile forms and of the array forms; the Plan's one-line text; the check of a plan handed
// to a submit form (algorithms/planned.hpp).
#include <algorithm>
#include <atomic>
#include <complex>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "algorithms/array_tiles.hpp"  // array_residency
#include "algorithms/element_precision.hpp"
#include "algorithms/plan_tables.hpp"
#include "algorithms/planned.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"  // refines_double
#include "starfact/plan.hpp"
#include "starfact/runtime.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {
namespace {

std::atomic<uint64_t> planning_count{0};  // calls of plan(Request, Machine): detail::planning_calls()

constexpr const char* kOperationNames[] = {"potrf", "potrs", "posv", "potri", "getrf",
                                           "getrs", "gesv",  "geqrf", "gels"};

bool is_cholesky(Operation op) {
    return op == Operation::Potrf || op == Operation::Potrs || op == Operation::Posv || op == Operation::Potri;
}
bool is_lu(Operation op) { return op == Operation::Getrf || op == Operation::Getrs || op == Operation::Gesv; }
bool is_qr(Operation op) { return op == Operation::Geqrf || op == Operation::Gels; }

/// The Cholesky operations' tile size and streams; the mixed-precision posv's refinement path.
template <typename T>
void plan_cholesky(const Request& r, const Machine& mc, Plan& p) {
    const bool gpu = mc.gpu();
    const detail::TilePlan tiles = r.op == Operation::Potri
                                       ? detail::potri_tile_plan<T>(r.n, r.options.mapping, p.residency, gpu)
                                       : detail::tile_plan<T>(r.n, r.options.mapping, p.residency, gpu,
                                                              mc.cuda_devices);
    p.streams_per_gpu = tiles.streams_per_gpu;
    p.nb = tiles.nb;
    p.arithmetic = r.options.factor == Precision::Native ? r.element : r.options.factor;
    Precision factor = r.options.factor;  // the arithmetic the factorization's tasks get
    // A double posv in a lower arithmetic: the refined solve where the low factor pays (or always_low asks), else
    // the double factorization with the double plan's tiles.
    if (r.op == Operation::Posv && r.element == Precision::Fp64 && refines_double(r.options.factor)) {
        const detail::SolvePlan s = detail::solve_plan(r.n, r.options.mapping, p.residency, gpu, mc.cuda_devices,
                                                       r.options.factor);
        p.refined = s.low || r.always_low;
        p.nb = r.always_low ? detail::mixed_tile_size(r.n, r.options.mapping, gpu, r.options.factor) : s.nb;
        if (!p.refined) {  // the double path: potrf and potrs in double (their options' factor Native)
            p.arithmetic = Precision::Fp64;
            factor = Precision::Native;
        }
    }
    if (r.tiling.nb > 0) p.nb = r.tiling.nb;
    // A refined solve with Auto factors on its ladder's first rung, Tf32 (detail::MixedOps), and every rung is a
    // tensor-core arithmetic: the panel solve of that factorization.
    if (p.refined && factor == Precision::Auto) factor = Precision::Tf32;
    p.panel = detail::resolve_panel_solve(r.options.panel, factor, r.options.mapping, r.distributed);
    const int64_t diag_order = std::max<int64_t>(1, std::min(p.nb, r.n));
    p.diag = p.refined || r.element == Precision::Fp32
                 ? detail::resolve_diag_kernel<float>(r.options.diag, r.options.mapping, diag_order)
                 : detail::resolve_diag_kernel<double>(r.options.diag, r.options.mapping, diag_order);
}

/// The LU's tile size; the mixed-precision gesv's refinement path (as posv's: plan_cholesky).
void plan_lu(const Request& r, const Machine& mc, Plan& p) {
    const bool gpu = mc.gpu();
    p.nb = r.element == Precision::Fp32
               ? detail::lu_tile_size<float>(r.n, r.options.mapping, p.residency, gpu, mc.cuda_devices)
               : detail::lu_tile_size<double>(r.n, r.options.mapping, p.residency, gpu, mc.cuda_devices);
    // (Auto, the ladder, is the SPD solve's: gesv refuses it)
    if (r.op == Operation::Gesv && refines_double(r.options.factor) && r.options.factor != Precision::Auto) {
        if (r.element == Precision::Fp64) {
            // A double gesv in a lower arithmetic: the refined solve where the low factor pays (or always_low asks),
            // else the double LU with the double plan's tiles.
            const detail::SolvePlan s = detail::lu_solve_plan(r.n, r.options.mapping, p.residency, gpu,
                                                              mc.cuda_devices, r.options.factor);
            p.refined = s.low || r.always_low;
            p.nb = r.always_low ? detail::mixed_tile_size(r.n, r.options.mapping, gpu, r.options.factor) : s.nb;
            p.arithmetic = p.refined ? r.options.factor : Precision::Fp64;
        } else {
            p.arithmetic = r.options.factor;  // a float gesv with tensor-core updates, not refined
        }
    }
    if (r.tiling.nb > 0) p.nb = r.tiling.nb;
}

/// What a complex request may ask for (the complex tile forms of cholesky_complex.hpp and lu_complex.hpp, potri of
/// inverse.hpp and the QR of qr.hpp: right-looking (the QR: or without priorities), in the matrix's own arithmetic,
/// no Cholesky QR; on one process or distributed over MPI ranks, as the real ones, whose graphs they run on; potri on
/// one process), each refusal an InvalidArgument naming the field.
void require_complex_request(const Request& r) {
    const std::string element = to_string(r.element);
    require(r.tree.kind != QrTree::Kind::Cholqr, "plan", "tree",
            "is cholqr, which factors real matrices only (complex matrices: auto, flat, binary, domains=D, panel)");
    const Precision f = r.options.factor;
    // the mixed-precision Hermitian solve: a c128 posv factored in c64 (fp32, or tf32 on tensor cores)
    const bool refined = r.op == Operation::Posv && r.element == Precision::C128 && refines_complex_double(f);
    require(f == Precision::Native || f == Precision::Auto || f == r.element || refined, "plan", "factor", [&] {
        if (r.op == Operation::Posv && r.element == Precision::C128)
            return std::string("must be native, fp32 or tf32 for a c128 posv (the mixed-precision solve factors in "
                               "c64; no other lower factor of complex matrices); got ") +
                   to_string(f);
        return std::string("must be native for complex matrices (a lower factor only for the c128 posv: fp32 or "
                           "tf32); got ") +
               to_string(f) + " for a " + element + " " + to_string(r.op);
    });
    require(!r.always_low || refined, "plan", "always_low",
            "applies to the mixed-precision solve (complex matrices: a c128 posv with factor fp32 or tf32)");
    const bool qr = r.op == Operation::Geqrf || r.op == Operation::Gels;
    require(r.options.variant.kind == Variant::Kind::Right || (qr && r.options.variant.kind == Variant::Kind::NoPrio),
            "plan", "variant",
            "must be right for complex matrices (their factorizations are right-looking; the QR also takes noprio; "
            "got " + r.options.variant.name() + ")");
    require(r.options.panel != PanelSolve::Inverse, "plan", "panel",
            "must be auto or trsm for complex matrices (their panels are triangular solves)");
    require(r.options.diag == DiagKernel::Auto || r.options.diag == DiagKernel::Cusolver, "plan", "diag",
            std::string("must be auto or cusolver for complex matrices (their diagonal tiles are LAPACK's and "
                        "cuSOLVER's potrf; got ") +
                to_string(r.options.diag) + ")");
}

/// A complex request (R: the elements' real type): the real type's tile tables, then, for device-resident tiles on
/// GPU mappings, the complex factorizations' own rule. The Cholesky takes the real Cholesky's streams (tile_plan<R>)
/// and its hybrid rule, with LAPACK's and cuSOLVER's potrf for the diagonal tiles (never the fused real kernels) and
/// trsm panels; the LU the real LU's tiles and task mapping. Device-resident on GPUs, both run as one task (one
/// cuSOLVER potrf or getrf of the whole matrix) up to n = 16384 in c and 4096 in z, and in tiles of 2048 above: on one H200
/// (bench_complex, docs/performance.md) tiles of 2048 beat one task from 8192 on in z (potrf 1.10 / 1.04x cuSOLVER at
/// 8192 / 16384 against about 0.99 for one task; getrf 1.01 / 1.09x) but not in c below 32768 (potrf 0.89 / 0.95x
/// against 0.985 / 0.996, getrf 0.955 / 0.983x against 0.999 at 16384), and 2048 matched or beat 1024, 1536 and 4096
/// everywhere it was swept. Both in the matrix's own arithmetic, never refined. The Hermitian inverse (potri) takes the
/// real inverse's tiles (potri_tile_plan<R>: at least 8 tile rows on GPUs, for its three phases to overlap).
template <typename R>
void plan_complex(const Request& r, const Machine& mc, Plan& p) {
    p.arithmetic = r.element;
    if (r.op == Operation::Posv && r.element == Precision::C128 && refines_complex_double(r.options.factor)) {
        // The mixed-precision Hermitian solve: solve_plan's rule and tiles, as for a double posv (a tensor-core
        // factor pays on GPUs from kTensorCoreSolveMinOrder; fp32 and CPU mappings always refine); the double
        // path, where the plan takes it, is the c128 factorization with this function's own tiles below.
        const detail::SolvePlan s = detail::solve_plan(r.n, r.options.mapping, p.residency, mc.gpu(), mc.cuda_devices,
                                                       r.options.factor);
        if (s.low || r.always_low) {
            p.refined = true;
            p.arithmetic = r.options.factor;
            p.nb = r.tiling.nb > 0 ? r.tiling.nb : detail::mixed_tile_size(r.n, r.options.mapping, mc.gpu(), r.options.factor);
            p.streams_per_gpu =
                detail::tile_plan<R>(r.n, r.options.mapping, p.residency, mc.gpu(), mc.cuda_devices).streams_per_gpu;
            p.panel = PanelSolve::Trsm;
            p.diag = DiagKernel::Cusolver;
            return;
        }
    }
    if (r.op == Operation::Potri) {  // the real inverse's tiles: three phases pipelined through them, never one task
        const detail::TilePlan tiles = detail::potri_tile_plan<R>(r.n, r.options.mapping, p.residency, mc.gpu());
        p.streams_per_gpu = tiles.streams_per_gpu;
        p.nb = r.tiling.nb > 0 ? r.tiling.nb : tiles.nb;
        p.panel = PanelSolve::Trsm;
        p.diag = DiagKernel::Cusolver;
        return;
    }
    if (is_cholesky(r.op)) {
        const detail::TilePlan tiles =
            detail::tile_plan<R>(r.n, r.options.mapping, p.residency, mc.gpu(), mc.cuda_devices);
        p.streams_per_gpu = tiles.streams_per_gpu;
        p.nb = tiles.nb;
        p.panel = PanelSolve::Trsm;
        p.diag = DiagKernel::Cusolver;
    } else {
        p.nb = detail::lu_tile_size<R>(r.n, r.options.mapping, p.residency, mc.gpu(), mc.cuda_devices);
    }
    if (mc.gpu() && r.options.mapping != Mapping::CpuOnly && p.residency == Residency::Device) {
        const int64_t one_task = std::is_same<R, float>::value ? 16384 : 4096;
        p.nb = r.n <= one_task ? std::max<int64_t>(r.n, 1) : 2048;
    } else if (is_lu(r.op) && p.nb < r.n) {
        p.nb = std::min<int64_t>(p.nb, 2048);
    }
    if (r.tiling.nb > 0) p.nb = r.tiling.nb;
}

/// The rows and columns of the matrix a QR of `op` on an m x n A factors: A's, and for gels of a wide A (m < n) those
/// of A^T (a Request's or a Plan's op, m and n).
void qr_factored(Operation op, int64_t m, int64_t n, int64_t& rows, int64_t& cols) {
    const bool transposed = op == Operation::Gels && m < n;
    rows = transposed ? n : m;
    cols = transposed ? m : n;
}

/// The Householder tree for the matrix a QR factors (rows x cols in nb-tiles): the panel tree where Auto takes it
/// (qr_uses_panel; `panel`: the inner blocking allows it), else the domains of qr_domain_rows (Flat for one domain,
/// Binary for domains of one tile row).
QrTree householder_tree(const QrTree& requested, int64_t rows, int64_t cols, int64_t nb, bool panel, const Request& r,
                        const Machine& mc) {
    const bool gpu = mc.gpu();
    if (panel && detail::qr_uses_panel(requested, rows, cols, nb, r.options.mapping, gpu))
        return QrTree{QrTree::Kind::Panel, 0};
    const int64_t mt = (rows + nb - 1) / nb, nt = (cols + nb - 1) / nb;
    const int workers = r.options.mapping == Mapping::CpuOnly   ? mc.cpu_workers
                        : r.options.mapping == Mapping::GpuOnly ? mc.cuda_workers
                                                                : mc.cpu_workers + mc.cuda_workers;
    const int64_t d = detail::qr_domain_rows(requested, mt, nt, workers);
    if (d >= std::max<int64_t>(mt, 1)) return QrTree{QrTree::Kind::Flat, 0};
    if (d == 1) return QrTree{QrTree::Kind::Binary, 0};
    return QrTree{QrTree::Kind::Domains, d};
}

/// The QR's tile size, tree and inner blocking, for the matrix it factors (gels of a wide A: A^T); the tile table
/// sees the long and the short side whatever the orientation. A Cholesky QR that falls back keeps its flag; the tree
/// it falls back to is detail::qr_fallback_plan's.
template <typename T>
void plan_qr(const Request& r, const Machine& mc, Plan& p) {
    const bool gpu = mc.gpu();
    int64_t rows = 0, cols = 0;
    qr_factored(r.op, r.m, r.n, rows, cols);
    p.nb = r.tiling.nb > 0 ? r.tiling.nb
                           : std::max<int64_t>(1, detail::qr_tile_size<T>(std::max(rows, cols), std::min(rows, cols),
                                                                          r.options.mapping, p.residency, gpu,
                                                                          mc.cuda_devices));
    p.ib = r.ib > 0 ? r.ib : detail::qr_inner_block(p.nb, r.options.mapping, gpu);
    // the panel tree forms one triangular factor per panel, so an inner blocking asked below the panel's width keeps
    // Auto on the trees, and the panel tree blocks by whole tiles
    const bool full_t = r.ib == 0 || r.ib >= std::min(p.nb, cols);
    if (!is_complex(r.element) && detail::qr_uses_cholqr(r.tree, rows, cols, p.nb, r.options.mapping, gpu)) {
        p.tree = QrTree{QrTree::Kind::Cholqr, 0, r.tree.fallback};
        p.ib = detail::qr_cholqr_panel(rows, cols, r.ib, r.options.mapping, gpu);
        return;
    }
    p.tree = householder_tree(r.tree, rows, cols, p.nb, full_t, r, mc);
    if (p.tree.kind == QrTree::Kind::Panel) p.ib = p.nb;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

const char* to_string(Operation op) { return kOperationNames[static_cast<int>(op)]; }

Operation parse_operation(const std::string& text, const char* argument) {
    for (int i = 0; i < int(sizeof kOperationNames / sizeof kOperationNames[0]); ++i)
        if (text == kOperationNames[i]) return static_cast<Operation>(i);
    throw InvalidArgument("parse_operation", argument,
                          "must be one of potrf, potrs, posv, potri, getrf, getrs, gesv, geqrf, gels (got '" + text +
                              "')");
}

Machine Machine::of(const Runtime& rt) { return {rt.cpu_workers(), rt.cuda_workers(), rt.cuda_devices()}; }

Plan plan(const Request& r, const Machine& mc) {
    require(r.m >= 0, "plan", "m", "must be >= 0 (got " + std::to_string(r.m) + ")");
    require(r.n >= 0, "plan", "n", "must be >= 0 (got " + std::to_string(r.n) + ")");
    require(r.nrhs >= 0, "plan", "nrhs", "must be >= 0 (got " + std::to_string(r.nrhs) + ")");
    require(r.tiling.nb >= 0, "plan", "nb", "must be >= 0 (got " + std::to_string(r.tiling.nb) + ")");
    require(r.ib >= 0, "plan", "ib", "must be >= 0 (got " + std::to_string(r.ib) + ")");
    require(r.element == Precision::Fp64 || r.element == Precision::Fp32 || is_complex(r.element), "plan", "element",
            std::string("must be fp64, fp32, c64 or c128 (got ") + to_string(r.element) + ")");
    if (is_complex(r.element)) require_complex_request(r);
    planning_count.fetch_add(1, std::memory_order_relaxed);
    return detail::plan_uncounted(r, mc);
}

namespace detail {
Plan plan_uncounted(const Request& r, const Machine& mc) {
    Plan p;
    p.op = r.op;
    p.element = r.element;
    p.m = r.m;
    p.n = r.n;
    p.nrhs = r.nrhs;
    p.mapping = r.options.mapping;
    p.residency = r.tiling.residency;
    p.arithmetic = r.element;
    const bool single = r.element == Precision::Fp32;
    const bool gpu = mc.gpu();
    if (is_complex(r.element) && !is_cholesky(r.op) && !is_lu(r.op)) {  // the QR: the real type's tables
        if (r.element == Precision::C64) plan_qr<float>(r, mc, p);
        else plan_qr<double>(r, mc, p);
    } else if (is_complex(r.element)) {
        if (r.element == Precision::C64) plan_complex<float>(r, mc, p);
        else plan_complex<double>(r, mc, p);
    } else if (is_cholesky(r.op)) {
        if (single) plan_cholesky<float>(r, mc, p);
        else plan_cholesky<double>(r, mc, p);
    } else if (is_lu(r.op)) {
        plan_lu(r, mc, p);
    } else {
        if (single) plan_qr<float>(r, mc, p);
        else plan_qr<double>(r, mc, p);
    }
    if (!is_cholesky(r.op))  // the streams a runtime has are the Cholesky's, whatever runs on it
        p.streams_per_gpu =
            detail::tile_plan<double>(std::max<int64_t>(r.n, 1), r.options.mapping, p.residency, gpu).streams_per_gpu;
    p.nb = std::max<int64_t>(p.nb, 1);
    p.task_mapping = detail::task_mapping(r.options.mapping, p.nb, gpu);
    // the trees' CUDA kernels form one triangular factor per tile: with a finer inner blocking their tasks run on
    // the CPUs (algorithms/qr_dag.hpp, qr_gpu_layout)
    int64_t rows = r.n, cols = r.n;
    if (is_qr(r.op)) qr_factored(r.op, r.m, r.n, rows, cols);
    const bool qr_trees = is_qr(r.op) && p.tree.kind != QrTree::Kind::Cholqr && p.tree.kind != QrTree::Kind::Panel;
    if (qr_trees && gpu && p.ib < std::min(p.nb, cols)) p.task_mapping = Mapping::CpuOnly;
    p.one_task = rows <= p.nb && cols <= p.nb;
    return p;
}
}  // namespace detail

template <typename T>
Plan plan(const TileMatrix<T>& A, Request r, const Machine* machine) {
    r.element = detail::element_precision<T>();
    r.m = A.m();
    r.n = A.n();
    r.tiling.nb = A.nb();
    r.tiling.residency = A.residency();
    r.distributed = A.distributed();
    return plan(r, machine ? *machine : Machine::of(A.runtime()));
}
template Plan plan<float>(const TileMatrix<float>&, Request, const Machine*);
template Plan plan<double>(const TileMatrix<double>&, Request, const Machine*);
template Plan plan<std::complex<float>>(const TileMatrix<std::complex<float>>&, Request, const Machine*);
template Plan plan<std::complex<double>>(const TileMatrix<std::complex<double>>&, Request, const Machine*);

Plan plan(const Runtime& rt, Request r, const void* A, const Machine* machine) {
    r.tiling.residency = detail::array_residency(rt, A, r.tiling, to_string(r.op), "A");
    return plan(r, machine ? *machine : Machine::of(rt));
}

namespace detail {

template <typename T>
Plan plan_tiles(Operation op, const TileMatrix<T>& A, const Options& opts, int64_t nrhs, bool always_low) {
    Request r;
    r.op = op;
    r.options = opts;
    r.nrhs = nrhs;
    r.always_low = always_low;
    return plan(A, r);
}
template Plan plan_tiles<float>(Operation, const TileMatrix<float>&, const Options&, int64_t, bool);
template Plan plan_tiles<double>(Operation, const TileMatrix<double>&, const Options&, int64_t, bool);
template Plan plan_tiles<std::complex<float>>(Operation, const TileMatrix<std::complex<float>>&, const Options&,
                                              int64_t, bool);
template Plan plan_tiles<std::complex<double>>(Operation, const TileMatrix<std::complex<double>>&, const Options&,
                                               int64_t, bool);

template <typename T>
void require_plan(const char* function, const Plan& p, Operation op, const TileMatrix<T>& A, const Options& opts,
                  int64_t nrhs) {
    const Precision element = detail::element_precision<T>();
    const bool empty = A.m() == 0 || A.n() == 0;
    // its tasks' mapping: the hybrid rule on this runtime's workers (a plan for another machine may map them where
    // this runtime has no worker)
    const Mapping tasks = task_mapping(opts.mapping, A.nb(), A.runtime().cuda_workers() > 0);
    const bool same = p.op == op && p.element == element && p.n == A.n() && p.nrhs == nrhs && p.nb == A.nb() &&
                      p.mapping == opts.mapping && p.task_mapping == tasks &&
                      (empty || p.residency == A.residency());
    require(same, function, "plan", [&] {
        return std::string("must be the plan of this call: of ") + starfact::to_string(op) + " on its tiles (element=" +
               starfact::to_string(element) + " n=" + std::to_string(A.n()) + " nrhs=" + std::to_string(nrhs) +
               " nb=" + std::to_string(A.nb()) + " residency=" + starfact::to_string(A.residency()) +
               ") under its options on this runtime (mapping=" + starfact::to_string(opts.mapping) +
               " tasks=" + starfact::to_string(tasks) + "), got " + p.to_string();
    });
}
template void require_plan<float>(const char*, const Plan&, Operation, const TileMatrix<float>&, const Options&,
                                  int64_t);
template void require_plan<double>(const char*, const Plan&, Operation, const TileMatrix<double>&, const Options&,
                                   int64_t);
template void require_plan<std::complex<float>>(const char*, const Plan&, Operation,
                                                const TileMatrix<std::complex<float>>&, const Options&, int64_t);
template void require_plan<std::complex<double>>(const char*, const Plan&, Operation,
                                                 const TileMatrix<std::complex<double>>&, const Options&, int64_t);

Plan plan_qr_tiles(Precision element, int64_t m, int64_t n, int64_t nb, int64_t ib, const QrTree& tree,
                   const Options& opts, const Machine& machine) {
    Request r;
    r.op = Operation::Geqrf;
    r.element = element;
    r.m = m;
    r.n = n;
    r.options = opts;
    r.tiling.nb = nb;
    r.tiling.residency = Residency::Device;  // (the QR's choices do not depend on it)
    r.tree = tree;
    r.ib = ib;
    return plan(r, machine);
}

Plan qr_fallback_plan(const Plan& cholqr, int64_t ib, const Options& opts, const Machine& machine) {
    Request r;
    r.op = Operation::Geqrf;
    r.element = cholqr.element;
    qr_factored(cholqr.op, cholqr.m, cholqr.n, r.m, r.n);
    r.options = opts;
    r.tiling.nb = cholqr.nb;
    r.tiling.residency = cholqr.residency;
    r.ib = ib;
    r.tree = householder_tree(QrTree{}, r.m, r.n, std::max<int64_t>(cholqr.nb, 1), true, r, machine);
    return plan_uncounted(r, machine);
}

void require_qr_plan(const char* function, const Plan& p, Precision element, int64_t m, int64_t n, int64_t nb,
                     const Options& opts) {
    int64_t rows = 0, cols = 0;
    if (p.op == Operation::Geqrf || p.op == Operation::Gels) qr_factored(p.op, p.m, p.n, rows, cols);
    const bool same = (p.op == Operation::Geqrf || p.op == Operation::Gels) && p.element == element && rows == m &&
                      cols == n && p.nb == nb && p.mapping == opts.mapping;
    require(same, function, "plan", [&] {
        return std::string("must be the plan of this call: of a QR of ") + std::to_string(m) + " x " +
               std::to_string(n) + " " + starfact::to_string(element) + " tiles of " + std::to_string(nb) +
               " under its options (mapping=" + starfact::to_string(opts.mapping) + "), got " + p.to_string();
    });
}

uint64_t planning_calls() { return planning_count.load(std::memory_order_relaxed); }

}  // namespace detail

std::string Plan::to_string() const {
    const bool chol = is_cholesky(op), qr = is_qr(op);
    const int64_t rows = qr ? m : n;
    std::ostringstream s;
    s << "op=" << starfact::to_string(op) << " element=" << starfact::to_string(element) << " m=" << rows
      << " n=" << n << " nrhs=" << nrhs << " mapping=" << starfact::to_string(mapping)
      << " tasks=" << starfact::to_string(task_mapping) << " residency=" << starfact::to_string(residency)
      << " nb=" << nb << " streams=" << streams_per_gpu << " one_task=" << yes_no(one_task)
      << " arithmetic=" << starfact::to_string(arithmetic) << " refined=" << yes_no(refined)
      << " diag=" << (chol && streams_per_gpu > 0 ? starfact::to_string(diag) : "-") << " panel=" << (chol ? starfact::to_string(panel) : "-")
      << " tree=" << (qr ? tree.name() : std::string("-")) << " ib=" << (qr ? std::to_string(ib) : std::string("-"));
    return s.str();
}

std::ostream& operator<<(std::ostream& out, const Plan& plan) { return out << plan.to_string(); }

}  // namespace starfact
