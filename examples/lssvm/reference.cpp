// The LS-SVM solved on the host with LAPACKE (full H, dposv) and CBLAS: the reference the tests compare with.
#include <cblas.h>
#include <lapacke.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "lssvm.hpp"

namespace lssvm {
namespace {

/// K(i, j) = k(a_i, b_j) for column-major feature arrays (leading dimensions na, nb).
std::vector<double> kernel_matrix(const Dataset& a, const Dataset& b, KernelType type, double gamma) {
    std::vector<double> K(static_cast<size_t>(a.n * b.n));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, static_cast<int>(a.n), static_cast<int>(b.n),
                static_cast<int>(a.d), 1.0, a.X.data(), static_cast<int>(a.n), b.X.data(), static_cast<int>(b.n), 0.0,
                K.data(), static_cast<int>(a.n));
    if (type == KernelType::Linear) return K;
    auto norms = [](const Dataset& s) {
        std::vector<double> v(static_cast<size_t>(s.n), 0.0);
        for (int64_t j = 0; j < s.d; ++j)
            for (int64_t i = 0; i < s.n; ++i) v[i] += s.X[i + j * s.n] * s.X[i + j * s.n];
        return v;
    };
    const std::vector<double> na = norms(a), nb = norms(b);
    for (int64_t j = 0; j < b.n; ++j)
        for (int64_t i = 0; i < a.n; ++i) {
            const double d2 = na[i] + nb[j] - 2 * K[i + j * a.n];
            K[i + j * a.n] = std::exp(-gamma * (d2 > 0 ? d2 : 0));
        }
    return K;
}

}  // namespace

Result reference_lapacke(const Dataset& train, const Dataset& test, const Hyper& h) {
    const int64_t n = train.n, m = train.classes(), nt = test.n;
    const double gamma = effective_gamma(h, train);
    const std::vector<double> K = kernel_matrix(train, train, h.kernel, gamma);  // also the training predictions'
    std::vector<double> H = K;
    for (int64_t i = 0; i < n; ++i) H[i + i * n] += 1.0 / h.C;
    std::vector<double> sol(static_cast<size_t>(n * (m + 1)), -1.0);
    for (int64_t i = 0; i < n; ++i) {
        sol[i] = 1.0;
        sol[i + (1 + train.y[i]) * n] = 1.0;
    }
    Result res;
    res.info = LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), static_cast<int>(m + 1), H.data(),
                             static_cast<int>(n), sol.data(), static_cast<int>(n));
    if (res.info != 0) return res;
    const double s_eta = std::accumulate(sol.begin(), sol.begin() + n, 0.0);
    res.bias.resize(static_cast<size_t>(m));
    res.alpha.resize(static_cast<size_t>(n * m));
    for (int64_t c = 0; c < m; ++c) {
        const double* nu = sol.data() + (c + 1) * n;
        res.bias[c] = std::accumulate(nu, nu + n, 0.0) / s_eta;
        for (int64_t i = 0; i < n; ++i) res.alpha[i + c * n] = nu[i] - res.bias[c] * sol[i];
    }
    auto predict = [&](const std::vector<double>& K, int64_t rows) {
        std::vector<int> pred(static_cast<size_t>(rows));
        for (int64_t t = 0; t < rows; ++t) {
            double best = -1e300;
            for (int64_t c = 0; c < m; ++c) {
                double f = res.bias[c];
                for (int64_t i = 0; i < n; ++i) f += K[t + i * rows] * res.alpha[i + c * n];
                if (f > best) best = f, pred[t] = static_cast<int>(c);
            }
        }
        return pred;
    };
    res.train_pred = predict(K, n);
    res.train_accuracy = accuracy(res.train_pred, train.y);
    if (nt > 0) {
        res.test_pred = predict(kernel_matrix(test, train, h.kernel, gamma), nt);
        res.test_accuracy = accuracy(res.test_pred, test.y);
    }
    res.solution = std::move(sol);
    return res;
}

}  // namespace lssvm
