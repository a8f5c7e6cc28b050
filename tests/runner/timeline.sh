#!/bin/sh
# tests/runner/timeline.sh: `oxl test --timeline` end to end, as TAP: the
# page of a failing seed of examples/shop_planted_bug (six nodes, calls,
# dropped and duplicated messages, partitions, a crash and a restart) and
# of a passing seed, each opened in headless Chromium, whose DOM dump must
# hold what the script draws (lanes, tasks, arrows, faults, the failure or
# the pass at the end); a screenshot of the failing one is saved.
# usage: timeline.sh <oxl executable> <source dir> <screenshot.png>
# Without chromium (tools/deps installs it) the test is skipped: exit 77.
oxl=$1
src=$2
shot=$3
. "$(dirname "$0")/../lib.sh"
oxl=$(tap_abs "$oxl")
# PATH finds this oxl first, so the page's reproduce line says `oxl test ...`
PATH="$(dirname "$oxl"):$PATH"
export PATH
chromium=$(command -v chromium || command -v chromium-browser)
if [ -z "$chromium" ]; then
    echo "1..0 # SKIP chromium is not installed (tools/deps installs it)"
    exit 77
fi
tap_scratch timeline
cp -r "$src/examples/shop_planted_bug" "$tmp/shop"
cp -r "$src/tests/runner/pkg" "$tmp/pkg"
tap_detail() { tap_file "$tmp/err" -20 err; }
# count PATTERN FILE: how many times the extended regex occurs
count() { grep -oE -- "$1" "$2" | wc -l; }
at_least() { [ "$(count "$1" "$2")" -ge "$3" ]; }
# the browser: a profile of its own, no sandbox as root, no GPU
browse() {
    if [ "$(id -u)" -eq 0 ]; then nosandbox=--no-sandbox; else nosandbox=; fi
    timeout 120 "$chromium" --headless $nosandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
        --hide-scrollbars "$@" 2>>"$tmp/chromium.log"
}

tap_plan 28

name='no order charged twice, no stock lost'
# from the scratch directory: the page's reproduce line names `shop`
(cd "$tmp" && exec "$oxl" test shop --exact "$name" --seed 13 --timeline shop.html) >"$tmp/out" 2>"$tmp/err"
st=$?
check "the failing seed: status 1" test "$st" -eq 1
check "the page is written" test -s "$tmp/shop.html"
check "it says so" grep -qF "timeline of seed 13 (panicked, 565 events, 6 nodes) written to shop.html" "$tmp/err"
check "the reproduce line in the page" grep -qF "<code>oxl test shop --exact 'no order charged twice, no stock lost' --seed 13</code>" "$tmp/shop.html"
# (the one address in it is the SVG namespace, a name, never loaded)
check "self-contained: no external script, sheet, image, frame or address" sh -c \
    "! grep -qiE '<(script|img|iframe)[^>]* src=|<link[^>]*href=|@import|url\\((https?:|//)' '$tmp/shop.html' &&
     ! grep -oE 'https?://[^\\\"]*' '$tmp/shop.html' | grep -vqx 'http://www.w3.org/2000/svg'"

browse --dump-dom "file://$tmp/shop.html" >"$tmp/shop.dom"
check "the script ran in the browser" grep -qF 'data-rendered="yes"' "$tmp/shop.dom"
check "a lane per node (6) and one for the test" test "$(count 'class="lane"' "$tmp/shop.dom")" -eq 6 -a \
    "$(count 'class="lane world"' "$tmp/shop.dom")" -eq 1
check "the lanes are the nodes" sh -c "for n in api-0 storage-0 saga-0 saga-1 gpu-0 ml-0; do grep -qF \"data-node=\\\"\$n\\\"\" '$tmp/shop.dom' || exit 1; done"
check "tasks as spans" at_least 'class="task( alive)?"' "$tmp/shop.dom" 20
check "messages as arrows" at_least 'class="msg"' "$tmp/shop.dom" 50
check "dropped messages marked" at_least 'class="msg dropped' "$tmp/shop.dom" 1
check "duplicates shown" at_least 'class="msg( dropped)? duplicate' "$tmp/shop.dom" 1
check "partitions shaded" at_least 'class="partition"' "$tmp/shop.dom" 1
check "a crash marked, and the node down until its restart" sh -c \
    "grep -qF 'class=\"mark crash\"' '$tmp/shop.dom' && grep -qF 'class=\"down\"' '$tmp/shop.dom' && grep -qF 'class=\"mark restart\"' '$tmp/shop.dom'"
check "the failure at the end, with its message" sh -c \
    "grep -qF 'id=\"failure\"' '$tmp/shop.dom' && grep -qF 'an order charged twice' '$tmp/shop.dom'"
check "hover details on the arrows" grep -qE 'data-info="message api-0 -&gt; storage-0 \([0-9]+ bytes\), sent at' "$tmp/shop.dom"
check "a task's spawn site in its details" grep -qE 'spawned at [a-z_]+\.oxl:[0-9]+' "$tmp/shop.dom"

# the view in the address: a zoom of 4 draws the chart 4 times as wide;
# the x axis as the trace's events labels its ticks with event numbers
svg_width() { sed -n 's/.*<svg id="timeline" width="\([0-9.]*\)".*/\1/p' "$1" | head -n 1; }
browse --window-size=1000,700 --dump-dom "file://$tmp/shop.html" >"$tmp/z1.dom"
browse --window-size=1000,700 --dump-dom "file://$tmp/shop.html#zoom=4&mode=steps" >"$tmp/z4.dom"
w1=$(svg_width "$tmp/z1.dom")
w4=$(svg_width "$tmp/z4.dom")
check "zoom: #zoom=4 draws it 4 times as wide ($w1 -> $w4)" sh -c "[ -n '$w1' ] && [ -n '$w4' ] && awk 'BEGIN { exit !($w4 == 4 * $w1) }'"
check "#mode=steps: ticks at trace events" sh -c "grep -qE 'text-anchor=\"start\">#[0-9]+ ' '$tmp/z4.dom' && ! grep -qE 'text-anchor=\"start\">#[0-9]+ ' '$tmp/z1.dom'"

# #event=N: the mark of trace event N outlined, its details shown
drop=$(grep -oE '\[[0-9]+,[0-9]+,[0-9]+,"drop"' "$tmp/shop.html" | head -n 1 | sed 's/^\[\([0-9]*\),.*/\1/')
browse --window-size=1000,700 --dump-dom "file://$tmp/shop.html#event=$drop" >"$tmp/ev.dom"
check "#event=$drop: the dropped message outlined, its details shown" sh -c \
    "[ -n '$drop' ] && grep -qE 'class=\"msg dropped[^\"]* focus\"' '$tmp/ev.dom' &&
     grep -qE '<div id=\"tip\" style=\"display: block;[^>]*>#$drop: message [^<]*: dropped \(link cut\)' '$tmp/ev.dom'"

browse --dump-dom "file://$tmp/shop.html#trace" >"$tmp/trace.dom"
check "#trace: the trace as text, the drop among its lines" sh -c \
    "grep -qE '^#$drop @0s drop +api-0 -&gt; storage-0 \(link cut\)$' '$tmp/trace.dom' &&
     [ \$(grep -oE '#[0-9]+ @[0-9.]+s ' '$tmp/trace.dom' | wc -l) -eq 565 ]"

rm -f "$shot"
browse --window-size=1280,760 --screenshot="$shot" "file://$tmp/shop.html" >/dev/null
check "a screenshot ($shot)" sh -c "[ -s '$shot' ] && head -c 8 '$shot' | od -An -c | grep -q 'P   N   G'"

"$oxl" test "$tmp/pkg" --exact 'passes every seed' --seed 3 --timeline "$tmp/pass.html" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a passing seed: status 0" test "$st" -eq 0
check "its page is written" grep -qF "timeline of seed 3 (finished," "$tmp/err"
browse --dump-dom "file://$tmp/pass.html" >"$tmp/pass.dom"
check "it draws the pass at the end, no failure" sh -c \
    "grep -qF 'class=\"end-ok\"' '$tmp/pass.dom' && ! grep -qF 'id=\"failure\"' '$tmp/pass.dom'"
check "its lane and its tasks" sh -c "grep -qF 'data-node=\"n0\"' '$tmp/pass.dom' && grep -qE 'class=\"task' '$tmp/pass.dom'"
check "its note (sim.note) as a flag with its text" grep -qE 'class="mark note"[^>]*data-info="[0-9.]+s seed 3"' "$tmp/pass.dom"

# the determinism of the page: the same seed draws the same page
(cd "$tmp" && exec "$oxl" test shop --exact "$name" --seed 13 --timeline shop2.html) >/dev/null 2>&1
check "the same seed writes the same page" cmp -s "$tmp/shop.html" "$tmp/shop2.html"
tap_end
