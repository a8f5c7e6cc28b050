#!/bin/sh
# tests/testbin/trace_dump.sh: OXL_SIM_TRACE_DUMP of a test binary
# (docs/test-binary.md, The trace dump), as TAP. usage: trace_dump.sh <oxl>
# Builds the test binary of conformance/§18.4/sim-timeline-of-a-failing-seed
# (three nodes, calls, a duplicate, a partition that drops a message, a
# crash, a restart, notes, a failing assert) and checks the dump of seed 2:
# its lines and fields, that it holds every event of the run (the trace
# tail's last event is its last), that it leaves the trace hash as it was,
# the same dump for the same seed, a passing seed's; then bad values.
oxl=$1
. "$(dirname "$0")/../lib.sh"
oxl=$(tap_abs "$oxl")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tap_scratch dump
tap_detail() { tap_file "$tmp/err" 20 err; }
has() { grep -qF -- "$1" "$2"; }

tap_plan 18

cp -r "$root/conformance/§18.4/sim-timeline-of-a-failing-seed" "$tmp/pkg"
if ! "$oxl" build --tests "$tmp/pkg" -o "$tmp/bin" >"$tmp/err" 2>&1; then
    not_ok "the test binary builds"
    exit 1
fi
run() { OXL_TEST_RUN=0 OXL_TEST_SEED=$1 OXL_SIM_REPORT=1 OXL_DATA_DIR="$tmp" "$tmp/bin" >/dev/null 2>"$tmp/err"; }

OXL_SIM_TRACE_DUMP="$tmp/dump" run 2
check "a failing seed with a dump: exit 101" test $? -eq 101
check "the header and the seed" sh -c "head -n 2 '$tmp/dump' | tr '\t\n' ':|' | grep -qx 'oxl-trace-dump:2|seed:2|'"
check "a node line per node, in id order" sh -c \
    "grep '^node' '$tmp/dump' | tr '\t\n' ':|' | grep -qx 'node:0:api-0|node:1:store-0|node:2:cache-0|'"
check "every event line has eleven fields" awk -F '\t' '$1 == "event" { n++; if (NF != 11) exit 1 } END { exit n < 50 }' "$tmp/dump"
check "events numbered from 0 without a gap" awk -F '\t' '$1 == "event" { if ($2 != k++) exit 1 }' "$tmp/dump"
check "the last two lines: the result and end" sh -c \
    "tail -n 2 '$tmp/dump' | cut -f1 | tr '\n' ' ' | grep -qx 'result end '"
hash=$(sed -n 's/^oxl-sim: seed=2 trace=\([0-9a-f]*\) .*/\1/p' "$tmp/err")
check "the result: panicked, the run's hash, its event count, the report" awk -F '\t' -v h="$hash" '
    $1 == "event" { n++ }
    $1 == "result" { ok = $2 == "panicked" && $4 == h && $5 == n && index($6, "panic: assertion failed: c is Int") == 1 &&
                     index($6, "\\nwhat everyone was doing at ") > 0 }
    END { exit !ok }' "$tmp/dump"
last=$(grep '^  #' "$tmp/err" | tail -n 1 | sed 's/^  #\([0-9]*\) .*/\1/')
check "it holds the run's last event (#$last)" sh -c "awk -F '\t' '\$1 == \"event\" { l = \$2 } END { print l }' '$tmp/dump' | grep -qx '$last'"
check "kinds, nodes, labels and a spawn site" sh -c "
    grep -qP '^event\t\d+\t\d+\t\d+\tpartition\t-\t-\t2000000000\tapi-0\|store-0\t-\t' '$tmp/dump' &&
    grep -qP '^event\t\d+\t\d+\t\d+\tdrop\tapi-0\tstore-0\t1\t\t-\t' '$tmp/dump' &&
    grep -qP '^event\t\d+\t\d+\t\d+\tduplicate\tapi-0\tcache-0\t' '$tmp/dump' &&
    grep -qP '^event\t\d+\t\d+\t\d+\tkill\tcache-0\t-\t1\t\t-\t' '$tmp/dump' &&
    grep -qP '^event\t\d+\t\d+\t\d+\tnote\tapi-0\t-\t0\twarm up\t-\t' '$tmp/dump' &&
    grep -qP '^event\t\d+\t0\t\d+\ttask\tapi-0\t-\t\d+\tspawn\tcase.oxl:20\t' '$tmp/dump'"
# the last field: the line as the trace tail prints it, for the same event
check "each event's line as the trace tail prints it" awk -F '\t' '
    $1 == "event" { n++; if (index($11, "#" $2 " @") != 1 || index($11, " seq=" $4 " " $5) == 0) exit 1 }
    END { exit n < 50 }' "$tmp/dump"
check "the tail's lines are the dump's" sh -c "grep '^  #' '$tmp/err' | sed 's/^  //' | tail -n 5 >'$tmp/tail5' &&
    awk -F '\t' '\$1 == \"event\" { print \$11 }' '$tmp/dump' | tail -n 5 | cmp -s - '$tmp/tail5'"
cp "$tmp/err" "$tmp/err.dumped"
run 2
check "the dump leaves the run as it was (stderr byte for byte)" cmp -s "$tmp/err" "$tmp/err.dumped"
OXL_SIM_TRACE_DUMP="$tmp/dump2" run 2
check "the same seed, the same dump" cmp -s "$tmp/dump" "$tmp/dump2"
printf 'test sim "quiet" seeds 1..=2 {\n  let x = 1\n  assert x == 1\n}\n' >"$tmp/pkg/quiet.oxl"
"$oxl" build --tests "$tmp/pkg" -o "$tmp/bin" >"$tmp/err" 2>&1
quiet=$("$tmp/bin" --list | awk -F '\t' '$6 == "quiet" { print $1 }')
OXL_SIM_TRACE_DUMP="$tmp/dump3" OXL_TEST_RUN=$quiet OXL_TEST_SEED=1 "$tmp/bin" >/dev/null 2>"$tmp/err"
check "a passing seed: exit 0" test $? -eq 0
check "its result: finished, no report" sh -c "grep -P '^result\tfinished\t' '$tmp/dump3' | awk -F '\t' '{ exit \$6 != \"\" }'"

OXL_SIM_TRACE_DUMP= run 2
st=$?
check "an empty OXL_SIM_TRACE_DUMP: exit 2, named" sh -c "[ $st -eq 2 ] && grep -qF 'error: OXL_SIM_TRACE_DUMP is empty' '$tmp/err'"
OXL_SIM_TRACE_DUMP="$tmp/no/such/dir/dump" run 2
st=$?
check "an unwritable OXL_SIM_TRACE_DUMP: exit 2, named" sh -c \
    "[ $st -eq 2 ] && grep -qF \"error: OXL_SIM_TRACE_DUMP='$tmp/no/such/dir/dump' cannot be written\" '$tmp/err'"
OXL_SIM_TRACE_DUMP=/dev/full run 2
st=$?
check "a dump that cannot be written out: said, never a pass" sh -c \
    "[ $st -ne 0 ] && grep -qF 'the trace could not be written' '$tmp/err'"
tap_end
