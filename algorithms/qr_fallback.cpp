// The Householder fall-back of the Cholesky QR (algorithms/qr_fallback.hpp, docs/qr.md).
#include "algorithms/qr_fallback.hpp"

#include <starpu.h>

#include <algorithm>

#include "starfact/error.hpp"
#include "algorithms/plan_tables.hpp"

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

int qr_workers(const Runtime& rt, Mapping mapping) {
    switch (mapping) {
        case Mapping::CpuOnly: return rt.cpu_workers();
        case Mapping::GpuOnly: return rt.cuda_workers();
        case Mapping::Hybrid: break;
    }
    return rt.cpu_workers() + rt.cuda_workers();
}

template <typename T>
QrTree householder_tree(const QRFactors<T>& Tf, const Options& opts) {
    const Runtime& rt = Tf.runtime();
    const bool gpu = rt.cuda_workers() > 0;
    QrTree t;
    if (qr_uses_panel(t, Tf.m(), Tf.n(), Tf.nb(), opts.mapping, gpu)) {
        t.kind = QrTree::Kind::Panel;
        return t;
    }
    const int64_t nb = std::max<int64_t>(Tf.nb(), 1);
    t.kind = QrTree::Kind::Domains;
    t.domain = qr_domain_rows(QrTree{}, (Tf.m() + nb - 1) / nb, (Tf.n() + nb - 1) / nb, qr_workers(rt, opts.mapping));
    return t;
}

template <typename T>
QrFallbackCopy<T>::QrFallbackCopy(const QRFactors<T>& Tf, const std::vector<TileMatrix<T>*>& matrices,
                                  const Options& opts) {
    const Runtime& rt = Tf.runtime();
    if (!Tf.tree().fallback || std::min(Tf.m(), Tf.n()) == 0 ||
        !qr_uses_cholqr(Tf.plan_tree(), Tf.m(), Tf.n(), Tf.nb(), opts.mapping, rt.cuda_workers() > 0))
        return;
    matrices_ = matrices;
    for (TileMatrix<T>* X : matrices_) {
        copies_.push_back(std::make_unique<TileMatrix<T>>(WorkspaceTiles{}, X->runtime(), X->m(), X->n(), X->nb()));
        copy_tiles(*X, *copies_.back());
    }
}

template <typename T>
void QrFallbackCopy<T>::restore(QRFactors<T>& Tf, const Options& opts) {
    const QrBreakdown why = Tf.breakdown();  // every info of a QR records its reason
    Tf.set_fallback(why == QrBreakdown::None ? QrBreakdown::RankDeficient : why, householder_tree(Tf, opts));
    for (size_t k = 0; k < matrices_.size(); ++k) copy_tiles(*copies_[k], *matrices_[k]);
}

template QrTree householder_tree<float>(const QRFactors<float>&, const Options&);
template QrTree householder_tree<double>(const QRFactors<double>&, const Options&);
template class QrFallbackCopy<float>;
template class QrFallbackCopy<double>;

}  // namespace starfact::detail
