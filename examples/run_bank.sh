#!/bin/sh
# examples/run_bank.sh: the main job's demonstration, also run by ctest.
# usage: run_bank.sh <oxl executable>
# 1. `oxl test --kind sim` sweeps the fixed bank (examples/bank) over its
#    200 seeds: it must pass.
# 2. The same sweep over examples/bank_planted_bug must find the planted
#    lost update, print the failing seed and its reproduce command.
# 3. The printed reproduce command must fail again with the same seed.
# Exits 0 when all three happen as described, 1 otherwise.
oxl=$1
case $oxl in
/*) ;;
*) oxl=$(pwd)/$oxl ;;
esac
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-bank-XXXXXX") || exit 1
# The runner remembers the planted bug's failing seed in the package
# (oxl-test-failures.txt); leave the file as it was found.
failures=examples/bank_planted_bug/oxl-test-failures.txt
if [ -f "$failures" ]; then cp "$failures" "$tmp/failures.saved"; fi
restore() {
    if [ -f "$tmp/failures.saved" ]; then cp "$tmp/failures.saved" "$failures"; else rm -f "$failures"; fi
    rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 130' INT TERM
rm -f "$failures" # a remembered seed would run first and change the count

echo "== oxl test examples/bank --kind sim (the fixed bank)"
"$oxl" test examples/bank --kind sim >"$tmp/fixed" 2>&1
status=$?
cat "$tmp/fixed"
swept=$(sed -n 's/^ok   sim   .* (\([0-9]*\) seeds, .*/\1/p' "$tmp/fixed" | head -n 1)
if [ "$status" -ne 0 ] || [ -z "$swept" ]; then
    echo "run_bank: the fixed bank failed its sweep (exit status $status)" >&2
    exit 1
fi

echo
echo "== oxl test examples/bank_planted_bug --kind sim (the bank with the planted bug)"
"$oxl" test examples/bank_planted_bug --kind sim >"$tmp/out" 2>&1
status=$?
cat "$tmp/out"
if [ "$status" -ne 1 ]; then
    echo "run_bank: expected the planted bug to fail the sweep with exit status 1, got $status" >&2
    exit 1
fi
failed=$(grep -m1 -o '^seed [0-9]* failed ([0-9]* of [0-9]* seeds run)' "$tmp/out")
repro=$(grep -m1 '^reproduce: oxl test ' "$tmp/out" | sed 's/^reproduce: oxl test //')
if [ -z "$failed" ] || [ -z "$repro" ]; then
    echo "run_bank: no 'seed N failed' or 'reproduce:' line in the report" >&2
    exit 1
fi
seed=$(echo "$failed" | sed 's/^seed \([0-9]*\) .*/\1/')

echo
echo "== reproduce: oxl test $repro"
(eval "exec \"\$oxl\" test $repro") >"$tmp/again" 2>&1
status=$?
grep -v '^  #' "$tmp/again"
if [ "$status" -ne 1 ] || ! grep -q "^seed $seed failed (1 of 1 seeds run)" "$tmp/again"; then
    echo "run_bank: the reproduce command did not fail seed $seed again (exit status $status)" >&2
    exit 1
fi
echo
echo "main job: the fixed bank passed $swept seeds; the planted lost update was caught at seed $seed and reproduced"
