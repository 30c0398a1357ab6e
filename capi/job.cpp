// Jobs of the C ABI: wait, done, report, destroy.
#include "capi/job.hpp"

#include "capi/errors.hpp"
#include "capi/options.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::capi {

std::unique_ptr<starfact_c_job> new_job(Runtime& rt) {
    auto job = std::make_unique<starfact_c_job>();
    job->sequence = std::make_unique<Sequence>(rt);
    return job;
}

KeepDevice::KeepDevice() {
#ifdef STARFACT_HAVE_CUDA
    if (cudaGetDevice(&device_) != cudaSuccess) {
        device_ = -1;
        (void)cudaGetLastError();
    }
#endif
}

KeepDevice::~KeepDevice() {
#ifdef STARFACT_HAVE_CUDA
    int now = -1;
    if (device_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != device_) (void)cudaSetDevice(device_);
    (void)cudaGetLastError();
#endif
}

void settle_device_copies() {
#ifdef STARFACT_HAVE_CUDA
    const cudaError_t e = cudaStreamSynchronize(cudaStreamLegacy);
    if (e != cudaSuccess)
        throw RuntimeError(std::string("starfact: cudaStreamSynchronize after the copies: ") + cudaGetErrorString(e));
#endif
}

}  // namespace starfact::capi

using starfact::capi::guarded;

extern "C" {

int starfact_c_job_wait(starfact_c_job* job, int32_t* info) {
    return guarded([&] {
        starfact::require(job != nullptr, "job_wait", "job", "is null");
        using Stage = starfact_c_job::Stage;
        std::unique_lock lock(job->mutex);
        if (job->stage == Stage::Pending) {
            // This thread delivers the result; later waiters block until it has.
            job->stage = Stage::Finishing;
            lock.unlock();
            int result = 0;
            std::exception_ptr failure;
            try {
                const starfact::capi::KeepDevice keep;
                const int seq_info = job->sequence->wait();
                result = job->finish ? job->finish(seq_info) : seq_info;
            } catch (...) {
                failure = std::current_exception();
            }
            lock.lock();
            job->info = result;
            job->failure = failure;
            job->stage = Stage::Final;
            job->finished.notify_all();
        } else {
            job->finished.wait(lock, [&] { return job->stage == Stage::Final; });
        }
        if (job->failure) std::rethrow_exception(job->failure);
        if (info) *info = job->info;
    });
}

int starfact_c_job_done(const starfact_c_job* job, int32_t* done) {
    return guarded([&] {
        starfact::require(job != nullptr, "job_done", "job", "is null");
        starfact::require(done != nullptr, "job_done", "done", "is null");
        using Stage = starfact_c_job::Stage;
        const std::lock_guard lock(job->mutex);
        // Finishing: another thread is still delivering the result, which is not final before it returns.
        *done = job->stage == Stage::Final || (job->stage == Stage::Pending && job->sequence->done()) ? 1 : 0;
    });
}

int starfact_c_job_report(const starfact_c_job* job, starfact_c_solve_report* report) {
    return guarded([&] {
        starfact::require(job != nullptr, "job_report", "job", "is null");
        starfact::require(report != nullptr, "job_report", "report", "is null");
        starfact::require(job->has_report, "job_report", "job", "is not a mixed-precision solve (no report)");
        const std::lock_guard lock(job->mutex);
        starfact::require(job->stage == starfact_c_job::Stage::Final, "job_report", "job",
                          "has not been waited for");
        starfact::capi::fill_report(job->report, report);
    });
}

void starfact_c_job_destroy(starfact_c_job* job) {
    // The Sequence's destructor waits for the tasks and swallows errors; the tiles go after it.
    delete job;
}

}  // extern "C"
