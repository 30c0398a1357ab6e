"""starfact.posv from Python on one GPU and spread over several, in one call.

For each GPU count in --gpus (default 1 and every visible device), a fresh process (one runtime per process)
starts ``starfact.Runtime(ncuda=K)``, makes the same random SPD matrix and right-hand side as PyTorch CUDA tensors on
device 0 and times ``starfact.posv(a, b, overwrite_a=True, overwrite_b=True, mapping="gpu-only")``: the tiles are
device-resident and spread 2D block-cyclically over the K devices (docs/multigpu.md), imported from and exported to
device 0's arrays. Median of --repeat after --warmup, the scaled residual checked, and the speed-up over one GPU.

    python3 python/bench/bench_gpus.py [--n 32768] [--gpus 1,2] [--repeat 3] [--warmup 1] [--json FILE]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def one(n, ncuda, repeat, warmup, nrhs):
    """One child process's measurement: posv on K = ncuda GPUs, as a dict."""
    import torch  # pylint: disable=import-outside-toplevel
    import starfact  # pylint: disable=import-outside-toplevel
    rt = starfact.Runtime(ncuda=ncuda)
    torch.cuda.set_device(0)
    g = torch.Generator(device="cuda:0").manual_seed(1)
    a0 = torch.rand((n, n), generator=g, device="cuda:0", dtype=torch.float64) - 0.5
    a0 = (a0 + a0.T) / 2
    a0.diagonal().add_(n)
    b0 = torch.rand((n, nrhs), generator=g, device="cuda:0", dtype=torch.float64) - 0.5
    b0 = b0.T.contiguous().T
    times = []
    x = None
    for i in range(warmup + repeat):
        a, b = a0.clone(), b0.clone(memory_format=torch.preserve_format)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        x = starfact.posv(a, b, overwrite_a=True, overwrite_b=True, mapping="gpu-only")
        torch.cuda.synchronize()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
        del a
    eps = torch.finfo(torch.float64).eps
    res = float(torch.linalg.matrix_norm(a0 @ x - b0, ord=1) /
                (torch.linalg.matrix_norm(a0, ord=1) * torch.linalg.matrix_norm(x, ord=1) * n * eps))
    out = {"ncuda": ncuda, "cuda_devices": rt.cuda_devices, "cuda_workers": rt.cuda_workers, "n": n,
           "seconds": statistics.median(times), "runs": times, "residual": res, "runtime": rt.describe()}
    rt.close()
    return out


def main():
    """Runs a child process per GPU count and prints the times and speed-ups."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=32768)
    p.add_argument("--nrhs", type=int, default=1)
    p.add_argument("--gpus", default="")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--json")
    p.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(one(args.n, args.child, args.repeat, args.warmup, args.nrhs)))
        return 0
    if not args.gpus:
        import torch  # pylint: disable=import-outside-toplevel
        args.gpus = "1,%d" % torch.cuda.device_count() if torch.cuda.device_count() > 1 else "1"
    rows = []
    for k in [int(v) for v in args.gpus.split(",") if v]:
        r = subprocess.run([sys.executable, __file__, "--n", str(args.n), "--nrhs", str(args.nrhs), "--repeat",
                            str(args.repeat), "--warmup", str(args.warmup), "--child", str(k)],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            print("ncuda=%d failed (%d): %s" % (k, r.returncode, r.stderr.strip()[-800:]))
            continue
        row = json.loads(r.stdout.strip().splitlines()[-1])
        rows.append(row)
        base = rows[0]["seconds"]
        print("posv n=%d on %d GPU(s) (%d CUDA workers): %.3f s (runs %s), residual %.2g, speed-up over %d GPU: %.2f"
              "\n  # %s" % (args.n, row["cuda_devices"], row["cuda_workers"], row["seconds"],
                            ", ".join("%.3f" % t for t in row["runs"]), row["residual"], rows[0]["cuda_devices"],
                            base / row["seconds"], row["runtime"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if rows and all(r["residual"] < 60 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
