#!/bin/sh
# tests/testbin/schedule.sh: a test binary's schedule files
# (OXL_SIM_SCHEDULE_OUT records a seed's, OXL_SIM_SCHEDULE_IN replays one;
# docs/test-binary.md), as TAP.
# usage: schedule.sh <oxl executable>
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch testbin-sched
tap_detail() { tap_file "$tmp/err" 20 stderr; }
bin="$tmp/basic.test"
# run <index> <seed> [VAR=value...]: status in $st, stderr in $tmp/err
run() {
    idx=$1 seed=$2
    shift 2
    env OXL_TEST_RUN="$idx" OXL_TEST_SEED="$seed" OXL_SIM_REPORT=1 "$@" "$bin" >"$tmp/out" 2>"$tmp/err"
    st=$?
}
hash_of() { sed -n 's/^oxl-sim: seed=[0-9]* trace=\([0-9a-f]*\) switches=[0-9]*$/\1/p' "$tmp/err" | tail -n 1; }
has() { grep -q -- "$1" "$2"; }

tap_plan 13
"$oxl" build --tests "$here/basic" -o "$bin" >"$tmp/out" 2>"$tmp/err"
check "oxl build --tests builds the test binary" test $? -eq 0 -a -x "$bin"

run 3 7 OXL_SIM_SCHEDULE_OUT="$tmp/s3"
h=$(hash_of)
check "OXL_SIM_SCHEDULE_OUT writes the seed's schedule" sh -c "test $st -eq 0 && head -n 3 '$tmp/s3' | tr '\n' '|' | grep -qx 'oxl-schedule 1|test three sleeps share virtual time|seed 7|'"
run 3 7 OXL_SIM_SCHEDULE_IN="$tmp/s3"
check "OXL_SIM_SCHEDULE_IN replays it to the same trace hash" test -n "$h" -a "$(hash_of)" = "$h" -a $st -eq 0

run 6 1 OXL_SIM_SCHEDULE_OUT="$tmp/s6"
check "a kill by node.kill is a fault of the recording" sh -c "test $st -eq 101 && grep -q '^kill 0 [0-9]* 0 n2\$' '$tmp/s6'"
run 6 1 OXL_SIM_SCHEDULE_IN="$tmp/s6"
check "its replay fails at the same assert" sh -c "test $st -eq 101 && grep -q 'an assertion that fails after a note' '$tmp/err'"
sed -e 's/^faults 1$/faults 0/' -e '/^kill /d' "$tmp/s6" >"$tmp/s6-nokill"
run 6 1 OXL_SIM_SCHEDULE_IN="$tmp/s6-nokill"
check "without the kill in the list the node stays up: another assert fails" sh -c "test $st -eq 101 && grep -q 'assertion failed: !node.isUp' '$tmp/err'"

run 3 7 OXL_SIM_SCHEDULE_IN="$tmp/missing"
check "an unreadable OXL_SIM_SCHEDULE_IN exits 2, named" sh -c "test $st -eq 2 && grep -q \"OXL_SIM_SCHEDULE_IN='$tmp/missing': cannot read it\" '$tmp/err'"
printf 'oxl-schedule 1\ntest three sleeps share virtual time\nseed x\n' >"$tmp/bad"
run 3 7 OXL_SIM_SCHEDULE_IN="$tmp/bad"
check "a malformed one exits 2 with its line" sh -c "test $st -eq 2 && grep -q \"is not a schedule file: line 3: expected 'seed <n>'\" '$tmp/err'"
run 4 5 OXL_SIM_SCHEDULE_IN="$tmp/s3"
check "another test's exits 2" sh -c "test $st -eq 2 && grep -q \"is a schedule of the test 'three sleeps share virtual time', not of 'starts at the epoch'\" '$tmp/err'"
run 3 8 OXL_SIM_SCHEDULE_IN="$tmp/s3"
check "another seed's exits 2" sh -c "test $st -eq 2 && grep -q 'is a schedule of seed 7, not of OXL_TEST_SEED=8' '$tmp/err'"
run 3 7 OXL_SIM_SCHEDULE_OUT="$tmp/no/such/dir/s"
check "an OXL_SIM_SCHEDULE_OUT that cannot be written exits 2, named" sh -c "test $st -eq 2 && grep -q \"OXL_SIM_SCHEDULE_OUT='$tmp/no/such/dir/s': cannot write it\" '$tmp/err'"
run 6 1 OXL_SIM_SCHEDULE_OUT="$tmp/no/such/dir/s"
check "a failing test whose schedule cannot be written keeps 101" sh -c "test $st -eq 101 && grep -q 'OXL_SIM_SCHEDULE_OUT' '$tmp/err'"
run 3 7 OXL_SIM_SCHEDULE_IN= OXL_SIM_SCHEDULE_OUT=
check "empty values are unset" test $st -eq 0 -a "$(hash_of)" = "$h"
tap_end
