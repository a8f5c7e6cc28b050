#!/bin/sh
# ctest_inventory.sh: every test the project means to run is registered (TAP).
# usage: ctest_inventory.sh <ctest> <build-dir> <expected-names-file>
#
# Test groups are registered behind include(... OPTIONAL) and if(TARGET ...)
# (tests/CMakeLists.txt, tests/compiler/*.cmake): a missing file or target
# makes a whole group vanish from ctest, and the suite still passes. This
# fails when a name of the list is not registered, so the suite cannot
# shrink unnoticed; and when a registered name is missing from the list,
# since a test the list does not name is one that could vanish unnoticed
# (a new test is added to the list in the change that adds it). Point 3
# checks the comparison itself on lists made to differ, so the guard is
# known to fail either way.
ctest=$1
build=$2
list=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-inventory-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..3"
if ! "$ctest" -N --test-dir "$build" >"$tmp/n" 2>&1; then
    echo "not ok 1 - ctest -N failed in $build"
    sed 's/^/# /' "$tmp/n"
    exit 1
fi

# compare WANT HAVE: the names of WANT not in HAVE into $tmp/missing, of
# HAVE not in WANT into $tmp/extra (both files sorted, unique)
compare() {
    comm -23 "$1" "$2" >"$tmp/missing"
    comm -13 "$1" "$2" >"$tmp/extra"
}
names() { tr ' ' '\n' | sed '/^$/d' | sort -u; }

sed -n 's/^ *Test *#[0-9]*: //p' "$tmp/n" | sort -u >"$tmp/have"
grep -v '^#' "$list" | grep -v '^$' | sort -u >"$tmp/want"
compare "$tmp/want" "$tmp/have"
status=0
if [ ! -s "$tmp/missing" ]; then
    echo "ok 1 - all $(wc -l <"$tmp/want") expected tests are registered"
else
    echo "not ok 1 - $(wc -l <"$tmp/missing") expected tests are not registered (a guarded group vanished?):"
    sed 's/^/#   /' "$tmp/missing"
    status=1
fi
if [ ! -s "$tmp/extra" ]; then
    echo "ok 2 - every one of the $(wc -l <"$tmp/have") registered tests is in $(basename "$list")"
else
    echo "not ok 2 - $(wc -l <"$tmp/extra") registered tests are not in $(basename "$list") (add them, so they cannot vanish unnoticed):"
    sed 's/^/#   /' "$tmp/extra"
    status=1
fi

# the comparison on made-up lists: a name gone and a name not listed
echo "a b c" | names >"$tmp/w"
echo "a c d" | names >"$tmp/h"
compare "$tmp/w" "$tmp/h"
if [ "$(cat "$tmp/missing")" = b ] && [ "$(cat "$tmp/extra")" = d ]; then
    echo "ok 3 - the comparison finds a listed name not registered and a registered name not listed"
else
    echo "not ok 3 - the comparison is broken: missing '$(cat "$tmp/missing")', extra '$(cat "$tmp/extra")'"
    status=1
fi
exit $status
