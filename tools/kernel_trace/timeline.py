#!/usr/bin/env python3
"""Summarise a kernel trace of tools/kernel_trace/libkernel_trace.so (tools/README.md, "Kernel timelines").

The drivers copy the matrix to the device before every run: the trace is cut into windows at host-to-device copies
of --copy-mb MB or more (one window when there are none), and each window after such a copy is one run (the last one
the last timed run). For the windows asked for (--window, default the last), it prints the wall time from the first
activity to the end of the last, the busy time (the union of the activities: kernels on several streams count
once), the idle time, the gaps between activities, and the kernels that took the most time (summed over their
launches; overlapping launches count each). --buckets MS adds the busy fraction per MS-millisecond bucket and the
kinds of work in it (a stacked view of the run without a plot); --csv FILE writes the window's activities, in
microseconds from its start, for a plot or a spreadsheet. Standard library only.
"""
import argparse
import collections
import sys


def load(path):
    events = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(",", 4)
            if len(parts) < 5 or parts[0] not in ("K", "M", "S"):
                continue
            events.append((int(parts[1]), int(parts[2]), int(parts[3]), parts[4]))
    events.sort()
    return events


def is_upload(name, min_bytes):
    return name.startswith("copy1_") and int(name.split("_")[1]) >= min_bytes


def windows(events, min_bytes):
    """The activities after each group of large host-to-device copies (all of them when there is none)."""
    cuts = [i for i, e in enumerate(events) if is_upload(e[3], min_bytes)]
    if not cuts:
        return [events]
    groups = []
    for i in cuts:  # copies with no kernel between them (copies and memsets only): one upload of the matrix
        between = events[groups[-1][-1] + 1:i] if groups else None
        if between is not None and all(e[3].startswith("copy") or e[3] == "memset" for e in between):
            groups[-1].append(i)
        else:
            groups.append([i])
    out = []
    for g, group in enumerate(groups):
        end = groups[g + 1][0] if g + 1 < len(groups) else len(events)
        if group[-1] + 1 < end:
            out.append(events[group[-1] + 1:end])
    return out


def kind(name):
    if name.startswith("copy") or name == "memset":
        return name.split("_")[0]
    low = name.lower()
    for key in ("gemm", "syrk", "herk", "trsm", "trmm", "geqr", "getrf", "potrf", "larft", "geam"):
        if key in low:
            return key
    return "other"


def summary(win, top, buckets_ms):
    t0, t1 = win[0][0], max(e[1] for e in win)
    busy, reach, gaps = 0, t0, []
    for s, e, _, _ in win:
        if s > reach:
            gaps.append(s - reach)
        busy += max(0, e - max(s, reach))
        reach = max(reach, e)
    wall = t1 - t0
    print("wall %.3f ms, busy %.3f ms (%.1f%%), idle %.3f ms, %d activities" %
          (wall / 1e6, busy / 1e6, 100.0 * busy / max(wall, 1), (wall - busy) / 1e6, len(win)))
    for floor_us in (20, 100, 1000):
        big = [g for g in gaps if g > floor_us * 1000]
        print("  gaps over %4d us: %5d, %.3f ms in all" % (floor_us, len(big), sum(big) / 1e6))
    total = collections.defaultdict(lambda: [0, 0])
    for s, e, _, n in win:
        total[n][0] += e - s
        total[n][1] += 1
    print("  %-70s %10s %7s" % ("activity (by name, summed over launches)", "ms", "count"))
    for n, (t, c) in sorted(total.items(), key=lambda x: -x[1][0])[:top]:
        print("  %-70s %10.3f %7d" % (n[:70], t / 1e6, c))
    if buckets_ms > 0:
        width = int(buckets_ms * 1e6)
        used = collections.defaultdict(collections.Counter)
        for s, e, _, n in win:
            a = s
            while a < e:
                b = min(e, t0 + ((a - t0) // width + 1) * width)
                used[(a - t0) // width][kind(n)] += b - a
                a = b
        print("  busy per %g ms (activity time / bucket, overlapping streams add up; main kinds):" % buckets_ms)
        for b in range((wall + width - 1) // width):
            kinds = ", ".join("%s %d%%" % (k, round(100.0 * v / width)) for k, v in used[b].most_common(3))
            print("  %8.1f ms %5.0f%%  %s" % (b * buckets_ms, 100.0 * sum(used[b].values()) / width, kinds))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace", help="the CSV that libkernel_trace.so wrote (TRACE_OUT)")
    p.add_argument("--copy-mb", type=float, default=8.0,
                   help="host-to-device copies of this many MB or more start a window (default 8)")
    p.add_argument("--window", default="-1",
                   help="which windows to print: indices, comma-separated (negative from the end), or 'all'")
    p.add_argument("--top", type=int, default=15, help="kernels listed per window (default 15)")
    p.add_argument("--buckets", type=float, default=0.0, metavar="MS", help="busy fraction per MS ms bucket")
    p.add_argument("--csv", help="write the (last printed) window's activities here, microseconds from its start")
    a = p.parse_args(argv)
    events = load(a.trace)
    if not events:
        sys.exit("timeline.py: no activities in %s" % a.trace)
    wins = windows(events, int(a.copy_mb * 1e6))
    print("%d window(s) (ms): %s" % (len(wins), ", ".join("%.2f" % ((max(e[1] for e in w) - w[0][0]) / 1e6)
                                                           for w in wins)))
    picks = range(len(wins)) if a.window == "all" else [int(x) for x in a.window.split(",")]
    chosen = None
    for i in picks:
        if not -len(wins) <= i < len(wins):
            sys.exit("timeline.py: --window %d: there are %d windows" % (i, len(wins)))
        print("window %d:" % (i % len(wins)))
        chosen = wins[i]
        summary(chosen, a.top, a.buckets)
    if a.csv and chosen:
        t0 = chosen[0][0]
        with open(a.csv, "w") as f:
            f.write("start_us,end_us,stream,name\n")
            for s, e, st, n in chosen:
                f.write("%.3f,%.3f,%d,%s\n" % ((s - t0) / 1e3, (e - t0) / 1e3, st, n))


if __name__ == "__main__":
    main()
