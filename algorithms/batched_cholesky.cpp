// starfact::batched::potrf / posv on host arrays: the batch is cut into chunks of consecutive matrices,
// each chunk registered as StarPU vector handles (A, B, info) and factored by one task that StarPU places
// on a CPU worker (LAPACKE loop) or a GPU (batched kernels), as the mapping allows
// (codelets/batched_chol_chunk.*); the caller waits for its own tasks, then unregistering
// brings results and info home.
#include <algorithm>
#include <complex>
#include <cstdint>

#include "algorithms/batched_chunks.hpp"
#include "codelets/batched_chol_chunk.hpp"
#include "starfact/batched_cholesky.hpp"

namespace starfact::batched {
namespace {

/// Members per chunk: the caller's, or at most 8 MiB of matrix data (at least one member) and at least
/// two chunks per worker, so that every worker gets a share.
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
            int64_t ldb, int64_t strideB, int* info, int64_t batch, const Options& opts, bool posv) {
    const detail::HostChecks c(f, n, kMaxCholeskyOrder);
    c.ld("lda", lda, n, "n");
    c.stride("strideA", strideA, lda * n, "lda * n");
    c.batch(batch);
    c.extent<T>("strideA", strideA, batch, lda * n);
    if (posv) {
        require(nrhs >= 0 && nrhs <= INT32_MAX, f, "nrhs", "must be in [0, 2^31-1]" + c.got(nrhs));
        c.ld("ldb", ldb, nrhs, "nrhs");
        c.stride("strideB", strideB, ldb * nrhs, "ldb * nrhs");
        c.extent<T>("strideB", strideB, batch, ldb * nrhs);
        c.pointer("B", B, n == 0 || nrhs == 0 || batch == 0);
    }
    c.pointer("A", A, n == 0 || batch == 0);
    c.pointer("info", info, batch == 0);
    c.chunk(opts.chunk);
    rt.require_mapping(opts.mapping, f);
    if (batch == 0) return 0;
    if (n == 0) {
        std::fill(info, info + batch, 0);
        return 0;
    }
    const bool with_b = posv && nrhs > 0;  // posv with nrhs == 0 is a potrf
    // StarPU vectors count elements in 32 bits: bound the members of one chunk accordingly.
    int64_t max_members = (int64_t(UINT32_MAX) - lda * n) / std::max<int64_t>(1, strideA) + 1;
    if (with_b)
        max_members = std::min(max_members, (int64_t(UINT32_MAX) - ldb * nrhs) / std::max<int64_t>(1, strideB) + 1);
    const int64_t chunk = chunk_size(rt, opts, batch, strideA * int64_t(sizeof(T)), std::max<int64_t>(1, max_members));

    detail::BatchChunks chunks;
    const detail::TaskOptions to = chunks.task_options(opts.mapping);
    for (int64_t first = 0; first < batch; first += chunk) {
        const int64_t count = std::min(chunk, batch - first);
        // The last matrix of a chunk ends at lda * n: a handle never reaches past the caller's arrays.
        starpu_data_handle_t hA = chunks.add(A + first * strideA, (count - 1) * strideA + lda * n);
        starpu_data_handle_t hB =
            with_b ? chunks.add(B + first * strideB, (count - 1) * strideB + ldb * nrhs) : nullptr;
        starpu_data_handle_t hI = chunks.add(info + first, count);
        const detail::CholeskyChunk args{static_cast<int>(n),   with_b ? static_cast<int>(nrhs) : 0,
                                         static_cast<int>(lda), with_b ? static_cast<int>(ldb) : 1,
                                         strideA,               with_b ? strideB : 0,
                                         count};
        detail::insert_cholesky_chunk<T>(rt, to, args, hA, hB, hI);
    }
    chunks.finish(f);
    return std::count_if(info, info + batch, [](int v) { return v != 0; });
}

}  // namespace

template <typename T>
int64_t potrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch,
              const Options& opts) {
    return run<T>(rt, "batched::potrf", n, 0, A, lda, strideA, nullptr, 1, 0, info, batch, opts, false);
}

template <typename T>
int64_t posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb,
             int64_t strideB, int* info, int64_t batch, const Options& opts) {
    return run<T>(rt, "batched::posv", n, nrhs, A, lda, strideA, B, ldb, strideB, info, batch, opts, true);
}

template int64_t potrf<float>(Runtime&, int64_t, float*, int64_t, int64_t, int*, int64_t, const Options&);
template int64_t potrf<double>(Runtime&, int64_t, double*, int64_t, int64_t, int*, int64_t, const Options&);
template int64_t posv<float>(Runtime&, int64_t, int64_t, float*, int64_t, int64_t, float*, int64_t, int64_t, int*,
                             int64_t, const Options&);
template int64_t posv<double>(Runtime&, int64_t, int64_t, double*, int64_t, int64_t, double*, int64_t, int64_t, int*,
                              int64_t, const Options&);
// The complex types: the same chunks, whose CPU workers run the scalar layer's c and z LAPACKE calls and whose CUDA
// workers the vendor's batched routines (codelets/batched_chol_chunk.cpp).
#define STARFACT_BATCHED_CHOL_COMPLEX(C)                                                                         \
    template int64_t potrf<C>(Runtime&, int64_t, C*, int64_t, int64_t, int*, int64_t, const Options&);          \
    template int64_t posv<C>(Runtime&, int64_t, int64_t, C*, int64_t, int64_t, C*, int64_t, int64_t, int*, int64_t, \
                             const Options&);
STARFACT_BATCHED_CHOL_COMPLEX(std::complex<float>)
STARFACT_BATCHED_CHOL_COMPLEX(std::complex<double>)
#undef STARFACT_BATCHED_CHOL_COMPLEX

}  // namespace starfact::batched
