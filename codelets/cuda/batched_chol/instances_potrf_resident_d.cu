// Instantiates the resident batched potrf (double) variants of the library (resident_dispatch.cuh).
#include "codelets/cuda/batched_chol/resident_dispatch.cuh"

namespace starfact::batched::gpu {

template <>
bool launch_potrf_resident<double>(const Args<double>& a, const ResidentConfig& v) {
    return a.batch == 0 || run_resident_variant<double, kFastMath>(a, v);
}

}  // namespace starfact::batched::gpu
