// A submitted operation of the C ABI: its Sequence, the tiles it works on and what copies its results out.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "capi/starfact_c.h"
#include "starfact/mixed.hpp"
#include "starfact/sequence.hpp"

struct starfact_c_job {
    /// Filled by a mixed-precision posv (has_report) while its refinement runs: declared before the sequence, which
    /// must be destroyed (waiting for the solve) first.
    starfact::SolveReport report;
    bool has_report = false;
    /// Runs once the sequence has completed: copies the results into the outputs and returns the info to report
    /// (given the sequence's). It owns the tiles and pivots (shared pointers), kept alive until the job is freed.
    std::function<int(int)> finish;
    std::unique_ptr<starfact::Sequence> sequence;  // destroyed first: its destructor waits for the tasks

    /// Where the job's result stands. Pending: nobody has waited yet. Finishing: one thread (the first to wait)
    /// waits for the tasks and runs `finish`; the others block until it is done. Final: info or failure is the
    /// result every wait returns.
    enum class Stage { Pending, Finishing, Final };
    mutable std::mutex mutex;  // guards stage, info and failure
    std::condition_variable finished;  // notified when stage becomes Final
    Stage stage = Stage::Pending;
    int info = 0;
    std::exception_ptr failure;  // what the wait or the copies threw, rethrown by every wait
};

namespace starfact::capi {

/// A new job on `rt` with an empty Sequence.
std::unique_ptr<starfact_c_job> new_job(Runtime& rt);

/// Keeps the calling thread's current CUDA device: restores it when it goes out of scope (no-op without CUDA).
/// StarPU's start and the library's device work may leave another device current, and the caller's array
/// libraries check it (PyTorch refuses a DLPack export of a tensor of another device than the current one).
class KeepDevice {
public:
    KeepDevice();
    ~KeepDevice();
    KeepDevice(const KeepDevice&) = delete;
    KeepDevice& operator=(const KeepDevice&) = delete;

private:
    int device_ = -1;
};

/// Blocks until the legacy default stream of the calling thread's current CUDA device has completed: copies into
/// device memory from host code are asynchronous with respect to the host (no-op without CUDA).
void settle_device_copies();

}  // namespace starfact::capi
