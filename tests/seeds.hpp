// Reproducible random seeds for the tests. A run has one base seed: STARFACT_TEST_SEED (a decimal number, or
// "random" for a fresh one) when set, else kDefaultTestSeed; each test binary's main prints it at startup
// (print_seed_banner). fresh_seed() derives the seeds a test case draws from the base seed, the test case's name
// and how many seeds it drew before, so they do not depend on which tests ran before it: `test_cpu "[potrf]"`
// draws what the full run drew for those tests. The listener of tests/seed_listener.hpp restarts the count at
// each test case and prints the command that replays a failed one.
#pragma once
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>

namespace starfact::test {

/// The base seed when STARFACT_TEST_SEED is not set.
constexpr uint64_t kDefaultTestSeed = 24301;

/// SplitMix64's output function: consecutive inputs give unrelated outputs.
constexpr uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/// The run's base seed, read from STARFACT_TEST_SEED once; a value that is neither a decimal number nor
/// "random" stops the binary with a message.
inline uint64_t base_seed() {
    static const uint64_t seed = [] {
        const char* env = std::getenv("STARFACT_TEST_SEED");
        if (!env || !*env) return kDefaultTestSeed;
        const std::string s(env);
        if (s == "random") {
            std::random_device rd;
            return (static_cast<uint64_t>(rd()) << 32) ^ rd();
        }
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(env, &end, 10);
        if (s.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE || *end != '\0') {
            std::fprintf(stderr, "STARFACT_TEST_SEED must be a decimal number below 2^64 or 'random' (got '%s')\n", env);
            std::exit(2);
        }
        return static_cast<uint64_t>(v);
    }();
    return seed;
}

/// "seed: N (STARFACT_TEST_SEED=N replays this run)" on stdout, flushed (an abort would lose buffered output).
inline void print_seed_banner() {
    const auto seed = static_cast<unsigned long long>(base_seed());
    std::printf("seed: %llu (STARFACT_TEST_SEED=%llu replays this run)\n", seed, seed);
    std::fflush(stdout);
}

namespace detail {

struct SeedCounter {
    std::mutex mutex;
    std::string test;   // the test case whose seeds are being drawn
    uint64_t next = 0;  // how many it drew
};

inline SeedCounter& seed_counter() {
    static SeedCounter counter;
    return counter;
}

/// FNV-1a: a hash of the test case's name that is the same on every platform and compiler.
inline uint64_t name_hash(const std::string& name) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (const unsigned char c : name) h = (h ^ c) * 0x100000001B3ull;
    return h;
}

/// The test case running now ("" outside one).
inline std::string current_test_name() {
    try {
        return Catch::getResultCapture().getCurrentTestName();
    } catch (...) {
        return "";
    }
}

}  // namespace detail

/// Seed number k (0, 1, ...) of test case `test` in this run.
inline uint64_t test_seed(const std::string& test, uint64_t k) {
    return splitmix64(splitmix64(base_seed() ^ detail::name_hash(test)) + k);
}

/// Restarts the seeds of test case `test` (the listener calls it as each test case starts).
inline void start_test_seeds(const std::string& test) {
    detail::SeedCounter& c = detail::seed_counter();
    const std::lock_guard<std::mutex> lock(c.mutex);
    c.test = test;
    c.next = 0;
}

/// The next seed of the running test case: the same in every run with the same base seed, whichever tests run
/// before it. Tests print it with INFO.
inline uint64_t fresh_seed() {
    const std::string test = detail::current_test_name();
    detail::SeedCounter& c = detail::seed_counter();
    const std::lock_guard<std::mutex> lock(c.mutex);
    if (test != c.test) {  // a binary without the listener
        c.test = test;
        c.next = 0;
    }
    return test_seed(c.test, c.next++);
}

}  // namespace starfact::test
