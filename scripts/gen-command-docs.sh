#!/usr/bin/env bash
# Writes the command reference of the docs site (docs/commands/) from the binary's own help texts, so the
# pages say exactly what `sowzero help COMMAND` says: an index from `sowzero --help`, one page per command
# (`sowzero help COMMAND`), and for bench one section per benchmark (`sowzero help bench WHAT`).
#   scripts/gen-command-docs.sh [SOWZERO_BIN] [OUT_DIR]     (defaults: build/sowzero, docs/commands)
#   scripts/gen-command-docs.sh --check [SOWZERO_BIN]       exit 1 when docs/commands/ differs from what
#                                                           the binary would write (the test command_docs)
# Run it after changing a help text, and commit the pages it writes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
bin=${1:-$root/build/sowzero}
committed=$root/docs/commands
[ -x "$bin" ] || { echo "gen-command-docs.sh: no sowzero binary at $bin (build first)" >&2; exit 2; }
if [ $check -eq 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  out=${2:-$committed}
  mkdir -p "$out"
  rm -f "$out"/*.md
fi

# A help text, fenced; help goes to stdout with exit 0 (anything else is a broken help and fails here).
fenced() {
  local text
  text=$("$bin" help "$@") || { echo "gen-command-docs.sh: 'sowzero help $*' failed" >&2; exit 1; }
  printf '```text\n%s\n```\n' "$text"
}

# "  NAME   summary" lines of a usage listing (sowzero --help, sowzero bench --help).
listing() { sed -n 's/^  \([a-z][a-z]*\)  *\(.*\)$/\1\t\2/p'; }

general=$("$bin" --help)
{
  echo "# Commands"
  echo
  echo "One binary, \`sowzero COMMAND [options]\`. Every page of this section is the command's own help text"
  echo "(\`sowzero help COMMAND\`, the same as \`sowzero COMMAND --help\`), written by"
  echo "\`scripts/gen-command-docs.sh\`; the test \`command_docs\` fails when a page and the binary disagree."
  echo "Errors go to stderr with exit status 2 (bad usage or input) or 1 (a runtime failure); \`--json\` prints"
  echo "exactly one JSON object on stdout."
  echo
  printf '```text\n%s\n```\n' "$general"
  echo
  echo "| command | what it does |"
  echo "|---|---|"
  printf '%s\n' "$general" | listing | while IFS=$'\t' read -r name summary; do
    echo "| [\`$name\`]($name.md) | ${summary//|/\\|} |"
  done
} > "$out/index.md"

printf '%s\n' "$general" | listing | while IFS=$'\t' read -r name summary; do
  {
    echo "# sowzero $name"
    echo
    echo "$summary"
    echo
    if [ "$name" = bench ]; then
      fenced bench
      "$bin" bench --help | listing | while IFS=$'\t' read -r what wsummary; do
        echo
        echo "## bench $what"
        echo
        echo "$wsummary"
        echo
        fenced bench "$what"
      done
    else
      fenced "$name"
    fi
  } > "$out/$name.md"
done

if [ $check -eq 1 ]; then
  if diff -ru "$committed" "$out"; then
    echo "docs/commands/ matches the help texts of $bin"
  else
    echo "docs/commands/ differs from the help texts of $bin (above: - committed, + the binary's);" \
         "run scripts/gen-command-docs.sh and commit docs/commands/" >&2
    exit 1
  fi
fi
