// Internal: the host kernel of the Cholesky QR's small steps (codelets/qr_cholqr.cpp) that BLAS and LAPACK lack: the
// modified LU without pivoting of Ballard, Demmel, Grigori, Jacquelin, Knight, Nguyen
// ("Reconstructing Householder vectors from tall-skinny QR", J. Parallel Distrib. Comput. 85, 2015).
#pragma once
#include "kernels/cpu_blas.hpp"

namespace starfact::detail::cpu {

/// The modified LU of the n x n matrix A in place (Ballard et al. 2015, "Modified-LU"): at step k the sign
/// s(k) = -sign(A(k, k)) of the current diagonal entry (sign(0) = 1) is taken and A(k, k) -= s(k), so that the
/// pivot has magnitude at least 1 when A has orthonormal columns' top block; then the column is scaled and the
/// trailing matrix updated, without pivoting. On return: U on and above the diagonal, the unit lower L below it,
/// A - diag(s) = L U.
template <typename T>
void modified_lu(int n, T* A, int lda, T* s) {
    for (int k = 0; k < n; ++k) {
        T& d = A[k + static_cast<long>(k) * lda];
        s[k] = d >= T(0) ? T(-1) : T(1);
        d -= s[k];
        const T inv = T(1) / d;
        for (int i = k + 1; i < n; ++i) A[i + static_cast<long>(k) * lda] *= inv;
        if (k + 1 < n)
            ger(n - k - 1, n - k - 1, T(-1), A + k + 1 + static_cast<long>(k) * lda, 1,
                A + k + static_cast<long>(k + 1) * lda, lda, A + k + 1 + static_cast<long>(k + 1) * lda, lda);
    }
}

}  // namespace starfact::detail::cpu
