#!/bin/sh
# tests/runner/oxl_test.sh: `oxl test` end to end with the real compiler,
# as TAP. usage: oxl_test.sh <oxl executable>
# Runs a copy of tests/runner/pkg (the runner writes its failures file into
# the package) and tests/testbin/{broken,notests}: the failing seed and its
# reproduce line, the re-run of that line, the binary cache, the formats,
# OXL_TEST_KEEP_BINARY, the static link, and the statuses 3 and 4.
# usage: oxl_test.sh <oxl executable> [sanitized]  (sanitized: the runtime
# was built with the sanitizers, whose programs link dynamically)
oxl=$1
sanitized=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch test-e2e
cp -r "$here/pkg" "$tmp/pkg"
pkg="$tmp/pkg"
tap_detail() { tap_file "$tmp/out" 40 out; tap_file "$tmp/err" 40 err; }
has() { grep -qF -- "$1" "$2"; }
t() { "$oxl" test "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; }

tap_plan 33

t "$pkg" -j 2 -###
check "a failing seed: status 1" test "$st" -eq 1
check "the link command shows: the first run builds" has '"cc" ' "$tmp/err"
check "no linker warning (glibc's name lookups in a static program)" sh -c "! grep -q 'statically linked' '$tmp/err'"
check "the lowest failing seed and the seeds run" has "seed 17 failed (17 of 40 seeds run)" "$tmp/out"
check "its stdout" has "running seed 17" "$tmp/out"
check "its stderr with the trace" has "oxl-sim: seed=17 trace=" "$tmp/out"
check "the reproduce line" has "reproduce: $oxl test $pkg --exact 'fails at seed 17' --seed 17" "$tmp/out"
check "no passing seed's output" test "$(grep -c 'running seed' "$tmp/out")" -eq 1
check "no nondeterminism in a deterministic program" sh -c "! grep -q 'not deterministic' '$tmp/out'"
check "the failures file remembers it" has "17	fails at seed 17" "$pkg/oxl-test-failures.txt"

t "$pkg" --exact 'fails at seed 17' --seed 17 -###
check "the reproduce line reproduces" has "seed 17 failed (1 of 1 seeds run)" "$tmp/out"
check "from the cache: no link command" sh -c "! grep -qF '\"cc\"' '$tmp/err'"

t "$pkg" --kind sim --exact 'passes every seed' --format tap
check "a passing sim test: status 0" test "$st" -eq 0
check "TAP 13 with a subtest" sh -c "head -n 3 '$tmp/out' | tr '\n' '|' | grep -qF 'TAP version 13|1..1|# Subtest: passes every seed|'"
check "thirty seeds in it" has "    1..30" "$tmp/out"

echo "// touched" >>"$pkg/sub/more.oxl"
t "$pkg" --kind unit --format json -###
check "an edited file in a subdirectory rebuilds" has '"cc" ' "$tmp/err"
check "json events" has '{"event":"test","kind":"unit","index":0,"name":"adds","result":"pass"' "$tmp/out"

OXL_TEST_KEEP_BINARY="$tmp/kept" "$oxl" test "$pkg" --kind unit >"$tmp/out" 2>"$tmp/err"
OXL_TEST_RUN=0 "$tmp/kept" >"$tmp/out" 2>"$tmp/err"
check "OXL_TEST_KEEP_BINARY keeps a working test binary" test $? -eq 0
# a test binary is static (compiler/driver/build.c): no dynamic loader, and
# the fence's wrappers linked in a first step of their own
readelf -l "$tmp/kept" >"$tmp/out" 2>"$tmp/err"
if [ -n "$sanitized" ]; then
  check "sanitized: the test binary has a dynamic loader" has "INTERP" "$tmp/out"
else
  check "the test binary is static: no dynamic loader" sh -c "readelf -h '$tmp/kept' >/dev/null && ! grep -q INTERP '$tmp/out'"
fi
echo "// relinked" >>"$pkg/tests.oxl"
t "$pkg" --kind unit -###
if [ -n "$sanitized" ]; then
  check "sanitized: one link command" test "$(grep -c '^"cc" ' "$tmp/err")" -eq 1
else
  check "two link commands: the wrapped objects, then static" sh -c "grep -q '^\"cc\" \"-r\" \"-nostdlib\"' '$tmp/err' && grep -q '^\"cc\" \"-static\"' '$tmp/err'"
fi

sed -i 's/!= 17/!= 1000/' "$pkg/tests.oxl"
t "$pkg" --kind sim -j 2
check "fixed: status 0" test "$st" -eq 0
check "the fixed seed left the failures file" test ! -e "$pkg/oxl-test-failures.txt"

t "$here/../testbin/broken"
check "a package that does not compile: status 3" test "$st" -eq 3
check "with its diagnostic" has "error:" "$tmp/err"

t "$here/../testbin/notests"
check "a package without tests: status 4" test "$st" -eq 4

# SIGKILL of `oxl test` while a test spins, with a child that left its
# session: nothing of the run is left, with the fork server or a server
# per process (OXL_TEST_FORK_SERVER=0)
for mode in 1 0; do
    rm -f "$tmp/spin.pids"
    SPIN_PIDS="$tmp/spin.pids" TMPDIR="$tmp" OXL_TEST_FORK_SERVER=$mode "$oxl" test "$here/spinpkg" -t 60 >"$tmp/out" 2>"$tmp/err" &
    runner=$!
    k=0
    while [ "$(cat "$tmp/spin.pids" 2>/dev/null | wc -l)" -lt 2 ] && [ $k -lt 300 ]; do sleep 0.05; k=$((k + 1)); done
    kill -9 $runner
    wait $runner 2>/dev/null
    check "OXL_TEST_FORK_SERVER=$mode: the test and its child spun" test "$(wc -l <"$tmp/spin.pids")" -eq 2
    left=
    k=0
    while [ $k -lt 40 ]; do
        left=
        for p in $(cat "$tmp/spin.pids"); do
            if [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null; then left="$left $p"; fi
        done
        [ -z "$left" ] && break
        sleep 0.05
        k=$((k + 1))
    done
    check "OXL_TEST_FORK_SERVER=$mode: after a SIGKILL of oxl test, neither is left$left" test -z "$left"
    for p in $left; do kill -9 "$p"; done
done

# 100,000 tasks alive at once in a sim test, with the test binary's own
# stacks (1 MiB) and limits: on any kernel, since where there are no light
# guard regions (MADV_GUARD_INSTALL, Linux 6.13) the stacks past the
# vm.max_map_count budget are canary stacks; the second run makes this
# kernel behave like an older one (docs/scheduler.md)
for light in "" max_map_count; do
    OXL_STACKS_NO_LIGHT_GUARDS=$light t "$here/manypkg" --kind sim
    what="100,000 tasks at once${light:+ without light guards}"
    check "$what: status 0" test "$st" -eq 0
    check "$what: the test passed" has "ok   sim   100,000 tasks at once (1 seed" "$tmp/out"
done
tap_end
