#!/usr/bin/env python3
"""Writes the bus files of a simulated GPU node for StarPU's SimGrid mode (docs/simulation.md).

StarPU in SimGrid mode reads, for the machine named by STARPU_HOSTNAME, from $STARPU_PERF_MODEL_DIR/bus/:
  HOST.platform.v4.xml  the SimGrid platform: hosts CPU0.., CUDA0.. (with their memory), RAM, and the links and
                        routes between RAM and the GPUs and between GPUs; transfers are simulated over it
  HOST.bandwidth        MB/s and HOST.latency (us) between memory nodes (0: RAM, 1..: the GPUs), which the
                        schedulers' transfer estimates read
A real run writes these itself (StarPU's bus calibration). This script writes them for a node that need not exist:
N GPUs behind an NVLink switch, each with its own PCIe link to the host and pairs of GPUs sharing a PCIe switch's
uplink, as in an 8-GPU HGX board. Every figure is a parameter; the defaults are assumptions (an HGX H100 board),
listed in docs/simulation.md, except where --from-bus takes the host <-> GPU figures and the GPU memory that the
calibration run measured.

  sim/make_platform.py --host h100x8 --gpus 8 --out DIR/bus [--cpus 16] [--from-bus sim/models/h200/bus/h200]
"""
import argparse
import math
import os
import re
import sys

MAXNODES = 16  # StarPU's --enable-maxnodes (deps/starpu-config.sh): the matrices' width


def measured_host_links(prefix):
    """RAM->CUDA0 and CUDA0->RAM bandwidth (B/s) and latency (s) from a calibration run's platform file, and CUDA0's
    memory (bytes: StarPU's allowance on the calibrated GPU, its "memsize")."""
    path = prefix + ".platform.v4.xml"
    text = open(path).read()
    out = {}
    for name in ("RAM-CUDA0", "CUDA0-RAM"):
        m = re.search(r'<link id="%s" bandwidth="([0-9.e+]+)Bps" latency="([0-9.e+-]+)s"' % name, text)
        if not m:
            sys.exit("make_platform.py: no link %s in %s" % (name, path))
        out[name] = (float(m.group(1)), float(m.group(2)))
    m = re.search(r'<host id="CUDA0"[^>]*>\s*<prop id="memsize" value="([0-9]+)"', text)
    if not m:
        sys.exit("make_platform.py: no memsize of CUDA0 in %s" % path)
    out["memsize"] = int(m.group(1))
    return out


HEADER = ("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
          "<!-- %s: %d GPUs per node, NVLink switch, PCIe to the host (sim/make_platform.py, docs/simulation.md) -->\n"
          '<platform version="4.1">\n')
CONFIG = (' <config id="General">\n'
          '   <prop id="network/TCP-gamma" value="-1"></prop>\n'
          '   <prop id="network/latency-factor" value="1"></prop>\n'
          '   <prop id="network/bandwidth-factor" value="1"></prop>\n'
          '   <prop id="network/weight-S" value="0.0"></prop>\n'
          '   <prop id="network/crosstraffic" value="0"></prop>\n'
          ' </config>\n')


def node_zone(a, h2d, d2h, nvl, p, zone):
    """One node as a SimGrid zone: its hosts (MAIN, CPUi, CUDAi, RAM), links and routes, every name prefixed by p
    (StarPU-MPI under SMPI looks rank r's hosts up as StarPU-MPI<r>-<name>)."""
    x = [' <zone id="%s" routing="Full">\n' % zone]
    x.append('   <host id="%sMAIN" speed="1f"/>\n' % p)
    for c in range(a.cpus):
        x.append('   <host id="%sCPU%d" speed="2000000000f"/>\n' % (p, c))
    mem = int(a.gpu_mem_gib * 2**30)
    for g in range(a.gpus):
        x.append('   <host id="%sCUDA%d" speed="2000000000f">\n     <prop id="memsize" value="%d"/>\n'
                 '     <prop id="memcpy_peer" value="1"/>\n   </host>\n' % (p, g, mem))
    x.append('   <host id="%sRAM" speed="1f"/>\n\n' % p)
    x.append('   <link id="%sHost" bandwidth="%.0fBps" latency="0s"/>\n' % (p, a.host_mem_gbs * 1e9))
    switches = int(math.ceil(a.gpus / float(a.gpus_per_switch)))
    for s in range(switches):  # a PCIe switch's uplink, shared by its GPUs, one per direction
        x.append('   <link id="%sup%d-in" bandwidth="%.0fBps" latency="0s"/>\n' % (p, s, h2d[0]))
        x.append('   <link id="%sup%d-out" bandwidth="%.0fBps" latency="0s"/>\n' % (p, s, d2h[0]))
    for g in range(a.gpus):
        x.append('   <link id="%sRAM-CUDA%d" bandwidth="%.0fBps" latency="%gs"/>\n' % (p, g, h2d[0], h2d[1]))
        x.append('   <link id="%sCUDA%d-RAM" bandwidth="%.0fBps" latency="%gs"/>\n' % (p, g, d2h[0], d2h[1]))
        # A GPU's NVLink ports, one per direction: what it sends to all peers shares its egress, what it receives
        # its ingress (the switch itself is non-blocking).
        x.append('   <link id="%sCUDA%d-nvl-out" bandwidth="%.0fBps" latency="%gs"/>\n' % (p, g, nvl[0], nvl[1]))
        x.append('   <link id="%sCUDA%d-nvl-in" bandwidth="%.0fBps" latency="0s"/>\n' % (p, g, nvl[0]))
    x.append("\n")
    for g in range(a.gpus):
        s = g // a.gpus_per_switch
        x.append('   <route src="{p}RAM" dst="{p}CUDA{g}" symmetrical="NO"><link_ctn id="{p}Host"/>'
                 '<link_ctn id="{p}up{s}-in"/><link_ctn id="{p}RAM-CUDA{g}"/></route>\n'.format(p=p, g=g, s=s))
        x.append('   <route src="{p}CUDA{g}" dst="{p}RAM" symmetrical="NO"><link_ctn id="{p}CUDA{g}-RAM"/>'
                 '<link_ctn id="{p}up{s}-out"/><link_ctn id="{p}Host"/></route>\n'.format(p=p, g=g, s=s))
    for g in range(a.gpus):
        for h in range(a.gpus):
            if g != h:
                x.append('   <route src="{p}CUDA{g}" dst="{p}CUDA{h}" symmetrical="NO"><link_ctn id="{p}CUDA{g}-nvl-out"/>'
                         '<link_ctn id="{p}CUDA{h}-nvl-in"/></route>\n'.format(p=p, g=g, h=h))
    x.append(" </zone>\n")
    return "".join(x)


def cluster_platform(a, h2d, d2h, nvl):
    """The SMPI platform of --nodes nodes: the network, a cluster of hosts node0.. that the MPI ranks run on (one per
    node), each with --nics links of --ib-gbs to a non-blocking switch (a full-bisection fat tree), and beside it each
    node's zone StarPU-MPI<i>, whose hosts the rank's StarPU workers run on."""
    x = [HEADER % (a.host, a.gpus), CONFIG, ' <zone id="root" routing="None">\n']
    x.append('  <cluster id="network" prefix="node" suffix="" radical="0-%d" speed="1Gf" bw="%.0fBps" lat="%gs" '
             'sharing_policy="SPLITDUPLEX" bb_bw="%.0fBps" bb_lat="0s" bb_sharing_policy="SHARED"/>\n'
             % (a.nodes - 1, a.nics * a.ib_gbs * 1e9, a.ib_lat_us * 1e-6, a.nodes * a.nics * a.ib_gbs * 1e9))
    for i in range(a.nodes):
        x.append(" " + node_zone(a, h2d, d2h, nvl, "StarPU-MPI%d-" % i, "StarPU-MPI%d" % i).replace("\n ", "\n  "))
    x.append(" </zone>\n</platform>\n")
    return "".join(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", required=True, help="the simulated machine's name (STARPU_HOSTNAME)")
    ap.add_argument("--gpus", type=int, required=True, help="GPUs in the node (1..8)")
    ap.add_argument("--cpus", type=int, default=16, help="CPU cores StarPU may use (default 16)")
    ap.add_argument("--out", required=True, help="the bus/ directory to write into")
    ap.add_argument("--gpu-mem-gib", type=float,
                    help="memory per GPU in GiB (default: the calibrated GPU's with --from-bus, else 79.6, an H100 "
                         "SXM's)")
    ap.add_argument("--pcie-gbs", type=float,
                    help="host <-> GPU GB/s per direction (default: the calibration's with --from-bus, else 53: PCIe "
                         "5.0 x16, pinned copies)")
    ap.add_argument("--pcie-lat-us", type=float,
                    help="host <-> GPU latency, us (default: the calibration's with --from-bus, else 10)")
    ap.add_argument("--gpus-per-switch", type=int, default=2,
                    help="GPUs sharing one PCIe switch uplink to the host (HGX boards: 2)")
    ap.add_argument("--nvlink-gbs", type=float, default=370.0,
                    help="GPU -> GPU GB/s per direction and per GPU through the NVLink switch (NVLink 4: 450 "
                         "peak; default 370)")
    ap.add_argument("--nvlink-lat-us", type=float, default=3.0, help="GPU <-> GPU latency, us (default 3)")
    ap.add_argument("--host-mem-gbs", type=float, default=300.0, help="host memory GB/s, all links (default 300)")
    ap.add_argument("--from-bus", metavar="PREFIX",
                    help="take host <-> GPU bandwidth and latency from a calibration run's PREFIX.platform.v4.xml")
    ap.add_argument("--nodes", type=int, default=0,
                    help="write the SMPI platform of this many nodes (HOST.cluster.xml) and its hostfile "
                         "(HOST.hosts), one MPI rank per node")
    ap.add_argument("--ib-gbs", type=float, default=50.0,
                    help="GB/s per direction of a node's network link (NDR InfiniBand 400 Gb/s: 50)")
    ap.add_argument("--ib-lat-us", type=float, default=2.0, help="network latency, us (default 2)")
    ap.add_argument("--nics", type=int, default=1, help="network links per node (default 1)")
    a = ap.parse_args()
    if not 1 <= a.gpus <= 8:
        sys.exit("make_platform.py: --gpus must be 1..8 (StarPU's --enable-maxcudadev=8), got %d" % a.gpus)
    if a.cpus < 1:
        sys.exit("make_platform.py: --cpus must be >= 1")
    h2d = d2h = (53e9, 10e-6)
    if a.from_bus:
        m = measured_host_links(a.from_bus)
        h2d, d2h = m["RAM-CUDA0"], m["CUDA0-RAM"]
    # An explicit figure overrides the calibration's (e.g. to stand host links for another path: docs/simulation.md).
    if a.pcie_gbs is not None:
        h2d, d2h = (a.pcie_gbs * 1e9, h2d[1]), (a.pcie_gbs * 1e9, d2h[1])
    if a.pcie_lat_us is not None:
        h2d, d2h = (h2d[0], a.pcie_lat_us * 1e-6), (d2h[0], a.pcie_lat_us * 1e-6)
    if a.from_bus and a.gpu_mem_gib is None:
        a.gpu_mem_gib = m["memsize"] / 2.0**30
    if a.gpu_mem_gib is None:
        a.gpu_mem_gib = 79.6
    nvl = (a.nvlink_gbs * 1e9, a.nvlink_lat_us * 1e-6)
    os.makedirs(a.out, exist_ok=True)

    # Memory nodes: 0 RAM, 1..gpus the GPUs. bandwidth in MB/s, latency in us; nan where no node.
    def row(values):
        cells = [("%e" % v) if v is not None else "nan" for v in values]
        cells += ["nan"] * (MAXNODES - len(cells))
        return "\t".join(cells) + "\t\n"

    header = "# " + "\t\t".join("to %d" % i for i in range(MAXNODES)) + "\t\t\n"
    nodes = 1 + a.gpus
    for kind in ("bandwidth", "latency"):
        with open(os.path.join(a.out, "%s.%s" % (a.host, kind)), "w") as f:
            f.write(header)
            for src in range(MAXNODES):
                vals = []
                for dst in range(nodes if src < nodes else 0):
                    if src == dst:
                        vals.append(0.0)
                        continue
                    link = h2d if src == 0 else d2h if dst == 0 else nvl
                    vals.append(link[0] / 1e6 if kind == "bandwidth" else link[1] * 1e6)
                f.write(row(vals))

    node = node_zone(a, h2d, d2h, nvl, "", "AS0")
    x = [HEADER % (a.host, a.gpus), CONFIG, node, "</platform>\n"]
    with open(os.path.join(a.out, a.host + ".platform.v4.xml"), "w") as f:
        f.write("".join(x))
    if a.nodes > 0:
        with open(os.path.join(a.out, a.host + ".cluster.xml"), "w") as f:
            f.write(cluster_platform(a, h2d, d2h, nvl))
        with open(os.path.join(a.out, a.host + ".hosts"), "w") as f:
            f.write("".join("node%d\n" % i for i in range(a.nodes)))


if __name__ == "__main__":
    main()
