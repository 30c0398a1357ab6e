// TileMatrix: tile allocation (pinned host or CUDA device), StarPU (and StarPU-MPI) registration of owned tiles,
// views of a caller's array and workspaces, and their release. Memory checks: tile_memory.cpp; import and export:
// tile_transfer.cpp; layouts' grids: tile_grid.cpp; limits: tile_limits.hpp.
#include "starfact/tile_matrix.hpp"

#include <algorithm>
#include <complex>
#include <new>
#include <string>

#include "runtime/memory.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/tile_limits.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include "runtime/cuda_contexts.hpp"
#endif

namespace starfact {

using detail::kBookkeepingBytes;

template <typename T>
int64_t TileMatrix<T>::checked_order(int64_t n) {
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    return n;
}

template <typename T>
void TileMatrix<T>::require_alive(const char* function) const {
    if (!membership_ || !membership_->alive())
        throw RuntimeError(std::string("starfact::") + function +
                           ": the Runtime this TileMatrix belongs to was destroyed (a TileMatrix must be destroyed "
                           "before its Runtime; the Runtime released its tiles, and it cannot be used any more)");
}

template <typename T>
Runtime& TileMatrix<T>::runtime() const {
    require_alive("TileMatrix::runtime");
    return *runtime_;
}

template <typename T>
int TileMatrix<T>::home_node(int64_t i, int64_t j) const {
    require_alive("TileMatrix::home_node");
    return local(i, j) && kind_ != Kind::Workspace ? static_cast<int>(home_[i + j * mt_]) : -1;
}

template <typename T>
void TileMatrix<T>::missing_tile(int64_t i, int64_t j) const {
    require_alive("TileMatrix::tile");  // the Runtime's destructor released every tile
    throw InvalidArgument("TileMatrix::tile", "j",
                          "names tile (" + std::to_string(i) + ", " + std::to_string(j) +
                              "), above the diagonal of a lower_only matrix: it is not stored");
}

template <typename T>
bool TileMatrix<T>::local(int64_t i, int64_t j) const {
    return stored(i, j) && (!distributed() || owner(i, j) == runtime_->mpi_rank());
}

template <typename T>
template <typename Body>
void TileMatrix<T>::build(unsigned home, Body body) {
    // From here on a constructor that throws leaves the Runtime's registry and gives back what it registered (its
    // destructor does not run).
    struct Abandon {
        TileMatrix* self;
        ~Abandon() {
            if (self && self->membership_ && self->membership_->leave()) {
                self->release();
                self->membership_->left();
            }
        }
    } abandon{this};
    try {
        membership_ = std::make_unique<detail::Membership>(
            *runtime_, this, [](void* self) noexcept { static_cast<TileMatrix*>(self)->release(); });
        handles_.assign(static_cast<size_t>(mt_ * nt_), nullptr);
        storage_.assign(static_cast<size_t>(mt_ * nt_), nullptr);
        home_.assign(static_cast<size_t>(mt_ * nt_), home);
    } catch (const std::bad_alloc&) {
        throw RuntimeError("starfact::TileMatrix: out of host memory for the bookkeeping of the " +
                           std::to_string(mt_ * nt_) + " tiles of a " + std::to_string(m_) + " x " + std::to_string(n_) +
                           " matrix (nb " + std::to_string(nb_) + ", " +
                           detail::bytes_text(static_cast<uint64_t>(mt_ * nt_) * kBookkeepingBytes) + ")");
    }
    body();
    abandon.self = nullptr;
}

template <typename T>
TileMatrix<T>::TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, Residency residency,
                          const TileLayout& layout)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), residency_(residency), layout_(layout) {
    if (layout.grid.ranks() > 1)  // every rank, before any check that one rank could fail alone (docs/mpi.md)
        detail::agree(runtime, "TileMatrix",
                      {{"n", n}, {"m", m}, {"nb", nb}, {"grid", layout.grid}, {"lower_only", layout.lower_only},
                       {"precision (bytes per entry)", static_cast<int64_t>(sizeof(T))}});
    require(m >= 0, "TileMatrix", "m", "must be >= 0 (got " + std::to_string(m) + ")");
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(nb > 0, "TileMatrix", "nb", "must be > 0 (got " + std::to_string(nb) + ")");
    require(nb <= (1 << 20), "TileMatrix", "nb", "must be <= 2^20 (got " + std::to_string(nb) + ")");
    require(residency == Residency::Host || runtime.cuda_devices() > 0, "TileMatrix", "residency",
            "is device but the runtime has no CUDA device");
    const Grid& g = layout.grid;
    const std::string grid_text = std::to_string(g.p) + " x " + std::to_string(g.q);
    require(g.p >= 1 && g.q >= 1, "TileMatrix", "layout", "grid must be at least 1 x 1 (got " + grid_text + ")");
    require(g.ranks() == 1 || runtime.mpi(), "TileMatrix", "layout",
            "grid " + grid_text + " needs a Runtime started with RuntimeConfig::mpi" +
                (built_with_mpi() ? "" : " (and this build of starfact has no MPI)"));
    require(g.ranks() == 1 || g.ranks() == runtime.mpi_size(), "TileMatrix", "layout",
            "grid " + grid_text + " has " + std::to_string(g.ranks()) + " process(es) but the Runtime has " +
                std::to_string(runtime.mpi_size()) + " MPI rank(s)");
    require(!layout.lower_only || m == n, "TileMatrix", "layout",
            "lower_only needs a square matrix (got " + std::to_string(m) + " x " + std::to_string(n) + ")");
    detail::require_tile_grid("TileMatrix", m, n, nb);
    mt_ = m / nb + (m % nb != 0);  // not (m + nb - 1) / nb, which overflows near INT64_MAX
    nt_ = n / nb + (n % nb != 0);
    const int ndev = residency == Residency::Device ? runtime.cuda_devices() : 1;
    // (the tiles this process holds: a rank's local tile rows and columns)
    device_grid_ = residency == Residency::Device
                       ? resolve_device_grid(layout.placement, layout.device_grid, ndev, "TileMatrix", "layout",
                                             (mt_ + g.p - 1) / g.p, (nt_ + g.q - 1) / g.q)
                       : Grid{};
    check_memory();  // before anything is allocated: Linux's overcommit would accept what it cannot back
    build(STARPU_MAIN_RAM, [&] {
        // Distributed: tags tag0 + i + j * mt, the same on every rank (every rank builds its matrices in the same order).
        const int64_t tag0 = distributed() ? detail::reserve_tags(runtime, mt_ * nt_) : 0;
        const auto& gpus = runtime.cuda_memory_nodes();
        auto out_of_memory = [&](const std::string& asked) {
            release();
            throw RuntimeError("starfact::TileMatrix: out of " +
                               std::string(residency == Residency::Host ? "host" : "device") + " memory: " + asked +
                               " of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix of " +
                               std::to_string(sizeof(T)) + "-byte entries (nb " + std::to_string(nb) + ", " +
                               std::to_string(stored_bytes()) + " bytes for the tiles this process stores)");
        };
        // A device tile of one process keeps its columns 256-byte aligned: its leading dimension is its row count
        // rounded up to kDeviceLdMultiple entries (an odd order factored as one tile ran 12-18 % slower with every
        // column misaligned for the tensor-core kernels; docs/performance.md). Host tiles and distributed ones (MPI
        // sends them as contiguous buffers) are dense.
        const bool padded_ld = residency == Residency::Device && !distributed();
        auto tile_ld = [&](int64_t i) {
            const int64_t r = tile_rows(i);
            const int64_t up = (r + detail::kDeviceLdMultiple - 1) / detail::kDeviceLdMultiple * detail::kDeviceLdMultiple;
            // (never past what a tile's int offsets address: kMaxViewSpan)
            return padded_ld && up * std::max<int64_t>(1, std::min(nb, n)) <= detail::kMaxViewSpan ? up : r;
        };
        auto tile_bytes = [&](int64_t i, int64_t j) { return static_cast<size_t>(tile_ld(i) * tile_cols(j)) * sizeof(T); };
        constexpr size_t kAlign = 512;  // each tile of a slab starts on a 512-byte boundary
        auto padded = [&](size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; };
        if (residency == Residency::Device) {
            // Every local tile's device (local coordinates: a distributed rank's own tiles are every grid.p-th row and
            // grid.q-th column), then one slab per device.
            std::vector<size_t> need(gpus.size(), 0);
            for (int64_t j = 0; j < nt_; ++j)
                for (int64_t i = 0; i < mt_; ++i) {
                    if (!stored(i, j) || !local(i, j)) continue;
                    const int d = device_of(i / g.p, j / g.q, layout.placement, device_grid_, static_cast<int>(gpus.size()));
                    home_[i + j * mt_] = gpus[static_cast<size_t>(d)];
                    need[static_cast<size_t>(d)] += padded(tile_bytes(i, j));
                }
            std::vector<uintptr_t> next(gpus.size(), 0);
            for (size_t d = 0; d < gpus.size(); ++d) {
                if (need[d] == 0) continue;
                const uintptr_t base = starpu_malloc_on_node(gpus[d], need[d]);
                if (!base)
                    out_of_memory(std::to_string(need[d]) + " bytes asked for the tiles on CUDA device " + std::to_string(d));
                slabs_.push_back(Slab{gpus[d], base, need[d]});
                next[d] = base;
            }
            for (int64_t j = 0; j < nt_; ++j)
                for (int64_t i = 0; i < mt_; ++i) {
                    if (!stored(i, j) || !local(i, j)) continue;
                    const int64_t idx = i + j * mt_;
                    size_t d = 0;
                    while (gpus[d] != home_[idx]) ++d;
                    storage_[idx] = reinterpret_cast<void*>(next[d]);
                    next[d] += padded(tile_bytes(i, j));
                }
        }
        for (int64_t j = 0; j < nt_; ++j) {
            for (int64_t i = 0; i < mt_; ++i) {
                if (!stored(i, j)) continue;
                const int64_t idx = i + j * mt_, rows = tile_rows(i), cols = tile_cols(j);
                if (!local(i, j)) {
                    // Another rank's tile: no storage here; StarPU allocates a copy when one is received.
                    starpu_matrix_data_register(&handles_[idx], -1, 0, static_cast<uint32_t>(rows),
                                                static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), sizeof(T));
                    detail::mpi_register(handles_[idx], tag0 + idx, owner(i, j));
                    continue;
                }
                if (residency == Residency::Host) {
                    void* p = nullptr;
                    if (starpu_malloc_flags(&p, tile_bytes(i, j), STARPU_MALLOC_PINNED) != 0 || !p)
                        out_of_memory(std::to_string(tile_bytes(i, j)) + " bytes asked for tile (" + std::to_string(i) +
                                      "," + std::to_string(j) + ")");
                    storage_[idx] = p;
                }
                starpu_matrix_data_register(&handles_[idx], static_cast<int>(home_[idx]),
                                            reinterpret_cast<uintptr_t>(storage_[idx]), static_cast<uint32_t>(tile_ld(i)),
                                            static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), sizeof(T));
                if (distributed()) detail::mpi_register(handles_[idx], tag0 + idx, owner(i, j));
            }
        }
    });
}

namespace {

/// Where a caller's array lives: host memory (RAM node), or the CUDA memory node of the device holding it. Throws
/// InvalidArgument naming 'data' for device memory of a device the Runtime does not drive. Managed memory counts
/// as host memory (the host can read it, and CUDA copies from it).
unsigned array_node(const Runtime& runtime, const void* data, const char* function, const char* argument) {
#ifdef STARFACT_HAVE_CUDA
    if (runtime.cuda_devices() > 0 && data) {
        cudaPointerAttributes attr{};
        if (cudaPointerGetAttributes(&attr, data) != cudaSuccess) {
            cudaGetLastError();
            return STARPU_MAIN_RAM;
        }
        if (attr.type != cudaMemoryTypeDevice) return STARPU_MAIN_RAM;
        for (unsigned node : runtime.cuda_memory_nodes())
            if (starpu_memory_node_get_devid(node) == attr.device) return node;
        throw InvalidArgument(function, argument,
                              "is memory of CUDA device " + std::to_string(attr.device) +
                                  ", which this Runtime does not drive (" + runtime.describe() + ")");
    }
#else
    (void)runtime;
    (void)data;
    (void)function;
    (void)argument;
#endif
    return STARPU_MAIN_RAM;
}

/// Waits for the work queued on CUDA device `device` (every stream), keeping the calling thread's current device.
void settle_device(int device) {
#ifdef STARFACT_HAVE_CUDA
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) current = -1;
    const bool other = current != device;
    if (other && cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        throw RuntimeError("starfact::TileMatrix: cannot select CUDA device " + std::to_string(device));
    }
    const cudaError_t e = cudaDeviceSynchronize();
    if (other && current >= 0) cudaSetDevice(current);
    if (e != cudaSuccess)
        throw RuntimeError(std::string("starfact::TileMatrix: the work queued on the array's device failed: ") +
                           cudaGetErrorString(e));
#else
    (void)device;
#endif
}

}  // namespace

Residency residency_of(const Runtime& runtime, const void* data, const char* function, const char* argument) {
    return array_node(runtime, data, function, argument) == STARPU_MAIN_RAM ? Residency::Host : Residency::Device;
}

template <typename T>
TileMatrix<T>::TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, T* data, int64_t ld,
                          const TileLayout& layout)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), residency_(Residency::Host), layout_(layout), kind_(Kind::View) {
    // (the checks before any registration: a constructor that throws leaves nothing behind)
    require(m >= 0, "TileMatrix", "m", "must be >= 0 (got " + std::to_string(m) + ")");
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(nb > 0, "TileMatrix", "nb", "must be > 0 (got " + std::to_string(nb) + ")");
    require(nb <= (1 << 20), "TileMatrix", "nb", "must be <= 2^20 (got " + std::to_string(nb) + ")");
    require(ld >= std::max<int64_t>(1, m), "TileMatrix", "ld",
            "must be >= max(1, m) = " + std::to_string(std::max<int64_t>(1, m)) + " (got " + std::to_string(ld) + ")");
    detail::require_array_extent("TileMatrix", "ld", m, n, ld, sizeof(T));
    const bool empty = m == 0 || n == 0;
    require(data != nullptr || empty, "TileMatrix", "data", "is null");
    require(layout.grid.ranks() == 1, "TileMatrix", "layout",
            "a view of an array is not distributed (grid must be 1 x 1, got " + std::to_string(layout.grid.p) + " x " +
                std::to_string(layout.grid.q) + ")");
    require(!layout.lower_only || m == n, "TileMatrix", "layout",
            "lower_only needs a square matrix (got " + std::to_string(m) + " x " + std::to_string(n) + ")");
    detail::require_tile_grid("TileMatrix", m, n, nb);
    require(viewable(n, nb, ld), "TileMatrix", "ld", [&] {
        const int64_t cols = std::max<int64_t>(1, std::min(nb, n));
        return "= " + std::to_string(ld) + " cannot be viewed in tiles of " + std::to_string(cols) +
               " columns: a view tile must span ld * columns < 2^31 entries, what StarPU 1.3's matrix interface "
               "(a 32-bit leading dimension) and the kernels (int leading dimensions and offsets) address, with a "
               "pitch ld * " + std::to_string(sizeof(T)) + " < 2^31 bytes, what CUDA's 2D copies take. Copy the "
               "array into a TileMatrix of its own with import() and back with export_to(), as the array forms do "
               "(TileMatrix::viewable says which arrays a view takes)";
    });
    // The array's memory node: host memory, or the CUDA node of the device holding it (whose work queued before
    // this call is finished first: StarPU's streams do not wait for the caller's).
    const unsigned node = empty ? STARPU_MAIN_RAM : array_node(runtime, data, "TileMatrix", "data");
    if (node != STARPU_MAIN_RAM) {
        residency_ = Residency::Device;
        settle_device(starpu_memory_node_get_devid(node));
    }
    device_grid_ = Grid{};
    mt_ = m / nb + (m % nb != 0);
    nt_ = n / nb + (n % nb != 0);
    check_memory();
    register_unowned(static_cast<int>(node), reinterpret_cast<uintptr_t>(data), ld);
}

template <typename T>
TileMatrix<T>::TileMatrix(detail::WorkspaceTiles, Runtime& runtime, int64_t m, int64_t n, int64_t nb,
                          const TileLayout& layout)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), residency_(Residency::Host), layout_(layout), kind_(Kind::Workspace) {
    // A distributed workspace (the distributed QR's T factors): its callers agreed on it and checked its grid.
    const int ranks = layout.grid.ranks();
    require(m >= 0 && n >= 0 && nb > 0 && nb <= (1 << 20) && layout.grid.p >= 1 && layout.grid.q >= 1 &&
                (ranks == 1 || (runtime.mpi() && ranks == runtime.mpi_size())) && (!layout.lower_only || m == n),
            "TileMatrix", "workspace",
            "has an unusable shape (" + std::to_string(m) + " x " + std::to_string(n) + ", nb " + std::to_string(nb) +
                ") or layout");
    detail::require_tile_grid("TileMatrix", m, n, nb);
    device_grid_ = Grid{};
    mt_ = m / nb + (m % nb != 0);
    nt_ = n / nb + (n % nb != 0);
    check_memory();
    register_unowned(-1, 0, 0);
}

template <typename T>
bool TileMatrix<T>::viewable(int64_t n, int64_t nb, int64_t ld) {
    const int64_t cols = std::max<int64_t>(1, std::min(nb, n));
    return ld >= 1 && nb >= 1 && ld <= detail::kMaxViewSpan / cols &&
           ld <= detail::kMaxCopyPitch / static_cast<int64_t>(sizeof(T));
}

template <typename T>
void TileMatrix<T>::register_unowned(int home, uintptr_t base, int64_t ld) {
    // A view's leading dimension reaches StarPU's 32-bit field and the kernels' ints unchanged: the constructor
    // took only viewable() arrays.
    if (home >= 0 && !viewable(n_, nb_, ld))
        throw RuntimeError("starfact::TileMatrix: internal error: a view of leading dimension " + std::to_string(ld) +
                           " reached registration");
    build(home < 0 ? STARPU_MAIN_RAM : static_cast<unsigned>(home), [&] {
        // A distributed workspace: tags as an owned matrix's; every rank's tiles have no home, the owner's copy is
        // allocated by the first task that writes it there.
        const int64_t tag0 = distributed() ? detail::reserve_tags(*runtime_, mt_ * nt_) : 0;
        for (int64_t j = 0; j < nt_; ++j)
            for (int64_t i = 0; i < mt_; ++i) {
                if (!stored(i, j)) continue;
                const int64_t idx = i + j * mt_;
                const auto rows = static_cast<uint32_t>(tile_rows(i)), cols = static_cast<uint32_t>(tile_cols(j));
                if (home < 0) {
                    starpu_matrix_data_register(&handles_[idx], -1, 0, rows, rows, cols, sizeof(T));
                    if (distributed()) detail::mpi_register(handles_[idx], tag0 + idx, owner(i, j));
                    continue;
                }
                const uintptr_t p = base + static_cast<uintptr_t>(i * nb_ + j * nb_ * ld) * sizeof(T);
                storage_[idx] = reinterpret_cast<void*>(p);
                starpu_matrix_data_register(&handles_[idx], home, p, static_cast<uint32_t>(ld), rows, cols, sizeof(T));
            }
    });
}

template <typename T>
std::pair<T*, int64_t> TileMatrix<T>::tile_on(int64_t idx, unsigned node) const {
    auto* m = static_cast<starpu_matrix_interface*>(starpu_data_get_interface_on_node(handles_[idx], node));
    return {reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(m)), static_cast<int64_t>(STARPU_MATRIX_GET_LD(m))};
}

template <typename T>
TileMatrix<T>::~TileMatrix() {
    // Orphaned (the Runtime was destroyed first): its destructor released the tiles, and StarPU is gone.
    if (!membership_ || !membership_->leave()) return;
    release();
    membership_->left();
}

template <typename T>
void TileMatrix<T>::release() noexcept {
    for (size_t idx = 0; idx < handles_.size(); ++idx) {
        if (handles_[idx]) starpu_data_unregister(handles_[idx]);
        handles_[idx] = nullptr;
        if (idx >= storage_.size() || !storage_[idx]) continue;  // (a constructor that ran out of memory)
        if (residency_ == Residency::Host && kind_ == Kind::Owned) {  // (a view's storage is the caller's)
            const int64_t i = idx % mt_, j = idx / mt_;
            starpu_free_flags(storage_[idx], static_cast<size_t>(tile_rows(i) * tile_cols(j)) * sizeof(T),
                              STARPU_MALLOC_PINNED);
        }
        storage_[idx] = nullptr;  // device tiles: in their slab
    }
    for (const Slab& s : slabs_) starpu_free_on_node(s.node, s.base, s.bytes);
    slabs_.clear();
}

template class TileMatrix<float>;
template class TileMatrix<double>;
template class TileMatrix<std::complex<float>>;
template class TileMatrix<std::complex<double>>;

}  // namespace starfact
