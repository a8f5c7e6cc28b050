#!/bin/sh
# conformance/core/run.sh: the core conformance suite, as TAP.
# usage: run.sh <oxl executable> [case-dir...]
# Each case is a directory with main.oxl (run as a one-file package from
# inside the directory, so panics say "at main.oxl:<line>"), expected_stdout, expected_status
# and expected_stderr_contains (a text that stderr must contain), required
# when the expected status is not 0.
# Optional: env, one line per variable: VAR=value sets it, -VAR unsets it.
# Every run gets a fresh empty OXL_DATA_DIR (std.store's files), which env
# may override.
# Every case runs with `oxl run` at -O0 and at -O2; then its object is built
# twice with `oxl build -c` and compared with cmp (byte-identical output).
oxl=$1
shift
. "$(dirname "$0")/../../tests/lib.sh"
oxl=$(tap_abs "$oxl") # the cases run from their own directories
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    set -- "$here"/*/
fi
tap_scratch conf
n=0
for dir in "$@"; do n=$((n + 3)); done
tap_plan $n
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    want_status=$(cat "$dir/expected_status")
    for opt in -O0 -O2; do
        rm -rf "$tmp/data" && mkdir "$tmp/data" || exit 1
        (
            cd "$dir" || exit 99
            export OXL_DATA_DIR="$tmp/data"
            if [ -f env ]; then
                while IFS= read -r kv; do
                    case $kv in
                    '') ;;
                    -*) unset "${kv#-}" ;;
                    *) export "${kv?}" ;;
                    esac
                done <env
            fi
            exec "$oxl" run main.oxl $opt
        ) >"$tmp/out" 2>"$tmp/err"
        status=$?
        why=""
        if [ -z "$want_status" ]; then
            why="no expected_status"
        elif [ "$want_status" != 0 ] && [ ! -s "$dir/expected_stderr_contains" ]; then
            why="a failing case needs its message in expected_stderr_contains"
        elif [ "$status" != "$want_status" ]; then
            why="exit status $status, expected $want_status"
        elif ! cmp -s "$tmp/out" "$dir/expected_stdout"; then
            why="stdout differs"
        elif [ -f "$dir/expected_stderr_contains" ]; then
            err=$(cat "$tmp/err")
            want=$(cat "$dir/expected_stderr_contains")
            case "$err" in
            *"$want"*) ;;
            *) why="stderr does not contain the expected text" ;;
            esac
        fi
        if [ -z "$why" ]; then
            ok "$name $opt"
        else
            not_ok "$name $opt" "$why" "stdout: $(head -c 400 "$tmp/out")" "stderr: $(head -c 400 "$tmp/err")"
        fi
    done
    if [ "$want_status" = 1 ]; then
        ok "$name objects identical # SKIP does not compile"
        continue
    fi
    if (cd "$dir" && "$oxl" build main.oxl -c -o "$tmp/a.o" && "$oxl" build main.oxl -c -o "$tmp/b.o") 2>"$tmp/err" &&
        cmp -s "$tmp/a.o" "$tmp/b.o"; then
        ok "$name objects identical"
    else
        not_ok "$name objects identical" "$(head -c 400 "$tmp/err")"
    fi
done
tap_end
