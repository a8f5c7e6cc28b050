#!/bin/sh
# tests/runner/no_capture.sh: --no-capture shows a process's output as it is
# printed, not when the process ends, as TAP. `oxl test --no-capture` runs in
# the background, its stdout into a file read while it runs: a unit test's
# first line must be there while the test still sleeps (in real time)
# before its second, and a sim seed's line while the seed still spins, before
# -t's limit kills it. Without --no-capture a test binary's stdout is fully
# buffered, so neither line would reach the runner before the process ends.
# usage: no_capture.sh <oxl>
oxl=$1
case $oxl in /*) ;; *) oxl=$(pwd)/$oxl ;; esac
. "$(dirname "$0")/../lib.sh"
tap_scratch no-capture
tap_detail() { tap_file "$tmp/out" 30 out; tap_file "$tmp/err" 10 err; }
mkdir "$tmp/pkg"
cat >"$tmp/pkg/t.oxl" <<'OXL'
use std.test { sim }
use std.time { sleep }

test "prints, waits, prints" {
  print("the first line")
  sleep(6s) // a unit test runs in real time
  print("the second line")
}

test sim "prints, then spins" seeds 1..=1 {
  print("seed {sim.seed()} printed")
  var n = 0
  while true {
    n = n + 1
  }
}
OXL
# build the test binary first, so the runs time the tests alone
"$oxl" test "$tmp/pkg" --list >"$tmp/out" 2>&1 || { echo "1..0 # SKIP the package does not build: $(head -3 "$tmp/out")"; exit 0; }
tap_plan 6

# wait_for TEXT: until the output has TEXT or the runner has ended (at most
# 20 s); true when the text came while the runner still ran
wait_for() {
    k=0
    while [ $k -lt 400 ]; do
        grep -qF -- "$1" "$tmp/out" && kill -0 "$runner" 2>/dev/null && return 0
        kill -0 "$runner" 2>/dev/null || return 1
        sleep 0.05
        k=$((k + 1))
    done
    return 1
}

"$oxl" test "$tmp/pkg" --no-capture --exact 'prints, waits, prints' >"$tmp/out" 2>"$tmp/err" &
runner=$!
wait_for "the first line"; came=$?
check "a unit test's first line is shown while the test runs" test "$came" -eq 0
check "before its second (the test still sleeps)" sh -c "! grep -qF 'the second line' '$tmp/out'"
wait "$runner"; st=$?
check "the run ends as it should (status 0, both lines)" \
    sh -c "[ $st -eq 0 ] && grep -qF 'the second line' '$tmp/out' && grep -q '^test result: ok' '$tmp/out'"

"$oxl" test "$tmp/pkg" --no-capture --exact 'prints, then spins' -t 5 >"$tmp/out" 2>"$tmp/err" &
runner=$!
wait_for "seed 1 printed"; came=$?
check "a sim seed's line is shown while the seed runs" test "$came" -eq 0
check "before -t's limit ends it" sh -c "! grep -qF 'timed out' '$tmp/out'"
wait "$runner"; st=$?
check "which it does (status 1, timed out, the line in its failure block)" \
    sh -c "[ $st -eq 1 ] && grep -qF 'seed 1 timed out after 5 s' '$tmp/out' &&
           grep -A1 -F -- '--- stdout of seed 1 ---' '$tmp/out' | grep -qF 'seed 1 printed'"
tap_end
