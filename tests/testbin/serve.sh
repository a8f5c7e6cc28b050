#!/bin/sh
# tests/testbin/serve.sh: the serve mode of a test binary (docs/test-binary.md)
# against the exec'd path, as TAP. usage: serve.sh <oxl executable>
# Builds the test binaries of tests/testbin/basic, tests/testbin/garbage
# (collections in a served child), examples/bank and
# examples/bank_planted_bug and runs every test (the first eight seeds of
# each sim test) once exec'd with the protocol's
# variables and once as a child of `<bin> --serve`: the exit status, stdout
# and stderr (with the trace hash) must be the same byte for byte. Then the
# mode's bad input: malformed requests, a capture file that cannot be
# opened, bad variables, extra arguments.
oxl=$1
. "$(dirname "$0")/../lib.sh"
oxl=$(tap_abs "$oxl")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tap_scratch serve

tap_plan 16

# compare <name> <package dir> [failures]: every selected run, exec'd and
# served; with "failures", some of the runs must fail.
compare() {
    name=$1
    bin="$tmp/$name.test"
    dir="$tmp/$name"
    mkdir -p "$dir"
    if ! "$oxl" build --tests "$2" -o "$bin" >"$dir/build.out" 2>&1; then
        not_ok "$name: builds" "$(head -c 600 "$dir/build.out")"
        return
    fi
    "$bin" --list >"$dir/list" 2>"$dir/list.err"
    list_st=$?
    : >"$dir/requests"
    n=0
    while IFS='	' read -r idx kind first last loc tname; do
        if [ "$kind" = unit ]; then
            seeds=-
        else
            seeds=
            s=$first
            while [ "$s" -le "$last" ] && [ "$s" -lt $((first + 8)) ]; do
                seeds="$seeds $s"
                s=$((s + 1))
            done
        fi
        for seed in $seeds; do
            n=$((n + 1))
            mkdir "$dir/exec-data-$n" "$dir/serve-data-$n"
            if [ "$seed" = - ]; then
                OXL_TEST_RUN=$idx OXL_DATA_DIR="$dir/exec-data-$n" "$bin" >"$dir/exec-$n.out" 2>"$dir/exec-$n.err"
            else
                OXL_TEST_RUN=$idx OXL_TEST_SEED=$seed OXL_SIM_REPORT=1 OXL_DATA_DIR="$dir/exec-data-$n" "$bin" \
                    >"$dir/exec-$n.out" 2>"$dir/exec-$n.err"
            fi
            echo $? >"$dir/exec-$n.status"
            report=1
            [ "$seed" = - ] && report=-
            printf '%s\t%s\t%s\t%s\t%s\t%s\t-\n' "$idx" "$seed" "$report" "$dir/serve-$n.out" "$dir/serve-$n.err" \
                "$dir/serve-data-$n" >>"$dir/requests"
        done
    done <"$dir/list"
    "$bin" --serve <"$dir/requests" >"$dir/answers" 2>"$dir/serve.err"
    st=$?
    check "$name: --list exits 0 (status $list_st) and the server exits 0 at the end of its input, having answered $n (> 0) requests" \
        sh -c "test $list_st -eq 0 && test $n -gt 0 && test $st -eq 0 && test \$(grep -c '^pid ' '$dir/answers') -eq $n && test \$(grep -c '^status ' '$dir/answers') -eq $n && head -n 1 '$dir/answers' | grep -qx ready"
    # the k-th pid line answers the k-th request; status lines name the pid
    awk -v dir="$dir" '
        $1 == "pid" { k++; req[$2] = k }
        $1 == "status" { w = $3; s = (w % 256 == 0) ? int(w / 256) : 128 + w % 128; print s > (dir "/serve-" req[$2] ".status") }
    ' "$dir/answers"
    bad=
    k=1
    while [ $k -le $n ]; do
        for f in status out err; do
            cmp -s "$dir/exec-$k.$f" "$dir/serve-$k.$f" || bad="$bad $k.$f"
        done
        k=$((k + 1))
    done
    if [ "$n" -eq 0 ]; then
        not_ok "$name: no runs to compare exec'd and served (--list status $list_st)" \
            "list: $(head -c 400 "$dir/list") $(head -c 400 "$dir/list.err")"
    elif [ -z "$bad" ]; then
        ok "$name: $n runs give the same status, stdout and stderr (trace hash) exec'd and served"
    else
        first_bad=${bad# }
        first_bad=${first_bad%% *}
        not_ok "$name: exec'd and served runs differ:$bad" \
            "exec: $(cat "$dir/exec-${first_bad%.*}.status") $(head -c 400 "$dir/exec-$first_bad")" \
            "served: $(cat "$dir/serve-${first_bad%.*}.status" 2>/dev/null) $(head -c 400 "$dir/serve-$first_bad" 2>/dev/null)"
    fi
    if [ "$3" = failures ]; then
        fails=$(cat "$dir"/serve-*.status | grep -vc '^0$')
        check "$name: the runs include failures ($fails) as well as passes" test "$fails" -gt 0 -a "$fails" -lt "$n"
    fi
}

compare basic "$here/basic" failures
compare bank "$root/examples/bank"
compare planted "$root/examples/bank_planted_bug" failures
compare garbage "$here/garbage"

bin="$tmp/basic.test"
bd="$tmp/bad"
mkdir "$bd" "$bd/data"
printf '0\t-\t-\t%s/a.out\n3\t7\t1\t%s/b.out\t%s/b.err\t%s/data\t-\n' "$bd" "$bd" "$bd" "$bd" | "$bin" --serve >"$bd/answers" 2>"$bd/err"
st=$?
check "a request without seven fields is answered with an error" \
    sh -c "sed -n 2p '$bd/answers' | grep -q '^error malformed request: expected 7 fields'"
check "the server goes on with the next request" sh -c "test $st -eq 0 && sed -n 3p '$bd/answers' | grep -q '^pid ' && grep -q '^oxl-sim: seed=7 trace=' '$bd/b.err'"

printf '0\t-\t-\t%s/no/such/dir/out\t%s/e\t-\t-\n' "$bd" "$bd" | "$bin" --serve >"$bd/answers" 2>"$bd/err"
check "a capture file that cannot be opened is named in an error" grep -q "^error cannot open '$bd/no/such/dir/out': No such file or directory" "$bd/answers"

printf '0\t-\t-\t%s/o\t%s/e\\q\t-\t-\n\t\n' "$bd" "$bd" | "$bin" --serve >"$bd/answers" 2>"$bd/err"
check "a bad escape and empty fields are malformed" sh -c "grep -q '^error malformed request: a backslash' '$bd/answers' && test \$(grep -c '^error malformed' '$bd/answers') -eq 2"

printf '9\t-\t-\t%s/o\t%s/e\t-\t-\n3\tabc\t1\t%s/o2\t%s/e2\t-\t-\n' "$bd" "$bd" "$bd" "$bd" | "$bin" --serve >"$bd/answers" 2>"$bd/err"
OXL_TEST_RUN=9 "$bin" >"$bd/x.out" 2>"$bd/x.err"
OXL_TEST_RUN=3 OXL_TEST_SEED=abc OXL_SIM_REPORT=1 "$bin" >"$bd/y.out" 2>"$bd/y.err"
check "bad variables are refused by the child as exec'd (exit 2, same message)" \
    sh -c "grep -q '^status [0-9]* 512 [0-9]*\$' '$bd/answers' && test \$(grep -c '^status [0-9]* 512 ' '$bd/answers') -eq 2 && cmp -s '$bd/e' '$bd/x.err' && cmp -s '$bd/e2' '$bd/y.err'"

"$bin" --serve extra </dev/null >"$bd/out" 2>"$bd/err"
st=$?
check "--serve with another argument is a usage error (exit 2)" sh -c "test $st -eq 2 && grep -q 'usage: .*--serve' '$bd/err'"
tap_end
