// Internal: what the complex QR's drivers (algorithms/geqrf_complex.cpp, algorithms/unmqr_complex.cpp) share: the
// argument checks, the CPU-only task list of one call, and the graphs of the factorization and of Q's application
// over the real QR's reduction trees (algorithms/qr_dag.hpp, qr_step). T is std::complex<float> or
// std::complex<double>.
#pragma once
#include <cstdint>
#include <string>

#include "algorithms/complex_submit.hpp"
#include "codelets/codelets.hpp"
#include "starfact/qr_complex.hpp"

namespace starfact::detail {

/// The options of one complex QR call's tasks (ComplexTasks(rt, function, complex_qr_options(...))): CPU workers.
/// Refuses (naming 'opts.mapping') a GpuOnly mapping and a Runtime without CPU workers; `variant` must be Right
/// (critical-path priorities) or NoPrio.
inline Options complex_qr_options(const Runtime& rt, const char* function, const Options& opts) {
    require(opts.mapping != Mapping::GpuOnly, function, "opts.mapping",
            "is gpu-only, but the complex QR runs on CPU workers only (CpuOnly or Hybrid)");
    require(rt.cpu_workers() > 0, function, "opts.mapping",
            "needs CPU workers: the complex QR runs on CPU workers only, and this Runtime has none");
    require(opts.variant.kind == Variant::Kind::Right || opts.variant.kind == Variant::Kind::NoPrio, function,
            "variant", "must be right or noprio for QR (got '" + opts.variant.name() + "')");
    Options cpu = opts;
    cpu.mapping = Mapping::CpuOnly;
    return cpu;
}

/// `name` (A, C, Q, B): on one process and storing every tile.
template <typename T>
void require_complex_qr_matrix(const char* function, const char* name, const TileMatrix<T>& M) {
    require_local(function, name, M);
    require(!M.layout().lower_only, function, name, "must store every tile (got a lower_only matrix)");
}

/// The checks of every complex QR call: A on one process, T shaped for A (`adjoint`: for A^H) on A's Runtime, a
/// Householder tree.
template <typename T>
void require_complex_qr_arguments(const char* function, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                                  bool adjoint = false) {
    require_complex_qr_matrix(function, "A", A);
    const int64_t m = adjoint ? A.n() : A.m(), n = adjoint ? A.m() : A.n();
    require(Tf.m() == m && Tf.n() == n && Tf.nb() == A.nb(), function, "T", [&] {
        return std::string(adjoint ? "must be shaped for A^H (a wide A's least squares factor A^H; got m="
                                   : "must be shaped for A (got m=") +
               std::to_string(Tf.m()) + " n=" + std::to_string(Tf.n()) + " nb=" + std::to_string(Tf.nb()) +
               ", A has m=" + std::to_string(A.m()) + " n=" + std::to_string(A.n()) + " nb=" + std::to_string(A.nb()) +
               ")";
    });
    require(&Tf.runtime() == &A.runtime(), function, "T", "belongs to another Runtime than A");
    const QrTree::Kind tree = Tf.tree().kind;
    require(tree != QrTree::Kind::Cholqr && tree != QrTree::Kind::Panel, function, "tree",
            "must be auto, flat, binary or domains=A for complex matrices (got '" + Tf.tree().name() +
                "': the Cholesky QR and the whole-panel tasks factor real matrices only)");
}

/// A matrix C in A's tile size and Runtime with A's m rows (Side::Right: columns); T factored.
template <typename T>
void require_complex_qr_operand(const char* function, const char* name, const TileMatrix<T>& A,
                                const QRFactors<T>& Tf, const TileMatrix<T>& C, starfact::Side side) {
    require(Tf.factored(), function, "T", "holds no factorization (call geqrf with it first)");
    require_complex_qr_matrix(function, name, C);
    const bool right = side == starfact::Side::Right;
    require((right ? C.n() : C.m()) == A.m(), function, name, [&] {
        return std::string(right ? "must have as many columns as A has rows (got "
                                 : "must have as many rows as A (got ") +
               std::to_string(right ? C.n() : C.m()) + ", A is " + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + ")";
    });
    require(C.nb() == A.nb(), function, name, [&] {
        return "must use the tile size of A (got nb=" + std::to_string(C.nb()) + ", A has nb=" +
               std::to_string(A.nb()) + ")";
    });
    require(&C.runtime() == &A.runtime(), function, name, "belongs to another Runtime than A");
}

/// Submits the factorization A = Q R into `o` (CPU workers; its collect list): sets T's plan (inner blocking,
/// domain rows) and a fresh breakdown record. `priorities`: critical-path priorities (Variant Right).
template <typename T>
void submit_complex_geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, TaskOptions o, bool priorities);
/// Submits C := op(Q) C (Left) or C op(Q) (Right), op(Q) = Q^H when `adjoint`, with the factors of geqrf.
template <typename T>
void submit_complex_ormqr(starfact::Side side, bool adjoint, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                          TileMatrix<T>& C, TaskOptions o);

}  // namespace starfact::detail
