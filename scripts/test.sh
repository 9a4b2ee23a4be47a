#!/usr/bin/env bash
# Builds sowzero and runs the whole cmocka suite through ctest.
#   scripts/test.sh                 normal build in build/
#   scripts/test.sh asan            AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
#   scripts/test.sh tsan            ThreadSanitizer build in build-tsan/ (the threaded tests)
# Extra cmake flags can be passed in CMAKE_FLAGS (CI sets -DSOWZERO_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-normal}
jobs=${JOBS:-2}
case "$mode" in
  normal) dir=build;      flags=(-DCMAKE_BUILD_TYPE=Release); select=() ;;
  asan)   dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOWZERO_SANITIZE=ON); select=(-LE install) ;;
  tsan)   dir=build-tsan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOWZERO_TSAN=ON); select=(-L threads) ;;
  *) echo "usage: scripts/test.sh [normal|asan|tsan]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
cmake -S . -B "$dir" "${flags[@]}" ${CMAKE_FLAGS:-} >/dev/null
cmake --build "$dir" -j"$jobs"
# OpenBLAS's own thread pool is not built for the sanitizers; the code under test sets its thread count.
export OPENBLAS_NUM_THREADS=1
ctest --test-dir "$dir" --output-on-failure -j"$jobs" "${select[@]}"
