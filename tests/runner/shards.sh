#!/bin/sh
# tests/runner/shards.sh: shards past one machine, as TAP.
# usage: shards.sh <oxl executable> <docs/testing.md>
# Runs the GitHub Actions matrix and the Kubernetes Indexed Job examples of
# docs/testing.md (Merging shards) locally, their commands taken from the
# document as written (`oxl` found on PATH, the package examples/bank a
# copy of tests/runner/shardpkg): each shard, then the merge, compared with
# one unsharded run of the package in every format (timings stripped).
# Then --merge's errors on reports that are not one run's.
oxl=$1
doc=$2
here=$(cd "$(dirname "$0")" && pwd)
case $oxl in /*) ;; *) oxl=$(pwd)/$oxl ;; esac
case $doc in /*) ;; *) doc=$(pwd)/$doc ;; esac
. "$(dirname "$0")/../lib.sh"
tap_scratch shards
mkdir "$tmp/bin" && ln -s "$oxl" "$tmp/bin/oxl"
PATH="$tmp/bin:$PATH"
export PATH
tap_detail() { tap_file "$tmp/diff" 30; tap_file "$tmp/err" 20 err; tap_file "$tmp/un.err" 20 "unsharded err"; }
has() { grep -qF -- "$1" "$2"; }

# The text of the fenced block after the line starting with $1.
block() {
    awk -v mark="$1" 'index($0, mark) == 1 { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$doc"
}

# Timings and process counts differ between a sharded and an unsharded
# run; nothing else may.
# The trace diff is one run's (against the last seed that passed in it):
# a merge carries none, so it is left out of the unsharded run's too.
strip_human() {
    sed -e 's/, [0-9.]* s)/)/; s/ ([0-9.]* s)$//; s/; [0-9]* process.*$//' "$1" |
        awk '/^trace diff: /{skip=1; next} skip && /^  /{next} {skip=0; print}'
}
strip_json() {
    sed -e 's/"seconds":[0-9.]*/"seconds":_/g; s/"processes":[0-9]*/"processes":_/' "$1" |
        perl -pe 's/"trace_diff":(\{(?:[^{}]++|(?1))*\})/"trace_diff":null/g'
}
strip_junit() { sed -e 's/ time="[0-9.]*"//g' "$1" | perl -0pe 's/\ntrace diff: .*?(?=<\/failure>)//sg'; }
strip_tap() { grep -v '^ *trace_diff: ' "$1"; }
same() { # what, a, b (already stripped)
    if diff "$2" "$3" >"$tmp/diff"; then ok "$1"; else not_ok "$1"; fi
    rm -f "$tmp/diff"
}

# a fresh copy of the package as examples/bank in a work directory
fresh() {
    rm -rf "$tmp/work"
    mkdir -p "$tmp/work/examples" && cp -R "$here/shardpkg" "$tmp/work/examples/bank"
}

# the unsharded run, in every format, from a fresh copy (no failures file)
unsharded() {
    fresh
    (cd "$tmp/work" && oxl test examples/bank >"$tmp/un.human" 2>"$tmp/un.err"; echo $? >"$tmp/un.status")
    fresh
    (cd "$tmp/work" && oxl test examples/bank --format json --junit "$tmp/un.xml" >"$tmp/un.json" 2>>"$tmp/un.err")
    fresh
    (cd "$tmp/work" && oxl test examples/bank --format tap >"$tmp/un.tap" 2>>"$tmp/un.err")
}

# merged: in every format from the shard reports in $tmp/work matching $1
merged() {
    (cd "$tmp/work" && eval "oxl test --merge $1" >"$tmp/m.human" 2>"$tmp/err"; echo $? >"$tmp/m.status")
    (cd "$tmp/work" && eval "oxl test --merge $1 --format json --junit '$tmp/m.xml'" >"$tmp/m.json" 2>>"$tmp/err")
    (cd "$tmp/work" && eval "oxl test --merge $1 --format tap" >"$tmp/m.tap" 2>>"$tmp/err")
}

compare() { # label
    check "$1: the merge exits as the unsharded run ($(cat "$tmp/un.status"))" test "$(cat "$tmp/m.status")" = "$(cat "$tmp/un.status")"
    strip_human "$tmp/un.human" >"$tmp/a"; strip_human "$tmp/m.human" >"$tmp/b"
    same "$1: the human report is the unsharded run's" "$tmp/a" "$tmp/b"
    strip_json "$tmp/un.json" >"$tmp/a"; strip_json "$tmp/m.json" >"$tmp/b"
    same "$1: the JSON report is the unsharded run's" "$tmp/a" "$tmp/b"
    strip_junit "$tmp/un.xml" >"$tmp/a"; strip_junit "$tmp/m.xml" >"$tmp/b"
    same "$1: the JUnit report is the unsharded run's" "$tmp/a" "$tmp/b"
    strip_tap "$tmp/un.tap" >"$tmp/a"; strip_tap "$tmp/m.tap" >"$tmp/b"
    same "$1: the TAP report is the unsharded run's" "$tmp/a" "$tmp/b"
    check "$1: the lowest failing seed of all shards, counted over the whole range" \
        has "seed 9 failed (9 of 32 seeds run)" "$tmp/m.human"
    check "$1: with its reproduce line" \
        has "reproduce: oxl test examples/bank --exact 'fails at 9, 11 and 26' --seed 9" "$tmp/m.human"
    check "$1: the test after it not run (fail fast), as unsharded" \
        has "skip sim   after the failing one (not run: an earlier test failed)" "$tmp/m.human"
    # what the reports were stripped of above: the docs say so
    check "$1: the unsharded run has a trace diff, the merge none, as Merging shards says" \
        sh -c "grep -q '^trace diff: seed 9 ' '$tmp/un.human' && ! grep -q 'trace diff' '$tmp/m.human' &&
               grep -q '\"trace_diff\":null' '$tmp/m.json' && grep -qF 'A merged report has **no trace diff**' '$doc'"
}

echo "1..37"

# ---- the GitHub Actions matrix ----
gh=$(block "A GitHub Actions matrix")
shards=$(printf '%s\n' "$gh" | sed -n 's/^ *shard: \[\(.*\)\]$/\1/p' | tr -d ',')
run_shard=$(printf '%s\n' "$gh" | sed -n 's/^ *- run: \(oxl test .*--partition.*\)$/\1/p')
run_merge=$(printf '%s\n' "$gh" | sed -n 's/^ *- run: \(oxl test --merge .*\)$/\1/p')
check "the GitHub example has a matrix, a shard's command and the merge" \
    test -n "$shards" -a -n "$run_shard" -a -n "$run_merge"
unsharded
fresh
for s in $shards; do
    cmd=$(printf '%s\n' "$run_shard" | sed "s/\${{ matrix.shard }}/$s/g")
    (cd "$tmp/work" && sh -c "$cmd" 2>>"$tmp/shard.err")
done
check "every shard wrote its report" test "$(ls "$tmp/work"/shard-*.json 2>/dev/null | wc -l)" -eq "$(echo $shards | wc -w)"
check "no shard wrote the failures file" test ! -e "$tmp/work/examples/bank/oxl-test-failures.txt"
# the report job's merge, as written (its --junit too)
(cd "$tmp/work" && sh -c "$run_merge" >/dev/null 2>&1)
check "the report job's merge writes its JUnit file" has "<testsuite name=\"examples/bank\"" "$tmp/work/report.xml"
merged "shard-*.json"
compare "GitHub matrix"

# ---- the Kubernetes Indexed Job ----
k8s=$(block "A Kubernetes Indexed Job")
n=$(printf '%s\n' "$k8s" | sed -n 's/^ *completions: \([0-9]*\)$/\1/p')
pod=$(printf '%s\n' "$k8s" | sed -n 's/^ *command: \["sh", "-c", "\(.*\)"\]$/\1/p')
kmerge=$(awk 'index($0, "A Kubernetes Indexed Job") == 1 { f = 1 } f && /^oxl test --merge/ { print; exit }' "$doc")
check "the Kubernetes example has completions, the pod's command and the merge" test -n "$n" -a -n "$pod" -a -n "$kmerge"
fresh
mkdir "$tmp/work/results"
k=0
while [ "$k" -lt "${n:-0}" ]; do
    cmd=$(printf '%s\n' "$pod" | sed "s|/results|$tmp/work/results|g")
    (cd "$tmp/work" && JOB_COMPLETION_INDEX=$k sh -c "$cmd" 2>>"$tmp/k8s.err")
    k=$((k + 1))
done
check "every pod wrote its report" test "$(ls "$tmp/work/results" | wc -l)" -eq "${n:-0}"
check "each pod says its shard" has "oxl test: shard 3 of 4 (index 2 from JOB_COMPLETION_INDEX, --partition hash:auto)" "$tmp/k8s.err"
merged "$(printf '%s\n' "$kmerge" | sed "s|^oxl test --merge ||; s|/results|$tmp/work/results|g")"
compare "Kubernetes Job"

# ---- reports that are not one run's ----
r=$tmp/work/results
t() { (cd "$tmp/work" && oxl test --merge "$@" >"$tmp/out" 2>"$tmp/err"); st=$?; }
t "$r/shard-0.json" "$r/shard-1.json" "$r/shard-3.json"
check "a missing shard: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'shard 3 of 4 missing' '$tmp/err'"
t "$r/shard-0.json" "$r/shard-1.json" "$r/shard-2.json" "$r/shard-3.json" "$r/shard-1.json"
check "overlapping shards: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'are both shard 2 of 4: overlapping shards' '$tmp/err'"
mkdir -p "$tmp/work/other" && cp "$here/shardpkg/tests.oxl" "$tmp/work/other/" && echo '// another binary' >>"$tmp/work/other/tests.oxl"
(cd "$tmp/work" && JOB_COMPLETION_INDEX=3 oxl test other --partition hash:auto/4 --format json >"$tmp/other.json" 2>"$tmp/other.err"); ost=$?
tap_detail() { tap_file "$tmp/other.err" 30 "other's err"; tap_file "$tmp/other.json" 10 "other.json"; }
check "the other package's shard ran (status $ost: 0 or 1) and wrote its report" \
    sh -c "[ $ost -le 1 ] && grep -q '\"event\":\"end\"' '$tmp/other.json'"
tap_detail() { tap_file "$tmp/diff" 30; tap_file "$tmp/err" 20 err; tap_file "$tmp/un.err" 20 "unsharded err"; }
t "$r/shard-0.json" "$r/shard-1.json" "$r/shard-2.json" "$tmp/other.json"
check "a report of another package and binary: usage error, named" \
    sh -c "[ $st -eq 2 ] && grep -qF 'is a report of other packages or another test binary than' '$tmp/err'"
sed '3s/}$/,/' "$r/shard-2.json" >"$tmp/bad.json"
t "$r/shard-0.json" "$r/shard-1.json" "$tmp/bad.json" "$r/shard-3.json"
check "malformed JSON: usage error naming the file and line" sh -c "[ $st -eq 2 ] && grep -qF 'bad.json:3: not JSON' '$tmp/err'"
sed '$d' "$r/shard-2.json" >"$tmp/cut.json"
t "$r/shard-0.json" "$r/shard-1.json" "$tmp/cut.json" "$r/shard-3.json"
check "a report without its end: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'no end event' '$tmp/err'"
t "$tmp/none.json"
check "a missing file: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'none.json' '$tmp/err'"
t
check "--merge without reports: usage error" sh -c "[ $st -eq 2 ] && grep -qF -- '--merge needs the JSON reports' '$tmp/err'"

# ---- JOB_COMPLETION_INDEX's usage errors ----
(cd "$tmp/work" && oxl test examples/bank --partition hash:auto/4 >"$tmp/out" 2>"$tmp/err"); st=$?
check "hash:auto without JOB_COMPLETION_INDEX: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'index from JOB_COMPLETION_INDEX' '$tmp/err'"
(cd "$tmp/work" && JOB_COMPLETION_INDEX=4 oxl test examples/bank --partition hash:auto/4 >"$tmp/out" 2>"$tmp/err"); st=$?
check "an index not below the shards: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'JOB_COMPLETION_INDEX=4 is not below the 4 shards' '$tmp/err'"
(cd "$tmp/work" && OXL_TEST_TOTAL_SHARDS=4 oxl test examples/bank >"$tmp/out" 2>"$tmp/err"); st=$?
check "OXL_TEST_TOTAL_SHARDS without an index: usage error, named" sh -c "[ $st -eq 2 ] && grep -qF 'JOB_COMPLETION_INDEX is not' '$tmp/err'"
(cd "$tmp/work" && JOB_COMPLETION_INDEX=1 OXL_TEST_TOTAL_SHARDS=4 oxl test examples/bank --format json >"$tmp/env.json" 2>"$tmp/env.err")
strip_json "$r/shard-1.json" >"$tmp/a"; strip_json "$tmp/env.json" >"$tmp/b"
tap_detail() { tap_file "$tmp/diff" 30 diff; tap_file "$tmp/env.err" 30 "its err"; }
check "OXL_TEST_TOTAL_SHARDS: the same shard as hash:auto/4" sh -c "diff '$tmp/a' '$tmp/b' >'$tmp/diff'"
[ "$failed" -eq 0 ]
