// Internal: the operand descriptors of the BLAS wrappers (kernels/cpu_blas.hpp, kernels/cuda_blas.hpp),
// which the codelets' arguments carry.
#pragma once

namespace starfact::detail {

enum class Side { Left, Right };
enum class Uplo { Lower, Upper };
/// ConjTrans is the conjugate transpose A^H; on real types it is the transpose.
enum class Op { NoTrans, Trans, ConjTrans };
enum class Diag { NonUnit, Unit };

/// The transpose of a T operand that the BLAS calls "conjugate": ConjTrans for complex T, Trans for real T.
template <bool IsComplex>
constexpr Op adjoint_op() {
    return IsComplex ? Op::ConjTrans : Op::Trans;
}

}  // namespace starfact::detail
