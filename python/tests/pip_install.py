#!/usr/bin/env python3
"""ctest's python_pip: `pip install .` of the source tree into a fresh virtual environment, then
`import sowzero` there from another directory without PYTHONPATH.

    pip_install.py --root SRC --build CMAKE_BUILD_DIR --work DIR [--full]

The venv (--system-site-packages, for Debian's numpy; without its own pip: Debian's pip installs into it
through --python) and setuptools' scratch space go under --work, so nothing outside the build folder
changes. By default setup.py reuses the CMake build in --build (SOWZERO_CMAKE_BUILD_DIR: seconds);
--full lets it configure and build the extension itself, as a user's `pip install .` does (minutes).
Exits 77 (skipped) where Debian's pip or venv is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--full", action="store_true")
    args = ap.parse_args()
    for mod in ("pip", "venv", "setuptools"):
        if subprocess.run([sys.executable, "-c", "import " + mod], capture_output=True).returncode:
            print("%s has no %s (Debian: python3-pip, python3-venv, python3-setuptools): skipped"
                  % (sys.executable, mod))
            return 77
    shutil.rmtree(args.work, ignore_errors=True)
    venv, scratch, elsewhere = (os.path.join(args.work, d) for d in ("venv", "setuptools", "elsewhere"))
    os.makedirs(elsewhere)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SOWZERO_CMAKE_BUILD_DIR")}
    env["SOWZERO_PIP_BUILD_BASE"] = scratch
    if not args.full:
        env["SOWZERO_CMAKE_BUILD_DIR"] = args.build
    p = subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "--no-build-isolation", "--no-deps",
                        "--no-index", "--disable-pip-version-check", args.root], env=env, cwd=args.root,
                       capture_output=True, text=True)
    if p.returncode:
        print(p.stdout, p.stderr)
        return 1
    check = ("import os, sowzero; e = sowzero.VecEnv(num_envs=2); e.reset(seed=1); "
             "e.step(e.sample_actions()); "
             "print(sowzero.__version__, os.path.dirname(sowzero.__file__), sowzero.perft(depth=3))")
    env.pop("SOWZERO_CMAKE_BUILD_DIR", None)
    q = subprocess.run([py, "-c", check], env=env, cwd=elsewhere, capture_output=True, text=True)
    print(q.stdout, q.stderr)
    if q.returncode:
        return 1
    version, where, perft = q.stdout.split(maxsplit=2)
    site = os.path.realpath(os.path.join(venv, "lib"))
    if not os.path.realpath(where).startswith(site):
        print("imported from %s, not the venv's site-packages under %s" % (where, site))
        return 1
    if perft.strip() != "[6, 35, 185]":
        print("unexpected perft:", perft)
        return 1
    print("pip install . into %s: sowzero %s imports from %s" % (venv, version, where))
    return 0


if __name__ == "__main__":
    sys.exit(main())
