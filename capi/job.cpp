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
        const starfact::capi::KeepDevice keep;
        if (!job->waited) {
            job->waited = true;
            try {
                const int seq_info = job->sequence->wait();
                job->info = job->finish ? job->finish(seq_info) : seq_info;
            } catch (...) {
                job->failure = std::current_exception();
            }
        }
        if (job->failure) std::rethrow_exception(job->failure);
        if (info) *info = job->info;
    });
}

int starfact_c_job_done(const starfact_c_job* job, int32_t* done) {
    return guarded([&] {
        starfact::require(job != nullptr, "job_done", "job", "is null");
        starfact::require(done != nullptr, "job_done", "done", "is null");
        *done = (job->waited || job->sequence->done()) ? 1 : 0;
    });
}

int starfact_c_job_report(const starfact_c_job* job, starfact_c_solve_report* report) {
    return guarded([&] {
        starfact::require(job != nullptr, "job_report", "job", "is null");
        starfact::require(report != nullptr, "job_report", "report", "is null");
        starfact::require(job->has_report, "job_report", "job", "is not a mixed-precision solve (no report)");
        starfact::require(job->waited, "job_report", "job", "has not been waited for");
        starfact::capi::fill_report(job->report, report);
    });
}

void starfact_c_job_destroy(starfact_c_job* job) {
    // The Sequence's destructor waits for the tasks and swallows errors; the tiles go after it.
    delete job;
}

}  // extern "C"
