#!/bin/sh
# tests/cmake/find_package.sh: find_package(oxl) and oxl_add_tests() after
# cmake --install, as TAP. usage: find_package.sh <cmake> <ctest> <build dir>
# Installs the build into a temporary prefix, configures tests/cmake/proj
# (a project outside the tree) against it, and runs its ctest: a passing
# package passes, a failing one fails the ctest with its failures file in
# the project's build tree, a package without tests is skipped.
cmake=$1
ctest=$2
build=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"
tap_scratch cmake
unset CMAKE_PREFIX_PATH
tap_detail() { tap_file "$tmp/out" -40; }
has() { grep -qF -- "$1" "$2"; }

tap_plan 15
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/out" 2>&1
check "cmake --install" test $? -eq 0
check "installs oxlConfig.cmake, its version file and oxlTests.cmake" \
    test -f "$tmp/prefix/lib/cmake/oxl/oxlConfig.cmake" -a -f "$tmp/prefix/lib/cmake/oxl/oxlConfigVersion.cmake" \
    -a -f "$tmp/prefix/lib/cmake/oxl/oxlTests.cmake"
cp -R "$here/proj" "$tmp/proj"

"$cmake" -S "$tmp/proj" -B "$tmp/b1" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/out" 2>&1
check "a project outside the tree configures with find_package(oxl)" test $? -eq 0
(cd "$tmp/b1" && "$ctest" --output-on-failure) >"$tmp/out" 2>&1
st=$?
check "its ctest passes with a passing package" test $st -eq 0
check "the passing package's test ran" grep -q "good_tests .*Passed" "$tmp/out"
check "a package without tests is a skipped ctest" grep -q "lib_tests .*Skipped" "$tmp/out"
check "the JUnit report is in the build tree" has '<testsuite name="' "$tmp/b1/good_tests.junit.xml"

"$cmake" -S "$tmp/proj" -B "$tmp/b2" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DWITH_BAD=ON >"$tmp/out" 2>&1
check "with the failing package: configures" test $? -eq 0
(cd "$tmp/b2" && "$ctest" --output-on-failure) >"$tmp/out" 2>&1
st=$?
check "a failing package gives a failing ctest" sh -c "[ $st -ne 0 ] && grep -q 'bad_tests .*Failed' '$tmp/out'"
check "its output names the lowest failing seed" has "seed 3 failed (3 of 10 seeds run)" "$tmp/out"
check "the failures file is kept in the build tree" has "3	fails at 3" "$tmp/b2/bad_tests.oxl-test-failures.txt"
check "and not in the sources" test ! -e "$tmp/proj/bad/oxl-test-failures.txt"
line=$(grep -m1 '^reproduce: ' "$tmp/out" | sed 's/^reproduce: //')
check "its reproduce line keeps the build tree's failures file" \
    sh -c "printf '%s\n' \"\$1\" | grep -qF -- \"--failures-file $tmp/b2/bad_tests.oxl-test-failures.txt\"" - "$line"
rm -f "$tmp/b2/bad_tests.oxl-test-failures.txt"
(cd "$tmp" && sh -c "$line") >"$tmp/out" 2>&1
check "pasted, it fails the seed again and writes the build tree's file, not the sources'" \
    sh -c "grep -q 'seed 3 failed' '$tmp/out' && grep -q '3	fails at 3' '$tmp/b2/bad_tests.oxl-test-failures.txt' &&
           [ ! -e '$tmp/proj/bad/oxl-test-failures.txt' ]"

sed 's/find_package(oxl 0.1 REQUIRED)/find_package(oxl 9.0 REQUIRED)/' "$here/proj/CMakeLists.txt" >"$tmp/proj/CMakeLists.txt"
"$cmake" -S "$tmp/proj" -B "$tmp/b3" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/out" 2>&1
st=$?
check "find_package(oxl 9.0) of an oxl 0.1: a configure error naming the version" \
    sh -c "[ $st -ne 0 ] && grep -q 'version: 0.1.0' '$tmp/out'"
tap_end
