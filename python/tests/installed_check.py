"""The installed package (ctest package.python, and package.pip through pip_check.py): imported from the install
prefix given as argument, it finds its libstarfact_c.so there, whose RUNPATH has no empty entry (the dynamic loader
would search the current directory), and solves a small system with a scaled residual < 60."""
import os
import re
import shutil
import subprocess
import sys

import numpy


def empty_runpath_entries(library):
    """The RUNPATH of `library` (readelf -d) when it has an empty entry, else '' (also without readelf)."""
    if not shutil.which("readelf"):
        print("readelf not found: RUNPATH not checked")
        return ""
    dynamic = subprocess.run(["readelf", "-d", library], check=True, capture_output=True, text=True).stdout
    for found in re.findall(r"\((?:RUNPATH|RPATH)\)[^\[]*\[([^\]]*)\]", dynamic):
        if "" in found.split(":"):
            return found
    return ""


def main():
    prefix = os.path.realpath(sys.argv[1])
    import starfact  # pylint: disable=import-outside-toplevel
    package = os.path.realpath(os.path.dirname(starfact.__file__))
    if not package.startswith(prefix + os.sep):
        print("starfact was imported from %s, not from the prefix %s" % (package, prefix))
        return 1
    from starfact import _clib  # pylint: disable=import-outside-toplevel
    library = os.path.realpath(_clib.lib._name)  # pylint: disable=protected-access
    if not library.startswith(prefix + os.sep):
        print("libstarfact_c.so was loaded from %s, not from the prefix %s" % (library, prefix))
        return 1
    empty = empty_runpath_entries(library)
    if empty:
        print("the RUNPATH of %s has empty entries (the current directory): %s" % (library, empty))
        return 1
    rng = numpy.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    n = 77
    a = rng.uniform(-0.5, 0.5, (n, n))
    a = (a + a.T) / 2 + n * numpy.eye(n)
    b = rng.uniform(-0.5, 0.5, (n, 2))
    x = starfact.posv(a, b, nb=32)
    res = numpy.linalg.norm(a @ x - b, 1) / (numpy.linalg.norm(a, 1) * numpy.linalg.norm(x, 1) * n *
                                             numpy.finfo(float).eps)
    print("starfact %s from %s, library %s: posv residual %.3g" % (starfact.__version__, package, library, res))
    return 0 if res < 60 else 1


if __name__ == "__main__":
    sys.exit(main())
