// starfact::batched::getrf / inverse on host arrays: the batch is cut into chunks of consecutive matrices,
// each chunk registered as StarPU vector handles (A, ipiv, info) and processed by one task (CPU workers: a
// LAPACKE loop; CUDA workers: the batched kernels; codelets/batched_lu_chunk.*). The flop counts are in
// codelets/batched_lu_flops.cpp.
#include <algorithm>
#include <complex>
#include <cstdint>

#include "algorithms/batched_chunks.hpp"
#include "codelets/batched_lu_chunk.hpp"
#include "starfact/batched_lu.hpp"

namespace starfact::batched {

namespace {

/// Members per chunk: the caller's, or about four chunks per worker of at least 256 members each.
int64_t chunk_size(const Runtime& rt, const Options& o, int64_t batch) {
    if (o.chunk > 0) return o.chunk;
    const int64_t workers = std::max(1, rt.cpu_workers() + rt.cuda_workers());
    return std::max<int64_t>(256, (batch + 4 * workers - 1) / (4 * workers));
}

template <typename T>
int64_t run(Runtime& rt, const char* f, detail::LuChunkOp op, int64_t n, T* A, int64_t lda, int64_t strideA,
            int* ipiv, int64_t stride_piv, int* info, int64_t batch, const Options& opts) {
    const bool getrf = op == detail::LuChunkOp::Getrf;
    const detail::HostChecks c(f, n, kMaxLuOrder);
    c.ld("lda", lda, n, "n");
    c.stride("strideA", strideA, lda * n, "lda * n");
    if (getrf) c.stride("stride_piv", stride_piv, n, "n");
    c.batch(batch);
    c.extent<T>("strideA", strideA, batch, lda * n);
    if (getrf) c.extent<int>("stride_piv", stride_piv, batch, n);
    c.pointer("A", A, n == 0 || batch == 0);
    if (getrf) c.pointer("ipiv", ipiv, n == 0 || batch == 0);
    c.pointer("info", info, n == 0 || batch == 0);
    c.chunk(opts.chunk);
    rt.require_mapping(opts.mapping, f);
    if (n == 0 || batch == 0) return 0;
    // StarPU vectors count elements in 32 bits: bound the members of one chunk accordingly.
    const int64_t max_members = (int64_t(UINT32_MAX) - lda * n) / strideA + 1;
    const int64_t chunk = std::min(chunk_size(rt, opts, batch), max_members);

    detail::BatchChunks chunks;
    const detail::TaskOptions to = chunks.task_options(opts.mapping);
    for (int64_t first = 0; first < batch; first += chunk) {
        const int64_t count = std::min(chunk, batch - first);
        // The last matrix of a chunk ends at lda * n: a handle never reaches past the caller's arrays.
        starpu_data_handle_t hA = chunks.add(A + first * strideA, (count - 1) * strideA + lda * n);
        starpu_data_handle_t hP = getrf ? chunks.add(ipiv + first * stride_piv, (count - 1) * stride_piv + n) : nullptr;
        starpu_data_handle_t hI = chunks.add(info + first, count);
        const detail::LuChunk args{op, static_cast<int>(n), static_cast<int>(lda), strideA, stride_piv, count};
        detail::insert_lu_chunk<T>(rt, to, args, hA, hP, hI);
    }
    chunks.finish(f);
    return std::count_if(info, info + batch, [](int v) { return v != 0; });
}

}  // namespace

template <typename T>
int64_t getrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info,
              int64_t batch, const Options& opts) {
    return run<T>(rt, "batched::getrf", detail::LuChunkOp::Getrf, n, A, lda, strideA, ipiv, stride_piv, info, batch,
                  opts);
}

template <typename T>
int64_t inverse(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch,
                const Options& opts) {
    return run<T>(rt, "batched::inverse", detail::LuChunkOp::Inverse, n, A, lda, strideA, nullptr, n, info, batch,
                  opts);
}

template int64_t getrf<float>(Runtime&, int64_t, float*, int64_t, int64_t, int*, int64_t, int*, int64_t,
                              const Options&);
template int64_t getrf<double>(Runtime&, int64_t, double*, int64_t, int64_t, int*, int64_t, int*, int64_t,
                               const Options&);
template int64_t inverse<float>(Runtime&, int64_t, float*, int64_t, int64_t, int*, int64_t, const Options&);
template int64_t inverse<double>(Runtime&, int64_t, double*, int64_t, int64_t, int*, int64_t, const Options&);
// The complex types: the same chunks, whose CPU workers run the scalar layer's c and z LAPACKE calls and whose CUDA
// workers the vendor's batched routines (codelets/batched_lu_chunk.cpp).
#define STARFACT_BATCHED_LU_COMPLEX(C)                                                                         \
    template int64_t getrf<C>(Runtime&, int64_t, C*, int64_t, int64_t, int*, int64_t, int*, int64_t,          \
                              const Options&);                                                                \
    template int64_t inverse<C>(Runtime&, int64_t, C*, int64_t, int64_t, int*, int64_t, const Options&);
STARFACT_BATCHED_LU_COMPLEX(std::complex<float>)
STARFACT_BATCHED_LU_COMPLEX(std::complex<double>)
#undef STARFACT_BATCHED_LU_COMPLEX

}  // namespace starfact::batched
