// A CUDA injection library that records every kernel, copy and memset of a process with CUPTI's activity API, for
// the GPU machine, where Nsight Systems cannot import its reports: load it with
//   TRACE_OUT=t.csv CUDA_INJECTION64_PATH=/path/libkernel_trace.so starpu_qr ...
// It writes one line per activity, "K|M|S,start_ns,end_ns,stream,name" (kernels by their mangled name, copies as
// copy<kind>_<bytes>: 1 host to device, 2 device to host, 8 device to device), in the order CUPTI delivers its
// buffers (not sorted). tools/kernel_trace/timeline.py summarises the file (tools/README.md).
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

FILE* out = nullptr;
std::mutex lock;

void CUPTIAPI request_buffer(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(16) << 20;
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_done(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* record = nullptr;
    std::lock_guard<std::mutex> hold(lock);
    while (out && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel9*>(record);
            std::fprintf(out, "K,%llu,%llu,%u,%s\n", static_cast<unsigned long long>(k->start),
                         static_cast<unsigned long long>(k->end), k->streamId, k->name);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy5*>(record);
            std::fprintf(out, "M,%llu,%llu,%u,copy%d_%llu\n", static_cast<unsigned long long>(m->start),
                         static_cast<unsigned long long>(m->end), m->streamId, static_cast<int>(m->copyKind),
                         static_cast<unsigned long long>(m->bytes));
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            std::fprintf(out, "S,%llu,%llu,%u,memset\n", static_cast<unsigned long long>(m->start),
                         static_cast<unsigned long long>(m->end), m->streamId);
        }
    }
    std::free(buffer);
}

void finish() {
    cuptiActivityFlushAll(1);
    std::lock_guard<std::mutex> hold(lock);
    if (out) std::fclose(out);
    out = nullptr;
}

}  // namespace

/// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
extern "C" int InitializeInjection() {
    const char* path = std::getenv("TRACE_OUT");
    out = std::fopen(path ? path : "kernel_trace.csv", "w");
    if (!out) {
        std::fprintf(stderr, "kernel_trace: cannot write %s\n", path ? path : "kernel_trace.csv");
        return 0;
    }
    cuptiActivityRegisterCallbacks(request_buffer, buffer_done);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    std::atexit(finish);
    return 1;
}
