// The Householder fall-back of the Cholesky QR (algorithms/qr_fallback.hpp, docs/qr.md).
#include "algorithms/qr_fallback.hpp"

#include <starpu.h>

#include <algorithm>
#include <complex>

#include "algorithms/element_precision.hpp"
#include "algorithms/planned.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {
namespace {

/// Submits Y := X tile by tile (asynchronous StarPU copies, ordered by the data dependencies).
template <typename T>
void copy_tiles(const TileMatrix<T>& X, TileMatrix<T>& Y) {
    for (int64_t j = 0; j < X.nt(); ++j)
        for (int64_t i = 0; i < X.mt(); ++i)
            if (starpu_data_cpy(Y.tile(i, j), X.tile(i, j), 1, nullptr, nullptr) != 0)
                throw RuntimeError("the QR's Householder fall-back could not copy a tile of its matrices");
}

}  // namespace

template <typename T>
Plan plan_qr_tiles(const QRFactors<T>& Tf, const Options& opts) {
    return plan_qr_tiles(element_precision<T>(), Tf.m(), Tf.n(), Tf.nb(), Tf.ib_requested(), Tf.tree(), opts,
                         Machine::of(Tf.runtime()));
}

template <typename T>
void require_qr_plan(const char* function, const Plan& p, const QRFactors<T>& Tf, const Options& opts) {
    require_qr_plan(function, p, element_precision<T>(), Tf.m(), Tf.n(), Tf.nb(), opts);
}

template <typename T>
QrFallbackCopy<T>::QrFallbackCopy(const QRFactors<T>& Tf, const std::vector<TileMatrix<T>*>& matrices,
                                  const Plan& plan) {
    if (!Tf.tree().fallback || std::min(Tf.m(), Tf.n()) == 0 || plan.tree.kind != QrTree::Kind::Cholqr) return;
    matrices_ = matrices;
    for (TileMatrix<T>* X : matrices_) {
        copies_.push_back(std::make_unique<TileMatrix<T>>(WorkspaceTiles{}, X->runtime(), X->m(), X->n(), X->nb()));
        copy_tiles(*X, *copies_.back());
    }
}

template <typename T>
Plan QrFallbackCopy<T>::restore(QRFactors<T>& Tf, const Plan& plan, const Options& opts) {
    const QrBreakdown why = Tf.breakdown();  // every info of a QR records its reason
    Plan householder = qr_fallback_plan(plan, Tf.ib_requested(), opts, Machine::of(Tf.runtime()));
    Tf.set_fallback(why == QrBreakdown::None ? QrBreakdown::RankDeficient : why, householder.tree);
    for (size_t k = 0; k < matrices_.size(); ++k) copy_tiles(*copies_[k], *matrices_[k]);
    return householder;
}

template Plan plan_qr_tiles<float>(const QRFactors<float>&, const Options&);
template Plan plan_qr_tiles<double>(const QRFactors<double>&, const Options&);
template void require_qr_plan<float>(const char*, const Plan&, const QRFactors<float>&, const Options&);
template void require_qr_plan<double>(const char*, const Plan&, const QRFactors<double>&, const Options&);
template class QrFallbackCopy<float>;
template class QrFallbackCopy<double>;
template Plan plan_qr_tiles<std::complex<float>>(const QRFactors<std::complex<float>>&, const Options&);
template Plan plan_qr_tiles<std::complex<double>>(const QRFactors<std::complex<double>>&, const Options&);
template void require_qr_plan<std::complex<float>>(const char*, const Plan&, const QRFactors<std::complex<float>>&,
                                                   const Options&);
template void require_qr_plan<std::complex<double>>(const char*, const Plan&, const QRFactors<std::complex<double>>&,
                                                    const Options&);
template class QrFallbackCopy<std::complex<float>>;
template class QrFallbackCopy<std::complex<double>>;

}  // namespace starfact::detail
