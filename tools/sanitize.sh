#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the CPU tests (CI runs it after tools/test.sh):
#   tools/sanitize.sh [extra ctest args]
# Builds starfact CPU-only (STARFACT_WITH_CUDA=OFF, no bench/) as RelWithDebInfo with
#   -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# into build-sanitize/ and runs `ctest -L cpu` there (the CPU suite once per scheduler, the MPI tests under
# mpirun, the drivers). Any sanitizer report fails the run: UB aborts the process (no recovery); every ASan
# report of every process, children of mpirun and of expect_output.sh included, is written under
# build-sanitize/sanitizer-logs/, and UBSan's reports are looked for in ctest's log of all test output, so a
# report cannot hide behind a test that expects a failure or only matches its output.
# Environment: BUILD_DIR (default build-sanitize), JOBS (build jobs, default nproc; ctest runs one test at a
# time, as tools/test.sh does).
# Not run here:
#   package.*  they install the library and build separate consumer projects (tests/consumer/, the LS-SVM
#              application) against it with their own compiler flags: an instrumented static libstarfact.a
#              does not link without -fsanitize there. They check packaging; the library code they call
#              (posv) test_cpu runs too. The LS-SVM application's own code is not covered here.
#   python.*   the Python package's tests load libstarfact_c.so into the python3 interpreter, which is not built
#              with ASan (the runtime would have to be preloaded into it); the library code under them is the C++
#              API that test_cpu covers, and the package's own layer is pure Python.
# Skipped inside a test: test_lifetime's RLIMIT_AS test (ASan reserves terabytes of shadow address space, so a
# limit on the address space cannot be applied under it).
# Sanitizer options: leaks are not checked (detect_leaks=0: the leaks reported are inside hwloc, StarPU,
# OpenBLAS and Open MPI, which are not instrumented); allocator_may_return_null=1 lets the tests of oversized requests
# see std::bad_alloc / nullptr as without ASan. Third-party suppressions: tools/sanitize-*.supp.
# Time: 10 min 23 s end to end on an otherwise idle 2-core machine (build about 6 min with JOBS=2, the 33 tests
# 252 s: each cpu.<sched> run of test_cpu about 40 s, cpu.threads_traced 28 s, mpi.np4 28 s).
# SANITIZE_ONE_SCHED=1 runs test_cpu under dmdas only (saves about three test_cpu runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deps/setup.sh" >/dev/null
build=${BUILD_DIR:-$root/build-sanitize}
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
BUILD_DIR=$build "$root/tools/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTARFACT_WITH_CUDA=OFF \
  -DSTARFACT_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags" >/dev/null
logs=$build/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=0:log_path=$logs/asan:suppressions=$root/tools/sanitize-asan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/tools/sanitize-ubsan.supp"
cd "$build"
rc=0
exclude='^package\.|^python\.'
[ "${SANITIZE_ONE_SCHED:-0}" = 1 ] && exclude+='|^cpu\.(lws|eager|prio)$'
ctest --output-on-failure -L cpu -E "$exclude" "$@" || rc=$?
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for f in $reports; do echo "==== $f"; cat "$f"; done
  echo "[sanitize] $(echo "$reports" | wc -l) AddressSanitizer report(s) above" >&2
  rc=1
fi
# UBSan (GCC 12's runtime) writes to stderr whatever log_path says: ctest keeps every test's output here.
if grep -q ': runtime error: ' Testing/Temporary/LastTest.log; then
  grep -B2 -A12 ': runtime error: ' Testing/Temporary/LastTest.log
  echo "[sanitize] UndefinedBehaviorSanitizer report(s) above (all output: $build/Testing/Temporary/LastTest.log)" >&2
  rc=1
fi
exit "$rc"
