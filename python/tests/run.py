#!/usr/bin/env python3
"""ctest's entry for the Python suite: runs pytest on python/tests/ against the module in --module-dir.

Exits 77 (ctest's SKIP_RETURN_CODE) when the module was not built (no python3-dev / numpy headers, or a
ThreadSanitizer build) or pytest is not installed, so such a build still passes. Under the ASan+UBSan
build (--sanitize=ON) the module is instrumented: python3 itself is not, so libasan must be loaded first
(LD_PRELOAD) and leak checking is off (the interpreter keeps its objects alive at exit by design).
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--built", required=True)
    ap.add_argument("--module-dir", required=True)
    ap.add_argument("--sowzero", required=True)
    ap.add_argument("--sanitize", default="OFF")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--toykind", default="")
    args, rest = ap.parse_known_args()
    if args.built != "ON":
        print("the Python module was not built (python/detect.cmake): skipped")
        return 77
    try:
        import pytest  # noqa: F401
    except ImportError:
        print("pytest is not installed (Debian: python3-pytest): skipped")
        return 77
    os.makedirs(args.tmp, exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = args.module_dir + os.pathsep + env.get("PYTHONPATH", "")
    env["SOWZERO_BIN"] = args.sowzero
    env["SOWZERO_TMP"] = args.tmp
    env["SOWZERO_TOYKIND"] = args.toykind
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if args.sanitize == "ON":
        libasan = subprocess.run([args.cc, "-print-file-name=libasan.so"], capture_output=True,
                                 text=True).stdout.strip()
        if not os.path.isabs(libasan):
            print("cannot locate libasan.so through %s: skipped" % args.cc)
            return 77
        env["LD_PRELOAD"] = libasan
        env["ASAN_OPTIONS"] = "detect_leaks=0:" + env.get("ASAN_OPTIONS", "")
        env["SOWZERO_SANITIZE"] = "1"
        # capture at the Python level only, so a sanitizer's report (written to fd 2 as the process
        # dies) reaches ctest's output
        rest = ["--capture=sys"] + rest
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", here] + rest
    return subprocess.run(cmd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
