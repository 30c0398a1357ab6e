#!/usr/bin/env python3
"""The coarse model of the distributed tile Cholesky and LU on nodes of GPUs (docs/simulation_scale.md).

    python3 sim/coarse/run.py --op potrf --n 131072 --nb 4096 --nodes 4
    python3 sim/coarse/run.py --op getrf --n0 188416 --nb 4096 --s 4 --nodes 16 --grid 4x4 --path direct

Prints one CSV row per run (with --header, the names first): the factorization, order, tile orders, grids, links,
simulated seconds, TFLOP/s, per node, weak-scaling order per node, GPU busy fraction, bytes over the NICs, the
critical path (transfers on idle links), the work per GPU, the busiest NIC's egress time, the model's wall time.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dags import cholesky, lu  # noqa: E402
from engine import Machine, simulate  # noqa: E402
from models import Kernels  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIELDS = ("op,n,nb,s,tile,nodes,grid,gpus,path,ib_gbs,bcast,prio,panel,swap,task_cost_us,tasks,time_s,tflops,"
          "tflops_per_node,n_per_node,gib_per_node,gpu_busy,nic_tb,critical_path_s,work_s,nic_max_s,wall_s")


def square_grid(r):
    """The most square P x Q = r with P <= Q (Grid::square)."""
    p = int(math.isqrt(r))
    while r % p:
        p -= 1
    return p, r // p


def parse_grid(text):
    p, q = text.lower().split("x")
    return int(p), int(q)


def run_one(a, kern):
    P, Q = parse_grid(a.grid) if a.grid else square_grid(a.nodes)
    if P * Q != a.nodes:
        raise SystemExit("--grid %s is not %d nodes" % (a.grid, a.nodes))
    gp, gq = parse_grid(a.gpu_grid)
    S = a.nb * a.s
    n = a.n
    if n is None:  # weak scaling: n0 per node times sqrt(nodes), rounded to a multiple of the tile order
        n = int(round(a.n0 * math.sqrt(a.nodes) / S)) * S
    direct = a.path == "direct"
    m = Machine(P, Q, gp, gq, nvl_gbs=a.nvl_gbs, nvl_lat_us=a.nvl_lat_us,
                pcie_gbs=a.nvl_gbs if direct else a.pcie_gbs, pcie_lat_us=a.nvl_lat_us if direct else a.pcie_lat_us,
                ib_gbs=a.ib_gbs, ib_lat_us=a.ib_lat_us, tree=a.tree, nic_prio=a.nic_prio, nic_share=a.nic_share,
                bcast=a.bcast)
    w0 = time.time()
    if a.op == "potrf":
        g = cholesky(n, a.nb, a.s, m, kern, a.prec, a.prio)
    else:
        g = lu(n, a.nb, a.s, m, kern, a.prec, a.swap, a.panel, "end" if a.left_end else not a.no_left)
    r = simulate(g, m)
    esize = 8 if a.prec == "d" else 4
    row = dict(op=a.op, n=n, nb=a.nb, s=a.s, tile=S, nodes=a.nodes, grid="%dx%d" % (P, Q), gpus=gp * gq,
               path=a.path, ib_gbs=a.ib_gbs, bcast=("greedy" if a.tree else a.bcast or "direct"), prio=a.prio, panel=a.panel, swap=a.swap,
               task_cost_us=a.task_cost_us, tasks=r["tasks"], time_s="%.4f" % r["time"],
               tflops="%.1f" % r["tflops"], tflops_per_node="%.1f" % (r["tflops"] / a.nodes),
               n_per_node=int(round(n / math.sqrt(a.nodes))),
               gib_per_node="%.1f" % (n * n * esize / a.nodes / 2 ** 30), gpu_busy="%.3f" % r["gpu_busy"],
               nic_tb="%.3f" % (r["nic_bytes"] / 1e12),
               critical_path_s="%.3f" % r["critical_path"], work_s="%.3f" % r["work"], nic_max_s="%.3f" % r["nic_max"], wall_s="%.1f" % (time.time() - w0))
    if a.profile:
        print("# GPU busy per tenth of the run: " + " ".join("%.2f" % p for p in r["profile"]), file=sys.stderr)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=("potrf", "getrf"), default="potrf")
    ap.add_argument("--n", type=int, help="order (strong scaling)")
    ap.add_argument("--n0", type=int, help="order per node: n = n0 sqrt(nodes), a multiple of the tile order")
    ap.add_argument("--nb", type=int, default=4096, help="model tile order (recorded: 512 .. 4096)")
    ap.add_argument("--s", type=int, default=1, help="super-tiles of s x s model tiles (tile order s nb)")
    ap.add_argument("--nodes", type=int, nargs="+", default=[1])
    ap.add_argument("--grid", help="rank grid PxQ (default: the most square, P <= Q)")
    ap.add_argument("--gpu-grid", default="2x2", help="each node's device grid (default 2x2: four GPUs)")
    ap.add_argument("--prec", choices=("d", "s"), default="d")
    ap.add_argument("--path", choices=("staged", "direct"), default="staged",
                    help="between nodes: staged through host memory at PCIe speed, or the GPU-direct path")
    ap.add_argument("--nvl-gbs", type=float, default=370.0)
    ap.add_argument("--nvl-lat-us", type=float, default=3.0)
    ap.add_argument("--pcie-gbs", type=float, default=53.0)
    ap.add_argument("--pcie-lat-us", type=float, default=11.0)
    ap.add_argument("--ib-gbs", type=float, default=50.0)
    ap.add_argument("--ib-lat-us", type=float, default=2.0)
    ap.add_argument("--tree", action="store_true", help="nodes forward the tiles they received (broadcast trees; first-come NICs only)")
    ap.add_argument("--bcast", choices=("direct", "greedy", "binomial", "chain", "chain2"),
                    help="tiles read by several nodes (first-come NICs): from the owner (default), greedy forwarding "
                         "(= --tree), starfact's binomial trees, or chains, over the readers by priority")
    ap.add_argument("--nic-prio", action="store_true",
                    help="each NIC sends the waiting message of highest consumer priority first (default: first come)")
    ap.add_argument("--nic-share", action="store_true",
                    help="the NICs share their bandwidth among all messages in flight (max-min fair, as SimGrid)")
    ap.add_argument("--prio", choices=("cp", "none"), default="cp", help="Cholesky priorities")
    ap.add_argument("--panel", choices=("auto", "column", "split"), default="auto",
                    help="LU panel: auto (column on one grid row, else split: starfact's)")
    ap.add_argument("--swap", choices=("auto", "column", "host", "gpu", "rows"), default="auto", help="LU interchanges")
    ap.add_argument("--no-left", action="store_true", help="LU: leave out the interchanges of the columns of L")
    ap.add_argument("--left-end", action="store_true",
                    help="LU: the interchanges of the columns of L after the last step (default: in each step)")
    ap.add_argument("--models", default=os.path.join(ROOT, "sim", "models", "h200"))
    ap.add_argument("--task-cost-us", type=float, default=None,
                    help="per-task cost added to every model tile's kernel (default: the models' task_cost_us)")
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--profile", action="store_true", help="also print (stderr) the GPUs' busy fraction per tenth")
    a = ap.parse_args(argv)
    if (a.n is None) == (a.n0 is None):
        ap.error("give --n or --n0")
    kern = Kernels(a.models, a.prec, task_cost_us=a.task_cost_us)
    a.task_cost_us = kern.cost * 1e6
    if a.header:
        print(FIELDS)
    for nodes in list(a.nodes):
        a.nodes = nodes
        row = run_one(a, kern)
        print(",".join(str(row[f]) for f in FIELDS.split(",")), flush=True)


if __name__ == "__main__":
    main()
