// Test main for CPU tests: one Runtime (CPU workers only) for the whole binary. The scheduler
// comes from STARPU_SCHED when ctest sets it (tests/CMakeLists.txt runs the suite per scheduler);
// STARFACT_TEST_TRACE=1 starts it with RuntimeConfig::trace, so that the DAG builders mark their steps.
// STARFACT_TEST_SEED=N sets the base of the tests' random seeds (tests/seeds.hpp); the first line printed names it.
#include <cstdlib>
#include <memory>
#include <string>

#include "tests/catch_session.hpp"
#include "tests/seeds.hpp"
#include "tests/support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

int main(int argc, char** argv) {
    starfact::test::print_seed_banner();
    starfact::RuntimeConfig cfg;
    cfg.ncuda = 0;
    const char* trace = std::getenv("STARFACT_TEST_TRACE");
    cfg.trace = trace && std::string(trace) == "1";
    g_runtime = std::make_unique<starfact::Runtime>(cfg);
    std::printf("%s\n", g_runtime->describe().c_str());
    const int rc = starfact::test::run_catch_session(argc, argv);
    g_runtime.reset();
    return rc;
}
