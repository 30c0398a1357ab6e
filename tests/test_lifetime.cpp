// Object lifetimes and robustness against misuse: matrices and sequences that outlive their Runtime, the signal
// handlers StarPU installs, matrices too large for memory, and the messages of a Runtime that cannot start.
// Every test starts and destroys Runtimes of its own (one at a time), so this binary has no process-wide Runtime.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/memory.hpp"
#include "starfact/starfact.hpp"
#include "tests/catch_session.hpp"

using namespace starfact;
using Catch::Matchers::Contains;

namespace {

/// One CPU worker: these tests start several Runtimes and never need speed.
std::unique_ptr<Runtime> cpu_runtime() {
    RuntimeConfig cfg;
    cfg.ncpus = 1;
    cfg.ncuda = 0;
    cfg.warm_up = false;
    return std::make_unique<Runtime>(cfg);
}

/// The message of the RuntimeError f throws ("" if it throws none, "other: ..." for another exception).
template <typename F>
std::string runtime_error(F&& f) {
    try {
        f();
    } catch (const RuntimeError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("other: ") + e.what();
    }
    return "";
}

constexpr const char* kMatrixGone = "the Runtime this TileMatrix belongs to was destroyed";
constexpr const char* kSequenceGone = "the Runtime this Sequence belongs to was destroyed";

std::vector<double> spd(int64_t n, uint64_t seed) {
    std::vector<double> A(static_cast<size_t>(n * n));
    random_symmetric<double>(n, A.data(), n, seed, static_cast<double>(n));
    return A;
}

void write_file(const std::string& path, const std::string& text) {
    const std::string dir = path.substr(0, path.find_last_of('/'));
    REQUIRE(std::system(("mkdir -p '" + dir + "'").c_str()) == 0);
    std::ofstream(path) << text;
}

bool same_handler(const struct sigaction& a, const struct sigaction& b) {
    if ((a.sa_flags & SA_SIGINFO) != (b.sa_flags & SA_SIGINFO)) return false;
    return (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction == b.sa_sigaction : a.sa_handler == b.sa_handler;
}

void on_segv(int) {}
void on_int(int) {}
void on_trap(int) {}

}  // namespace

TEST_CASE("a TileMatrix used after its Runtime was destroyed throws, also once a new Runtime runs",
          "[lifetime][cpu]") {
    const int64_t n = 96, nb = 32;
    const std::vector<double> A = spd(n, 7);
    auto rt = cpu_runtime();
    auto a = std::make_unique<TileMatrix<double>>(*rt, n, nb);
    auto lower = std::make_unique<TileMatrix<double>>(*rt, n, nb, Residency::Host, TileLayout{Grid{}, true});
    a->import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(*a, o) == 0);
    rt.reset();  // releases the tiles of `a` and `lower` while StarPU still runs

    std::vector<double> out(A.size());
    CHECK_THAT(runtime_error([&] { a->runtime(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->tile(0, 0); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { lower->tile(0, 1); }), Contains(kMatrixGone));  // not InvalidArgument
    CHECK_THAT(runtime_error([&] { a->home_node(0, 0); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->stored_bytes(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->import(A.data(), n); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->export_to(out.data(), n); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potrf(*a, o); }), Contains(kMatrixGone));
    // The shape is still known.
    CHECK(a->m() == n);
    CHECK(a->mt() == 3);
    CHECK(a->tile_rows(2) == 32);

    // A new Runtime (possibly at the old one's address) does not make the matrix usable again.
    rt = cpu_runtime();
    CHECK_THAT(runtime_error([&] { a->runtime(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potrf(*a, o); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potri(*a, o); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { Pivots piv(*a); }), Contains(kMatrixGone));
    Pivots piv(*rt, n, nb);
    CHECK_THAT(runtime_error([&] { getrf(*a, piv, o); }), Contains(kMatrixGone));
    TileMatrix<double> b(*rt, n, 2, nb);
    CHECK_THAT(runtime_error([&] { potrs(*a, b, o); }), Contains(kMatrixGone));
    Sequence seq(*rt);
    CHECK_THAT(runtime_error([&] { async::potrf(*a, seq, o); }), Contains(kMatrixGone));
    CHECK(seq.wait() == 0);
    a.reset();  // a no-op: the tiles went with the first Runtime
    lower.reset();

    // The new Runtime works.
    TileMatrix<double> c(*rt, n, nb);
    c.import(A.data(), n);
    CHECK(potrf(c, o) == 0);
    CHECK(rt->pending_tasks() == 0);
}

TEST_CASE("Pivots used after their Runtime was destroyed throw, and their destructor is safe", "[lifetime][cpu]") {
    const int64_t n = 70, nb = 16;
    std::vector<double> A(static_cast<size_t>(n * n));
    random_matrix<double>(n, n, A.data(), n, 3);
    auto rt = cpu_runtime();
    auto piv = std::make_unique<Pivots>(*rt, n, nb);
    {
        TileMatrix<double> a(*rt, n, nb);
        a.import(A.data(), n);
        Options o;
        o.mapping = Mapping::CpuOnly;
        REQUIRE(getrf(a, *piv, o) == 0);
    }
    CHECK(piv->ipiv().size() == static_cast<size_t>(n));
    rt.reset();  // unregisters the pivots' handles while StarPU still runs
    CHECK_THAT(runtime_error([&] { piv->runtime(); }), Contains("the Runtime these pivots belong to was destroyed"));
    CHECK_THAT(runtime_error([&] { piv->ipiv(); }), Contains("the Runtime these pivots belong to was destroyed"));
    CHECK(piv->steps() == 5);  // the shape is still known
    rt = cpu_runtime();
    piv.reset();  // a no-op: StarPU never sees the old handles again
    CHECK(rt->pending_tasks() == 0);
}

TEST_CASE("a Sequence pending when its Runtime is destroyed: its tasks complete, wait() throws RuntimeError",
          "[lifetime][cpu]") {
    const int64_t n = 512, nb = 64, nrhs = 3;
    const std::vector<double> A = spd(n, 11);
    std::vector<double> B(static_cast<size_t>(n * nrhs), 1.0);
    auto rt = cpu_runtime();
    auto a = std::make_unique<TileMatrix<double>>(*rt, n, nb);
    auto b = std::make_unique<TileMatrix<double>>(*rt, n, nrhs, nb);
    a->import(A.data(), n);
    b->import(B.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    auto seq = std::make_unique<Sequence>(*rt);
    const int op = async::potrf(*a, *seq, o);
    async::potrs(*a, *b, *seq, o);
    auto idle = std::make_unique<Sequence>(*rt);  // no operation in it
    rt.reset();  // waits for every task, then orphans the sequences and the matrices

    CHECK(seq->done());
    CHECK(seq->pending() == 0);
    CHECK(seq->submitted() > 0);
    CHECK(seq->operations() == 1);
    CHECK_THAT(runtime_error([&] { seq->wait(); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { seq->info(op); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { seq->runtime(); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { async::potrs(*a, *b, *seq, o); }), Contains("was destroyed"));
    CHECK(seq->info() == 0);  // nothing was waited for
    CHECK_THAT(runtime_error([&] { idle->wait(); }), Contains(kSequenceGone));
    // Destroyed in any order after the Runtime: no StarPU call, no abort.
    a.reset();
    seq.reset();
    b.reset();
    idle.reset();
}

TEST_CASE("a Sequence waited for before its Runtime was destroyed keeps its infos", "[lifetime][cpu]") {
    const int64_t n = 128, nb = 32;
    std::vector<double> A = spd(n, 3);
    A[static_cast<size_t>(40 + 40 * n)] = -1e6;  // leading minor 41 not positive definite
    auto rt = cpu_runtime();
    TileMatrix<double> a(*rt, n, nb);
    a.import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(*rt);
    const int op = async::potrf(a, seq, o);
    CHECK(seq.wait() == 41);
    rt.reset();
    CHECK(seq.info() == 41);
    CHECK(seq.info(op) == 41);
    CHECK_THAT(runtime_error([&] { seq.wait(); }), Contains(kSequenceGone));
}

TEST_CASE("matrices built and destroyed on several threads, some outliving their Runtime", "[lifetime][cpu]") {
    auto rt = cpu_runtime();
    const int threads = 4, rounds = 40;
    std::vector<std::unique_ptr<TileMatrix<float>>> kept(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int r = 0; r < rounds; ++r) TileMatrix<float> scratch(*rt, 40 + t, 16);  // joins, then leaves
            kept[static_cast<size_t>(t)] = std::make_unique<TileMatrix<float>>(*rt, 50, 16);
        });
    for (std::thread& th : pool) th.join();
    CHECK(kept[0]->stored_bytes() == 50 * 50 * sizeof(float));
    rt.reset();
    for (auto& k : kept) CHECK_THAT(runtime_error([&] { k->tile(0, 0); }), Contains(kMatrixGone));
    pool.clear();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { kept[static_cast<size_t>(t)].reset(); });
    for (std::thread& th : pool) th.join();
}

TEST_CASE("a Runtime puts back the signal handlers that were in place before it started", "[lifetime][cpu]") {
    // StarPU installs its own in starpu_init unless STARPU_CATCH_SIGNALS=0: make sure it does here.
    unsetenv("STARPU_CATCH_SIGNALS");
    const int signals[] = {SIGSEGV, SIGINT, SIGTRAP};
    void (*mine[])(int) = {on_segv, on_int, on_trap};
    struct sigaction saved[3], installed[3];
    for (int k = 0; k < 3; ++k) {
        struct sigaction act {};
        act.sa_handler = mine[k];
        sigemptyset(&act.sa_mask);
        REQUIRE(sigaction(signals[k], &act, &saved[k]) == 0);  // saved: Catch2's, put back at the end
        installed[k] = act;
    }
    for (int round = 0; round < 2; ++round) {  // the second Runtime of the process too
        INFO("Runtime " << round + 1);
        auto rt = cpu_runtime();
        for (int k = 0; k < 3; ++k) {
            struct sigaction now {};
            sigaction(signals[k], nullptr, &now);
            CHECK_FALSE(same_handler(now, installed[k]));  // StarPU's while it runs
        }
        rt.reset();
        for (int k = 0; k < 3; ++k) {
            INFO("signal " << signals[k]);
            struct sigaction now {};
            sigaction(signals[k], nullptr, &now);
            CHECK(same_handler(now, installed[k]));
        }
    }
    for (int k = 0; k < 3; ++k) sigaction(signals[k], &saved[k], nullptr);
}

TEST_CASE("a segmentation fault during a second Runtime ends the process", "[lifetime][cpu]") {
    // In a child: StarPU's handler re-raises into the handler it saw at start; after a first Runtime that left its
    // handler in place, that was itself, and the process looped in it forever instead of dying.
    unsetenv("STARPU_CATCH_SIGNALS");
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        try {
            signal(SIGSEGV, SIG_DFL);
            { auto first = cpu_runtime(); }
            auto second = cpu_runtime();
            raise(SIGSEGV);
        } catch (...) {
            _exit(4);  // never back into the test framework from the child
        }
        _exit(3);  // not reached when the signal ends the process
    }
    int status = 0;
    pid_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((done = waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (done == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        FAIL("the child did not end within 60 s of raising SIGSEGV (a signal handler loops)");
    }
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
}

TEST_CASE("Runtimes one after the other, calibrating a model while its task runs, never abort", "[lifetime][cpu]") {
    // In a child, on fresh performance models. StarPU 1.3's clock starts from a reference that every starpu_init
    // takes on the previous reference's clock (so every second instance counts from the process's start), and a
    // worker's codelet start time survives into the next instance. A task that starts before the scheduler turns its
    // model's calibration on (a tile size the model has too few measurements of) ended with a fresh end time and the
    // start time left from the previous instance: a negative measurement, and StarPU aborted.
    char dir[] = "/tmp/starfact-models-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        signal(SIGABRT, SIG_DFL);  // the child dies of it, not into the test framework's handler
        signal(SIGSEGV, SIG_DFL);
        try {
            setenv("STARPU_PERF_MODEL_DIR", dir, 1);
            setenv("STARPU_SCHED", "dmdas", 1);
            setenv("STARPU_CALIBRATE_MINIMUM", "2", 1);
            setenv("STARPU_HISTORY_MAX_ERROR", "100000", 1);
            auto spd = [](int64_t n) {
                std::vector<double> a(static_cast<size_t>(n * n), 0.0);
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = j; i < n; ++i) a[static_cast<size_t>(i + j * n)] = i == j ? n : 1.0 / (1 + i + j);
                return a;
            };
            constexpr int64_t n = 1536;  // one tile: one potrf task of tens of milliseconds
            for (int round = 0; round < 4; ++round) {
                RuntimeConfig cfg;
                cfg.ncpus = 1;  // every task on the worker whose times are left over
                cfg.ncuda = 0;
                cfg.warm_up = false;
                cfg.calibrate = round == 0;  // round 0 calibrates the big tile
                Runtime rt(cfg);
                auto a = spd(n);
                TileMatrix<double> A(rt, n, n, n, a.data(), n);
                if (round == 0) {
                    for (int call = 0; call < 3; ++call) {
                        if (potrf(A) != 0) _exit(5);
                        const auto fresh = spd(n);  // refilled in place: A views a's memory
                        std::copy(fresh.begin(), fresh.end(), a.begin());
                    }
                    continue;
                }
                // the calibrated tile running when a tile of a new size turns the model's calibration on
                const int64_t m = 40 + round;
                auto b = spd(m);
                TileMatrix<double> B(rt, m, m, m, b.data(), m);
                Sequence seq(rt);
                async::potrf(A, seq);
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                async::potrf(B, seq);
                if (seq.wait() != 0) _exit(5);
            }
        } catch (...) {
            _exit(4);
        }
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(std::system((std::string("rm -rf ") + dir).c_str()) == 0);
    INFO("the child's status: " << status << (WIFSIGNALED(status) ? " (killed by a signal)" : ""));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("matrices too large for memory are refused up front, with the bytes asked for", "[lifetime][memory][cpu]") {
    auto rt = cpu_runtime();
    const auto start = std::chrono::steady_clock::now();
    // 2^32 x 2^32 and 10^5 x 10^5 in 1 x 1 tiles: a tile grid far too fine to factor, refused naming nb before the
    // memory is counted (tests/test_errors.cpp has the limit).
    for (int64_t n : {int64_t(1) << 32, int64_t(100000)})
        CHECK_THROWS_MATCHES(TileMatrix<double>(*rt, n, 1), InvalidArgument,
                             Catch::Matchers::Predicate<InvalidArgument>(
                                 [](const InvalidArgument& e) { return e.argument() == "nb"; }, "names nb"));
    // 2^34 x 1 in 16 x 16 tiles (one tile column: within the tile grid's limits): 2^30 StarPU handles.
    std::string msg = runtime_error([&] { TileMatrix<double> t(*rt, int64_t(1) << 34, 1, 16); });
    CHECK_THAT(msg, Contains("starfact::TileMatrix: a 17179869184 x 1 matrix"));
    CHECK_THAT(msg, Contains("137438953472 bytes"));  // its entries
    CHECK_THAT(msg, Contains("1073741824 tiles"));
    CHECK_THAT(msg, Contains("are available"));
    // 8.8 TB in 4096 x 4096 tiles.
    msg = runtime_error([&] { TileMatrix<double> t(*rt, int64_t(1) << 20, 4096); });
    CHECK_THAT(msg, Contains("8796093022208 bytes"));
    CHECK_THAT(msg, Contains("are available"));
    // The same lower_only: 256 * 257 / 2 tiles of 4096^2 doubles.
    msg = runtime_error([&] {
        TileMatrix<double> t(*rt, int64_t(1) << 20, 4096, Residency::Host, TileLayout{Grid{}, true});
    });
    CHECK_THAT(msg, Contains(std::to_string(uint64_t(32896) * 4096 * 4096 * 8) + " bytes"));
    // float: half the bytes.
    msg = runtime_error([&] { TileMatrix<float> t(*rt, int64_t(1) << 20, 4096); });
    CHECK_THAT(msg, Contains("4398046511104 bytes"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 5);  // refused before anything is allocated or registered
    CHECK(rt->pending_tasks() == 0);
    // The Runtime is still usable.
    TileMatrix<double> ok(*rt, 100, 32);
    CHECK(ok.stored_bytes() == 100 * 100 * sizeof(double));
}

// AddressSanitizer (tools/sanitize.sh) maps terabytes of shadow memory: no RLIMIT_AS can be set under it.
#if defined(__SANITIZE_ADDRESS__)
#define STARFACT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STARFACT_TEST_ASAN 1
#endif
#endif

TEST_CASE("out of memory for the bookkeeping is a RuntimeError, not std::bad_alloc", "[lifetime][memory][cpu]") {
#ifdef STARFACT_TEST_ASAN
    WARN("skipped under AddressSanitizer: its shadow memory does not fit under an RLIMIT_AS limit");
    return;
#endif
    auto rt = cpu_runtime();
    // The memory check reads what the kernel and cgroups allow, not the address-space limit: under a limit just
    // above what the process maps, with the heap's free space used up except small holes, the check passes and
    // the first 8 MB vector of tile handles cannot be allocated. Nothing between the two limits may use Catch.
    std::ifstream statm("/proc/self/statm");
    unsigned long long pages = 0;
    statm >> pages;
    REQUIRE(pages > 0);
    struct rlimit before {};
    REQUIRE(getrlimit(RLIMIT_AS, &before) == 0);
    struct rlimit tight = before;
    tight.rlim_cur = pages * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) + (4u << 20);
    if (before.rlim_cur != RLIM_INFINITY && before.rlim_cur < tight.rlim_cur) tight.rlim_cur = before.rlim_cur;
    std::vector<void*> filler;
    filler.reserve(1 << 20);
    std::string outcome;
    outcome.reserve(1024);
    REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0);
    for (size_t chunk : {size_t(1) << 20, size_t(64) << 10, size_t(4) << 10})
        for (void* p; filler.size() < filler.capacity() && (p = std::malloc(chunk)) != nullptr;) filler.push_back(p);
    for (int k = 0; k < 64 && !filler.empty(); ++k) {  // holes of 4 KiB for the check's small allocations
        std::free(filler.back());
        filler.pop_back();
    }
    try {
        TileMatrix<double> t(*rt, 1000000, 1, 1);
        outcome = "constructed";
    } catch (const RuntimeError& e) {
        outcome = e.what();
    } catch (const std::bad_alloc&) {
        outcome = "std::bad_alloc";
    }
    for (void* p : filler) std::free(p);
    setrlimit(RLIMIT_AS, &before);
    INFO(outcome);
    CHECK_THAT(outcome, Contains("starfact::TileMatrix:"));
    if (outcome.find("are available") == std::string::npos)  // else refused by the check (a small machine)
        CHECK_THAT(outcome, Contains("out of host memory for the bookkeeping of the 1000000 tiles"));
    TileMatrix<double> ok(*rt, 64, 32);  // still usable
    CHECK(rt->pending_tasks() == 0);
}

TEST_CASE("stored_bytes counts the tiles a matrix stores", "[lifetime][memory][cpu]") {
    auto rt = cpu_runtime();
    struct Shape {
        int64_t m, n, nb;
        bool lower;
    };
    for (const Shape& s : {Shape{100, 37, 16, false}, Shape{64, 64, 16, false}, Shape{65, 65, 16, true},
                           Shape{64, 64, 16, true}, Shape{1, 1, 1, true}, Shape{0, 5, 3, false},
                           Shape{17, 17, 4, true}, Shape{300, 7, 64, false}}) {
        INFO(s.m << " x " << s.n << " nb " << s.nb << (s.lower ? " lower_only" : ""));
        TileMatrix<float> t(*rt, s.m, s.n, s.nb, Residency::Host, TileLayout{Grid{}, s.lower});
        size_t expected = 0;
        for (int64_t j = 0; j < t.nt(); ++j)
            for (int64_t i = 0; i < t.mt(); ++i)
                if (t.stored(i, j)) expected += static_cast<size_t>(t.tile_rows(i) * t.tile_cols(j)) * sizeof(float);
        CHECK(t.stored_bytes() == expected);
    }
}

TEST_CASE("available host memory: MemAvailable and the cgroup limits, the smallest", "[lifetime][memory][cpu]") {
    const uint64_t now = available_host_memory();
    CHECK(now > 0);
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    unsigned long long total_kib = 0;
    while (meminfo >> key && key != "MemTotal:") meminfo.ignore(256, '\n');
    if (meminfo >> total_kib) CHECK(now <= total_kib * 1024);

    char dir_template[] = "/tmp/starfact-memory-XXXXXX";
    REQUIRE(mkdtemp(dir_template) != nullptr);
    const std::string root = dir_template;
    SECTION("cgroup v2: the tightest limit up the hierarchy, inactive page cache reclaimable") {
        write_file(root + "/proc/meminfo", "MemTotal:       99999999 kB\nMemAvailable:   50000000 kB\n");
        write_file(root + "/proc/self/cgroup", "0::/job/step\n");
        write_file(root + "/proc/self/mountinfo",
                   "24 1 0:21 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n");
        write_file(root + "/sys/fs/cgroup/job/step/memory.max", "max\n");
        write_file(root + "/sys/fs/cgroup/job/step/memory.current", "1000\n");
        write_file(root + "/sys/fs/cgroup/job/memory.max", "8589934592\n");
        write_file(root + "/sys/fs/cgroup/job/memory.current", "3221225472\n");
        write_file(root + "/sys/fs/cgroup/job/memory.stat", "anon 5\ninactive_file 1073741824\nactive_file 7\n");
        const detail::HostMemory m = detail::host_memory(root);
        CHECK(m.bytes == 6442450944ull);  // 8 GiB - (3 GiB - 1 GiB)
        CHECK_THAT(m.limited_by, Contains("cgroup v2") && Contains("/sys/fs/cgroup/job ("));
        write_file(root + "/proc/meminfo", "MemAvailable:   1000 kB\n");
        CHECK(detail::host_memory(root).bytes == 1024000);
        CHECK_THAT(detail::host_memory(root).limited_by, Contains("MemAvailable"));
    }
    SECTION("cgroup v1 in a container: the mount shows the process's own cgroup") {
        write_file(root + "/proc/meminfo", "MemAvailable:   50000000 kB\n");
        write_file(root + "/proc/self/cgroup", "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n");
        write_file(root + "/proc/self/mountinfo",
                   "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
                   "36 31 0:33 /docker/abc /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n");
        write_file(root + "/sys/fs/cgroup/memory/memory.limit_in_bytes", "2147483648\n");
        write_file(root + "/sys/fs/cgroup/memory/memory.usage_in_bytes", "1073741824\n");
        write_file(root + "/sys/fs/cgroup/memory/memory.stat", "inactive_file 1\ntotal_inactive_file 536870912\n");
        const detail::HostMemory m = detail::host_memory(root);
        CHECK(m.bytes == 1610612736ull);  // 2 GiB - (1 GiB - 0.5 GiB)
        CHECK_THAT(m.limited_by, Contains("cgroup v1"));
    }
    SECTION("nothing readable: no limit known") {
        const detail::HostMemory m = detail::host_memory(root + "/nothing");
        CHECK(m.bytes == UINT64_MAX);
        CHECK(m.limited_by.empty());
    }
    std::system(("rm -rf '" + root + "'").c_str());
}

TEST_CASE("an unknown scheduler: the message lists the known policies", "[lifetime][messages][cpu]") {
    RuntimeConfig cfg;
    cfg.ncpus = 1;
    cfg.scheduler = "nosuch";
    std::string msg;
    try {
        Runtime rt(cfg);
    } catch (const InvalidArgument& e) {
        msg = e.what();
        CHECK(e.argument() == "scheduler");
    }
    CHECK_THAT(msg, Contains("got 'nosuch'; known: ") && Contains("dmdas") && Contains("eager"));
    CHECK_THAT(msg, !Contains("known: )"));
}

TEST_CASE("a Runtime without any worker says what was asked and found", "[lifetime][messages][cpu]") {
    if (std::getenv("STARPU_NCPU")) return;  // it would win over ncpus = 0
    RuntimeConfig cfg;
    cfg.ncpus = 0;
    cfg.ncuda = 0;
    cfg.warm_up = false;
    std::string msg = runtime_error([&] { Runtime rt(cfg); });
    CHECK_THAT(msg, Contains("found no worker") && Contains("CPU workers requested: ") &&
                        Contains("CUDA devices requested: 0 (ncuda)"));
    CHECK_THAT(msg, Contains(built_with_cuda() ? "CUDA devices visible to this process: " : "has no CUDA support"));
    CHECK_THAT(msg, Contains("ask for CPU workers"));
    if (cuda_device_count() == 0) {
        cfg.ncuda = -1;  // GPU-only on a machine without a GPU
        msg = runtime_error([&] { Runtime rt(cfg); });
        CHECK_THAT(msg, Contains("CPU workers requested: 0 (ncpus)") && Contains("CUDA devices requested: all"));
    }
    // A failed start leaves nothing behind: a Runtime starts afterwards.
    auto rt = cpu_runtime();
    CHECK(rt->cpu_workers() > 0);
}

int main(int argc, char** argv) { return starfact::test::run_catch_session(argc, argv); }
