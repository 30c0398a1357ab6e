// Accuracy checks and reproducible random matrices (host memory).
#include "starfact/check.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <limits>
#include <thread>
#include <vector>

#include "algorithms/blas_threads.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/random_entry.hpp"
#include "kernels/scalar.hpp"

namespace starfact {
namespace {

using detail::AllBlasThreads;

/// Runs body(j0, j1) over column ranges on all hardware threads.
template <typename F>
void parallel_columns(int64_t n, F body) {
    const int64_t nthreads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n / 64 + 1));
    if (nthreads == 1) return body(0, n);
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < nthreads; ++t)
        pool.emplace_back([=] { body(n * t / nthreads, n * (t + 1) / nthreads); });
    for (auto& th : pool) th.join();
}

/// 1-norm of a symmetric matrix given by its lower triangle.
template <typename T>
double sym_norm1(int64_t n, const T* A, int64_t lda) {
    std::vector<double> col(n, 0.0);
    for (int64_t j = 0; j < n; ++j) {
        col[j] += std::abs(static_cast<double>(A[j + j * lda]));
        for (int64_t i = j + 1; i < n; ++i) {
            const double v = std::abs(static_cast<double>(A[i + j * lda]));
            col[j] += v;  // (i, j)
            col[i] += v;  // its mirror (j, i) in column i
        }
    }
    double norm = 0.0;
    for (double c : col) norm = std::isnan(c) || std::isnan(norm) ? NAN : std::max(norm, c);
    return norm;
}

/// |x| in double: the modulus of a complex x.
template <typename T>
double magnitude(const T& x) {
    if constexpr (detail::is_complex_v<T>)
        return std::abs(std::complex<double>(x.real(), x.imag()));
    else
        return std::abs(static_cast<double>(x));
}

template <typename T>
double ge_norm1(int64_t m, int64_t n, const T* A, int64_t lda) {
    double norm = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        double c = 0.0;
        for (int64_t i = 0; i < m; ++i) c += magnitude(A[i + j * lda]);
        norm = std::isnan(c) || std::isnan(norm) ? NAN : std::max(norm, c);
    }
    return norm;
}

/// A column-major rows x cols array as BLAS takes it, with a 32-bit int leading dimension: the array itself when
/// its leading dimension fits, else a compact copy (never a leading dimension cut to 32 bits).
template <typename T>
class BlasArray {
public:
    BlasArray(int64_t rows, int64_t cols, const T* A, int64_t ld) : data_(A), ld_(ld) {
        if (ld <= INT32_MAX) return;
        copy_.resize(static_cast<size_t>(rows) * static_cast<size_t>(cols));
        for (int64_t j = 0; j < cols; ++j) std::copy(A + j * ld, A + j * ld + rows, copy_.begin() + j * rows);
        data_ = copy_.data();
        ld_ = std::max<int64_t>(1, rows);
    }
    const T* data() const { return data_; }
    int64_t ld() const { return ld_; }

private:
    std::vector<T> copy_;
    const T* data_;
    int64_t ld_;
};

// The checks' products, through the scalar layer (kernels/cpu_blas.hpp); orders fit CBLAS's int.
template <typename T>
inline void syrk(int64_t n, T alpha, const T* A, int64_t lda, T beta, T* C, int64_t ldc) {
    detail::cpu::syrk(detail::Uplo::Lower, detail::Op::NoTrans, int(n), int(n), alpha, A, int(lda), beta, C, int(ldc));
}
template <typename T>
inline void symm(int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
                 int64_t ldc) {
    detail::cpu::symm(detail::Side::Left, detail::Uplo::Lower, int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C,
                      int(ldc));
}
template <typename T>
inline void trmm_lower_unit(int64_t n, const T* L, int64_t ldl, T* B, int64_t ldb) {
    detail::cpu::trmm(detail::Side::Left, detail::Uplo::Lower, detail::Op::NoTrans, detail::Diag::Unit, int(n), int(n),
                      T(1), L, int(ldl), B, int(ldb));
}
template <typename T>
inline void gemm(int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta,
                 T* C, int64_t ldc) {
    detail::cpu::gemm(detail::Op::NoTrans, detail::Op::NoTrans, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb),
                      beta, C, int(ldc));
}

double ratio(double num, double den) {
    if (std::isnan(num) || std::isnan(den)) return NAN;
    if (den == 0.0) return num == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    return num / den;
}

/// ||B - A X||_1 / (||A||_1 ||X||_1 n eps) of a solve: R = B, then subtract(R) makes it B - A X with
/// multithreaded BLAS; norm_a() gives ||A||_1 (symmetric or general storage).
template <typename T, typename NormA, typename Subtract>
double backward_error(int64_t n, int64_t nrhs, const T* X, int64_t ldx, const T* B, int64_t ldb, NormA norm_a,
                      Subtract subtract) {
    if (n == 0 || nrhs == 0) return 0.0;
    std::vector<T> R(static_cast<size_t>(n) * nrhs);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) R[i + j * n] = B[i + j * ldb];
    {
        AllBlasThreads threads(n);
        subtract(R.data());
    }
    const double eps = std::numeric_limits<T>::epsilon();
    return ratio(ge_norm1(n, nrhs, R.data(), n), norm_a() * ge_norm1(n, nrhs, X, ldx) * static_cast<double>(n) * eps);
}

}  // namespace

template <typename T>
double potrf_residual(int64_t n, const T* A, int64_t lda, const T* L, int64_t ldl) {
    if (n == 0) return 0.0;
    std::vector<T> W(static_cast<size_t>(n) * n), Lc(static_cast<size_t>(n) * n, T(0));
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = j; i < n; ++i) {
                W[i + j * n] = A[i + j * lda];
                Lc[i + j * n] = L[i + j * ldl];
            }
    });
    {
        AllBlasThreads threads(n);
        syrk(n, T(-1), Lc.data(), n, T(1), W.data(), n);  // W = A - L L^T (lower)
    }
    const double eps = std::numeric_limits<T>::epsilon();
    return ratio(sym_norm1(n, W.data(), n), sym_norm1(n, A, lda) * static_cast<double>(n) * eps);
}

template <typename T>
double solve_residual(int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                      int64_t ldb) {
    return backward_error<T>(n, nrhs, X, ldx, B, ldb, [&] { return sym_norm1(n, A, lda); }, [&](T* R) {
        const BlasArray<T> a(n, n, A, lda), x(n, nrhs, X, ldx);
        symm(n, nrhs, T(-1), a.data(), a.ld(), x.data(), x.ld(), T(1), R, n);  // R = B - A X
    });
}

/// The n x n Hermitian matrix whose lower triangle is A's, in full (compact): the strictly upper part the conjugates
/// of the lower one, the diagonal real (its imaginary parts taken as zero, as LAPACK's Hermitian routines take them).
template <typename T>
std::vector<T> hermitian_full(int64_t n, const T* A, int64_t lda) {
    std::vector<T> F(static_cast<size_t>(n) * n);
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < n; ++i)
                F[i + j * n] = i > j   ? A[i + j * lda]
                               : i < j ? detail::conj_of(A[j + i * lda])
                                       : T(detail::real_of(A[j + j * lda]));
    });
    return F;
}

/// potri_residual of complex Hermitian A and X (lower triangles): both in full, R = A X - I by one gemm.
template <typename T>
double hermitian_inverse_residual(int64_t n, const T* A, int64_t lda, const T* Ainv, int64_t ldi) {
    const std::vector<T> Af = hermitian_full(n, A, lda), X = hermitian_full(n, Ainv, ldi);
    std::vector<T> R(static_cast<size_t>(n) * n, T(0));
    for (int64_t j = 0; j < n; ++j) R[j + j * n] = T(1);
    {
        AllBlasThreads threads(n);
        gemm(n, n, n, T(1), Af.data(), n, X.data(), n, T(-1), R.data(), n);  // R = A X - I
    }
    const double eps = detail::epsilon<T>();
    return ratio(ge_norm1(n, n, R.data(), n),
                 ge_norm1(n, n, Af.data(), n) * ge_norm1(n, n, X.data(), n) * static_cast<double>(n) * eps);
}

template <typename T>
double potri_residual(int64_t n, const T* A, int64_t lda, const T* Ainv, int64_t ldi) {
    if (n == 0) return 0.0;
    if constexpr (detail::is_complex_v<T>) {
        return hermitian_inverse_residual(n, A, lda, Ainv, ldi);
    } else {
        std::vector<T> X(static_cast<size_t>(n) * n), R(static_cast<size_t>(n) * n, T(0));
        parallel_columns(n, [&](int64_t j0, int64_t j1) {
            for (int64_t j = j0; j < j1; ++j) {
                R[j + j * n] = T(1);
                for (int64_t i = 0; i < n; ++i) X[i + j * n] = i >= j ? Ainv[i + j * ldi] : Ainv[j + i * ldi];
            }
        });
        {
            AllBlasThreads threads(n);
            const BlasArray<T> a(n, n, A, lda);
            symm(n, n, T(1), a.data(), a.ld(), X.data(), n, T(-1), R.data(), n);  // R = A X - I
        }
        const double eps = std::numeric_limits<T>::epsilon();
        return ratio(ge_norm1(n, n, R.data(), n),
                     sym_norm1(n, A, lda) * sym_norm1(n, Ainv, ldi) * static_cast<double>(n) * eps);
    }
}

template <typename T>
double getrf_residual(int64_t n, const T* A, int64_t lda, const T* LU, int64_t ldlu, const int64_t* ipiv) {
    if (n == 0) return 0.0;
    std::vector<T> W(static_cast<size_t>(n) * n, T(0)), PA(static_cast<size_t>(n) * n);
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j) {
            for (int64_t i = 0; i <= j; ++i) W[i + j * n] = LU[i + j * ldlu];  // U
            for (int64_t i = 0; i < n; ++i) PA[i + j * n] = A[i + j * lda];
            for (int64_t i = 0; i < n; ++i) std::swap(PA[i + j * n], PA[ipiv[i] - 1 + j * n]);  // in order
        }
    });
    {
        AllBlasThreads threads(n);
        const BlasArray<T> lu(n, n, LU, ldlu);
        trmm_lower_unit(n, lu.data(), lu.ld(), W.data(), n);  // W = L U
    }
    parallel_columns(n, [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < n; ++i) W[i + j * n] = PA[i + j * n] - W[i + j * n];
    });
    const double eps = std::numeric_limits<T>::epsilon();
    return ratio(ge_norm1(n, n, W.data(), n), ge_norm1(n, n, A, lda) * static_cast<double>(n) * eps);
}

template <typename T>
double gesv_residual(int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx, const T* B,
                     int64_t ldb) {
    return backward_error<T>(n, nrhs, X, ldx, B, ldb, [&] { return ge_norm1(n, n, A, lda); }, [&](T* R) {
        const BlasArray<T> a(n, n, A, lda), x(n, nrhs, X, ldx);
        gemm(n, nrhs, n, T(-1), a.data(), a.ld(), x.data(), x.ld(), T(1), R, n);  // R = B - A X
    });
}

template <typename T>
void random_symmetric(int64_t n, T* A, int64_t lda, uint64_t seed, double shift) {
    parallel_columns(n, [=](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < n; ++i)
                A[i + j * lda] = static_cast<T>(detail::symmetric_entry(seed, i, j, shift));
    });
}

template <typename T>
void random_matrix(int64_t m, int64_t n, T* A, int64_t lda, uint64_t seed) {
    parallel_columns(n, [=](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = 0; i < m; ++i) A[i + j * lda] = static_cast<T>(detail::uniform_entry(seed, i, j));
    });
}

template double potrf_residual<float>(int64_t, const float*, int64_t, const float*, int64_t);
template double potrf_residual<double>(int64_t, const double*, int64_t, const double*, int64_t);
template double solve_residual<float>(int64_t, int64_t, const float*, int64_t, const float*, int64_t, const float*,
                                      int64_t);
template double solve_residual<double>(int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                       const double*, int64_t);
template double potri_residual<float>(int64_t, const float*, int64_t, const float*, int64_t);
template double potri_residual<double>(int64_t, const double*, int64_t, const double*, int64_t);
template double potri_residual<std::complex<float>>(int64_t, const std::complex<float>*, int64_t,
                                                    const std::complex<float>*, int64_t);
template double potri_residual<std::complex<double>>(int64_t, const std::complex<double>*, int64_t,
                                                     const std::complex<double>*, int64_t);
template double getrf_residual<float>(int64_t, const float*, int64_t, const float*, int64_t, const int64_t*);
template double getrf_residual<double>(int64_t, const double*, int64_t, const double*, int64_t, const int64_t*);
template double gesv_residual<float>(int64_t, int64_t, const float*, int64_t, const float*, int64_t, const float*,
                                     int64_t);
template double gesv_residual<double>(int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                      const double*, int64_t);
template void random_symmetric<float>(int64_t, float*, int64_t, uint64_t, double);
template void random_symmetric<double>(int64_t, double*, int64_t, uint64_t, double);
template void random_matrix<float>(int64_t, int64_t, float*, int64_t, uint64_t);
template void random_matrix<double>(int64_t, int64_t, double*, int64_t, uint64_t);

}  // namespace starfact
