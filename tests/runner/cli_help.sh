#!/bin/sh
# tests/runner/cli_help.sh: the help of every command against the driver's
# option table (compiler/driver/cli.c), as TAP. The table is read through
# oxl_docgen (the tool that prints the man page from it), so this test and
# the help cannot drift: every option of the table is listed by
# `oxl help CMD` and `oxl CMD --help` (the same text), is accepted by the
# command's parser (never `unknown option`), and is in the man page; an
# option outside the table is refused; -V is --version.
# usage: cli_help.sh <oxl> <oxl_docgen> <oxl.1>
oxl=$1 docgen=$2 manpage=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-cli-help-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export OXL_CACHE_DIR="$tmp/cache"
mkdir "$tmp/empty"
i=0 failed=0
ok() { i=$((i + 1)); echo "ok $i - $1"; }
not_ok() { i=$((i + 1)); failed=$((failed + 1)); echo "not ok $i - $1"; [ -n "$2" ] && sed 's/^/# /' "$2" | head -20; }
check() { d=$1; f=$2; shift 2; if "$@"; then ok "$d"; else not_ok "$d" "$f"; fi; }

groff -man -Tascii "$manpage" 2>"$tmp/man.err" | sed 's/.\x08//g' >"$tmp/man.txt"
check "the man page renders without a warning" "$tmp/man.err" test ! -s "$tmp/man.err" -a -s "$tmp/man.txt"

for cmd in $("$docgen" commands); do
    "$oxl" help "$cmd" >"$tmp/help" 2>&1; st=$?
    check "oxl help $cmd: status 0" "$tmp/help" test "$st" -eq 0
    check "oxl help $cmd: its usage line" "$tmp/help" grep -q "^usage: oxl $cmd" "$tmp/help"
    if [ "$cmd" != help ]; then
        for h in --help -h; do
            (cd "$tmp/empty" && "$oxl" "$cmd" $h) >"$tmp/help2" 2>&1
            check "oxl $cmd $h is oxl help $cmd" "$tmp/help2" cmp -s "$tmp/help" "$tmp/help2"
        done
    fi
    "$docgen" options "$cmd" >"$tmp/opts"
    while read -r spells; do
        value=
        case $spells in *' ='*) value=x; spells=${spells% =*} ;; esac
        for s in $spells; do
            check "oxl help $cmd lists $s" "$tmp/help" grep -qF -- " $s" "$tmp/help"
            check "the man page lists $cmd $s" "$tmp/man.txt" grep -qF -- "$s" "$tmp/man.txt"
            if [ "$cmd" = help ]; then continue; fi
            if [ -n "$value" ]; then
                (cd "$tmp/empty" && timeout 60 "$oxl" "$cmd" "$s" "$value") >"$tmp/out" 2>&1
            else
                (cd "$tmp/empty" && timeout 60 "$oxl" "$cmd" "$s") >"$tmp/out" 2>&1
            fi
            check "oxl $cmd accepts $s" "$tmp/out" sh -c "! grep -q 'unknown option' '$tmp/out'"
        done
    done <"$tmp/opts"
    if [ "$cmd" != help ] && [ "$cmd" != version ]; then
        (cd "$tmp/empty" && "$oxl" "$cmd" --no-such-option) >"$tmp/out" 2>&1; st=$?
        check "oxl $cmd refuses an option outside the table (status 2)" "$tmp/out" test "$st" -eq 2
        check "naming it and the command" "$tmp/out" grep -qF "unknown option '--no-such-option' for 'oxl $cmd'" "$tmp/out"
    fi
done

"$oxl" -V >"$tmp/v1" 2>&1; st=$?
"$oxl" --version >"$tmp/v2" 2>&1
check "oxl -V: status 0" "$tmp/v1" test "$st" -eq 0
check "oxl -V is oxl --version" "$tmp/v1" cmp -s "$tmp/v1" "$tmp/v2"
check "and says the version" "$tmp/v1" grep -q '^oxl [0-9]' "$tmp/v1"
"$oxl" help nosuch >"$tmp/out" 2>&1; st=$?
check "oxl help of no command: status 2" "$tmp/out" test "$st" -eq 2
check "naming it" "$tmp/out" grep -qF "no command 'nosuch'" "$tmp/out"
"$oxl" --bogus >"$tmp/out" 2>&1; st=$?
check "oxl --bogus: status 2, named" "$tmp/out" grep -qF "unknown option '--bogus' for 'oxl'" "$tmp/out"
"$oxl" help >"$tmp/out" 2>&1
for cmd in $("$docgen" commands); do
    check "oxl help names $cmd" "$tmp/out" grep -q "^  $cmd " "$tmp/out"
done
bash -n "$(dirname "$manpage")/../../bash-completion/completions/oxl" >"$tmp/out" 2>&1
check "the bash completion parses" "$tmp/out" test $? -eq 0
out=$(bash -c ". '$(dirname "$manpage")/../../bash-completion/completions/oxl'; COMP_WORDS=(oxl test --fo); COMP_CWORD=2; _oxl; echo \"\${COMPREPLY[*]}\"")
check "it completes oxl test --fo to --format" /dev/null test "$out" = "--format"
out=$(bash -c ". '$(dirname "$manpage")/../../bash-completion/completions/oxl'; COMP_WORDS=(oxl test --format ''); COMP_CWORD=3; _oxl; echo \"\${COMPREPLY[*]}\"")
check "and --format's values" /dev/null test "$out" = "human tap json github"
zfile="$(dirname "$manpage")/../../zsh/site-functions/_oxl"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$zfile" >"$tmp/out" 2>&1
    check "the zsh completion parses" "$tmp/out" test $? -eq 0
else
    i=$((i + 1)); echo "ok $i # SKIP zsh is not installed"
fi
check "the zsh completion has every option of oxl test" /dev/null \
    sh -c "for o in \$('$docgen' options test | sed 's/ =.*//'); do grep -qF -- \"'\$o\" '$zfile' || exit 1; done"
echo "1..$i"
[ "$failed" -eq 0 ]
