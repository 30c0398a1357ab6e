// Memory: matrices too large for memory refused up front with the bytes asked for, out of memory for the
// bookkeeping as a RuntimeError, the bytes a matrix stores, the host memory available (MemAvailable and the cgroup
// limits). Part of test_lifetime (tests/test_lifetime.cpp).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/memory.hpp"
#include "starfact/starfact.hpp"
#include "tests/lifetime_support.hpp"

using namespace starfact;
using namespace starfact::test::lifetime;
using Catch::Matchers::Contains;

namespace {

void write_file(const std::string& path, const std::string& text) {
    const std::string dir = path.substr(0, path.find_last_of('/'));
    REQUIRE(std::system(("mkdir -p '" + dir + "'").c_str()) == 0);
    std::ofstream(path) << text;
}

}  // namespace

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
