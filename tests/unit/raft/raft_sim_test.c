/* raft_sim_test.c: the Raft sweeps and the planted-bug tests.
 *
 *   raft_sim_test            the sweep (200 seeds) and every planted bug
 *   raft_sim_test sweep      the sweep only
 *   raft_sim_test long       the 2,000-seed sweep (ctest raft_sim_long)
 *   raft_sim_test bugs       every planted bug
 *   raft_sim_test <bug>      one: double-vote, no-log-check, unsynced-vote,
 *                            stale-term, old-term-commit, unsynced-append
 *
 * OXL_RAFT_SEEDS=count and OXL_RAFT_FIRST_SEED=n override the seeds of a
 * sweep (default 1..200, long 1..2000) and the range a bug test searches
 * (default 1..100). OXL_RAFT_TRACE=1 records message events too (sends,
 * deliveries, drops) and shows the last 60 events of a failure: slower,
 * and the trace hash differs, but every run does the same. A sweep passes when every seed does; a bug test when
 * its bug is found within its range by the check it names. Every failing
 * seed prints its reason, describe(cluster), the last trace events and
 * the command that reruns it. */
#include "raft_scenario.h"
#include "tap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_SEEDS 200
#define LONG_SEEDS 2000
#define BUG_SEEDS 100
#define MAX_ENV_SEEDS UINT64_C(10000000)

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the seed range from the environment ----------------------------------------------------------- */
typedef struct range {
    uint64_t first, count;
    bool overridden;
} range;

/* Reads a variable: unset leaves *out; a bad value stops the run naming it. */
static void env_u64(const char *name, uint64_t min, uint64_t max, uint64_t *out, bool *seen) {
    const char *s = getenv(name);
    if (!s) return;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || s[0] == '+' || v < min || v > max) {
        fprintf(stderr, "raft_sim_test: error: %s='%s' is not an integer in %" PRIu64 "..%" PRIu64 "\n", name, s, min,
                max);
        printf("Bail out! bad %s\n", name);
        exit(2);
    }
    *out = v;
    *seen = true;
}

static range seeds_from_env(uint64_t default_count) {
    range r = {.first = 1, .count = default_count};
    env_u64("OXL_RAFT_SEEDS", 1, MAX_ENV_SEEDS, &r.count, &r.overridden);
    env_u64("OXL_RAFT_FIRST_SEED", 0, UINT64_MAX - MAX_ENV_SEEDS, &r.first, &r.overridden);
    return r;
}

/* ---- running ---------------------------------------------------------------------------------------- */
static const char *program = "raft_sim_test";

static bool trace_messages(void) {
    uint64_t v = 0;
    bool seen = false;
    env_u64("OXL_RAFT_TRACE", 0, 1, &v, &seen);
    return v == 1;
}

static oxl_sweep_options sweep_options(range r, const char *what, bool stop_at_first, char *rerun, size_t cap) {
    oxl_sweep_options o = oxl_sweep_options_default(r.first, r.count);
    bool messages = trace_messages();
    o.world.trace_messages = messages; /* off: faster; faults, timers, notes and crashes are still traced */
    o.world.trace_capacity = 256;
    o.tail = messages ? 60 : 30;
    o.stop_at_first = stop_at_first;
    snprintf(rerun, cap, "OXL_RAFT_FIRST_SEED={seed} OXL_RAFT_SEEDS=1 %s %s", program, what);
    o.rerun = rerun;
    return o;
}

static void print_report(const oxl_sweep_report *rep) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) tap_bail("out of memory");
    oxl_sweep_report_print(rep, m);
    fclose(m);
    /* As TAP diagnostics, line by line. */
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) tap_diag("%s", line);
    free(text);
}

static void sweep(const char *what, uint64_t default_count) {
    range r = seeds_from_env(default_count);
    raft_run_stats stats = {0};
    raft_scenario_options opt = raft_scenario_chaos();
    opt.stats = &stats;
    char rerun[256];
    oxl_sweep_options so = sweep_options(r, what, false, rerun, sizeof rerun);
    oxl_sweep_report rep;
    double t0 = wall_now();
    oxl_sweep(raft_scenario_run, &opt, &so, &rep);
    double dt = wall_now() - t0;
    if (rep.failed) print_report(&rep);
    tap_is_uint(rep.failed, 0, "%s: the intact Raft passes seeds %" PRIu64 "..%" PRIu64 " of the chaos scenario", what,
                r.first, r.first + r.count - 1);
    tap_diag("%s: %" PRIu64 " seeds in %.2fs (%.0f seeds/s): %" PRIu64 " client ops, %" PRIu64 " leaders, %" PRIu64
             " crashes, %" PRIu64 " partitions and blocks, %" PRIu64 " membership changes, %" PRIu64
             " committed entries, %" PRIu64 " events",
             what, rep.run, dt, (double)rep.run / dt, stats.ops, stats.leaders, stats.crashes, stats.partitions,
             stats.config_changes, stats.entries, stats.events);
    /* The scenario exercises what it claims to: not a sweep of idle worlds. */
    tap_ok(stats.ops >= 50 * rep.run && stats.leaders >= 2 * rep.run && stats.crashes >= rep.run,
           "%s: every seed does work (ops, elections, crashes per seed: %.0f, %.1f, %.1f)", what,
           (double)stats.ops / (double)rep.run, (double)stats.leaders / (double)rep.run,
           (double)stats.crashes / (double)rep.run);
    oxl_sweep_report_free(&rep);
}

/* Which check each planted bug must be caught by. */
static const struct {
    raft_bug bug;
    const char *caught_by; /* the failure's opening words */
} planted[] = {
    {RAFT_BUG_DOUBLE_VOTE, "invariant 'election safety' violated"},
    {RAFT_BUG_NO_LOG_CHECK, "invariant 'leader completeness' violated"},
    {RAFT_BUG_UNSYNCED_VOTE, "invariant 'votes survive crashes' violated"},
    {RAFT_BUG_STALE_TERM, "invariant 'committed entries never lost' violated"},
    {RAFT_BUG_OLD_TERM_COMMIT, "invariant 'leader completeness' violated"},
    {RAFT_BUG_UNSYNCED_APPEND, "invariant 'committed entries never lost' violated"},
};

static void bug_test(size_t i) {
    raft_bug b = planted[i].bug;
    range r = seeds_from_env(BUG_SEEDS);
    raft_scenario_options opt = raft_scenario_chaos();
    opt.raft.bugs = RAFT_BUG_BIT(b);
    char rerun[256];
    oxl_sweep_options so = sweep_options(r, raft_bug_name(b), true, rerun, sizeof rerun);
    oxl_sweep_report rep;
    double t0 = wall_now();
    oxl_sweep(raft_scenario_run, &opt, &so, &rep);
    double dt = wall_now() - t0;
    bool found = rep.failed > 0;
    const oxl_sweep_failure *f = found ? &rep.failures[0] : NULL;
    if (found) print_report(&rep);
    tap_ok(found, "bug (%d) %s: %s is found within seeds %" PRIu64 "..%" PRIu64, (int)b, raft_bug_name(b),
           raft_bug_what(b), r.first, r.first + r.count - 1);
    if (found) {
        tap_ok(strncmp(f->reason, planted[i].caught_by, strlen(planted[i].caught_by)) == 0,
               "bug (%d) %s is caught by: %s", (int)b, raft_bug_name(b), planted[i].caught_by);
        tap_ok(f->reproduced, "bug (%d) %s: seed %" PRIu64 " reproduces (same failure, same trace hash)", (int)b,
               raft_bug_name(b), f->seed);
        tap_diag("bug (%d) %s: found at seed %" PRIu64 " (%" PRIu64 " seeds run) in %.3fs", (int)b, raft_bug_name(b),
                 f->seed, rep.run, dt);
    }
    oxl_sweep_report_free(&rep);
}

static bool bug_named(const char *arg, size_t *out) {
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++)
        if (strcmp(arg, raft_bug_name(planted[i].bug)) == 0) {
            *out = i;
            return true;
        }
    return false;
}

int main(int argc, char **argv) {
    program = argv[0];
    if (argc > 2) {
        fprintf(stderr, "usage: %s [sweep|long|bugs|<bug name>]\n", argv[0]);
        return 2;
    }
    const char *what = argc == 2 ? argv[1] : "all";
    size_t which;
    if (strcmp(what, "all") == 0 || strcmp(what, "sweep") == 0) sweep("sweep", SWEEP_SEEDS);
    if (strcmp(what, "long") == 0) sweep("long", LONG_SEEDS);
    if (strcmp(what, "all") == 0 || strcmp(what, "bugs") == 0)
        for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) bug_test(i);
    else if (bug_named(what, &which))
        bug_test(which);
    else if (strcmp(what, "sweep") != 0 && strcmp(what, "long") != 0 && strcmp(what, "all") != 0) {
        fprintf(stderr, "%s: unknown test '%s' (want sweep, long, bugs, or a bug:", argv[0], what);
        for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++)
            fprintf(stderr, " %s", raft_bug_name(planted[i].bug));
        fprintf(stderr, ")\n");
        return 2;
    }
    return tap_done();
}
