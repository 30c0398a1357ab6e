#!/usr/bin/env bash
# Tuning sweep of the fused potf2 (kernels/potf2/): times every configuration (inner blocking ib,
# cut-off, left/right-looking leaf, recursive/blocked form) for each tile order and precision, then the
# full bench row of the best one (tune_potf2 --auto, tools/tune/potf2/), and prints the table that
# kernels/potf2/potf2_tuning.hpp and docs/potf2.md take their defaults from.
#   On the device:  source tools/device-env.sh .carry-potf2 && bash tools/sweep_potf2.sh [tune_potf2 flags]
#   e.g.            bash tools/sweep_potf2.sh --nb 128,512,2048 --prec d
# Writes $OUT/sweep_potf2.csv (every point) when OUT is set; prints "best" rows and a per-precision vote.
set -euo pipefail
bench=$(command -v tune_potf2 || true)
[ -n "$bench" ] || { echo "sweep_potf2: tune_potf2 not on PATH (source tools/device-env.sh first)" >&2; exit 1; }
csv=${OUT:-.}/sweep_potf2.csv
"$bench" --auto --csv --warmup 3 --repeat 10 "$@" > "$csv"
echo "# every point: $csv"
echo "# best per precision and nb: prec,nb,ib,cutoff,looped,right_looking,blocked,rdiag,ours_us,cusolver_us,speedup"
grep '^best,' "$csv" | cut -d, -f2-
echo "# full rows of the best configurations (prec,nb,ib,cutoff,looped,ours_us,cusolver_us,speedup,ours_q_us,..."
grep -E '^(s|d),' "$csv"
# Per precision: the configuration with the smallest mean over nb of time / (best time at that nb).
echo "# tuning-table rows ({max_n, {ib, cutoff, looped, right_looking, blocked, rdiag}}):"
grep '^table,' "$csv" | cut -d, -f2-
echo "# per precision, the one configuration (ib/cutoff/looped/right/blocked/rdiag) minimising the mean of time/best:"
awk -F, '$1=="sweep"{cfg=$4"/"$5"/"$6"/"$7"/"$8"/"$9; pn=$2","$3; v[$2","cfg","$3]=$10; cfgs[$2","cfg]=1
                     if(!(pn in b)||$10<b[pn]) b[pn]=$10}
         END{for(x in v){split(x,a,","); s[a[1]","a[2]]+=v[x]/b[a[1]","a[3]]; c[a[1]","a[2]]++}
             for(y in s){split(y,a,","); m=s[y]/c[y]; if(!(a[1] in bm)||m<bm[a[1]]){bm[a[1]]=m; bc[a[1]]=a[2]}}
             for(p in bm) printf "%s %s mean slowdown vs per-nb best %.3f\n", p, bc[p], bm[p]}' "$csv"
