"""pip's build of the package (pyproject.toml): the package's files, and libstarfact_c.so from the project's CMake
build, shipped inside the package, where starfact/_clib.py looks first.

The build folder is STARFACT_BUILD_DIR, else build/ beside python/. A configured folder is brought up to date
with `cmake --build DIR --target starfact_python` (its own configuration kept); a missing one is configured and
built by tools/build.sh (which needs deps/setup.sh's StarPU). setuptools' own output goes under DIR/python/pip-build,
so that nothing is written into the source tree.
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARY = "libstarfact_c.so"


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(starfact VERSION ([0-9]+(?:\.[0-9]+)*)", f.read())
    if not found:
        sys.exit("starfact: no `project(starfact VERSION ...)` in %s" % os.path.join(ROOT, "CMakeLists.txt"))
    return found.group(1)


def build_folder():
    return os.path.abspath(os.environ.get("STARFACT_BUILD_DIR") or os.path.join(ROOT, "build"))


def build_library(folder):
    """Builds the package's target in `folder` and returns the path of its libstarfact_c.so."""
    jobs = os.environ.get("JOBS") or str(os.cpu_count() or 1)
    if os.path.exists(os.path.join(folder, "CMakeCache.txt")):
        command = ["cmake", "--build", folder, "--target", "starfact_python", "--parallel", jobs]
        env = None
    else:
        command = [os.path.join(ROOT, "tools", "build.sh")]
        env = dict(os.environ, BUILD_DIR=folder, TARGETS="starfact_python", JOBS=jobs)
    print("starfact: building libstarfact_c.so: %s" % " ".join(command), flush=True)
    # The build's output goes to stderr, which pip shows when the install fails (and with -v).
    if subprocess.call(command, env=env, stdout=sys.stderr) != 0:
        sys.exit("starfact: building the C ABI library in %s failed (command: %s). Without the project's StarPU, "
                 "run deps/setup.sh --python first; STARFACT_BUILD_DIR names another CMake build folder."
                 % (folder, " ".join(command)))
    library = os.path.join(folder, "python", "starfact", LIBRARY)
    if not os.path.exists(library):
        sys.exit("starfact: the build in %s made no %s (configured with -DSTARFACT_WITH_PYTHON=OFF, or a "
                 "simulation build?)" % (folder, library))
    return library


class BuildWithLibrary(build_py):
    """build_py, then this build's libstarfact_c.so into the package."""

    def run(self):
        super().run()
        library = build_library(build_folder())
        target = os.path.join(self.build_lib, "starfact")
        os.makedirs(target, exist_ok=True)
        shipped = os.path.join(target, LIBRARY)
        shutil.copy2(library, shipped)
        # The copy's RUNPATH without the empty entries CMake pads a build tree's with (the current directory).
        subprocess.check_call(["cmake", "-DFILE=" + shipped, "-P", os.path.join(HERE, "runpath.cmake")],
                              stdout=sys.stderr)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, "starfact", LIBRARY)]


class BinaryDistribution(Distribution):
    """A wheel for this platform (the package holds a shared library), not a pure-Python one."""

    def has_ext_modules(self):
        return True


scratch = os.path.join(build_folder(), "python", "pip-build")
os.makedirs(scratch, exist_ok=True)  # egg_info wants its folder to exist
setup(version=project_version(), cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join(scratch, "build")},
               "egg_info": {"egg_base": scratch}})
