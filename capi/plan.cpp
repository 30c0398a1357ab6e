// The C ABI's door to the plan: plan_of for the submits, and starfact_c_plan, the plan of a call without running it.
#include "capi/plan.hpp"

#include <cstring>
#include <string>

#include "capi/arrays.hpp"
#include "capi/errors.hpp"
#include "capi/runtime.hpp"
#include "capi/starfact_c.h"
#include "capi/tiles.hpp"  // residency_for
#include "starfact/error.hpp"
#include "starfact/runtime.hpp"

namespace starfact::capi {

Precision element_of(int32_t dtype) {
    switch (dtype) {
        case STARFACT_C_FLOAT32: return Precision::Fp32;
        case STARFACT_C_COMPLEX64: return Precision::C64;
        case STARFACT_C_COMPLEX128: return Precision::C128;
    }
    return Precision::Fp64;
}

Plan plan_of(Operation op, int32_t dtype, int64_t m, int64_t n, int64_t nrhs, const ParsedOptions& p, Residency where,
             const Machine& machine, bool always_low) {
    Request r;
    r.op = op;
    r.element = element_of(dtype);
    r.m = m;
    r.n = n;
    r.nrhs = nrhs;
    r.options = p.options;
    r.tiling = p.tiling;
    r.tiling.residency = where;
    r.tree = p.tree;
    r.ib = p.ib;
    r.always_low = always_low;
    return plan(r, machine);
}

}  // namespace starfact::capi

using namespace starfact;
using namespace starfact::capi;

extern "C" {

int starfact_c_plan(starfact_c_runtime* runtime, const starfact_c_machine* machine, const char* op,
                    const starfact_c_matrix* a, const starfact_c_matrix* b, const starfact_c_options* options,
                    const starfact_c_refinement* refinement, char* buf, size_t len) {
    return guarded([&] {
        require(op != nullptr, "plan", "op", "is null");
        const Operation o = parse_operation(op, "op");
        require(a != nullptr, "plan", "a", "is null");
        require_dtype("plan", "a", a->dtype, elements_of(o), op);
        require(a->rows >= 0 && a->cols >= 0, "plan", "a", "has a negative shape");
        const bool qr = o == Operation::Geqrf || o == Operation::Gels;
        require(qr || a->rows == a->cols, "plan", "a",
                "must be square for " + std::string(op) + " (got " + std::to_string(a->rows) + " x " +
                    std::to_string(a->cols) + ")");
        const bool solve = o == Operation::Potrs || o == Operation::Posv || o == Operation::Getrs ||
                           o == Operation::Gesv || o == Operation::Gels;
        require(!solve || b != nullptr, "plan", "b", "is null (" + std::string(op) + " solves with it)");
        if (solve)
            require(b->rows == (o == Operation::Gels ? std::max(a->rows, a->cols) : a->rows) && b->cols >= 0, "plan",
                    "b", "has " + std::to_string(b->rows) + " rows, which does not match a");
        require(buf != nullptr || len == 0, "plan", "buf", "is null");
        Machine mc;
        if (machine != nullptr) {
            require(machine->cpu_workers >= 0 && machine->cuda_workers >= 0 && machine->cuda_devices >= 0, "plan",
                    "machine", "must have counts >= 0");
            mc = {machine->cpu_workers, machine->cuda_workers, machine->cuda_devices};
        } else {
            mc = Machine::of(runtime_of(runtime, "plan"));
        }
        const ParsedOptions p = parse_options("plan", options);
        const Residency where = residency_for(p, {a, solve ? b : nullptr});
        const bool always_low = refinement != nullptr && refinement->always_low != 0;
        const std::string line =
            plan_of(o, a->dtype, a->rows, a->cols, solve ? b->cols : 0, p, where, mc, always_low).to_string();
        if (len > 0) {
            const size_t k = std::min(len - 1, line.size());
            std::memcpy(buf, line.data(), k);
            buf[k] = '\0';
        }
    });
}

}  // extern "C"
