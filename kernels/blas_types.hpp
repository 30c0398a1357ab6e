// Internal: the operand descriptors of the BLAS wrappers (kernels/cpu_blas.hpp, kernels/cuda_blas.hpp),
// which the codelets' arguments carry.
#pragma once

namespace starfact::detail {

enum class Side { Left, Right };
enum class Uplo { Lower, Upper };
enum class Op { NoTrans, Trans };
enum class Diag { NonUnit, Unit };

}  // namespace starfact::detail
