#!/bin/sh
# tests/runner/progress_tmux.sh: the progress line in real terminals, as
# TAP: `oxl test` runs in tmux panes 50 and 120 columns wide; while it
# runs, the progress line (with its ETA) never passes the pane's width, a
# long name is shortened to fit, and it is gone when the run ends; under
# TERM=dumb no cursor control is written at all. The lines drawn are read
# from every byte the pane got (sampling its screen misses redraws on a
# loaded machine); the screen is read only at the end. Skips only when
# tmux cannot be had. usage: progress_tmux.sh <oxl>
oxl=$1
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed (tools/deps installs it)"
    exit 0
fi
. "$(dirname "$0")/../lib.sh"
tap_scratch progress
sock="$tmp/tmux.sock"
tap_at_exit() { tmux -S "$sock" kill-server >/dev/null 2>&1; }
mkdir "$tmp/pkg"
# enough seeds, each a little work, that the run lasts a second or more
# even on a fast machine (an ETA is drawn from 0.2 s on)
cat >"$tmp/pkg/slow.oxl" <<'OXL'
use std.test { sim }
use std.time { sleep }

test sim "a sim test with a name long enough that fifty columns cannot hold it" seeds 1..=400 {
  var n = 0
  for i in 0..200000 {
    n = n + i % 7
  }
  sleep(1ms)
  assert n > 0
}

test sim "分散システムの決定論的シミュレーションは同じシードで同じ実行を再現し失敗した種を最小の手順まで縮める" seeds 1..=300 {
  var n = 0
  for i in 0..200000 {
    n = n + i % 7
  }
  sleep(1ms)
  assert n > 0
}
OXL
# build the test binary first, so the panes time the run alone
"$oxl" test "$tmp/pkg" --list >"$tmp/out" 2>&1 || { echo "1..0 # SKIP the package does not build: $(head -3 "$tmp/out")"; exit 0; }
tap_detail() { tap_file "$tmp/show"; }

# pane WIDTH NAME TERM [FILTER]: runs oxl test (-f FILTER, by default the
# ASCII-named test) in a WIDTH-column pane, once the
# pane's bytes are piped into $tmp/NAME.raw; every progress line drawn
# (from those bytes, escapes removed) into $tmp/NAME.drawn, the last
# screen into $tmp/NAME.final
pane() {
    w=$1 name=$2 term=$3 filter=${4:-fifty columns}
    rm -f "$tmp/$name.done" "$tmp/$name.go"
    if ! tmux -S "$sock" new-session -d -s "$name" -x "$w" -y 20 \
        "while [ ! -f '$tmp/$name.go' ]; do sleep 0.05; done; TERM=$term '$oxl' test '$tmp/pkg' -j 1 -f '$filter'; echo \$? >'$tmp/$name.done'; sleep 60" \
        2>"$tmp/$name.final"; then
        # no pane: its checks fail at once, the error shown as its screen
        : >"$tmp/$name.raw"
        : >"$tmp/$name.drawn"
        return
    fi
    tmux -S "$sock" pipe-pane -t "$name" -o "cat >'$tmp/$name.raw'"
    touch "$tmp/$name.go"
    k=0
    while [ ! -f "$tmp/$name.done" ] && [ $k -lt 1200 ]; do
        sleep 0.05
        k=$((k + 1))
    done
    sleep 0.2
    tmux -S "$sock" capture-pane -p -J -t "$name" >"$tmp/$name.final"
    tmux -S "$sock" kill-session -t "$name" >/dev/null 2>&1
    tr '\r' '\n' <"$tmp/$name.raw" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | grep 'done, ' | sort -u >"$tmp/$name.drawn"
}
# the widest line of a file, in the columns a terminal draws (Python's
# East Asian Width: W and F are two columns, combining marks none)
widest() {
    python3 -c 'import sys, unicodedata as u
w = lambda c: 0 if u.combining(c) else 2 if u.east_asian_width(c) in "WF" else 1
print(max([sum(map(w, l.rstrip("\n"))) for l in open(sys.argv[1], encoding="utf-8", errors="replace")] or [0]))' "$1"
}

# The first session keeps the server up for the whole test: a server
# exits with its last session, and a new-session sent while it is exiting
# fails ("server exited unexpectedly"), as it did on a loaded machine when
# every pane's session was the only one.
if ! tmux -S "$sock" new-session -d -s keep -x 50 -y 5 "sleep 3600" 2>"$tmp/show"; then
    echo "1..0 # SKIP tmux cannot start a server here: $(head -1 "$tmp/show")"
    exit 0
fi

for w in 50 120; do
    pane "$w" "w$w" xterm
    cp "$tmp/w$w.drawn" "$tmp/show"
    check "$w columns: the progress line is drawn while it runs" test -s "$tmp/show"
    check "$w columns: it fits (widest $(widest "$tmp/show"))" test "$(widest "$tmp/show")" -lt "$w"
    check "$w columns: with a rate and an ETA" grep -qE '[0-9]+/s, ETA [0-9]' "$tmp/show"
    cp "$tmp/w$w.final" "$tmp/show"
    check "$w columns: the run passed" test "$(cat "$tmp/w$w.done" 2>/dev/null)" = 0
    check "$w columns: the progress line is gone at the end" sh -c "! grep -q 'done, ' '$tmp/w$w.final'"
    check "$w columns: the summary stays" grep -q '^test result: ok' "$tmp/w$w.final"
done
cp "$tmp/w50.drawn" "$tmp/show"
# as much of the name as the counts leave room for, then ...
check "50 columns: the long name is shortened (...)" grep -q '^sim[^:]*\.\.\.: [0-9]*/400 done' "$tmp/show"
cp "$tmp/w120.drawn" "$tmp/show"
check "120 columns: the whole name fits" grep -qF 'sim a sim test with a name long enough that fifty columns cannot hold it: ' "$tmp/show"

# a name of CJK characters, two columns each: cut to the columns, not the
# characters (counted as one each, it would run past the pane)
for w in 50 120; do
    pane "$w" "cjk$w" xterm "分散システム"
    cp "$tmp/cjk$w.drawn" "$tmp/show"
    check "$w columns, a CJK name: the progress line is drawn" test -s "$tmp/show"
    check "$w columns, a CJK name: it fits in display columns (widest $(widest "$tmp/show"))" test "$(widest "$tmp/show")" -lt "$w"
done
check "120 columns, a CJK name: as much of it as fits, then ..." grep -q '^sim 分散システムの決定論的.*\.\.\.: [0-9]*/300 done' "$tmp/show"

pane 120 dumb dumb
cp "$tmp/dumb.final" "$tmp/show"
check "TERM=dumb: the run passed" test "$(cat "$tmp/dumb.done" 2>/dev/null)" = 0
check "TERM=dumb: the report is there" grep -q '^test result: ok' "$tmp/dumb.final"
check "TERM=dumb: no progress line" sh -c "! test -s '$tmp/dumb.drawn'"
check "TERM=dumb: no erase-line escape in the bytes written" sh -c "test -s '$tmp/dumb.raw' && ! grep -q \"\$(printf '\\033\\\\[K')\" '$tmp/dumb.raw'"
tap_end
