#!/usr/bin/env bash
# Checks the library's layering: each folder includes only from the layers below it.
#   capi/ -> include/starfact/ -> algorithms/ -> codelets/ -> kernels/, with runtime/ below them all.
#   capi/      the C ABI over the public API: nothing from algorithms/, codelets/, kernels/, runtime/, support/,
#              tools/, examples/ (only starfact/ headers and its own)
#   library    include/, algorithms/, codelets/, kernels/, runtime/: nothing from capi/ (the layer above them)
#   runtime/   nothing from codelets/, algorithms/, kernels/
#   kernels/   nothing from codelets/, algorithms/, runtime/, and no StarPU header; of the public headers
#              only starfact/error.hpp (standard library only: the potf2 entry points throw its
#              InvalidArgument and RuntimeError, as their contract says)
#   codelets/  nothing from algorithms/
#   include/   nothing but include/starfact/, and no StarPU header (starfact/starpu_types.hpp declares the two
#              StarPU types the API names)
#   tests/     nothing from tools/ or examples/
#   bench/, support/  nothing from examples/ (shared driver code lives in support/)
#   bench/     nothing from tools/ (a program that needs the tuning space is a tool: tools/tune/)
#   codelets/  no call into a function defined in algorithms/ (the flop counts live in codelets/*flops.cpp)
#   python/starfact/  no import cycle between its modules (imports inside functions count too)
# Prints each offending line and exits 1 if there is one.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
src='--include=*.hpp --include=*.cpp --include=*.cuh --include=*.cu --include=*.h'
bad=0
check() {  # description, folder, pattern
    local hits
    hits=$(grep -rnE $src "$3" "$2")
    if [ -n "$hits" ]; then
        echo "$1:"; echo "$hits"; bad=1
    fi
}
check "capi/ includes internals" capi '#\s*include\s*["<](algorithms|codelets|kernels|runtime|support|tools|examples)/'
for layer in include algorithms codelets kernels runtime; do
    check "$layer/ includes capi/ (a layer above it)" "$layer" '#\s*include\s*["<]capi/'
done
check "runtime/ includes an upper layer" runtime '#\s*include\s*["<](codelets|algorithms|kernels)/'
check "kernels/ includes an upper layer" kernels '#\s*include\s*["<](codelets|algorithms|runtime)/'
check "kernels/ includes StarPU" kernels '#\s*include\s*<starpu'
hits=$(grep -rnE $src '#\s*include\s*["<]starfact/' kernels | grep -v 'starfact/error\.hpp[">]')
[ -z "$hits" ] || { echo "kernels/ includes a public header other than starfact/error.hpp:"; echo "$hits"; bad=1; }
check "codelets/ includes algorithms/" codelets '#\s*include\s*["<]algorithms/'
check "include/starfact/ includes internals" include '#\s*include\s*["<](codelets|algorithms|kernels|runtime|tools)/'
check "include/starfact/ includes StarPU" include '#\s*include\s*<starpu'
check "tests/ include tools/ or examples/" tests '#\s*include\s*["<](tools|examples)/'
check "bench/ includes examples/" bench '#\s*include\s*["<]examples/'
check "bench/ includes tools/" bench '#\s*include\s*["<]tools/'
check "support/ includes examples/" support '#\s*include\s*["<]examples/'
# Functions defined in algorithms/ at namespace scope ("double name(" at the start of a line) that codelets/ calls,
# unless codelets/ defines a function of that name itself (its own LAPACK wrappers, the flop counts below it).
for f in $(grep -hoE '^(double|int64_t|int|bool|void) [a-z_0-9]+\(' algorithms/*.cpp | sed -E 's/^[a-z_0-9]+ //; s/\($//' | sort -u); do
    grep -rqE $src "^\s*(inline |static )?[a-zA-Z_0-9:<>]+ $f\(" codelets && continue
    hits=$(grep -rnE $src "(^|[^a-zA-Z0-9_:.>])$f\s*\(" codelets | grep -vE "^[^:]+:[0-9]+:\s*(//|/\*|\*)")
    [ -z "$hits" ] || { echo "codelets/ calls $f, defined in algorithms/:"; echo "$hits"; bad=1; }
done
# Import cycles among the Python package's modules.
if [ -d python/starfact ]; then
    cycle=$(python3 - python/starfact <<'PY'
import ast, os, sys
pkg = sys.argv[1]
mods = {f[:-3] for f in os.listdir(pkg) if f.endswith(".py")}
edges = {}
for m in mods:
    tree = ast.parse(open(os.path.join(pkg, m + ".py")).read())
    deps = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                deps.add(node.module.split(".")[0])
            else:
                deps.update(a.name for a in node.names)
    edges[m] = {d for d in deps if d in mods and d != m}
state = {}
def visit(m, path):
    state[m] = 1
    for d in sorted(edges[m]):
        if state.get(d) == 1:
            print(" -> ".join(path[path.index(d):] + [d]) if d in path else d)
            sys.exit(0)
        if d not in state:
            visit(d, path + [d])
    state[m] = 2
for m in sorted(mods):
    if m not in state:
        visit(m, [m])
PY
)
    [ -z "$cycle" ] || { echo "python/starfact/ import cycle: $cycle"; bad=1; }
fi
[ $bad = 0 ] && echo "layers: ok"
exit $bad
