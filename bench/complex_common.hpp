// Shared by the complex benches against cuSOLVER (bench_complex.cpp, bench_posv_mixed_complex.cpp): the seeded
// complex test matrices filled by the machine's threads, the wall-clock seconds of a call, and a cuSOLVER handle with
// its parameters on a stream of its own (the generic cusolverDnX* API, with the scalar layer's cudaDataType of each
// element type: kernels/cuda_scalar.hpp's cuda_type).
#pragma once
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/common.hpp"
#include "starfact/runtime.hpp"
#include "support/cli.hpp"

namespace starfact::bench {

/// The command line of a bench over matrix orders: the arguments that are neither flags nor their values are orders
/// (comma-separated lists, appended to `orders`), the flags and their values go to the Cli returned. A flag takes the
/// next argument as its value unless it is one of `bare` or is written --key=value.
inline support::Cli orders_and_flags(int argc, char** argv, std::initializer_list<std::string> bare,
                                     std::vector<int64_t>& orders) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::vector<std::string> flags;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].rfind("--", 0) != 0) {
            for (int64_t n : support::int_list(args[i], "N", 1, 46340)) orders.push_back(n);
            continue;
        }
        flags.push_back(args[i]);
        const bool bare_flag = std::find(bare.begin(), bare.end(), args[i]) != bare.end();
        if (!bare_flag && args[i].find('=') == std::string::npos && i + 1 < args.size()) flags.push_back(args[++i]);
    }
    std::vector<char*> fargv{argv[0]};
    for (std::string& f : flags) fargv.push_back(f.data());
    return support::Cli(static_cast<int>(fargv.size()), fargv.data());
}

/// parse(argc, argv), or the bench `name` exits with status 1 and the message of what it threw.
template <typename Parse>
auto parse_or_exit(const char* name, Parse parse, int argc, char** argv) -> decltype(parse(argc, argv)) {
    try {
        return parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        std::exit(1);
    }
}

/// A Runtime with `streams` CUDA workers per GPU, its description printed; the bench `name` exits with status 1 when
/// it has no CUDA worker.
inline std::unique_ptr<Runtime> gpu_runtime(const char* name, int streams) {
    RuntimeConfig config;
    config.workers_per_gpu = streams;
    auto rt = std::make_unique<Runtime>(config);
    if (rt->cuda_workers() == 0) {
        std::fprintf(stderr, "%s: no CUDA worker (%s)\n", name, rt->describe().c_str());
        rt.reset();  // shut down before exiting
        std::exit(1);
    }
    std::printf("%s\n", rt->describe().c_str());
    return rt;
}

inline uint64_t mix(uint64_t x) {  // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
inline double unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53 * 2.0 - 1.0; }  // [-1, 1)

/// The entry (i, j) of seed's matrices: real and imaginary parts uniform in [-1, 1) (a hash of seed, i, j).
template <typename C>
C hashed_entry(uint64_t seed, int64_t i, int64_t j) {
    using R = typename C::value_type;
    const uint64_t h = mix(seed ^ mix(static_cast<uint64_t>(i) * 0x100000001b3ull + static_cast<uint64_t>(j)));
    return C(static_cast<R>(unit(h)), static_cast<R>(unit(mix(h))));
}

/// n x n on the host, filled by the machine's threads (a column range each) with entry(i, j).
template <typename C, typename Entry>
std::vector<C> fill(int64_t n, Entry entry) {
    std::vector<C> A(static_cast<size_t>(n) * static_cast<size_t>(n));
    const int64_t nthreads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n));
    std::vector<std::thread> threads;
    for (int64_t t = 0; t < nthreads; ++t)
        threads.emplace_back([&, t] {
            for (int64_t j = t; j < n; j += nthreads)
                for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] = entry(i, j);
        });
    for (std::thread& t : threads) t.join();
    return A;
}

/// A general n x n matrix of hashed entries (its LU's pivots interchange rows).
template <typename C>
std::vector<C> general_matrix(int64_t n, uint64_t seed) {
    return fill<C>(n, [seed](int64_t i, int64_t j) { return hashed_entry<C>(seed, i, j); });
}

/// A Hermitian positive definite, well conditioned n x n matrix (both triangles): hashed entries below the diagonal,
/// their conjugates above, a real diagonal 3 sqrt(n) + 1 + [0, 1).
template <typename C>
std::vector<C> hermitian_matrix(int64_t n, uint64_t seed) {
    using R = typename C::value_type;
    const double shift = 3.0 * std::sqrt(static_cast<double>(n)) + 1.0;
    auto lower = [&](int64_t i, int64_t j) {  // i >= j
        if (i == j) return C(static_cast<R>(shift + 0.5 * (hashed_entry<C>(seed, i, i).real() + 1.0)), R(0));
        return hashed_entry<C>(seed, i, j);
    };
    return fill<C>(n, [&](int64_t i, int64_t j) { return i >= j ? lower(i, j) : std::conj(lower(j, i)); });
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A cuSOLVER handle and its parameters on a stream of their own.
struct Solver {
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    cudaStream_t stream;
    Solver() {
        STARFACT_BENCH_STATUS(cusolverDnCreate(&h));
        STARFACT_BENCH_STATUS(cusolverDnCreateParams(&params));
        STARFACT_BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        STARFACT_BENCH_STATUS(cusolverDnSetStream(h, stream));
    }
    ~Solver() {
        cusolverDnDestroyParams(params);
        cusolverDnDestroy(h);
        cudaStreamDestroy(stream);
    }
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;
};

}  // namespace starfact::bench
