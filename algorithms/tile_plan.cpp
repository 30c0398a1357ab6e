// The tuned granularity of the tile Cholesky: tile size and CUDA streams per GPU by order, precision,
// mapping and residency. The rows come from `starpu_chol --sweep` on the H100 (docs/performance.md says
// how to regenerate them); between two rows the smaller row's choice holds.
#include <algorithm>

#include "starfact/cholesky.hpp"

namespace starfact {
namespace {

struct PlanRow {
    int64_t max_n;  ///< the row holds for orders <= max_n
    int64_t nb;     ///< tile size; 0: one tile (the whole matrix is one task)
    int streams;    ///< CUDA workers per GPU
};

// GPU mappings, device-resident tiles: up to max_n the whole matrix is one tile, factored by the
// two-stream GPU kernel (kernels/potf2/); above, tiles of nb.
constexpr PlanRow kDevice[] = {
    {16384, 0, 4},
    {int64_t(1) << 40, 4096, 4},
};
// GPU mappings, device-resident tiles over several GPUs: a whole-matrix task would leave all but one GPU idle, and
// the finer 2048 tiles beat 4096 at every order measured on 2 GPUs (16384 to 65536, docs/multigpu.md).
constexpr PlanRow kDeviceMulti[] = {
    {12288, 0, 4},
    {int64_t(1) << 40, 2048, 4},
};
// GPU mappings, host-resident tiles: tiles small enough that transfers overlap the factorization.
constexpr PlanRow kHost[] = {
    {4096, 0, 4},
    {int64_t(1) << 40, 2048, 4},
};

TilePlan from(const PlanRow* rows, size_t count, int64_t n) {
    for (size_t i = 0; i < count; ++i)
        if (n <= rows[i].max_n) return {rows[i].nb > 0 ? rows[i].nb : std::max<int64_t>(n, 1), rows[i].streams};
    return {rows[count - 1].nb, rows[count - 1].streams};
}

}  // namespace

template <typename T>
TilePlan tile_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus) {
    if (mapping == Mapping::CpuOnly || !gpu) return {256, 0};
    if (residency == Residency::Device && gpus > 1)
        return from(kDeviceMulti, sizeof kDeviceMulti / sizeof kDeviceMulti[0], n);
    if (residency == Residency::Device) return from(kDevice, sizeof kDevice / sizeof kDevice[0], n);
    return from(kHost, sizeof kHost / sizeof kHost[0], n);
}

template TilePlan tile_plan<float>(int64_t, Mapping, Residency, bool, int);
template TilePlan tile_plan<double>(int64_t, Mapping, Residency, bool, int);

}  // namespace starfact
