// The single-block leaves (potf2_leaf.cuh) and the panel trsm they need in the blocked form
// (potf2_trsm.cuh), launched inside the library's forms (kernels/potf2/potf2_forms.cuh): the leaf policy
// of the tuning tool and potf2_tile_variant (variants.hpp).
#include <atomic>
#include <string>

#include "kernels/potf2/potf2_forms.cuh"
#include "starfact/error.hpp"
#include "tools/tune/potf2/potf2_leaf.cuh"
#include "tools/tune/potf2/potf2_trsm.cuh"
#include "tools/tune/potf2/variants.hpp"

namespace starfact::detail::gpu {
namespace {

using potf2_impl::check_launch;
using potf2_impl::LeafParams;
using potf2_impl::opt_in_smem;
using potf2_impl::PanelParams;

constexpr int kLeafWorkers = 256;  // + 1 warp for the diagonal blocks

constexpr int kTrsmRows = 32, kTrsmIb = 16, kTrsmThreads = 256;

template <typename T>
size_t trsm_smem(int b) {
    return (static_cast<size_t>(b) * b + static_cast<size_t>(kTrsmRows) * b + b) * sizeof(T);
}

template <typename T>
void launch_trsm(const PanelParams<T>& p, cudaStream_t stream) {
    auto kernel = potf2_impl::potf2_trsm_kernel<T, kPotf2LeafMax, kTrsmRows, kTrsmIb, kTrsmThreads>;
    const size_t smem = trsm_smem<T>(p.b);
    if (smem > 48 * 1024) {
        static std::atomic<uint64_t> opted_in{0};
        opt_in_smem(kernel, trsm_smem<T>(kPotf2LeafMax), opted_in);
    }
    kernel<<<(p.m + kTrsmRows - 1) / kTrsmRows, kTrsmThreads, smem, stream>>>(p);
    check_launch("trsm kernel launch");
}

template <typename T, int IB, bool LOOPED, bool RL>
void launch_leaf_variant(const LeafParams<T>& p, cudaStream_t stream) {
    auto kernel = RL ? potf2_impl::potf2_leaf_rl_kernel<T, kPotf2LeafMax, IB, kLeafWorkers, LOOPED>
                     : potf2_impl::potf2_leaf_kernel<T, kPotf2LeafMax, IB, kLeafWorkers, LOOPED>;
    const size_t smem = static_cast<size_t>(p.n) * p.n * sizeof(T);
    if (smem > 48 * 1024) {
        static std::atomic<uint64_t> opted_in{0};
        opt_in_smem(kernel, static_cast<size_t>(kPotf2LeafMax) * kPotf2LeafMax * sizeof(T), opted_in);
    }
    kernel<<<1, 32 + kLeafWorkers, smem, stream>>>(p);
    check_launch("leaf kernel launch");
}

template <typename T, int IB, bool RL>
void launch_leaf_rl(const Potf2Config& c, const LeafParams<T>& p, cudaStream_t stream) {
    c.looped ? launch_leaf_variant<T, IB, true, RL>(p, stream) : launch_leaf_variant<T, IB, false, RL>(p, stream);
}

bool supported_ib(int ib) {
    for (int v : kPotf2Ibs)
        if (v == ib) return true;
    return false;
}

/// The tool's leaf policy of potf2_run (potf2_forms.cuh): the left-/right-looking single-block leaves (they
/// do not wait on the previous kernel: `dependent` is ignored) and our trsm below them in the blocked form.
struct VariantLeaf {
    static void check(const Potf2Config& config, const char* fn) {
        require(supported_ib(config.ib), fn, "config.ib", "must be 8 or 16 (got " + std::to_string(config.ib) + ")");
        require(!config.rdiag, fn, "config.rdiag", "must be false here: rdiag configurations are the library's");
    }
    template <typename T>
    static void launch(const Potf2Config& c, const LeafParams<T>& p, cudaStream_t stream, bool) {
        if (c.ib == 8)
            c.right_looking ? launch_leaf_rl<T, 8, true>(c, p, stream) : launch_leaf_rl<T, 8, false>(c, p, stream);
        else
            c.right_looking ? launch_leaf_rl<T, 16, true>(c, p, stream) : launch_leaf_rl<T, 16, false>(c, p, stream);
    }
    template <typename T>
    static void solve_panel(const PanelParams<T>& p, cudaStream_t stream) {
        launch_trsm<T>(p, stream);
    }
};

}  // namespace

template <typename T>
void potf2_tile_variant(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
                        int* info, int64_t offset, void* workspace, size_t workspace_bytes, const Potf2Aux* aux) {
    potf2_impl::potf2_run<T, VariantLeaf>(config, cublas, stream, n, A, ld, info, offset, workspace,
                                           workspace_bytes, aux);
}

template void potf2_tile_variant<float>(const Potf2Config&, cublasHandle_t, cudaStream_t, int, float*, int, int*,
                                        int64_t, void*, size_t, const Potf2Aux*);
template void potf2_tile_variant<double>(const Potf2Config&, cublasHandle_t, cudaStream_t, int, double*, int, int*,
                                         int64_t, void*, size_t, const Potf2Aux*);

}  // namespace starfact::detail::gpu
