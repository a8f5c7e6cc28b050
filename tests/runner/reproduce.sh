#!/bin/sh
# tests/runner/reproduce.sh: a reproduce line that works when pasted, as
# TAP: it names the oxl that was run as it was typed (quoted when needed),
# or `oxl` when PATH finds that same file, and never another oxl that PATH
# finds; a package path with a space and non-ASCII letters is quoted; each
# line pasted into `sh -c` reproduces the seed. `oxl test --list` shows each
# test's index, which runs it in a kept binary (OXL_TEST_RUN), and
# `--gdb --exact NAME --seed N -- -batch -ex run` runs that seed under gdb
# with the run's policy, stopping at its panic.
# usage: reproduce.sh <oxl>
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch reproduce
cp -r "$here/pkg" "$tmp/pkg"
mkdir -p "$tmp/my bin" "$tmp/other" "$tmp/pkg é 1"
cp -r "$here/pkg/." "$tmp/pkg é 1/"
ln -s "$oxl" "$tmp/my bin/oxl"
printf '#!/bin/sh\necho "not this oxl" >&2\nexit 42\n' >"$tmp/other/oxl"
chmod +x "$tmp/other/oxl"
base_path=$PATH
tap_detail() { tap_file "$tmp/out" 30; }
line() { grep -m1 '^reproduce: ' "$tmp/out" | sed 's/^reproduce: //'; }
# paste LINE: runs it as sh would, from $tmp; its output in $tmp/out2
paste() { (cd "$tmp" && PATH=$paste_path sh -c "$1") >"$tmp/out2" 2>&1; }

# run as typed, relative, with a space: PATH finds another oxl
paste_path="$tmp/other:$base_path"
(cd "$tmp" && PATH=$paste_path "./my bin/oxl" test pkg --kind sim >"$tmp/out" 2>&1)
l=$(line)
check "the oxl as typed, quoted" test "$l" = "'./my bin/oxl' test pkg --exact 'fails at seed 17' --seed 17"
paste "$l"
check "pasted into sh -c it reproduces (not PATH's other oxl)" grep -qF 'seed 17 failed (1 of 1 seeds run)' "$tmp/out2"

# PATH finds this same oxl: `oxl`
paste_path="$tmp/my bin:$base_path"
(cd "$tmp" && PATH=$paste_path "./my bin/oxl" test "pkg é 1" --kind sim -O2 >"$tmp/out" 2>&1)
l=$(line)
check "oxl when PATH finds the same file; the package quoted; -O2 kept" \
    test "$l" = "oxl test 'pkg é 1' --exact 'fails at seed 17' --seed 17 -O2"
paste "$l"
check "and it reproduces" grep -qF 'seed 17 failed (1 of 1 seeds run)' "$tmp/out2"
(cd "$tmp" && PATH=$paste_path oxl test pkg --kind sim >"$tmp/out" 2>&1)
check "run as oxl through PATH: oxl" test "$(line)" = "oxl test pkg --exact 'fails at seed 17' --seed 17"
# an absolute path that PATH does not find stays absolute
(cd "$tmp" && PATH=$base_path "$oxl" test pkg --kind sim -t 90 >"$tmp/out" 2>&1)
l=$(line)
check "an absolute oxl stays absolute; -t kept" test "$l" = "$oxl test pkg --exact 'fails at seed 17' --seed 17 -t 90"
paste_path="$tmp/other:$base_path"
paste "$l"
check "and it reproduces" grep -qF 'seed 17 failed (1 of 1 seeds run)' "$tmp/out2"

# --list: each test's index, for the kept binary
(cd "$tmp" && OXL_TEST_KEEP_BINARY="$tmp/kept" "$oxl" test pkg --list >"$tmp/out" 2>&1)
check "--list shows the index first" grep -qE '^ +2  sim   1\.\.40 +tests\.oxl:13:1  fails at seed 17$' "$tmp/out"
check "and keeps the nodes line" grep -qx '      nodes: n0' "$tmp/out"
idx=$(sed -n 's/^ *\([0-9]*\)  sim .*fails at seed 17$/\1/p' "$tmp/out")
(OXL_TEST_RUN=$idx OXL_TEST_SEED=17 "$tmp/kept") >"$tmp/out" 2>&1; st=$?
check "OXL_TEST_RUN=<that index> runs it in the kept binary (seed 17 fails: 101)" test "$st" -eq 101
(OXL_TEST_RUN=$idx OXL_TEST_SEED=16 "$tmp/kept") >"$tmp/out" 2>&1; st=$?
check "(seed 16 passes)" test "$st" -eq 0

# --gdb (LeakSanitizer cannot run under ptrace: off for the debugged
# binary of a sanitizer build): the seed's environment, a breakpoint on the
# panic entry, and the run's policy
if command -v gdb >/dev/null 2>&1; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
    (cd "$tmp" && "$oxl" test pkg --gdb --exact 'fails at seed 17' --seed 17 -- -batch -ex run -ex bt) >"$tmp/out" 2>&1
    check "--gdb: run stops at the panic, in oxl_panic_at" grep -q '^Breakpoint 1, oxl_panic_at ' "$tmp/out"
    check "and bt shows the OxL line of the failing assert" grep -qE '^#[0-9]+ .* at tests\.oxl:15$' "$tmp/out"
    check "before the run ended (no report yet)" sh -c "! grep -q 'oxl-sim: seed=' '$tmp/out'"
    (cd "$tmp" && "$oxl" test pkg --gdb --exact 'fails at seed 17' --seed 17 -- -batch -ex run -ex continue) >"$tmp/out" 2>&1
    check "continued, the seed's panic is reported" grep -qF 'panic: assertion failed: sim.seed() != 17' "$tmp/out"
    check "with OXL_TEST_SEED and OXL_SIM_REPORT set" grep -qF 'oxl-sim: seed=17 trace=' "$tmp/out"
    check "gdb saw it exit with 101" grep -qF 'exited with code 0145]' "$tmp/out"
    (cd "$tmp" && "$oxl" test pkg --gdb --exact 'fails at seed 17' --seed 16 -- -batch -ex run) >"$tmp/out" 2>&1
    check "a passing seed exits normally under gdb" grep -qF 'exited normally]' "$tmp/out"
    # a failure only the pct policy finds: --gdb runs the seed with it
    mkdir "$tmp/pct" && cp "$here/../../conformance/§18.4/sim-policy-pct-finds-a-depth-2-bug/case.oxl" "$tmp/pct/"
    pct_name='a reader never sees a half-done write'
    (cd "$tmp" && "$oxl" test pct --exact "$pct_name" --seed 1 --policy pct --pct-depth 2) >"$tmp/out" 2>&1
    check "(seed 1 fails with --policy pct --pct-depth 2)" grep -qF 'seed 1 failed' "$tmp/out"
    (cd "$tmp" && "$oxl" test pct --exact "$pct_name" --seed 1) >"$tmp/out" 2>&1
    check "(and passes with the default policy)" grep -qF 'test result: ok.' "$tmp/out"
    (cd "$tmp" && "$oxl" test pct --gdb --exact "$pct_name" --seed 1 --policy pct --pct-depth 2 -- -batch -ex run -ex continue) >"$tmp/out" 2>&1
    check "--gdb with --policy pct --pct-depth 2: the seed fails under gdb too" \
        sh -c "grep -qF 'the reader saw the write half done' '$tmp/out' && grep -qF 'exited with code 0145]' '$tmp/out'"
    (cd "$tmp" && OXL_SIM_POLICY=fifo "$oxl" test pct --gdb --exact "$pct_name" --seed 1 --policy pct --pct-depth 2 -- -batch -ex run -ex continue) >"$tmp/out" 2>&1
    check "--policy wins over OXL_SIM_POLICY under --gdb too" grep -qF 'exited with code 0145]' "$tmp/out"
else
    for k in 1 2 3 4 5 6 7 8 9 10 11; do i=$((i + 1)); echo "ok $i # SKIP gdb is not installed"; done
fi
(cd "$tmp" && "$oxl" test pkg --gdb --exact 'fails at seed 17') >"$tmp/out" 2>&1; st=$?
check "--gdb on a sim test without --seed: status 2" test "$st" -eq 2
check "saying so" grep -qF "name the seed to debug with --seed N" "$tmp/out"
(cd "$tmp" && "$oxl" test pkg --gdb --kind sim --seed 3) >"$tmp/out" 2>&1; st=$?
check "--gdb matching two tests: status 2, named" sh -c "test $st -eq 2 && grep -qF -- '--gdb runs one test: 2 match' '$tmp/out'"
(cd "$tmp" && "$oxl" test pkg -- -batch) >"$tmp/out" 2>&1; st=$?
check "'--' without --gdb: still a usage error" test "$st" -eq 2
tap_end
