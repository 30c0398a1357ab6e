"""Discrete-event engine of the coarse model (docs/simulation_scale.md).

A graph is a list of tasks, each on one executor (a GPU, or the host side of a GPU), and of data items (one version
of one tile, or of an exchange buffer): a task reads items and produces items, which live on the GPU of the task
that produced them (an initial tile on its owner's GPU, available at time 0). A task enters its executor's queue
once every item it reads is on its GPU; an idle executor starts the highest-priority task of its queue (ties: the
order of submission). When a task ends, each item it produced is sent to every GPU whose tasks read it:

- GPUs of one node: NVLink, serialised on the sender's egress and the receiver's ingress port;
- another node: once per item and node (the node's copy, as StarPU-MPI's cache): the sending GPU's host hop
  (`pcie`: PCIe for a copy staged through the host, NVLink figures for the GPU-direct path), the sending node's NIC
  egress and the receiving node's NIC ingress (one message at a time per NIC and direction), then the host hop of
  each GPU of that node that reads it. A node may also forward an item it received, from its host memory (`bcast`:
  "greedy", the next destination node served by whichever holder's NIC is free first; "chain" and "binomial",
  starfact's fixed shapes over the destinations in the order of their consumers' priorities, where three nodes or
  more read the item).

Each hop is booked when the data is at its start (events in time order): start = max(now, each link's next free
time), end = start + latency + bytes / bandwidth; so a link serves its transfers first come, first served, and an
item's destinations in the order of their consumers' priorities (highest first). A NIC sends one message at a time:
the next one when the previous has left (`nic_prio`: the waiting message of highest priority first). With
`nic_share` the NICs share their bandwidth instead, as SimGrid's network model does: every message in flight
at once, at max-min fair rates over the sending node's egress and the receiving node's ingress.
"""
import heapq


class Machine:
    """Nodes of `gpus` GPUs (a gp x gq device grid), one rank per node on a P x Q grid, and their links."""

    def __init__(self, P=1, Q=1, gp=2, gq=2, nvl_gbs=370.0, nvl_lat_us=3.0, pcie_gbs=53.0, pcie_lat_us=11.0,
                 ib_gbs=50.0, ib_lat_us=2.0, tree=False, nic_prio=False, nic_share=False, bcast=None):
        self.P, self.Q, self.gp, self.gq = P, Q, gp, gq
        self.nodes = P * Q
        self.gpus = gp * gq
        self.nvl = (nvl_gbs * 1e9, nvl_lat_us * 1e-6)
        self.pcie = (pcie_gbs * 1e9, pcie_lat_us * 1e-6)
        self.ib = (ib_gbs * 1e9, ib_lat_us * 1e-6)
        # how a tile read by several nodes reaches them (first-come NICs): "direct" from its owner, "greedy" (tree)
        # each holder serves the next node waiting, "binomial" / "chain" fixed trees over the destinations in the
        # order of their consumers' priorities (tile_broadcast_children)
        self.bcast = bcast or ("greedy" if tree else "direct")
        self.tree = self.bcast == "greedy"
        self.nic_prio = nic_prio
        self.nic_share = nic_share

    def owner_node(self, i, j):
        return (i % self.P) * self.Q + (j % self.Q)

    def owner_gpu(self, i, j):
        """Global GPU of tile (i, j): the rank's tiles 2D block-cyclic over its device grid."""
        li, lj = i // self.P, j // self.Q
        return self.owner_node(i, j) * self.gpus + (li % self.gp) * self.gq + (lj % self.gq)


BCAST_MIN_NODES = 3  # starfact's kBroadcastMinRanks: fewer readers go by direct sends


def tile_broadcast_children(d, shape):
    """Children of each position of a broadcast to d destinations (position 0: the owner, 1..d: the destinations,
    most urgent first), in the order each position sends. "binomial": algorithms/tile_broadcast.hpp's tree (the owner
    sends to 1, 2, 4, ...; position p to p + 1, p + 2, ... below its lowest set bit); "chain": p to p + 1."""
    kids = {}
    for p in range(d + 1):
        if shape.startswith("chain"):  # "chain": one chain; "chain2": two, the owner starting both
            c = 2 if shape == "chain2" else 1
            kids[p] = [q for q in range(p + 1, p + c + 1) if q <= d] if p == 0 else ([p + c] if p + c <= d else [])
            continue
        low = p & -p if p else 1 << 62
        kids[p] = []
        step = 1
        while step < low and p + step <= d:
            kids[p].append(p + step)
            step *= 2
    return kids


class Graph:
    """Tasks and items as flat lists (built by sim/coarse/dags.py)."""

    def __init__(self):
        self.t_exe, self.t_dur, self.t_prio, self.t_nin, self.t_outs, self.t_kind = [], [], [], [], [], []
        self.i_gpu, self.i_bytes, self.i_cons, self.i_prod = [], [], [], []
        self.flops = 0.0

    def item(self, gpu, nbytes, producer=-1):
        self.i_gpu.append(gpu)
        self.i_bytes.append(nbytes)
        self.i_cons.append([])
        self.i_prod.append(producer)
        return len(self.i_gpu) - 1

    def task(self, exe, dur, prio, reads, kind, outs_bytes, out_gpu=None):
        """Adds a task reading `reads` (item ids) and producing one item per entry of outs_bytes; returns the ids."""
        t = len(self.t_exe)
        self.t_exe.append(exe)
        self.t_dur.append(dur)
        self.t_prio.append(prio)
        self.t_kind.append(kind)
        reads = list(dict.fromkeys(reads))
        self.t_nin.append(len(reads))
        for r in reads:
            self.i_cons[r].append(t)
        g = exe if out_gpu is None else out_gpu
        outs = [self.item(g, b, t) for b in outs_bytes]
        self.t_outs.append(outs)
        return outs


def simulate(graph, m):
    """Runs the graph on machine m; returns a dict of results (makespan s, bytes over NICs and NVLink, busy time)."""
    G = m.gpus
    ngpu = m.nodes * G
    nexe = ngpu * 2
    gpu_of_exe = [e if e < ngpu else e - ngpu for e in range(nexe)]
    nvl_out = [0.0] * ngpu
    nvl_in = [0.0] * ngpu
    pc_out = [0.0] * ngpu
    pc_in = [0.0] * ngpu
    nic_out = [0.0] * m.nodes
    nic_in = [0.0] * m.nodes
    nic_sent = [0.0] * m.nodes
    nvl_bw, nvl_lat = m.nvl
    pc_bw, pc_lat = m.pcie
    ib_bw, ib_lat = m.ib
    stats = {"nic_bytes": 0.0, "nvl_bytes": 0.0, "pcie_bytes": 0.0}

    n_t = len(graph.t_exe)
    remaining = list(graph.t_nin)
    ready_at = [0.0] * n_t
    busy = [0.0] * nexe
    spans = []  # (start, duration) of every GPU task: the busy profile
    queues = [[] for _ in range(nexe)]
    idle = [True] * nexe
    events = []  # (time, order, kind, id): kind 0 = a task ends, 1 = a task is ready, 2 = a node's NIC may send
    # an item (id: (item, node)), 3 = an item reached a node, 4 = an idle
    # executor takes its best task (after every task ready at that instant was queued)
    nicq = [[] for _ in range(m.nodes)]
    nic_busy = [0.0] * m.nodes
    flows = {}  # nic_share: message id -> [source node, destination node, bytes left, rate, item]
    share_state = {"t": 0.0, "v": 0, "next": 0}
    flight = {}  # item -> [nodes still to receive it, {node: [(gpu, its consumer tasks)]}]
    seq = 0
    t_exe, t_dur, t_prio, t_outs = graph.t_exe, graph.t_dur, graph.t_prio, graph.t_outs
    i_gpu, i_bytes, i_cons = graph.i_gpu, graph.i_bytes, graph.i_cons

    def deliver(item, g, when, tasks):
        """The item is on GPU g at `when`: its consumers there may become ready."""
        nonlocal seq
        for t in tasks:
            if when > ready_at[t]:
                ready_at[t] = when
            remaining[t] -= 1
            if remaining[t] == 0:
                seq += 1
                heapq.heappush(events, (ready_at[t], seq, 1, t))

    def release(item, now):
        """The item is ready on its GPU at `now`: sends it where it is read."""
        nonlocal seq
        src = i_gpu[item]
        nbytes = i_bytes[item]
        bygpu = {}
        best = {}
        for t in i_cons[item]:
            g = gpu_of_exe[t_exe[t]]
            bygpu.setdefault(g, []).append(t)
            p = t_prio[t]
            if g not in best or p > best[g]:
                best[g] = p
        snode = src // G
        remote = {}
        for g in sorted(bygpu, key=lambda g: -best[g]):
            if g == src:
                deliver(item, g, now, bygpu[g])
            elif g // G == snode:
                st = max(now, nvl_out[src], nvl_in[g])
                end = st + nvl_lat + nbytes / nvl_bw
                nvl_out[src] = end
                nvl_in[g] = end
                stats["nvl_bytes"] += nbytes
                deliver(item, g, end, bygpu[g])
            else:
                remote.setdefault(g // G, []).append(g)
        if remote:
            st = max(now, pc_out[src])
            hs = st + pc_lat + nbytes / pc_bw
            pc_out[src] = hs
            stats["pcie_bytes"] += nbytes
            flight[item] = [list(remote), {dn: [(g, bygpu[g]) for g in gs] for dn, gs in remote.items()},
                            max(best.values()), None]
            if m.bcast in ("binomial", "chain", "chain2") and len(remote) >= BCAST_MIN_NODES and not m.nic_prio \
                    and not m.nic_share:
                pos = [snode] + list(remote)
                kids = tile_broadcast_children(len(remote), m.bcast)
                flight[item][3] = {pos[p]: [pos[c] for c in kids[p]] for p in kids if kids[p]}
            seq += 1
            heapq.heappush(events, (hs, seq, 2, (item, snode)))

    def forward(item, holder, now):
        """The holder node's NIC is free (or the item just got there): it sends to the next node waiting."""
        nonlocal seq
        if m.nic_share:
            fl = flight.get(item)
            if fl is None:
                return
            share_advance(now)
            for dn in fl[0]:
                fid = share_state["next"]
                share_state["next"] += 1
                flows[fid] = [holder, dn, float(i_bytes[item]), 0.0, item]
                stats["nic_bytes"] += i_bytes[item]
                nic_sent[holder] += i_bytes[item]
            fl[0] = []
            share_reschedule(now)
            return
        if m.nic_prio:
            if item is not None:  # the item reached the holder's host: its messages join the NIC's queue
                fl = flight.get(item)
                for dn in fl[0]:
                    seq += 1
                    heapq.heappush(nicq[holder], (-fl[2], seq, item, dn))
                fl[0] = []
            if nic_busy[holder] > now or not nicq[holder]:
                return
            _, _, item, dn = heapq.heappop(nicq[holder])
            nbytes = i_bytes[item]
            st = max(now, nic_in[dn])
            end = st + ib_lat + nbytes / ib_bw
            nic_busy[holder] = end
            nic_in[dn] = end
            stats["nic_bytes"] += nbytes
            nic_sent[holder] += nbytes
            seq += 1
            heapq.heappush(events, (end, seq, 3, (item, dn)))
            seq += 1
            heapq.heappush(events, (end, seq, 2, (None, holder)))
            return
        fl = flight.get(item)
        if fl is None:
            return
        todo = fl[0] if fl[3] is None else fl[3].get(holder)  # a fixed tree: this holder's own children
        if not todo:
            return
        dn = todo.pop(0)
        if fl[3] is not None:
            fl[0].remove(dn)
        nbytes = i_bytes[item]
        st = max(now, nic_out[holder], nic_in[dn])
        end = st + ib_lat + nbytes / ib_bw
        nic_out[holder] = end
        nic_in[dn] = end
        stats["nic_bytes"] += nbytes
        nic_sent[holder] += nbytes
        seq += 1
        heapq.heappush(events, (end, seq, 3, (item, dn)))
        if todo:
            seq += 1
            heapq.heappush(events, (end, seq, 2, (item, holder)))

    def share_advance(now):
        dt = now - share_state["t"]
        if dt > 0:
            for f in flows.values():
                f[2] -= f[3] * dt
        share_state["t"] = now

    def share_reschedule(now):
        """Max-min fair rates of the messages in flight over the NICs (each node's egress and ingress: ib_bw)."""
        nonlocal seq
        active = {fid: (("o", f[0]), ("i", f[1])) for fid, f in flows.items()}
        cap = {}
        users = {}
        for fid, ls in active.items():
            for l in ls:
                cap[l] = ib_bw
                users.setdefault(l, set()).add(fid)
        while active:
            l = min((l for l in users if users[l]), key=lambda l: cap[l] / len(users[l]))
            r = cap[l] / len(users[l])
            for fid in list(users[l]):
                flows[fid][3] = r
                for l2 in active.pop(fid):
                    cap[l2] -= r
                    users[l2].discard(fid)
        share_state["v"] += 1
        if flows:
            t = min(f[2] / f[3] for f in flows.values())
            seq += 1
            heapq.heappush(events, (now + max(t, 0.0), seq, 5, share_state["v"]))

    def share_done(version, now):
        if version != share_state["v"]:
            return
        share_advance(now)
        nonlocal seq
        for fid in [fid for fid, f in flows.items() if f[2] <= 1e-6 * max(1.0, f[3])]:
            src, dn, _, _, item = flows.pop(fid)
            seq += 1
            heapq.heappush(events, (now + ib_lat, seq, 3, (item, dn)))
        share_reschedule(now)

    def landed(item, dn, now):
        fl = flight[item]
        nbytes = i_bytes[item]
        for g, tasks in fl[1].pop(dn):
            st = max(now, pc_in[g])
            end = st + pc_lat + nbytes / pc_bw
            pc_in[g] = end
            stats["pcie_bytes"] += nbytes
            deliver(item, g, end, tasks)
        if (m.tree or fl[3] is not None) and not m.nic_prio:  # forwarded from where it landed (host memory)
            forward(item, dn, now)
        if not fl[0] and not fl[1] and not m.nic_prio and not m.nic_share:
            del flight[item]

    def start(e, now):
        nonlocal seq
        q = queues[e]
        if not q:
            idle[e] = True
            return
        _, _, t = heapq.heappop(q)
        idle[e] = False
        busy[e] += t_dur[t]
        if e < ngpu:
            spans.append((now, t_dur[t]))
        seq += 1
        heapq.heappush(events, (now + t_dur[t], seq, 0, t))

    for t in range(n_t):
        if remaining[t] == 0:
            seq += 1
            heapq.heappush(events, (0.0, seq, 1, t))
    for it in range(len(i_gpu)):
        if graph.i_prod[it] < 0 and i_cons[it]:
            release(it, 0.0)

    now = 0.0
    done = 0
    while events:
        now, _, kind, t = heapq.heappop(events)
        if kind == 2:
            forward(t[0], t[1], now)
            continue
        if kind == 3:
            landed(t[0], t[1], now)
            continue
        if kind == 5:
            share_done(t, now)
            continue
        if kind == 4:  # dispatch: every task ready at this instant is queued by now
            if idle[t]:
                start(t, now)
            continue
        e = t_exe[t]
        if kind == 1:
            heapq.heappush(queues[e], (-t_prio[t], t, t))
            if idle[e]:
                seq += 1
                heapq.heappush(events, (now, seq, 4, e))
        else:
            done += 1
            start(e, now)
            for it in t_outs[t]:
                release(it, now)
    if done != n_t:
        raise RuntimeError("coarse model: %d of %d tasks ran (a dependency cycle?)" % (done, n_t))
    res = dict(stats)
    res["time"] = now
    res["tasks"] = n_t
    res["gpu_busy"] = sum(busy[:ngpu]) / (ngpu * now) if now > 0 else 0.0
    res["flops"] = graph.flops
    res["work"] = sum(t_dur) / ngpu  # every GPU busy all the time (host-side tasks counted as GPU work)
    res["nic_max"] = max(nic_sent) / ib_bw  # the busiest NIC's egress alone
    res["critical_path"] = critical_path(graph, m)
    bins = 10
    prof = [0.0] * bins
    w = now / bins if now > 0 else 1.0
    for st, d in spans:  # spread each task over the bins it covers
        en = st + d
        b = int(st / w)
        while st < en and b < bins:
            edge = min(en, (b + 1) * w)
            prof[b] += edge - st
            st = edge
            b += 1
    res["profile"] = [p / (w * ngpu) for p in prof]
    res["tflops"] = graph.flops / now / 1e12 if now > 0 else 0.0
    return res


def critical_path(graph, m):
    """The longest chain of the graph: task times plus each input's transfer on idle links (seconds)."""
    G = m.gpus
    ngpu = m.nodes * G
    nvl_bw, nvl_lat = m.nvl
    pc_bw, pc_lat = m.pcie
    ib_bw, ib_lat = m.ib
    inputs = [[] for _ in graph.t_exe]
    for it, cons in enumerate(graph.i_cons):
        for t in cons:
            inputs[t].append(it)
    ready = [0.0] * len(graph.i_gpu)  # when each item is ready on its GPU
    best = 0.0
    for t, exe in enumerate(graph.t_exe):  # tasks were added in an order that respects the graph
        g = exe if exe < ngpu else exe - ngpu
        start = 0.0
        for it in inputs[t]:
            src, b = graph.i_gpu[it], graph.i_bytes[it]
            a = ready[it]
            if src != g:
                if src // G == g // G:
                    a += nvl_lat + b / nvl_bw
                else:
                    a += 2 * (pc_lat + b / pc_bw) + ib_lat + b / ib_bw
            start = max(start, a)
        end = start + graph.t_dur[t]
        for it in graph.t_outs[t]:
            ready[it] = end
        best = max(best, end)
    return best
