// Catch2's implementation, compiled once (target starfact_catch, a static library every test binary links through
// starfact_test_support), with the seeds' listener (registered once per binary) and the session the binaries' mains
// run (tests/catch_session.hpp). Compiled with each main, it took most of the tests' build time.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_session.hpp"
#include "tests/seed_listener.hpp"

int starfact::test::run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
