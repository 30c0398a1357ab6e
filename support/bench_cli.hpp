// Command-line pieces the CUDA benches and tuning tools share (on top of support/cli.hpp): the timing
// flags, and main's first steps (parse, then find the device).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "support/cli.hpp"

namespace starfact::support {

/// The timing flags of a bench: "--warmup N" (untimed runs, 0..max_warmup) and "--repeat N" (timed runs,
/// 1..max_repeat). Returns true if `flag` was one of them (its value is consumed).
inline bool timing_flag(Cli& cli, const std::string& flag, int& warmup, int& repeat, int max_warmup,
                        int max_repeat) {
    if (flag == "--warmup") {
        warmup = static_cast<int>(cli.integer(0, max_warmup));
    } else if (flag == "--repeat") {
        repeat = static_cast<int>(cli.integer(1, max_repeat));
    } else {
        return false;
    }
    return true;
}

/// Runs parse(argc, argv) into `out`; on an exception prints "<tool>: <what>" on stderr and returns false.
template <typename Options, typename Parse>
bool parse_command_line(const char* tool, Parse parse, int argc, char** argv, Options& out) {
    try {
        out = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool, e.what());
        return false;
    }
    return true;
}

/// Device 0's properties in `prop`; without a CUDA device prints "<tool>: <missing>" on `to` and returns
/// false.
inline bool first_cuda_device(const char* tool, cudaDeviceProp& prop, std::FILE* to, const char* missing) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(to, "%s: %s\n", tool, missing);
        return false;
    }
    const cudaError_t e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: cudaGetDeviceProperties: %s\n", tool, cudaGetErrorString(e));
        std::exit(1);
    }
    return true;
}

}  // namespace starfact::support
