#!/bin/sh
# Checks that the project's copy of the vectors (tests/vectors/) is identical to the team's shared/vectors/,
# file by file, and that shared/ holds no vector file the copy lacks. Exit 77 (ctest: skipped) when the
# checkout has no shared/ beside it, as a user's clone does.
# Usage: vectors_in_sync.sh OURS SHARED
ours=$1 shared=$2
[ -d "$shared" ] || { echo "no $shared: nothing to compare (a checkout that stands alone)"; exit 77; }
status=0
for f in "$shared"/*; do
    name=$(basename "$f")
    if [ ! -f "$ours/$name" ]; then
        echo "tests/vectors/$name is missing: copy it from $shared"; status=1
    elif ! cmp -s "$f" "$ours/$name"; then
        echo "tests/vectors/$name differs from $shared/$name: copy the team's file again"; status=1
    fi
done
[ $status -eq 0 ] && echo "tests/vectors identical to $shared"
exit $status
