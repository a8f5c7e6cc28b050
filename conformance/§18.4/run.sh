#!/bin/sh
# conformance/§18.4/run.sh: the `oxl test` conformance suite (the Standard's
# §18.4, deterministic simulation), as TAP.
# usage: run.sh <oxl executable> [case-dir...]
#
# Each case is a directory holding a package (its .oxl files and, where a
# case needs one, C files of its externs) and:
#   args              the arguments after `oxl test .` (one line, shell words)
#   expected_status   the exit status of `oxl test`
#   expected_output   lines that must each appear, in this order, inside the
#                     lines of the combined stdout and stderr (substrings;
#                     at least one)
#   expected_absent   optional: texts that must not appear anywhere
#   env               optional: VAR=value lines set for the run
#   expected_files    optional: files the run must leave in the package
#   expected_in_files optional: lines `FILE<tab>TEXT`: the run leaves FILE
#                     in the package and TEXT occurs in it
#   reproduce         optional, empty: the printed `reproduce: ...` line is
#                     pasted into `sh -c` (from the case's directory, without
#                     the env file: the line must carry what changes the run)
#                     and must exit with the same status and print the same
#                     `seed N failed` line
#   run_stdout        optional: `oxl run .` of the package (its fn main) must
#                     exit with status 0 and print exactly this
#   replay_output     optional: the printed `replay: oxl test ...` command
#                     (of --shrink) is run as well, must exit with status 1
#                     and print these lines in order
# The case is copied to a scratch directory and run from there as `.`, so
# the failing-seed file it may leave never touches the source tree.
oxl=$1
shift
case $oxl in
/*) ;;
*/*) oxl=$(pwd)/$oxl ;;
*) oxl=$(command -v "$oxl") ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
# PATH finds this oxl first, so the reproduce lines say `oxl test ...`
PATH="$(dirname "$oxl"):$PATH"
export PATH
if [ $# -eq 0 ]; then
    set -- "$here"/*/
fi
. "$(dirname "$0")/../../tests/lib.sh"
tap_scratch conf-sim

count=0
for dir in "$@"; do
    count=$((count + 1))
    [ -f "$dir/reproduce" ] && count=$((count + 1))
    [ -f "$dir/run_stdout" ] && count=$((count + 1))
    [ -f "$dir/replay_output" ] && count=$((count + 1))
done
tap_plan $count

# in_order OUTPUT EXPECTED: every line of EXPECTED occurs in OUTPUT, each on
# a line after the previous match. Prints the first missing line.
in_order() {
    awk -v want="$2" '
        BEGIN { n = 0; while ((getline l < want) > 0) if (l != "") w[++n] = l; k = 1 }
        k <= n && index($0, w[k]) { k++ }
        END { if (n == 0) { print "(expected_output has no line)"; exit 1 }
              if (k <= n) { print w[k]; exit 1 } }' "$1"
}

for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    work="$tmp/$name"
    rm -rf "$work"
    cp -R "$dir" "$work"
    args=$(cat "$dir/args" 2>/dev/null)
    want_status=$(cat "$dir/expected_status")
    (
        cd "$work" || exit 99
        if [ -f env ]; then
            while IFS= read -r kv; do
                [ -n "$kv" ] && export "$kv"
            done <env
        fi
        # shellcheck disable=SC2086 # args holds shell words on purpose
        eval "set -- $args"
        exec "$oxl" test . "$@"
    ) >"$tmp/out" 2>&1
    status=$?
    why=""
    if [ -z "$want_status" ]; then
        why="no expected_status"
    elif [ "$status" != "$want_status" ]; then
        why="exit status $status, expected $want_status"
    elif ! missing=$(in_order "$tmp/out" "$dir/expected_output"); then
        why="missing (in order): $missing"
    elif [ -f "$dir/expected_absent" ]; then
        while IFS= read -r no; do
            if [ -n "$no" ] && grep -qF -- "$no" "$tmp/out"; then
                why="should not print: $no"
                break
            fi
        done <"$dir/expected_absent"
    fi
    if [ -z "$why" ] && [ -f "$dir/expected_files" ]; then
        while IFS= read -r f; do
            if [ -n "$f" ] && [ ! -e "$work/$f" ]; then
                why="the run did not leave $f"
                break
            fi
        done <"$dir/expected_files"
    fi
    if [ -z "$why" ] && [ -f "$dir/expected_in_files" ]; then
        tab=$(printf '\t')
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            f=${line%%"$tab"*}
            text=${line#*"$tab"}
            if [ ! -f "$work/$f" ]; then
                why="the run did not leave $f"
                break
            elif ! grep -qF -- "$text" "$work/$f"; then
                why="$f does not hold: $text"
                break
            fi
        done <"$dir/expected_in_files"
    fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name" "$why" "output:" "$(head -c 2000 "$tmp/out")"
    fi

    if [ -f "$dir/run_stdout" ]; then
        (cd "$work" && exec "$oxl" run .) >"$tmp/run_out" 2>"$tmp/run_err"
        run_status=$?
        if [ "$run_status" != 0 ]; then
            not_ok "$name oxl run" "oxl run .: exit status $run_status, expected 0" "$(head -c 2000 "$tmp/run_err")"
        elif ! cmp -s "$tmp/run_out" "$dir/run_stdout"; then
            not_ok "$name oxl run" "oxl run .: stdout differs from run_stdout" "$(head -c 2000 "$tmp/run_out")"
        else
            ok "$name oxl run"
        fi
    fi

    if [ -f "$dir/replay_output" ]; then
        rline=$(grep -m1 '^replay: oxl test ' "$tmp/out" | sed 's/^replay: oxl test //')
        if [ -z "$rline" ]; then
            not_ok "$name replays" "no 'replay: oxl test ...' line"
        else
            (cd "$work" && eval "exec \"\$oxl\" test $rline") >"$tmp/out3" 2>&1
            rstatus=$?
            if [ "$rstatus" != 1 ]; then
                not_ok "$name replays" "oxl test $rline: exit status $rstatus, expected 1" "$(head -c 2000 "$tmp/out3")"
            elif ! missing=$(in_order "$tmp/out3" "$dir/replay_output"); then
                not_ok "$name replays" "oxl test $rline: missing (in order): $missing" "$(head -c 2000 "$tmp/out3")"
            else
                ok "$name replays"
            fi
        fi
    fi

    [ -f "$dir/reproduce" ] || continue
    line=$(grep -m1 '^reproduce: ' "$tmp/out" | sed 's/^reproduce: //')
    failed_line=$(grep -m1 -o 'seed [0-9]* failed' "$tmp/out")
    if [ -z "$line" ] || [ -z "$failed_line" ]; then
        not_ok "$name reproduces" "no reproduce line or no 'seed N failed' line"
        continue
    fi
    (cd "$work" && exec sh -c "$line") >"$tmp/out2" 2>&1
    status2=$?
    if [ "$status2" != "$status" ]; then
        not_ok "$name reproduces" "$line: exit status $status2, expected $status" "$(head -c 2000 "$tmp/out2")"
    elif ! grep -qF "$failed_line" "$tmp/out2"; then
        not_ok "$name reproduces" "$line: no '$failed_line'" "$(head -c 2000 "$tmp/out2")"
    else
        ok "$name reproduces ($failed_line)"
    fi
done
tap_end
