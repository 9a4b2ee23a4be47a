"""Builds the package sowzero with its C extension sowzero._sowzero through the project's CMake build.

`python3 -m pip install .` (Debian, offline: `/usr/bin/python3 -m pip install --no-build-isolation .`)
configures the project in build-pip/cmake for the interpreter running pip (Python3_EXECUTABLE), builds
only the extension and its libraries, and installs it beside the package's Python files (python/sowzero).
The version is CMakeLists.txt's project VERSION.

Environment: SOWZERO_CMAKE_BUILD_DIR=DIR reuses an existing CMake build (configured for this same
interpreter) instead of configuring one; SOWZERO_CMAKE_ARGS adds arguments to the configure step;
SOWZERO_BUILD_JOBS sets the parallel build jobs (default 2); SOWZERO_PIP_BUILD_BASE moves setuptools'
scratch folder (default build-pip/, beside the sources).
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# setuptools' scratch space (its own build/ would land inside the CMake build folder of the README)
BUILD_BASE = os.environ.get("SOWZERO_PIP_BUILD_BASE") or "build-pip"
os.makedirs(BUILD_BASE, exist_ok=True)  # egg_info writes there before anything creates it


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*sowzero\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no `project(sowzero VERSION x.y.z ...)` line")
    return m.group(1)


class CMakeBuild(build_ext):
    """Builds the extension with CMake and copies it (and its generated _build_info.py) into the package."""

    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            raise RuntimeError("sowzero: building needs cmake (Debian: scripts/setup-debian.sh)")
        given = os.environ.get("SOWZERO_CMAKE_BUILD_DIR")
        build = os.path.abspath(given) if given else os.path.abspath(os.path.join(self.build_temp, "cmake"))
        if not given:
            cmd = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DSOWZERO_TESTS=OFF",
                   "-DPython3_EXECUTABLE=" + sys.executable]
            cmd += shlex.split(os.environ.get("SOWZERO_CMAKE_ARGS", ""))
            subprocess.check_call(cmd)
        jobs = os.environ.get("SOWZERO_BUILD_JOBS", "2")
        subprocess.check_call(["cmake", "--build", build, "--target", "sowzero_python", "sowzero_python_files",
                               "-j", jobs])
        built = os.path.join(build, "python", "sowzero")
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        so = os.path.join(built, "_sowzero" + suffix)
        if not os.path.exists(so):
            found = glob.glob(os.path.join(built, "_sowzero*.so"))
            raise RuntimeError("sowzero: %s has no _sowzero%s for %s (found: %s); configure that build with "
                               "-DPython3_EXECUTABLE=%s, or leave SOWZERO_CMAKE_BUILD_DIR unset"
                               % (built, suffix, sys.executable, ", ".join(found) or "none", sys.executable))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(so, dest)
        shutil.copyfile(os.path.join(built, "_build_info.py"), os.path.join(os.path.dirname(dest), "_build_info.py"))


setup(
    version=project_version(),
    packages=["sowzero"],
    package_dir={"sowzero": "python/sowzero"},
    ext_modules=[Extension("sowzero._sowzero", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
