// Internal: the power of two by which gels scales A or B (codelets/qr_scaling.cpp on the host, kernels/qr/qr_range.cu
// on the device): the largest magnitude `norm` of the matrix brought into [lo, hi], as LAPACK's gels does with
// [smlnum, bignum], exactly (a power of two) and no further than needed.
#pragma once
#include <float.h>
#include <math.h>

#ifdef __CUDACC__
#define STARFACT_QR_HOST_DEVICE __host__ __device__
#else
#define STARFACT_QR_HOST_DEVICE
#endif

namespace starfact::detail {

/// k such that norm 2^k lies in [lo, hi] (0 < lo <= hi / 2): 0 when it does already, or when norm is 0, NaN or
/// infinite (nothing to scale: a zero matrix, or NaN / Inf that the factorization reports).
STARFACT_QR_HOST_DEVICE inline int qr_scale_exponent(double norm, double lo, double hi) {
    if (!(norm > 0) || !(norm <= DBL_MAX) || (norm >= lo && norm <= hi)) return 0;
    int e = 0, b = 0;
    const double f = frexp(norm, &e);  // norm = f 2^e, f in [0.5, 1)
    if (norm > hi) {
        const double g = frexp(hi, &b);
        return b - e - (f > g ? 1 : 0);  // f 2^b <= hi
    }
    const double g = frexp(lo, &b);
    return b - e + (f < g ? 1 : 0);  // f 2^b >= lo
}

/// Where gels' scaling applies: the ranges [lo, hi] of A's and B's largest magnitudes.
struct QrScaleRanges {
    double lo_a, hi_a, lo_b, hi_b;
};
/// What a rescaling multiplies by, given the maxima m[0] = max |A|, m[1] = max |B| and the exponents ka, kb that bring
/// them into range: A by 2^ka, B by 2^kb, the solution X by 2^(ka - kb) (it solves 2^ka A X = 2^kb B), and B back by
/// 2^-kb (the residual's rows, or B when no solution was computed).
enum class QrRescale { Solution = 0, A = 1, B = 2, UndoB = 3 };
STARFACT_QR_HOST_DEVICE inline int qr_rescale_exponent(const double* m, const QrScaleRanges& r, QrRescale which) {
    const int ka = qr_scale_exponent(m[0], r.lo_a, r.hi_a), kb = qr_scale_exponent(m[1], r.lo_b, r.hi_b);
    switch (which) {
        case QrRescale::Solution: return ka - kb;
        case QrRescale::A: return ka;
        case QrRescale::B: return kb;
        case QrRescale::UndoB: break;
    }
    return -kb;
}

}  // namespace starfact::detail
