// The Householder fall-back of the Cholesky QR (QrTree::fallback, docs/qr.md "The Householder fall-back"): copies
// of the matrices a QR call overwrites, taken before the Cholesky QR runs and put back when it broke down, and the
// Householder tree the call is redone with.
#pragma once
#include <memory>
#include <vector>

#include "starfact/qr.hpp"

namespace starfact::detail {

/// The workers that may run a task of `mapping` (the reduction trees' parallelism).
int qr_workers(const Runtime& rt, Mapping mapping);

/// The plan's choice among the Householder trees for the matrix the factors are shaped for: the panel tree where
/// Auto would take it, else Auto's domains (qr_domain_rows), never the Cholesky QR.
template <typename T>
QrTree householder_tree(const QRFactors<T>& Tf, const Options& opts);

/// Refuses factors that ask for the fall-back in a submit form `function` (InvalidArgument naming 'tree').
template <typename T>
void require_no_fallback(const char* function, const QRFactors<T>& Tf);

/// A copy of the matrices a blocking QR call overwrites (geqrf: A; gels: A and B), made only when the factors ask for
/// the fall-back and their factorization will be the Cholesky QR: StarPU copy tasks into tiles without a home,
/// ordered before the factorization's tasks by the data dependencies. Memory: one copy of each matrix.
template <typename T>
class QrFallbackCopy {
public:
    QrFallbackCopy(const QRFactors<T>& Tf, const std::vector<TileMatrix<T>*>& matrices, const Options& opts);
    /// Whether a copy was made (the call may fall back).
    bool armed() const { return !copies_.empty(); }
    /// After the Cholesky QR broke down (waited for): records the fall-back in the factors (its reason, the
    /// Householder tree) and submits the copies back into the matrices, ahead of any task submitted on them later.
    void restore(QRFactors<T>& Tf, const Options& opts);

private:
    std::vector<TileMatrix<T>*> matrices_;
    std::vector<std::unique_ptr<TileMatrix<T>>> copies_;
};

extern template class QrFallbackCopy<float>;
extern template class QrFallbackCopy<double>;

}  // namespace starfact::detail
