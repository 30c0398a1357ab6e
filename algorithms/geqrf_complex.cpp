// The complex tile Householder QR, A = Q R (starfact/qr_complex.hpp, docs/qr.md "Complex matrices"): the real tile
// QR's right-looking graph (algorithms/geqrf.cpp) over the same reduction trees (algorithms/qr_dag.hpp, qr_step:
// domains of `domain` tile rows, flat inside, binary across), on the complex CPU codelets of
// codelets/complex_qr_tiles.cpp (m < n: the steps stop at the last tile row, R upper trapezoidal):
//
//   for k = 0 .. min(mt, nt)-1
//     for each domain (head h, rows i):
//       geqrt  A[h][k] -> T[h][k];                  for j > k: unmqr  A[h][j] := Q^H A[h][j]
//       for i: tsqrt A[h][k], A[i][k] -> T[i][k];   for j > k: tsmqr  [A[h][j]; A[i][j]] := Q^H [A[h][j]; A[i][j]]
//     for each merge (p, i):
//       ttqrt  A[p][k], A[i][k] -> TT[i][k];        for j > k: ttmqr  [A[p][j]; A[i][j]] := Q^H [A[p][j]; A[i][j]]
//
// A QR does not break down: NaN or Inf in A only spread into R and the reflectors.
#include <algorithm>
#include <complex>

#include "algorithms/complex_qr_dag.hpp"
#include "algorithms/qr_dag.hpp"
#include "codelets/complex_qr_codelets.hpp"
#include "starfact/error.hpp"
#include "starfact/qr_complex.hpp"

namespace starfact {
namespace detail {
namespace {

/// Tile rows per domain for A's tile QR on rt's CPU workers: T's tree, and for Auto one domain when A has at least as
/// many tile columns as there are workers (the trailing updates keep them busy), else one domain per worker (the
/// tall case, whose parallelism lies in the eliminations of a tile column).
template <typename T>
int64_t domain_rows(const TileMatrix<T>& A, const QRFactors<T>& Tf, const Runtime& rt) {
    const int64_t mt = std::max<int64_t>(A.mt(), 1), workers = std::max(rt.cpu_workers(), 1);
    switch (Tf.tree().kind) {
        case QrTree::Kind::Binary: return 1;
        case QrTree::Kind::Domains: return Tf.tree().domain;
        case QrTree::Kind::Auto:
            if (A.nt() < workers) return (mt + workers - 1) / workers;
            break;
        default: break;
    }
    return mt;  // Flat
}

}  // namespace

template <typename T>
void submit_complex_geqrf(TileMatrix<T>& A, QRFactors<T>& Tf, TaskOptions o, bool priorities) {
    const Runtime& rt = A.runtime();
    const int ib = static_cast<int>(Tf.ib_requested() > 0 ? Tf.ib_requested() : std::min<int64_t>(A.nb(), 32));
    Tf.set_plan(ib, domain_rows(A, Tf, rt));
    Tf.new_status();
    const int64_t nt = A.nt(), steps = std::min(A.mt(), nt);
    auto panel = [&](int64_t k) { return priorities ? static_cast<int>(2 * (nt - k) + 1) : 0; };
    auto update = [&](int64_t j) { return priorities ? static_cast<int>(2 * (nt - j)) : 0; };
    for (int64_t k = 0; k < steps; ++k) {
        const QrStep s = qr_step(k, A.mt(), Tf.domain_rows());
        for (const QrStep::Domain& d : s.domains) {
            o.priority = panel(k);
            insert_complex_geqrt<T>(rt, o, A.tile(d.head, k), Tf.t_tile(d.head, k), ib);
            for (int64_t j = k + 1; j < nt; ++j) {
                o.priority = update(j);
                insert_complex_unmqr<T>(rt, o, Side::Left, true, A.tile(d.head, k), Tf.t_tile(d.head, k),
                                        A.tile(d.head, j), ib);
            }
            for (int64_t i : d.rows) {
                o.priority = panel(k);
                insert_complex_tpqrt<T>(rt, o, false, A.tile(d.head, k), A.tile(i, k), Tf.t_tile(i, k), ib);
                for (int64_t j = k + 1; j < nt; ++j) {
                    o.priority = update(j);
                    insert_complex_tpmqrt<T>(rt, o, false, Side::Left, true, A.tile(i, k), Tf.t_tile(i, k),
                                             A.tile(d.head, j), A.tile(i, j), ib);
                }
            }
        }
        for (const auto& [p, i] : s.merges) {
            o.priority = panel(k);
            insert_complex_tpqrt<T>(rt, o, true, A.tile(p, k), A.tile(i, k), Tf.tt_tile(i, k), ib);
            for (int64_t j = k + 1; j < nt; ++j) {
                o.priority = update(j);
                insert_complex_tpmqrt<T>(rt, o, true, Side::Left, true, A.tile(i, k), Tf.tt_tile(i, k), A.tile(p, j),
                                         A.tile(i, j), ib);
            }
        }
    }
}

template void submit_complex_geqrf<std::complex<float>>(TileMatrix<std::complex<float>>&,
                                                        QRFactors<std::complex<float>>&, TaskOptions, bool);
template void submit_complex_geqrf<std::complex<double>>(TileMatrix<std::complex<double>>&,
                                                         QRFactors<std::complex<double>>&, TaskOptions, bool);

namespace {

template <typename T>
void geqrf_complex(TileMatrix<T>& A, QRFactors<T>& Tf, const Options& opts) {
    require_complex_qr_arguments("geqrf", A, Tf);
    ComplexTasks s(A.runtime(), "geqrf", complex_qr_options(A.runtime(), "geqrf", opts));
    try {
        submit_complex_geqrf(A, Tf, s.o, opts.variant.kind == Variant::Kind::Right);
    } catch (...) {
        s.wait("geqrf");
        throw;
    }
    s.wait("geqrf");
}

}  // namespace
}  // namespace detail

void geqrf(TileMatrix<std::complex<float>>& A, QRFactors<std::complex<float>>& Tf, const Options& opts) {
    detail::geqrf_complex(A, Tf, opts);
}
void geqrf(TileMatrix<std::complex<double>>& A, QRFactors<std::complex<double>>& Tf, const Options& opts) {
    detail::geqrf_complex(A, Tf, opts);
}

}  // namespace starfact
