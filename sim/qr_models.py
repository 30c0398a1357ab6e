#!/usr/bin/env python3
"""Completes recorded models of the tile QR's tasks whose buffers vary in number, for a simulated run: the panel of
the panel tree (qr_panel), R's check (qr_finite) and the reduction nodes of the Cholesky QR and of the panel tree's
updates (cholqr_add, cholqr_add_3), at the counts the calibration did not record.

StarPU's footprint chains the shapes of all of a task's buffers, so these tasks have one model entry per count:
qr_panel one per column height (tiles k .. mt-1 of tile column k, then its T tile), qr_finite one per number of
R's tiles in a tile column (0 .. min(j, mt-1), after the info variable), cholqr_add one per number of products it
adds (1 to 7: the reduction tree's fan-in is 8). One GPU records the counts of the shapes it runs (sim/calibrate.sh,
SIM_OPS=geqrf: up to 16 tiles of 2048). The panel is the gathered column's QR (Cholesky QR with the Householder form
rebuilt when tall enough, else cuSOLVER geqrf on halves): its flops and bytes grow linearly with the height, and so,
at these sizes, does its time; R's check reads count tiles; a reduction node adds count products. So for each tile
order (qr_panel, qr_finite) or product order (cholqr_add), the mean is fitted as a + b c (Theil and Sen's line: the
median of the slopes between pairs, the median intercept) and an entry is added for every count up to 256 tiles
(7 products) that is missing or that StarPU flushed (n = 0: samples more than STARPU_HISTORY_MAX_ERROR apart); the
recorded entries are left as they are. As sim/lu_models.py does for the LU's panel, the
panel's line goes through the upper half of the recorded heights without the tallest (the first panel of a
calibration run, which starts alone after the matrix's import); with fewer than three such heights it takes all
from 2 tiles on. Only columns of full tiles (square products) are matched. Prints one line per fitted model.

The panel's head. The panel's codelet waits for its stream on the host (the Cholesky QR's passes read numbers back;
a breakdown falls back to Householder), so StarPU sees the end of the task queued before it only once the panel's
host part is over; StarPU starts a queued asynchronous task's clock at the end of the task before it, so the panel's
recorded time is only what runs after its host part (its tail), and the task before it gets a sample that
STARPU_HISTORY_MAX_ERROR throws away (docs/simulation.md, "The panel's head"). Only the first panel of a calibration run (the tallest height: nothing runs
before it) is measured whole: 26.8 ms for 16 tiles of 2048 in double on an H200, against 9.6 on the line through
the others (whose slope, 136 us a tile, is below any whole panel's arithmetic). When that difference exceeds HEAD_MIN
of the line, every other height's entry, recorded or fitted, gets the head added, fixed + per x count: before its
last wait (the rank check of codelets/cholqr_householder_cuda.cpp) the Cholesky QR's panel runs HEAD_PRODUCTS
products over its rows (two Gram matrices and a solve), after it one (the solve Y := Q M^-1), so per is HEAD_PRODUCTS
times the line's slope and fixed the rest of the tallest height's difference (its host waits, the small factors).
The heights below cholqr::kPanelAspect tiles (halved panels, codelets/qr_panel.cpp) get the same line, which nothing
measures for them.

  sim/qr_models.py DIR/codelets/45 HOST      completes DIR/codelets/45/starfact_{s,d}{qr_panel,qr_finite,
                                             cholqr_add,cholqr_add_3}.HOST
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lu_models import complete_folder, entry_line, fit_line, fitted_note  # noqa: E402
from synthetic_models import _crc_be, matrix, variable  # noqa: E402

MAX_TILES = 256  # the tallest column of the LU's GPU mapping; the QR's panels stay far below it on one node
FAN_IN = 8       # algorithms/cholqr.cpp, kFanIn: a reduction node adds 1 .. 7 products
HEAD_MIN = 0.25  # the tallest panel above the line by more than this fraction of it: a head was left out (below)
HEAD_PRODUCTS = 3  # the panel's products over its rows before its last wait, for each one after (below)


class Family:
    """The tasks of one kernel: how many buffers of which shape, for a key (the tile or product order) and a count."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.reduction = kernel.startswith("cholqr_add")
        self.counts = range(1, FAN_IN) if self.reduction else range(1, MAX_TILES + 1)
        self.first = 1 if self.reduction or kernel == "qr_finite" else 2  # (a panel of one tile is a geqrt)
        self.upper_half = kernel == "qr_panel"
        self._chains = {}

    def footprint(self, key, count):
        if self.kernel == "qr_finite":  # info, then the tiles
            fp = _crc_be(variable(4), 0)
            for _ in range(count):
                fp = _crc_be(matrix(key, key), fp)
            return fp
        chain = self._chains.setdefault(key, [0])  # chain[c]: c square matrices of order key
        while len(chain) <= count + 1:
            chain.append(_crc_be(matrix(key, key), chain[-1]))
        return chain[count + 1]  # the panel's tiles and its T tile; the node's product and those it adds

    def size(self, key, count, esize):
        if self.kernel == "qr_finite":
            return 4 + count * key * key * esize
        return (count + 1) * key * key * esize

    def flops(self, key, count):
        if self.kernel == "qr_panel":
            m, n = count * key, key
            return 2.0 * m * n * n - 2.0 * n ** 3 / 3 + m * n * n
        return float(key * key * count) if self.reduction else 0.0

    def shape_of(self, fp, size, esize):
        """(key, count) of the entry with this footprint and data size, or None."""
        for count in self.counts:
            fixed = 4 if self.kernel == "qr_finite" else 0
            squares = count if self.kernel == "qr_finite" else count + 1
            rest = size - fixed
            if rest <= 0 or rest % (squares * esize):
                continue
            key = int(round((rest // (squares * esize)) ** 0.5))
            if key > 0 and key * key * squares * esize == rest and self.footprint(key, count) == fp:
                return key, count
        return None


def raise_entry(lines, at, us):
    """Adds `us` to the mean of the model entry on line `at` (its sums follow; the deviation is kept)."""
    f = lines[at].split()
    mean, dev, n = float(f[3]) + us, float(f[4]), int(f[7])
    lines[at] = entry_line(int(f[0], 16), int(f[1]), float(f[2]), mean, dev, n)


def complete(model, family, esize):
    path, lines, head, n_entries = model.path, model.lines, model.head, model.n_entries
    by_key, flushed, entry_at = {}, {}, {}
    for at in range(head + 1, head + 1 + n_entries):
        f = lines[at].split()
        shape = family.shape_of(int(f[0], 16), int(f[1]), esize)
        if not shape:
            continue
        if int(f[7]) > 0 and float(f[3]) > 0:
            by_key.setdefault(shape[0], {})[shape[1]] = float(f[3])
            entry_at[shape] = at
        else:  # StarPU flushed it (its samples deviated more than STARPU_HISTORY_MAX_ERROR): refilled below
            flushed[shape] = at
    added, notes = [], []
    for key, means in sorted(by_key.items()):
        pts = sorted((c, t) for c, t in means.items() if c >= family.first)
        if len(pts) < 2:
            continue
        recorded = [c for c, _ in pts]
        if family.upper_half:
            top = pts[-1][0]
            upper = [(c, t) for c, t in pts if 2 * c >= top and c < top]
            if len(upper) >= 3:
                pts = upper
        a, b, worst, rms = fit_line(pts)
        # The panel's head: what the tallest recorded height, measured whole, takes above the line
        # through the others, which StarPU measured without their head; added to every other height (below).
        lead = lambda c: 0.0  # noqa: E731
        top = max(recorded)
        if family.upper_half and top not in [c for c, _ in pts]:
            above = means[top] - (a + b * top)
            if above > HEAD_MIN * (a + b * top):
                per = min(HEAD_PRODUCTS * max(b, 0.0), above / top)
                fixed = above - per * top
                lead = lambda c: fixed + per * c  # noqa: E731
                for c in recorded:
                    if c != top and c >= family.first:
                        raise_entry(lines, entry_at[(key, c)], lead(c))
                notes.append("%s: order %d: the tallest height (%d) takes %.1f us above the line: the panel's head, "
                             "%.1f + %.2f x count us, added to every other height" % (
                                 os.path.basename(path), key, top, above, fixed, per))
        missing = [c for c in family.counts if c >= family.first and c not in means]
        for c in missing:
            line = entry_line(family.footprint(key, c), family.size(key, c, esize), family.flops(key, c),
                              max(a + b * c + lead(c), 0.0), rms)
            if (key, c) in flushed:
                lines[flushed[(key, c)]] = line
            else:
                added.append(line)
        if missing:
            notes.append(fitted_note(path, "order", key, "counts", recorded, len(missing), pts, a, b, worst))
    if notes:
        model.write(added)
    return notes


def main():
    complete_folder(__doc__, "qr", ("qr_panel", "qr_finite", "cholqr_add", "cholqr_add_3"),
                    lambda model, kernel, esize: complete(model, Family(kernel), esize))


if __name__ == "__main__":
    main()
