// Internal: a mutex and a condition variable for a simulation build (STARFACT_SIMULATION, docs/simulation.md).
// Under StarPU's SimGrid mode every StarPU thread, and the program's main, is a SimGrid actor on one system thread:
// a thread that blocks in a std::condition_variable stops the whole simulation. StarPU's starpu_pthread_* types are
// SimGrid's there, so that a wait hands the system thread to the other actors.
#pragma once
#include <starpu.h>

#include <mutex>

namespace starfact::detail {

/// BasicLockable over starpu_pthread_mutex_t (std::lock_guard, std::unique_lock).
class SimulatedMutex {
public:
    SimulatedMutex() { starpu_pthread_mutex_init(&m_, nullptr); }
    ~SimulatedMutex() { starpu_pthread_mutex_destroy(&m_); }
    SimulatedMutex(const SimulatedMutex&) = delete;
    SimulatedMutex& operator=(const SimulatedMutex&) = delete;
    void lock() { starpu_pthread_mutex_lock(&m_); }
    void unlock() { starpu_pthread_mutex_unlock(&m_); }
    starpu_pthread_mutex_t* native() { return &m_; }

private:
    starpu_pthread_mutex_t m_;
};

/// The part of std::condition_variable that SequenceState uses, over starpu_pthread_cond_t.
class SimulatedCondition {
public:
    SimulatedCondition() { starpu_pthread_cond_init(&c_, nullptr); }
    ~SimulatedCondition() { starpu_pthread_cond_destroy(&c_); }
    SimulatedCondition(const SimulatedCondition&) = delete;
    SimulatedCondition& operator=(const SimulatedCondition&) = delete;
    void notify_all() { starpu_pthread_cond_broadcast(&c_); }
    template <typename Predicate>
    void wait(std::unique_lock<SimulatedMutex>& lock, Predicate done) {
        while (!done()) starpu_pthread_cond_wait(&c_, lock.mutex()->native());
    }

private:
    starpu_pthread_cond_t c_;
};

}  // namespace starfact::detail
