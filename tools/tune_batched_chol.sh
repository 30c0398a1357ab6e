#!/usr/bin/env bash
# Autotuning of the batched Cholesky kernels (kernels/batched_chol/; the sweep drivers are in
# tools/tune/batched_chol/, docs/batched_cholesky.md "Retuning" walks through a whole round).
#
#   Here (regenerates the left-looking kernel's candidate lists, then builds the sweep binary; no GPU):
#       tools/tune_batched_chol.sh candidates                 (the whole space)
#       tools/tune_batched_chol.sh candidates CSV TOP MIN_N   (focused: for orders >= MIN_N, the TOP
#                                                             fastest (d, NT, MPB) of an earlier sweep's
#                                                             CSV, each with both OCC values)
#       ORDERS=36,44 tools/tune_batched_chol.sh candidates    (the whole space of these compiled orders only)
#       PRECS=s ...                                           (float only; PRECS=d double only; default s,d)
#       NTS=8,16 ...                                          (only these threads per matrix)
#       BUILD_DIR=build-x tools/tune_batched_chol.sh build
#   On the GPU (writes one CSV line per timed configuration):
#       tools/tune_batched_chol.sh run [CSV] [panel|resident]   (default $OUT/tune_batched_chol.csv, panel)
#         panel:    the left-looking kernel's candidate lists (candidates_*.cu)
#         resident: every resident variant (tools/tune/batched_chol/variants.hpp) at n = 40, 48, ..., 128
#                   beside the tuned left-looking kernel at its compiled orders (resident.cu)
#       The per-order kernel choice wants every kernel forced at every order, for both column alignments:
#           bench_batched_chol --sizes $(seq -s, 33 128) --batches 10000 --no-cpu --csv A.csv
#           bench_batched_chol --sizes $(seq -s, 33 128) --batches 10000 --no-cpu --lda-align16 --csv B.csv
#   Here again (best configuration per order and precision -> kernels/batched_chol/tuning.hpp, which includes
#   tuning_double.hpp and tuning_float.hpp, the tables of each precision):
#       tools/tune_batched_chol.sh table CSV[,CSV2,...] [DEVICE-NAME] [RESIDENT-CSV[,CSV2,...]]
#       (TABLE_SKIP_KINDS=residentpipe,...: resident kinds the table must not pick)
#   Plot (needs matplotlib; Debian's /usr/bin/python3 has it): GFLOP/s vs n per precision from a bench
#   CSV (bench_batched_chol --csv, or docs/data/batched_chol_h100.csv), optionally with a resident sweep CSV:
#       tools/tune_batched_chol.sh plot BENCH-CSV OUT.png [RESIDENT-CSV]
#
# Several CSVs: an order and precision swept in a later CSV takes its rows from that CSV only.
# RESIDENT-CSV (resident sweeps, or bench CSVs with every variant forced): an order measured itself picks
# the fastest kernel there, for the aligned table with 16-byte-aligned columns (lda = n or --lda-align16),
# for the unaligned table with lda = n not aligned; other orders run the resident kernel when its fastest
# variant at 8 ceil(n/8) beat the left-looking kernel at n's compiled order.
#
# The left-looking sweep times potrf_batched on a batch of 10,000 matrices for every compiled order N
# (ranges.hpp kSizes, which this script reads) over the space
#   NB = ceil(N/d), d in {1, 2, 3, 4, 6, 8} (NB >= 4, distinct);
#   NT (threads per matrix) in {P/8, P/4, P/2, P} with P the power of two >= N, 4 <= NT <= 128;
#   threads per block NT*MPB = 64 (NT <= 64) or 128 (NT = 128);
#   OCC (resident threads per SM asked of the register allocator) in {256, 512}
# skipping configurations whose register panel (ceil(N/NT) * NB words) exceeds 64 registers.
# CSV columns: prec,n,d,nb,nt,mpb,occ,us,ok (rows without occ mean occ = 256).
# `table` gives every order the best (d, NT, MPB) measured at the nearest swept order (NB = ceil(n/d),
# d raised if the register panel would not fit); the library uses the entries of the compiled orders. A
# compiled order that is not a multiple of 4 (potrf only) whose best time is not below the next compiled
# order's gets {0, 0, 0, 0}: that precision skips it (ranges.hpp padded_order<T>).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tune=$root/tools/tune/batched_chol
# The compiled orders (ranges.hpp kSizes, the one list of them), for the candidate lists and the table.
COMPILED_ORDERS=$(sed -n 's/^constexpr int kSizes\[\] = {\(.*\)};.*/\1/p' "$root/kernels/batched_chol/ranges.hpp" | tr -d ' ')
[ -n "$COMPILED_ORDERS" ] || { echo "tune_batched_chol.sh: no kSizes list in ranges.hpp" >&2; exit 1; }
export COMPILED_ORDERS
cmd=${1:-}
case $cmd in
candidates)
    /usr/bin/env python3 - "$tune" "${2:-}" "${3:-4}" "${4:-1}" <<'PY'
import csv, math, os, sys
out, src, top, min_n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
orders_env = os.environ.get('ORDERS', '')  # ORDERS=36,44: these compiled orders only
if orders_env and not all(x.isdigit() for x in orders_env.split(',')):
    sys.exit(f"ORDERS must be compiled orders separated by commas, e.g. ORDERS=36,44 (got '{orders_env}')")
only = {int(x) for x in orders_env.split(',') if x}
sizes = [int(x) for x in os.environ['COMPILED_ORDERS'].split(',')]  # ranges.hpp kSizes
nts_env = os.environ.get('NTS', '')  # NTS=8,16: these threads-per-matrix values only
if nts_env and not all(x.isdigit() for x in nts_env.split(',')):
    sys.exit(f"NTS must be thread counts separated by commas, e.g. NTS=8,16 (got '{nts_env}')")
nts_only = {int(x) for x in nts_env.split(',') if x}
precs_env = os.environ.get('PRECS', 's,d')  # PRECS=s: float only
if not precs_env or set(precs_env.split(',')) - {'s', 'd'}:
    sys.exit(f"PRECS must be s, d or s,d (got '{precs_env}')")
OCCS = (256, 512)
def space(N, word):
    P = 1 << math.ceil(math.log2(N))
    seen, c = set(), []
    for d in (1, 2, 3, 4, 6, 8):
        nb = math.ceil(N / d)
        if nb in seen or (d > 1 and nb < 4):
            continue
        seen.add(nb)
        for nt in (P // 8, P // 4, P // 2, P):
            if nt < 4 or nt > 128 or math.ceil(N / nt) * nb * word > 64 or (nts_only and nt not in nts_only):
                continue
            for tpb in (max(nt, 64),):
                c.append((d, nb, nt, tpb // nt))
    return c
ranked = {}  # (prec, N) -> [(us, d, nt, mpb)] from the earlier sweep
if src:
    for row in csv.reader(open(src)):
        if not row or row[0] == 'prec' or row[-1].strip() == '0':
            continue
        us = float(row[7] if len(row) > 8 else row[6])
        ranked.setdefault((row[0], int(row[1])), []).append((us, int(row[2]), int(row[4]), int(row[5])))
if only - set(sizes):
    sys.exit(f"ORDERS: {sorted(only - set(sizes))} not compiled orders (ranges.hpp kSizes: {sizes})")
def candidates(N, word, prec):
    if only and N not in only:
        return []
    if not src:
        return [(d, nb, nt, mpb, occ) for d, nb, nt, mpb in space(N, word) for occ in OCCS]
    if N < min_n:
        return []
    best, c = sorted(set(ranked.get((prec, N), []))), []
    for _, d, nt, mpb in best:
        if (d, nt, mpb) not in [(x[0], x[2], x[3]) for x in c]:
            c.append((d, math.ceil(N / d), nt, mpb))
    return [(d, nb, nt, mpb, occ) for d, nb, nt, mpb in c[:top] for occ in OCCS]
for prec, T, word in (('s', 'float', 1), ('d', 'double', 2)):
    for part, sel in ((0, [n for n in sizes if n <= 32]), (1, [n for n in sizes if n > 32])):
        wanted = prec in precs_env.split(',')
        what = f'orders {sel[0]}..{sel[-1]}' + (f' (ORDERS={",".join(map(str, sorted(only)))} only)' if only else '')
        lines = [f'// GENERATED by tools/tune_batched_chol.sh candidates: the sweep space for {T}, {what}.',
                 '#include "tools/tune/batched_chol/common.cuh"', '',
                 'namespace starfact::batched::tune {', '', f'void sweep_{prec}{part}() {{']
        for N in sel:
            for d, nb, nt, mpb, occ in (candidates(N, word, prec) if wanted else []):
                lines.append(f'    tune_one<{T}, {N}, {nb}, {nt}, {mpb}, {occ}>({d});')
        lines += ['}', '', '}  // namespace starfact::batched::tune', '']
        open(f'{out}/candidates_{prec}{part}.cu', 'w').write('\n'.join(lines))
PY
    ;;
build)
    BUILD_DIR=${BUILD_DIR:-$root/build} TARGETS=tune_batched_chol "$root/tools/build.sh" ;;
run)
    csv=${2:-${OUT:-.}/tune_batched_chol.csv}
    bin=$(command -v tune_batched_chol || echo "${BUILD_DIR:-$root/build}/tune_batched_chol")
    "$bin" "${3:-panel}" > "$csv"
    echo "sweep: $(wc -l < "$csv") lines in $csv" >&2 ;;
table)
    csv=${2:?usage: tools/tune_batched_chol.sh table CSV[,CSV2,...] [DEVICE-NAME] [RESIDENT-CSV[,CSV2,...]]}
    device=${3:-H100}
    /usr/bin/env python3 - "$csv" "$device" "$root/kernels/batched_chol" "${4:-}" \
        "$tune/variants.hpp" <<'PY'
import csv, math, os, re, sys, textwrap
src, device, out_dir, rsrc, variants_hpp = sys.argv[1:6]
best = {}  # (prec, n) -> (us, d, nt, mpb, occ)
for path in src.split(','):
    mine = {}
    for row in csv.reader(open(path)):
        if not row or row[0].startswith('#') or row[0] == 'prec':
            continue
        if len(row) >= 9:
            prec, n, d, nb, nt, mpb, occ, us, ok = row[:9]
        else:  # sweeps without the occ column
            prec, n, d, nb, nt, mpb, us, ok = row[:8]
            occ = 256
        if ok.strip() == '0':
            continue  # wrong results: never pick it
        key = (prec, int(n))
        val = (float(us), int(d), int(nt), int(mpb), int(occ))
        if key not in mine or val < mine[key]:
            mine[key] = val
    best.update(mine)  # a later CSV replaces the orders it swept

def fits(n, d, nt, word):  # register panel: rows per thread * panel width * 32-bit words <= 64
    return math.ceil(n / nt) * math.ceil(n / d) * word <= 64

def table(prec):
    word = 2 if prec == 'd' else 1
    reps = sorted(n for (p, n) in best if p == prec and n in SIZES)  # swept orders that are compiled
    if not reps:
        sys.exit('no rows for precision ' + prec)
    # A compiled order that is not a multiple of 4 (those serve potrf only, ranges.hpp) is skipped by this
    # precision when the next compiled order's best measured time is not above its own: n runs there.
    skip = {}
    for N, M in zip(SIZES, SIZES[1:]):
        if N % 4 and (prec, N) in best and (prec, M) in best and best[(prec, M)][0] <= best[(prec, N)][0]:
            skip[N] = (M, best[(prec, M)][0], best[(prec, N)][0])
    rows = []
    for n in range(1, 129):
        if n in skip:
            rows.append((n, 0, 0, 0, 0, skip[n]))
            continue
        rep = min(reps, key=lambda r: (abs(r - n), -r))
        _, d, nt, mpb, occ = best[(prec, rep)]
        d = min(d, n)
        while not fits(n, d, nt, word) and d < n:
            d += 1
        rows.append((n, math.ceil(n / d), nt, mpb, occ, rep))
    return rows

SIZES = [int(x) for x in os.environ['COMPILED_ORDERS'].split(',')]  # ranges.hpp kSizes
# Kernel kinds (CSV names) and the Family enumerators of variants.hpp that they name.
FAMILY = {'resident': 'Resident', 'resident16': 'ResidentTwoPanels', 'residentw1': 'ResidentWarpA',
          'residentfrag': 'Fragment', 'residentdyn': 'FragmentDynamic', 'residentpipe': 'FragmentPipelined',
          'residentvec': 'VectorRow'}
KIND = {f: k for k, f in FAMILY.items()}
# Equal times: the kind earlier in this list wins (with NT, then OCC, compared before it).
TIE_ORDER = ['resident', 'residentw1', 'residentfrag', 'residentdyn', 'residentpipe', 'residentvec', 'resident16']
# The candidate variants (tools/tune/batched_chol/variants.hpp, kCandidateVariants) in their order: the order of a
# bench CSV's resident_variants_us column (bench_batched_chol --csv), which can stand for the resident sweep.
VARIANTS = [(KIND[f], int(nt), int(occ)) for f, nt, occ in
            re.findall(r'\{Family::(\w+), (\d+), (\d+)\}', open(variants_hpp).read().split('kCandidateVariants')[1])]
if not VARIANTS:
    sys.exit('no kCandidateVariants in ' + variants_hpp)
res, left = {}, {}  # (prec, n) -> (us, nt, occ, rank, kind) best resident variant; (prec, N) -> us of the left-looking kernel
res_unal = {}  # the same without the kinds of UNALIGNED_SKIP[prec], for batches that are not 16-byte aligned
# Batches whose columns are not 16-byte aligned (launch.hpp: columns_aligned16): a bench CSV's rows at an order
# n with n * sizeof(T) not a multiple of 16 (lda = n) are such measurements; the unaligned table takes group
# r = 8 ceil(n / 8) from the largest such n measured in it (meas_unal, left_unal), else from the aligned rows
# without the kinds of UNALIGNED_SKIP (the vector-row kernel shifts unaligned columns in shared memory after
# its bulk copies: at double n = 65 it lost to the pipelined fragment kernel, 335 vs 295 us).
UNALIGNED_SKIP = {'d': {'residentvec'}, 's': set()}
meas_unal, left_unal, unal_n = {}, {}, {}  # (prec, r) -> best variant / left-looking us / the n measured
def unaligned_order(prec, n):
    return n % (4 if prec == 's' else 2) != 0
def resident_source(path):
    rows = list(csv.reader(open(path)))
    if rows and 'resident_variants_us' in rows[0]:
        h = rows[0]
        for r in rows[1:]:
            d = dict(zip(h, r))
            if d['batch'] != '10000':
                continue
            lda = d.get('lda') or d['n']  # bench CSVs without the lda column: lda = n
            yield [d['prec'], d['n'], 'left', '0', '0', d['left_us'], '1', lda]
            for (kind, nt, occ), us in zip(VARIANTS, d['resident_variants_us'].split(';')):
                yield [d['prec'], d['n'], kind, str(nt), str(occ), us, '1', lda]
    else:
        for r in rows:
            yield r + [r[1]] if r and r[0] != 'prec' else r  # resident sweeps: lda = n
skip_kinds = set(os.environ.get('TABLE_SKIP_KINDS', '').split(','))  # resident kinds the table must not pick
def keep_min(d, key, v):
    if key not in d or v < d[key]:
        d[key] = v
# Measurements at the order itself. A bench CSV row at order n with leading dimension lda decides n's entry of
# the aligned table (lda a multiple of 16 bytes: bench --lda-align16, or lda = n when n * sizeof(T) is one) or of
# the unaligned table (lda = n otherwise): the fastest of the left-looking kernel and every resident variant
# measured there. Orders without such a row keep the group rules below.
exact, exact_left = {}, {}  # (prec, n, aligned) -> best resident variant / left-looking us, measured at n
# Several resident CSVs: each key (an order and layout, a group) takes its values from the last CSV that has
# it, so a later sweep of a changed kernel replaces the earlier sweeps' measurements instead of mixing with them.
def read_resident(path):
    d = {k: {} for k in ('exact', 'exact_left', 'res', 'res_unal', 'left', 'meas_unal', 'left_unal', 'unal_n')}
    for row in resident_source(path):
        if not row or row[0] == 'prec' or row[6].strip() == '0':
            continue
        prec, n, kernel, nt, occ, us, lda = row[0], int(row[1]), row[2], int(row[3]), int(row[4]), float(row[5]), int(row[7])
        if kernel == 'residentschur':
            continue  # the Schur variant of older CSVs: its update through inv(A11) is not backward stable
        if us != us or (kernel != 'left' and kernel in skip_kinds):
            continue  # not timed (NaN), or left out on request (TABLE_SKIP_KINDS=residentpipe,...)
        v = (us, nt, occ, TIE_ORDER.index(kernel) if kernel != 'left' else -1, kernel)
        key = (prec, n, lda % (4 if prec == 's' else 2) == 0)
        if kernel == 'left':
            d['exact_left'][key] = us
        else:
            keep_min(d['exact'], key, v)
        if lda != n:
            continue  # padded lda: only the per-order entries above use it
        if unaligned_order(prec, n):  # measured with lda = n not a multiple of 16 bytes: the unaligned table's
            key = (prec, (n + 7) // 8 * 8)
            if d['unal_n'].get(key, 0) > n:
                continue
            if d['unal_n'].get(key, 0) < n:  # a larger n of the group replaces a smaller one
                d['unal_n'][key] = n
                d['meas_unal'].pop(key, None)
                d['left_unal'].pop(key, None)
            if kernel == 'left':
                d['left_unal'][key] = us
            else:
                keep_min(d['meas_unal'], key, v)
        elif kernel == 'left':
            d['left'][(prec, n)] = us
        else:
            keep_min(d['res'], (prec, n), v)
            if kernel not in UNALIGNED_SKIP[prec]:
                keep_min(d['res_unal'], (prec, n), v)
    return d
if rsrc:
    for path in rsrc.split(','):
        d = read_resident(path)
        exact.update(d['exact']); exact_left.update(d['exact_left'])
        res.update(d['res']); res_unal.update(d['res_unal']); left.update(d['left'])
        for key, n in d['unal_n'].items():  # a group measured in this CSV: its unaligned entries from here
            unal_n[key] = n
            meas_unal.pop(key, None)
            left_unal.pop(key, None)
        meas_unal.update(d['meas_unal']); left_unal.update(d['left_unal'])

LEFT = ('left', 0, 0)
def resident_rows(prec, unaligned=False):
    """(n, (kind, nt, occ), why) per order: the left-looking kernel or the resident variant chosen."""
    rows = []
    for n in range(1, 129):
        r, N = (n + 7) // 8 * 8, next(s for s in SIZES if s >= n)
        pick, why = LEFT, ''
        key = (prec, n, not unaligned)
        if key in exact and key in exact_left:  # measured at n itself (with such an lda)
            us, nt, occ, _, kind = exact[key]
            if us < exact_left[key]:
                pick, why = (kind, nt, occ), f'  {us:.1f} us at n = {n} vs left-looking {exact_left[key]:.1f} us there'
            rows.append((n, pick, why))
            continue
        if unaligned and (prec, r) in meas_unal and (prec, r) in left_unal:  # measured unaligned in this group
            m = unal_n[(prec, r)]
            if meas_unal[(prec, r)][0] < left_unal[(prec, r)]:
                us, nt, occ, _, kind = meas_unal[(prec, r)]
                pick, why = (kind, nt, occ), f'  {us:.1f} us at n = {m} (lda = {m}) vs left-looking {left_unal[(prec, r)]:.1f} us there'
            rows.append((n, pick, why))
            continue
        res_ = res_unal if unaligned else res
        if (prec, r) in res_ and (prec, N) in left and res_[(prec, r)][0] < left[(prec, N)]:
            us, nt, occ, _, kind = res_[(prec, r)]
            pick, why = (kind, nt, occ), f'  {us:.1f} us at n = {r} vs left-looking {left[(prec, N)]:.1f} us at N = {N}'
        rows.append((n, pick, why))
    return rows

def variant(pick):
    kind, nt, occ = pick
    return '{Family::%s, %d, %d}' % ('LeftLooking' if kind == 'left' else FAMILY[kind], nt, occ)

def emit_choice(name, rows):
    s = 'constexpr Variant %s[129] = {\n    {},\n' % name
    for n, pick, why in rows:
        s += '    %s,  // n = %d%s\n' % (variant(pick), n, why)
    return s + '};\n'

choices = {}  # table name -> rows, for kLibraryVariants
def emit_choices(prec, name):
    aligned, unaligned = resident_rows(prec), resident_rows(prec, unaligned=True)
    choices[name] = aligned
    s = emit_choice(name, aligned) + '\n'
    if [r[1] for r in unaligned] == [r[1] for r in aligned]:  # an alias when the choice is the same
        return s + 'constexpr const Variant* %sUnaligned = %s;  // the same choice\n' % (name, name)
    choices[name + 'Unaligned'] = unaligned
    return s + emit_choice(name + 'Unaligned', unaligned)

def emit_left(name, rows):
    s = 'constexpr LeftLookingConfig %s[129] = {\n    {0, 0, 0, 0},\n' % name
    for n, nb, nt, mpb, occ, rep in rows:
        if nt == 0:  # rep = (next order, its time, this order's time)
            s += '    {0, 0, 0, 0},  // n = %d: compiled order skipped, order %d measured %.1f us against %.1f\n' % ((n,) + rep)
        else:
            s += '    {%d, %d, %d, %d},  // n = %d (from n = %d)\n' % (nb, nt, mpb, occ, n, rep)
    return s + '};\n'

names = lambda paths: ', '.join(p.split('/')[-1] for p in paths.split(',')) if paths else 'none'
sources = '\n'.join(textwrap.wrap(f'Measured on {device}. Left-looking sweeps: {names(src)}. Kernel choice: {names(rsrc)}.',
                                  width=114, initial_indent='// ', subsequent_indent='// ', break_on_hyphens=False))

def precision_file(prec, T, left_name, choice_name):
    return f'''// Kernel choice and tuned configurations of the batched potrf in {T} for every order 1..128 (tuning.hpp
// gathers both precisions and the resident variants their tables choose).
// GENERATED by tools/tune_batched_chol.sh table (docs/batched_cholesky.md, "Retuning"); do not edit.
{sources}
#pragma once
#include "kernels/batched_chol/variants.hpp"

namespace starfact::batched::gpu {{

/// Left-looking kernel per order n: {{NB, NT, MPB, OCC}}, the best configuration measured at the nearest swept
/// compiled order ("from n = ..."). Only the entries of the compiled orders (ranges.hpp kSizes) are instantiated;
/// {{0, 0, 0, 0}} at a compiled order: this precision skips it (ranges.hpp padded_order).
{emit_left(left_name, table(prec))}
/// Kernel per order n for batches whose columns all start on 16 bytes (launch.hpp: columns_aligned16): an order
/// measured itself takes the fastest kernel there ("there"), the others the variant fastest at n = 8 ceil(n / 8)
/// when it beat the left-looking kernel at n's compiled order.
/// *Unaligned: the same for the other batches; an order measured itself with lda = n unaligned takes the fastest
/// kernel there, the others per group of 8 orders the variant fastest at the group's largest unaligned order,
/// else the aligned rule without the kinds {UNALIGNED_SKIP}.
{emit_choices(prec, choice_name)}
}}  // namespace starfact::batched::gpu
'''

# One file per precision (tuning_double.hpp, tuning_float.hpp) and tuning.hpp, which includes them and lists the
# resident variants that their tables choose.
files = {'tuning_double.hpp': precision_file('d', 'double', 'kLeftLookingDouble', 'kPotrfDouble'),
         'tuning_float.hpp': precision_file('s', 'float', 'kLeftLookingFloat', 'kPotrfFloat')}
library = sorted({r[1] for rows in choices.values() for r in rows if r[1] != LEFT},
                 key=lambda v: (list(FAMILY).index(v[0]), v[1], v[2]))
library_text = ''.join('    %s,\n' % variant(v) for v in library)
files['tuning.hpp'] = f'''// Kernel choice and tuned configurations of the batched potrf for every order 1..128 and precision: the tables of
// each precision (tuning_double.hpp, tuning_float.hpp) and the resident variants they choose.
// GENERATED by tools/tune_batched_chol.sh table (docs/batched_cholesky.md, "Retuning"); do not edit.
{sources}
#pragma once
#include "kernels/batched_chol/tuning_double.hpp"
#include "kernels/batched_chol/tuning_float.hpp"
#include "kernels/batched_chol/variants.hpp"

namespace starfact::batched::gpu {{

/// The resident variants that the tables of both precisions choose: the only ones the library compiles
/// (tools/tune/batched_chol/variants.hpp instantiates the other candidates for the bench and the sweep).
inline constexpr Variant kLibraryVariants[] = {{
{library_text}}};

}}  // namespace starfact::batched::gpu
'''
for name, text in files.items():
    open(os.path.join(out_dir, name), 'w').write(text)
    print('wrote', os.path.join(out_dir, name), file=sys.stderr)
for prec in 'sd':
    for (p, n), (us, d, nt, mpb, occ) in sorted(best.items()):
        if p == prec:
            print(f'{prec} n={n:3d}: d={d} NB={math.ceil(n/d)} NT={nt} MPB={mpb} OCC={occ}  {us:.1f} us', file=sys.stderr)
    for (p, n), (us, nt, occ, _, kind) in sorted(res.items()):
        if p == prec:
            N = next(s for s in SIZES if s >= n)
            print(f'{prec} n={n:3d}: {kind} NT={nt} OCC={occ} {us:.1f} us; left-looking at N={N}: {left.get((prec, N), float("nan")):.1f} us', file=sys.stderr)
PY
    ;;
plot)
    bench=${2:?usage: tools/tune_batched_chol.sh plot BENCH-CSV OUT.png [RESIDENT-CSV]}
    png=${3:?usage: tools/tune_batched_chol.sh plot BENCH-CSV OUT.png [RESIDENT-CSV]}
    /usr/bin/python3 - "$bench" "$png" "${4:-}" <<'PY'
import csv, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
bench, png, sweep = sys.argv[1:4]
flops = lambda n: n ** 3 / 3 + n ** 2 / 2 + n / 6  # LAWN 41
rows = [r for r in csv.DictReader(open(bench)) if r['batch'] == '10000']
sw = list(csv.DictReader(open(sweep))) if sweep else []
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
for ax, prec, name in zip(axes, 'sd', ('float', 'double')):
    b = sorted((int(r['n']), r) for r in rows if r['prec'] == prec)
    gf = lambda n, us: 1e4 * flops(n) / (us * 1e-6) * 1e-9
    def res_us(r):  # the fastest resident variant of a bench row (bench CSV, or its trimmed copy in docs/data)
        if 'resident_variants_us' in r:
            return min(float(x) for x in r['resident_variants_us'].split(';'))
        return min(float(v) for k, v in r.items() if k.startswith('res') and k.endswith('_us'))
    ax.plot([n for n, _ in b], [gf(n, float(r['left_us'])) for n, r in b], 's--', label='left-looking kernel (forced)')
    ax.plot([n for n, _ in b], [gf(n, res_us(r)) for n, r in b], 'o-', label='resident kernels (old, fragment layout, vector-row), fastest variant (forced)')
    ax.plot([n for n, _ in b], [float(r['gflops']) for _, r in b], 'D-', lw=2, label='library (tuned choice per n)')
    ax.plot([n for n, _ in b], [float(r['gflops_cusolver']) for _, r in b], '^-', label='cuSOLVER potrfBatched')
    res = {}
    for r in sw:
        if r['prec'] == prec and r['kernel'] == 'resident' and r['ok'] == '1':
            n, us = int(r['n']), float(r['us'])
            res[n] = min(res.get(n, us), us)
    if res:
        ns = sorted(res)
        ax.plot(ns, [gf(n, res[n]) for n in ns], 'x:', label='resident kernel (potrf_resident.cuh), fastest variant (sweep)')
    ax.set_title(f'{name}, batch 10,000, H100')
    ax.set_xlabel('n')
    ax.set_ylabel('GFLOP/s (potrf)')
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc='upper left', framealpha=0.5)
fig.tight_layout()
fig.savefig(png, dpi=110)
print('wrote', png, file=sys.stderr)
PY
    ;;
*) echo "usage: tools/tune_batched_chol.sh candidates [CSV TOP MIN_N] | build | run [CSV] [panel|resident] | table CSV[,CSV2...] [DEVICE-NAME] [RESIDENT-CSV] | plot BENCH-CSV OUT.png [RESIDENT-CSV]" >&2; exit 1 ;;
esac
