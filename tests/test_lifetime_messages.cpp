// The messages of a Runtime that cannot start: an unknown scheduler, no worker. Part of test_lifetime
// (tests/test_lifetime.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "starfact/starfact.hpp"
#include "tests/lifetime_support.hpp"

using namespace starfact;
using namespace starfact::test::lifetime;
using Catch::Matchers::Contains;

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
