// The Catch2 session of a test binary, for its main: Catch2 declares Catch::Session only where its implementation
// is compiled, and that is tests/catch_impl.cpp, once for every binary (target starfact_catch).
#pragma once

namespace starfact::test {

/// Catch::Session().run(argc, argv): runs the binary's test cases as the command line says.
int run_catch_session(int argc, char** argv);

}  // namespace starfact::test
