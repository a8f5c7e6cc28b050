#!/bin/sh
# run.sh <oxl> <docs-dir>: every OxL example in the docs compiles, as TAP.
# A fenced block opened with ```oxl is a whole file: `oxl check` must pass
# it (warnings allowed), and `oxl build` must compile it through code
# generation and link it, so an example that sema accepts and codegen
# refuses fails too: a block with `fn main()` is built as a program, one
# with `test` blocks with --tests as a test binary (both when it has
# both), and one with neither with --tests too (a test binary of no test
# still generates every function of the package). A block opened with
# ```oxl error is deliberately wrong: `oxl check` must refuse it, and each
# `// error: text` comment in it must be the text of one of its errors. A
# fence may be indented (in a list item): its lines lose that indentation.
# Any other fence (```ebnf, ```c, a bare ```) is not OxL and is not
# checked. Each block is checked as a one-file package of its own, named
# after the document and line.
oxl=$1
docs=$2
case $oxl in
/*) ;;
*/*) oxl=$(pwd)/$oxl ;; # each block is checked from its own directory
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-docs-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# blocks/<n>/main.oxl with blocks/<n>/where ("file.md:line") and .../kind
for md in "$docs"/*.md; do
    awk -v out="$tmp/blocks" -v doc="$(basename "$md")" '
        BEGIN { n = 0 }
        !inb && /^[ \t]*```oxl( error)?[ \t]*$/ {
            inb = 1; n++
            match($0, /^[ \t]*/); indent = RLENGTH    # a fence inside a list item
            dir = out "/" doc "." FNR
            system("mkdir -p \"" dir "\"")
            print doc ":" FNR > (dir "/where")
            print ($0 ~ /error/ ? "error" : "ok") > (dir "/kind")
            close(dir "/where"); close(dir "/kind")
            file = dir "/main.oxl"
            printf "" > file
            next
        }
        inb && /^[ \t]*```[ \t]*$/ { inb = 0; close(file); next }
        inb { print substr($0, indent + 1) > file }
    ' "$md"
done
count=$(ls "$tmp/blocks" 2>/dev/null | wc -l)
if [ "$count" -eq 0 ]; then
    echo "1..0 # no oxl block found in $docs: the extraction is broken"
    exit 1
fi
echo "1..$count"
i=0
failed=0
for dir in "$tmp"/blocks/*/; do
    [ -d "$dir" ] || continue
    i=$((i + 1))
    where=$(cat "$dir/where")
    kind=$(cat "$dir/kind")
    (cd "$dir" && "$oxl" check main.oxl) >"$dir/out" 2>&1
    status=$?
    why=""
    if [ "$kind" = ok ] && [ "$status" != 0 ]; then
        why="oxl check exits $status"
    elif [ "$kind" = ok ]; then
        has_main=no
        has_tests=no
        grep -q '^fn main()' "$dir/main.oxl" && has_main=yes
        grep -q '^test ' "$dir/main.oxl" && has_tests=yes
        if [ "$has_main" = yes ]; then
            (cd "$dir" && "$oxl" build main.oxl -o prog) >>"$dir/out" 2>&1 || why="oxl build exits $?"
        fi
        if [ -z "$why" ] && { [ "$has_tests" = yes ] || [ "$has_main" = no ]; }; then
            (cd "$dir" && "$oxl" build main.oxl --tests -o prog.test) >>"$dir/out" 2>&1 ||
                why="oxl build --tests exits $?"
        fi
    elif [ "$kind" = error ] && [ "$status" != 1 ]; then
        why="a block marked error: oxl check exits $status, expected 1"
    elif [ "$kind" = error ]; then
        grep -o '// error: .*' "$dir/main.oxl" | sed 's|^// error: ||' >"$dir/want"
        while IFS= read -r want; do
            grep -F ": error: $want" "$dir/out" >/dev/null || why="no error says: $want"
        done <"$dir/want"
    fi
    if [ -z "$why" ]; then
        echo "ok $i - $where ($kind)"
    else
        failed=$((failed + 1))
        echo "not ok $i - $where ($kind): $why"
        sed 's/^/# /' "$dir/out" | head -20
    fi
done
[ "$failed" -eq 0 ]
