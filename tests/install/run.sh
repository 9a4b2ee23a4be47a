#!/usr/bin/env bash
# The installed tree (docs/install.md), from a finished build:
#   run.sh BUILD_DIR SOURCE_DIR CC LIBDIR SHARED VERSION WORK_DIR [FLAGS]
# installs BUILD_DIR into WORK_DIR/prefix (`cmake --install`, nothing rebuilt), checks the tree (binary,
# libraries, headers that compile on their own, pkg-config and CMake package files, share/sowzero), builds
# examples/kalah_game against it with pkg-config (libsowzero.so when SHARED is ON, and libsowzero.a) and
# with find_package (the same two), runs every build and checks that each plays the same whole game, which
# the installed `sowzero replay` confirms move by move, and runs the installed binary from outside the
# source tree, also after moving the whole prefix, to check it finds the shipped data. FLAGS (the
# sanitizer builds' -fsanitize=...) are added to the outside programs' compile and link lines.
set -euo pipefail
build=$1 src=$2 cc=$3 libdir=$4 shared=$5 version=$6 work=$7 flags=${8:-}
prefix=$work/prefix
cmake=${CMAKE_COMMAND:-cmake}

fail() { echo "FAIL: $*" >&2; exit 1; }
loads() { [[ $(ldd "$1") == *"$2"* ]]; }   # EXE LIB: the program loads LIB (not grep -q: pipefail)

rm -rf "$work"
mkdir -p "$work/elsewhere"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

# ---- the tree
want=(bin/sowzero "$libdir/libsowzero.a" "$libdir/pkgconfig/sowzero.pc"
      "$libdir/cmake/sowzero/sowzeroConfig.cmake" "$libdir/cmake/sowzero/sowzeroConfigVersion.cmake"
      "$libdir/cmake/sowzero/sowzeroTargets.cmake"
      include/sowzero/env/game.h include/sowzero/env/games.def include/sowzero/eval/game_agent.h
      include/sowzero/nn/net.h include/sowzero/train/train.h
      share/sowzero/configs/kalah.ini share/sowzero/data/kalah-6-4.positions.jsonl share/sowzero/nets/kalah-6-4.h5)
[ "$shared" = ON ] && want+=("$libdir/libsowzero.so")
for f in "${want[@]}"; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in nn/h5util.h nn/net_internal.h eval/agent_impl.h train/mpi_wire.h cli/cli.h; do
    [ ! -e "$prefix/include/sowzero/$f" ] || fail "a private header is installed: $f"
done
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
[ "$(pkg-config --modversion sowzero)" = "$version" ] || fail "pkg-config --modversion sowzero: $(pkg-config --modversion sowzero)"
cflags=$(pkg-config --cflags sowzero)
# Every installed header compiles on its own with the package's flags: none includes one left out.
n=0
for h in "$prefix"/include/sowzero/*/*.h; do
    rel=${h#"$prefix"/include/sowzero/}
    # shellcheck disable=SC2086
    echo "#include \"$rel\"" | "$cc" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only $cflags -x c - \
        || fail "installed header $rel does not compile on its own"
    n=$((n + 1))
done
[ "$n" -ge 40 ] || fail "only $n headers installed"
echo "installed: ${#want[@]} files checked, $n headers compile on their own"

# ---- outside programs: pkg-config, find_package; shared and static
example=$src/examples/kalah_game
builds=()
# shellcheck disable=SC2086
if [ "$shared" = ON ]; then
    "$cc" -std=gnu11 -Wall -Wextra -Werror $flags $cflags "$example/kalah_game.c" -o "$work/kg-pc-shared" \
        $(pkg-config --libs sowzero) -Wl,-rpath,"$prefix/$libdir" || fail "pkg-config build (shared)"
    loads "$work/kg-pc-shared" "$prefix/$libdir/libsowzero.so" || fail "kg-pc-shared does not load the installed libsowzero.so"
    builds+=(kg-pc-shared)
fi
# libsowzero.a with its dependencies' shared libraries (pkg-config --static would ask for theirs too)
static_libs="$(pkg-config --variable=libdir sowzero)/libsowzero.a $(pkg-config --libs $(pkg-config --print-requires-private sowzero)) -pthread -lm"
# shellcheck disable=SC2086
"$cc" -std=gnu11 -Wall -Wextra -Werror $flags $cflags "$example/kalah_game.c" -o "$work/kg-pc-static" $static_libs \
    || fail "pkg-config build (static: $static_libs)"
! loads "$work/kg-pc-static" libsowzero || fail "kg-pc-static loads a libsowzero.so"
builds+=(kg-pc-static)
for kind in shared static; do
    [ "$kind" = shared ] && [ "$shared" != ON ] && continue
    use_static=OFF
    [ "$kind" = static ] && use_static=ON
    "$cmake" -S "$example" -B "$work/cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_BUILD_TYPE=Release -DSOWZERO_USE_STATIC_LIBS=$use_static -DCMAKE_C_FLAGS="$flags -Wall -Wextra -Werror" \
        -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/cmake-$kind.log" 2>&1 || { cat "$work/cmake-$kind.log"; fail "find_package project ($kind): configure"; }
    "$cmake" --build "$work/cmake-$kind" >>"$work/cmake-$kind.log" 2>&1 || { cat "$work/cmake-$kind.log"; fail "find_package project ($kind): build"; }
    cp "$work/cmake-$kind/kalah_game" "$work/kg-cmake-$kind"
    if [ "$kind" = shared ]; then
        loads "$work/kg-cmake-$kind" "$prefix/$libdir/libsowzero.so" || fail "kg-cmake-shared does not load the installed libsowzero.so"
    else
        ! loads "$work/kg-cmake-$kind" libsowzero || fail "kg-cmake-static loads a libsowzero.so"
    fi
    builds+=("kg-cmake-$kind")
done

# ---- every build plays the same whole game (random against greedy, seed 7); the installed binary replays it
cd "$work/elsewhere"
for b in "${builds[@]}"; do
    "$work/$b" kalah random greedy 7 >"$work/$b.out" || fail "$b exited $?"
done
first=${builds[0]}
for b in "${builds[@]}"; do
    cmp -s "$work/$first.out" "$work/$b.out" || { diff "$work/$first.out" "$work/$b.out" >&2; fail "$b plays another game than $first"; }
done
out=$work/$first.out
cat "$out"
grep -q '^rules: kalah:pits=6,seeds=4' "$out" || fail "no rules line"
grep -Eq '^result: (draw|South \(random\) wins by [0-9]+|North \(greedy\) wins by [0-9]+)$' "$out" || fail "no result line"
read -r -a moves <<<"$(sed -n 's/^moves: //p' "$out")"
[ "${#moves[@]}" -ge 10 ] || fail "a game of ${#moves[@]} moves"
plies=$(sed -n 's/^plies: //p' "$out")
[ "$plies" = "${#moves[@]}" ] || fail "plies $plies, moves ${#moves[@]}"
final=$(sed -n 's/^final: //p' "$out")
stores=$(sed -n 's/^stores: South \([0-9]*\), North \([0-9]*\)$/\1 \2/p' "$out")
read -r south north <<<"$stores"
[ $((south + north)) -eq 48 ] || fail "stores $south + $north != 48 seeds"
replay=$("$prefix/bin/sowzero" replay --rules "$(sed -n 's/^rules: //p' "$out")" --json "${moves[@]}") || fail "sowzero replay refused the game"
"${SYSTEM_PYTHON3:-/usr/bin/python3}" - "$replay" "$final" "$south" "$north" <<'PY' || fail "sowzero replay disagrees"
import json, sys
r = json.loads(sys.argv[1])
final, south, north = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
assert r["over"], r
assert r["positions"][-1] == final, (r["positions"][-1], final)
assert r["stores"] == [south, north], (r["stores"], south, north)
PY
echo "the game: ${#moves[@]} moves, $south-$north, replayed by the installed sowzero; builds: ${builds[*]}"

# ---- the installed binary, outside the source tree, then with the whole prefix moved
[ "$("$prefix/bin/sowzero" --version)" = "sowzero $version" ] || fail "sowzero --version"
[[ $("$prefix/bin/sowzero" --help) == *$'\n       sowzero --version '* ]] || fail "sowzero --help does not list --version"
check_data() {  # BIN: the shipped set and configs are found from a directory without them
    local bin=$1 root
    root=$(cd "$(dirname "$bin")/.." && pwd -P)
    "$bin" accuracy greedy --threads 1 --json >"$work/accuracy.json" 2>/dev/null || fail "$bin accuracy greedy (default positions)"
    grep -q "\"positions_file\":\"[^\"]*share/sowzero/data/kalah-6-4.positions.jsonl\"" "$work/accuracy.json" \
        || fail "accuracy read $(cat "$work/accuracy.json")"
    "$bin" train configs/kalah.ini --print-config >"$work/config.txt" 2>&1 || fail "$bin train configs/kalah.ini: $(cat "$work/config.txt")"
    grep -Eq "^positions *= *$root/bin/\.\./share/sowzero/data/kalah-6-4\.positions\.jsonl" "$work/config.txt" \
        || fail "train configs/kalah.ini: $(grep '^positions' "$work/config.txt")"
}
check_data "$prefix/bin/sowzero"
mv "$prefix" "$work/moved"
check_data "$work/moved/bin/sowzero"
mv "$work/moved" "$prefix"
echo "installed sowzero finds share/sowzero from $work/elsewhere, also after the prefix moved"
