"""The package as pip installs it (ctest package.pip): python/tests/pip_check.py PYTHON_SOURCE BUILD_DIR

In a temporary folder: a venv of this interpreter with its system site packages (NumPy), `pip install
--no-build-isolation --no-index` of PYTHON_SOURCE with the library of BUILD_DIR, then, from another folder and
without PYTHONPATH, installed_check.py (the package and libstarfact_c.so come from the venv, a solve's scaled
residual < 60), then `pip uninstall -y starfact`: the venv's site-packages must hold exactly what it held before,
and the source folder nothing new. Exit status 0 when all holds.
"""
import os
import subprocess
import sys
import tempfile


def tree(folder):
    """Every path under `folder`, relative to it."""
    found = set()
    for path, dirs, files in os.walk(folder):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(path, name), folder))
    return found


def run(command, **kwargs):
    print("+ " + " ".join(command), flush=True)
    return subprocess.run(command, check=False, **kwargs).returncode


def main():
    source, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    check = os.path.join(source, "tests", "installed_check.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHOME")}
    env["STARFACT_BUILD_DIR"] = build
    env.pop("STARFACT_C_LIBRARY", None)
    with tempfile.TemporaryDirectory(prefix="starfact-pip-") as tmp:
        venv = os.path.join(tmp, "venv")
        if run([sys.executable, "-m", "venv", "--system-site-packages", venv], env=env) != 0:
            print("cannot make a venv (Debian: python3-venv)")
            return 1
        python = os.path.join(venv, "bin", "python")
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env,
                              check=True, capture_output=True, text=True).stdout.strip()
        plat = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"], env=env,
                              check=True, capture_output=True, text=True).stdout.strip()
        roots = sorted({site, plat, os.path.join(venv, "bin")})
        before = {r: tree(r) for r in roots}
        source_before = tree(source)
        if run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-cache-dir", source],
               env=env, cwd=tmp) != 0:
            return 1
        elsewhere = os.path.join(tmp, "elsewhere")
        os.mkdir(elsewhere)
        rc = run([python, check, venv], env=env, cwd=elsewhere)
        if run([python, "-m", "pip", "uninstall", "-y", "starfact"], env=env, cwd=elsewhere) != 0:
            return 1
        if rc != 0:
            return rc
        failed = False
        for r in roots:
            left = tree(r) - before[r]
            gone = before[r] - tree(r)
            if left or gone:
                failed = True
                print("after pip uninstall, %s differs: left %s, removed %s" % (r, sorted(left), sorted(gone)))
        new_in_source = sorted(p for p in tree(source) - source_before if "__pycache__" not in p.split(os.sep))
        if new_in_source:
            failed = True
            print("pip install wrote into the source folder %s: %s" % (source, new_in_source))
        if failed:
            return 1
        print("pip install, a solve from %s, pip uninstall: nothing left in %s" % (elsewhere, ", ".join(roots)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
