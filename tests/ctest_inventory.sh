#!/bin/sh
# ctest_inventory.sh: every test the project means to run is registered (TAP).
# usage: ctest_inventory.sh <ctest> <build-dir> <expected-names-file>
#
# Test groups are registered behind include(... OPTIONAL) and if(TARGET ...)
# (tests/CMakeLists.txt, tests/compiler/*.cmake): a missing file or target
# makes a whole group vanish from ctest, and the suite still passes. This
# fails when a name of the list is not registered, so the suite cannot
# shrink unnoticed; a registered name missing from the list is named too,
# so it can be added and guarded as well.
ctest=$1
build=$2
list=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-inventory-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..2"
if ! "$ctest" -N --test-dir "$build" >"$tmp/n" 2>&1; then
    echo "not ok 1 - ctest -N failed in $build"
    sed 's/^/# /' "$tmp/n"
    exit 1
fi
sed -n 's/^ *Test *#[0-9]*: //p' "$tmp/n" | sort -u >"$tmp/have"
grep -v '^#' "$list" | grep -v '^$' | sort -u >"$tmp/want"
missing=$(comm -23 "$tmp/want" "$tmp/have")
extra=$(comm -13 "$tmp/want" "$tmp/have")
if [ -z "$missing" ]; then
    echo "ok 1 - all $(wc -l <"$tmp/want") expected tests are registered ($(wc -l <"$tmp/have") in all)"
else
    echo "not ok 1 - $(printf '%s\n' "$missing" | wc -l) expected tests are not registered (a guarded group vanished?):"
    printf '%s\n' "$missing" | sed 's/^/#   /'
fi
echo "ok 2 - tests not in $(basename "$list") yet: ${extra:-none}" | tr '\n' ' '
echo
[ -z "$missing" ]
