// starfact::batched::potrf / posv on host arrays: the batch is cut into chunks of consecutive
// matrices, each chunk registered as StarPU vector handles (A, B, info) and factored by one task
// that StarPU places on a CPU worker (LAPACKE loop) or a GPU (batched kernels), as the mapping
// allows; the caller waits for its own tasks, then unregistering brings results and info home.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "codelets/cuda/batched_chol/chunk_codelet.hpp"
#include "starfact/batched_cholesky.hpp"
#include "starfact/error.hpp"

namespace starfact::batched {
namespace {

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }

/// Matrices per chunk: the user's, or ~8 MiB of matrix data but at least two chunks per worker
/// so that every worker gets a share.
int64_t chunk_size(const Runtime& rt, const Options& o, int64_t batch, int64_t bytes_per_member,
                   int64_t max_members) {
    if (o.chunk > 0) return std::min({o.chunk, batch, max_members});
    const int64_t by_bytes = std::max<int64_t>(1, (int64_t(8) << 20) / std::max<int64_t>(1, bytes_per_member));
    const int64_t workers = std::max(1, rt.cpu_workers() + rt.cuda_workers());
    const int64_t by_workers = std::max<int64_t>(1, (batch + 2 * workers - 1) / (2 * workers));
    return std::max<int64_t>(1, std::min({by_bytes, by_workers, batch, max_members}));
}

template <typename T>
int64_t run(Runtime& rt, const char* f, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B,
            int64_t ldb, int64_t strideB, int64_t batch, int* info, const Options& opts, bool posv) {
    require(n >= 0 && n <= kMaxCholeskyOrder, f, "n", "must be in [0, 128]" + got(n));
    require(lda >= std::max<int64_t>(1, n) && lda * std::max<int64_t>(1, n) <= INT32_MAX, f, "lda",
            "must be >= max(1, n) = " + std::to_string(std::max<int64_t>(1, n)) + " with lda * n < 2^31" + got(lda));
    require(strideA >= lda * n, f, "strideA", "must be >= lda * n = " + std::to_string(lda * n) + got(strideA));
    require(batch >= 0, f, "batch", "must be >= 0" + got(batch));
    if (posv) {
        require(nrhs >= 0 && nrhs <= INT32_MAX, f, "nrhs", "must be in [0, 2^31-1]" + got(nrhs));
        require(ldb >= std::max<int64_t>(1, n) && ldb * std::max<int64_t>(1, nrhs) <= INT32_MAX, f, "ldb",
                "must be >= max(1, n) = " + std::to_string(std::max<int64_t>(1, n)) + " with ldb * nrhs < 2^31" +
                    got(ldb));
        require(strideB >= ldb * nrhs, f, "strideB", "must be >= ldb * nrhs = " + std::to_string(ldb * nrhs) + got(strideB));
        require(B != nullptr || n == 0 || nrhs == 0 || batch == 0, f, "B", "is null");
    }
    require(A != nullptr || n == 0 || batch == 0, f, "A", "is null");
    require(info != nullptr || batch == 0, f, "info", "is null");
    require(opts.chunk >= 0, f, "opts.chunk", "must be >= 0" + got(opts.chunk));
    rt.require_mapping(opts.mapping, f);
    if (batch == 0) return 0;
    if (n == 0) {
        std::fill(info, info + batch, 0);
        return 0;
    }
    const bool with_b = posv && nrhs > 0;
    // StarPU vectors count elements in 32 bits: bound the members of one chunk accordingly.
    int64_t max_members = (int64_t(UINT32_MAX) - lda * n) / std::max<int64_t>(1, strideA) + 1;
    if (with_b)
        max_members = std::min(max_members, (int64_t(UINT32_MAX) - ldb * nrhs) / std::max<int64_t>(1, strideB) + 1);
    const int64_t chunk = chunk_size(rt, opts, batch, strideA * int64_t(sizeof(T)), std::max<int64_t>(1, max_members));

    std::vector<starpu_data_handle_t> handles;
    std::vector<starpu_task*> tasks;
    handles.reserve(static_cast<size_t>(3 * ((batch + chunk - 1) / chunk)));
    for (int64_t first = 0; first < batch; first += chunk) {
        const int64_t count = std::min(chunk, batch - first);
        starpu_data_handle_t hA = nullptr, hB = nullptr, hI = nullptr;
        // The last matrix of a chunk ends at lda * n: a handle never reaches past the user's arrays.
        starpu_vector_data_register(&hA, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(A + first * strideA),
                                    static_cast<uint32_t>((count - 1) * strideA + lda * n), sizeof(T));
        handles.push_back(hA);
        if (with_b) {
            starpu_vector_data_register(&hB, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(B + first * strideB),
                                        static_cast<uint32_t>((count - 1) * strideB + ldb * nrhs), sizeof(T));
            handles.push_back(hB);
        }
        starpu_vector_data_register(&hI, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(info + first),
                                    static_cast<uint32_t>(count), sizeof(int));
        handles.push_back(hI);
        detail::BatchedChunkArgs args{static_cast<int>(n), with_b ? static_cast<int>(nrhs) : 0, static_cast<int>(lda),
                                      with_b ? static_cast<int>(ldb) : 1, strideA, with_b ? strideB : 0, count};
        try {
            // posv with nrhs == 0 is a potrf
            detail::insert_batched_chunk<T>(rt, opts.mapping, args, hA, with_b ? hB : nullptr, hI, &tasks);
        } catch (...) {
            for (starpu_task* t : tasks)
                if (starpu_task_wait(t) != 0) continue;  // best effort before rethrowing
            for (starpu_data_handle_t h : handles) starpu_data_unregister(h);
            throw;
        }
    }
    bool waited = true;
    for (starpu_task* t : tasks) waited = starpu_task_wait(t) == 0 && waited;  // destroys t
    // starpu_task_wait returns before StarPU's submitted-task count drops: settle it like the tile
    // algorithms do, so that Runtime::pending_tasks() is 0 when this returns.
    starpu_task_wait_for_all();
    for (starpu_data_handle_t h : handles) starpu_data_unregister(h);  // brings data and info home
    if (!waited) throw RuntimeError(std::string("starfact::") + f + ": starpu_task_wait failed");
    return std::count_if(info, info + batch, [](int v) { return v != 0; });
}

}  // namespace

template <typename T>
int64_t potrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int64_t batch, int* info,
              const Options& opts) {
    return run<T>(rt, "batched::potrf", n, 0, A, lda, strideA, nullptr, 1, 0, batch, info, opts, false);
}

template <typename T>
int64_t posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb,
             int64_t strideB, int64_t batch, int* info, const Options& opts) {
    return run<T>(rt, "batched::posv", n, nrhs, A, lda, strideA, B, ldb, strideB, batch, info, opts, true);
}

template int64_t potrf<float>(Runtime&, int64_t, float*, int64_t, int64_t, int64_t, int*, const Options&);
template int64_t potrf<double>(Runtime&, int64_t, double*, int64_t, int64_t, int64_t, int*, const Options&);
template int64_t posv<float>(Runtime&, int64_t, int64_t, float*, int64_t, int64_t, float*, int64_t, int64_t, int64_t,
                             int*, const Options&);
template int64_t posv<double>(Runtime&, int64_t, int64_t, double*, int64_t, int64_t, double*, int64_t, int64_t,
                              int64_t, int*, const Options&);

}  // namespace starfact::batched
