#!/bin/sh
# fence_runtime_calls.sh: the runtime's own calls of fenced functions.
# usage: fence_runtime_calls.sh <liboxlrt.a> <wrapped.txt>
#
# A test binary is linked with the fence's wrappers, so the runtime's own
# calls of a wrapped function go through the fence too. Each one must be
# made where no deterministic run is under way (or be let through), else a
# simulation would fail on the runtime's own call. This checks, with nm,
# that every object of the library that references a wrapped function is
# one reviewed below, for the reason given; a new reference fails here
# until it is reviewed. And that fence.c (with fence_vfork.S) defines a
# __wrap_ function for exactly the names of wrapped.txt.
lib=$1
list=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oxl-fence-nm-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# object:symbol  why it cannot trip
cat >"$tmp/reviewed" <<'LIST'
sched.c.o:clock_gettime  mono_ns: real-time runs only, and at a run's start before the fence is armed
sched.c.o:clock_nanosleep  wait_until_due: real-time runs only
sched.c.o:getenv  oxl_sched_options_default: OXL_SIM_TIME_LIMIT and OXL_SIM_SCHED, read before a run starts
time.c.o:clock_gettime  system_now: only when no deterministic run is under way
test_main.c.o:getenv  the OXL_TEST_* variables, read before the test's run starts
test_schedule.c.o:getenv  OXL_SIM_SCHEDULE_IN/_OUT, read before the test's run starts
test_schedule.c.o:fopen  the schedule files: read before the run starts, written after it ended
test_main.c.o:fopen  OXL_SIM_TRACE_DUMP: the dump's file, opened before the test's run starts and written after it ends
test_serve.c.o:open  the fork server's capture files, before any test runs
test_serve.c.o:fork  the fork server, before any test runs
test_serve.c.o:getpid  the fork server's pid, before the fork of a child
test_serve.c.o:clock_gettime  mono_ns: the server's per-child time limits, in the server, never in a test
test_isolate.c.o:fopen  the server's children and adopted processes, in the server, never in a test
test_isolate.c.o:getpid  the server's own pid, in the server
test_isolate.c.o:nanosleep  the server's kill rounds at its end
test_isolate.c.o:opendir  /proc, when the server kills what it adopted
sched.c.o:fopen  sched_mapping_counts: the report of a stack that could not be had, inside oxl_fence_allow_begin/end
stacks.c.o:getenv  OXL_STACKS_NO_LIGHT_GUARDS, read by a constructor at process start, before any run
stacks.c.o:fopen  vm.max_map_count, read once where guard pages split mappings, inside oxl_fence_allow_begin/end
test_serve.c.o:getppid  a served child checks its server is alive, before its test runs
test_serve.c.o:getenv  the server's LD_BIND_NOW, at its start, before any child
test_explore.c.o:clock_gettime  mono_us: a seed's time in the explorer, between runs, never inside one
sweep.c.o:getenv  oxl_sweep_options_from_env, before any seed runs
fence_state.c.o:getenv  OXL_SIM_FENCE, read before the fence is first armed
store.c.o:getenv  file_store: OXL_DATA_DIR, only outside a deterministic run (a simulation's store is the simulated disk)
store_log.c.o:open  the store's log file, only outside a deterministic run (store.c in_simulation)
LIST

echo "1..3"
grep -v '^#' "$list" | grep -v '^$' | sort >"$tmp/wrapped"
# every undefined reference to a wrapped name, by object (the fence's own
# objects call libc through __real_ and are not in this list)
# (one awk over all of them: a grep per symbol took a minute on a loaded
# machine)
nm -A -u "$lib" 2>/dev/null | sed -n 's/^[^:]*:\([^:]*\): *U \(.*\)$/\1 \2/p' |
    awk 'NR == FNR { wrapped[$1] = 1; next } ($2 in wrapped) { print $1 ":" $2 }' "$tmp/wrapped" - |
    sort -u >"$tmp/found"
if [ ! -s "$tmp/found" ] && ! nm -A -u "$lib" >/dev/null 2>&1; then
    echo "not ok 1 - nm cannot read $lib"
    exit 1
fi
cut -d' ' -f1 "$tmp/reviewed" | sort >"$tmp/allowed"
new=$(comm -23 "$tmp/found" "$tmp/allowed")
if [ -z "$new" ]; then
    echo "ok 1 - every runtime call of a fenced function is a reviewed one ($(wc -l <"$tmp/found") of them)"
else
    echo "not ok 1 - runtime calls of fenced functions nobody reviewed (add each to this script with why it cannot trip):"
    printf '%s\n' "$new" | sed 's/^/#   /'
fi
gone=$(comm -13 "$tmp/found" "$tmp/allowed")
if [ -z "$gone" ]; then
    echo "ok 2 - and every reviewed one still exists"
else
    echo "not ok 2 - reviewed calls that are gone (remove them from this script):"
    printf '%s\n' "$gone" | sed 's/^/#   /'
fi
nm -A "$lib" 2>/dev/null | sed -n 's/^[^:]*:fence[^:]*\.o: *[0-9a-f]* T __wrap_\(.*\)$/\1/p' | sort -u >"$tmp/defined"
diff_out=$(diff "$tmp/wrapped" "$tmp/defined")
if [ -z "$diff_out" ] && [ -s "$tmp/defined" ]; then
    echo "ok 3 - the fence defines a wrapper for exactly the $(wc -l <"$tmp/wrapped") names of wrapped.txt"
else
    echo "not ok 3 - wrapped.txt (<) and the fence's __wrap_ functions (>) differ:"
    printf '%s\n' "$diff_out" | sed 's/^/#   /'
fi
[ -z "$new" ] && [ -z "$gone" ] && [ -z "$diff_out" ] && [ -s "$tmp/defined" ]
