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


def complete(path, kernel, esize):
    lines = open(path).read().split("\n")
    head = next(i for i, l in enumerate(lines) if l.startswith("# hash"))
    count_at = next(i for i, l in enumerate(lines) if l.startswith("# number of entries")) + 1
    if sum(1 for l in lines if l.startswith("# number of entries")) != 1:
        return ["%s: several architectures or implementations, left as it is" % os.path.basename(path)]
    n_entries = int(lines[count_at])
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
        b = median([(t2 - t1) / (c2 - c1) for i, (c1, t1) in enumerate(pts) for c2, t2 in pts[i + 1:]])
        a = median([t - b * c for c, t in pts])
        worst = max(abs(a + b * c - t) / t for c, t in pts)
        rms = (sum((a + b * c - t) ** 2 for c, t in pts) / len(pts)) ** 0.5
        missing = [c for c in range(2, MAX_TILES + 1) if c not in means]
        for c in missing:
            us = max(a + b * c, 0.0)
            samples = 10
            added.append("%08x\t%-15d\t%e\t%e\t%e\t%e\t%e\t%d" % (
                footprint(kernel, nb, c), size_of(kernel, nb, c, esize), flops_of(kernel, nb, c), us, rms,
                us * samples, (us * us + rms * rms) * samples, samples))
        notes.append("%s: nb %d: heights %s recorded; %d others fitted on %s: %.1f + %.2f x tiles us (largest "
                     "deviation %.1f%%)" % (os.path.basename(path), nb, ranges(recorded), len(missing),
                                            ranges([c for c, _ in pts]), a, b, 100 * worst))
    if added:
        lines[count_at] = str(n_entries + len(added))
        lines[head + 1 + n_entries:head + 1 + n_entries] = added
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return notes


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    folder, host = sys.argv[1], sys.argv[2]
    for prec, esize in (("s", 4), ("d", 8)):
        for kernel in ("getrf_panel", "laswp"):
            path = os.path.join(folder, "starfact_%s%s.%s" % (prec, kernel, host))
            if os.path.exists(path):
                for note in complete(path, kernel, esize):
                    print("# lu models: " + note)


if __name__ == "__main__":
    main()
