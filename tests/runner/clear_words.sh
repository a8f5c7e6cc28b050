#!/bin/sh
# tests/runner/clear_words.sh: errors that say what and where, as TAP: an
# oxl command run outside a package names itself; a usage error points at
# the command's help; OXL_SIM_SCHED (a legacy mode the docs of the past
# name, not implemented) is refused by oxl test and by a test binary, never
# ignored. usage: clear_words.sh <oxl>
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch clear-words
mkdir "$tmp/empty"
cp -r "$here/pkg" "$tmp/pkg"
tap_detail() { tap_file "$tmp/out"; }
in_empty() { (cd "$tmp/empty" && "$oxl" "$@") >"$tmp/out" 2>&1; st=$?; }

for cmd in test "build ." "run ." "check ." "build --tests ."; do
    name=${cmd%% *}
    in_empty $cmd
    check "oxl $cmd outside a package: status 2, named 'oxl $name'" \
        sh -c "test $st -eq 2 && grep -qxF \"oxl $name: no .oxl files in '.' (not a package directory)\" '$tmp/out'"
done
in_empty check nope.oxl
check "oxl check of a missing file names the command" grep -qF "oxl check: cannot open 'nope.oxl'" "$tmp/out"
in_empty build
check "a usage error points at the command's help" grep -qF "(see 'oxl help build')" "$tmp/out"
in_empty test --seed x
check "oxl test's too" grep -qF "(see 'oxl help test')" "$tmp/out"

(OXL_SIM_SCHED=0 "$oxl" test "$tmp/pkg" --kind sim) >"$tmp/out" 2>&1; st=$?
check "OXL_SIM_SCHED=0 oxl test: status 2" test "$st" -eq 2
check "refused with a message naming it" grep -qF "oxl test: OXL_SIM_SCHED='0' is not supported" "$tmp/out"
(OXL_TEST_KEEP_BINARY="$tmp/kept" "$oxl" test "$tmp/pkg" --kind unit) >"$tmp/out" 2>&1
(OXL_SIM_SCHED=0 OXL_TEST_RUN=1 OXL_TEST_SEED=1 "$tmp/kept") >"$tmp/out" 2>&1; st=$?
check "a test binary's sim test under OXL_SIM_SCHED=0: status 2" test "$st" -eq 2
check "named too" grep -qF "error: OXL_SIM_SCHED='0' is not supported" "$tmp/out"
(OXL_SIM_SCHED=1 OXL_TEST_RUN=1 OXL_TEST_SEED=1 "$tmp/kept") >"$tmp/out" 2>&1; st=$?
check "OXL_SIM_SCHED=1 (what runs anyway) is accepted" test "$st" -eq 0
tap_end
