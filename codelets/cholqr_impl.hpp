// Internal: what the Cholesky QR's codelets share (codelets/qr_cholqr.cpp defines the codelets and their insert
// helpers; codelets/cholqr_cpu.cpp and codelets/cholqr_cuda.cpp implement them): the task arguments, the small helpers
// and constants of the algorithm, and the CPU and CUDA implementations, which the codelets point to.
#pragma once
#include <starpu.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "codelets/cholqr_codelets.hpp"
#include "codelets/qr_codelets.hpp"
#include "codelets/qr_status.hpp"
#include "runtime/cuda_contexts.hpp"

namespace starfact::detail::cholqr {

struct CholqrArgs {
    int64_t m = 0;        // cholqr_potrf: the factored matrix's rows (the shift)
    bool shift = false;   // cholqr_potrf: shift the first pass's Gram matrix
    bool check = false;   // cholqr_potrf: the last pass's Gram matrix must be near the identity
    bool right = false;   // ytc, tmul, update: side Right
    bool trans = false;   // tmul: op(T) = T^T
    bool unit = false;    // ytc, update: the first tile (Y1 unit lower in its first n rows)
    bool decide = false;  // cholqr_potrf of the second pass: sets passes->count
    bool low = false;     // gram, cholqr_potrf of the first pass: the Gram matrix of A rounded to TF32 (double only)
    int inputs = 0;       // cholqr_add: the Wi summed into Wp
    int first_column = 0; // potrf, householder: added to the columns of the breakdowns reported (a blocked panel's)
    // The part of each buffer (by its index in the codelet's list; a self kernel's by the list of the kernel it
    // stands for) that the task works on (TileWindow: whole tiles by default).
    TileWindow window[5];
    // solve_gram_3, add_3, potrf_3: return at once when passes->count is 2; householder: the last factor
    CholqrPasses* passes = nullptr;
    CudaContexts* cuda = nullptr;
};

/// The task is the third pass's of a factorization that stopped after two.
inline bool skipped(const CholqrArgs* a) {
    return a->passes && a->passes->count.load(std::memory_order_acquire) == 2;
}
/// The factorization stopped after two passes (the householder task: L2 is the last factor).
inline bool two_passes(const CholqrArgs* a) { return skipped(a); }
/// The householder task: the passes run, into the blocking form's RunStats.
inline void count_passes(const CholqrArgs* a, bool two) {
    if (a->passes && a->passes->stats) a->passes->stats->qr_passes = two ? 2 : 3;
}

using Tile = QrTile;
inline Tile tile(void* buffer) { return qr_tile(buffer); }
/// Buffer i of a task as its window (CholqrArgs::window) shows it.
template <typename T>
Tile tile(void* buffers[], const CholqrArgs* a, int i) {
    Tile t = tile(buffers[i]);
    if (!a) return t;
    const TileWindow& w = a->window[i];
    t.ptr = ptr<T>(t) + w.row0 + static_cast<int64_t>(w.col0) * t.ld;
    t.rows -= w.row0;
    t.cols = w.cols < 0 ? t.cols - w.col0 : w.cols;
    return t;
}
inline int* info_of(void* buffer) { return reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffer)); }
inline int64_t at(int i, int j, int ld) { return i + static_cast<int64_t>(j) * ld; }

/// The shift of the first pass (Fukaya, Kannan, Nakatsukasa, Zhang, Yamamoto, SIAM J. Sci. Comput. 42(1), 2020):
/// 11 (m n + n (n + 1)) u ||A||^2, with ||A||_F^2 = trace(A^T A) >= ||A||_2^2 for ||A||^2.
template <typename T>
double base_shift(int64_t m, int n, double trace) {
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double N = n;
    return 11.0 * (static_cast<double>(m) * N + N * (N + 1)) * u * trace;
}
/// The next shift after a failed Cholesky: at least the base shift (or, for a zero or non-finite trace, 1).
inline double next_shift(double s, double base) {
    if (!(base > 0) || !std::isfinite(base)) base = 1;
    return std::max(s * 100, base);
}
constexpr int kShiftRetries = 12;
/// A first pass whose Gram matrix is of A rounded to TF32 (CholqrArgs::low; float accumulation) is shifted by
/// kTf32Unit^2 times its largest diagonal entry first: far below the shift that bounds the rounding errors in the
/// worst case (kTf32Unit times it, times a small factor), which random rounding errors seldom need, and enough to
/// bound the first factor's condition by about 2^11 sqrt(n), so that multiplying its solve back (the blocking
/// forms' start over in double) loses little. When that Cholesky fails, the retries start from kTf32Unit times the
/// largest diagonal entry.
constexpr double kTf32Unit = 0x1p-11;
template <typename T>
double low_base_shift(const T* diagonal, int n) {
    double top = 0;
    for (int j = 0; j < n; ++j) top = std::max(top, static_cast<double>(diagonal[j]));
    return kTf32Unit * top;
}
/// The magnitudes a TF32 Gram matrix takes: every entry zero or within [2^-kTf32Exponent, 2^kTf32Exponent], so that
/// no square underflows and no sum of up to 2^20 squares overflows in float (a tile with another entry, NaN or Inf
/// among them, has its Gram matrix in double, as without CholqrArgs::low).
constexpr int kTf32Exponent = 50;
inline bool tf32_range(double x) {
    static const double lo = std::ldexp(1.0, -kTf32Exponent), hi = std::ldexp(1.0, kTf32Exponent);
    const double a = std::abs(x);
    return a == 0 || (a >= lo && a <= hi);
}
/// x rounded to TF32 (10 explicit mantissa bits, to nearest, ties away from zero), as a float.
inline float round_tf32(double x) {
    float f = static_cast<float>(x);
    if (!std::isfinite(f)) return f;
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    b = (b + 0x1000u) & ~0x1FFFu;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
/// The distance of a Gram matrix G = Q^T Q from the identity that the passes' decisions read: an upper bound of
/// ||G - I||_2, the smaller of ||G - I||_F and ||G - I||_1 (G symmetric: ||.||_2 <= ||.||_1 = ||.||_inf). After the
/// shifted first pass G - I has every eigenvalue of about -s / (sigma_i^2 + s): the Frobenius norm adds n of them up
/// and grows as sqrt(n) for a well-conditioned A (m = 65536, n = 4096, cond 1.7: about 0.1), while the column sums
/// of a G - I near the diagonal stay near its largest entry. NaN when either is.
inline double identity_distance(double frobenius_squared, double one_norm) {
    const double f = std::sqrt(frobenius_squared);
    if (std::isnan(f) || std::isnan(one_norm)) return std::numeric_limits<double>::quiet_NaN();
    return std::min(f, one_norm);
}
/// When identity_distance(G2) is above kSkipDistance, the second pass's decision takes an estimate of ||G2 - I||_2
/// by the power method instead (at most kPowerIterations products with G2 - I from power_start, stopped when two
/// estimates agree to kPowerTolerance): a lower bound that, from a start with any component along the top
/// eigenvector, comes within a few percent of the norm in tens of steps, and an underestimate by a factor five still
/// leaves kappa(Q1)^2 <= 3, whose second pass is orthogonal to working accuracy. At m = 65536, n = 8192 (cond 2.4)
/// the bounds above were near 1 and the norm about 0.014: a third pass of about half the factorization's time.
constexpr int kPowerIterations = 40;
constexpr double kPowerTolerance = 1e-3;
/// The power method's start: positive entries of varying size (a fixed sequence, the same on every worker kind).
template <typename T>
std::vector<T> power_start(int n) {
    std::vector<T> x(static_cast<size_t>(n));
    double norm = 0;
    for (int i = 0; i < n; ++i) {
        const double v = 1.0 + 0.5 * std::sin(1.0 + 0.7 * i);
        x[static_cast<size_t>(i)] = static_cast<T>(v);
        norm += v * v;
    }
    for (T& v : x) v = static_cast<T>(v / std::sqrt(norm));
    return x;
}
constexpr double kIdentityDistance = 0.9;  // identity_distance beyond which the last pass cannot orthogonalise
/// identity_distance(G2) up to which the second pass's input counts as orthonormal, so that the second pass's
/// output is (the third pass's input would have been): kappa(Q1)^2 <= (1 + 0.1) / (1 - 0.1), and Cholesky QR's loss
/// of orthogonality, O(u kappa^2) (Yamamoto, Nakatsukasa, Yanagisawa, Fukaya, "Roundoff error analysis of the
/// CholeskyQR2 algorithm", ETNA 44, 2015), within 1.22 times the third pass's.
constexpr double kSkipDistance = 0.1;

/// The rank check (the reconstruction): |R(j, j)| < kRankTolerance u max_i |R(i, i)| is numerical rank deficiency. An
/// exactly singular A^T A leaves |R(j, j)| near u ||A|| (1 to 3 u max_i |R(i, i)| on random matrices with two equal
/// columns), while min |R(j, j)| / max |R(i, i)| >= 1 / cond(A): A of cond below 1 / (1000 u), about 9e12 in double,
/// is never refused by it (docs/qr.md).
constexpr double kRankTolerance = 1000;

/// The first pass's check of A^T A, from its trace ||A||_F^2 (summed in double): NaN on its diagonal (A holds NaN),
/// infinite (A holds Inf, or entries too large to square), or so small that A's entries have no accurate squares.
template <typename T>
QrBreakdown gram_breakdown(double trace) {
    if (std::isnan(trace)) return QrBreakdown::NotFinite;
    if (std::isinf(trace)) return QrBreakdown::Overflow;
    if (trace < static_cast<double>(std::numeric_limits<T>::min()) / std::numeric_limits<T>::epsilon())
        return QrBreakdown::Underflow;
    return QrBreakdown::None;
}

/// The first pass's check from the diagonal of A^T A (n values): its trace into *trace and the breakdown, at *column
/// (1-based: the first column where the running trace is no longer finite, 1 for an underflow; 0 when none).
template <typename T>
QrBreakdown check_gram(const T* diagonal, int n, double* trace, int* column) {
    double sum = 0;
    int first = 0;
    for (int j = 0; j < n; ++j) {
        sum += static_cast<double>(diagonal[j]);
        if (!std::isfinite(sum) && first == 0) first = j + 1;
    }
    *trace = sum;
    const QrBreakdown why = gram_breakdown<T>(sum);
    *column = why == QrBreakdown::None ? 0 : why == QrBreakdown::Underflow ? 1 : first;
    return why;
}

/// The rank check on d[j] = |R(j, j)| (j < n): the first column (1-based) below the tolerance, or when none is and
/// the last pass was `unorthogonal`, the column of the least d[j]; 0 when A passes.
template <typename T>
int rank_breakdown(const double* d, int n, bool unorthogonal) {
    double top = 0;
    int least = 0;
    for (int j = 0; j < n; ++j) {
        if (!(d[j] <= top)) top = d[j];
        if (!(d[j] >= d[least])) least = j;
    }
    if (!(top > 0) || !std::isfinite(top)) return 1;
    const double tol = kRankTolerance * std::numeric_limits<T>::epsilon() / 2 * top;
    for (int j = 0; j < n; ++j)
        if (!(d[j] >= tol)) return j + 1;
    return unorthogonal ? least + 1 : 0;
}

/// Sets *info (if 0) and records the breakdown (the first recorded wins, as the first info set does).
inline void report(const CholqrArgs* a, int* info, QrBreakdown why, int column) {
    column += a->first_column;
    if (*info == 0) *info = column;
    a->passes->status->record(why, column);
}

template <typename T>
void copy(int m, int n, const T* src, int lds, T* dst, int ldd) {
    for (int j = 0; j < n; ++j) std::copy(src + at(0, j, lds), src + at(0, j, lds) + m, dst + at(0, j, ldd));
}

/// The self kernels (codelets/qr_cholqr.cpp: Y and C windows of one tile, its buffer listed once) run the ytc and
/// update implementations with that buffer in both places.
inline void ytc_as_self(void* buffers[], void* cl_arg, void (*ytc)(void*[], void*)) {
    void* b[] = {buffers[0], buffers[0], buffers[1]};
    ytc(b, cl_arg);
}
inline void update_as_self(void* buffers[], void* cl_arg, void (*update)(void*[], void*)) {
    const bool unit = static_cast<const CholqrArgs*>(cl_arg)->unit;
    void* b[] = {buffers[0], buffers[1], buffers[0], unit ? buffers[2] : nullptr};
    update(b, cl_arg);
}

// The implementations (buffers as codelets/qr_cholqr.cpp lists them), for T = float and double.
#define STARFACT_CHOLQR_IMPLEMENTATIONS(SUFFIX)                \
    template <typename T>                                      \
    void gram_##SUFFIX(void* buffers[], void* cl_arg);         \
    template <typename T>                                      \
    void solve_gram_##SUFFIX(void* buffers[], void* cl_arg);   \
    template <typename T>                                      \
    void solve_##SUFFIX(void* buffers[], void* cl_arg);        \
    template <typename T>                                      \
    void add_##SUFFIX(void* buffers[], void* cl_arg);          \
    template <typename T>                                      \
    void potrf_##SUFFIX(void* buffers[], void* cl_arg);        \
    template <typename T>                                      \
    void householder_##SUFFIX(void* buffers[], void* cl_arg);  \
    template <typename T>                                      \
    void store_##SUFFIX(void* buffers[], void* cl_arg);        \
    template <typename T>                                      \
    void ytc_##SUFFIX(void* buffers[], void* cl_arg);          \
    template <typename T>                                      \
    void tmul_##SUFFIX(void* buffers[], void* cl_arg);         \
    template <typename T>                                      \
    void update_##SUFFIX(void* buffers[], void* cl_arg);       \
    template <typename T>                                      \
    void ytc_self_##SUFFIX(void* buffers[], void* cl_arg);     \
    template <typename T>                                      \
    void update_self_##SUFFIX(void* buffers[], void* cl_arg);
STARFACT_CHOLQR_IMPLEMENTATIONS(cpu)
#ifdef STARFACT_HAVE_CUDA
STARFACT_CHOLQR_IMPLEMENTATIONS(cuda)
/// The workspace of cholqr_potrf and of the Gram matrices for n x n factors; the scratch of the solves over tiles of
/// `rows` rows (CudaContexts::reserve).
template <typename T>
Workspace cholqr_workspace(cusolverDnHandle_t h, int n);
template <typename T>
Workspace cholqr_scratch(cusolverDnHandle_t h, int rows);
#endif
#undef STARFACT_CHOLQR_IMPLEMENTATIONS

}  // namespace starfact::detail::cholqr
