// Internal: why a QR broke down, as its tasks find it (include/starfact/qr.hpp's QrBreakdown). Every task that sets
// a QR operation's info records the reason here too, first one wins: the tasks that write an info run in their
// submission order (they all access it read-write), so the reason recorded is the one of the info the Sequence returns.
// One record per factorization submitted (QRFactors::new_status), kept alive by the Sequence until its tasks complete.
#pragma once
#include <atomic>
#include <cstdint>

#include "starfact/qr.hpp"

namespace starfact::detail {

struct QrStatus {
    std::atomic<int> kind{static_cast<int>(QrBreakdown::None)};
    std::atomic<int64_t> column{0};

    /// Records a breakdown at `column` (1-based) unless one was recorded before.
    void record(QrBreakdown k, int64_t col) {
        int none = static_cast<int>(QrBreakdown::None);
        if (kind.compare_exchange_strong(none, static_cast<int>(k), std::memory_order_acq_rel)) column.store(col);
    }
    QrBreakdown breakdown() const { return static_cast<QrBreakdown>(kind.load(std::memory_order_acquire)); }
};

}  // namespace starfact::detail
