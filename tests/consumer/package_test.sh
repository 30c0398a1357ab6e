#!/usr/bin/env bash
# Steps of the package tests (tests/CMakeLists.txt, label cpu):
#   package_test.sh install BUILD_DIR PREFIX WORK_DIR
#       a fresh `cmake --install BUILD_DIR --prefix PREFIX`; WORK_DIR (the consumers' builds) emptied
#   package_test.sh pkg-config PKGCONFIG_DIR STARPU_PKGCONFIG_DIR WORK_DIR [CXX]
#       builds tests/consumer/main.cpp with `CXX ... $(pkg-config --cflags --libs starfact)` alone, runs it
#   package_test.sh headers PKGCONFIG_DIR STARPU_PKGCONFIG_DIR [CXX]
#       compiles each installed header on its own with pkg-config's flags: each is self-contained and
#       includes nothing that is not installed
# env: CMAKE, PKG_CONFIG (default: from PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
install)
    build=$2 prefix=$3 work=$4
    rm -rf "$prefix" "$work"
    mkdir -p "$work"
    "${CMAKE:-cmake}" --install "$build" --prefix "$prefix"
    ;;
pkg-config)
    pcdir=$2 starpu_pcdir=$3 work=$4 cxx=${5:-c++}
    export PKG_CONFIG_PATH="$pcdir:$starpu_pcdir"
    pc=${PKG_CONFIG:-pkg-config}
    flags=$("$pc" --cflags --libs starfact)
    # StarPU (and a shared libstarfact) are found at run time through the RUNPATH.
    # starfact.pc requires the StarPU series it was built with (starpu-1.3 or starpu-1.4).
    starpu_pc=$("$pc" --print-requires starfact | awk '/^starpu-1\./ {print $1; exit}')
    rpath="-Wl,-rpath,$("$pc" --variable=libdir "$starpu_pc") -Wl,-rpath,$("$pc" --variable=libdir starfact)"
    mkdir -p "$work/pkg-config"
    echo "$cxx -std=c++17 -O2 $here/main.cpp -o $work/pkg-config/starfact_consumer $flags $rpath"
    # shellcheck disable=SC2086
    "$cxx" -std=c++17 -O2 "$here/main.cpp" -o "$work/pkg-config/starfact_consumer" $flags $rpath
    "$work/pkg-config/starfact_consumer"
    ;;
headers)
    pcdir=$2 starpu_pcdir=$3 cxx=${4:-c++}
    export PKG_CONFIG_PATH="$pcdir:$starpu_pcdir"
    pc=${PKG_CONFIG:-pkg-config}
    cflags=$("$pc" --cflags starfact)
    includedir=$("$pc" --variable=includedir starfact)
    # One compiler per core at a time, each header's messages kept apart and printed in order.
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
    n=0
    for h in "$includedir"/starfact/*.hpp; do
        n=$((n + 1))
        name=${h##*/}
        # shellcheck disable=SC2086
        { echo "#include <starfact/$name>" | "$cxx" -std=c++17 -fsyntax-only -x c++ - $cflags > "$logs/$name" 2>&1 ||
            echo "FAIL: starfact/$name does not compile on its own against the installed tree" >> "$logs/$name"; } &
        while [ "$(jobs -pr | wc -l)" -ge "${JOBS:-$(nproc)}" ]; do wait -n || true; done
    done
    wait
    [ "$n" -eq 0 ] || cat "$logs"/*
    failed=$(cat "$logs"/* /dev/null | grep -c "^FAIL: " || true)
    echo "$n installed headers, $failed failed"
    [ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
    ;;
*)
    echo "usage: $0 install BUILD_DIR PREFIX WORK_DIR | pkg-config PKGCONFIG_DIR STARPU_PKGCONFIG_DIR WORK_DIR [CXX]" \
         "| headers PKGCONFIG_DIR STARPU_PKGCONFIG_DIR [CXX]" >&2
    exit 64 ;;
esac
