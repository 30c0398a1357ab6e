// StarPU entry points of the batched LU (include/starfact/batched_lu.hpp): a host batch of
// contiguous n x n matrices is cut into chunks registered as StarPU vectors, one task per chunk
// (CPU workers: LAPACKE loop; CUDA workers: the batched kernels). Also the LAWN 41 flop counts.
#include <algorithm>
#include <string>
#include <vector>

#include "codelets/cuda/batched_lu/chunk_codelet.hpp"
#include "starfact/batched_lu.hpp"
#include "starfact/error.hpp"

namespace starfact::batched {

double getrf_flops(int n) {
    const double d = n;
    return 2.0 / 3.0 * d * d * d - d * d / 2.0 + 5.0 / 6.0 * d;
}
double getri_flops(int n) {
    const double d = n;
    return 4.0 / 3.0 * d * d * d - d * d + 5.0 / 3.0 * d;
}
double getrs_flops(int n, int nrhs) {
    const double d = n;
    return static_cast<double>(nrhs) * (2.0 * d * d - d);
}

namespace {

/// The chunk tasks (not detached) and handles: on scope exit the tasks are waited for and the
/// handles unregistered (data back home), also when a submission threw.
struct ChunkHandles {
    std::vector<starpu_task*> tasks;
    std::vector<starpu_data_handle_t> handles;
    starpu_data_handle_t add(void* p, size_t count, size_t elem) {
        starpu_data_handle_t h = nullptr;
        starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(p), static_cast<uint32_t>(count),
                                    elem);
        handles.push_back(h);
        return h;
    }
    ~ChunkHandles() {
        for (auto t : tasks) starpu_task_wait(t);
        for (auto h : handles) starpu_data_unregister(h);
    }
};

int64_t chunk_size(const Runtime& rt, int64_t batch, int64_t requested) {
    if (requested > 0) return requested;
    const int64_t workers = std::max(1, rt.cpu_workers() + rt.cuda_workers());
    return std::max<int64_t>(256, (batch + 4 * workers - 1) / (4 * workers));
}

template <typename T>
void run(const char* fn, detail::BatchedLuOp op, Runtime& rt, int n, T* A, int* ipiv, int* info, int64_t batch,
         const BatchOptions& opts) {
    require(n >= 0 && n <= kMaxOrder, fn, "n", "must be in [0, 32] (got " + std::to_string(n) + ")");
    require(batch >= 0, fn, "batch", "must be >= 0 (got " + std::to_string(batch) + ")");
    require(opts.chunk >= 0, fn, "opts.chunk", "must be >= 0 (got " + std::to_string(opts.chunk) + ")");
    rt.require_mapping(opts.mapping, fn);
    if (n == 0 || batch == 0) return;
    require(A != nullptr, fn, "A", "must not be null");
    require(info != nullptr, fn, "info", "must not be null");
    if (op == detail::BatchedLuOp::Getrf) require(ipiv != nullptr, fn, "ipiv", "must not be null");
    const int64_t nn = int64_t(n) * n;
    // StarPU vectors count elements in 32 bits.
    const int64_t chunk = std::min<int64_t>(chunk_size(rt, batch, opts.chunk), (int64_t(1) << 31) / nn - 1);
    detail::TaskOptions to;
    to.mapping = opts.mapping;
    to.name = op == detail::BatchedLuOp::Getrf ? "batched_getrf" : "batched_inverse";
    ChunkHandles hs;
    to.collect = &hs.tasks;
    for (int64_t b0 = 0; b0 < batch; b0 += chunk) {
        const int64_t count = std::min(chunk, batch - b0);
        starpu_data_handle_t hA = hs.add(A + b0 * nn, size_t(count * nn), sizeof(T));
        starpu_data_handle_t hI = hs.add(info + b0, size_t(count), sizeof(int));
        starpu_data_handle_t hP = op == detail::BatchedLuOp::Getrf ? hs.add(ipiv + b0 * n, size_t(count * n), sizeof(int))
                                                                   : nullptr;
        detail::insert_batched_lu_chunk<T>(rt, to, op, n, count, hA, hP, hI);
    }
}

}  // namespace

template <typename T>
void getrf(Runtime& rt, int n, T* A, int* ipiv, int* info, int64_t batch, const BatchOptions& opts) {
    run<T>("batched::getrf", detail::BatchedLuOp::Getrf, rt, n, A, ipiv, info, batch, opts);
}

template <typename T>
void inverse(Runtime& rt, int n, T* A, int* info, int64_t batch, const BatchOptions& opts) {
    run<T>("batched::inverse", detail::BatchedLuOp::Inverse, rt, n, A, nullptr, info, batch, opts);
}

template void getrf<float>(Runtime&, int, float*, int*, int*, int64_t, const BatchOptions&);
template void getrf<double>(Runtime&, int, double*, int*, int*, int64_t, const BatchOptions&);
template void inverse<float>(Runtime&, int, float*, int*, int64_t, const BatchOptions&);
template void inverse<double>(Runtime&, int, double*, int*, int64_t, const BatchOptions&);

}  // namespace starfact::batched
