#!/bin/sh
# tests/runner/tap_prove.sh: `oxl test --format tap` read by perl's prove
# (TAP::Harness), as TAP: a passing run passes, a failing one fails naming
# the failing test, with its subtest's failing seed in the verbose output;
# a skipped test and `#` in a name are read as TAP means them.
# usage: tap_prove.sh <oxl>
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch tap-prove
cp -r "$here/pkg" "$tmp/pkg"
tap_detail() { tap_file "$tmp/prove" 30; }
if ! command -v prove >/dev/null 2>&1; then
    echo "1..0 # SKIP prove (perl) is not installed"
    exit 0
fi
tap_plan 9

"$oxl" test "$tmp/pkg" --exact 'passes every seed' --format tap >"$tmp/pass.tap" 2>"$tmp/err"
prove -e cat "$tmp/pass.tap" >"$tmp/prove" 2>&1; st=$?
check "prove passes a passing run" test "$st" -eq 0
check "saying so" grep -q '^Result: PASS' "$tmp/prove"
# piped: prove's `-` is a list of test files on stdin, /dev/stdin the stream
"$oxl" test "$tmp/pkg" --exact 'passes every seed' --format tap 2>"$tmp/err" | prove -e cat /dev/stdin >"$tmp/prove" 2>&1
st=$?
check "prove -e cat /dev/stdin reads it from a pipe" test "$st" -eq 0

"$oxl" test "$tmp/pkg" --format tap >"$tmp/fail.tap" 2>"$tmp/err"
prove -v -e cat "$tmp/fail.tap" >"$tmp/prove" 2>&1; st=$?
check "prove fails a failing run" test "$st" -ne 0
check "without a parse error" sh -c "! grep -q 'Parse errors' '$tmp/prove'"
check "naming the failing test (3 of 3)" grep -q 'Failed test: *3$' "$tmp/prove"
check "whose line is the test's name" grep -qF 'not ok 3 - fails at seed 17' "$tmp/prove"
check "and the subtest's failing seed" grep -qF '    not ok 17 - seed 17' "$tmp/prove"

# fail fast: the test after a failure is a SKIP, which prove counts as one
cat >"$tmp/pkg/tests.oxl" <<'OXL'
use std.test { sim }
test "a # in a name" {
  assert 1 == 2
}
test "after it" {
  assert 1 == 1
}
OXL
"$oxl" test "$tmp/pkg" --format tap -j 1 >"$tmp/skip.tap" 2>"$tmp/err"
prove -v -e cat "$tmp/skip.tap" >"$tmp/prove" 2>&1
check "a not-run test is a skip and a name with # stays a name" \
    sh -c "grep -qF 'not ok 1 - a \\# in a name' '$tmp/prove' && grep -q 'ok 2 - after it # SKIP' '$tmp/prove' && ! grep -q 'Parse errors' '$tmp/prove'"
tap_end
