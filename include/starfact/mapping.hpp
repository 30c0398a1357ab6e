// Where tasks may run. Orthogonal to the scheduler (StarPU's choice among allowed workers).
#pragma once
#include <string>

namespace starfact {

enum class Mapping {
    GpuOnly,  ///< every task on CUDA workers
    Hybrid,   ///< StarPU chooses among CPU and CUDA workers per task
    CpuOnly,  ///< every task on CPU workers
};

/// "gpu-only", "hybrid", "cpu-only".
const char* to_string(Mapping m);
/// Parses the names above; throws InvalidArgument naming `argument` otherwise.
Mapping parse_mapping(const std::string& text, const char* argument = "mapping");

/// Where the tiles of a TileMatrix live between tasks (their StarPU home node).
enum class Residency {
    Host,    ///< pinned host memory; StarPU moves tiles to GPUs as tasks need them
    Device,  ///< memory of the CUDA device(s); a GPU-only run never touches the host
};

const char* to_string(Residency r);

}  // namespace starfact
