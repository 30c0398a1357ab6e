"""Kernel times of the coarse model (docs/simulation_scale.md), from StarPU history-based performance models.

The models are those `tools/simulate.sh` uses (sim/README.md): `<dir>/codelets/45/starfact_<p><kernel>.<host>`, one
entry per footprint, whose mean time (us) is taken; the LU's own trsm, gemm, panel and row interchanges from
`<dir>/lu/codelets/45/`. A tile order is recognised from each entry's size in bytes (tiles of nb^2 elements).

Super-tiles: a tile of order S = s * nb (s model tiles per side) is timed as the sum of the model tiles' kernels
that make it up, run one after the other on one GPU (the fine graph's tasks of that block), e.g. a gemm of order S
takes s^3 gemms of order nb. For gemm this is the model's flop rate; for the diagonal and panel kernels it is what
one GPU would take running the fine sub-graph with no overlap, an upper bound.
"""
import math
import os

ESIZE = {"d": 8, "s": 4}
TILE_ORDERS = (512, 1024, 2048, 4096)


def read_entries(path):
    """(size in bytes, mean us, samples) of every entry of a StarPU format-45 history model file."""
    out = []
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# hash"):
            for row in lines[i + 1:]:
                cols = row.split()
                if len(cols) != 8 or row.startswith("#"):
                    break
                out.append((int(cols[1]), float(cols[3]), int(cols[7])))
    return out


def square_order(size, tiles, esize, extra=0):
    """The tile order nb with size == tiles * nb^2 * esize + extra, or None."""
    v = (size - extra) / (tiles * esize)
    nb = int(round(math.sqrt(v))) if v > 0 else 0
    return nb if nb > 0 and tiles * nb * nb * esize + extra == size else None


def column_shape(size, esize, extra_per_nb, extra):
    """(nb, height in tiles) of a tile-column footprint size == h * nb^2 * esize + extra_per_nb * nb + extra."""
    for nb in TILE_ORDERS:
        rest = size - extra_per_nb * nb - extra
        if rest > 0 and rest % (nb * nb * esize) == 0:
            return nb, rest // (nb * nb * esize)
    return None


def theil_sen(points):
    """Line a + b x through (x, y) points: median of pairwise slopes, then median intercept."""
    slopes = sorted((y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(points) for (x2, y2) in points[i + 1:]
                    if x2 != x1)
    b = slopes[len(slopes) // 2] if slopes else 0.0
    inter = sorted(y - b * x for x, y in points)
    return inter[len(inter) // 2], b


class Kernels:
    """Mean kernel times (seconds) per tile order of one precision, Cholesky and LU."""

    def __init__(self, model_dir, prec="d", host=None, task_cost_us=None):
        self.prec = prec
        es = ESIZE[prec]
        cdir = os.path.join(model_dir, "codelets", "45")
        if host is None:
            host = sorted(f.rsplit(".", 1)[1] for f in os.listdir(cdir))[0]
        if task_cost_us is None:
            p = os.path.join(model_dir, "task_cost_us")
            task_cost_us = float(open(p).read().split()[0]) if os.path.exists(p) else 0.0
        self.cost = task_cost_us * 1e-6
        self.t = {}  # (kernel, nb) -> seconds

        def load(d, kernel, tiles, extra=0, key=None):
            p = os.path.join(d, "starfact_%s%s.%s" % (prec, kernel, host))
            if not os.path.exists(p):
                return
            for size, mean, _ in read_entries(p):
                nb = square_order(size, tiles, es, extra)
                if nb:
                    self.t[(key or kernel, nb)] = mean * 1e-6

        load(cdir, "gemm", 3)
        load(cdir, "trsm", 2)
        load(cdir, "syrk", 2)
        load(cdir, "potrf_fused", 1, 4, "potrf")
        load(cdir, "potrf", 1, 4)  # cuSOLVER's potrf where recorded (4096): what resolve_diag_kernel takes there
        ldir = os.path.join(model_dir, "lu", "codelets", "45")
        load(ldir, "gemm", 3, key="lu_gemm")
        load(ldir, "trsm", 2, key="lu_trsm")
        # Panel (getrf of a tile column with pivots and info) and row interchanges: one entry per column height.
        self.col = {}  # (kernel, nb) -> {height: seconds}
        for kernel, per_nb, extra in (("getrf_panel", 4, 4), ("laswp", 4, 0)):
            p = os.path.join(ldir, "starfact_%s%s.%s" % (prec, kernel, host))
            if not os.path.exists(p):
                continue
            for size, mean, _ in read_entries(p):
                shape = column_shape(size, es, per_nb, extra)
                if shape:
                    self.col.setdefault((kernel, shape[0]), {})[shape[1]] = mean * 1e-6
        self.fits = {}
        for key, hs in self.col.items():
            # sim/lu_models.py's line: the upper half of the recorded heights without the tallest.
            top = sorted(hs)
            pts = [(h, hs[h]) for h in top[len(top) // 2:-1]] if len(top) > 3 else [(h, hs[h]) for h in top]
            self.fits[key] = theil_sen(pts)

    def fine(self, kernel, nb):
        """One model tile's kernel time (s), plus the per-task cost."""
        key = (kernel, nb)
        if key not in self.t and kernel.startswith("lu_"):
            key = (kernel[3:], nb)
        if key not in self.t:
            raise KeyError("no model of %s at tile order %d" % (kernel, nb))
        return self.t[key] + self.cost

    def column(self, kernel, nb, h):
        """Panel or interchanges of a column of h model tiles: recorded, else the fitted line."""
        hs = self.col.get((kernel, nb), {})
        if h in hs:
            return hs[h] + self.cost
        a, b = self.fits[(kernel, nb)]
        return a + b * h + self.cost

    # ---- super-tiles of s x s model tiles of order nb ----
    def potrf(self, nb, s=1):
        return (s * self.fine("potrf", nb) + s * (s - 1) / 2 * (self.fine("trsm", nb) + self.fine("syrk", nb))
                + s * (s - 1) * (s - 2) / 6 * self.fine("gemm", nb))

    def trsm(self, nb, s=1):
        return s * s * self.fine("trsm", nb) + s * s * (s - 1) / 2 * self.fine("gemm", nb)

    def syrk(self, nb, s=1):
        return s * s * self.fine("syrk", nb) + s * s * (s - 1) / 2 * self.fine("gemm", nb)

    def gemm(self, nb, s=1):
        return s ** 3 * self.fine("gemm", nb)

    def lu_gemm(self, nb, s=1):
        return s ** 3 * self.fine("lu_gemm", nb)

    def lu_trsm(self, nb, s=1):
        return s * s * self.fine("lu_trsm", nb) + s * s * (s - 1) / 2 * self.fine("lu_gemm", nb)

    def panel(self, nb, h, s=1):
        """getrf of a column of h super-tiles: the s fine panels, with their interchanges, trsm and gemm inside."""
        t = 0.0
        for i in range(s):
            hf = h * s - i
            t += self.column("getrf_panel", nb, hf)
            right = s - 1 - i
            t += right * (self.column("laswp", nb, hf) + self.fine("lu_trsm", nb) + (hf - 1) * self.fine("lu_gemm", nb))
            t += i * self.column("laswp", nb, hf)
        return t

    def laswp(self, nb, h, s=1):
        """Interchanges of one super panel step on a column of h super-tiles: s steps on s model columns."""
        return s * s * self.column("laswp", nb, h * s)
