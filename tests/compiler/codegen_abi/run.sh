#!/bin/sh
# run.sh <oxl> <cc> <runtime include dir> <liboxlrt.a> [link flags]: compiles main.oxl to
# an object, links it with abi.c (the extern fns in C) and the runtime, runs
# it and compares its output: the extern fn C ABI of docs/oxl-build.md.
set -u
oxl=$1 cc=$2 inc=$3 rt=$4 flags=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-abi-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..2"
failed=0
for opt in -O0 -O2; do
    n=$([ "$opt" = -O0 ] && echo 1 || echo 2)
    if (cd "$here" && "$oxl" build main.oxl -c $opt -o "$tmp/main.o") 2>"$tmp/err" &&
        "$cc" $flags -I"$inc" -c "$here/abi.c" -o "$tmp/abi.o" 2>>"$tmp/err" &&
        "$cc" $flags "$tmp/main.o" "$tmp/abi.o" "$rt" -lgc -lpthread -lm -o "$tmp/prog" 2>>"$tmp/err" &&
        "$tmp/prog" >"$tmp/out" 2>>"$tmp/err" && cmp -s "$tmp/out" "$here/expected_stdout"; then
        echo "ok $n - extern fn C ABI $opt"
    else
        failed=1
        echo "not ok $n - extern fn C ABI $opt"
        sed 's/^/# /' "$tmp/err" "$tmp/out" 2>/dev/null | head -20
    fi
done
exit $failed
