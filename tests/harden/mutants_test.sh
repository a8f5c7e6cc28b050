#!/bin/sh
# mutants_test.sh: tools/mutants' list matches the code, and the tool
# leaves nothing behind (TAP).
# usage: mutants_test.sh <source-root> <python3>
#
# Every entry of tools/mutants.txt must find its text exactly once in its
# file (`tools/mutants --check`): a change of the code that rewrites a
# mutated line fails here at once, not at the next sweep. The rest checks
# the tool itself on a list made stale on purpose, and that a sweep
# stopped by SIGTERM removes its scratch copy and the build it started.
root=$1
py=$2
. "$(dirname "$0")/../lib.sh"
tap_scratch mutants
tool="$root/tools/mutants"
tap_plan 6

"$py" "$tool" --check >"$tmp/check" 2>&1
st=$?
check "every mutant of tools/mutants.txt finds its text once ($(grep -c '^ok' "$tmp/check") of $(sed -n 's/^1\.\.//p' "$tmp/check"))" \
    test $st -eq 0
[ $st -eq 0 ] || tap_file "$tmp/check" 60

# a list with one entry whose text is gone and one whose text occurs twice
cat >"$tmp/stale.txt" <<'EOF'
id: gone
file: runtime/src/sim/rng.c
find: this text is in no file of the tree
replace: x
promise: none

id: twice
file: runtime/src/sim/rng.c
find: return
replace: x
promise: none

id: fine
file: runtime/src/sim/rng.c
find: return oxl_rng_unit(r) < p;
replace: return oxl_rng_unit(r) > p;
promise: none
EOF
"$py" "$tool" --check --file "$tmp/stale.txt" >"$tmp/out" 2>&1
st=$?
check "--check fails on a stale list (status $st), naming each stale entry and why" \
    sh -c "test $st -eq 1 && grep -q '^not ok 1 - gone: the text occurs 0 times in runtime/src/sim/rng.c' '$tmp/out' &&
           grep -q '^not ok 2 - twice: the text occurs [0-9]* times' '$tmp/out' && grep -q '^ok 3 - fine' '$tmp/out'"
[ $st -eq 1 ] || tap_file "$tmp/out"

mkdir "$tmp/t"
TMPDIR="$tmp/t" "$py" "$tool" --file "$tmp/stale.txt" >"$tmp/out" 2>&1
st=$?
check "a sweep of a stale list stops with status 2 before copying anything" \
    sh -c "test $st -eq 2 && grep -q '^stale mutants' '$tmp/out' && test -z \"\$(ls -A '$tmp/t')\""

# The processes whose command line names $1 (read in the shell: a grep
# of /proc would find its own).
procs_naming() {
    for f in /proc/[0-9]*/cmdline; do
        case $(tr '\0' ' ' 2>/dev/null <"$f") in *"$1"*) echo "${f%/cmdline}" ;; esac
    done
}

# a sweep stopped by SIGTERM while it builds: the scratch copy is removed
# and no process of its build is left (it copies a git checkout: in the
# copy a sweep runs the suite in, there is none)
if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    for d in "the sweep names its scratch copy" "SIGTERM mid-sweep removes the scratch copy" "and leaves no process"; do
        ok "$d # SKIP $root is not a git checkout"
    done
else
    TMPDIR="$tmp/t" "$py" "$tool" --jobs 1 --tests "-R ^no-such-test$" rng-chance-inverted >"$tmp/out" 2>&1 &
    pid=$!
    n=0
    while ! grep -q '^scratch copy: ' "$tmp/out" && [ $n -lt 600 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    scratch=$(sed -n 's/^scratch copy: //p' "$tmp/out")
    [ -n "$scratch" ] || scratch="(no scratch copy named)"
    check "the sweep names its scratch copy in TMPDIR" sh -c "case '$scratch' in '$tmp/t/'oxl-mutants-*) true ;; *) false ;; esac"
    # wait until its configure or build runs, so there is a process to kill
    n=0
    while [ $n -lt 100 ] && [ -z "$(procs_naming "$scratch")" ]; do
        sleep 0.1
        n=$((n + 1))
    done
    seen=$(procs_naming "$scratch" | head -1)
    kill -TERM $pid
    wait $pid
    st=$?
    left=$(ls -A "$tmp/t")
    # the build's processes are in a session of their own: none may name the copy
    sleep 0.3
    procs=$(procs_naming "$scratch" | head -3 | tr '\n' ' ')
    check "SIGTERM mid-sweep (its build running${seen:+ as $seen}): status $st, the scratch copy removed${left:+ (left: $left)}" \
        sh -c "test $st -eq 143 && test -z '$left' && test -n '$seen'"
    check "and no process of its build left${procs:+ ($procs)}" test -z "$procs"
    [ -z "$left$procs" ] || tap_file "$tmp/out"
fi
tap_end
