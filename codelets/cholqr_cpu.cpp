// The Cholesky QR's CPU implementations (codelets/cholqr_impl.hpp; the codelets and their buffers:
// codelets/qr_cholqr.cpp): CBLAS and LAPACKE through kernels/cpu_blas.hpp and kernels/qr/cholqr_cpu.hpp.
#include <algorithm>
#include <complex>
#include <cmath>
#include <type_traits>
#include <vector>

#include "codelets/cholqr_impl.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/qr/cholqr_cpu.hpp"

namespace starfact::detail::cholqr {

template <typename T>
void gram_into(const Tile& X, const Tile& W) {
    const int n = X.cols;
    T* w = ptr<T>(W);
    cpu::syrk(Uplo::Lower, Op::Trans, n, X.rows, T(1), ptr<T>(X), X.ld, T(0), w, W.ld);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) w[at(i, j, W.ld)] = w[at(j, i, W.ld)];
}

/// W := X^T X of X rounded to TF32 (CholqrArgs::low), products summed in float, as the GPU's tensor cores do; false
/// (W untouched) when an entry of X is out of tf32_range.
bool gram_low_into(const Tile& X, const Tile& W) {
    const int m = X.rows, n = X.cols;
    std::vector<float> x(static_cast<size_t>(m) * n), w(static_cast<size_t>(n) * n);
    const double* src = ptr<double>(X);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const double v = src[at(i, j, X.ld)];
            if (!tf32_range(v)) return false;
            x[static_cast<size_t>(at(i, j, m))] = round_tf32(v);
        }
    cpu::syrk(Uplo::Lower, Op::Trans, n, m, 1.0f, x.data(), m, 0.0f, w.data(), n);
    double* dst = ptr<double>(W);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) dst[at(i, j, W.ld)] = w[static_cast<size_t>(i >= j ? at(i, j, n) : at(j, i, n))];
    return true;
}

template <typename T>
void gram_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if constexpr (std::is_same<T, double>::value)
        if (a && a->low && gram_low_into(tile<T>(buffers, a, 0), tile(buffers[1]))) return;
    gram_into<T>(tile<T>(buffers, a, 0), tile(buffers[1]));
}

template <typename T>
void solve_gram_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const Tile V = tile(buffers[0]), X = tile<T>(buffers, a, 1), W = tile(buffers[2]);
    cpu::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, X.rows, X.cols, T(1), ptr<T>(V), V.ld, ptr<T>(X),
              X.ld);
    gram_into<T>(X, W);
}

template <typename T>
void solve_cpu(void* buffers[], void* cl_arg) {
    const Tile V = tile(buffers[0]), X = tile<T>(buffers, static_cast<const CholqrArgs*>(cl_arg), 1);
    cpu::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, X.rows, X.cols, T(1), ptr<T>(V), V.ld, ptr<T>(X),
              X.ld);
}

/// V := the inverse of the triangle of L (lower, `trans`: its transpose, upper) or of U (upper): solves against the
/// identity (backward stable column by column).
template <typename T>
void inverse_cpu(int n, Uplo uplo, Op op, const T* A, int lda, T* V, int ldv) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) V[at(i, j, ldv)] = i == j ? T(1) : T(0);
    cpu::trsm(Side::Left, uplo, op, Diag::NonUnit, n, n, T(1), A, lda, V, ldv);
}

template <typename T>
void add_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const Tile Wp = tile(buffers[0]);
    T* b = ptr<T>(Wp);
    for (int k = 1; k <= a->inputs; ++k) {
        const Tile Wi = tile(buffers[k]);
        const T* w = ptr<T>(Wi);
        for (int j = 0; j < Wp.cols; ++j)
            for (int i = 0; i < Wp.rows; ++i) b[at(i, j, Wp.ld)] += w[at(i, j, Wi.ld)];
    }
}

/// L := lower(G) + s I, then its Cholesky; 0 or the failing column (1-based; a non-finite diagonal fails too).
template <typename T>
int cholesky_cpu(const Tile& G, const Tile& L, double s) {
    const int n = G.cols;
    T* l = ptr<T>(L);
    const T* g = ptr<T>(G);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) l[at(i, j, L.ld)] = i >= j ? g[at(i, j, G.ld)] : T(0);
    for (int j = 0; j < n; ++j) l[at(j, j, L.ld)] += static_cast<T>(s);
    int info = cpu::potrf(n, l, L.ld);
    for (int j = 0; j < (info > 0 ? info - 1 : n); ++j) {
        const T d = l[at(j, j, L.ld)];
        if (!(d > T(0)) || !std::isfinite(d)) return j + 1;
    }
    return info > 0 ? info : 0;
}

/// The power method's estimate of ||G - I||_2 (cholqr_impl.hpp: kPowerIterations), on the host.
template <typename T>
double spectral_distance_cpu(const Tile& G) {
    const int n = G.cols;
    const T* g = ptr<T>(G);
    const std::vector<T> start = power_start<T>(n);
    std::vector<double> x(start.begin(), start.end()), y(x.size());
    double estimate = 0;
    for (int it = 0; it < kPowerIterations; ++it) {
        for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = -x[static_cast<size_t>(i)];
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                y[static_cast<size_t>(i)] += static_cast<double>(g[at(i, j, G.ld)]) * x[static_cast<size_t>(j)];
        double norm = 0;
        for (double v : y) norm += v * v;
        norm = std::sqrt(norm);
        if (!std::isfinite(norm)) return norm;
        const double previous = estimate;
        estimate = norm;
        if (norm == 0) break;
        for (size_t i = 0; i < y.size(); ++i) x[i] = y[i] / norm;
        if (it > 2 && std::abs(estimate - previous) <= kPowerTolerance * estimate) break;
    }
    return estimate;
}

template <typename T>
void potrf_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (a->check && skipped(a)) return;
    const Tile G = tile(buffers[0]), L = tile(buffers[1]), V = tile(buffers[2]);
    int* info = info_of(buffers[3]);
    const int n = G.cols;
    const T* g = ptr<T>(G);
    std::vector<T> diagonal(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) diagonal[static_cast<size_t>(j)] = g[at(j, j, G.ld)];
    double trace = 0, distance = 0;
    int breakdown = 0;
    QrBreakdown why = check_gram<T>(diagonal.data(), n, &trace, &breakdown);
    if (!a->shift) {  // a later pass's Gram matrix: only its factorization is checked
        why = QrBreakdown::None;
        breakdown = 0;
    }
    if (a->check || a->decide) {
        double squares = 0, one_norm = 0;
        for (int j = 0; j < n; ++j) {
            double column = 0;
            for (int i = 0; i < n; ++i) {
                const double d = static_cast<double>(g[at(i, j, G.ld)]) - (i == j ? 1.0 : 0.0);
                squares += d * d;
                column += std::abs(d);
            }
            one_norm = std::max(one_norm, column);  // a NaN makes `squares` NaN
        }
        distance = identity_distance(squares, one_norm);
    }
    const bool low = a->shift && a->low;  // TF32's first pass: kTf32Unit^2 max G(j, j) first (kTf32Unit)
    const double base = low ? low_base_shift(diagonal.data(), n) : base_shift<T>(a->m, n, trace);
    double s = low ? base * kTf32Unit : a->shift ? base : 0;
    int failed = cholesky_cpu<T>(G, L, s);
    if (low && failed > 0 && breakdown == 0) failed = cholesky_cpu<T>(G, L, s = base);
    if (failed > 0 && breakdown == 0) {
        breakdown = failed;
        why = QrBreakdown::RankDeficient;
        if (a->passes && a->passes->low && (a->shift || a->decide)) {  // beyond the TF32 first pass's range: the
            a->passes->low_failed.store(true, std::memory_order_release);  // blocking form starts over in double
            breakdown = 0;
            why = QrBreakdown::None;
        }
    }
    if (a->check && !(distance <= kIdentityDistance)) a->passes->unorthogonal.store(true);
    for (int r = 0; failed > 0 && r < kShiftRetries; ++r) failed = cholesky_cpu<T>(G, L, s = next_shift(s, base));
    if (failed > 0) {
        T* l = ptr<T>(L);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) l[at(i, j, L.ld)] = i == j ? T(1) : T(0);
    }
    inverse_cpu(n, Uplo::Lower, Op::Trans, ptr<T>(L), L.ld, ptr<T>(V), V.ld);
    if (breakdown > 0) report(a, info, why, breakdown);
    if (a->decide && breakdown == 0 &&
        (distance <= kSkipDistance || (std::isfinite(distance) && spectral_distance_cpu<T>(G) <= kSkipDistance)))
        a->passes->count.store(2, std::memory_order_release);
}

template <typename T>
void householder_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const bool two = two_passes(a);
    const Tile A0 = tile<T>(buffers, a, 0), L1 = tile(buffers[1]), L2 = tile(buffers[2]),
               L3 = tile(buffers[two ? 2 : 3]),  // the last pass's factor
               Tt = tile<T>(buffers, a, 4), V = tile(buffers[5]), RY = tile(buffers[6]), X = tile(buffers[7]);
    const int n = A0.cols;
    // The rank check on R's diagonal, |L1(j, j) L2(j, j) L3(j, j)|.
    std::vector<double> d(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j)
        d[static_cast<size_t>(j)] = std::abs(static_cast<double>(ptr<T>(L1)[at(j, j, L1.ld)]) *
                                             static_cast<double>(ptr<T>(L2)[at(j, j, L2.ld)]) *
                                             (two ? 1.0 : static_cast<double>(ptr<T>(L3)[at(j, j, L3.ld)])));
    if (const int column = rank_breakdown<T>(d.data(), n, a->passes->unorthogonal.load()))
        report(a, info_of(buffers[8]), QrBreakdown::RankDeficient, column);
    T* ry = ptr<T>(RY);
    T* x = ptr<T>(X);
    T* s = x + at(0, n, X.ld);
    T* v = ptr<T>(V);
    T* t = ptr<T>(Tt);
    // The orthogonal factor's top block, and its modified LU.
    copy(n, n, ptr<T>(A0), A0.ld, ry, RY.ld);
    cpu::trsm(Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, ry, RY.ld);
    cpu::modified_lu(n, ry, RY.ld, s);
    // R = S (L1 L2 L3)^T: X := L1 L2 L3 (lower), then RY's upper triangle := S X^T.
    copy(n, n, ptr<T>(L1), L1.ld, x, X.ld);
    cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L2), L2.ld, x, X.ld);
    if (!two) cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, x, X.ld);
    // V := M^-1 = (U L3^T)^-1 = L3^-T U^-1 and T := -(U S) Y1^-T, both upper (zeros below).
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) t[at(i, j, Tt.ld)] = i <= j ? ry[at(i, j, RY.ld)] * s[j] : T(0);
    inverse_cpu(n, Uplo::Upper, Op::NoTrans, ry, RY.ld, v, V.ld);
    cpu::trsm(Side::Left, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, v, V.ld);
    cpu::trsm(Side::Right, Uplo::Lower, Op::Trans, Diag::Unit, n, n, T(-1), ry, RY.ld, t, Tt.ld);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) ry[at(i, j, RY.ld)] = s[i] * x[at(j, i, X.ld)];
    count_passes(a, two);
}

template <typename T>
void store_cpu(void* buffers[], void* cl_arg) {
    const Tile RY = tile(buffers[0]), A0 = tile<T>(buffers, static_cast<const CholqrArgs*>(cl_arg), 1);
    copy(RY.rows, RY.cols, ptr<T>(RY), RY.ld, ptr<T>(A0), A0.ld);
}

template <typename T>
void ytc_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Y = tile<T>(buffers, a, 0), C = tile<T>(buffers, a, 1), W = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;  // rows of Y1 handled by trmm
    const T* y = ptr<T>(Y);
    const T* c = ptr<T>(C);
    T* w = ptr<T>(W);
    if (!a->right) {  // W (n x C.cols) := Y^H C
        const int cols = C.cols;
        T beta = T(0);
        if (a->unit) {
            copy(n, cols, c, C.ld, w, W.ld);
            cpu::trmm(Side::Left, Uplo::Lower, Op::ConjTrans, Diag::Unit, n, cols, T(1), y, Y.ld, w, W.ld);
            beta = T(1);
        }
        if (r > k)
            cpu::gemm(Op::ConjTrans, Op::NoTrans, n, cols, r - k, T(1), y + k, Y.ld, c + k, C.ld, beta, w, W.ld);
        else if (beta == T(0))
            for (int j = 0; j < cols; ++j) std::fill(w + at(0, j, W.ld), w + at(0, j, W.ld) + n, T(0));
    } else {  // W (C.rows x n) := C Y
        const int rows = C.rows;
        T beta = T(0);
        if (a->unit) {
            copy(rows, n, c, C.ld, w, W.ld);
            cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::Unit, rows, n, T(1), y, Y.ld, w, W.ld);
            beta = T(1);
        }
        if (r > k)
            cpu::gemm(Op::NoTrans, Op::NoTrans, rows, n, r - k, T(1), c + at(0, k, C.ld), C.ld, y + k, Y.ld, beta, w,
                      W.ld);
        else if (beta == T(0))
            for (int j = 0; j < n; ++j) std::fill(w + at(0, j, W.ld), w + at(0, j, W.ld) + rows, T(0));
    }
}

template <typename T>
void tmul_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Tt = tile<T>(buffers, a, 0), W = tile(buffers[1]);
    cpu::trmm(a->right ? Side::Right : Side::Left, Uplo::Upper, a->trans ? Op::ConjTrans : Op::NoTrans, Diag::NonUnit,
              W.rows, W.cols, T(1), ptr<T>(Tt), Tt.ld, ptr<T>(W), W.ld);
}

template <typename T>
void update_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Y = tile<T>(buffers, a, 0), W = tile(buffers[1]), C = tile<T>(buffers, a, 2);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;
    const T* y = ptr<T>(Y);
    const T* w = ptr<T>(W);
    T* c = ptr<T>(C);
    if (!a->right) {  // C (r x cols) -= Y W
        const int cols = C.cols;
        if (a->unit) {
            T* z = qr_cpu_work<T>(static_cast<size_t>(n) * cols);
            copy(n, cols, w, W.ld, z, n);
            cpu::trmm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, n, cols, T(1), y, Y.ld, z, n);
            for (int j = 0; j < cols; ++j)
                for (int i = 0; i < n; ++i) c[at(i, j, C.ld)] -= z[at(i, j, n)];
        }
        if (r > k) cpu::gemm(Op::NoTrans, Op::NoTrans, r - k, cols, n, T(-1), y + k, Y.ld, w, W.ld, T(1), c + k, C.ld);
    } else {  // C (rows x r) -= W Y^H
        const int rows = C.rows;
        if (a->unit) {
            T* z = qr_cpu_work<T>(static_cast<size_t>(rows) * n);
            copy(rows, n, w, W.ld, z, rows);
            cpu::trmm(Side::Right, Uplo::Lower, Op::ConjTrans, Diag::Unit, rows, n, T(1), y, Y.ld, z, rows);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < rows; ++i) c[at(i, j, C.ld)] -= z[at(i, j, rows)];
        }
        if (r > k)
            cpu::gemm(Op::NoTrans, Op::ConjTrans, rows, r - k, n, T(-1), w, W.ld, y + k, Y.ld, T(1), c + at(0, k, C.ld),
                      C.ld);
    }
}

// The self kernels (cholqr_impl.hpp).
template <typename T>
void ytc_self_cpu(void* buffers[], void* cl_arg) {
    ytc_as_self(buffers, cl_arg, ytc_cpu<T>);
}
template <typename T>
void update_self_cpu(void* buffers[], void* cl_arg) {
    update_as_self(buffers, cl_arg, update_cpu<T>);
}

#define STARFACT_CHOLQR_CPU(T)                             \
    template void gram_cpu<T>(void*[], void*);             \
    template void solve_gram_cpu<T>(void*[], void*);       \
    template void solve_cpu<T>(void*[], void*);            \
    template void add_cpu<T>(void*[], void*);              \
    template void potrf_cpu<T>(void*[], void*);            \
    template void householder_cpu<T>(void*[], void*);      \
    template void store_cpu<T>(void*[], void*);            \
    template void ytc_cpu<T>(void*[], void*);              \
    template void tmul_cpu<T>(void*[], void*);             \
    template void update_cpu<T>(void*[], void*);           \
    template void ytc_self_cpu<T>(void*[], void*);         \
    template void update_self_cpu<T>(void*[], void*);
STARFACT_CHOLQR_CPU(float)
STARFACT_CHOLQR_CPU(double)
#undef STARFACT_CHOLQR_CPU
// The products that apply a block reflector (the panel tree's updates) serve complex tiles too.
#define STARFACT_CHOLQR_APPLY_CPU(T)          \
    template void add_cpu<T>(void*[], void*);  \
    template void ytc_cpu<T>(void*[], void*);  \
    template void tmul_cpu<T>(void*[], void*); \
    template void update_cpu<T>(void*[], void*);
STARFACT_CHOLQR_APPLY_CPU(std::complex<float>)
STARFACT_CHOLQR_APPLY_CPU(std::complex<double>)
#undef STARFACT_CHOLQR_APPLY_CPU

}  // namespace starfact::detail::cholqr
