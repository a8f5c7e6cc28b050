#!/bin/sh
# tests/runner/packages.sh: `oxl test DIR...` and `DIR/...`, as TAP.
# usage: packages.sh <oxl executable>
# A copy of tests/runner/tree (packages a, b/c failing at seed 7, lib
# without tests, z after them) run as one run: one summary, path order,
# each test named with its package in every format, fail fast across
# packages, each package's own failures file, the worst exit status, and a
# package that is not tested (it does not compile, it is not there) in
# every report: never a summary that says ok.
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

tap_plan 38

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
check "the report says the package was not tested" \
    has "FAIL pkg   tree/broken (not tested: its test binary was not built, exit status 3)" "$tmp/out"
check "and its summary is no pass" sh -c "grep -q '^test result: FAILED\. 3 passed, 1 failed, 0 not run, 1 package not tested; ' '$tmp/out'"
t tree/a tree/broken --format tap
check "tap: a failing point for the package not tested, in the plan" \
    sh -c "head -3 '$tmp/out' | tr '\n' '|' | grep -qF 'TAP version 13|1..3|not ok 1 - tree/broken|' && grep -qF 'packages not tested 1' '$tmp/out'"
if command -v prove >/dev/null 2>&1; then
    prove -e cat "$tmp/out" >"$tmp/prove" 2>&1
    check "prove fails the stream" sh -c "! grep -q 'Result: PASS' '$tmp/prove' && grep -q 'Result: FAIL' '$tmp/prove'"
else
    i=$((i + 1)); echo "ok $i # SKIP prove is not installed"
fi
t tree/a tree/broken --format json --junit "$tmp/nt.xml"
check "json: the end event lists the package not tested" \
    has '"exit_status":3,"not_tested":[{"package":"tree/broken","exit_status":3,"message":"not tested: its test binary was not built, exit status 3"}]}' "$tmp/out"
check "JUnit: the package not tested is a suite in error" \
    sh -c "grep -q '<testsuites name=\"oxl test\" tests=\"3\" failures=\"0\" errors=\"1\"' '$tmp/nt.xml' &&
           grep -qF 'message=\"not tested: its test binary was not built, exit status 3\" type=\"not-tested\"' '$tmp/nt.xml'"
t tree/a tree/broken --partition hash:1/1 --format json
cp "$tmp/out" "$tmp/shard.json"
t --merge "$tmp/shard.json"
check "--merge refuses a shard whose package was not tested" \
    sh -c "[ $st -eq 2 ] && grep -qF 'a package of this shard was not tested' '$tmp/err'"
t tree/a nosuch
check "a package that is not there: status 2" test "$st" -eq 2
check "one package tested: 'from 1 package'" has "running 1 unit test and 1 sim test from 1 package with" "$tmp/out"
check "the missing one said in the report, and its summary no pass" \
    sh -c "grep -qF 'FAIL pkg   nosuch (not tested: not a package directory, or a usage error, exit status 2)' '$tmp/out' &&
           grep -q '^test result: FAILED\. 2 passed, 0 failed, 0 not run, 1 package not tested; ' '$tmp/out'"
t tree/a tree/z
check "every package tested: ok, and no not-tested count" sh -c "[ $st -eq 0 ] && grep -q '^test result: ok\. 3 passed, 0 failed, 0 not run; ' '$tmp/out'"

t tree/lib/...
check "no package with tests: status 4" test "$st" -eq 4
t tree/nowhere/...
check "DIR/... of no directory: usage error" sh -c "[ $st -eq 2 ] && grep -qF \"'tree/nowhere' is not a directory\" '$tmp/err'"
t tree/a tree/b/c --failures-file "$tmp/f.txt"
check "--failures-file with many packages: usage error" sh -c "[ $st -eq 2 ] && grep -qF 'cannot be used with many packages' '$tmp/err'"
tap_end
