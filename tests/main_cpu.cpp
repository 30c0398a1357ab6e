// Test main for CPU tests: one Runtime (CPU workers only) for the whole binary. The scheduler
// comes from STARPU_SCHED when ctest sets it (tests/CMakeLists.txt runs the suite per scheduler).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <memory>

#include "tests/support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

int main(int argc, char** argv) {
    starfact::RuntimeConfig cfg;
    cfg.ncuda = 0;
    g_runtime = std::make_unique<starfact::Runtime>(cfg);
    std::printf("%s\n", g_runtime->describe().c_str());
    const int rc = Catch::Session().run(argc, argv);
    g_runtime.reset();
    return rc;
}
