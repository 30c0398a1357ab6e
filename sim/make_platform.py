#!/usr/bin/env python3
"""Writes the bus files of a simulated GPU node for StarPU's SimGrid mode (docs/simulation.md).

StarPU in SimGrid mode reads, for the machine named by STARPU_HOSTNAME, from $STARPU_PERF_MODEL_DIR/bus/:
  HOST.platform.v4.xml  the SimGrid platform: hosts CPU0.., CUDA0.. (with their memory), RAM, and the links and
                        routes between RAM and the GPUs and between GPUs; transfers are simulated over it
  HOST.bandwidth        MB/s and HOST.latency (us) between memory nodes (0: RAM, 1..: the GPUs), which the
                        schedulers' transfer estimates read
A real run writes these itself (StarPU's bus calibration). This script writes them for a node that need not exist:
N GPUs behind an NVLink switch, each with its own PCIe link to the host and pairs of GPUs sharing a PCIe switch's
uplink, as in an 8-GPU HGX H100 board. Every figure is a parameter; the defaults are assumptions, listed in
docs/simulation.md, except where --from-bus takes the host <-> GPU figures that the calibration run measured.

  sim/make_platform.py --host h100x8 --gpus 8 --out DIR/bus [--cpus 16] [--from-bus sim/models/h100/bus/h100]
"""
import argparse
import math
import os
import re
import sys

MAXNODES = 16  # StarPU's --enable-maxnodes (deps/starpu-config.sh): the matrices' width


def measured_host_links(prefix):
    """RAM->CUDA0 and CUDA0->RAM bandwidth (B/s) and latency (s) from a calibration run's platform file."""
    path = prefix + ".platform.v4.xml"
    text = open(path).read()
    out = {}
    for name in ("RAM-CUDA0", "CUDA0-RAM"):
        m = re.search(r'<link id="%s" bandwidth="([0-9.e+]+)Bps" latency="([0-9.e+-]+)s"' % name, text)
        if not m:
            sys.exit("make_platform.py: no link %s in %s" % (name, path))
        out[name] = (float(m.group(1)), float(m.group(2)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", required=True, help="the simulated machine's name (STARPU_HOSTNAME)")
    ap.add_argument("--gpus", type=int, required=True, help="GPUs in the node (1..8)")
    ap.add_argument("--cpus", type=int, default=16, help="CPU cores StarPU may use (default 16)")
    ap.add_argument("--out", required=True, help="the bus/ directory to write into")
    ap.add_argument("--gpu-mem-gib", type=float, default=79.6, help="memory per GPU in GiB (H100 SXM: 79.6)")
    ap.add_argument("--pcie-gbs", type=float, default=53.0,
                    help="host <-> GPU GB/s per direction (PCIe 5.0 x16, pinned copies; default 53)")
    ap.add_argument("--pcie-lat-us", type=float, default=10.0, help="host <-> GPU latency, us (default 10)")
    ap.add_argument("--gpus-per-switch", type=int, default=2,
                    help="GPUs sharing one PCIe switch uplink to the host (HGX boards: 2)")
    ap.add_argument("--nvlink-gbs", type=float, default=370.0,
                    help="GPU -> GPU GB/s per direction and per GPU through the NVLink switch (NVLink 4: 450 "
                         "peak; default 370)")
    ap.add_argument("--nvlink-lat-us", type=float, default=3.0, help="GPU <-> GPU latency, us (default 3)")
    ap.add_argument("--host-mem-gbs", type=float, default=300.0, help="host memory GB/s, all links (default 300)")
    ap.add_argument("--from-bus", metavar="PREFIX",
                    help="take host <-> GPU bandwidth and latency from a calibration run's PREFIX.platform.v4.xml")
    a = ap.parse_args()
    if not 1 <= a.gpus <= 8:
        sys.exit("make_platform.py: --gpus must be 1..8 (StarPU's --enable-maxcudadev=8), got %d" % a.gpus)
    if a.cpus < 1:
        sys.exit("make_platform.py: --cpus must be >= 1")
    h2d = (a.pcie_gbs * 1e9, a.pcie_lat_us * 1e-6)
    d2h = h2d
    if a.from_bus:
        m = measured_host_links(a.from_bus)
        h2d, d2h = m["RAM-CUDA0"], m["CUDA0-RAM"]
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

    x = []
    x.append("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
    x.append("<!-- %s: %d GPUs, NVLink switch, PCIe to the host (sim/make_platform.py, docs/simulation.md) -->\n"
             % (a.host, a.gpus))
    x.append('<platform version="4.1">\n <config id="General">\n')
    for k, v in (("network/TCP-gamma", "-1"), ("network/latency-factor", "1"), ("network/bandwidth-factor", "1"),
                 ("network/weight-S", "0.0"), ("network/crosstraffic", "0")):
        x.append('   <prop id="%s" value="%s"></prop>\n' % (k, v))
    x.append(' </config>\n <zone id="AS0" routing="Full">\n')
    x.append('   <host id="MAIN" speed="1f"/>\n')
    for c in range(a.cpus):
        x.append('   <host id="CPU%d" speed="2000000000f"/>\n' % c)
    mem = int(a.gpu_mem_gib * 2**30)
    for g in range(a.gpus):
        x.append('   <host id="CUDA%d" speed="2000000000f">\n     <prop id="memsize" value="%d"/>\n'
                 '     <prop id="memcpy_peer" value="1"/>\n   </host>\n' % (g, mem))
    x.append('   <host id="RAM" speed="1f"/>\n\n')
    x.append('   <link id="Host" bandwidth="%.0fBps" latency="0s"/>\n' % (a.host_mem_gbs * 1e9))
    switches = int(math.ceil(a.gpus / float(a.gpus_per_switch)))
    for s in range(switches):  # a PCIe switch's uplink, shared by its GPUs, one per direction
        x.append('   <link id="up%d-in" bandwidth="%.0fBps" latency="0s"/>\n' % (s, h2d[0]))
        x.append('   <link id="up%d-out" bandwidth="%.0fBps" latency="0s"/>\n' % (s, d2h[0]))
    for g in range(a.gpus):
        x.append('   <link id="RAM-CUDA%d" bandwidth="%.0fBps" latency="%gs"/>\n' % (g, h2d[0], h2d[1]))
        x.append('   <link id="CUDA%d-RAM" bandwidth="%.0fBps" latency="%gs"/>\n' % (g, d2h[0], d2h[1]))
        # A GPU's NVLink ports, one per direction: what it sends to all peers shares its egress, what it receives
        # its ingress (the switch itself is non-blocking).
        x.append('   <link id="CUDA%d-nvl-out" bandwidth="%.0fBps" latency="%gs"/>\n' % (g, nvl[0], nvl[1]))
        x.append('   <link id="CUDA%d-nvl-in" bandwidth="%.0fBps" latency="0s"/>\n' % (g, nvl[0]))
    x.append("\n")
    for g in range(a.gpus):
        s = g // a.gpus_per_switch
        x.append('   <route src="RAM" dst="CUDA%d" symmetrical="NO"><link_ctn id="Host"/><link_ctn id="up%d-in"/>'
                 '<link_ctn id="RAM-CUDA%d"/></route>\n' % (g, s, g))
        x.append('   <route src="CUDA%d" dst="RAM" symmetrical="NO"><link_ctn id="CUDA%d-RAM"/>'
                 '<link_ctn id="up%d-out"/><link_ctn id="Host"/></route>\n' % (g, g, s))
    for g in range(a.gpus):
        for h in range(a.gpus):
            if g != h:
                x.append('   <route src="CUDA%d" dst="CUDA%d" symmetrical="NO"><link_ctn id="CUDA%d-nvl-out"/>'
                         '<link_ctn id="CUDA%d-nvl-in"/></route>\n' % (g, h, g, h))
    x.append(" </zone>\n</platform>\n")
    with open(os.path.join(a.out, a.host + ".platform.v4.xml"), "w") as f:
        f.write("".join(x))


if __name__ == "__main__":
    main()
