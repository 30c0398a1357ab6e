// MPI for starpu_chol's distributed runs (several ranks, or --grid): the session the driver starts before its
// Runtime so that the checks of the set-up are collective, and the sums over the ranks of a run.
#pragma once
#include <cstdint>
#include <string>

#include "starfact/runtime.hpp"

namespace starfact::chol_driver {

/// MPI_Init_thread under a launcher (mpirun, ...) or when `wanted`; nothing otherwise (nor without MPI).
class MpiSession {
public:
    /// Under mpirun (or another launcher), or asked for by --grid: MPI_Init_thread.
    MpiSession(int* argc, char*** argv, bool wanted);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    bool active() const { return active_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Whether `ok` holds on every rank (collective); `failed` lists the ranks where it does not.
    bool all(bool ok, std::string* failed) const;
    /// Whether every rank's `error` is empty (collective); if not, the first rank with one prints it ("starpu_chol:
    /// ...", its rank named when some ranks have none) and every rank is to stop.
    bool all_or_first_says(const std::string& error) const;
    /// Ends every rank after an error that only this rank may have seen.
    [[noreturn]] void abort() const;

private:
    bool active_ = false;
    int rank_ = 0, size_ = 1;
};

/// Sum over the ranks of a distributed run (the value itself in one process).
int64_t sum_over_ranks(const Runtime& rt, int64_t v);

}  // namespace starfact::chol_driver
