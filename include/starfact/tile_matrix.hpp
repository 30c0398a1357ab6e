// A matrix cut into nb x nb tiles, each a StarPU data handle. The last tile row/column may be
// smaller. Tiles are column-major with leading dimension = their row count, or, for a view of a caller's array,
// the array's leading dimension. A TileLayout spreads the
// tiles over MPI ranks (docs/mpi.md) and/or stores only the lower triangle of tiles; with device-resident tiles it
// also says how they are spread over the CUDA devices of the process (docs/multigpu.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"
#include "starfact/starpu_types.hpp"

namespace starfact {

namespace detail {
class Membership;
/// Tag of TileMatrix's internal workspace constructor (the solvers' own tiles).
struct WorkspaceTiles {};
}  // namespace detail

/// A P x Q grid of MPI ranks. Tile (i, j) belongs to rank (i mod P) * Q + (j mod Q): 2D block-cyclic,
/// ranks numbered row-major over the grid (ScaLAPACK's and Chameleon's convention). 1 x 1 is no
/// distribution: the matrix belongs to the calling process alone, even in an MPI run.
struct Grid {
    int p = 1, q = 1;
    int ranks() const { return p * q; }
    int owner(int64_t i, int64_t j) const { return static_cast<int>((i % p) * q + (j % q)); }
    bool operator==(const Grid& o) const { return p == o.p && q == o.q; }
    bool operator!=(const Grid& o) const { return !(*this == o); }
    /// The most square P x Q = ranks with P <= Q (2 -> 1 x 2, 4 -> 2 x 2, 6 -> 2 x 3, 7 -> 1 x 7).
    static Grid square(int ranks);
};

/// How device-resident tiles (Residency::Device) are spread over the CUDA devices of one process
/// (docs/multigpu.md). With one device every placement puts every tile on it.
enum class DevicePlacement {
    /// 2D block-cyclic over a Pd x Qd grid of devices: tile (i, j) on device (i mod Pd) * Qd + (j mod Qd),
    /// devices numbered row-major over the grid (as Grid numbers MPI ranks). A tile row touches Qd devices and a
    /// tile column Pd, so the panel broadcasts of a factorization reach Pd + Qd - 1 devices rather than all.
    BlockCyclic2D,
    /// Tile (i, j) on device (i + j) mod K: every anti-diagonal on one device. The diagonal tiles land on
    /// devices 2k mod K, i.e. only on the even devices when K is even.
    Cyclic,
};
const char* to_string(DevicePlacement placement);
/// "2d" or "cyclic"; throws InvalidArgument naming `argument` otherwise.
DevicePlacement parse_device_placement(const std::string& text, const char* argument);

/// The device grid in effect for `ndev` devices: `requested` when given (p, q >= 1), else (0 x 0) the most square
/// Grid::square(ndev) (Pd <= Qd), transposed (Pd >= Qd) for a matrix of more tile rows than tile columns (mt > nt: the
/// tiles a process holds, local to a rank of a distributed matrix; 0, 0 when unknown). Cyclic placement has no grid: it takes none (0 x 0) and returns 1 x ndev.
/// Throws InvalidArgument from `function` naming `argument` when ndev < 1, when a requested grid's product is not
/// ndev, when it has a negative or a single zero side, or when a grid is given with Cyclic placement.
Grid resolve_device_grid(DevicePlacement placement, const Grid& requested, int ndev, const char* function,
                         const char* argument, int64_t mt = 0, int64_t nt = 0);

/// The device index (0 .. ndev - 1, an index into Runtime::cuda_memory_nodes()) holding tile (i, j): a pure
/// function of the tile's coordinates. `device_grid` is the resolved grid (resolve_device_grid) for BlockCyclic2D,
/// ignored for Cyclic.
inline int device_of(int64_t i, int64_t j, DevicePlacement placement, const Grid& device_grid, int ndev) {
    if (ndev <= 1) return 0;
    if (placement == DevicePlacement::Cyclic) return static_cast<int>((i + j) % ndev);
    return device_grid.owner(i, j);
}

/// Where the tiles live and which exist.
struct TileLayout {
    /// Larger than 1 x 1: a distributed matrix over the ranks of a Runtime started with RuntimeConfig::mpi;
    /// grid.ranks() must equal Runtime::mpi_size(). Each rank allocates only the tiles it owns; the others are
    /// registered without storage, so that StarPU-MPI receives into them (docs/mpi.md).
    Grid grid;
    /// Only the tiles on and below the diagonal (i >= j) exist: tile(i, j) with i < j throws. What potrf, potrs
    /// and posv touch, in about half the memory (a float factor of order 200,000 takes 80 GB instead of 160).
    bool lower_only = false;
    /// How device-resident tiles spread over the Runtime's CUDA devices (ignored for host-resident tiles). In a
    /// distributed matrix the placement applies to the tiles a rank owns, in its local coordinates
    /// (i / grid.p, j / grid.q), so that a rank's tiles cover all its devices whatever the two grids are.
    DevicePlacement placement = DevicePlacement::BlockCyclic2D;
    /// The Pd x Qd device grid of BlockCyclic2D; 0 x 0 (default): the most square, Grid::square(devices)
    /// (2 -> 1 x 2, 4 -> 2 x 2, 8 -> 2 x 4), transposed for a matrix of more tile rows than tile columns (2 -> 2 x 1,
    /// 8 -> 4 x 2: a tall and skinny matrix of one tile column spreads over every device). Pd * Qd must be the Runtime's CUDA device count.
    Grid device_grid{0, 0};
};

/// Where an array is: Device for memory of one of the Runtime's CUDA devices, Host for host memory (pageable, pinned
/// or CUDA managed). Throws InvalidArgument from `function` naming `argument` for memory of a CUDA device the Runtime
/// does not drive.
Residency residency_of(const Runtime& runtime, const void* data, const char* function = "residency_of",
                       const char* argument = "data");

template <typename T>
class TileMatrix {
public:
    /// m x n matrix in nb x nb tiles. Residency::Device puts tile (i, j) on the CUDA device layout.placement
    /// names (device_of; by default 2D block-cyclic over the most square device grid), allocated in that device's
    /// memory; it needs a Runtime with CUDA workers.
    /// Throws InvalidArgument naming 'm', 'n', 'nb', 'residency' or 'layout' (a grid that is not the Runtime's
    /// rank count, lower_only on a matrix that is not square, a device grid whose product is not the Runtime's
    /// CUDA device count), RuntimeError when memory for a tile cannot be
    /// allocated (the message gives the bytes asked for and the matrix's order). Every constructor refuses a tile
    /// grid too fine to factor, naming 'nb': mt * nt * min(mt, nt), the order of an operation's task count, at most
    /// 2^30 (1024 x 1024 tiles of a square matrix), and at most 2^24 (256 x 256) with tiles smaller than 16 x 16,
    /// whose tasks cost more to schedule than to run (1 x 1 tiles of a 3000 x 3000 matrix would submit billions of
    /// tasks); the message gives the smallest nb within the limits.
    /// Before allocating anything it checks, with overflow-checked sizes, that the tiles this process stores fit:
    /// host tiles, their StarPU handles and bookkeeping in available_host_memory(), device tiles in the free memory
    /// of each device they are placed on; if not it throws RuntimeError giving the bytes asked for and available.
    /// The matrix belongs to `runtime` and should be destroyed before it. If it is not, the Runtime's destructor
    /// releases its tiles, and from then on every member that reaches the Runtime or the tiles (runtime(), tile(),
    /// home_node(), stored_bytes(), import(), export_to(), and every operation given the matrix) throws
    /// RuntimeError; the shape accessors still answer and the destructor does nothing.
    TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, Residency residency = Residency::Host,
               const TileLayout& layout = {});
    /// Square n x n.
    TileMatrix(Runtime& runtime, int64_t n, int64_t nb, Residency residency = Residency::Host,
               const TileLayout& layout = {})
        : TileMatrix(runtime, checked_order(n), n, nb, residency, layout) {}
    /// A view of the caller's column-major m x n array `data` (leading dimension ld >= max(1, m)) in nb x nb tiles:
    /// each tile is a StarPU handle over the array itself; nothing is allocated or copied. `data` is host memory,
    /// pageable or pinned (residency() says Host), or the memory of a CUDA device the Runtime drives (residency()
    /// says Device; the work already queued on that device is waited for here, since StarPU's streams do not wait
    /// for the caller's). StarPU moves tiles between the array and the workers as tasks need them; once the view is
    /// destroyed the
    /// array holds the matrix's contents (what the operations wrote). While the view lives the array belongs to
    /// it: read or write it only through the view. layout.lower_only registers only the tiles on and below the
    /// diagonal (the others are never read or written); a view is not distributed (layout.grid 1 x 1).
    /// Throws InvalidArgument naming 'm', 'n', 'nb', 'ld', 'data' (null, or memory of a device the Runtime does not
    /// drive) or 'layout'; 'ld' also when the array spans more than 2^63 - 1 bytes, and when StarPU and the kernels
    /// cannot address its tiles (viewable() is false): an owned TileMatrix with import() and export_to() takes
    /// such an array, as the array forms of the API and the C ABI do.
    TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, T* data, int64_t ld, const TileLayout& layout = {});
    /// Whether the view constructor takes an array of n columns with leading dimension ld in nb x nb tiles: each
    /// tile must span ld * min(nb, n) < 2^31 entries, since StarPU 1.3's matrix interface holds the leading dimension
    /// in 32 bits and the codelets pass it, and index within the tile, as int (BLAS, LAPACK, cuBLAS, cuSOLVER and
    /// the library's own kernels), and its pitch ld * sizeof(T) must be < 2^31 bytes, the most CUDA's 2D copies
    /// take. Every tile the library registers keeps within these bounds.
    static bool viewable(int64_t n, int64_t nb, int64_t ld);
    /// Internal: tiles with no home, which StarPU allocates where a task first writes them (on a GPU, in the
    /// memory it manages and reuses) and never copies back; import() and export_to() go through host memory. The
    /// solvers' own tiles (factors in another precision, residuals, scratch vectors). A tile must be written
    /// (import() or a task) before it is read. A layout grid larger than 1 x 1 (the Runtime's rank count: the
    /// distributed QR's T factors) registers every tile with StarPU-MPI, owned as a matrix's on that grid, with no
    /// storage on any rank until a task writes it there; its callers agree on it first (docs/mpi.md).
    TileMatrix(detail::WorkspaceTiles, Runtime& runtime, int64_t m, int64_t n, int64_t nb, const TileLayout& layout = {});
    ~TileMatrix();
    TileMatrix(const TileMatrix&) = delete;
    TileMatrix& operator=(const TileMatrix&) = delete;

    int64_t m() const { return m_; }
    int64_t n() const { return n_; }
    int64_t nb() const { return nb_; }
    int64_t mt() const { return mt_; }  ///< tile rows
    int64_t nt() const { return nt_; }  ///< tile columns
    int64_t tile_rows(int64_t i) const { return i == mt_ - 1 ? m_ - i * nb_ : nb_; }
    int64_t tile_cols(int64_t j) const { return j == nt_ - 1 ? n_ - j * nb_ : nb_; }
    /// Where the tiles live: Host or Device as constructed (a view: where its array is; a workspace: Host).
    Residency residency() const { return residency_; }
    /// Whether the tiles are a view of a caller's array.
    bool is_view() const { return kind_ == Kind::View; }
    /// The Runtime this matrix belongs to; throws RuntimeError once that Runtime was destroyed.
    Runtime& runtime() const;
    /// Bytes of the tiles this process stores (its own, and only the lower triangle when lower_only).
    size_t stored_bytes() const;
    const TileLayout& layout() const { return layout_; }
    const Grid& grid() const { return layout_.grid; }
    /// Spread over several MPI ranks (a grid larger than 1 x 1).
    bool distributed() const { return layout_.grid.ranks() > 1; }
    /// The rank owning tile (i, j) (0 when not distributed).
    int owner(int64_t i, int64_t j) const { return layout_.grid.owner(i, j); }
    /// The StarPU memory node holding this process's storage of tile (i, j): STARPU_MAIN_RAM for host-resident
    /// tiles, the owning GPU's node for device-resident ones; -1 for a tile this process does not store (and for
    /// every tile of a workspace, which has no home).
    int home_node(int64_t i, int64_t j) const;
    /// The device grid in effect for device-resident tiles (resolve_device_grid; 1 x 1 for host-resident ones).
    const Grid& device_grid() const { return device_grid_; }
    /// Whether tile (i, j) exists (false above the diagonal of a lower_only matrix).
    bool stored(int64_t i, int64_t j) const { return !layout_.lower_only || i >= j; }
    /// The handle of tile (i, j); throws InvalidArgument naming 'j' for a tile above the diagonal of a
    /// lower_only matrix, RuntimeError once the Runtime was destroyed (its tiles were released then).
    starpu_data_handle_t tile(int64_t i, int64_t j) const {
        starpu_data_handle_t h = handles_[i + j * mt_];
        if (!h) missing_tile(i, j);
        return h;
    }

    /// Copies the column-major array A (leading dimension lda >= max(1, m), any size up to an extent of 2^63 - 1
    /// bytes: else InvalidArgument naming 'lda') into the tiles.
    /// A may be host memory or, in a CUDA build, device memory. Waits for pending tasks on the tiles.
    /// Distributed: collective, every rank passes the whole matrix and copies the tiles it owns (the copies of
    /// other ranks' tiles it received before are dropped from StarPU-MPI's cache). Tiles that are not
    /// stored (lower_only) are skipped.
    void import(const T* A, int64_t lda);
    /// Copies the tiles into A (host or device memory, lda >= max(1, m)); entries of tiles that are not stored
    /// are left as they are. Distributed: collective, every rank receives the whole matrix.
    void export_to(T* A, int64_t lda) const;

private:
    static int64_t checked_order(int64_t n);  // throws InvalidArgument naming 'n' if n < 0
    [[noreturn]] void missing_tile(int64_t i, int64_t j) const;
    void release() noexcept;  // unregisters and frees every tile (destructor, failed constructor, orphaning)
    bool local(int64_t i, int64_t j) const;  // stored and owned by this process
    void require_alive(const char* function) const;  // throws RuntimeError once the Runtime was destroyed
    void check_memory() const;  // throws RuntimeError if the tiles cannot fit (constructor)
    /// Enters the Runtime's registry, sizes the bookkeeping (every tile's home node `home` to start with) and runs
    /// `body`, which registers the tiles; if anything throws, leaves the registry and unregisters what it registered.
    template <typename Body>
    void build(unsigned home, Body body);
    /// Views (home: the array's memory node, base: its address) and workspaces (home -1): a handle per stored tile.
    void register_unowned(int home, uintptr_t base, int64_t ld);
    /// The pointer and leading dimension of local tile idx on memory node `node` (acquired there).
    std::pair<T*, int64_t> tile_on(int64_t idx, unsigned node) const;

    /// Owned: tiles allocated by the matrix; View: over a caller's array; Workspace: no home (StarPU allocates).
    enum class Kind { Owned, View, Workspace };
    Kind kind_ = Kind::Owned;

    Runtime* runtime_;
    int64_t m_, n_, nb_, mt_, nt_;
    Residency residency_;
    TileLayout layout_;
    Grid device_grid_;
    std::vector<starpu_data_handle_t> handles_;
    std::vector<void*> storage_;
    std::vector<unsigned> home_;  // StarPU memory node of each tile's storage
    /// Device-resident tiles live in one allocation per device, carved into tiles (one cudaMalloc and one cudaFree
    /// instead of one per tile: each costs tens of microseconds, and cudaFree synchronizes the device).
    struct Slab {
        unsigned node;
        uintptr_t base;
        size_t bytes;
    };
    std::vector<Slab> slabs_;
    std::unique_ptr<detail::Membership> membership_;  // in the Runtime's registry (runtime/runtime_state.hpp)
};

extern template class TileMatrix<float>;
extern template class TileMatrix<double>;

}  // namespace starfact
