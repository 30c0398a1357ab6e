// The recursive Cholesky's configuration by precision and arithmetic: the best of `bench_rpotrf --sweep` and of its
// profiles on one GPU (H100/H200, orders 4096 .. 32768; docs/potf2.md, "Recursive Cholesky", has the numbers and
// says how to regenerate them). The configuration does not change with the order, so that the workspace a runtime
// reserves for one order covers every smaller one.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <type_traits>

#include "kernels/rpotrf/rpotrf.hpp"

namespace starfact::detail::gpu {

/// The measured configuration (compute: as RpotrfConfig::compute; ignored for double).
///  - float and double arithmetic: 1024-column leaves (the fused potf2's blocked form; 256 and 512 leaves were
///    within 2%), panel solves recursing into gemms down to cuBLAS trsm on 256 columns (the inverted-leaf form was
///    no faster there and is not backward stable), the updates one cuBLAS syrk per level (it runs at the GEMM
///    rate: recursing into gemms lost 10-20%).
///  - tensor-core arithmetic (float storage): 1024-column leaves, panel solves by the inverted leaves (products in
///    the tensor-core arithmetic: 15-30% faster than cuBLAS's float trsm at the leaves), updates recursing into
///    tensor-core gemms down to 1024 (cuBLAS's float syrk does not use the tensor cores: 2.4x slower).
template <typename T>
RpotrfConfig rpotrf_default_config(int n, int compute = 0) {
    (void)n;
    RpotrfConfig c;
    c.compute = std::is_same<T, float>::value ? compute : 0;
    c.leaf_kind = rpotrf_fused_leaf_available() ? RpotrfLeaf::Fused : RpotrfLeaf::Cusolver;
    c.leaf = 1024;
    c.trsm_base = 256;
    c.trsm_inverse = c.compute != 0;
    c.syrk_base = c.compute != 0 ? 1024 : 1 << 30;
    return c;
}

}  // namespace starfact::detail::gpu
#endif
