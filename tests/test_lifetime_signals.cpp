// Runtimes and the process: the signal handlers StarPU installs are put back, a segmentation fault during a second
// Runtime ends the process, Runtimes one after the other calibrating a model never abort (in child processes).
// Part of test_lifetime (tests/test_lifetime.cpp).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "starfact/starfact.hpp"
#include "tests/lifetime_support.hpp"

using namespace starfact;
using namespace starfact::test::lifetime;
using Catch::Matchers::Contains;

namespace {

bool same_handler(const struct sigaction& a, const struct sigaction& b) {
    if ((a.sa_flags & SA_SIGINFO) != (b.sa_flags & SA_SIGINFO)) return false;
    return (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction == b.sa_sigaction : a.sa_handler == b.sa_handler;
}

void on_segv(int) {}
void on_int(int) {}
void on_trap(int) {}

}  // namespace

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
