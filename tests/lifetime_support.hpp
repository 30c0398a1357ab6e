// What the lifetime tests share (tests/test_lifetime*.cpp, the one binary test_lifetime): a Runtime of one CPU
// worker, and the message of the RuntimeError a call throws.
#pragma once
#include <exception>
#include <memory>
#include <string>

#include "starfact/starfact.hpp"

namespace starfact::test::lifetime {

/// One CPU worker: these tests start several Runtimes and never need speed.
inline std::unique_ptr<Runtime> cpu_runtime() {
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

}  // namespace starfact::test::lifetime
