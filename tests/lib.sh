# tests/lib.sh: what the shell tests share, sourced by each of them
# (`. "$(dirname "$0")/../lib.sh"`): TAP test points and a scratch
# directory.
#
#   tap_scratch NAME   $tmp: a directory of its own (removed at the end,
#                      also on INT and TERM, after tap_at_exit, which a
#                      script may redefine; kept when KEEP is set, to
#                      look into), with oxl's cache in it, and
#                      none of the variables `oxl test` takes from a CI
#                      system or a caller's shell
#   tap_plan N         prints the plan first; tap_end then fails a run
#                      that made another number of test points
#   ok DESC            a passing point
#   not_ok DESC [LINE...]  a failing one: each LINE as a diagnostic, then
#                      what tap_detail prints (a script redefines it:
#                      tap_file calls, say)
#   check DESC CMD...  ok when CMD succeeds, else not_ok
#   tap_file PATH [N [LABEL]]  the first N lines of PATH (the last -N when
#                      N is negative; 20 by default) as diagnostics, each
#                      after "# LABEL: " (or "# "); nothing when PATH is
#                      not there
#   tap_abs PATH       PATH from / when it names a file relative to here
#                      (it has a slash), else as it is (a bare command name
#                      is looked up on PATH): for scripts that change
#                      directory
#   tap_end            the plan when none was given; the exit status:
#                      0 when every point passed and the plan was met
i=0
failed=0
tap_planned=

tap_at_exit() { :; }
tap_detail() { :; }

tap_scratch() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-$1-XXXXXX") || exit 1
    if [ -n "${KEEP:-}" ]; then
        trap 'tap_at_exit; echo "# kept $tmp"' EXIT
    else
        trap 'tap_at_exit; rm -rf "$tmp"' EXIT
    fi
    trap 'exit 130' INT
    trap 'exit 143' TERM
    export OXL_CACHE_DIR="$tmp/cache"
    unset TEST_TOTAL_SHARDS TEST_SHARD_INDEX TEST_SHARD_STATUS_FILE XML_OUTPUT_FILE GITHUB_ACTIONS \
        JOB_COMPLETION_INDEX OXL_TEST_TOTAL_SHARDS OXL_TEST_KEEP_BINARY OXL_TEST_FORK_SERVER \
        OXL_TEST_CANARY_EVERY OXL_SIM_SCHED OXL_SIM_POLICY OXL_SIM_PCT_DEPTH \
        OXL_SIM_TRACE_DUMP OXL_SIM_REPORT OXL_SIM_SCHEDULE_IN OXL_SIM_SCHEDULE_OUT OXL_TEST_RUN \
        OXL_TEST_SEED OXL_TEST_STREAM OXL_DATA_DIR NO_COLOR
}

tap_plan() {
    tap_planned=$1
    echo "1..$1"
}

ok() {
    i=$((i + 1))
    echo "ok $i - $1"
}

not_ok() {
    i=$((i + 1))
    failed=$((failed + 1))
    echo "not ok $i - $1"
    shift
    for tap_line in "$@"; do printf '%s\n' "$tap_line" | sed 's/^/# /'; done
    tap_detail
}

check() {
    tap_desc=$1
    shift
    if "$@"; then ok "$tap_desc"; else not_ok "$tap_desc"; fi
}

tap_file() {
    [ -f "$1" ] || return 0
    tap_n=${2:-20}
    tap_prefix="# "
    [ -n "${3:-}" ] && tap_prefix="# $3: "
    if [ "$tap_n" -lt 0 ]; then
        tail -n "$((-tap_n))" "$1" | sed "s|^|$tap_prefix|"
    else
        head -n "$tap_n" "$1" | sed "s|^|$tap_prefix|"
    fi
}

tap_abs() {
    case $1 in
    /*) printf '%s\n' "$1" ;;
    */*) printf '%s\n' "$(pwd)/$1" ;;
    *) printf '%s\n' "$1" ;;
    esac
}

tap_end() {
    if [ -z "$tap_planned" ]; then
        echo "1..$i"
    elif [ "$i" -ne "$tap_planned" ]; then
        echo "# planned $tap_planned test points, made $i"
        return 1
    fi
    [ "$failed" -eq 0 ]
}
