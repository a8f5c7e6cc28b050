#!/bin/sh
# tests/runner/explain_test.sh: what explains a failing seed, end to end
# with the real compiler, as TAP. usage: explain_test.sh <oxl executable>
# The test binary's OXL_SIM_POLICY and OXL_SIM_PCT_DEPTH
# (docs/test-binary.md): their effect and their bad values; that the trace
# dump the diff reads (OXL_SIM_TRACE_DUMP, tested whole by
# tests/testbin/trace_dump.sh) leaves the run and its hash as they were
# and has each event's line as the trace tail prints it; then the
# JUnit file's failure body (what everyone was doing, the trace diff), the
# TAP and JSON fields, and the depth-2 bug of writer.oxl that only
# --policy pct with depth 2 or more finds; and a shrunk schedule that,
# replayed under a time limit, fails another way than it was shrunk to;
# and that docs/testing.md's shrink example is what the command prints.
# Every run shares one build (the docs' example builds the shop).
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch explain
cp -r "$here/explainpkg" "$tmp/pkg"
pkg="$tmp/pkg"
bin="$tmp/bin"
tap_detail() { tap_file "$tmp/out" 40 out; tap_file "$tmp/err" 40 err; }
has() { grep -qF -- "$1" "$2"; }
# run SEED [VAR=value...]: the kept test binary's one test at SEED
run() { s=$1; shift; env OXL_TEST_RUN=0 OXL_TEST_SEED="$s" OXL_SIM_REPORT=1 "$@" "$bin" >"$tmp/out" 2>"$tmp/err"; st=$?; }
simline() { grep '^oxl-sim:' "$tmp/err"; }

tap_plan 34

OXL_TEST_KEEP_BINARY="$bin" "$oxl" test "$pkg" --exact 'a call on a lossy network' --seeds 2..=30 --junit "$tmp/junit.xml" >"$tmp/out" 2>"$tmp/err"
check "the lossy call fails at seed 5" has "seed 5 failed" "$tmp/out"
check "the test binary is kept" test -x "$bin"

run 4
plain=$(simline)
run 4 OXL_SIM_TRACE_DUMP="$tmp/dump4"
check "a dumped seed passes as before" test "$st" -eq 0
check "with the same trace hash and switches" test "$(simline)" = "$plain"
hash4=$(echo "$plain" | sed 's/.*trace=\([0-9a-f]*\).*/\1/')
check "the dump's result has the run's hash" sh -c "grep -qP '^result\tfinished\t\d+\t$hash4\t' '$tmp/dump4'"
awk -F '\t' '$1 == "event" { print $11 }' "$tmp/dump4" >"$tmp/lines4"
check "from the first event on" sh -c "head -n 1 '$tmp/lines4' | grep -q '^#0 @0.000000000s seq=0 '"
check "each event's line, numbered without a gap" awk '{ if ($1 != "#" NR - 1) exit 1 } END { exit NR < 10 }' "$tmp/lines4"
run 5 OXL_SIM_TRACE_DUMP="$tmp/dump5"
check "a failing seed dumps its trace too" sh -c "test $st -eq 101 && grep -q 'drop      store-0 -> api-0 (random drop)' '$tmp/dump5'"

# the race (test 1): many decisions
race() { s=$1; shift; env OXL_TEST_RUN=1 OXL_TEST_SEED="$s" OXL_SIM_REPORT=1 "$@" "$bin" >"$tmp/out" 2>"$tmp/err"; st=$?; }
race 4
rnd=$(simline)
race 4 OXL_SIM_POLICY=fifo
fifo=$(simline)
race 4 OXL_SIM_POLICY=pct OXL_SIM_PCT_DEPTH=2
pct=$(simline)
check "OXL_SIM_POLICY changes the schedule: random, fifo and pct hash apart" sh -c "test '$rnd' != '$fifo' && test '$rnd' != '$pct' && test '$fifo' != '$pct'"
race 4 OXL_SIM_POLICY=pct OXL_SIM_PCT_DEPTH=2
check "each policy is deterministic" test "$(simline)" = "$pct"
race 4 OXL_SIM_POLICY=random
check "OXL_SIM_POLICY=random is the default" test "$(simline)" = "$rnd"
run 4 OXL_SIM_POLICY=Random
check "a bad OXL_SIM_POLICY: exit 2, named" sh -c "test $st -eq 2 && grep -qF \"OXL_SIM_POLICY='Random' is not a policy: expected random, fifo or pct\" '$tmp/err'"
run 4 OXL_SIM_POLICY=pct OXL_SIM_PCT_DEPTH=65
check "a bad OXL_SIM_PCT_DEPTH: exit 2, named" sh -c "test $st -eq 2 && grep -qF \"OXL_SIM_PCT_DEPTH='65' is not a depth: expected an integer from 1 to 64\" '$tmp/err'"

check "JUnit: the failure body has what everyone was doing" has "what everyone was doing at 1.000000000s of virtual time:" "$tmp/junit.xml"
check "JUnit: and the trace diff" has "trace diff: seed 5 (21 events) against seed 4 (22 events)" "$tmp/junit.xml"
check "JUnit: naming the drop" has "seed 5 (failed) goes on with: #18 @0.003474353s seq=3 drop      store-0 -&gt; api-0 (random drop)" "$tmp/junit.xml"

# a passing run costs what it did: no trace dump, no extra process
rm -f "$pkg/oxl-test-failures.txt"
lossy="a call on a lossy network"
"$oxl" test "$pkg" -j 1 --exact "$lossy" --seeds 2..=4 >"$tmp/out" 2>"$tmp/err"
check "a passing run: three processes, one a seed" has "test result: ok. 1 passed, 0 failed, 0 not run; 3 processes" "$tmp/out"
"$oxl" test "$pkg" -j 1 --exact "$lossy" --seeds 2..=30 >"$tmp/out" 2>"$tmp/err"
check "a failing seed after three that passed: the seeds, its re-run and the passing seed's" has "; 6 processes" "$tmp/out"

# an OXL_SIM_TRACE_DUMP in the runner's environment reaches no process
rm -f "$pkg/oxl-test-failures.txt"
OXL_SIM_TRACE_DUMP="$tmp/stray" "$oxl" test "$pkg" -j 1 --exact "$lossy" --seeds 2..=30 >"$tmp/out" 2>"$tmp/err"
check "OXL_SIM_TRACE_DUMP in the environment: no process writes it, the diff is made" sh -c "test ! -e '$tmp/stray' && grep -q 'trace diff: seed 5 (21 events)' '$tmp/out'"


rm -f "$pkg/oxl-test-failures.txt"
"$oxl" test "$pkg" -j 1 --exact "$lossy" --seeds 2..=30 --format tap >"$tmp/out" 2>"$tmp/err"
check "TAP: the YAML block has the trace diff" has '      trace_diff: "trace diff: seed 5 (21 events) against seed 4 (22 events), the last that passed' "$tmp/out"
check "TAP: and what everyone was doing" has '      doing: "what everyone was doing at 1.000000000s of virtual time:\n  task 1 on process: the test'"'"'s harness, waiting for its body to end at lossy.oxl:18"' "$tmp/out"
rm -f "$pkg/oxl-test-failures.txt"
"$oxl" test "$pkg" -j 1 --exact "$lossy" --seeds 2..=30 --format json >"$tmp/out" 2>"$tmp/err"
check "JSON: the test event's trace_diff, with and without task events" has '"trace_diff":{"seed":5,"against_seed":4,"compared":true,"events":21,"against_events":22,"cut":false,"all":{"common_prefix":8,"first_difference":"#8 @0.000000000s seq=2 task      done task 3 on store-0","against_event":"#8 @0.000000000s seq=2 task      done task 2 on api-0","context":[]},"without_tasks":{"common_prefix":11,"first_difference":"#18 @0.003474353s seq=3 drop      store-0 -> api-0 (random drop)","against_event":"#18 @0.005875701s seq=3 deliver   store-0 -> api-0 (17 bytes)","context":["#17 @0.003474353s seq=3 send      store-0 -> api-0 (17 bytes)"]}}' "$tmp/out"

# a schedule fixes the run's choices, not its settings: replayed under a
# time limit that ends the run before the assert, it fails another way,
# and the replay says which, now and then
late="two ways to fail, late"
"$oxl" test "$pkg" --exact "$late" --seed 1 --shrink --shrink-out "$tmp/late.schedule" >"$tmp/out" 2>"$tmp/err"
check "seed 1 of the late test shrinks to its second assert" has "  the failure: two_ways.oxl:15: assertion failed: order !=" "$tmp/out"
"$oxl" test "$pkg" --exact "$late" --replay "$tmp/late.schedule" --time-limit 1s >"$tmp/out" 2>"$tmp/err"
st=$?
check "replayed under --time-limit 1s: it fails, exit 1" test "$st" -eq 1
check "with the time limit" has "time limit: the deterministic simulation is still waiting after 1s of virtual time" "$tmp/out"
check "and the replay names both failures" has "replay: another failure than when it was shrunk: now time limit: the deterministic simulation is still waiting after, then two_ways.oxl:15: assertion failed: order !=" "$tmp/out"

# docs/testing.md's shrink example, run as it is written, from a copy of
# the tree's examples/ (PATH finds this oxl first, so its replay line
# says `oxl test ...`): the same lines, the seconds aside
awk '/^\$ oxl test examples\/shop_planted_bug .* --shrink$/ { on = 1 } on && /^```/ { exit } on' \
    "$here/../../docs/testing.md" >"$tmp/doc_example"
mkdir -p "$tmp/tree/examples"
cp -r "$here/../../examples/shop_planted_bug" "$tmp/tree/examples/"
rm -f "$tmp/tree/examples/shop_planted_bug/oxl-test-failures.txt"
cmd=$(head -n 1 "$tmp/doc_example" | sed 's/^\$ //')
(cd "$tmp/tree" && PATH="$(dirname "$(tap_abs "$oxl")"):$PATH" && export PATH && eval "$cmd") >"$tmp/out" 2>"$tmp/err"
st=$?
check "docs/testing.md's shrink example runs: exit 1, a schedule written" sh -c "test $st -eq 1 && test -s '$tmp/tree/oxl-schedule-seed88.txt'"
untimed() { sed 's/ in \([0-9]*\) runs ([0-9.]* s)$/ in \1 runs (N s)/' "$1"; }
tail -n +2 "$tmp/doc_example" | untimed /dev/stdin >"$tmp/doc_want"
untimed "$tmp/out" >"$tmp/doc_got"
check "and prints the docs' lines, the seconds aside" cmp -s "$tmp/doc_want" "$tmp/doc_got"

# the depth-2 bug: 200 seeds of each policy that cannot find it, then pct
half="a reader never sees a half-done write"
for p in "random" "fifo" "pct --pct-depth 1"; do
    # shellcheck disable=SC2086 # the policy's words
    "$oxl" test "$pkg" --exact "$half" --policy $p >"$tmp/out" 2>"$tmp/err"
    check "--policy $p misses the depth-2 bug in its 200 seeds" has "ok   sim   $half (200 seeds" "$tmp/out"
done
"$oxl" test "$pkg" --exact "$half" --policy pct --pct-depth 3 >"$tmp/out" 2>"$tmp/err"
check "--policy pct (depth 3) finds it, at seed 2" has "seed 2 failed (2 of 200 seeds run)" "$tmp/out"
check "the reproduce line carries the policy and the depth" has "--seed 2 --policy pct --pct-depth 3" "$tmp/out"
check "the determinism re-run used the same policy" sh -c "! grep -q 'not deterministic' '$tmp/out'"
tap_end
