// What the C ABI's operations share: their array arguments as tiles (views of host arrays where the layout allows,
// one copy otherwise), the delivery of the results into the outputs, and the frame of every *_submit function.
#pragma once
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "capi/arrays.hpp"
#include "capi/errors.hpp"
#include "capi/job.hpp"
#include "capi/options.hpp"
#include "capi/runtime.hpp"
#include "capi/starfact_c.h"
#include "starfact/tile_matrix.hpp"

namespace starfact::capi {

/// An optional output argument (it may be absent: data null).
struct Output {
    starfact_c_matrix matrix{};
    bool present = false;
    bool on_device() const { return present && matrix.device != STARFACT_C_HOST; }
};

/// Checks the output `out` of `function` (absent when null or with null data) against the shape and dtype of `in`.
Output output_like(const char* function, const char* argument, const starfact_c_matrix* out,
                   const starfact_c_matrix& in, const char* in_name, const Runtime& rt,
                   Elements elements = Elements::Real);

/// The checked arguments of a solve with the square matrix `a` (named `a_name`) and the right-hand sides `b`; the
/// outputs a_out and b_out may be null (absent). Checks in argument order, each failure naming its argument;
/// `elements`: the element types the operation takes.
struct Call {
    int64_t n = 0;
    Output a_out, b_out;
    ParsedOptions p;
    Residency where = Residency::Host;  ///< residency_for over every array
};
Call checked_call(const char* function, const Runtime& rt, const char* a_name, const starfact_c_matrix* a,
                  const starfact_c_matrix* a_out, const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                  const starfact_c_options* options, Elements elements = Elements::Real);
/// The same for an operation on the square matrix `a` alone (potrf, potri, getrf).
Call checked_call(const char* function, const Runtime& rt, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                  const starfact_c_options* options, Elements elements = Elements::Real);

/// Where an operation's tiles live: Device when the options ask for it, or when one of `arrays` (null: none) is in
/// device memory, as the C++ array forms do, unless the mapping is CPU-only (its workers cannot reach device
/// memory); else Host.
Residency residency_for(const ParsedOptions& p, std::initializer_list<const starfact_c_matrix*> arrays);

/// Whether the memory spans of x and y (column-major extents; null, absent or empty: none) intersect.
bool overlaps(const starfact_c_matrix* x, const starfact_c_matrix* y);

/// Copies the rows x cols column-major array `from` into `to` (same shape): column by column between host arrays,
/// by cudaMemcpy2D (then settled) when either is device memory.
void copy_matrix(const starfact_c_matrix& from, const starfact_c_matrix& to);

/// Counts one copy of `bytes` made by the C ABI (starfact_c_copy_counters).
void count_copy(int64_t bytes);

/// Settles the copies into device outputs (the legacy default stream), so that they are complete for the caller's
/// streams when the wait returns.
void settle(const Output& a, const Output& b = {});

/// One matrix argument of an operation as tiles. `in` is the array read, `out` where the result goes: absent,
/// `in` itself (in place) or another array; `written`: whether the operation writes the tiles.
///
/// - Arrays are viewed where they lie (TileMatrix's view constructor: StarPU moves the tiles between the array and
///   the workers, no copy): host arrays with host-resident tiles, and device arrays with device-resident tiles
///   (their outputs in device memory too); `in` itself when it is only read or written in place, the output, after
///   one copy of `in` into it, when the result goes to another array.
/// - Otherwise the tiles are the matrix's own, holding one copy of `in`, exported into the output by deliver():
///   host arrays asked onto device-resident tiles, device arrays of a CPU-only operation, mixed host and device
///   input and output, a written input whose result is not wanted (the tiles are the operation's scratch), a
///   written array whose memory overlaps one of `others` (the other arguments' arrays, which a view would race
///   with), and an array StarPU and the kernels cannot address as a view (TileMatrix::viewable: a leading
///   dimension of 2^31 / nb or more).
///
/// `lower_only`: the operation touches only the lower triangle of tiles (Cholesky's), so a view, or tiles whose
/// upper part is never delivered to another array, register that triangle only.
template <typename T>
class ArgumentTiles {
public:
    ArgumentTiles(Runtime& rt, const starfact_c_matrix& in, const Output& out, bool written, bool lower_only,
                  int64_t nb, Residency residency, std::initializer_list<const starfact_c_matrix*> others = {})
        : out_(out) {
        nb = std::max<int64_t>(1, nb);
        const bool same = out.present && out.matrix.data == in.data && out.matrix.ld == in.ld;
        const bool host_view = residency == Residency::Host && in.device == STARFACT_C_HOST && !out.on_device();
        const bool device_view = residency == Residency::Device && in.device != STARFACT_C_HOST &&
                                 (!out.present || out.matrix.device == in.device);
        bool view = (host_view || device_view) && (!written || out.present);
        const starfact_c_matrix* target = written && out.present ? &out.matrix : &in;
        if (view && written) {
            if (!same && overlaps(&in, &out.matrix)) view = false;
            for (const starfact_c_matrix* o : others)
                if (overlaps(target, o)) view = false;
        }
        if (view && !TileMatrix<T>::viewable(target->cols, nb, target->ld)) view = false;
        TileLayout layout;
        if (view) {
            if (written && !same) {
                copy_matrix(in, out.matrix);
                count_copy(in.rows * in.cols * static_cast<int64_t>(sizeof(T)));
            }
            layout.lower_only = lower_only;
            tiles_ = std::make_unique<TileMatrix<T>>(rt, target->rows, target->cols, nb, data<T>(*target), target->ld,
                                                     layout);
            return;
        }
        // The upper tiles may be left out only when nothing of them is delivered to another array.
        layout.lower_only = lower_only && (!out.present || same);
        tiles_ = std::make_unique<TileMatrix<T>>(rt, in.rows, in.cols, nb, residency, layout);
        tiles_->import(data<T>(in), in.ld);
        // import() copies device memory with cudaMemcpy2D, on the legacy default stream, asynchronously for the
        // host: the tasks, on StarPU's streams, must not start before it has completed.
        if (in.device != STARFACT_C_HOST) settle_device_copies();
        count_copy(in.rows * in.cols * static_cast<int64_t>(sizeof(T)));
    }

    TileMatrix<T>& tiles() { return *tiles_; }
    bool is_view() const { return tiles_ && tiles_->is_view(); }

    /// Ends the argument: a view is unregistered (its array then holds what the operation wrote); the matrix's own
    /// tiles are exported into the output when `result` (the caller wants this result) and it is present. The tiles
    /// are released either way.
    void deliver(bool result) {
        if (!tiles_) return;
        if (!tiles_->is_view() && result && out_.present) {
            tiles_->export_to(data<T>(out_.matrix), out_.matrix.ld);
            count_copy(out_.matrix.rows * out_.matrix.cols * static_cast<int64_t>(sizeof(T)));
        }
        tiles_.reset();
    }

private:
    Output out_;
    std::unique_ptr<TileMatrix<T>> tiles_;
};

/// The shared tiles of an argument (the job's finish step owns them until it delivers).
template <typename T>
std::shared_ptr<ArgumentTiles<T>> argument_tiles(Runtime& rt, const starfact_c_matrix& in, const Output& out,
                                                 bool written, bool lower_only, int64_t nb, Residency residency,
                                                 std::initializer_list<const starfact_c_matrix*> others = {}) {
    return std::make_shared<ArgumentTiles<T>>(rt, in, out, written, lower_only, nb, residency, others);
}

/// The frame of every *_submit function of `function`: checks `job`, finds the runtime, runs body(rt, j) on a new
/// job j (which submits the task graph and sets j.finish) and hands the job out; a status as guarded() returns.
template <typename Body>
int submit(const char* function, starfact_c_runtime* runtime, starfact_c_job** job, Body&& body) {
    return guarded([&] {
        const KeepDevice keep;
        require(job != nullptr, function, "job", "is null");
        *job = nullptr;
        Runtime& rt = runtime_of(runtime, function);
        auto j = new_job(rt);
        body(rt, *j);
        *job = j.release();
    });
}

}  // namespace starfact::capi
