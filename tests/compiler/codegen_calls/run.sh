#!/bin/sh
# run.sh <oxl>: calls of closures and methods cost no more than a direct call
# where LLVM can see the target. visible.oxl is built at -O2 to IR: no call
# in it goes through a loaded code pointer (an indirect `call ... %x(`),
# and it prints what it should at -O0 and -O2. hidden.oxl, whose target
# depends on the clock, keeps its indirect call: the check can fail.
# stays.oxl's closures are only called in the function that makes them:
# at -O2 its IR has no oxl_alloc (their environments are on the stack, a
# var they share needs no cell) and no call of a literal's code (inlined).
# escapes.oxl's closures go into a list and keep their oxl_alloc: that
# check can fail too.
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-calls-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..13"
failed=0
check() { if [ "$1" = 0 ]; then echo "ok $2"; else failed=1; echo "not ok $2"; fi; }
indirect() { grep -E 'call [^@(]*%[A-Za-z0-9_.]+\(' "$1"; }
allocs() { grep -E 'call [^(]*@oxl_alloc\(' "$1"; }
(cd "$here" && "$oxl" build visible.oxl -O2 --emit-llvm -o "$tmp/visible.ll") 2>"$tmp/err"
check $? "1 - visible.oxl: IR built at -O2"
calls=$(indirect "$tmp/visible.ll")
[ -z "$calls" ]
check $? "2 - visible.oxl: no indirect call at -O2"
[ -z "$calls" ] || echo "$calls" | sed 's/^/# /'
want=$(printf '6\n9\n5\n11\n3\n7')
for opt in -O0 -O2; do
    out=$(cd "$here" && "$oxl" run visible.oxl $opt 2>&1)
    [ "$out" = "$want" ]
    check $? "$([ $opt = -O0 ] && echo 3 || echo 4) - visible.oxl prints its results at $opt (got '$(echo $out)')"
done
(cd "$here" && "$oxl" build hidden.oxl -O2 --emit-llvm -o "$tmp/hidden.ll") 2>"$tmp/err"
check $? "5 - hidden.oxl: IR built at -O2"
[ -n "$(indirect "$tmp/hidden.ll")" ]
check $? "6 - hidden.oxl: its call through a value chosen at run time stays indirect"
(cd "$here" && "$oxl" build stays.oxl -O2 --emit-llvm -o "$tmp/stays.ll") 2>"$tmp/err"
check $? "7 - stays.oxl: IR built at -O2"
calls=$(allocs "$tmp/stays.ll")
[ -z "$calls" ]
check $? "8 - stays.oxl: no oxl_alloc at -O2 (closures that stay have their environments on the stack)"
[ -z "$calls" ] || echo "$calls" | sed 's/^/# /'
calls=$(grep -E 'call [^(]*@oxl\.fn\.[0-9]+\(' "$tmp/stays.ll")
[ -z "$calls" ]
check $? "9 - stays.oxl: every call of a closure is inlined at -O2"
[ -z "$calls" ] || echo "$calls" | sed 's/^/# /'
want=$(printf '1002000\n15\n13\n2\n1012000')
for opt in -O0 -O2; do
    out=$(cd "$here" && "$oxl" run stays.oxl $opt 2>&1)
    [ "$out" = "$want" ]
    check $? "$([ $opt = -O0 ] && echo 10 || echo 11) - stays.oxl prints its results at $opt (got '$(echo $out)')"
done
(cd "$here" && "$oxl" build escapes.oxl -O2 --emit-llvm -o "$tmp/escapes.ll") 2>"$tmp/err"
check $? "12 - escapes.oxl: IR built at -O2"
[ -n "$(allocs "$tmp/escapes.ll")" ]
check $? "13 - escapes.oxl: its closures, kept in a list, keep their oxl_alloc"
exit $failed
