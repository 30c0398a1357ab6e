// bench_batched_gpus: the StarPU form of the batched Cholesky solve, starfact::batched::posv(Runtime&, ...) on host
// arrays, over K = 1, 2, ... GPUs of one process: the batch is cut into chunks, one task each, and StarPU spreads
// them over every CUDA worker of every device, each chunk crossing its GPU's own host link. One Runtime per K, in
// turn, on the same arrays; each timed run restores A and B from pristine copies first (untimed). Prints, per K, the
// median seconds, matrices per second and the speed-up over the first K, and checks the solution of sampled members;
// then the host-link ceiling: the same bytes (A and B to the GPUs and back) copied by the same K GPUs with nothing
// else, the time no schedule of the solve can beat.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "starfact/starfact.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

const char* kHelp =
    "bench_batched_gpus: starfact::batched::posv(Runtime&, host arrays) over K GPUs of one process\n"
    "  --n N          matrix order (default 32, at most 128)\n"
    "  --nrhs R       right-hand sides per member (default 1)\n"
    "  --batch B      members (default 1000000)\n"
    "  --prec s|d     precision (default d)\n"
    "  --gpus LIST    GPU counts, comma separated (default 1,2,4,8 up to the visible ones)\n"
    "  --warmup W     untimed runs per K (default 1)\n"
    "  --repeat R     timed runs per K; the median is printed (default 5)\n"
    "  --pageable     host arrays from plain memory (default: pinned, cudaHostAlloc)\n"
    "  --no-ceiling   skip the copy-only run (A and B to the K GPUs and back, no solve) printed per K\n"
    "  --help         this text\n";

struct Flags {
    int64_t n = 32, nrhs = 1, batch = 1000000;
    char prec = 'd';
    std::vector<int> gpus;
    int warmup = 1, repeat = 5;
    bool pinned = true;
    bool ceiling = true;
};

int64_t number(const char* flag, const char* text, int64_t lo, int64_t hi) {
    char* end = nullptr;
    const long long v = std::strtoll(text, &end, 10);
    if (!text[0] || *end || v < lo || v > hi)
        throw std::invalid_argument(std::string(flag) + " must be an integer in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "] (got '" + text + "')");
    return v;
}

Flags parse(int argc, char** argv) {
    Flags f;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
        } else if (a == "--n") f.n = number("--n", value(), 1, starfact::batched::kMaxCholeskyOrder);
        else if (a == "--nrhs") f.nrhs = number("--nrhs", value(), 1, 1024);
        else if (a == "--batch") f.batch = number("--batch", value(), 1, int64_t(1) << 31);
        else if (a == "--prec") {
            const std::string p = value();
            if (p != "s" && p != "d") throw std::invalid_argument("--prec must be s or d (got '" + p + "')");
            f.prec = p[0];
        } else if (a == "--gpus") {
            std::string list = value();
            for (size_t at = 0; at <= list.size();) {
                const size_t comma = std::min(list.find(',', at), list.size());
                f.gpus.push_back(static_cast<int>(number("--gpus", list.substr(at, comma - at).c_str(), 1, 64)));
                at = comma + 1;
            }
        } else if (a == "--warmup") f.warmup = static_cast<int>(number("--warmup", value(), 0, 100));
        else if (a == "--repeat") f.repeat = static_cast<int>(number("--repeat", value(), 1, 100));
        else if (a == "--pageable") f.pinned = false;
        else if (a == "--no-ceiling") f.ceiling = false;
        else throw std::invalid_argument("unknown flag " + a + " (--help lists them)");
    }
    return f;
}

/// A host array of `count` T, pinned (cudaHostAlloc) or plain.
template <typename T>
class HostArray {
public:
    HostArray(size_t count, bool pinned) : count_(count), pinned_(pinned) {
#ifdef STARFACT_HAVE_CUDA
        if (pinned_) {
            void* p = nullptr;
            if (cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocPortable) != cudaSuccess)
                throw std::runtime_error("cudaHostAlloc of " + std::to_string(count * sizeof(T)) + " bytes failed");
            data_ = static_cast<T*>(p);
            return;
        }
#endif
        pinned_ = false;
        data_ = static_cast<T*>(std::malloc(count * sizeof(T)));
        if (!data_) throw std::runtime_error("malloc of " + std::to_string(count * sizeof(T)) + " bytes failed");
    }
    ~HostArray() {
#ifdef STARFACT_HAVE_CUDA
        if (pinned_) {
            cudaFreeHost(data_);
            return;
        }
#endif
        std::free(data_);
    }
    HostArray(const HostArray&) = delete;
    HostArray& operator=(const HostArray&) = delete;
    T* data() const { return data_; }
    size_t size() const { return count_; }

private:
    size_t count_;
    bool pinned_;
    T* data_ = nullptr;
};

/// dst := src on all host threads.
template <typename T>
void copy(T* dst, const T* src, size_t count) {
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([=] {
            const size_t lo = count * t / threads, hi = count * (t + 1) / threads;
            std::memcpy(dst + lo, src + lo, (hi - lo) * sizeof(T));
        });
    for (auto& th : pool) th.join();
}

#ifdef STARFACT_HAVE_CUDA
/// Seconds to copy `bytes` bytes at `host` to GPUs 0 .. k-1 and back, each GPU taking a contiguous share in 64 MiB
/// chunks on two streams (one chunk's upload beside the other's download), all GPUs at once: the host side of the
/// batched solve without its kernels (the bytes come back to where they were, unchanged).
double copy_seconds(char* host, size_t bytes, int k) {
    constexpr size_t chunk = size_t(64) << 20;
    std::vector<std::string> failed(static_cast<size_t>(k));
    std::vector<std::thread> pool;
    const auto t0 = std::chrono::steady_clock::now();
    for (int d = 0; d < k; ++d)
        pool.emplace_back([&, d] {
            const auto ok = [&](cudaError_t e, const char* what) {
                if (e != cudaSuccess && failed[static_cast<size_t>(d)].empty())
                    failed[static_cast<size_t>(d)] = std::string(what) + ": " + cudaGetErrorString(e);
                return e == cudaSuccess;
            };
            if (!ok(cudaSetDevice(d), "cudaSetDevice")) return;
            char* dev[2] = {nullptr, nullptr};
            cudaStream_t st[2] = {nullptr, nullptr};
            bool ready = true;
            for (int i = 0; i < 2; ++i)
                ready = ready && ok(cudaMalloc(&dev[i], chunk), "cudaMalloc") &&
                        ok(cudaStreamCreate(&st[i]), "cudaStreamCreate");
            const size_t lo = bytes * static_cast<size_t>(d) / k, hi = bytes * static_cast<size_t>(d + 1) / k;
            int i = 0;
            for (size_t at = lo; ready && at < hi; at += chunk, i ^= 1) {
                const size_t len = std::min(chunk, hi - at);
                ok(cudaMemcpyAsync(dev[i], host + at, len, cudaMemcpyHostToDevice, st[i]), "cudaMemcpyAsync(H2D)");
                ok(cudaMemcpyAsync(host + at, dev[i], len, cudaMemcpyDeviceToHost, st[i]), "cudaMemcpyAsync(D2H)");
            }
            for (int j = 0; j < 2; ++j) {
                if (st[j]) {
                    ok(cudaStreamSynchronize(st[j]), "cudaStreamSynchronize");
                    cudaStreamDestroy(st[j]);
                }
                cudaFree(dev[j]);
            }
        });
    for (auto& th : pool) th.join();
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const std::string& e : failed)
        if (!e.empty()) throw std::runtime_error("copy-only run: " + e);
    return sec;
}
#endif

template <typename T>
int run(const Flags& f) {
    using namespace starfact;
    const int visible = cuda_device_count();
    std::vector<int> gpus = f.gpus;
    if (gpus.empty())
        for (int k : {1, 2, 4, 8})
            if (k <= visible) gpus.push_back(k);
    if (gpus.empty()) throw std::runtime_error("no CUDA device visible");
    const int64_t n = f.n, nrhs = f.nrhs, batch = f.batch, sa = n * n, sb = n * nrhs;
    // Members: one random SPD matrix per 1024 members (seeded by its index), their right-hand sides random.
    HostArray<T> A0(static_cast<size_t>(sa * batch), false), B0(static_cast<size_t>(sb * batch), false);
    const int64_t distinct = std::min<int64_t>(batch, 1024);
    for (int64_t m = 0; m < distinct; ++m) random_symmetric<T>(n, A0.data() + m * sa, n, 7 + m, static_cast<double>(n));
    for (int64_t m = distinct; m < batch; ++m) std::memcpy(A0.data() + m * sa, A0.data() + (m % distinct) * sa, sa * sizeof(T));
    random_matrix<T>(sb, batch, B0.data(), sb, 11);
    std::vector<int> info(static_cast<size_t>(batch));
    std::printf("bench_batched_gpus: posv n=%lld nrhs=%lld batch=%lld prec=%c, %s host arrays (%.2f GB of matrices)\n",
                static_cast<long long>(n), static_cast<long long>(nrhs), static_cast<long long>(batch), f.prec,
                f.pinned ? "pinned" : "pageable", static_cast<double>(A0.size() * sizeof(T)) * 1e-9);
    std::printf("%6s %12s %14s %9s %11s %12s %10s\n", "GPUs", "median s", "matrices/s", "speed-up", "max resid",
                "copy-only s", "GB/s");
    double first = 0;
    for (const int k : gpus) {
        if (k > visible) {
            std::printf("%6d skipped: %d GPU(s) visible\n", k, visible);
            continue;
        }
        RuntimeConfig cfg;
        cfg.ncpus = 0;
        cfg.ncuda = k;
        Runtime rt(cfg);
        // The arrays the solve works on, allocated once CUDA runs under StarPU (pinning before StarPU starts would
        // create the CUDA contexts outside it).
        HostArray<T> A(A0.size(), f.pinned), B(B0.size(), f.pinned);
        batched::Options o;
        o.mapping = Mapping::GpuOnly;
        std::vector<double> seconds;
        for (int r = 0; r < f.warmup + f.repeat; ++r) {
            copy(A.data(), A0.data(), A.size());
            copy(B.data(), B0.data(), B.size());
            const auto t0 = std::chrono::steady_clock::now();
            const int64_t failed = batched::posv(rt, n, nrhs, A.data(), n, sa, B.data(), n, sb, info.data(), batch, o);
            const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (failed != 0) throw std::runtime_error(std::to_string(failed) + " members failed to factor");
            if (r >= f.warmup) seconds.push_back(sec);
        }
        std::sort(seconds.begin(), seconds.end());
        const double med = seconds[seconds.size() / 2];
        if (first == 0) first = med;
        // Sampled members: ||A X - B|| / (||A|| ||X|| n eps), as the library's solve_residual.
        double worst = 0;
        for (int64_t m : {int64_t(0), batch / 2, batch - 1})
            worst = std::max(worst, solve_residual<T>(n, nrhs, A0.data() + m * sa, n, B.data() + m * sb, n,
                                                      B0.data() + m * sb, n));
        // The host-link ceiling: A and B up and back with no solve, medians of as many runs.
        std::string ceiling = "-", rate = "-";
#ifdef STARFACT_HAVE_CUDA
        if (f.ceiling && f.pinned) {
            std::vector<double> copies;
            for (int r = 0; r < f.warmup + f.repeat; ++r) {
                double sec = copy_seconds(reinterpret_cast<char*>(A.data()), A.size() * sizeof(T), k);
                sec += copy_seconds(reinterpret_cast<char*>(B.data()), B.size() * sizeof(T), k);
                if (r >= f.warmup) copies.push_back(sec);
            }
            std::sort(copies.begin(), copies.end());
            const double c = copies[copies.size() / 2];
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.4f", c);
            ceiling = buf;
            std::snprintf(buf, sizeof buf, "%.1f", 2.0 * static_cast<double>((A.size() + B.size()) * sizeof(T)) / c * 1e-9);
            rate = buf;
        }
#endif
        std::printf("%6d %12.4f %14.3e %9.2f %11.3g %12s %10s\n", k, med, static_cast<double>(batch) / med, first / med,
                    worst, ceiling.c_str(), rate.c_str());
        std::fflush(stdout);
        if (worst >= 60) {
            std::printf("residual check FAILED (>= 60)\n");
            return 3;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a pipe as they are printed
    try {
        const Flags f = parse(argc, argv);
        return f.prec == 's' ? run<float>(f) : run<double>(f);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_batched_gpus: %s\n", e.what());
        return 1;
    }
}
