#!/bin/sh
# tests/runner/packages.sh: `oxl test DIR...` and `DIR/...`, as TAP.
# usage: packages.sh <oxl executable>
# A copy of tests/runner/tree (packages a, b/c failing at seed 7, lib
# without tests, z after them) run as one run: one summary, path order,
# each test named with its package in every format, fail fast across
# packages, each package's own failures file, the worst exit status.
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
case $oxl in /*) ;; *) oxl=$(pwd)/$oxl ;; esac
. "$(dirname "$0")/../lib.sh"
tap_scratch packages
tap_detail() { tap_file "$tmp/out" 40 out; tap_file "$tmp/err" 20 err; }
has() { grep -qF -- "$1" "$2"; }
t() { (cd "$tmp" && "$oxl" test "$@" >"$tmp/out" 2>"$tmp/err"); st=$?; }
fresh() { rm -rf "$tmp/tree"; cp -R "$here/tree" "$tmp/tree"; }
# line numbers of the first line with each text, rising
in_order() {
    last=0
    for w in "$@"; do
        n=$(grep -nF -- "$w" "$tmp/out" | head -1 | cut -d: -f1)
        [ -n "$n" ] && [ "$n" -gt "$last" ] || return 1
        last=$n
    done
}

tap_plan 27

fresh
t tree/... -j 2
check "tree/...: the worst status, 1 (a test failed)" test "$st" -eq 1
check "one run: one start line for the packages with tests" has "running 2 unit tests and 2 sim tests from 3 packages with 2 jobs" "$tmp/out"
check "one summary" test "$(grep -c '^test result:' "$tmp/out")" -eq 1
check "each test named with its package, in path order" \
    in_order "ok   unit  tree/a: a adds" "ok   sim   tree/a: a passes (10 seeds" "FAIL sim   tree/b/c: c fails at 7"
check "fail fast across packages: the later package's test not run" \
    has "skip unit  tree/z: z passes (not run: an earlier test failed)" "$tmp/out"
check "the summary counts every package" has "test result: FAILED. 2 passed, 1 failed, 1 not run" "$tmp/out"
check "the reproduce line names the failing test's package" \
    has " test tree/b/c --exact 'c fails at 7' --seed 7" "$tmp/out"
check "a package without tests is a note" has "the package 'tree/lib' has no tests" "$tmp/err"
check "the failing package keeps its own failures file" has "7	c fails at 7" "$tmp/tree/b/c/oxl-test-failures.txt"
check "the others have none" sh -c "! ls '$tmp'/tree/a/oxl-test-failures.txt '$tmp'/tree/z/oxl-test-failures.txt 2>/dev/null"

t tree/... --no-fail-fast
check "--no-fail-fast runs the later package" has "ok   unit  tree/z: z passes" "$tmp/out"
check "the remembered seed of b/c ran first" has "seed 7 failed (1 of 20 seeds run)" "$tmp/out"

fresh
t tree/a tree/b/c tree/a --format json --junit "$tmp/j.xml"
check "DIR DIR: status 1" test "$st" -eq 1
check "json: the start event lists each package once, with its binary" \
    sh -c "head -1 '$tmp/out' | grep -q '\"packages\":\[{\"package\":\"tree/a\",\"binary\":\"[0-9a-f]\{64\}\"},{\"package\":\"tree/b/c\",\"binary\":\"[0-9a-f]\{64\}\"}\]'"
check "json: every test event names its package" \
    sh -c "[ \$(grep -c '\"event\":\"test\"' '$tmp/out') -eq \$(grep '\"event\":\"test\"' '$tmp/out' | grep -c '\"package\":\"tree/') ]"
check "json: a seed event names its package" has '"name":"c fails at 7","seed":1,' "$tmp/out"
check "json: one end event" test "$(grep -c '"event":"end"' "$tmp/out")" -eq 1
check "JUnit: a testsuite per package" sh -c "grep -q '<testsuite name=\"tree/a\" tests=\"2\"' '$tmp/j.xml' && grep -q '<testsuite name=\"tree/b/c\" tests=\"1\" failures=\"1\"' '$tmp/j.xml'"

fresh
t tree/a tree/b/c --format tap
check "tap: one plan for every package's tests" sh -c "head -2 '$tmp/out' | tail -1 | grep -qx '1..3'"
check "tap: descriptions name the package" \
    sh -c "grep -qx 'ok 1 - tree/a: a adds' '$tmp/out' && grep -qx 'not ok 3 - tree/b/c: c fails at 7' '$tmp/out'"

fresh
(cd "$tmp/tree" && "$oxl" test ./... --list >"$tmp/out" 2>"$tmp/err"); st=$?
check "./... --list: every package's tests, named with it" \
    sh -c "[ $st -eq 0 ] && grep -qF './a: a passes' '$tmp/out' && grep -qF './z: z passes' '$tmp/out'"

mkdir -p "$tmp/tree/broken" && echo 'test "x" { assert nope }' >"$tmp/tree/broken/b.oxl"
t tree/... --no-fail-fast
check "a package that does not compile: the worst status, 3" test "$st" -eq 3
check "named" has "package 'tree/broken' not tested (exit status 3)" "$tmp/err"
check "and the others still run" has "ok   unit  tree/z: z passes" "$tmp/out"

t tree/lib/...
check "no package with tests: status 4" test "$st" -eq 4
t tree/nowhere/...
check "DIR/... of no directory: usage error" sh -c "[ $st -eq 2 ] && grep -qF \"'tree/nowhere' is not a directory\" '$tmp/err'"
t tree/a tree/b/c --failures-file "$tmp/f.txt"
check "--failures-file with many packages: usage error" sh -c "[ $st -eq 2 ] && grep -qF 'cannot be used with many packages' '$tmp/err'"
tap_end
