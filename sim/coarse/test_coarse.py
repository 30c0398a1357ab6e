"""Tests of the coarse model (docs/simulation_scale.md) on tiny graphs whose schedules are computed by hand.

    /usr/bin/python3 -m pytest sim/coarse -q
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dags import cholesky, lu  # noqa: E402
from engine import Graph, Machine, simulate, tile_broadcast_children  # noqa: E402
from models import Kernels  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MS = 1e-3


class FixedKernels:
    """Kernel times in milliseconds: potrf 1, trsm 2, syrk 3, gemm 4; LU panel 5 + height, laswp 0.5, trsm 2, gemm 4."""

    def potrf(self, nb, s=1):
        return 1 * MS

    def trsm(self, nb, s=1):
        return 2 * MS

    def syrk(self, nb, s=1):
        return 3 * MS

    def gemm(self, nb, s=1):
        return 4 * MS

    lu_gemm = gemm
    lu_trsm = trsm

    def panel(self, nb, h, s=1):
        return (5 + h) * MS

    def laswp(self, nb, h, s=1):
        return 0.5 * MS


def links(**kw):
    """Round links: a tile of order 1000 in double (8 MB) takes 1 ms on PCIe, 2 ms on the NIC, 0.5 ms on NVLink."""
    args = dict(nvl_gbs=16.0, nvl_lat_us=0.0, pcie_gbs=8.0, pcie_lat_us=0.0, ib_gbs=4.0, ib_lat_us=0.0)
    args.update(kw)
    return args


def test_cholesky_one_gpu_is_the_sum_of_its_tasks():
    # mt = 3 on one GPU: 3 potrf, 3 trsm, 3 syrk, 1 gemm, one after the other.
    m = Machine(1, 1, 1, 1, **links())
    r = simulate(cholesky(3000, 1000, 1, m, FixedKernels()), m)
    assert r["tasks"] == 10
    assert r["time"] == pytest.approx((3 * 1 + 3 * 2 + 3 * 3 + 4) * MS)
    assert r["gpu_busy"] == pytest.approx(1.0)


def test_cholesky_two_nodes_staged_transfer():
    # mt = 2 on a 1 x 2 rank grid, one GPU each: tiles (0,0), (1,0) on node 0, (1,1) on node 1.
    # potrf(0,0) [0,1], trsm(1,0) [1,3]; (1,0) to node 1: PCIe out [3,4], NIC [4,6], PCIe in [6,7];
    # syrk(1,1) [7,10], potrf(1,1) [10,11] ms.
    m = Machine(1, 2, 1, 1, **links())
    r = simulate(cholesky(2000, 1000, 1, m, FixedKernels()), m)
    assert r["time"] == pytest.approx(11 * MS)
    assert r["nic_bytes"] == pytest.approx(8e6)
    assert r["critical_path"] == pytest.approx(11 * MS)  # one chain, nothing shares a link
    assert r["nic_max"] == pytest.approx(2 * MS)


def test_cholesky_gpu_direct_path_and_nvlink():
    # The same on one node of two GPUs (device grid 2 x 1): (1,0) and (1,1) on GPU 1, (0,0) on GPU 0.
    # potrf [0,1]; (0,0) over NVLink [1,1.5]; trsm [1.5,3.5], syrk [3.5,6.5], potrf [6.5,7.5] ms.
    m = Machine(1, 1, 2, 1, **links())
    r = simulate(cholesky(2000, 1000, 1, m, FixedKernels()), m)
    assert r["time"] == pytest.approx(7.5 * MS)
    assert r["nvl_bytes"] == pytest.approx(8e6)


def test_nic_sends_one_message_at_a_time():
    # One 8 MB item from node 0 to GPUs of nodes 1 and 2: the host hop [0,1], the NIC serves node 1 [1,3], then
    # node 2 [3,5]; each then crosses its node's PCIe [3,4] and [5,6]; the two readers take 1 ms each.
    m = Machine(1, 3, 1, 1, **links())
    g = Graph()
    x = g.item(0, 8e6)
    g.task(1, 1 * MS, 0, [x], "a", [])
    g.task(2, 1 * MS, 0, [x], "b", [])
    r = simulate(g, m)
    assert r["time"] == pytest.approx(7 * MS)
    assert r["nic_bytes"] == pytest.approx(16e6)


def test_shared_nic_bandwidth():
    # nic_share: the two messages of test_nic_sends_one_message_at_a_time leave together at half the rate each,
    # [1,5] both; then PCIe [5,6] on each node and the readers [6,7] ms.
    m = Machine(1, 3, 1, 1, nic_share=True, **links())
    g = Graph()
    x = g.item(0, 8e6)
    g.task(1, 1 * MS, 0, [x], "a", [])
    g.task(2, 1 * MS, 0, [x], "b", [])
    assert simulate(g, m)["time"] == pytest.approx(7 * MS)


def test_broadcast_shapes():
    # algorithms/tile_broadcast.hpp's shapes over 6 readers (positions 1..6, 0 the owner)
    assert tile_broadcast_children(6, "chain") == {0: [1], 1: [2], 2: [3], 3: [4], 4: [5], 5: [6], 6: []}
    assert tile_broadcast_children(6, "binomial") == {0: [1, 2, 4], 1: [], 2: [3], 3: [], 4: [5, 6], 5: [], 6: []}


def test_chain_forwards_from_where_the_tile_landed():
    # One 8 MB item from node 0 to one GPU each of nodes 1, 2, 3 (readers of priority 3, 2, 1: the chain's order).
    # Direct: host hop [0,1], the owner's NIC [1,3] [3,5] [5,7], PCIe [3,4] [5,6] [7,8], readers end at 5, 7, 9 ms.
    # Chain: the owner's NIC sends once [1,3]; node 1 forwards from its host [3,5], node 2 [5,7]: the same ends,
    # and the owner's NIC carries one message instead of three.
    for shape, owner_sends in (("direct", 3), ("chain", 1)):
        m = Machine(1, 4, 1, 1, bcast=shape, **links())
        g = Graph()
        x = g.item(0, 8e6)
        for node in (1, 2, 3):
            g.task(node, 1 * MS, 4 - node, [x], "r", [])
        r = simulate(g, m)
        assert r["time"] == pytest.approx(9 * MS)
        assert r["nic_bytes"] == pytest.approx(24e6)
        assert r["nic_max"] == pytest.approx(owner_sends * 2 * MS)


def test_priorities_order_a_gpu_queue():
    # Two ready tasks on GPU 0: the one of higher priority (B) runs first; C on GPU 1 reads B's output over NVLink.
    m = Machine(1, 1, 1, 2, **links())
    g = Graph()
    a0 = g.item(0, 8e6)
    g.task(0, 1 * MS, 1, [a0], "A", [])
    (b,) = g.task(0, 1 * MS, 5, [a0], "B", [8e6])
    g.task(1, 1 * MS, 0, [b], "C", [])
    assert simulate(g, m)["time"] == pytest.approx(2.5 * MS)  # B [0,1], NVLink [1,1.5], C [1.5,2.5]


def test_lu_one_gpu_is_the_sum_of_its_tasks():
    # mt = 2 on one GPU: panel(2) 7, laswp 0.5, trsm 2, gemm 4, panel(1) 6, the left laswp 0.5 ms.
    m = Machine(1, 1, 1, 1, **links())
    r = simulate(lu(2000, 1000, 1, m, FixedKernels()), m)
    assert r["time"] == pytest.approx(20 * MS)


def test_h200_models_and_super_tiles():
    k = Kernels(os.path.join(ROOT, "sim", "models", "h200"), "d", task_cost_us=0)
    assert k.gemm(4096) == pytest.approx(2556.381e-6)
    assert k.gemm(4096, 4) == pytest.approx(64 * 2556.381e-6)
    # potrf of 2 x 2 tiles: 2 potrf, 1 trsm, 1 syrk
    assert k.potrf(4096, 2) == pytest.approx(2 * k.potrf(4096) + k.trsm(4096) + k.syrk(4096))
    # the LU's recorded panel heights, and the fitted line beyond them
    assert k.panel(4096, 16) == pytest.approx(k.col[("getrf_panel", 4096)][16])
    a, b = k.fits[("getrf_panel", 4096)]
    assert k.panel(4096, 40) == pytest.approx(a + 40 * b)


def reads_of(g, t):
    return [i for i, cons in enumerate(g.i_cons) if t in cons]


def test_lu_interchanges_wait_for_their_panel():
    # Every interchange task of step k reads the pivots that step k's panel writes, in every swap mode.
    m = Machine(2, 1, 2, 1, **links())
    for swap in ("column", "gpu", "host", "rows"):
        mm = Machine(1, 1, 2, 1, **links()) if swap == "column" else m
        g = lu(5000, 1000, 1, mm, FixedKernels(), swap=swap, panel="column")
        panels = [t for t, kd in enumerate(g.t_kind) if kd == "panel"]
        swaps = [t for t, kd in enumerate(g.t_kind) if kd in ("laswp", "swap", "swap_top", "swap_pack")]
        assert swaps
        for t in swaps:
            assert any(g.i_prod[i] in panels for i in reads_of(g, t)), (swap, g.t_kind[t])


def test_lu_gpu_interchanges_one_buffer_per_rank():
    # 2 x 1 grid of nodes with two GPUs each, 5 x 5 tiles: step 0's rows 1..4 lie on both GPUs of both nodes.
    # 'gpu' (starfact): the swaps run on the GPUs, each rank's GPUs pass one exchange buffer, so the top task reads
    # two; 'host': on the host side (executors ngpu..), one buffer per GPU, four.
    m = Machine(2, 1, 2, 1, **links())
    ngpu = m.nodes * m.gpus
    for swap, nbuf, host in (("gpu", 2, False), ("host", 4, True)):
        g = lu(5000, 1000, 1, m, FixedKernels(), swap=swap)
        tops = [t for t, kd in enumerate(g.t_kind) if kd == "swap_top"]
        t0 = tops[0]  # step 0, column 1
        bufs = [i for i in reads_of(g, t0) if g.i_prod[i] >= 0 and g.t_kind[g.i_prod[i]] == "swap"]
        assert len(bufs) == nbuf, swap
        assert all((g.t_exe[g.i_prod[i]] >= ngpu) == host for i in bufs)
        assert (g.t_exe[t0] >= ngpu) == host


def test_lu_gpu_interchanges_two_nodes():
    # 2 x 1 grid, one GPU each, 2 x 2 tiles, no interchanges of L. Links: a tile 1 ms of PCIe, 2 of NIC (4 staged);
    # the pivots (4000 B) 0.5 us of PCIe, 1 us of NIC. (1,0) to node 0 [0,4] (the top tile (0,1) to node 1 meanwhile);
    # panel on GPU 0 [4,11]; the pivots go first (as StarPU-MPI posts them, for the interchange tasks submitted
    # first), in at node 1 at 11.002, then L(1,0) [11.0005,15.0005]. Swap on GPU 1 [11.002,11.502], its buffer back
    # [11.502,15.502]; swap_top on GPU 0 [15.502,16.002], trsm [16.002,18.002], u to node 1 [18.002,22.002], gemm
    # [22.002,26.002], panel(1) on GPU 1 [26.002,32.002].
    m = Machine(2, 1, 1, 1, **links())
    r = simulate(lu(2000, 1000, 1, m, FixedKernels(), swap="gpu", panel="column", left=False), m)
    assert r["time"] == pytest.approx(32.002 * MS)


def test_lu_tournament_two_nodes():
    # The same machine and matrix with starfact's panel on a grid of two rows (panel 'auto': tournament pivoting).
    # Step 0: the candidates of (0,0) on GPU 0 and of (1,0) on GPU 1, panel(1) each [0,6]; GPU 1's to node 0 [6,10];
    # the reduction on GPU 0, panel(2) [10,17]; the pivots at node 1 at 17.002. Column 0's interchanges: swap on GPU 1
    # [17.002,17.502] (the top tile (0,0) came at t = 0), its buffer back [17.502,21.502], swap_top on GPU 0
    # [21.502,22.002], the diagonal tile's LU without pivoting, panel(1), [22.002,28.002]. Column 1's swap on GPU 1
    # [17.502,18.002], its buffer at node 0 before 28; swap_top on GPU 0 [28.002,28.502], trsm [28.502,30.502]. The
    # diagonal factor to node 1 (PCIe [28.002,29.002], NIC [29.002,31.002], PCIe [31.002,32.002]), the solve of (1,0)
    # on GPU 1 [32.002,34.002]; u behind it on node 0's NIC (PCIe [30.502,31.502], NIC [31.502,33.502], PCIe
    # [33.502,34.502]), gemm [34.502,38.502]; step 1, a column of one tile: panel(1) on GPU 1 [38.502,44.502].
    m = Machine(2, 1, 1, 1, **links())
    g = lu(2000, 1000, 1, m, FixedKernels(), swap="gpu", left=False)
    kinds = [kd for kd in g.t_kind]
    assert kinds.count("panel_local") == 2 and kinds.count("panel_reduce") == 1 and kinds.count("panel") == 1
    r = simulate(g, m)
    assert r["time"] == pytest.approx(44.502 * MS)


def test_lu_auto_exchanges_rows_on_several_grid_rows():
    # starfact's blocking forms on a grid of several rows exchange rows ('rows': the top tile's rows packed first);
    # on one grid row, one task per column.
    g = lu(5000, 1000, 1, Machine(2, 1, 2, 1, **links()), FixedKernels())
    assert "swap_pack" in g.t_kind
    g = lu(5000, 1000, 1, Machine(1, 2, 2, 1, **links()), FixedKernels())
    assert "laswp" in g.t_kind and "swap" not in g.t_kind
