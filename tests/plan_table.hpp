// The table of calls the plan tests walk through every door: tests/test_plan.cpp through the C++ doors, checking
// each row's plan against tests/plan_table.txt, whose rows python/tests/test_plan.py walks through the C ABI's door
// from Python. Every operation, orders at the edges of the tuned tables, host and device residency, the three
// mappings, the element precisions and the factorization arithmetics.
#pragma once
#include <cstdint>
#include <vector>

#include "starfact/plan.hpp"

namespace starfact::test {

struct PlanRow {
    Operation op;
    Precision element;
    int64_t m, n, nrhs;
    Mapping mapping;
    Residency residency;
    Precision factor;
};

/// The rows for `machine`: n = 1, n < nb, n % nb != 0, 8192, 16384 (tall and skinny QR below 512 columns) for
/// each operation, the double posv and gesv also in the lower factor precisions (refined or not, as the plan says); a machine without GPU leaves out the GPU-only mapping (no worker could run it).
inline std::vector<PlanRow> plan_table(const Machine& machine) {
    std::vector<PlanRow> rows;
    const Operation ops[] = {Operation::Potrf, Operation::Potrs, Operation::Posv,  Operation::Potri, Operation::Getrf,
                             Operation::Getrs, Operation::Gesv,  Operation::Geqrf, Operation::Gels};
    for (Operation op : ops)
        for (int64_t n : {int64_t(1), int64_t(100), int64_t(3001), int64_t(8192), int64_t(16384)})
            for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid, Mapping::CpuOnly}) {
                if (mapping == Mapping::GpuOnly && !machine.gpu()) continue;
                for (Residency residency : {Residency::Host, Residency::Device})
                    for (Precision element : {Precision::Fp64, Precision::Fp32}) {
                        const bool qr = op == Operation::Geqrf || op == Operation::Gels;
                        const bool solve = op == Operation::Potrs || op == Operation::Posv ||
                                           op == Operation::Getrs || op == Operation::Gesv || op == Operation::Gels;
                        const int64_t m = qr && n <= 512 ? 40 * n + 7 : n;  // QR: tall and skinny below 512
                        rows.push_back({op, element, m, n, solve ? 3 : 0, mapping, residency, Precision::Native});
                        if ((op == Operation::Posv || op == Operation::Gesv) && element == Precision::Fp64)
                            for (Precision f : {Precision::Fp32, Precision::Tf32, Precision::Bf16})
                                rows.push_back({op, element, m, n, 3, mapping, residency, f});
                    }
            }
    return rows;
}

/// The machines: one GPU with four streams and eight CPU workers, and eight CPU workers without GPU.
inline std::vector<Machine> plan_machines() { return {Machine{8, 4, 1}, Machine{8, 0, 0}}; }

}  // namespace starfact::test
