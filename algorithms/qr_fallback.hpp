// The Householder fall-back of the Cholesky QR (QrTree::fallback, docs/qr.md "The Householder fall-back"): copies
// of the matrices a QR call overwrites, taken before the Cholesky QR runs and put back when it broke down, and the
// Householder tree the call is redone with (the planning entry's: detail::qr_fallback_plan).
#pragma once
#include <complex>
#include <memory>
#include <vector>

#include "starfact/plan.hpp"
#include "starfact/qr.hpp"

namespace starfact::detail {

/// The planning entry's QR plan for the tiles Tf is shaped for (the matrix the QR factors), with Tf's tree and inner
/// blocking requested (algorithms/planned.hpp): a tile form's one planning call.
template <typename T>
Plan plan_qr_tiles(const QRFactors<T>& Tf, const Options& opts);

/// Throws InvalidArgument from `function` naming 'plan' unless `p` is a QR plan for the tiles Tf is shaped for.
template <typename T>
void require_qr_plan(const char* function, const Plan& p, const QRFactors<T>& Tf, const Options& opts);

/// Refuses factors that ask for the fall-back in a submit form `function` (InvalidArgument naming 'tree').
template <typename T>
void require_no_fallback(const char* function, const QRFactors<T>& Tf);

/// A copy of the matrices a blocking QR call overwrites (geqrf: A; gels: A and B), made only when the factors ask for
/// the fall-back and their factorization will be the Cholesky QR: StarPU copy tasks into tiles without a home,
/// ordered before the factorization's tasks by the data dependencies. Memory: one copy of each matrix.
template <typename T>
class QrFallbackCopy {
public:
    QrFallbackCopy(const QRFactors<T>& Tf, const std::vector<TileMatrix<T>*>& matrices, const Plan& plan);
    /// Whether a copy was made (the call may fall back).
    bool armed() const { return !copies_.empty(); }
    /// After the Cholesky QR broke down (waited for): records the fall-back in the factors (its reason, the
    /// Householder tree) and submits the copies back into the matrices, ahead of any task submitted on them later.
    /// Returns the plan of the Householder factorization (detail::qr_fallback_plan of the call's `plan`).
    Plan restore(QRFactors<T>& Tf, const Plan& plan, const Options& opts);

private:
    std::vector<TileMatrix<T>*> matrices_;
    std::vector<std::unique_ptr<TileMatrix<T>>> copies_;
};

extern template class QrFallbackCopy<float>;
extern template class QrFallbackCopy<double>;
extern template class QrFallbackCopy<std::complex<float>>;
extern template class QrFallbackCopy<std::complex<double>>;

}  // namespace starfact::detail
