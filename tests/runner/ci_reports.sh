#!/bin/sh
# tests/runner/ci_reports.sh: what CI servers read of `oxl test`, as TAP.
#   junit:  the --junit report validates against tests/runner/junit.xsd
#           (the structure of Jenkins xunit's junit-10.xsd with the
#           testcase's file and line GitLab and the GitHub reporters read),
#           and without those two against junit-10's own testcase;
#           classname is the package, name the test's, file relative to the
#           current directory (whatever the package was named as), line
#           its own attribute, the seed range a property of the suite
#           named after the test, the failure's message the panic's text
#           and its body the seed line and the reproduce line.
#   github: --format github and GITHUB_ACTIONS=true print one
#           `::error file=F,line=L,...::message` per failure, with %, CR, LF
#           (and in properties , and :) escaped; the JSON failure event has
#           file, line and column.
# usage: ci_reports.sh <oxl> <junit.xsd> junit|github
oxl=$1 xsd=$2 what=$3
. "$(dirname "$0")/../lib.sh"
tap_scratch ci-reports
mkdir -p "$tmp/shop"
cat >"$tmp/shop/cart.oxl" <<'OXL'
use std.test { sim }

test "adds" {
  assert 1 + 1 == 2
}

test sim "checkout, 100%: every seed" seeds 1..=8 {
  let s = sim.seed()
  assert s != 5, "seed {s} took 50% off\ntwice"
}

test "a unit test that fails" {
  assert 2 + 2 == 5
}
OXL
tap_detail() { tap_file "$tmp/show" 30; }
xpath() { xmllint --xpath "$1" "$2" 2>/dev/null; }

case $what in
junit)
    if ! command -v xmllint >/dev/null 2>&1; then echo "1..0 # SKIP xmllint (libxml2-utils) is not installed"; exit 0; fi
    (cd "$tmp" && "$oxl" test shop --no-fail-fast --junit "$tmp/a.xml" >"$tmp/out" 2>&1)
    cp "$tmp/a.xml" "$tmp/show" 2>/dev/null
    xmllint --noout --schema "$xsd" "$tmp/a.xml" >"$tmp/show" 2>&1
    check "the report validates against the JUnit schema" test $? -eq 0
    cp "$tmp/a.xml" "$tmp/show"
    check "three testcases, the package their classname" \
        test "$(xpath 'count(//testcase[@classname="shop"])' "$tmp/a.xml")" = 3
    check "the testsuite is the package" test "$(xpath 'string(//testsuite/@name)' "$tmp/a.xml")" = shop
    tc='//testcase[@name="checkout, 100%: every seed"]'
    check "the sim test's name is the testcase's" test "$(xpath "count($tc)" "$tmp/a.xml")" = 1
    check "file is relative to the current directory" test "$(xpath "string($tc/@file)" "$tmp/a.xml")" = shop/cart.oxl
    check "and names a file there" test -f "$tmp/$(xpath "string($tc/@file)" "$tmp/a.xml")"
    check "line is its own attribute" test "$(xpath "string($tc/@line)" "$tmp/a.xml")" = 7
    check "the seed range is a property of the suite, named after the test" \
        test "$(xpath "string(//testsuite/properties/property[@name='seeds:checkout, 100%: every seed']/@value)" "$tmp/a.xml")" = 1..8
    k=$(xpath "string(//testsuite/properties/property[@name='kind:checkout, 100%: every seed']/@value)" "$tmp/a.xml")
    f=$(xpath "string(//testsuite/properties/property[@name='failed_seed:checkout, 100%: every seed']/@value)" "$tmp/a.xml")
    check "its kind and failing seed too ($k, $f)" test "$k-$f" = sim-5
    check "no properties inside a testcase (junit-10 has none there)" test "$(xpath 'count(//testcase/properties)' "$tmp/a.xml")" = 0
    check "no skipped count on testsuites (junit-10 has none there); each suite has its own" \
        sh -c "[ -z \"\$(xmllint --xpath 'string(/testsuites/@skipped)' '$tmp/a.xml' 2>/dev/null)\" ] && [ \"\$(xmllint --xpath 'string(//testsuite/@skipped)' '$tmp/a.xml' 2>/dev/null)\" = 0 ]"
    # junit-10's own testcase has neither file nor line: the schema without
    # the two (the lines after "the addition"), and the report without
    # them, as docs/testing.md says to hand it to the xunit plugin
    sed '/the addition: where the test is/,/name="line"/d' "$xsd" >"$tmp/strict.xsd"
    sed -e 's/ file="[^"]*"//; s/ line="[0-9]*"//' "$tmp/a.xml" >"$tmp/strict.xml"
    xmllint --noout --schema "$tmp/strict.xsd" "$tmp/strict.xml" >"$tmp/show" 2>&1
    check "without file and line, the report is valid against junit-10's testcase" \
        sh -c "[ \$(grep -c 'name=\"file\"' '$tmp/strict.xsd') -eq 1 ] && xmllint --noout --schema '$tmp/strict.xsd' '$tmp/strict.xml'"
    xmllint --noout --schema "$tmp/strict.xsd" "$tmp/a.xml" >"$tmp/show" 2>&1
    check "and with them it is not (file and line are the one addition)" sh -c "! xmllint --noout --schema '$tmp/strict.xsd' '$tmp/a.xml' 2>/dev/null"
    check "the failure's message is the assertion's text" \
        test "$(xpath "string($tc/failure/@message)" "$tmp/a.xml")" = "assertion failed: s != 5: seed 5 took 50% off
twice"
    xpath "string($tc/failure)" "$tmp/a.xml" >"$tmp/body"
    cp "$tmp/body" "$tmp/show"
    check "its body has the seed line" grep -qF 'seed 5 failed (5 of 8 seeds run)' "$tmp/body"
    check "the assertion's place" grep -qxF 'at shop/cart.oxl:9' "$tmp/body"
    check "and the reproduce line" grep -qF "reproduce: $oxl test shop --exact 'checkout, 100%: every seed' --seed 5" "$tmp/body"
    check "a unit test's failure message too" \
        test "$(xpath 'string(//testcase[@name="a unit test that fails"]/failure/@message)' "$tmp/a.xml")" = \
        "assertion failed: 2 + 2 == 5"
    # the package named absolutely, and from inside it
    (cd "$tmp" && "$oxl" test "$tmp/shop" --kind unit --junit "$tmp/b.xml" >/dev/null 2>&1)
    check "an absolute package inside the current directory: still relative" \
        test "$(xpath 'string(//testcase[@name="adds"]/@file)' "$tmp/b.xml")" = shop/cart.oxl
    (cd "$tmp/shop" && "$oxl" test --kind unit --junit "$tmp/c.xml" >/dev/null 2>&1)
    check "from inside the package: the file's own name" \
        test "$(xpath 'string(//testcase[@name="adds"]/@file)' "$tmp/c.xml")" = cart.oxl
    check "and the classname is still the package's" \
        test "$(xpath 'string(//testcase[@name="adds"]/@classname)' "$tmp/c.xml")" = shop
    xmllint --noout --schema "$xsd" "$tmp/b.xml" "$tmp/c.xml" >"$tmp/show" 2>&1
    check "both validate" test $? -eq 0
    ;;
github)
    (cd "$tmp" && "$oxl" test shop --no-fail-fast --format github >"$tmp/out" 2>&1); st=$?
    cp "$tmp/out" "$tmp/show"
    check "--format github: status 1" test "$st" -eq 1
    check "the human report is there" grep -q '^test result: FAILED' "$tmp/out"
    check "one ::error per failure" test "$(grep -c '^::error ' "$tmp/out")" -eq 2
    want='::error file=shop/cart.oxl,line=9,title=sim checkout%2C 100%25%3A every seed::assertion failed: s != 5: seed 5 took 50%25 off%0Atwice%0Aseed 5 failed (5 of 8 seeds run)%0Areproduce: '"$oxl"' test shop --exact '"'checkout, 100%25: every seed'"' --seed 5'
    check "at the assertion's line, %, LF, ',' and ':' escaped" grep -qxF "$want" "$tmp/out"
    check "a unit test's at its assertion" grep -q '^::error file=shop/cart.oxl,line=13,title=unit a unit test that fails::assertion failed: 2 + 2 == 5%0A' "$tmp/out"
    rm -f "$tmp/shop/oxl-test-failures.txt" # the same run again: no replayed seed first
    (cd "$tmp" && GITHUB_ACTIONS=true "$oxl" test shop --no-fail-fast >"$tmp/gha" 2>&1)
    cp "$tmp/gha" "$tmp/show"
    check "GITHUB_ACTIONS=true: the same annotations in the human report" \
        test "$(grep '^::error' "$tmp/gha")" = "$(grep '^::error' "$tmp/out")"
    (cd "$tmp" && GITHUB_ACTIONS=true "$oxl" test shop --no-fail-fast --format tap >"$tmp/tap" 2>&1)
    cp "$tmp/tap" "$tmp/show"
    check "but not in another format's stream" sh -c "! grep -q '::error' '$tmp/tap'"
    (cd "$tmp" && "$oxl" test shop --no-fail-fast >"$tmp/human" 2>&1)
    check "nor in the human report elsewhere" sh -c "! grep -q '::error' '$tmp/human'"
    (cd "$tmp" && "$oxl" test shop --no-fail-fast --format json >"$tmp/json" 2>&1)
    grep '"event":"test".*checkout' "$tmp/json" >"$tmp/show"
    check "the JSON failure event has file and line" grep -qF '"file":"shop/cart.oxl","line":9,"column":null' "$tmp/show"
    check "and the panic's text" grep -qF '"panic":"assertion failed: s != 5: seed 5 took 50% off\ntwice"' "$tmp/show"
    ;;
*) echo "usage: ci_reports.sh <oxl> <junit.xsd> junit|github" >&2; exit 2 ;;
esac
tap_end
