// The tile Cholesky's API plumbing: the blocking, async and LAPACK-array forms of potrf, its argument checks,
// and the option parsers (Variant, PanelSolve, DiagKernel). The DAG (the loops) is in algorithms/potrf.cpp;
// the choices of tile size and kernels in algorithms/plan.cpp.
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/array_tiles.hpp"
#include "algorithms/element_precision.hpp"
#include "algorithms/planned.hpp"
#include "algorithms/submit.hpp"
#include "codelets/codelets.hpp"
#include "runtime/mpi.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"
#include "starfact/plan.hpp"

namespace starfact {

template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts) {
    RunStats ignored;
    return potrf(A, opts, ignored);
}

template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts, RunStats& stats) {
    Sequence seq(A.runtime());
    detail::submit_potrf(A, seq, opts, &stats);
    return seq.wait();
}

namespace detail {
template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats) {
    return submit_potrf(A, seq, opts, stats, plan_tiles(Operation::Potrf, A, opts));
}

template <typename T>
int submit_potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, RunStats* stats, const Plan& p,
                 const TileArithmetic* arith, BreakdownWatch* watch) {
    if (A.distributed())  // every rank, before any communication (docs/mpi.md)
        detail::agree(A.runtime(), "potrf",
                      {{"n", A.n()}, {"nb", A.nb()}, {"A (tag of its first tile)", first_tag(A)},
                       {"variant", opts.variant.name()}, {"factor", to_string(opts.factor)},
                       {"panel", to_string(p.panel)}});
    detail::require_square("potrf", "A", A);
    Runtime& rt = A.runtime();
    require(&seq.runtime() == &rt, "potrf", "seq", "belongs to another Runtime than A");
    rt.require_mapping(opts.mapping, "potrf");
    detail::require_factor_precision<T>("potrf", opts.factor, false);
    require(opts.diag != DiagKernel::Fused || detail::fused_potf2_available(), "potrf", "diag",
            "is fused but this build has no fused potf2 kernel (no CUDA)");
    require(opts.diag != DiagKernel::Recursive || have_recursive_potrf(), "potrf", "diag",
            "is recursive but this build has no recursive Cholesky kernel (no CUDA)");
    require(opts.variant.kind != Variant::Kind::Lookahead || opts.variant.depth >= 0, "potrf", "variant",
            "lookahead depth must be >= 0 (got " + std::to_string(opts.variant.depth) + ")");
    const PanelSolve panel = p.panel;
    require(!A.distributed() || panel != PanelSolve::Inverse, "potrf",
            "panel", "is inverse, which distributed matrices do not support (its temporary tile is not distributed)");
    // left-coarse's update of tile (m, k) reads 2k tiles in one task: under a GPU memory limit StarPU 1.3 must hold
    // every buffer of a running task, and with fewer than two of the widest tasks' worth it evicts and refetches
    // without progress (seen at n = 49152, nb = 2048 with a 2304 MiB limit, docs/out_of_core.md)
    const long long limit_mb = rt.cuda_workers() > 0 && opts.mapping != Mapping::CpuOnly && A.residency() == Residency::Host
                                   ? rt.cuda_memory_limit_mb()
                                   : -1;
    if (opts.variant.kind == Variant::Kind::LeftCoarse && limit_mb > 0) {
        const double widest = static_cast<double>(2 * A.mt() - 1) * A.nb() * A.nb() * sizeof(T) / (1024.0 * 1024.0);
        require(limit_mb >= 2 * widest, "potrf", "variant",
                "is left-coarse, whose widest update task holds " + std::to_string(static_cast<long long>(widest)) +
                    " MiB of tiles, more than half the GPU memory limit of " + std::to_string(limit_mb) +
                    " MiB: use right or lookahead=D under this limit, or a smaller nb");
    }
    SequenceState& state = SequenceAccess::state(seq);
    std::vector<starpu_data_handle_t> info_handle(1);
    const int op = A.distributed() ? state.add_distributed_operation(rt, &info_handle)
                                   : state.add_operation(&info_handle[0]);
    if (A.n() == 0) return op;
    if (opts.mapping != Mapping::CpuOnly) {
        const int64_t diag_order = std::min(A.nb(), A.n());
        reserve_potrf_workspace<T>(rt, static_cast<int>(diag_order), p.diag);
        if constexpr (!is_complex_v<T>)  // complex panels are triangular solves (plan_complex)
            if (panel == PanelSolve::Inverse) reserve_inverse_workspace<T>(rt, static_cast<int>(A.nb()));
    }
    Options planned = opts;  // the DAG takes the plan's kernels
    planned.panel = p.panel;
    planned.diag = p.diag;
    submit_potrf_dag(A, info_handle, planned, stats, &state, arith, watch);
    return op;
}
template int submit_potrf<float>(TileMatrix<float>&, Sequence&, const Options&, RunStats*);
template int submit_potrf<double>(TileMatrix<double>&, Sequence&, const Options&, RunStats*);
template int submit_potrf<float>(TileMatrix<float>&, Sequence&, const Options&, RunStats*, const Plan&,
                                 const TileArithmetic*, BreakdownWatch*);
template int submit_potrf<double>(TileMatrix<double>&, Sequence&, const Options&, RunStats*, const Plan&,
                                  const TileArithmetic*, BreakdownWatch*);
template int submit_potrf<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&,
                                               RunStats*);
template int submit_potrf<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                RunStats*);
template int submit_potrf<std::complex<float>>(TileMatrix<std::complex<float>>&, Sequence&, const Options&,
                                               RunStats*, const Plan&, const TileArithmetic*, BreakdownWatch*);
template int submit_potrf<std::complex<double>>(TileMatrix<std::complex<double>>&, Sequence&, const Options&,
                                                RunStats*, const Plan&, const TileArithmetic*, BreakdownWatch*);
}  // namespace detail

namespace async {
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts) {
    return detail::submit_potrf(A, seq, opts, nullptr);
}
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts, const Plan& plan) {
    detail::require_plan("potrf", plan, Operation::Potrf, A, opts);
    return detail::submit_potrf(A, seq, opts, nullptr, plan);
}
template int potrf<float>(TileMatrix<float>&, Sequence&, const Options&);
template int potrf<double>(TileMatrix<double>&, Sequence&, const Options&);
template int potrf<float>(TileMatrix<float>&, Sequence&, const Options&, const Plan&);
template int potrf<double>(TileMatrix<double>&, Sequence&, const Options&, const Plan&);
}  // namespace async

namespace detail {
template <typename T>
Plan cholesky_array_plan(const char* function, Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts,
                         const Tiling& tiling) {
    require_nonnegative(function, "n", n);
    require_leading_dimension(function, "lda", lda, n, "n", n, sizeof(T));
    require_tiling(function, tiling);
    require_array(function, "A", A, n == 0);
    Request request;
    request.op = Operation::Potrf;
    request.element = detail::element_precision<T>();
    request.m = request.n = n;
    request.options = opts;
    request.tiling = tiling;
    return plan(rt, request, A);
}
template Plan cholesky_array_plan<float>(const char*, Runtime&, int64_t, float*, int64_t, const Options&,
                                         const Tiling&);
template Plan cholesky_array_plan<double>(const char*, Runtime&, int64_t, double*, int64_t, const Options&,
                                          const Tiling&);
}  // namespace detail

template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts, const Tiling& tiling) {
    const Plan p = detail::cholesky_array_plan("potrf", rt, n, A, lda, opts, tiling);
    detail::ArrayTiles<T> a(rt, n, n, p.nb, A, lda, tiling, true);
    int info = 0;
    {
        Sequence seq(rt);
        detail::submit_potrf(a.tiles(), seq, opts, nullptr, p);
        info = seq.wait();
    }
    a.write_back();
    return info;
}

Variant Variant::parse(const std::string& text, const char* argument) {
    Variant v;
    if (text == "right") v.kind = Kind::Right;
    else if (text == "left") v.kind = Kind::Left;
    else if (text == "left-coarse") v.kind = Kind::LeftCoarse;
    else if (text == "noprio") v.kind = Kind::NoPrio;
    else if (text.rfind("lookahead=", 0) == 0) {
        const std::string d = text.substr(10);
        size_t used = 0;
        int depth = -1;
        try {
            depth = std::stoi(d, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != d.size() || depth < 0 || depth > 1000)
            throw InvalidArgument("Variant::parse", argument,
                                  "lookahead depth must be an integer in [0, 1000] (got '" + text + "')");
        v.kind = Kind::Lookahead;
        v.depth = depth;
    } else {
        throw InvalidArgument("Variant::parse", argument,
                              "must be right, lookahead=D, left, left-coarse or noprio (got '" + text + "')");
    }
    return v;
}

std::string Variant::name() const {
    switch (kind) {
        case Kind::Right: return "right";
        case Kind::Lookahead: return "lookahead=" + std::to_string(depth);
        case Kind::Left: return "left";
        case Kind::LeftCoarse: return "left-coarse";
        case Kind::NoPrio: return "noprio";
    }
    return "?";
}

PanelSolve parse_panel_solve(const std::string& text, const char* argument) {
    if (text == "auto") return PanelSolve::Auto;
    if (text == "trsm") return PanelSolve::Trsm;
    if (text == "inverse") return PanelSolve::Inverse;
    throw InvalidArgument("parse_panel_solve", argument, "must be auto, trsm or inverse (got '" + text + "')");
}

Precision parse_precision(const std::string& text, const char* argument) {
    if (text == "native") return Precision::Native;
    if (text == "fp64" || text == "double" || text == "d") return Precision::Fp64;
    if (text == "fp32" || text == "float" || text == "s") return Precision::Fp32;
    if (text == "tf32") return Precision::Tf32;
    if (text == "bf16") return Precision::Bf16;
    if (text == "fp16") return Precision::Fp16;
    if (text == "tf32x3") return Precision::Tf32x3;
    if (text == "auto") return Precision::Auto;
    throw InvalidArgument("parse_precision", argument,
                          "must be native, fp64, fp32, tf32, bf16, fp16, tf32x3 or auto (got '" + text + "')");
}

const char* to_string(Precision p) {
    switch (p) {
        case Precision::Native: return "native";
        case Precision::Fp64: return "fp64";
        case Precision::Fp32: return "fp32";
        case Precision::Tf32: return "tf32";
        case Precision::Bf16: return "bf16";
        case Precision::Fp16: return "fp16";
        case Precision::Tf32x3: return "tf32x3";
        case Precision::Auto: return "auto";
        case Precision::C64: return "c64";
        case Precision::C128: return "c128";
    }
    return "?";
}

DiagKernel parse_diag_kernel(const std::string& text, const char* argument) {
    if (text == "auto") return DiagKernel::Auto;
    if (text == "fused") return DiagKernel::Fused;
    if (text == "cusolver") return DiagKernel::Cusolver;
    if (text == "recursive") return DiagKernel::Recursive;
    throw InvalidArgument("parse_diag_kernel", argument,
                          "must be auto, fused, cusolver or recursive (got '" + text + "')");
}

const char* to_string(DiagKernel d) {
    switch (d) {
        case DiagKernel::Auto: return "auto";
        case DiagKernel::Fused: return "fused";
        case DiagKernel::Cusolver: return "cusolver";
        case DiagKernel::Recursive: return "recursive";
    }
    return "?";
}

const char* to_string(PanelSolve p) {
    switch (p) {
        case PanelSolve::Auto: return "auto";
        case PanelSolve::Trsm: return "trsm";
        case PanelSolve::Inverse: return "inverse";
    }
    return "?";
}

template int potrf<float>(TileMatrix<float>&, const Options&);
template int potrf<double>(TileMatrix<double>&, const Options&);
template int potrf<float>(TileMatrix<float>&, const Options&, RunStats&);
template int potrf<double>(TileMatrix<double>&, const Options&, RunStats&);
template int potrf<float>(Runtime&, int64_t, float*, int64_t, const Options&, const Tiling&);
template int potrf<double>(Runtime&, int64_t, double*, int64_t, const Options&, const Tiling&);

}  // namespace starfact
