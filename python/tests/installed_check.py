"""The installed package (ctest package.python): imported from the install prefix given as argument, it finds its
libstarfact_c.so there and solves a small system with a scaled residual < 60."""
import os
import sys

import numpy


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
