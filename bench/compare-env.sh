#!/usr/bin/env bash
# (A copy of the team's shared/bench/compare-env.sh.) Side-by-side sowing throughput: a plain array-based C Kalah(6,4) (naive_kalah.c beside this script)
# against `sowzero bench env`, alternated in one run, 3 rounds, medians and ratios printed.
# Usage: compare-env.sh [PATH/TO/sowzero]   (default: ./build/sowzero)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-./build/sowzero}
[ -x "$bin" ] || { echo "compare-env: no sowzero binary at $bin (build first, or pass its path)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O3 -march=native -o "$tmp/naive" "$here/naive_kalah.c" -lpthread
num() { grep -o "\"$2\"[[:space:]]*:[[:space:]]*[0-9.eE+]*" <<<"$1" | head -1 | sed 's/.*:[[:space:]]*//'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for t in 1 2; do
  : >"$tmp/n$t"; : >"$tmp/s$t"
  for r in 1 2 3; do
    "$tmp/naive" $((1000000*t)) "$t" | sed 's/.*games\/s=\([0-9]*\).*/\1/' >>"$tmp/n$t"
    out=$("$bin" bench env --threads "$t" --seconds 3 --json)
    num "$out" games_per_s >>"$tmp/s$t"
    kernel=$(grep -o '"kernel"[[:space:]]*:[[:space:]]*"[^"]*"' <<<"$out" | sed 's/.*"\([^"]*\)"$/\1/')
  done
  n=$(median <"$tmp/n$t"); s=$(median <"$tmp/s$t")
  printf 'threads=%d naive_games_per_s=%.0f sowzero_games_per_s=%.0f kernel=%s ratio=%.2f\n' \
    "$t" "$n" "$s" "${kernel:-?}" "$(awk -v a="$s" -v b="$n" 'BEGIN{print a/b}')"
done
