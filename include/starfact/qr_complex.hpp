// Tile Householder QR of complex m x n matrices (LAPACK's cgeqrf/zgeqrf, cunmqr/zunmqr, cungqr/zungqr and
// cgels/zgels): the templates of qr.hpp (geqrf, ormqr, orgqr, gels in their tile, array and async:: forms),
// instantiated for std::complex<float> and std::complex<double> (docs/qr.md, "Complex matrices").
//
// The graphs, trees, tile codelets (CPU: LAPACKE's c/z geqrt, gemqrt, tpqrt, tpmqrt; CUDA: cuSOLVER's geqrf and
// cuBLAS), whole-panel tasks, breakdown reports and argument checks are the real QR's, with every transpose
// conjugated: Q = I - V T V^H, ormqr applies Q (Trans::NoTrans) or Q^H (Trans::ConjTranspose; Trans::Transpose is
// refused, naming 'trans', as LAPACK's unmqr takes 'N' and 'C' only), gels solves with R or R^H, and a wide A's
// gels factors A^H (A is left holding the factors of A^H conjugate-transposed, as LAPACK's gelqf lays them out).
// What complex matrices do not take: the Cholesky QR (QrTree::Kind::Cholqr, refused naming 'tree'; Auto never picks
// it for them), whose kernels are real.
#pragma once
#include <complex>

#include "starfact/qr.hpp"

namespace starfact {

extern template class QRFactors<std::complex<float>>;
extern template class QRFactors<std::complex<double>>;

}  // namespace starfact
