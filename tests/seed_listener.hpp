// The Catch2 listener of tests/seeds.hpp: restarts fresh_seed()'s count as each test case starts, and after a
// failed test case prints the command that replays it (its base seed and its name as a test filter).
// Included once per test binary, by tests/catch_impl.cpp.
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "tests/seeds.hpp"

namespace starfact::test {

/// `name` as one argument of a shell command that Catch2 reads as a test filter matching only that name.
inline std::string replay_filter(const std::string& name) {
    std::string quoted = "\"";
    for (const char c : name) {
        if (c == ',' || c == '[' || c == ']' || c == '~' || c == '\\') quoted += "\\\\";  // Catch2's escape, quoted
        if (c == '"' || c == '$' || c == '`' || c == '\\') quoted += '\\';  // the shell's
        quoted += c;
    }
    return quoted + "\"";
}

struct SeedListener : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;

    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        TestEventListenerBase::testCaseStarting(info);
        start_test_seeds(info.name);
    }

    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        if (stats.totals.assertions.failed > 0)
            stream << "seed: " << base_seed() << " ('" << stats.testInfo.name << "' failed; STARFACT_TEST_SEED="
                   << base_seed() << ' ' << m_config->name() << ' ' << replay_filter(stats.testInfo.name)
                   << " replays it)" << std::endl;
        TestEventListenerBase::testCaseEnded(stats);
    }
};

}  // namespace starfact::test

using StarfactSeedListener = starfact::test::SeedListener;
CATCH_REGISTER_LISTENER(StarfactSeedListener)
