#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, build-fuzz/) and runs one of them.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]   e.g. scripts/fuzz.sh fuzz_kalah_pos 60
#   scripts/fuzz.sh list                                    the targets
# The seed corpus fuzz/corpus/TARGET/ is only read; what the run finds goes to build-fuzz/corpus/TARGET/
# (kept between runs), crashes to build-fuzz/findings/TARGET/. The run fails (libFuzzer's non-zero status) on a crash, a
# timeout (a hang: 10 s per input), a leak or an out-of-memory input; the last line gives the executions.
# Reproduce a finding: build-fuzz/fuzz/TARGET build-fuzz/findings/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${FUZZ_CC:-$(command -v clang-14 || command -v clang || echo clang)}
jobs=${JOBS:-2}
if [ "${1:-}" = list ]; then
  ls fuzz/fuzz_*.c | sed 's|fuzz/||; s|\.c$||'
  exit 0
fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...] | scripts/fuzz.sh list" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
[ -f "fuzz/$target.c" ] || { echo "fuzz.sh: no target fuzz/$target.c (see scripts/fuzz.sh list)" >&2; exit 2; }
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (scripts/setup-debian.sh installs clang)" >&2; exit 2; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOWZERO_FUZZ=ON \
      -DSOWZERO_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$jobs" --target "$target" >/dev/null
work=build-fuzz/corpus/$target findings=build-fuzz/findings/$target
mkdir -p "$work" "$findings"
export OPENBLAS_NUM_THREADS=1
# detect_leaks is on with ASan; -timeout: an input taking over 10 s is a hang.
set +e
"build-fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$findings/" "$@" "$work" "fuzz/corpus/$target" 2>&1 | tee "build-fuzz/$target.log" |
  grep -E '^(#[0-9]+ +(DONE|INITED)|==[0-9]+==|SUMMARY|stat::number_of_executed_units|fuzz check failed|artifact)'
status=${PIPESTATUS[0]}
set -e
exit "$status"
