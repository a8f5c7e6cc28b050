#!/bin/sh
# run.sh <oxl>: the union mismatch check in generated code. Builds main.oxl
# to IR and checks the narrowing's check is there with the type names, then
# runs the program (the check passes).
oxl=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-union-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..4"
failed=0
check() { if [ "$1" = 0 ]; then echo "ok $2"; else failed=1; echo "not ok $2"; fi; }
(cd "$here" && "$oxl" build main.oxl --emit-llvm -o "$tmp/main.ll") 2>"$tmp/err"
check $? "1 - IR built"
grep -q 'call void @oxl_panic_union' "$tmp/main.ll"
check $? "2 - narrowing calls oxl_panic_union on a wrong tag"
grep -q 'c"Int\\00"' "$tmp/main.ll" && grep -q 'c"String\\00"' "$tmp/main.ll"
check $? "3 - the message names the member types"
out=$(cd "$here" && "$oxl" run main.oxl 2>&1)
[ "$out" = 7 ]
check $? "4 - the checks pass at run time (got '$out')"
exit $failed
