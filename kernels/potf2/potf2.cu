// The library's fused potf2: the replicated-diagonal kernel (potf2_rdiag.cuh) as the leaf of every form
// (potf2_forms.cuh: one launch, blocked, recursive, two-stream), its launchers, the entry points and their
// explicit instantiations. The single-block leaves the tuning sweep also times are not compiled here: they
// live with the tuning tool (tools/tune/potf2/, docs/potf2.md).
#include <atomic>
#include <string>

#include "kernels/potf2/pdl.cuh"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_forms.cuh"
#include "kernels/potf2/potf2_rdiag.cuh"
#include "kernels/potf2/potf2_tuning.hpp"
#include "starfact/error.hpp"

namespace starfact::detail::gpu {
namespace {

using potf2_impl::check_launch;
using potf2_impl::LeafParams;
using potf2_impl::opt_in_smem;
using potf2_impl::PanelParams;

/// Rows below the diagonal block solved by one thread block of the fused rdiag kernel.
constexpr int kRdiagRows = 32;

template <typename T, int WMAX, int RMAX>
void launch_rdiag_shape(const LeafParams<T>& p, cudaStream_t stream, bool dependent) {
    using Shape = potf2_impl::RdiagShape<T, WMAX, RMAX>;
    auto kernel = potf2_impl::potf2_rdiag_kernel<T, WMAX, RMAX, 8>;
    const size_t smem = Shape::smem_bytes(p.n, p.m);
    static std::atomic<uint64_t> opted_in{0};  // always: the static shared memory adds to the dynamic
    opt_in_smem(kernel, Shape::smem_bytes(WMAX, RMAX), opted_in);
    int grid = 1;
    if constexpr (RMAX > 0) grid = (p.m + RMAX - 1) / RMAX;
    check_launch("rdiag kernel launch",
                 potf2_impl::launch_pdl(kernel, dim3(grid), dim3(Shape::kThreads), smem, stream, dependent, p));
}

/// The replicated-diagonal kernel on the leaf of p (and, if p.m > 0, the p.m rows below it); `dependent`:
/// a programmatic dependent of the previous kernel (pdl.cuh).
template <typename T>
void launch_rdiag(const LeafParams<T>& p, cudaStream_t stream, bool dependent) {
    if (p.m > 0)
        p.n <= 64 ? launch_rdiag_shape<T, 64, kRdiagRows>(p, stream, dependent)
                  : launch_rdiag_shape<T, 128, kRdiagRows>(p, stream, dependent);
    else if (p.n <= 32)
        launch_rdiag_shape<T, 32, 0>(p, stream, dependent);
    else
        p.n <= 64 ? launch_rdiag_shape<T, 64, 0>(p, stream, dependent)
                  : launch_rdiag_shape<T, 128, 0>(p, stream, dependent);
}

/// The library's leaf policy of potf2_run (potf2_forms.cuh): the rdiag kernel only.
struct RdiagLeaf {
    static void check(const Potf2Config& config, const char* fn) {
        require(config.ib == 8, fn, "config.ib", "must be 8 (got " + std::to_string(config.ib) + ")");
        require(config.rdiag, fn, "config.rdiag",
                "must be true: the library compiles only the replicated-diagonal kernel (the single-block leaves "
                "are in tools/tune/potf2/)");
    }
    template <typename T>
    static void launch(const Potf2Config&, const LeafParams<T>& p, cudaStream_t stream, bool dependent) {
        launch_rdiag<T>(p, stream, dependent);
    }
    template <typename T>
    static void solve_panel(const PanelParams<T>&, cudaStream_t) {
        throw RuntimeError("potf2: no panel trsm in the library (rdiag solves the rows below in its launch)");
    }
};

}  // namespace

template <typename T>
size_t potf2_workspace_bytes(int n) {
    return potf2_workspace_bytes_for(n, potf2_default_config<T>(n).cutoff);
}

template <typename T>
void potf2_tile_tuned(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
                      int* info, int64_t offset, void* workspace, size_t workspace_bytes, const Potf2Aux* aux) {
    potf2_impl::potf2_run<T, RdiagLeaf>(config, cublas, stream, n, A, ld, info, offset, workspace, workspace_bytes,
                                         aux);
}

template <typename T>
void potf2_tile(cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld, int* info, int64_t offset,
                void* workspace, size_t workspace_bytes, const Potf2Aux* aux) {
    Potf2Config c = potf2_default_config<T>(n);
    if (!aux) c.group = 0;  // no second stream: the one-stream blocked form
    potf2_tile_tuned<T>(c, cublas, stream, n, A, ld, info, offset, workspace, workspace_bytes, aux);
}

#ifdef STARFACT_POTF2_PROFILE
/// Developer instrumentation (bench_potf2_prof): the phase clocks of the last rdiag launch.
void potf2_rdiag_clocks(long long* out, int count) {
    cudaMemcpyFromSymbol(out, potf2_impl::g_rdiag_clock, sizeof(long long) * count);
}
#endif

template size_t potf2_workspace_bytes<float>(int);
template size_t potf2_workspace_bytes<double>(int);
template void potf2_tile_tuned<float>(const Potf2Config&, cublasHandle_t, cudaStream_t, int, float*, int, int*,
                                      int64_t, void*, size_t, const Potf2Aux*);
template void potf2_tile_tuned<double>(const Potf2Config&, cublasHandle_t, cudaStream_t, int, double*, int, int*,
                                       int64_t, void*, size_t, const Potf2Aux*);
template void potf2_tile<float>(cublasHandle_t, cudaStream_t, int, float*, int, int*, int64_t, void*, size_t,
                                const Potf2Aux*);
template void potf2_tile<double>(cublasHandle_t, cudaStream_t, int, double*, int, int*, int64_t, void*, size_t,
                                 const Potf2Aux*);

}  // namespace starfact::detail::gpu
