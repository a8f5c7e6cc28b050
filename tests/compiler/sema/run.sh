#!/bin/sh
# run.sh OXL DIR: runs `OXL check` on every program under DIR/ok and DIR/err
# (a .oxl file, or a directory = a package) and compares its diagnostics
# with the expectations written in the sources (see README.md):
#   // error@COL: message substring      (also warning@COL:, note@COL:)
# on the line the diagnostic points at. Every expectation must be met by a
# diagnostic at that file, line and column whose message contains the
# substring, and every diagnostic must be expected. Programs under ok/ must
# give no diagnostic at all and exit 0; under err/, the exit status is 1
# when an error is expected and 0 otherwise. Prints TAP; exits 1 on any
# mismatch.
set -u
oxl=${1:?usage: run.sh OXL DIR}
dir=${2:?usage: run.sh OXL DIR}
if [ ! -x "$oxl" ]; then
  echo "Bail out! no oxl binary at $oxl"
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-sema.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

progs="$tmp/programs"
: >"$progs"
for kind in ok err; do
  for p in "$dir/$kind"/*; do
    case "$p" in
      *.oxl) [ -f "$p" ] && echo "$p" >>"$progs" ;;
      *) [ -d "$p" ] && echo "$p" >>"$progs" ;;
    esac
  done
done
total=$(wc -l <"$progs" | tr -d ' ')
echo "1..$total"
n=0
failed=0
while IFS= read -r p; do
  n=$((n + 1))
  rel=${p#"$dir"/}
  # expectations: "relpath<TAB>line<TAB>col<TAB>level<TAB>substring"
  if [ -d "$p" ]; then
    find "$p" -type f -name '*.oxl' | LC_ALL=C sort >"$tmp/files"
    base=$p/
  else
    echo "$p" >"$tmp/files"
    base=${p%/*}/
  fi
  : >"$tmp/expect"
  while IFS= read -r f; do
    awk -v rel="${f#"$base"}" '
      {
        line = $0
        while (match(line, /\/\/ (error|warning|note)@[0-9]+: /)) {
          tag = substr(line, RSTART + 3, RLENGTH - 5)
          rest = substr(line, RSTART + RLENGTH)
          at = index(tag, "@")
          level = substr(tag, 1, at - 1)
          col = substr(tag, at + 1)
          nxt = match(rest, /[ \t]*\/\/ (error|warning|note)@[0-9]+: /)
          msg = nxt ? substr(rest, 1, RSTART - 1) : rest
          sub(/[ \t]+$/, "", msg)
          printf "%s\t%d\t%d\t%s\t%s\n", rel, NR, col, level, msg
          line = nxt ? substr(rest, RSTART) : ""
        }
      }' "$f" >>"$tmp/expect"
  done <"$tmp/files"
  "$oxl" check "$p" >"$tmp/out" 2>&1 </dev/null
  rc=$?
  want_rc=0
  case "$rel" in
    err/*) if grep -q "	error	" "$tmp/expect"; then want_rc=1; fi ;;
    *) if [ -s "$tmp/expect" ]; then
         echo "not ok $n - $rel"
         echo "# a program under ok/ cannot expect diagnostics"
         failed=$((failed + 1))
         continue
       fi ;;
  esac
  awk -v want_rc="$want_rc" -v rc="$rc" -F '\t' '
    FILENAME == ARGV[1] {
      ne++; ef[ne] = $1; el[ne] = $2; ec[ne] = $3; elv[ne] = $4; em[ne] = $5; used[ne] = 0
      next
    }
    {
      line = $0
      if (match(line, /^oxl: (error|warning|note): /) || match(line, /internal compiler error/)) {
        bad[++nb] = "unexpected: " line
        next
      }
      if (!match(line, /^[^ \t]+:[0-9]+:[0-9]+: (error|warning|note): /)) next
      head = substr(line, 1, RLENGTH)
      msg = substr(line, RLENGTH + 1)
      # split "path:line:col: level: " from the right
      sub(/: $/, "", head)
      lv = head; sub(/^.*: /, "", lv)
      sub(/: [a-z]+$/, "", head)
      col = head; sub(/^.*:/, "", col)
      sub(/:[0-9]+$/, "", head)
      ln = head; sub(/^.*:/, "", ln)
      sub(/:[0-9]+$/, "", head)
      path = head
      found = 0
      for (i = 1; i <= ne; i++) {
        if (used[i] || el[i] != ln || ec[i] != col || elv[i] != lv) continue
        if (path != ef[i] && substr(path, length(path) - length(ef[i])) != "/" ef[i]) continue
        if (index(msg, em[i]) == 0) continue
        used[i] = 1; found = 1; break
      }
      if (!found) bad[++nb] = "unexpected: " line
    }
    END {
      for (i = 1; i <= ne; i++)
        if (!used[i]) bad[++nb] = sprintf("missing: %s:%s:%s: %s: %s", ef[i], el[i], ec[i], elv[i], em[i])
      if (rc != want_rc) bad[++nb] = sprintf("exit status %s, expected %s", rc, want_rc)
      for (i = 1; i <= nb; i++) print bad[i]
      exit nb > 0
    }' "$tmp/expect" "$tmp/out" >"$tmp/verdict"
  if [ $? -eq 0 ]; then
    echo "ok $n - $rel"
  else
    echo "not ok $n - $rel"
    sed 's/^/# /' "$tmp/verdict"
    echo "# --- oxl check output:"
    sed 's/^/#   /' "$tmp/out"
    failed=$((failed + 1))
  fi
done <"$progs"
echo "# $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
