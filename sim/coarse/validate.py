#!/usr/bin/env python3
"""The coarse model against the SimGrid simulations of docs/simulation.md (docs/simulation_scale.md,
"Validation"): prints a Markdown table, one row per SimGrid point, with the model's time and its error.

    python3 sim/coarse/validate.py [--nic-prio]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import main as run_main  # noqa: E402
import io  # noqa: E402
import contextlib  # noqa: E402

# (label, op, n, nb, nodes, gpu grid, path, task cost us, SimGrid s) from docs/simulation.md
POINTS = []
for nodes, st, gd in ((1, 3.784, 3.784), (2, 2.221, 1.972), (4, 1.642, 1.507), (8, 1.561, 1.396), (16, 1.619, 1.354),
                      (32, 1.595, 1.404), (64, 1.920, 1.594)):
    POINTS.append(("potrf strong, staged", "potrf", 131072, 4096, nodes, "2x2", "staged", 0, st))
    if nodes > 1:
        POINTS.append(("potrf strong, GPU-direct", "potrf", 131072, 4096, nodes, "2x2", "direct", 0, gd))
for n, nodes, s in ((32768, 1, 0.094), (65536, 4, 0.602), (131072, 16, 1.619), (65536, 1, 0.526),
                    (262144, 16, 4.285), (262144, 64, 4.248)):
    POINTS.append(("potrf weak / n = 262144", "potrf", n, 4096, nodes, "2x2", "staged", 0, s))
POINTS.append(("potrf n = 262144, GPU-direct", "potrf", 262144, 4096, 16, "2x2", "direct", 0, 3.780))
for n, nb, gg, s in ((32768, 4096, "1x1", 0.6766), (32768, 2048, "1x1", 0.6909), (65536, 4096, "1x1", 4.3127),
                     (65536, 2048, "1x1", 4.4790), (65536, 4096, "1x2", 2.2258), (65536, 2048, "1x2", 2.4177),
                     (65536, 4096, "2x2", 1.318), (65536, 2048, "2x2", 1.600), (65536, 4096, "2x4", 1.184),
                     (65536, 2048, "2x4", 1.132), (131072, 4096, "1x2", 15.959), (131072, 4096, "2x2", 9.149),
                     (131072, 4096, "2x4", 6.206), (45056, 4096, "1x2", 0.837), (94208, 4096, "2x4", 2.573),
                     (94208, 4096, "1x2", 6.165)):
    POINTS.append(("getrf one node", "getrf", n, nb, 1, gg, "staged", 40, s))


def model(op, n, nb, nodes, gg, path, cost, extra):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_main(["--op", op, "--n", str(n), "--nb", str(nb), "--nodes", str(nodes), "--gpu-grid", gg, "--path", path,
                  "--task-cost-us", str(cost)] + extra)
    return float(out.getvalue().split(",")[16])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nic-prio", action="store_true")
    ap.add_argument("--nic-share", action="store_true")
    ap.add_argument("--only", help="series whose label contains this")
    a = ap.parse_args()
    extra = (["--nic-prio"] if a.nic_prio else []) + (["--nic-share"] if a.nic_share else [])
    print("| series | n | nb | nodes | GPUs per node | SimGrid s | coarse s | error |")
    print("|---|---|---|---|---|---|---|---|")
    for label, op, n, nb, nodes, gg, path, cost, ref in POINTS:
        if a.only and a.only not in label:
            continue
        t = model(op, n, nb, nodes, gg, path, cost, extra)
        g = int(gg[0]) * int(gg[2])
        print("| %s | %d | %d | %d | %d | %.3f | %.3f | %+.1f%% |" % (label, n, nb, nodes, g, ref, t,
                                                                       100 * (t / ref - 1)), flush=True)


if __name__ == "__main__":
    main()
