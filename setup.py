"""Builds the extension symgnn._core (python/src/module.cpp) with CMake for pip; the rest of
the package is in pyproject.toml.

The CMake build folder is build/pip/cmake (configured Release without tests and benchmarks:
it compiles the library, 10+ minutes on 2 cores), or SYMGNN_CMAKE_BUILD_DIR, an existing
configured build whose _core target is reused (scripts/test_packages.sh). SYMGNN_CMAKE_ARGS
adds configure arguments (e.g. -DCMAKE_PREFIX_PATH=... for a CUDA LibTorch), SYMGNN_JOBS
sets the parallel jobs (default: the cores).
"""

import os
import re
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(symgnn VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("SYMGNN_CMAKE_BUILD_DIR") or os.path.join(ROOT, "build", "pip", "cmake")
        build_dir = os.path.abspath(build_dir)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            # This interpreter's headers and extension suffix, not /usr/bin/python3's.
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DSYMGNN_BUILD_TESTS=OFF", "-DSYMGNN_BUILD_BENCH=OFF",
                                   f"-DPython_EXECUTABLE={sys.executable}"]
                                  + shlex.split(os.environ.get("SYMGNN_CMAKE_ARGS", "")))
        jobs = os.environ.get("SYMGNN_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_core", "-j", jobs])
        built = os.path.join(build_dir, "python", "symgnn", "_core" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not os.path.exists(built):
            sys.exit(f"setup.py: {built} is missing: {build_dir} builds _core for another Python "
                     "(or without python3-dev and pybind11-dev)")
        self.copy_file(built, self.get_ext_fullpath(ext.name))


# setuptools' own build folders under build/pip too: build/ is the CMake build of
# scripts/build.sh, and the source root stays clean (no symgnn.egg-info).
os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)
setup(version=project_version(),
      ext_modules=[Extension("symgnn._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build/pip/setuptools"}, "egg_info": {"egg_base": "build/pip"}})
