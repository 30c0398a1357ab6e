#!/usr/bin/env bash
# The simulation's test (docs/simulation.md): tile Cholesky factorizations (starpu_chol), tile LUs with partial
# pivoting (starpu_lu) and tile QRs (starpu_qr: the panel tree, and the Cholesky QR of a tall and skinny matrix)
# simulated on one and two GPUs of a node under the synthetic models of sim/models/synthetic, in both precisions, at
# an order that is not a multiple of the tile order. Checks that each run completes (info 0, no residual: nothing is
# computed), that the one-GPU time is the sum of the models' task times (sim/expected_time.py) up to the scheduler's
# and submission's costs (+15%), and that two GPUs take less than one (the Cholesky QR: no more than one, +5%) and no
# less than half the sum, that a per-task cost (--task-cost-us) adds that much per task on one GPU; with the SMPI build, that two
# nodes complete, the Cholesky's and the distributed LU's.
# Exits 77 (ctest: skipped) when the simulation build is absent: tools/simulate.sh --build makes it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIM_BUILD_DIR:-$root/build-sim}
if [ ! -x "$build/examples/starpu_chol" ]; then
  echo "skipped: no simulation build in $build (tools/simulate.sh --build: the SimGrid StarPU and starpu_chol)"
  exit 77
fi
if [ ! -x "$build/examples/starpu_lu" ]; then
  echo "FAILED: $build has starpu_chol but not starpu_lu (tools/simulate.sh --build builds both)"
  exit 1
fi
n=16000 nb=1024
fail=0
median() {  # gpus prec [per-task cost us] -> seconds (the summary's median), after checking the rows; DRIVER=lu: LU
  local out
  out=$("$root/tools/simulate.sh" --driver "${DRIVER:-chol}" --gpus "$1" --task-cost-us "${3:-0}" -- --n $n --nb $nb \
          --prec "$2" --warmup 1 --repeat 2 --csv 2>&1) || {
    echo "$out" | tail -20 >&2
    echo "FAILED: simulated ${DRIVER:-chol} on $1 GPU(s), prec $2, exited non-zero" >&2; return 1; }
  if echo "$out" | grep -q "not calibrated"; then
    echo "$out" | grep "not calibrated" | head -3 >&2
    echo "FAILED: a task shape without a synthetic model (sim/synthetic_models.py)" >&2; return 1
  fi
  # CSV rows: impl,n,nb,prec,...,run,seconds,GFLOP/s,residual,info
  local rows; rows=$(echo "$out" | grep -c "^starfact,$n,$nb,$2,.*,-,0$" || true)
  if [ "$rows" != 2 ]; then
    echo "$out" | tail -20 >&2
    echo "FAILED: expected 2 timed rows with info 0 and no residual, got $rows" >&2
    return 1
  fi
  echo "$out" | sed -n 's/.*summary: starfact median \([0-9.]*\) s.*/\1/p'
}
for run in "chol d" "chol s" "lu d" "lu s"; do
  set -- $run
  driver=$1 prec=$2 op=$([ "$1" = lu ] && echo getrf || echo potrf)
  expect=$(python3 "$root/sim/expected_time.py" --op $op --n $n --nb $nb --prec $prec)
  t1=$(DRIVER=$driver median 1 $prec) || { fail=1; continue; }
  t2=$(DRIVER=$driver median 2 $prec) || { fail=1; continue; }
  verdict=$(python3 -c "
e, t1, t2 = $expect, $t1, $t2
bad = []
if not e <= t1 <= 1.15 * e: bad.append('one GPU: %.4f s, expected %.4f .. %.4f s' % (t1, e, 1.15 * e))
if not e / 2 <= t2 < t1:
    bad.append('two GPUs: %.4f s, expected %.4f .. %.4f s (half the sum .. one GPU)' % (t2, e / 2, t1))
print('; '.join(bad))")
  echo "$op, prec $prec, n $n, nb $nb: sum of task times $expect s; simulated 1 GPU $t1 s, 2 GPUs $t2 s"
  if [ -n "$verdict" ]; then echo "FAILED: $verdict"; fail=1; fi
done
# 20 us more per task on one GPU: the 816 tasks of the 16 x 16 tiles on one worker take 16.3 ms more.
if tc=$(median 1 d 20) && t0=$(median 1 d); then
  verdict=$(python3 -c "
d, want = $tc - $t0, 816 * 20e-6
print('' if 0.9 * want <= d <= 1.2 * want else 'per-task cost 20 us: %.4f s more, expected %.4f' % (d, want))")
  echo "per-task cost 20 us: simulated 1 GPU $tc s against $t0 s"
  if [ -n "$verdict" ]; then echo "FAILED: $verdict"; fail=1; fi
else
  fail=1
fi
# The QR (starpu_qr, docs/simulation.md): the panel tree at the same order, and the Cholesky QR of a tall and skinny
# matrix (one tile column of 16 tiles, the last one shorter; float widened to double as on GPUs), in both precisions;
# the float Cholesky QR on one GPU only (on two, StarPU's simulated allocations of the widened copies take 0.13 s of
# its 0.14: docs/simulation.md, "The QR").
# Two warm-up runs: the QR's temporaries (the updates' and the passes' products) reach StarPU's allocation cache in
# the second, after which every run takes the same simulated time.
qr_median() {  # gpus prec tree m n nb -> seconds (the summary's median), after checking the rows
  local out rows
  out=$("$root/tools/simulate.sh" --driver qr --gpus "$1" --task-cost-us 0 -- --prec "$2" --tree "$3" --m "$4" --n "$5" \
          --nb "$6" --warmup 2 --repeat 2 --csv 2>&1) || {
    echo "$out" | tail -20 >&2; echo "FAILED: simulated QR ($3) on $1 GPU(s), prec $2, exited non-zero" >&2; return 1; }
  if echo "$out" | grep -q "not calibrated"; then
    echo "$out" | grep "not calibrated" | head -3 >&2
    echo "FAILED: a QR task shape without a synthetic model (sim/synthetic_models.py)" >&2; return 1
  fi
  # CSV rows: impl,op,m,n,nb,ib,tree,prec,...,run,seconds,GFLOP/s,orth,resid,ls_resid,info
  rows=$(echo "$out" | grep -c "^starfact,geqrf,$4,$5,$6,[0-9]*,$3,$2,.*,-,-,-,0$" || true)
  if [ "$rows" != 2 ]; then
    echo "$out" | tail -20 >&2
    echo "FAILED: QR ($3): expected 2 timed rows with info 0 and no residual, got $rows" >&2; return 1
  fi
  echo "$out" | sed -n 's/.*summary: starfact geqrf median \([0-9.]*\) s.*/\1/p'
}
if [ -x "$build/examples/starpu_qr" ]; then
  for run in "panel d $n $n $nb" "panel s $n $n $nb" "cholqr d 1000000 200 65536" "cholqr s 1000000 200 65536"; do
    set -- $run
    tree=$1 prec=$2 m=$3 qn=$4 qnb=$5 op=$([ "$1" = panel ] && echo geqrf || echo cholqr)
    expect=$(python3 "$root/sim/expected_time.py" --op $op --m $m --n $qn --nb $qnb --prec $prec)
    t1=$(qr_median 1 $prec $tree $m $qn $qnb) || { fail=1; continue; }
    if [ "$tree $prec" = "cholqr s" ]; then
      verdict=$(python3 -c "
e, t1 = $expect, $t1
print('' if e <= t1 <= 1.15 * e else 'one GPU: %.4f s, expected %.4f .. %.4f s' % (t1, e, 1.15 * e))")
      echo "qr $tree, prec $prec, $m x $qn, nb $qnb: sum of task times $expect s; simulated 1 GPU $t1 s"
      if [ -n "$verdict" ]; then echo "FAILED: $verdict"; fail=1; fi
      continue
    fi
    t2=$(qr_median 2 $prec $tree $m $qn $qnb) || { fail=1; continue; }
    # The panel tree spreads its updates over both GPUs; the Cholesky QR is a chain of passes over one tile column.
    verdict=$(python3 -c "
e, t1, t2, spread = $expect, $t1, $t2, '$tree' == 'panel'
bad = []
if not e <= t1 <= 1.15 * e: bad.append('one GPU: %.4f s, expected %.4f .. %.4f s' % (t1, e, 1.15 * e))
top = t1 if spread else 1.05 * t1
if not (e / 2 <= t2 < top if spread else e / 2 <= t2 <= top):
    bad.append('two GPUs: %.4f s, expected %.4f .. %.4f s (half the sum .. one GPU)' % (t2, e / 2, top))
print('; '.join(bad))")
    echo "qr $tree, prec $prec, $m x $qn, nb $qnb: sum of task times $expect s; simulated 1 GPU $t1 s, 2 GPUs $t2 s"
    if [ -n "$verdict" ]; then echo "FAILED: $verdict"; fail=1; fi
  done
else
  echo "FAILED: $build has starpu_chol but not starpu_qr (tools/simulate.sh --build builds it)"; fail=1
fi
# Several nodes (experimental, docs/simulation.md): when the SMPI build is there, two simulated nodes of two GPUs must
# complete, each rank running half the tasks.
if [ -x "${SMPI_BUILD_DIR:-$root/build-smpi}/examples/starpu_chol" ]; then
  out=$("$root/tools/simulate.sh" --nodes 2 --gpus 2 -- --n $n --nb $nb --warmup 1 --repeat 1 --csv 2>&1) || true
  if echo "$out" | grep -q "^starfact,$n,$nb,d,.*,1x2,1,.*,-,0$" && echo "$out" | grep -q "on 2 MPI ranks, grid 1x2"; then
    echo "two simulated nodes: $(echo "$out" | sed -n 's/.*summary: \(.*\)/\1/p')"
  else
    echo "$out" | tail -20; echo "FAILED: the simulation of two nodes"; fail=1
  fi
  # The distributed LU (starpu_lu over StarPU-MPI) on two nodes of one GPU, grid 1x2: rank 0 runs a share of the
  # one-process LU's 1616 tasks (the synthetic models hold the shapes of this n and nb).
  out=$("$root/tools/simulate.sh" --driver lu --nodes 2 -- --n $n --nb $nb --warmup 1 --repeat 1 --csv 2>&1) || true
  tasks=$(echo "$out" | sed -n 's/.*summary: .* \([0-9]*\) tasks of rank 0, 2 MPI ranks, grid 1x2$/\1/p')
  if echo "$out" | grep -q "^starfact,$n,$nb,d,.*,1x2,1,.*,-,0$" && [ -n "$tasks" ] && [ "$tasks" -gt 0 ] \
     && [ "$tasks" -lt 1616 ]; then
    echo "two simulated nodes, LU: $(echo "$out" | sed -n 's/.*summary: \(.*\)/\1/p')"
  else
    echo "$out" | tail -20; echo "FAILED: the simulation of the LU on two nodes"; fail=1
  fi
  # The distributed Cholesky QR (starpu_qr over StarPU-MPI) on two nodes of one GPU, grid 2x1: 16 tiles of 65536 rows
  # alternate between the ranks, the sums and factorizations on rank 0, which runs a share of the tasks.
  if [ -x "${SMPI_BUILD_DIR:-$root/build-smpi}/examples/starpu_qr" ]; then
    out=$("$root/tools/simulate.sh" --driver qr --nodes 2 --task-cost-us 0 -- --grid 2x1 --prec d --tree cholqr \
            --m 1000000 --n 200 --nb 65536 --warmup 2 --repeat 1 --csv 2>&1) || true
    tasks=$(echo "$out" | sed -n 's/.*summary: .*, \([0-9]*\) tasks of rank 0, 2 MPI ranks, grid 2x1$/\1/p')
    if echo "$out" | grep -q "^starfact,geqrf,1000000,200,65536,[0-9]*,cholqr,d,.*,2x1,1,.*,-,-,-,0$" \
       && [ -n "$tasks" ] && [ "$tasks" -gt 16 ] && [ "$tasks" -lt 79 ]; then
      echo "two simulated nodes, Cholesky QR: $(echo "$out" | sed -n 's/.*summary: \(.*\)/\1/p')"
    else
      echo "$out" | tail -20; echo "FAILED: the simulation of the Cholesky QR on two nodes"; fail=1
    fi
  else
    echo "FAILED: the SMPI build has starpu_chol but not starpu_qr (tools/simulate.sh --build-mpi builds it)"; fail=1
  fi
else
  echo "two simulated nodes: skipped (no SMPI build: tools/simulate.sh --build-mpi)"
fi
[ $fail = 0 ] && echo "simulation test passed"
exit $fail
