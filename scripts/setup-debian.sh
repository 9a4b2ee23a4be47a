#!/usr/bin/env bash
# Installs everything sowzero needs to build, test and plot on Debian 12 (bookworm) or Ubuntu 22.04+.
# Run it as root (the usual container) or as a user who may sudo: it asks sudo only when not root.
# The one place that lists the project's system packages.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup-debian.sh: run as root, or install sudo" >&2; exit 1; }
  exec sudo "$0" "$@"
fi
packages=(
  build-essential cmake pkg-config          # compiler and build
  libopenblas-dev                           # cblas_sgemm for the net
  libhdf5-dev                               # checkpoints and weight export
  zlib1g-dev                                # crc32: the net files' checksum (nn/h5seal.h)
  libcmocka-dev                             # the test suite
  libinih-dev                               # INI config files
  libcjson-dev                              # --json output, reading vectors
  python3 python3-numpy python3-h5py        # the export round-trip test (numpy reproduces the net)
  python3-dev python3-pytest python3-onnx   # the Python module (python/), its tests, its ONNX export
  python3-pip python3-venv python3-setuptools python3-wheel  # `pip install .` (setup.py) and its test
  gnuplot-nox                               # training plots (PNG)
  libmicrohttpd-dev                         # sowzero serve (HTTP)
  chromium chromium-driver python3-selenium # the browser test of sowzero serve
  clang                                     # the libFuzzer targets (scripts/fuzz.sh, fuzz/)
  libopenmpi-dev openmpi-bin                # self-play across machines (SOWZERO_MPI, train/mpi_*.c)
  mkdocs                                    # the documentation site (mkdocs.yml, docs/)
)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}"
# libFuzzer's runtime: its own package on Debian 12 (in libclang-common-*-dev on Ubuntu 22.04).
if apt-cache show libclang-rt-dev >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends libclang-rt-dev
fi
