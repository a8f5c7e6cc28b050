#!/bin/sh
# fence_link.sh: which programs get the fence's wrappers (TAP).
# usage: fence_link.sh <oxl> <package-dir>
# `oxl build --tests` links a test binary with them: its references to a
# fenced call go to __wrap_<name>. `oxl build` (and so `oxl run`) links
# without them: the program calls libc directly and has no wrapper at all,
# so the fence costs it nothing.
oxl=$1
pkg=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-fence-link-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "1..4"
failed=0
check() { # check CONDITION-STATUS DESCRIPTION
    if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; failed=$((failed + 1)); fi
}
cp -R "$pkg" "$tmp/pkg"
(cd "$tmp/pkg" && "$oxl" build --tests . -o "$tmp/t.test") >"$tmp/log" 2>&1
check $? "oxl build --tests links the package with its C file"
nm "$tmp/t.test" | grep -q ' __wrap_clock_gettime$'
check $? "the test binary has the fence's wrappers"
(cd "$tmp/pkg" && "$oxl" build . -o "$tmp/prog") >>"$tmp/log" 2>&1 && ! nm "$tmp/prog" | grep -q '__wrap_'
check $? "a program of oxl build has none"
nm -u "$tmp/prog" | grep -q ' clock_gettime'
check $? "and calls libc's clock_gettime directly"
[ "$failed" -eq 0 ] || sed 's/^/# /' "$tmp/log"
[ "$failed" -eq 0 ]
