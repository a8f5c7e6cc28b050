#!/bin/sh
# tests/runner/cli_help.sh: the help of every command against the driver's
# option table (compiler/driver/cli.c), as TAP. The table is read through
# oxl_docgen (the tool that prints the man page from it), so this test and
# the help cannot drift: every option of the table is listed by
# `oxl help CMD` and `oxl CMD --help` (the same text), is accepted by the
# command's parser (never `unknown option`), and is in the man page; an
# option outside the table is refused; -V is --version; the help block of
# docs/testing.md is the help, so the docs cannot drift either.
# usage: cli_help.sh <oxl> <oxl_docgen> <oxl.1>
oxl=$1 docgen=$2 manpage=$3
. "$(dirname "$0")/../lib.sh"
tap_scratch cli-help
mkdir "$tmp/empty"
# check_in DESC FILE CMD...: check, showing FILE when it fails
tap_detail() { tap_file "$shown"; }
check_in() { shown=$2; tap_d=$1; shift 2; check "$tap_d" "$@"; }

groff -man -Tascii "$manpage" 2>"$tmp/man.err" | sed 's/.\x08//g' >"$tmp/man.txt"
check_in "the man page renders without a warning" "$tmp/man.err" test ! -s "$tmp/man.err" -a -s "$tmp/man.txt"

for cmd in $("$docgen" commands); do
    "$oxl" help "$cmd" >"$tmp/help" 2>&1; st=$?
    check_in "oxl help $cmd: status 0" "$tmp/help" test "$st" -eq 0
    check_in "oxl help $cmd: its usage line" "$tmp/help" grep -q "^usage: oxl $cmd" "$tmp/help"
    if [ "$cmd" != help ]; then
        for h in --help -h; do
            (cd "$tmp/empty" && "$oxl" "$cmd" $h) >"$tmp/help2" 2>&1
            check_in "oxl $cmd $h is oxl help $cmd" "$tmp/help2" cmp -s "$tmp/help" "$tmp/help2"
        done
    fi
    "$docgen" options "$cmd" >"$tmp/opts"
    while read -r spells; do
        value=
        case $spells in *' ='*) value=x; spells=${spells% =*} ;; esac
        for s in $spells; do
            check_in "oxl help $cmd lists $s" "$tmp/help" grep -qF -- " $s" "$tmp/help"
            check_in "the man page lists $cmd $s" "$tmp/man.txt" grep -qF -- "$s" "$tmp/man.txt"
            if [ "$cmd" = help ]; then continue; fi
            if [ -n "$value" ]; then
                (cd "$tmp/empty" && timeout 60 "$oxl" "$cmd" "$s" "$value") >"$tmp/out" 2>&1
            else
                (cd "$tmp/empty" && timeout 60 "$oxl" "$cmd" "$s") >"$tmp/out" 2>&1
            fi
            check_in "oxl $cmd accepts $s" "$tmp/out" sh -c "! grep -q 'unknown option' '$tmp/out'"
        done
    done <"$tmp/opts"
    if [ "$cmd" != help ] && [ "$cmd" != version ]; then
        (cd "$tmp/empty" && "$oxl" "$cmd" --no-such-option) >"$tmp/out" 2>&1; st=$?
        check_in "oxl $cmd refuses an option outside the table (status 2)" "$tmp/out" test "$st" -eq 2
        check_in "naming it and the command" "$tmp/out" grep -qF "unknown option '--no-such-option' for 'oxl $cmd'" "$tmp/out"
    fi
done

# docs/testing.md shows `oxl help test` under "## Options": the first
# fenced block of that section must be the help as printed, byte for byte
doc="$(dirname "$0")/../../docs/testing.md"
awk '/^## Options$/ { s = 1; next } s && /^## / { exit } s && /^```$/ { if (in_block) exit; in_block = 1; next } in_block' \
    "$doc" >"$tmp/doc-help"
"$oxl" help test >"$tmp/help" 2>&1
diff "$tmp/doc-help" "$tmp/help" >"$tmp/doc-diff" 2>&1
check_in "docs/testing.md's Options block is oxl help test (regenerate it from the help)" "$tmp/doc-diff" \
    test -s "$tmp/doc-help" -a ! -s "$tmp/doc-diff"
# and its options table has a row for every option of the driver's table
awk '/^## Options$/ { s = 1; next } s && /^## / { exit } s && /^\| `/' "$doc" >"$tmp/doc-rows"
: >"$tmp/doc-missing"
for o in $("$docgen" options test | sed 's/ =.*//'); do
    grep -qF -- "\`$o" "$tmp/doc-rows" || echo "no row for $o" >>"$tmp/doc-missing"
done
check_in "docs/testing.md's options table has a row for every option of oxl test" "$tmp/doc-missing" \
    test -s "$tmp/doc-rows" -a ! -s "$tmp/doc-missing"

"$oxl" -V >"$tmp/v1" 2>&1; st=$?
"$oxl" --version >"$tmp/v2" 2>&1
check_in "oxl -V: status 0" "$tmp/v1" test "$st" -eq 0
check_in "oxl -V is oxl --version" "$tmp/v1" cmp -s "$tmp/v1" "$tmp/v2"
check_in "and says the version" "$tmp/v1" grep -q '^oxl [0-9]' "$tmp/v1"
"$oxl" help nosuch >"$tmp/out" 2>&1; st=$?
check_in "oxl help of no command: status 2" "$tmp/out" test "$st" -eq 2
check_in "naming it" "$tmp/out" grep -qF "no command 'nosuch'" "$tmp/out"
"$oxl" --bogus >"$tmp/out" 2>&1; st=$?
check_in "oxl --bogus: status 2, named" "$tmp/out" grep -qF "unknown option '--bogus' for 'oxl'" "$tmp/out"
"$oxl" help >"$tmp/out" 2>&1
for cmd in $("$docgen" commands); do
    check_in "oxl help names $cmd" "$tmp/out" grep -q "^  $cmd " "$tmp/out"
done
bash -n "$(dirname "$manpage")/../../bash-completion/completions/oxl" >"$tmp/out" 2>&1
check_in "the bash completion parses" "$tmp/out" test $? -eq 0
out=$(bash -c ". '$(dirname "$manpage")/../../bash-completion/completions/oxl'; COMP_WORDS=(oxl test --fo); COMP_CWORD=2; _oxl; echo \"\${COMPREPLY[*]}\"")
check_in "it completes oxl test --fo to --format" /dev/null test "$out" = "--format"
out=$(bash -c ". '$(dirname "$manpage")/../../bash-completion/completions/oxl'; COMP_WORDS=(oxl test --format ''); COMP_CWORD=3; _oxl; echo \"\${COMPREPLY[*]}\"")
check_in "and --format's values" /dev/null test "$out" = "human tap json github"
zfile="$(dirname "$manpage")/../../zsh/site-functions/_oxl"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$zfile" >"$tmp/out" 2>&1
    check_in "the zsh completion parses" "$tmp/out" test $? -eq 0
else
    i=$((i + 1)); echo "ok $i # SKIP zsh is not installed"
fi
check_in "the zsh completion has every option of oxl test" /dev/null \
    sh -c "for o in \$('$docgen' options test | sed 's/ =.*//'); do grep -qF -- \"'\$o\" '$zfile' || exit 1; done"
tap_end
