#!/bin/sh
# tests/testbin/run.sh: the test binary protocol (docs/test-binary.md), as TAP.
# usage: run.sh <oxl executable>
# Builds the test binaries of the packages beside this script with
# `oxl build --tests` and checks --list, statuses, the oxl-sim report line,
# the determinism of trace hashes across processes, virtual time, the
# deadlock report and the refusal of bad OXL_TEST_RUN / OXL_TEST_SEED values.
oxl=$1
. "$(dirname "$0")/../lib.sh"
oxl=$(tap_abs "$oxl")
here=$(cd "$(dirname "$0")" && pwd)
tap_scratch testbin
tap_detail() { tap_file "$tmp/out" 10 stdout; tap_file "$tmp/err" 20 stderr; }
bin="$tmp/basic.test"
# run <index> [seed] [report]: status in $st, output in $tmp/out and $tmp/err
run() {
    if [ -n "$2" ]; then
        OXL_TEST_RUN=$1 OXL_TEST_SEED=$2 OXL_SIM_REPORT=${3:-0} "$bin" >"$tmp/out" 2>"$tmp/err"
    else
        OXL_TEST_RUN=$1 "$bin" >"$tmp/out" 2>"$tmp/err"
    fi
    st=$?
}
has() { grep -q -- "$1" "$2"; }
hash_of() { sed -n 's/^oxl-sim: seed=[0-9]* trace=\([0-9a-f]*\) switches=[0-9]*$/\1/p' "$tmp/err" | tail -n 1; }

tap_plan 35

"$oxl" build --tests "$here/basic" -o "$bin" >"$tmp/out" 2>"$tmp/err"
check "oxl build --tests builds the test binary" test $? -eq 0 -a -x "$bin"

"$bin" --list >"$tmp/list" 2>"$tmp/err"
st=$?
printf '0\tunit\t-\t-\ta_unit.oxl:8:1\tadds\t-\n1\tunit\t-\t-\ta_unit.oxl:12:1\tfails on purpose\t-\n2\tunit\t-\t-\ta_unit.oxl:16:1\ttab\\tback\\\\slash\\nnewline\t-\n3\tsim\t1\t20\tb_sim.oxl:6:1\tthree sleeps share virtual time\tn0\n4\tsim\t5\t5\tb_sim.oxl:23:1\tstarts at the epoch\tn0\n5\tsim\t1\t3\tb_sim.oxl:32:1\tdeadlocks\tn0\n6\tsim\t1\t2\tb_sim.oxl:43:1\tcluster of three\tn0,n1,n2\n' >"$tmp/want"
cp "$tmp/list" "$tmp/out"
check "--list prints every test in source order, names escaped" cmp -s "$tmp/list" "$tmp/want"
check "--list exits 0" test $st -eq 0
check "--list ends with its handshake on stderr" test "$(cat "$tmp/err")" = "oxl-list: tests=7"

run 0
check "a passing unit test exits 0" test $st -eq 0
run 1
check "a failing unit test exits 101" test $st -eq 101
check "its assertion message is on stderr" has "assertion failed: add(2, 2) == 5: two and two" "$tmp/err"
run 2
check "a unit test with tasks and a real sleep passes" test $st -eq 0
run 2 0 1
check "a unit test ignores OXL_TEST_SEED and prints no sim report" sh -c "test $st -eq 0 && ! grep -q oxl-sim '$tmp/err'"

run 3 7 1
check "three concurrent 1s sleeps take 1s of virtual time" sh -c "test $st -eq 0 && grep -qx 'elapsed 1s' '$tmp/out'"
check "the report line is the last stderr line" sh -c "tail -n 1 '$tmp/err' | grep -Eq '^oxl-sim: seed=7 trace=[0-9a-f]{16} switches=[0-9]+\$'"
h7a=$(hash_of)
run 3 7 1
h7b=$(hash_of)
check "the same seed gives the same trace hash in another process" test -n "$h7a" -a "$h7a" = "$h7b"
distinct=$(for s in 1 2 3 4 5 6; do run 3 $s 1; hash_of; done | sort -u | wc -l)
check "different seeds give different trace hashes" test "$distinct" -gt 1
"$oxl" build --tests -O2 "$here/basic" -o "$tmp/o2.test" >"$tmp/out" 2>"$tmp/err"
OXL_TEST_RUN=3 OXL_TEST_SEED=7 OXL_SIM_REPORT=1 "$tmp/o2.test" >"$tmp/out" 2>"$tmp/err"
check "an -O2 build of the tests runs seed 7 to the same trace hash" test -n "$h7a" -a "$(hash_of)" = "$h7a"
run 3 7
check "without OXL_SIM_REPORT there is no report line" sh -c "test $st -eq 0 && ! grep -q oxl-sim '$tmp/err'"

run 4 5 1
check "virtual time starts at 2026-01-01T00:00:00Z and clock.advance moves it" sh -c "test $st -eq 0 && grep -qx 'start 2026-01-01T00:00:00Z' '$tmp/out' && grep -qx 'later 2026-01-01T01:30:00Z' '$tmp/out'"
check "sim.seed() is OXL_TEST_SEED" has "^seed 5\$" "$tmp/out"
# the report line's numbers: the largest seed in full, and a run of two
# tasks that each run once to their end (the harness and the body, no
# choice) counts three switches at any seed: into the harness, to the
# body, back to the harness
run 4 9223372036854775807 1
check "the report line: the largest seed, and three switches for two tasks run once" sh -c "test $st -eq 0 && tail -n 1 '$tmp/err' | grep -Eqx 'oxl-sim: seed=9223372036854775807 trace=[0-9a-f]{16} switches=3'"

run 5 2 1
check "a deadlock fails with 101" test $st -eq 101
check "the deadlock report names every blocked task" sh -c "grep -q '^deadlock: every task of the deterministic simulation is blocked' '$tmp/err' && grep -q 'task 2 on n0: receiving from channel 1 at .*b_sim.oxl:40' '$tmp/err'"
check "a failed run prints the trace tail after the report line" sh -c "sed -n '/^oxl-sim: /,\$p' '$tmp/err' | tail -n +2 | grep -q '^  #[0-9]* @'"

run 6 1 1
check "with cluster(nodes: 3) a failure after node.kill exits 101" test $st -eq 101
check "its trace tail shows the kill and the note" sh -c "grep -q 'kill      n2' '$tmp/err' && grep -q 'note      n0: killed n2' '$tmp/err'"

OXL_SIM_TIME_LIMIT=0.5 OXL_TEST_RUN=3 OXL_TEST_SEED=1 "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "OXL_SIM_TIME_LIMIT below the sleeps gives a time limit failure" sh -c "test $st -eq 101 && grep -q '^time limit: the deterministic simulation is still waiting after 500ms' '$tmp/err'"

OXL_TEST_RUN=7 "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "OXL_TEST_RUN past the last test exits 2 with a named message" sh -c "test $st -eq 2 && grep -q \"OXL_TEST_RUN='7' is not a test index\" '$tmp/err'"
OXL_TEST_RUN=-1 "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a negative OXL_TEST_RUN exits 2" sh -c "test $st -eq 2 && grep -q 'OXL_TEST_RUN' '$tmp/err'"
env -u OXL_TEST_RUN "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a missing OXL_TEST_RUN exits 2" sh -c "test $st -eq 2 && grep -q 'OXL_TEST_RUN is not set' '$tmp/err'"
OXL_TEST_RUN=3 "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a sim test without OXL_TEST_SEED exits 2" sh -c "test $st -eq 2 && grep -q 'OXL_TEST_SEED is not set' '$tmp/err'"
OXL_TEST_RUN=3 OXL_TEST_SEED=abc "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a malformed OXL_TEST_SEED exits 2" sh -c "test $st -eq 2 && grep -q \"OXL_TEST_SEED='abc' is not a seed\" '$tmp/err'"
OXL_TEST_RUN=3 OXL_TEST_SEED=99999999999999999999 "$bin" >"$tmp/out" 2>"$tmp/err"
st=$?
check "an OXL_TEST_SEED above Int's range exits 2" test $st -eq 2

"$oxl" build --tests "$here/notests" -o "$tmp/none.test" >"$tmp/none-build.out" 2>"$tmp/none-build.err"
build_st=$?
"$tmp/none.test" --list >"$tmp/none-list.out" 2>"$tmp/none-list.err"
list_st=$?
OXL_TEST_RUN=0 "$tmp/none.test" >"$tmp/none-run.out" 2>"$tmp/none-run.err"
st=$?
check "a package without tests builds (status $build_st), lists nothing but its handshake (status $list_st) and refuses OXL_TEST_RUN=0 (status $st)" \
    sh -c "test $build_st -eq 0 && test $list_st -eq 0 && test ! -s '$tmp/none-list.out' && test \"\$(cat '$tmp/none-list.err')\" = 'oxl-list: tests=0' && test $st -eq 2 && grep -q 'has no tests' '$tmp/none-run.err'"

"$oxl" build --tests "$here/broken" -o "$tmp/broken.test" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a package with a type error does not build (exit 1, file:line:col)" sh -c "test $st -eq 1 && grep -q 'main.oxl:2:16: error:' '$tmp/err' && test ! -e '$tmp/broken.test'"
"$oxl" build --tests "$here/does-not-exist" -o "$tmp/x.test" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a missing package exits 2" test $st -eq 2

mkdir "$tmp/default" && (cd "$tmp/default" && "$oxl" build --tests "$here/basic" >"$tmp/out" 2>"$tmp/err")
check "without -o the test binary is <package>.test" test -x "$tmp/default/basic.test"
"$oxl" build --tests -c "$here/basic" >"$tmp/out" 2>"$tmp/err"
st=$?
check "--tests with -c is a usage error (exit 2)" sh -c "test $st -eq 2 && grep -q -- '--tests builds an executable' '$tmp/err'"
tap_end
