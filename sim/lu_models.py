#!/usr/bin/env python3
"""Completes recorded models of the tile LU's column tasks for a simulated run: the panel (getrf_panel) and the row
interchanges (laswp) of column heights that the calibration did not record.

Both tasks take a whole tile column, tiles k .. mt-1 of a column: StarPU's footprint, and so the model's entry, differs
for every height (mt - k tiles), and one GPU can only record the heights of the orders it holds (sim/calibrate.sh: up
to 16 tiles of 4096 in double). A panel is cuSOLVER's getrf of a (c nb) x nb column gathered into one array and
scattered back: flops and bytes grow linearly with the height c, and so, at these sizes, does its time; the row
interchanges move kb rows of each column, and find them in c tiles. So for each tile order nb with at least three
recorded heights of 2 tiles or more, the mean is fitted as a + b c and an entry is added for every
height 2 .. 256 (kLaswpMaxTiles) that is missing; recorded entries are left as they are. The fit takes the upper half
of the recorded heights, where the time has become linear in the height (short panels are latency-bound: the H200's
double panel of 4096 grows by 4.3 ms a tile from 1 to 4 tiles, by 2.3 ms from 8 to 15), and leaves out the tallest,
the first panel of each calibration run, which runs alone after the matrix's import and came out 15 to 30% slower
than the line through the others (sim/README.md); with fewer than three such heights it takes all from 2 tiles on.
The line is Theil and Sen's (the median of the slopes between pairs of heights, the median intercept), which one
stray mean does not pull (a row interchange of 512 tiles recorded 174 us at one height, 20 us around it). Only columns
of full tiles (orders that are multiples of nb) are matched. Prints one line per fitted model (heights
recorded and fitted on, the line, its largest deviation from the means it was fitted on).

  sim/lu_models.py DIR/codelets/45 HOST      completes DIR/codelets/45/starfact_{s,d}{getrf_panel,laswp}.HOST
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthetic_models import _crc_be, matrix, variable, vector  # noqa: E402

MAX_TILES = 256  # kLaswpMaxTiles (kernels/lu/lu_kernels.hpp): the tallest column of a GPU mapping
_columns = {}


def footprint(kernel, nb, count):
    """StarPU's footprint of the task (synthetic_models.task): the column's tiles, then info (panel), the pivots."""
    chain = _columns.setdefault(nb, [0])  # chain[c]: the footprint of c tiles so far
    while len(chain) <= count:
        chain.append(_crc_be(matrix(nb, nb), chain[-1]))
    fp = chain[count]
    if kernel == "getrf_panel":
        fp = _crc_be(variable(4), fp)
    return _crc_be(vector(nb), fp)


def size_of(kernel, nb, count, esize):
    return count * nb * nb * esize + (4 if kernel == "getrf_panel" else 0) + 4 * nb


def flops_of(kernel, nb, count):
    return count * nb * nb * nb - nb ** 3 / 3.0 if kernel == "getrf_panel" else 0.0


def shape_of(kernel, fp, size, esize):
    """(nb, count) of a column of count full nb x nb tiles with this footprint and data size, or None."""
    nb = 0
    while (nb + 1) * (nb + 1) * esize <= size:  # at least one tile
        nb += 1
        rest = size - size_of(kernel, nb, 0, esize)
        if rest % (nb * nb * esize) == 0:
            count = rest // (nb * nb * esize)
            if 1 <= count <= MAX_TILES and footprint(kernel, nb, count) == fp:
                return nb, count
    return None


def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def fit_line(pts):
    """The line a + b c through the points (c, t) by Theil and Sen's medians (robust to a few outliers), with its
    largest relative deviation and its root mean square deviation."""
    b = median([(t2 - t1) / (c2 - c1) for i, (c1, t1) in enumerate(pts) for c2, t2 in pts[i + 1:]])
    a = median([t - b * c for c, t in pts])
    worst = max(abs(a + b * c - t) / t for c, t in pts)  # (t > 0: recorded means only)
    rms = (sum((a + b * c - t) ** 2 for c, t in pts) / len(pts)) ** 0.5
    return a, b, worst, rms


def fitted_note(path, key_name, key, counts_name, recorded, missing, pts, a, b, worst):
    """The note of entries fitted on the recorded points `pts` by a + b count."""
    return "%s: %s %d: %s %s recorded; %d others fitted on %s: %.1f + %.2f x %s us (largest deviation %.1f%%)" % (
        os.path.basename(path), key_name, key, counts_name, ranges(recorded), missing, ranges([c for c, _ in pts]), a,
        b, "tiles" if counts_name == "heights" else "count", 100 * worst)


def ranges(values):
    """2,3,4,7 -> '2..4,7'."""
    out, start = [], None
    for i, v in enumerate(values):
        if start is None:
            start = v
        if i + 1 == len(values) or values[i + 1] != v + 1:
            out.append(str(start) if start == v else "%d..%d" % (start, v))
            start = None
    return ",".join(out)


class ModelFile:
    """A StarPU history model file of one architecture and implementation: its lines, where its entries start
    (`head`: the "# hash" line), the line of their count and that count; None from read() when the file holds
    several architectures or implementations (left as it is)."""

    def __init__(self, path, lines):
        self.path, self.lines = path, lines
        self.head = next(i for i, l in enumerate(lines) if l.startswith("# hash"))
        self.count_at = next(i for i, l in enumerate(lines) if l.startswith("# number of entries")) + 1
        self.n_entries = int(lines[self.count_at])

    @staticmethod
    def read(path):
        lines = open(path).read().split("\n")
        if sum(1 for l in lines if l.startswith("# number of entries")) != 1:
            return None
        return ModelFile(path, lines)

    def write(self, added):
        """Writes the file with the entry lines `added` after the others."""
        self.lines[self.count_at] = str(self.n_entries + len(added))
        self.lines[self.head + 1 + self.n_entries:self.head + 1 + self.n_entries] = added
        with open(self.path, "w") as f:
            f.write("\n".join(self.lines))


def several(path):
    return ["%s: several architectures or implementations, left as it is" % os.path.basename(path)]


def entry_line(fp, size, flops, us, rms, samples=10):
    """A history entry of `samples` samples of mean `us` and deviation `rms`, as StarPU writes them."""
    return "%08x\t%-15d\t%e\t%e\t%e\t%e\t%e\t%d" % (fp, size, flops, us, rms, us * samples,
                                                      (us * us + rms * rms) * samples, samples)


def complete(model, kernel, esize):
    path, lines, head, n_entries = model.path, model.lines, model.head, model.n_entries
    entries = lines[head + 1:head + 1 + n_entries]
    by_nb = {}
    for e in entries:
        f = e.split()
        shape = shape_of(kernel, int(f[0], 16), int(f[1]), esize)
        if shape:
            by_nb.setdefault(shape[0], {})[shape[1]] = float(f[3])
    added, notes = [], []
    for nb, means in sorted(by_nb.items()):
        pts = sorted((c, t) for c, t in means.items() if c >= 2)
        if len(pts) < 3:
            continue
        top = pts[-1][0]
        upper = [(c, t) for c, t in pts if 2 * c >= top and c < top]
        recorded = [c for c, _ in pts]
        if len(upper) >= 3:
            pts = upper
        a, b, worst, rms = fit_line(pts)
        missing = [c for c in range(2, MAX_TILES + 1) if c not in means]
        for c in missing:
            added.append(entry_line(footprint(kernel, nb, c), size_of(kernel, nb, c, esize), flops_of(kernel, nb, c),
                                    max(a + b * c, 0.0), rms))
        notes.append(fitted_note(path, "nb", nb, "heights", recorded, len(missing), pts, a, b, worst))
    if added:
        model.write(added)
    return notes


def complete_folder(doc, label, kernels, complete_one):
    """The command line FOLDER HOST: complete_one(ModelFile, kernel, element size) on each kernel's model of either
    precision in FOLDER, its notes printed."""
    if len(sys.argv) != 3:
        sys.exit(doc)
    folder, host = sys.argv[1], sys.argv[2]
    for prec, esize in (("s", 4), ("d", 8)):
        for kernel in kernels:
            path = os.path.join(folder, "starfact_%s%s.%s" % (prec, kernel, host))
            if os.path.exists(path):
                model = ModelFile.read(path)
                for note in complete_one(model, kernel, esize) if model else several(path):
                    print("# %s models: %s" % (label, note))


def main():
    complete_folder(__doc__, "lu", ("getrf_panel", "laswp"), complete)


if __name__ == "__main__":
    main()
