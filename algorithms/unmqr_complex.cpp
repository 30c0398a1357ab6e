// What the Q of the complex tile QR serves (starfact/qr_complex.hpp): C := Q^H C, Q C, C Q or C Q^H (ormqr, LAPACK's
// cunmqr/zunmqr), the thin Q (orgqr: Q [I; 0]) and least squares or minimum-norm solutions (gels). As the real
// ormqr (algorithms/ormqr.cpp), Q^H C replays geqrf's eliminations in order on C's tiles:
//
//   for k = 0 .. min(mt, nt)-1, for every tile column j of C:
//     for each domain (head h, rows i):  unmqr C[h][j] by (A[h][k], T[h][k]); for i: tsmqr C[h][j], C[i][j]
//     for each merge (p, i):             ttmqr C[p][j], C[i][j] by (A[i][k], TT[i][k])
//
// and Q C applies them backwards (k descending, merges reversed, then each domain's rows reversed and its head).
// From the right the kernels act on C's tile columns: C Q replays them in order, C Q^H backwards.
// gels, m >= n: geqrf, B := Q^H B, R's diagonal checked for an exact zero (the info), then R X = B(0:n) by tile rows
// of B from the last: qr_trsm B[k][j] := R[k][k]^-1 B[k][j], qr_gemm B[i][j] -= A[i][k] B[k][j] for i < k.
// gels, m < n: F = A^H in T's workspace (qr_adjoint per tile), geqrf(F), R's diagonal checked, then R^H Y = B(0:m) by
// tile rows from the first: qr_trsm B[k][j] := R[k][k]^-H B[k][j], qr_gemm B[i][j] -= R[k][i]^H B[k][j] for i > k;
// B(m:n) := 0 (qr_zero_rows), B := Q B, and A := F^H (the factors, as LAPACK's gelqf lays them out).
#include <algorithm>
#include <complex>
#include <string>

#include "algorithms/complex_qr_dag.hpp"
#include "algorithms/qr_dag.hpp"
#include "codelets/complex_qr_codelets.hpp"
#include "starfact/error.hpp"
#include "starfact/qr_complex.hpp"

namespace starfact {
namespace detail {

template <typename T>
void submit_complex_ormqr(starfact::Side side, bool adjoint, const TileMatrix<T>& A, const QRFactors<T>& Tf,
                          TileMatrix<T>& C, TaskOptions o) {
    if (std::min(A.m(), A.n()) == 0 || C.m() == 0 || C.n() == 0) return;
    const bool right = side == starfact::Side::Right;
    const Side kside = right ? Side::Right : Side::Left;
    const bool forward = adjoint != right;  // Q^H C and C Q: the eliminations in geqrf's order
    auto c = [&](int64_t i, int64_t j) { return right ? C.tile(j, i) : C.tile(i, j); };  // tile row i of Q's
    const Runtime& rt = A.runtime();
    const int ib = static_cast<int>(Tf.ib());
    const int64_t steps = std::min(A.mt(), A.nt()), ct = right ? C.mt() : C.nt();
    auto apply_step = [&](int64_t k) {
        const QrStep s = qr_step(k, A.mt(), Tf.domain_rows());
        auto head = [&](const QrStep::Domain& d) {
            for (int64_t j = 0; j < ct; ++j)
                insert_complex_unmqr<T>(rt, o, kside, adjoint, A.tile(d.head, k), Tf.t_tile(d.head, k), c(d.head, j),
                                        ib);
        };
        auto row = [&](const QrStep::Domain& d, int64_t i) {
            for (int64_t j = 0; j < ct; ++j)
                insert_complex_tpmqrt<T>(rt, o, false, kside, adjoint, A.tile(i, k), Tf.t_tile(i, k), c(d.head, j),
                                         c(i, j), ib);
        };
        auto merge = [&](int64_t p, int64_t i) {
            for (int64_t j = 0; j < ct; ++j)
                insert_complex_tpmqrt<T>(rt, o, true, kside, adjoint, A.tile(i, k), Tf.tt_tile(i, k), c(p, j),
                                         c(i, j), ib);
        };
        if (forward) {
            for (const QrStep::Domain& d : s.domains) {
                head(d);
                for (int64_t i : d.rows) row(d, i);
            }
            for (const auto& [p, i] : s.merges) merge(p, i);
        } else {
            for (auto it = s.merges.rbegin(); it != s.merges.rend(); ++it) merge(it->first, it->second);
            for (const QrStep::Domain& d : s.domains) {
                for (auto it = d.rows.rbegin(); it != d.rows.rend(); ++it) row(d, *it);
                head(d);
            }
        }
    };
    if (forward)
        for (int64_t k = 0; k < steps; ++k) apply_step(k);
    else
        for (int64_t k = steps - 1; k >= 0; --k) apply_step(k);
}

template void submit_complex_ormqr<std::complex<float>>(starfact::Side, bool, const TileMatrix<std::complex<float>>&,
                                                        const QRFactors<std::complex<float>>&,
                                                        TileMatrix<std::complex<float>>&, TaskOptions);
template void submit_complex_ormqr<std::complex<double>>(starfact::Side, bool,
                                                         const TileMatrix<std::complex<double>>&,
                                                         const QRFactors<std::complex<double>>&,
                                                         TileMatrix<std::complex<double>>&, TaskOptions);

namespace {

/// Submits `submit(s.o)` into the call's task list and waits for it (also when the submission throws).
template <typename Submit>
void run(ComplexTasks& s, const char* function, Submit&& submit) {
    try {
        submit(s.o);
    } catch (...) {
        s.wait(function);
        throw;
    }
    s.wait(function);
}

template <typename T>
void ormqr_complex(starfact::Side side, Trans trans, const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& C,
                   const Options& opts) {
    require(trans != Trans::Transpose, "ormqr", "trans",
            "must be NoTrans or ConjTranspose for complex matrices (got Transpose: Q^T is not a product the "
            "factorization serves; LAPACK's cunmqr/zunmqr take 'N' and 'C' only)");
    require_complex_qr_arguments("ormqr", A, Tf);
    require_complex_qr_operand("ormqr", "C", A, Tf, C, side);
    ComplexTasks s(A.runtime(), "ormqr", complex_qr_options(A.runtime(), "ormqr", opts));
    run(s, "ormqr", [&](TaskOptions& o) {
        submit_complex_ormqr(side, trans == Trans::ConjTranspose, A, Tf, C, o);
    });
}

template <typename T>
void orgqr_complex(const TileMatrix<T>& A, const QRFactors<T>& Tf, TileMatrix<T>& Q, const Options& opts) {
    require_complex_qr_arguments("orgqr", A, Tf);
    require_complex_qr_operand("orgqr", "Q", A, Tf, Q, starfact::Side::Left);
    require(Q.n() == std::min(A.m(), A.n()), "orgqr", "Q", [&] {
        return "must have min(m, n) columns (got " + std::to_string(Q.n()) + ", A is " + std::to_string(A.m()) +
               " x " + std::to_string(A.n()) + ")";
    });
    const Runtime& rt = A.runtime();
    ComplexTasks s(rt, "orgqr", complex_qr_options(rt, "orgqr", opts));
    run(s, "orgqr", [&](TaskOptions& o) {
        for (int64_t j = 0; j < Q.nt(); ++j)
            for (int64_t i = 0; i < Q.mt(); ++i) insert_complex_qr_laset<T>(rt, o, Q.tile(i, j), i * Q.nb(), j * Q.nb());
        submit_complex_ormqr(starfact::Side::Left, false, A, Tf, Q, o);
    });
}

/// The info of R's diagonal (the upper triangle of F's leading n x n block, n = F's columns): exactly zero at
/// column k (1-based) gives k, recorded in T's breakdown record.
template <typename T>
int zero_diagonal(const TileMatrix<T>& F, const QRFactors<T>& Tf, ComplexTasks& s) {
    InfoVariable info;
    run(s, "gels", [&](TaskOptions& o) {
        for (int64_t k = 0; k < std::min(F.mt(), F.nt()); ++k)
            insert_complex_qr_diag_info<T>(F.runtime(), o, F.tile(k, k), info.handle(), k * F.nb(), Tf.status());
    });
    return info.value();
}

template <typename T>
int gels_complex(TileMatrix<T>& A, QRFactors<T>& Tf, TileMatrix<T>& B, const Options& opts) {
    const bool wide = A.m() < A.n();
    require_complex_qr_arguments("gels", A, Tf, wide);
    require_complex_qr_matrix("gels", "B", B);
    require(B.m() == std::max(A.m(), A.n()), "gels", "B", [&] {
        return "must have max(m, n) rows (got " + std::to_string(B.m()) + ", A is " + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + ")";
    });
    require(B.nb() == A.nb(), "gels", "B", [&] {
        return "must use the tile size of A (got nb=" + std::to_string(B.nb()) + ", A has nb=" +
               std::to_string(A.nb()) + ")";
    });
    require(&B.runtime() == &A.runtime(), "gels", "B", "belongs to another Runtime than A");
    const Runtime& rt = A.runtime();
    const bool priorities = opts.variant.kind == Variant::Kind::Right;
    ComplexTasks s(rt, "gels", complex_qr_options(rt, "gels", opts));
    if (std::min(A.m(), A.n()) == 0) {  // nothing to factor: X = 0 (LAPACK's gels zeroes B's first n rows)
        run(s, "gels", [&](TaskOptions& o) {
            for (int64_t i = 0; i < B.mt(); ++i)
                for (int64_t j = 0; j < B.nt(); ++j) insert_complex_qr_zero_rows<T>(rt, o, B.tile(i, j), 0);
        });
        return 0;
    }
    if (!wide) {
        run(s, "gels", [&](TaskOptions& o) {
            submit_complex_geqrf(A, Tf, o, priorities);
            submit_complex_ormqr(starfact::Side::Left, true, A, Tf, B, o);
        });
        if (const int info = zero_diagonal(A, Tf, s)) return info;
        run(s, "gels", [&](TaskOptions& o) {  // R X = B(0:n), by tile rows from the last
            for (int64_t k = A.nt() - 1; k >= 0; --k)
                for (int64_t j = 0; j < B.nt(); ++j) {
                    insert_complex_qr_trsm<T>(rt, o, A.tile(k, k), B.tile(k, j), false);
                    for (int64_t i = 0; i < k; ++i)
                        insert_complex_qr_gemm<T>(rt, o, false, A.tile(i, k), B.tile(k, j), B.tile(i, j));
                }
        });
        return 0;
    }
    TileMatrix<T>& F = Tf.factored_workspace();  // A^H, n x m
    run(s, "gels", [&](TaskOptions& o) {
        for (int64_t i = 0; i < A.mt(); ++i)
            for (int64_t j = 0; j < A.nt(); ++j) insert_complex_qr_adjoint<T>(rt, o, A.tile(i, j), F.tile(j, i));
        submit_complex_geqrf(F, Tf, o, priorities);
        for (int64_t i = 0; i < A.mt(); ++i)  // A := the factors of A^H, conjugate-transposed
            for (int64_t j = 0; j < A.nt(); ++j) insert_complex_qr_adjoint<T>(rt, o, F.tile(j, i), A.tile(i, j));
    });
    if (const int info = zero_diagonal(F, Tf, s)) return info;
    run(s, "gels", [&](TaskOptions& o) {
        const int64_t kt = F.nt();  // R: m x m, in F's first tile rows
        for (int64_t k = 0; k < kt; ++k)  // R^H Y = B(0:m), by tile rows from the first
            for (int64_t j = 0; j < B.nt(); ++j) {
                insert_complex_qr_trsm<T>(rt, o, F.tile(k, k), B.tile(k, j), true);
                for (int64_t i = k + 1; i < kt; ++i)
                    insert_complex_qr_gemm<T>(rt, o, true, F.tile(k, i), B.tile(k, j), B.tile(i, j));
            }
        for (int64_t i = A.m() / B.nb(); i < B.mt(); ++i)  // B(m:n) := 0
            for (int64_t j = 0; j < B.nt(); ++j)
                insert_complex_qr_zero_rows<T>(rt, o, B.tile(i, j), std::max<int64_t>(0, A.m() - i * B.nb()));
        submit_complex_ormqr(starfact::Side::Left, false, F, Tf, B, o);
    });
    return 0;
}

}  // namespace
}  // namespace detail

void ormqr(Side side, Trans trans, const TileMatrix<std::complex<float>>& A,
           const QRFactors<std::complex<float>>& Tf, TileMatrix<std::complex<float>>& C, const Options& opts) {
    detail::ormqr_complex(side, trans, A, Tf, C, opts);
}
void ormqr(Side side, Trans trans, const TileMatrix<std::complex<double>>& A,
           const QRFactors<std::complex<double>>& Tf, TileMatrix<std::complex<double>>& C, const Options& opts) {
    detail::ormqr_complex(side, trans, A, Tf, C, opts);
}
void orgqr(const TileMatrix<std::complex<float>>& A, const QRFactors<std::complex<float>>& Tf,
           TileMatrix<std::complex<float>>& Q, const Options& opts) {
    detail::orgqr_complex(A, Tf, Q, opts);
}
void orgqr(const TileMatrix<std::complex<double>>& A, const QRFactors<std::complex<double>>& Tf,
           TileMatrix<std::complex<double>>& Q, const Options& opts) {
    detail::orgqr_complex(A, Tf, Q, opts);
}
int gels(TileMatrix<std::complex<float>>& A, QRFactors<std::complex<float>>& Tf, TileMatrix<std::complex<float>>& B,
         const Options& opts) {
    return detail::gels_complex(A, Tf, B, opts);
}
int gels(TileMatrix<std::complex<double>>& A, QRFactors<std::complex<double>>& Tf,
         TileMatrix<std::complex<double>>& B, const Options& opts) {
    return detail::gels_complex(A, Tf, B, opts);
}

}  // namespace starfact
