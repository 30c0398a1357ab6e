// TileMatrix's memory: the check that a matrix fits before anything is allocated (host tiles, StarPU handles and
// bookkeeping against the host memory available, device tiles against each device's), and the bytes it stores.
#include <complex>
#include <string>
#include <vector>

#include "runtime/memory.hpp"
#include "runtime/tile_limits.hpp"
#include "starfact/error.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {
namespace {

using detail::kBookkeepingBytes;
using detail::kHandleBytes;

/// Entries of the tiles one process stores, counted without visiting the tiles: tile (i, j) is stored when it is
/// owned (i mod p = pr and j mod q = pc) and, with lower_only, when i >= j. O(1), or O(nt / q) with lower_only.
/// False when the count does not fit in 64 bits.
struct Extent {
    int64_t m, n, nb, mt, nt;
    int p, q, pr, pc;
    bool lower;

    /// Rows of the owned tile rows i >= lo.
    uint64_t rows_from(int64_t lo) const {
        if (lo >= mt) return 0;
        const int64_t first = lo + ((pr - lo % p) % p + p) % p;
        if (first >= mt) return 0;
        const uint64_t count = static_cast<uint64_t>((mt - 1 - first) / p + 1);
        uint64_t rows = count * static_cast<uint64_t>(nb);  // <= (m + nb - 1): no overflow
        if ((mt - 1) % p == pr) rows -= static_cast<uint64_t>(nb - (m - (mt - 1) * nb));  // the short last tile row
        return rows;
    }
    /// Columns of the owned tile columns.
    uint64_t cols() const {
        if (pc >= nt) return 0;
        const uint64_t count = static_cast<uint64_t>((nt - 1 - pc) / q + 1);
        uint64_t cols = count * static_cast<uint64_t>(nb);
        if ((nt - 1) % q == pc) cols -= static_cast<uint64_t>(nb - (n - (nt - 1) * nb));
        return cols;
    }
    uint64_t cols_of(int64_t j) const { return static_cast<uint64_t>(j == nt - 1 ? n - j * nb : nb); }

    bool entries(uint64_t* out) const {
        if (!lower) return detail::checked_mul(rows_from(0), cols(), out);
        uint64_t total = 0, term = 0;
        for (int64_t j = pc; j < nt; j += q)
            if (!detail::checked_mul(cols_of(j), rows_from(j), &term) || !detail::checked_add(total, term, &total))
                return false;
        *out = total;
        return true;
    }
};

/// What StarPU may still allocate on the CUDA memory node `node`: the device's free memory, or less when StarPU's
/// own allowance there (STARPU_LIMIT_CUDA_MEM) is smaller. `source` says which.
uint64_t device_room(unsigned node, std::string* source) {
    uint64_t room = detail::device_free_memory(starpu_memory_node_get_devid(node));
    *source = "free on the device (cudaMemGetInfo)";
    const starpu_ssize_t allowance = starpu_memory_get_available(node);
    if (allowance >= 0 && static_cast<uint64_t>(allowance) < room) {
        room = static_cast<uint64_t>(allowance);
        *source = "left of StarPU's allowance there (STARPU_LIMIT_CUDA_MEM)";
    }
    return room;
}

}  // namespace

template <typename T>
void TileMatrix<T>::check_memory() const {
    const auto mt = static_cast<uint64_t>(mt_), nt = static_cast<uint64_t>(nt_);
    const std::string what = "starfact::TileMatrix: a " + std::to_string(m_) + " x " + std::to_string(n_) +
                             " matrix of " + std::to_string(sizeof(T)) + "-byte entries in " + std::to_string(nb_) +
                             " x " + std::to_string(nb_) + " tiles";
    const detail::HostMemory host = detail::host_memory();
    const std::string available =
        host.limited_by.empty() ? " (no limit known)"
                                : ", but " + detail::bytes_text(host.bytes) + " are available (" + host.limited_by + ")";
    const long double entry_bytes = static_cast<long double>(m_) * static_cast<long double>(n_) * sizeof(T);

    uint64_t tiles = 0;
    if (!detail::checked_mul(mt, nt, &tiles) || tiles > static_cast<uint64_t>(INT64_MAX))  // tile indices are int64_t
        throw RuntimeError(what + " has " + std::to_string(mt) + " x " + std::to_string(nt) +
                           " tiles, more than a 64-bit size can count: it would need " + detail::bytes_text(entry_bytes) +
                           " of host memory for its entries alone" + available);
    // Every tile has its bookkeeping slots; every stored one (also another rank's) a StarPU handle.
    const uint64_t stored = layout_.lower_only ? (tiles + mt) / 2 : tiles;  // mt == nt: mt (mt + 1) / 2
    uint64_t slots = 0, handles = 0, overhead = 0;
    if (!detail::checked_mul(tiles, kBookkeepingBytes, &slots) || !detail::checked_mul(stored, kHandleBytes, &handles) ||
        !detail::checked_add(slots, handles, &overhead))
        throw RuntimeError(what + " would need " +
                           detail::bytes_text(static_cast<long double>(tiles) * kBookkeepingBytes +
                                              static_cast<long double>(stored) * kHandleBytes) +
                           " of host memory for the StarPU handles and bookkeeping of its " + std::to_string(tiles) +
                           " tiles alone" + available);
    const std::string overhead_text =
        detail::bytes_text(overhead) + " for the StarPU handles and bookkeeping of its " + std::to_string(tiles) + " tiles";
    // lower_only counts its entries column by column: refuse first what cannot fit whatever they come to.
    if (layout_.lower_only && overhead > host.bytes)
        throw RuntimeError(what + " needs at least " + detail::bytes_text(overhead) + " of host memory (" +
                           overhead_text + ")" + available);

    const int rank = distributed() ? runtime_->mpi_rank() : 0;
    const Grid& g = layout_.grid;
    const Extent extent{m_, n_, nb_, mt_, nt_, g.p, g.q, rank / g.q, rank % g.q, layout_.lower_only};
    uint64_t entries = 0, data = 0;
    if (!extent.entries(&entries) || !detail::checked_mul(entries, sizeof(T), &data))
        throw RuntimeError(what + " would need " + detail::bytes_text(entry_bytes) + " for its entries" + available);
    // Views and workspaces allocate no tiles: only their bookkeeping and handles count here.
    const uint64_t host_data = residency_ == Residency::Host && kind_ == Kind::Owned ? data : 0;
    uint64_t host_need = 0;
    if (!detail::checked_add(overhead, host_data, &host_need) || host_need > host.bytes)
        throw RuntimeError(what + " needs " +
                           detail::bytes_text(static_cast<long double>(overhead) + static_cast<long double>(host_data)) +
                           " of host memory (" +
                           (residency_ == Residency::Host
                                ? detail::bytes_text(host_data) + " for the tiles this process stores, "
                                : std::string()) +
                           overhead_text + ")" + available);

    if (residency_ != Residency::Device || data == 0 || kind_ != Kind::Owned) return;
    // Device-resident tiles: the bytes each device receives against what is free there.
    const auto& gpus = runtime_->cuda_memory_nodes();
    const int ndev = static_cast<int>(gpus.size());
    std::vector<uint64_t> per_device(gpus.size(), 0);
    for (int64_t j = extent.pc; j < nt_; j += g.q)
        for (int64_t i = layout_.lower_only ? j : 0; i < mt_; ++i)
            if (local(i, j))
                per_device[static_cast<size_t>(device_of(i / g.p, j / g.q, layout_.placement, device_grid_, ndev))] +=
                    static_cast<uint64_t>(tile_rows(i) * tile_cols(j)) * sizeof(T);
    for (size_t d = 0; d < gpus.size(); ++d) {
        std::string source;
        const uint64_t room = device_room(gpus[d], &source);
        if (per_device[d] > room)
            throw RuntimeError(what + " needs " + detail::bytes_text(per_device[d]) + " on CUDA device " +
                               std::to_string(starpu_memory_node_get_devid(gpus[d])) + " (StarPU memory node " +
                               std::to_string(gpus[d]) + ") for the tiles placed there, but " +
                               detail::bytes_text(room) + " are " + source);
    }
}

template <typename T>
size_t TileMatrix<T>::stored_bytes() const {
    require_alive("TileMatrix::stored_bytes");
    const int rank = distributed() ? runtime_->mpi_rank() : 0;
    const Grid& g = layout_.grid;
    uint64_t entries = 0;
    // The constructor checked that these bytes fit in memory: no overflow here.
    Extent{m_, n_, nb_, mt_, nt_, g.p, g.q, rank / g.q, rank % g.q, layout_.lower_only}.entries(&entries);
    return static_cast<size_t>(entries) * sizeof(T);
}

template void TileMatrix<float>::check_memory() const;
template void TileMatrix<double>::check_memory() const;
template size_t TileMatrix<float>::stored_bytes() const;
template size_t TileMatrix<double>::stored_bytes() const;
template void TileMatrix<std::complex<float>>::check_memory() const;
template void TileMatrix<std::complex<double>>::check_memory() const;
template size_t TileMatrix<std::complex<float>>::stored_bytes() const;
template size_t TileMatrix<std::complex<double>>::stored_bytes() const;

}  // namespace starfact
