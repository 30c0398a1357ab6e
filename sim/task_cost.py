#!/usr/bin/env python3
"""Adds a per-task cost to every entry of StarPU history-based performance models (format 45), in place.

StarPU's SimGrid mode charges a CUDA task its model's mean time plus a fixed 10 us for queueing it; a real run's
worker also spends time between tasks (completion, scheduling, launch) that a calibration run with StarPU's default
pipelining does not put into the models. Where kernels are as short as that (tiles of 1024 on an H100/H200) the
simulation comes out far too fast (docs/simulation.md, "Validation"). tools/simulate.sh adds the cost measured on
the real machine (MODELS/task_cost_us) to the models it prepares, with this script.

usage: sim/task_cost.py DIR US     (DIR: a codelets/45 folder; US: microseconds, may be 0)
"""
import pathlib
import sys


def add_cost(text: str, us: float) -> str:
    """The model file's text with `us` added to each history entry's mean, sum and sum of squares."""
    out, in_table = [], False
    for line in text.split("\n"):
        if line.startswith("# hash"):
            in_table = True
        elif in_table and line and not line.startswith("#"):
            f = line.split()
            mean, dev, total, total2, n = float(f[3]), float(f[4]), float(f[5]), float(f[6]), int(f[7])
            total2 += 2 * us * total + n * us * us
            total += n * us
            line = "\t".join(f[:3] + [f"{mean + us:e}", f"{dev:e}", f"{total:e}", f"{total2:e}", f[7]])
        else:
            in_table = False
        out.append(line)
    return "\n".join(out)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().split("\n")[-1], file=sys.stderr)
        return 2
    folder, us = pathlib.Path(sys.argv[1]), float(sys.argv[2])
    if not folder.is_dir():
        print(f"task_cost.py: {folder} is not a folder", file=sys.stderr)
        return 2
    if us < 0:
        print(f"task_cost.py: the cost must be >= 0 us (got {us})", file=sys.stderr)
        return 2
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.name.startswith("starfact_"):
            p.write_text(add_cost(p.read_text(), us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
