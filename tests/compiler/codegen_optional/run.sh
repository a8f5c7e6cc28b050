#!/bin/sh
# run.sh <oxl>: optionals of scalars (Int?, Bool?, Duration?, Instant?) are
# unboxed. unboxed.oxl (returned, passed, stored in locals, from a channel
# receive, a select arm and a map lookup, `??`, `is None`, `== none`,
# match, printed) is built to IR at -O0 and -O2: no call of oxl_box_new
# and no oxl_alloc anywhere. boxed.oxl stores them where a value is one
# word (a list, a struct field, a channel of Bool?, a wider union): its IR
# does box, so the check can fail. Both print what they should at -O0 and
# -O2.
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-optional-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..10"
failed=0
n=0
check() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=1; echo "not ok $n - $2"; fi; }
allocs() { grep -E 'call [^@]*@(oxl_box_new|oxl_alloc)\(' "$1"; }
want_unboxed=$(printf '4 none int 4 none\ntrue true true\n5s 2s false none\n42 -1 true\n1\n5\nnone')
want_boxed='[1, none, 3] 7 1 true none 0'
for opt in -O0 -O2; do
    (cd "$here" && "$oxl" build unboxed.oxl $opt --emit-llvm -o "$tmp/unboxed.ll") 2>"$tmp/err"
    check $? "unboxed.oxl: IR built at $opt"
    found=$(allocs "$tmp/unboxed.ll")
    [ -z "$found" ]
    check $? "unboxed.oxl: no box and no allocation at $opt"
    [ -z "$found" ] || echo "$found" | sed 's/^/# /'
done
(cd "$here" && "$oxl" build boxed.oxl -O2 --emit-llvm -o "$tmp/boxed.ll") 2>"$tmp/err"
check $? "boxed.oxl: IR built at -O2"
[ -n "$(grep -E 'call [^@]*@oxl_box_new\(' "$tmp/boxed.ll")" ]
check $? "boxed.oxl: an optional stored in a word is boxed"
for opt in -O0 -O2; do
    out=$(cd "$here" && "$oxl" run unboxed.oxl $opt 2>&1)
    [ "$out" = "$want_unboxed" ]
    check $? "unboxed.oxl prints its results at $opt (got '$(echo $out)')"
done
# the round trip through words prints the same as the values themselves
out=$(cd "$here" && "$oxl" run boxed.oxl -O0 2>&1)
[ "$out" = "$want_boxed" ]
check $? "boxed.oxl prints its results at -O0 (got '$(echo $out)')"
out=$(cd "$here" && "$oxl" run boxed.oxl -O2 2>&1)
[ "$out" = "$want_boxed" ]
check $? "boxed.oxl prints its results at -O2 (got '$(echo $out)')"
exit $failed
