"""Task graphs of the coarse model: the right-looking tile Cholesky and tile LU as starfact submits them
(algorithms/potrf.cpp, algorithms/getrf.cpp, algorithms/lu_interchanges.hpp; docs/mpi.md), owner computes on a
2D block-cyclic distribution (engine.Machine), with starfact's priorities. Tiles are super-tiles of s x s model
tiles of order nb (s = 1: the model tiles themselves); n must be a multiple of s * nb.
"""
from engine import Graph

ESIZE = {"d": 8, "s": 4}


def cholesky(n, nb, s, m, k, prec="d", prio="cp"):
    """Right-looking tile Cholesky (lower). prio: 'cp' starfact's critical-path priorities
    (2 (mt - n) - (m - n), potrf one more), 'none' all equal (submission order)."""
    S = nb * s
    if n % S:
        raise ValueError("n = %d is not a multiple of the tile order %d" % (n, S))
    mt = n // S
    g = Graph()
    g.flops = n ** 3 / 3.0
    tb = S * S * ESIZE[prec]
    t_potrf, t_trsm, t_syrk, t_gemm = k.potrf(nb, s), k.trsm(nb, s), k.syrk(nb, s), k.gemm(nb, s)
    cur = {}
    for i in range(mt):
        for j in range(i + 1):
            cur[(i, j)] = g.item(m.owner_gpu(i, j), tb)

    def pr(mm, nn, extra=0):
        return 2 * (mt - nn) - (mm - nn) + extra if prio == "cp" else 0

    for kk in range(mt):
        (diag,) = g.task(m.owner_gpu(kk, kk), t_potrf, pr(kk, kk, 1), [cur[(kk, kk)]], "potrf", [tb])
        cur[(kk, kk)] = diag
        col = {}
        for i in range(kk + 1, mt):
            (col[i],) = g.task(m.owner_gpu(i, kk), t_trsm, pr(i, kk), [diag, cur[(i, kk)]], "trsm", [tb])
            cur[(i, kk)] = col[i]
        for i in range(kk + 1, mt):
            (cur[(i, i)],) = g.task(m.owner_gpu(i, i), t_syrk, pr(i, i), [col[i], cur[(i, i)]], "syrk", [tb])
            for j in range(kk + 1, i):
                (cur[(i, j)],) = g.task(m.owner_gpu(i, j), t_gemm, pr(i, j), [col[i], col[j], cur[(i, j)]], "gemm",
                                        [tb])
    return g


def lu(n, nb, s, m, k, prec="d", swap="auto", panel="auto", left=True):
    """Right-looking tile LU with partial pivoting (algorithms/getrf.cpp).

    panel: 'column' (one task over the tile column on the GPU of the diagonal tile, the column gathered there:
    starfact on a grid of one row, or with STARFACT_LU_PANEL=gathered), 'split' (starfact's tournament pivoting on
    P > 1, algorithms/lu_tournament.hpp: each GPU holding tiles of the column picks candidates among its own, a
    reduction on the diagonal tile's GPU picks the pivots, the column's own interchanges as a trailing column's, the
    diagonal tile's LU without pivoting, then each tile's solve on its GPU), 'auto': 'column' when P == 1, else
    'split'.
    swap: the row interchanges of a step on a tile column; 'column' one task over the column (starfact on a grid of
    one row), 'gpu' tile by tile on the GPUs (starfact on P > 1, codelets/laswp_tile.cpp: each GPU holding tiles of
    the column swaps them against the top tile, which travels whole to every rank, and adds their rows bound for the
    top tile to its rank's exchange buffer, one whole tile per rank, passed from GPU to GPU of the rank; the top tile's
    owner then reads the buffers), 'host' as 'gpu' but on each tile's owner through the host, one buffer per GPU
    (the earlier starfact, whose gather, spread and top tasks had a CPU implementation only, so each tile crossed
    PCIe both ways); 'rows' tile by tile on the GPUs, and only the rows that move cross between ranks (ScaLAPACK's
    row exchanges: about nb / P rows to and from each rank per column and step, one part per GPU: starfact's blocking
    forms, algorithms/lu_row_exchange.hpp); 'auto': 'column' when P == 1, else 'rows'. Every interchange task reads
    its step's pivots, a small item that the panel writes.
    left: also the interchanges of the columns of L (True: in each step, lowest priority; 'end': after the last
    step, step by step; False: left out).
    """
    S = nb * s
    if n % S:
        raise ValueError("n = %d is not a multiple of the tile order %d" % (n, S))
    mt = n // S
    P = m.P
    if swap == "auto":  # starfact's blocking forms; its submit forms exchange tiles ('gpu')
        swap = "column" if P == 1 else "rows"
    if panel == "auto":
        panel = "column" if P == 1 else "split"
    g = Graph()
    g.flops = 2.0 * n ** 3 / 3.0
    tb = S * S * ESIZE[prec]
    ngpu = m.nodes * m.gpus
    t_trsm, t_gemm = k.lu_trsm(nb, s), k.lu_gemm(nb, s)
    pc_bw, pc_lat = m.pcie
    cur = {}
    for i in range(mt):
        for j in range(mt):
            cur[(i, j)] = g.item(m.owner_gpu(i, j), tb)

    def groups(kk, j, first):
        """Tiles first .. mt-1 of column j by owner GPU, in row order."""
        out = {}
        for i in range(first, mt):
            out.setdefault(m.owner_gpu(i, j), []).append(i)
        return out

    pb = 4 * S  # a step's pivots (ints)

    def interchanges(kk, j, pr, piv, after=()):
        pre = [piv] + list(after)  # what every task of the interchanges waits for
        h = mt - kk
        if swap == "column":
            rows = list(range(kk, mt))
            outs = g.task(m.owner_gpu(kk, j), k.laswp(nb, h, s), pr, pre + [cur[(i, j)] for i in rows], "laswp",
                          [tb] * len(rows))
            for i, o in zip(rows, outs):
                cur[(i, j)] = o
            return
        top = cur[(kk, j)]
        part = tb
        og = m.owner_gpu(kk, j)
        if swap == "rows":
            # only the rows that move: the top tile's owner sends each rank the rows bound for it (about nb / P
            # rows each), and each rank sends back the rows bound for the top tile
            part = tb // P
            (top,) = g.task(og, k.laswp(nb, 1, s), pr, pre + [top], "swap_pack", [part])
        bufs = []
        rank_buf = {}  # 'gpu': the exchange buffer of each rank so far
        for gpu, rows in groups(kk, j, kk + 1).items():
            hl = len(rows)
            if swap in ("gpu", "rows"):
                exe, dur = gpu, k.laswp(nb, hl, s)
            else:
                exe, dur = ngpu + gpu, 2 * (pc_lat + hl * tb / pc_bw)
            node = gpu // m.gpus
            prev = [rank_buf[node]] if swap == "gpu" and node in rank_buf else []
            outs = g.task(exe, dur, pr, pre + [top] + [cur[(i, j)] for i in rows] + prev, "swap", [tb] * hl + [part],
                          out_gpu=gpu)
            for i, o in zip(rows, outs[:hl]):
                cur[(i, j)] = o
            if swap == "gpu":
                rank_buf[node] = outs[hl]
            else:
                bufs.append(outs[hl])
        bufs += list(rank_buf.values())
        exe, dur = (og, k.laswp(nb, 1, s)) if swap in ("gpu", "rows") else (ngpu + og, 2 * (pc_lat + tb / pc_bw))
        (cur[(kk, j)],) = g.task(exe, dur, pr, pre + [cur[(kk, j)], top] + bufs, "swap_top", [tb], out_gpu=og)

    pivots = []
    for kk in range(mt):
        h = mt - kk
        ppr = 2 * (mt - kk) + 1
        rows = list(range(kk, mt))
        if panel == "column" or h == 1:  # (a column of one tile: starfact's panel in place)
            outs = g.task(m.owner_gpu(kk, kk), k.panel(nb, h, s), ppr, [cur[(i, kk)] for i in rows], "panel",
                          [pb] + [tb] * h)  # the pivots first: their messages go ahead of L's tiles
            piv = outs[0]
            L = dict(zip(rows, outs[1:]))
        else:
            cands, parts = [], []
            for gpu, rws in groups(kk, kk, kk).items():
                (c,) = g.task(gpu, k.panel(nb, len(rws), s), ppr, [cur[(i, kk)] for i in rws], "panel_local", [tb])
                cands.append(c)
                parts.append((gpu, rws))
            red = max(1, (len(cands) - 1).bit_length())
            (piv,) = g.task(m.owner_gpu(kk, kk), red * k.panel(nb, 2, s), ppr, cands, "panel_reduce", [pb])
            interchanges(kk, kk, ppr, piv)  # the winners to the top of the column
            (d,) = g.task(m.owner_gpu(kk, kk), k.panel(nb, 1, s), ppr, [cur[(kk, kk)]], "getrf_nopiv", [tb])
            L = {kk: d}
            for gpu, rws in parts:
                rws = [i for i in rws if i != kk]
                if rws:
                    outs = g.task(gpu, len(rws) * t_trsm, ppr, [d] + [cur[(i, kk)] for i in rws], "panel_solve",
                                  [tb] * len(rws))
                    L.update(zip(rws, outs))
        for i in rows:
            cur[(i, kk)] = L[i]
        for j in range(kk + 1, mt):
            pr = 2 * (mt - j)
            interchanges(kk, j, pr, piv)
            (u,) = g.task(m.owner_gpu(kk, j), t_trsm, pr, [L[kk], cur[(kk, j)]], "trsm", [tb])
            cur[(kk, j)] = u
            for i in range(kk + 1, mt):
                (cur[(i, j)],) = g.task(m.owner_gpu(i, j), t_gemm, pr - 1, [L[i], u, cur[(i, j)]], "gemm", [tb])
        pivots.append(piv)
        if left is True:
            for j in range(kk):
                interchanges(kk, j, 0, piv)
    if left == "end":  # the interchanges of L after the last step, step by step
        last = [cur[(mt - 1, mt - 1)]]
        for kk in range(1, mt):
            for j in range(kk):
                interchanges(kk, j, 0, pivots[kk], last)
    return g
