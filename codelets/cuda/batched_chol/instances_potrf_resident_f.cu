// Instantiates the resident batched potrf (float) variants of the library (resident_dispatch.cuh).
#include "codelets/cuda/batched_chol/resident_dispatch.cuh"

namespace starfact::batched::gpu {

template <>
bool launch_potrf_resident<float>(const Args<float>& a, const ResidentConfig& v) {
    return a.batch == 0 || run_resident_variant<float, kFastMath>(a, v);
}

}  // namespace starfact::batched::gpu
