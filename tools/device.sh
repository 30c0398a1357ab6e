#!/usr/bin/env bash
# GPU tests and benchmarks on the device machine, in one call.
#
# Here (no GPU):   tools/device.sh prepare
#     builds Release for sm_90 (BUILD_DIR, default build/; TARGETS limits the build) and copies what the device needs into
#     CARRY_DIR (default .carry/): the drivers and test_*/bench_*/tune_* binaries (CARRY_BINS="a b": only those),
#     StarPU and libfxt shared libraries, StarPU tools, and the Python package as built (python/starfact/ with
#     libstarfact_c.so; one build serves every Python 3 there).
#     Carry dirs are git-ignored; name it in the device tool's `carry`.
# There (GPU):     bash tools/device.sh run [PHASE[:PATTERN] ...]
#     phases (default: info tests sanitize chol bench): info tests sanitize chol panel diag compare traces sweep bench
#     profile python pybench (python: the package's pytest suite, GPU tests included; pybench: python/bench/bench_posv.py);
#     PATTERN picks test_*PATTERN*gpu* / bench_*PATTERN* binaries (tests:potf2, bench:batched).
#     Logs go to $OUT (or ./device-out) as <phase>.log. For ad-hoc commands there:
#     source tools/device-env.sh [CARRY_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=${CARRY_DIR:-.carry}
case $carry in /*) ;; *) carry=$root/$carry ;; esac

prepare() {
    set -e
    "$root/deps/setup.sh" >/dev/null
    local build prefix
    build=$("$root/tools/build.sh")
    prefix=$("$root/deps/starpu-prefix.sh")
    rm -rf "$carry"; mkdir -p "$carry/bin" "$carry/lib"
    # CARRY_BINS (names, space-separated) keeps the carry lean: only those binaries (default: every driver, test,
    # bench and tuner; all of them together pass the carry's 64 MiB).
    local f keep=" ${CARRY_BINS:-} "
    for f in "$build"/examples/starpu_{chol,lu,qr} $(find "$build" -maxdepth 2 -type f -perm -u+x \
                 \( -name 'test_*' -o -name 'bench_*' -o -name 'tune_*' \)); do
        [ -x "$f" ] || continue
        [ "$keep" = "  " ] || [[ $keep == *" $(basename "$f") "* ]] && cp "$f" "$carry/bin/"
    done
    for f in starpu_fxt_tool starpu_perfmodel_display starpu_machine_display; do cp "$prefix/bin/$f" "$carry/bin/"; done
    cp -L "$(ldconfig -p | awk '/libfxt.so.2 /{print $NF; exit}')" "$carry/lib/libfxt.so.2"
    # libstarpu of the series the build links (libstarpu-1.3.so.9 or libstarpu-1.4.so.N, from the prefix through
    # the RUNPATH). A build with MPI links StarPU-MPI and Debian's OpenMPI: carry them (single-process runs need
    # only the libraries; mpirun on the device is its own OpenMPI 4.1, binary-compatible with these).
    local lib libs ref=$build/examples/starpu_chol
    [ -x "$ref" ] || ref=$(find "$carry/bin" -name 'test_*' -o -name 'bench_*' -o -name 'tune_*' | head -1)
    libs=$(ldd "$ref" 2>/dev/null)
    grep -q "libstarpu-1\.[0-9]*\.so.* => $prefix/" <<< "$libs" \
        || { echo "[prepare] $ref does not link libstarpu from $prefix" >&2; exit 1; }
    for lib in $(awk '/libstarpu-|starpumpi|libmpi\.|open-rte|open-pal|libevent/ {print $3}' <<< "$libs"); do
        cp -L "$lib" "$carry/lib/"
    done
    # The Python package of the build tree (its files and libstarfact_c.so); the tests and benches run from python/.
    if [ -f "$build/python/starfact/libstarfact_c.so" ]; then
        mkdir -p "$carry/python"
        cp -r "$build/python/starfact" "$carry/python/"
        rm -rf "$carry/python/starfact/__pycache__"
        strip --strip-unneeded "$carry/python/starfact/libstarfact_c.so"
        tar -C "$carry" -cJf "$carry/python.tar.xz" python && rm -rf "$carry/python"
    else
        echo "[prepare] no Python package in $build (no python3 with NumPy here?): the python phases will skip" >&2
    fi
    # The kernel timeline's CUPTI injection library (tools/kernel_trace/, tools/README.md), where CUDA has CUPTI.
    local cuda=${CUDA_HOME:-/usr/local/cuda}
    if [ -f "$cuda/include/cupti.h" ]; then
        g++ -O2 -shared -fPIC -I"$cuda/include" "$root/tools/kernel_trace/kernel_trace.cpp" \
            -o "$carry/lib/libkernel_trace.so" -L"$cuda/lib64" -L"$cuda/lib" -lcupti \
            || echo "[prepare] libkernel_trace.so not built" >&2
    fi
    strip --strip-unneeded "$carry"/bin/* "$carry"/lib/* 2>/dev/null || true
    # Binaries that link the batched kernels weigh 20-30 MB each: ship them xz-packed (the carry is
    # limited to 64 MiB); tools/device-env.sh unpacks them on the device.
    tar -C "$carry" -cJf "$carry/bin.tar.xz" bin && rm -rf "$carry/bin"
    du -sh "$carry" >&2
    echo "carry: ${carry#"$root"/}   command: CARRY_DIR=${carry#"$root"/} bash tools/device.sh run" >&2
}

run_phase() {  # name, command...: runs with a log in $OUT, prints a one-line verdict
    local name=$1; shift
    echo "=== [$name] $*"
    local t0=$SECONDS
    "$@" > "$out/$name.log" 2>&1
    local rc=$?
    tail -n "${TAIL:-25}" "$out/$name.log"
    echo "=== [$name] rc=$rc in $((SECONDS - t0)) s"
    return 0
}

remote() {
    source "$root/tools/device-env.sh" "$carry"
    out=$OUT
    local bin=$carry/bin
    local phases=("$@")
    # LOGS_TAG names the pack (logs$LOGS_TAG.tgz) when one command runs the script more than once
    trap 'cd "$out" && ls *.log >/dev/null 2>&1 && tar czf "logs${LOGS_TAG:-}.tgz" *.log && rm -f *.log' EXIT
    [ ${#phases[@]} -gt 0 ] || phases=(info tests sanitize chol bench)
    for spec in "${phases[@]}"; do
        local p=${spec%%:*} pat=""
        [ "$spec" != "$p" ] && pat=${spec#*:}
        case $p in
        info)
            nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
            nproc; ldd "$bin/test_gpu" | grep "not found" && echo "MISSING LIBRARIES" ;;
        tests)
            for t in "$bin"/test_*${pat}*gpu*; do [ -x "$t" ] && TAIL=15 run_phase "$(basename "$t")" "$t" --durations yes; done ;;
        sanitize)
            # Our own kernels under memcheck and racecheck: the [sanitize] test cases of each GPU binary.
            for t in "$bin"/test_*${pat}*gpu*; do
                [ -x "$t" ] || continue
                TAIL=6 run_phase memcheck_$(basename "$t") timeout ${SANITIZE_TIMEOUT:-300} \
                    compute-sanitizer --tool memcheck --error-exitcode 9 "$t" "[sanitize]"
                TAIL=6 run_phase racecheck_$(basename "$t") timeout ${SANITIZE_TIMEOUT:-300} \
                    compute-sanitizer --tool racecheck --error-exitcode 9 "$t" "[sanitize]"
            done ;;
        chol)
            for n in 8192 16384 32768; do
                run_phase chol_gpu_d_$n "$bin/starpu_chol" --gpu-only --device-resident --prec d --n $n --warmup 2 --repeat 3
            done
            run_phase chol_hybrid_d_16384 "$bin/starpu_chol" --hybrid --prec d --n 16384 --warmup 2 --repeat 3 ;;
        panel)
            # Inverse (trtri + gemm) vs trsm panel solves, GPU-only, device-resident, double.
            for n in ${PANEL_N:-8192 16384 32768}; do for p in trsm inverse; do
                TAIL=2 run_phase panel_${p}_$n "$bin/starpu_chol" --gpu-only --device-resident --prec d --n $n --panel $p
            done; done ;;
        diag)
            # Fused potf2 vs cuSOLVER potrf on the diagonal tiles, whole factorization; DIAG_ROUNDS rounds
            # of the pairs (interleaved, so drift hits both alike), each with cuSOLVER's full potrf.
            for r in $(seq "${DIAG_ROUNDS:-1}"); do for n in ${DIAG_N:-8192 16384}; do for k in cusolver fused; do
                TAIL=2 run_phase diag_${k}_${n}_r$r "$bin/starpu_chol" --gpu-only --device-resident --prec d --n $n \
                    --diag $k --warmup 2 --repeat 5
            done; done; done ;;
        compare)
            # Every variant x mapping x scheduler in one table, double, device-resident.
            for n in ${COMPARE_N:-16384 32768}; do
                TAIL=30 run_phase compare_$n "$bin/starpu_chol" --compare --device-resident --prec d --n $n
            done ;;
        traces)
            # GPU-only and hybrid traces of lookahead=0 and lookahead=2 (n = 16384), packed with their Gantt SVGs.
            for m in gpu-only hybrid; do for v in lookahead=0 lookahead=2; do
                local d=$out/trace_${m}_${v/=/}
                TAIL=3 run_phase trace_${m}_${v/=/} "$bin/starpu_chol" --$m --variant $v --n ${TRACE_N:-16384} \
                    --warmup 2 --repeat 1 --no-vendor --trace "$d"
            done; done
            (cd "$out" && tar czf traces.tgz trace_*/paje.trace trace_*/gantt.svg trace_*/tasks.rec trace_*/dag.dot \
                && rm -rf trace_*/) ;;
        sweep)
            for n in ${SWEEP_N:-8192 16384}; do for nb in ${SWEEP_NB:-512 1024 2048}; do for s in ${SWEEP_STREAMS:-2 4}; do
                TAIL=1 run_phase sweep_${n}_${nb}_$s "$bin/starpu_chol" --gpu-only --device-resident --n $n --nb $nb \
                    --streams $s --warmup 2 --repeat 2 --no-check --no-vendor
            done; done; done ;;
        bench)
            for b in "$bin"/bench_*${pat}*; do [ -x "$b" ] && run_phase "$(basename "$b")" "$b"; done ;;
        python)
            # The package's tests (python/tests/, CPU and GPU) with the carried package, then the GPU file verbosely.
            if python3 -c "import starfact" 2>/dev/null; then
                TAIL=30 run_phase python_pytest python3 -m pytest -q -p no:cacheprovider -rs "$root/python/tests"
                TAIL=40 run_phase python_gpu python3 -m pytest -v -p no:cacheprovider -rs "$root/python/tests/test_gpu.py"
            else
                echo "python: the package does not import (carried? python3 -c 'import starfact')"
            fi ;;
        pybench)
            # posv on PyTorch, CuPy and JAX device arrays against their own Cholesky solves (PYBENCH_ARGS adds flags).
            TAIL=40 run_phase pybench python3 "$root/python/bench/bench_posv.py" --json "$out/bench_posv.json" \
                ${PYBENCH_ARGS:-} ;;
        profile)
            # Per-SASS-instruction profile of one kernel (tools/README.md): profile:KERNEL (ncu -k, e.g.
            # potrf_frag_kernel), PROFILE_CMD (a carried binary and its arguments), PROFILE_COUNT launches
            # (default 1). Writes profile_sass.csv (tools/ncu_sass_summary.py reads it here) and the
            # details page into profile_details.log.
            [ -n "$pat" ] && [ -n "${PROFILE_CMD:-}" ] || { echo "profile: usage: PROFILE_CMD='bench_x ARGS' run profile:KERNEL"; continue; }
            # PROFILE_TAG (optional) suffixes the output names, for several profiles in one command.
            local pt=profile${PROFILE_TAG:-}
            run_phase "$pt" ncu --set full -k "$pat" -c "${PROFILE_COUNT:-1}" -o "$out/$pt" -f $bin/$PROFILE_CMD
            ncu -i "$out/$pt.ncu-rep" --page source --csv --print-source sass > "$out/${pt}_sass.csv"
            ncu -i "$out/$pt.ncu-rep" --page details > "$out/${pt}_details.log" 2>&1
            rm -f "$out/$pt.ncu-rep" ;;
        *) echo "unknown phase $p" ;;
        esac
    done
}

case ${1:-} in
prepare) prepare ;;
run) shift; remote "$@" ;;
*) echo "usage: tools/device.sh prepare | run [info tests sanitize chol sweep bench python pybench]" >&2; exit 1 ;;
esac
