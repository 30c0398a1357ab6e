// The C ABI's QR operations: geqrf (the T factors as a handle), ormqr, orgqr and gels, as submit forms; of real and
// complex matrices (qr_complex.hpp: the same templates, planned alike).
#include <algorithm>
#include <atomic>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "capi/plan.hpp"
#include "capi/tiles.hpp"
#include "starfact/plan.hpp"
#include "starfact/qr.hpp"
#include "starfact/qr_complex.hpp"

namespace starfact::capi {
namespace {

/// The factors of one QR, shared by the handle and the jobs that use them (the last owner frees them, waiting for
/// their tasks). When the geqrf job that made them has been waited for, `ready` is set if it succeeded, else `broken`
/// holds its info (the breakdown's column) and `reason` the QrBreakdown.
struct QrState {
    int32_t dtype = STARFACT_C_FLOAT64;
    std::unique_ptr<QRFactors<float>> f32;
    std::unique_ptr<QRFactors<double>> f64;
    std::unique_ptr<QRFactors<std::complex<float>>> c64;
    std::unique_ptr<QRFactors<std::complex<double>>> c128;
    std::atomic<bool> ready{false};
    std::atomic<int> broken{0};
    std::atomic<int> reason{static_cast<int>(QrBreakdown::None)};
    std::atomic<int> fallback{static_cast<int>(QrBreakdown::None)};  // why the Householder fall-back ran (None: not)

    template <typename T>
    QRFactors<T>& get() const {
        if constexpr (std::is_same_v<T, float>) return *f32;
        else if constexpr (std::is_same_v<T, double>) return *f64;
        else if constexpr (std::is_same_v<T, std::complex<float>>) return *c64;
        else return *c128;
    }
    template <typename T>
    void set(std::unique_ptr<QRFactors<T>> f) {
        if constexpr (std::is_same_v<T, float>) f32 = std::move(f);
        else if constexpr (std::is_same_v<T, double>) f64 = std::move(f);
        else if constexpr (std::is_same_v<T, std::complex<float>>) c64 = std::move(f);
        else c128 = std::move(f);
    }
};

}  // namespace
}  // namespace starfact::capi

struct starfact_c_qr_factors {
    std::shared_ptr<starfact::capi::QrState> state;
};

namespace starfact::capi {
namespace {

/// The C names of the C++ QR's arguments (its errors in a complex call: the plan's, the complex forms').
constexpr CName kQrNames[] = {{"A", "a"}, {"B", "b"}, {"C", "c"}, {"Q", "q_out"}, {"T", "factors"},
                              {"opts.mapping", "mapping"}};

/// The blocking geqrf on A's tiles (the Householder fall-back needs it: it decides on the Cholesky QR's outcome): its
/// info, 0 or the breakdown's column.
template <typename T>
int blocking_geqrf(TileMatrix<T>& A, QRFactors<T>& F, const Options& opts) {
    try {
        geqrf(A, F, opts);
        return 0;
    } catch (const InvalidArgument&) {
        const int64_t column = F.breakdown_column();
        if (column == 0) throw;  // not a breakdown
        return static_cast<int>(column);
    }
}

/// The factors handle `factors` of `function`, checked against the Runtime and the matrix qr (its shape and dtype);
/// the factorization must have been waited for.
const QrState& checked_factors(const char* function, const starfact_c_qr_factors* factors, const Runtime& rt,
                               const starfact_c_matrix& qr) {
    require(factors != nullptr && factors->state != nullptr, function, "factors", "is null");
    const QrState& s = *factors->state;
    bool same_runtime = false;
    int64_t m = 0, n = 0;
    try {
        dispatch_any(s.dtype, [&](auto tag) {
            const auto& f = s.get<decltype(tag)>();
            m = f.m();
            n = f.n();
            same_runtime = &f.runtime() == &rt;  // throws once the factors' Runtime was destroyed
        });
    } catch (const RuntimeError&) {
        same_runtime = false;
    }
    require(same_runtime, function, "factors", "belongs to another runtime (or to one that was destroyed)");
    require(s.broken.load(std::memory_order_acquire) == 0, function, "factors", [&] {
        return "hold no factorization: their geqrf broke down at column " + std::to_string(s.broken.load()) + " (" +
               describe(static_cast<QrBreakdown>(s.reason.load())) + ")";
    });
    require(s.ready.load(std::memory_order_acquire), function, "factors",
            "are not ready: wait for the geqrf job that made them first");
    require(qr.rows == m && qr.cols == n, function, "qr", [&] {
        return "must be the " + std::to_string(m) + " x " + std::to_string(n) + " matrix geqrf factored with these "
               "factors (got " + std::to_string(qr.rows) + " x " + std::to_string(qr.cols) + ")";
    });
    require_same_dtype(function, "qr", qr.dtype, s.dtype, "factors");
    return s;
}

/// The tile size of an operation with the factors: theirs (options->nb must be 0 or the same).
template <typename T>
int64_t factors_nb(const char* function, const QRFactors<T>& f, const ParsedOptions& p) {
    require(p.tiling.nb == 0 || p.tiling.nb == f.nb(), function, "nb", [&] {
        return "must be 0 or the factors' tile size " + std::to_string(f.nb()) + " (got " +
               std::to_string(p.tiling.nb) + ")";
    });
    return f.nb();
}

/// Checks the matrix `c` (named `name`) of an operation with the m-row qr: present, m rows (`right`: m columns),
/// qr's dtype.
void check_applied(const char* function, const char* name, const starfact_c_matrix* c, const starfact_c_matrix& qr,
                   const Runtime& rt, bool right = false) {
    check_matrix(function, name, c, &rt, false, Elements::RealOrComplex);
    const int64_t got = right ? c->cols : c->rows;
    require(got == qr.rows, function, name, [&] {
        return "must have " + std::to_string(qr.rows) +
               (right ? " columns, as qr has rows (got " : " rows, as qr (got ") + std::to_string(got) + ")";
    });
    require_same_dtype(function, name, c->dtype, qr.dtype, "qr");
}

}  // namespace
}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_geqrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_qr_factors** factors,
                            starfact_c_job** job) {
    if (factors) *factors = nullptr;
    return submit("geqrf", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        require(factors != nullptr, "geqrf", "factors", "is null (no place for the handle)");
        check_matrix("geqrf", "a", a, &rt, false, Elements::RealOrComplex);
        const Output out = output_like("geqrf", "a_out", a_out, *a, "a", rt, Elements::RealOrComplex);
        const ParsedOptions p = parse_options("geqrf", options);
        const Residency where = residency_for(p, {a, a_out});
        auto state = std::make_shared<QrState>();
        state->dtype = a->dtype;
        dispatch_element("geqrf", kQrNames, a->dtype, [&](auto tag) {
            using T = decltype(tag);
            const Plan planned = plan_of(Operation::Geqrf, a->dtype, a->rows, a->cols, 0, p, where, Machine::of(rt));
            const int64_t nb = planned.nb;
            auto F = std::make_unique<QRFactors<T>>(rt, a->rows, a->cols, nb, p.tree, p.ib);
            auto A = argument_tiles<T>(rt, *a, out, true, false, nb, where);
            // The fall-back runs the blocking form when the job is waited for; the others are submitted now.
            const bool fallback = p.tree.fallback;
            if (!fallback) async::geqrf(A->tiles(), *F, *j.sequence, p.options, planned);
            state->set(std::move(F));
            const Options opts = p.options;
            j.finish = [A, state, out, fallback, opts](int submitted) {
                QRFactors<T>& f = state->get<T>();
                const int info = fallback ? blocking_geqrf(A->tiles(), f, opts) : submitted;
                state->fallback.store(static_cast<int>(f.fallback()));
                A->deliver(true);
                settle(out);
                if (info == 0) {
                    state->ready.store(true, std::memory_order_release);
                } else {  // a breakdown: the factors serve no ormqr or orgqr
                    state->reason.store(static_cast<int>(state->get<T>().breakdown()));
                    state->broken.store(info, std::memory_order_release);
                }
                return info;
            };
        });
        auto handle = std::make_unique<starfact_c_qr_factors>();
        handle->state = state;
        *factors = handle.release();
    });
}

int starfact_c_ormqr_submit(starfact_c_runtime* runtime, int32_t side, int32_t trans, const starfact_c_matrix* qr,
                            const starfact_c_qr_factors* factors, const starfact_c_matrix* c,
                            const starfact_c_matrix* c_out, const starfact_c_options* options, starfact_c_job** job) {
    return submit("ormqr", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        require(side == STARFACT_C_LEFT || side == STARFACT_C_RIGHT, "ormqr", "side",
                [&] { return "must be STARFACT_C_LEFT or STARFACT_C_RIGHT (got " + std::to_string(side) + ")"; });
        require(trans == STARFACT_C_NOTRANS || trans == STARFACT_C_TRANS || trans == STARFACT_C_CONJTRANS, "ormqr",
                "trans", [&] {
                    return "must be STARFACT_C_NOTRANS, STARFACT_C_TRANS or STARFACT_C_CONJTRANS (got " +
                           std::to_string(trans) + ")";
                });
        check_matrix("ormqr", "qr", qr, &rt, false, Elements::RealOrComplex);
        require(trans != STARFACT_C_TRANS || !is_complex_dtype(qr->dtype), "ormqr", "trans", [&] {
            return std::string("is STARFACT_C_TRANS, but the Q of a complex qr (") + dtype_name(qr->dtype) +
                   ") serves Q (STARFACT_C_NOTRANS) and Q^H (STARFACT_C_CONJTRANS) only, as LAPACK's unmqr";
        });
        const std::shared_ptr<QrState> state = factors != nullptr ? factors->state : nullptr;
        checked_factors("ormqr", factors, rt, *qr);
        check_applied("ormqr", "c", c, *qr, rt, side == STARFACT_C_RIGHT);
        const Output out = output_like("ormqr", "c_out", c_out, *c, "c", rt, Elements::RealOrComplex);
        const ParsedOptions p = parse_options("ormqr", options);
        const Residency where = residency_for(p, {qr, c, c_out});
        // Q^H: the conjugate transpose of a complex Q, the transpose of a real one (STARFACT_C_TRANS or CONJTRANS).
        const Trans op = trans == STARFACT_C_NOTRANS ? Trans::NoTrans
                         : is_complex_dtype(qr->dtype) ? Trans::ConjTranspose
                                                       : Trans::Transpose;
        dispatch_element("ormqr", kQrNames, qr->dtype, [&](auto tag) {
            using T = decltype(tag);
            const QRFactors<T>& F = state->get<T>();
            const int64_t nb = factors_nb("ormqr", F, p);
            auto Q = argument_tiles<T>(rt, *qr, Output{}, false, false, nb, where);
            auto C = argument_tiles<T>(rt, *c, out, true, false, nb, where, {qr});
            async::ormqr(side == STARFACT_C_RIGHT ? Side::Right : Side::Left, op, Q->tiles(), F, C->tiles(),
                         *j.sequence, p.options);
            j.finish = [Q, C, state, out](int info) {
                Q->deliver(false);
                C->deliver(true);
                settle(out);
                return info;
            };
        });
    });
}

int starfact_c_orgqr_submit(starfact_c_runtime* runtime, const starfact_c_matrix* qr,
                            const starfact_c_qr_factors* factors, const starfact_c_matrix* q_out,
                            const starfact_c_options* options, starfact_c_job** job) {
    return submit("orgqr", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        check_matrix("orgqr", "qr", qr, &rt, false, Elements::RealOrComplex);
        const std::shared_ptr<QrState> state = factors != nullptr ? factors->state : nullptr;
        checked_factors("orgqr", factors, rt, *qr);
        check_matrix("orgqr", "q_out", q_out, &rt, false, Elements::RealOrComplex);
        require_shape("orgqr", "q_out", *q_out, qr->rows, std::min(qr->rows, qr->cols));
        require_same_dtype("orgqr", "q_out", q_out->dtype, qr->dtype, "qr");
        const ParsedOptions p = parse_options("orgqr", options);
        const Residency where = residency_for(p, {qr, q_out});
        Output out;
        out.matrix = *q_out;
        out.present = true;
        dispatch_element("orgqr", kQrNames, qr->dtype, [&](auto tag) {
            using T = decltype(tag);
            const QRFactors<T>& F = state->get<T>();
            const int64_t nb = factors_nb("orgqr", F, p);
            auto Q = argument_tiles<T>(rt, *qr, Output{}, false, false, nb, where);
            // q_out is written whole (orgqr sets every tile first): its own contents are the input, never read.
            auto R = argument_tiles<T>(rt, *q_out, out, true, false, nb, where, {qr});
            async::orgqr(Q->tiles(), F, R->tiles(), *j.sequence, p.options);
            j.finish = [Q, R, state, out](int info) {
                Q->deliver(false);
                R->deliver(true);
                settle(out);
                return info;
            };
        });
    });
}

int starfact_c_gels_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           starfact_c_job** job) {
    return submit("gels", runtime, job, [&](Runtime& rt, starfact_c_job& j) {
        check_matrix("gels", "a", a, &rt, false, Elements::RealOrComplex);
        check_matrix("gels", "b", b, &rt, false, Elements::RealOrComplex);
        // The factored matrix: a (m >= n) or a^T (m < n, the minimum-norm solution); b has its rows.
        const int64_t rows = std::max(a->rows, a->cols), k = std::min(a->rows, a->cols);
        require(b->rows == rows, "gels", "b", [&] {
            return "must have max(m, n) = " + std::to_string(rows) + " rows, a being " + std::to_string(a->rows) +
                   " x " + std::to_string(a->cols) + " (got " + std::to_string(b->rows) + ")";
        });
        require_same_dtype("gels", "b", b->dtype, a->dtype, "a");
        const Output aout = output_like("gels", "a_out", a_out, *a, "a", rt, Elements::RealOrComplex);
        const Output bout = output_like("gels", "b_out", b_out, *b, "b", rt, Elements::RealOrComplex);
        const ParsedOptions p = parse_options("gels", options);
        const Residency where = residency_for(p, {a, a_out, b, b_out});
        dispatch_element("gels", kQrNames, a->dtype, [&](auto tag) {
            using T = decltype(tag);
            // the plan of gels itself (of the QR of a or a^T): its tile size
            const Plan planned = plan_of(Operation::Gels, a->dtype, a->rows, a->cols, b->cols, p, where, Machine::of(rt));
            const int64_t nb = planned.nb;
            auto F = std::make_shared<QRFactors<T>>(rt, rows, k, nb, p.tree, p.ib);
            auto A = argument_tiles<T>(rt, *a, aout, true, false, nb, where, {b, b_out});
            auto B = argument_tiles<T>(rt, *b, bout, true, false, nb, where, {a, a_out});
            // The fall-back runs the blocking form when the job is waited for; the others are submitted now.
            const bool fallback = p.tree.fallback;
            if (!fallback) async::gels(A->tiles(), *F, B->tiles(), *j.sequence, p.options, planned);
            const Options opts = p.options;
            j.finish = [A, B, F, aout, bout, fallback, opts](int submitted) {
                const int info = fallback ? gels(A->tiles(), *F, B->tiles(), opts) : submitted;
                A->deliver(true);
                B->deliver(info == 0);
                settle(aout, bout);
                return info;
            };
        });
    });
}

int starfact_c_qr_factors_info(const starfact_c_qr_factors* factors, starfact_c_qr_info* info) {
    return guarded([&] {
        require(factors != nullptr && factors->state != nullptr, "qr_factors_info", "factors", "is null");
        require(info != nullptr, "qr_factors_info", "info", "is null");
        const QrState& s = *factors->state;
        *info = starfact_c_qr_info{};
        dispatch_any(s.dtype, [&](auto tag) {
            const auto& f = s.get<decltype(tag)>();
            info->rows = f.m();
            info->cols = f.n();
            info->nb = f.nb();
            info->ib = f.ib();
            info->domain_rows = f.domain_rows();
            const std::string tree = f.tree().name();
            std::strncpy(info->tree, tree.c_str(), sizeof info->tree - 1);
        });
        info->dtype = s.dtype;
        info->ready = s.ready.load(std::memory_order_acquire) ? 1 : 0;
    });
}

int starfact_c_qr_factors_breakdown(const starfact_c_qr_factors* factors, int32_t* info, const char** reason) {
    return guarded([&] {
        require(factors != nullptr && factors->state != nullptr, "qr_factors_breakdown", "factors", "is null");
        require(info != nullptr, "qr_factors_breakdown", "info", "is null");
        const QrState& s = *factors->state;
        *info = s.broken.load(std::memory_order_acquire);
        if (reason) *reason = *info > 0 ? describe(static_cast<QrBreakdown>(s.reason.load())) : "";
    });
}

int starfact_c_qr_factors_fallback(const starfact_c_qr_factors* factors, int32_t* fell_back, const char** reason) {
    return guarded([&] {
        require(factors != nullptr && factors->state != nullptr, "qr_factors_fallback", "factors", "is null");
        require(fell_back != nullptr, "qr_factors_fallback", "fell_back", "is null");
        const auto why = static_cast<QrBreakdown>(factors->state->fallback.load(std::memory_order_acquire));
        *fell_back = why != QrBreakdown::None ? 1 : 0;
        if (reason) *reason = describe(why);
    });
}

void starfact_c_qr_factors_destroy(starfact_c_qr_factors* factors) {
    // The last owner of the factors (this handle, or a job using them) waits for their tasks and frees them.
    try {
        const KeepDevice keep;
        delete factors;
    } catch (...) {
    }
}

}  // extern "C"
