#!/bin/sh
# examples/run_pair.sh: the main job's demonstration for one example and its
# planted-bug twin, also run by ctest.
# usage: run_pair.sh <oxl executable> <example> (bank or shop)
# 1. `oxl test --kind sim` sweeps the fixed example (examples/<example>)
#    over its seeds: it must pass.
# 2. The same sweep over examples/<example>_planted_bug must find the
#    planted bug, print the failing seed and its reproduce command.
# 3. The printed reproduce command must fail again with the same seed.
# 4. That command with --shrink must shrink the seed to a schedule file,
#    whose printed replay command must fail the same way.
# Exits 0 when all four happen as described, 1 otherwise.
oxl=$1
ex=$2
case $ex in
bank | shop) ;;
*) echo "usage: run_pair.sh <oxl> bank|shop" >&2; exit 2 ;;
esac
case $oxl in
/*) ;;
*) oxl=$(pwd)/$oxl ;;
esac
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-$ex-XXXXXX") || exit 1
# The runner remembers the planted bug's failing seed in the package
# (oxl-test-failures.txt); leave the file as it was found.
failures=examples/${ex}_planted_bug/oxl-test-failures.txt
if [ -f "$failures" ]; then cp "$failures" "$tmp/failures.saved"; fi
restore() {
    if [ -f "$tmp/failures.saved" ]; then cp "$tmp/failures.saved" "$failures"; else rm -f "$failures"; fi
    rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 130' INT TERM
rm -f "$failures" # a remembered seed would run first and change the count

echo "== oxl test examples/$ex --kind sim (the fixed $ex)"
"$oxl" test "examples/$ex" --kind sim >"$tmp/fixed" 2>&1
status=$?
cat "$tmp/fixed"
# every sim test's seed count, summed: what the sweep ran, not what is written
swept=$(sed -n 's/^ok   sim   .* (\([0-9]*\) seeds, .*/\1/p' "$tmp/fixed" | awk '{ n += $1 } END { if (NR) print n }')
if [ "$status" -ne 0 ] || [ -z "$swept" ]; then
    echo "run_pair: the fixed $ex failed its sweep (exit status $status)" >&2
    exit 1
fi

echo
echo "== oxl test examples/${ex}_planted_bug --kind sim (the $ex with the planted bug)"
"$oxl" test "examples/${ex}_planted_bug" --kind sim >"$tmp/out" 2>&1
status=$?
cat "$tmp/out"
if [ "$status" -ne 1 ]; then
    echo "run_pair: expected the planted bug to fail the sweep with exit status 1, got $status" >&2
    exit 1
fi
failed=$(grep -m1 -o '^seed [0-9]* failed ([0-9]* of [0-9]* seeds run)' "$tmp/out")
repro=$(grep -m1 '^reproduce: ' "$tmp/out" | sed 's/^reproduce: //')
if [ -z "$failed" ] || [ -z "$repro" ]; then
    echo "run_pair: no 'seed N failed' or 'reproduce:' line in the report" >&2
    exit 1
fi
seed=$(echo "$failed" | sed 's/^seed \([0-9]*\) .*/\1/')

echo
echo "== reproduce: $repro (pasted into sh)"
(exec sh -c "$repro") >"$tmp/again" 2>&1
status=$?
grep -v '^  #' "$tmp/again"
if [ "$status" -ne 1 ] || ! grep -q "^seed $seed failed (1 of 1 seeds run)" "$tmp/again"; then
    echo "run_pair: the reproduce command did not fail seed $seed again (exit status $status)" >&2
    exit 1
fi

echo
echo "== shrink: $repro --shrink (pasted into sh)"
(exec sh -c "$repro --shrink --shrink-out '$tmp/shrunk.schedule'") >"$tmp/shrunk" 2>&1
status=$?
cat "$tmp/shrunk"
replay=$(grep -m1 '^replay: ' "$tmp/shrunk" | sed 's/^replay: //')
if [ "$status" -ne 1 ] || [ -z "$replay" ] || [ ! -s "$tmp/shrunk.schedule" ]; then
    echo "run_pair: --shrink did not shrink seed $seed to a schedule file (exit status $status)" >&2
    exit 1
fi
echo
echo "== replay: $replay (pasted into sh)"
(exec sh -c "$replay") >"$tmp/replayed" 2>&1
status=$?
grep -v '^  #' "$tmp/replayed"
if [ "$status" -ne 1 ] || ! grep -q '^replay: the same failure as when it was shrunk' "$tmp/replayed"; then
    echo "run_pair: the shrunk schedule did not replay to the same failure (exit status $status)" >&2
    exit 1
fi
echo
echo "main job: the fixed $ex passed $swept seeds; its planted bug was caught at seed $seed, reproduced, and shrunk to a schedule that fails the same way"
