#!/usr/bin/env python3
"""Where the time of one traced factorization goes, from StarPU's tasks.rec.

    starpu_chol --gpu-only --device-resident --n 8192 --warmup 2 --repeat 1 --trace DIR
    python3 tools/trace_breakdown.py DIR            (reads DIR/tasks.rec and DIR/workers.txt)

Prints, for the last traced run:
  span                 first task start to last task end
  task time            sum of task durations (StarPU's start to end of each task: for asynchronous CUDA
                       codelets, until the worker saw the stream's work complete), and per kernel
  GPU busy / idle      union of the intervals of the CUDA workers' tasks, and the rest of the span
  critical chain       walking back from the last task through the dependency that ended last: its
                       tasks' time (kernel time on the critical path) and the gaps between a task's
                       last dependency ending and the task starting (runtime cost on the critical path:
                       completion detection, scheduling, launch)
  gap per task         the same gap averaged over every task with dependencies
Times in ms. Only the standard library is used.
"""
import argparse
import collections
import os
import sys


def read_tasks(path):
    tasks = []
    with open(path) as f:
        text = f.read()
    for block in text.split("\n\n"):
        rec = {}
        for line in block.splitlines():
            key, sep, val = line.partition(": ")
            if sep:
                rec[key.strip()] = val.strip()
        if "Name" in rec and "StartTime" in rec and "EndTime" in rec:
            tasks.append(rec)
    return tasks


def union_length(intervals):
    total, end = 0.0, None
    start = None
    for s, e in sorted(intervals):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    if end is not None:
        total += end - start
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace_dir")
    args = ap.parse_args()
    rec_path = os.path.join(args.trace_dir, "tasks.rec")
    if not os.path.exists(rec_path):
        sys.exit(f"trace_breakdown: no {rec_path} (run starpu_chol --trace DIR first)")
    tasks = read_tasks(rec_path)
    if not tasks:
        sys.exit(f"trace_breakdown: {rec_path} holds no task")
    workers = []
    wpath = os.path.join(args.trace_dir, "workers.txt")
    if os.path.exists(wpath):
        workers = [w.strip() for w in open(wpath) if w.strip()]

    by_id = {}
    for t in tasks:
        t["start"] = float(t["StartTime"])
        t["end"] = float(t["EndTime"])
        t["kind"] = t["Name"].split("(")[0]
        t["deps"] = t.get("DependsOn", "").split()
        if "JobId" in t:
            by_id[t["JobId"]] = t

    span_start = min(t["start"] for t in tasks)
    span_end = max(t["end"] for t in tasks)
    span = span_end - span_start
    per_kind = collections.defaultdict(lambda: [0, 0.0])
    for t in tasks:
        per_kind[t["kind"]][0] += 1
        per_kind[t["kind"]][1] += t["end"] - t["start"]
    task_time = sum(v[1] for v in per_kind.values())

    def is_cuda(t):
        w = int(t.get("WorkerId", -1))
        return 0 <= w < len(workers) and "CUDA" in workers[w].upper()

    cuda_tasks = [t for t in tasks if is_cuda(t)] if workers else []
    gpu_busy = union_length([(t["start"], t["end"]) for t in cuda_tasks]) if cuda_tasks else None

    # Critical chain: from the last task back through the dependency that ended last.
    chain_tasks, chain_gaps = [], []
    t = max(tasks, key=lambda x: x["end"])
    while t is not None:
        chain_tasks.append(t)
        deps = [by_id[d] for d in t["deps"] if d in by_id]
        if not deps:
            break
        p = max(deps, key=lambda x: x["end"])
        chain_gaps.append(max(0.0, t["start"] - p["end"]))
        t = p
    gaps = []
    for t in tasks:
        deps = [by_id[d] for d in t["deps"] if d in by_id]
        if deps:
            gaps.append(max(0.0, t["start"] - max(d["end"] for d in deps)))

    print(f"tasks: {len(tasks)}   span: {span:.3f} ms")
    print(f"task time (sum): {task_time:.3f} ms")
    for kind, (count, total) in sorted(per_kind.items(), key=lambda kv: -kv[1][1]):
        print(f"  {kind:<12} {count:6d} tasks  {total:10.3f} ms  mean {total / count:8.3f} ms")
    if gpu_busy is not None:
        print(f"GPU busy (union of CUDA workers' tasks): {gpu_busy:.3f} ms   idle: {span - gpu_busy:.3f} ms "
              f"({100 * (span - gpu_busy) / span:.1f} %)")
    if by_id and any(t["deps"] for t in tasks):
        ck = sum(t["end"] - t["start"] for t in chain_tasks)
        print(f"critical chain: {len(chain_tasks)} tasks, task time {ck:.3f} ms, gaps {sum(chain_gaps):.3f} ms "
              f"(mean {1000 * sum(chain_gaps) / max(1, len(chain_gaps)):.1f} us per hop)")
        print(f"gap from last dependency to start, every task: mean {1000 * sum(gaps) / max(1, len(gaps)):.1f} us "
              f"over {len(gaps)} tasks")
    else:
        print("critical chain: tasks.rec has no JobId/DependsOn fields")


if __name__ == "__main__":
    main()
