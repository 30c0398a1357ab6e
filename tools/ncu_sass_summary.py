#!/usr/bin/env python3
"""Summarize an Nsight Compute source page (SASS) exported as CSV.

On the device:  ncu --set full -k KERNEL -c 1 -o rep BINARY ARGS...
                ncu -i rep.ncu-rep --page source --csv --print-source sass > sass.csv
Here:           tools/ncu_sass_summary.py sass.csv [--list] [--regions A-B,C-D,...]

Prints instructions executed (summed over all warps) and warp-stall samples per opcode; --list adds one
line per SASS instruction (index, executed, samples, text, top two stall reasons); --regions prints the
totals and top stall reasons of index ranges (half-open), e.g. the phases of a kernel read off --list.
"""
import collections
import csv
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = list(csv.reader(open(argv[1])))
    hdr = next(r for r in rows if 'Source' in r and 'Instructions Executed' in r)
    data = rows[rows.index(hdr) + 1:]
    ix = {h: i for i, h in enumerate(hdr)}
    stall_cols = {h[len('stall_'):]: i for h, i in ix.items() if h.startswith('stall_') and 'Not Issued' not in h}

    def num(r, col):
        v = r[ix[col]].replace(',', '')
        return int(v) if v.strip() else 0

    insts = []
    for r in data:
        src = r[ix['Source']].strip()
        words = src.split()
        op = words[1] if words and words[0].startswith('@') and len(words) > 1 else (words[0] if words else '')
        stalls = {k: int(r[i] or 0) for k, i in stall_cols.items()}
        insts.append((op.split('.')[0], num(r, 'Instructions Executed'), num(r, 'Warp Stall Sampling (All Samples)'), src, stalls))
    tot_e = sum(x[1] for x in insts) or 1
    tot_s = sum(x[2] for x in insts) or 1
    by_e, by_s = collections.Counter(), collections.Counter()
    for op, e, s, _, _ in insts:
        by_e[op] += e
        by_s[op] += s
    print(f'total instructions executed {tot_e}, stall samples {tot_s}')
    for op, e in by_e.most_common(30):
        print(f'{op:10s} {e:12d} {100 * e / tot_e:5.1f}%  samples {100 * by_s[op] / tot_s:5.1f}%')
    if '--list' in argv:
        for k, (_, e, s, src, st) in enumerate(insts):
            top = sorted(st.items(), key=lambda x: -x[1])[:2]
            print(f'{k:5d} {e:10d} {s:6d} {src[:60]:60s} {top}')
    if '--regions' in argv:
        for rg in argv[argv.index('--regions') + 1].split(','):
            a, b = (int(x) for x in rg.split('-'))
            st = collections.Counter()
            for _, _, _, _, d in insts[a:b]:
                st.update(d)
            e = sum(x[1] for x in insts[a:b])
            s = sum(st.values()) or 1
            print(f'[{a}, {b}): executed {e} ({100 * e / tot_e:.1f}%), samples {s} ({100 * s / tot_s:.1f}%):',
                  ', '.join(f'{k} {100 * v / s:.0f}%' for k, v in st.most_common(5)))


if __name__ == '__main__':
    main(sys.argv)
