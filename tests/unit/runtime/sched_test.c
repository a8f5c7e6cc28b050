/* sched_test: the deterministic scheduler, one test per rule: virtual time
 * and overlapping sleeps, joins, channels, select, cancellation, nodes and
 * their registries, the four policies, replay, and the exact failure
 * reports (deadlock, time limit, livelock, panic, world failure). */
#include "oxl_sched.h"
#include "tap.h"

#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static oxl_sched_options opts(uint64_t seed) {
    oxl_sched_options o;
    oxl_sched_options_default(&o, seed);
    return o;
}

/* ---- a transcript every test task can append to ---- */
typedef struct transcript {
    char text[8192];
    size_t len;
} transcript;

static void say(transcript *t, const char *fmt, ...) OXL_PRINTF(2, 3);
static void say(transcript *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->text + t->len, sizeof t->text - t->len, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n < sizeof t->text - t->len ? (size_t)n : sizeof t->text - t->len - 1;
}

/* ---- concurrent sleeps overlap ---- */
static void *sleeper(void *arg) {
    oxl_sleep(OXL_SEC);
    return arg;
}

static void *three_sleepers(void *arg) {
    oxl_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = oxl_spawn(sleeper, (void *)(intptr_t)(i + 10));
    intptr_t sum = 0;
    for (int i = 0; i < 3; i++) {
        void *v;
        if (oxl_join(t[i], &v) == OXL_JOIN_OK) sum += (intptr_t)v;
    }
    *(oxl_time_ns *)arg = oxl_now();
    return (void *)sum;
}

static void test_sleeps_overlap(void) {
    oxl_time_ns end = -1;
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(three_sleepers, &end, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "three sleeping tasks finish");
    tap_is_int(end, OXL_SEC, "three 1s sleeps take 1s of virtual time");
    tap_is_int((intptr_t)r.value, 33, "join returns each task's result");
    tap_ok(r.trace_hash != 0 && r.switches >= 4, "the run reports a trace hash and switches (%llu)",
           (unsigned long long)r.switches);
    oxl_sched_result_free(&r);
}

/* ---- channels ---- */
typedef struct chan_case {
    transcript log;
    size_t cap;
} chan_case;

static void *producer(void *arg) {
    oxl_chan *c = arg;
    for (int i = 1; i <= 5; i++) oxl_chan_send(c, &i);
    oxl_chan_close(c);
    return NULL;
}

static void *consume_all(void *arg) {
    chan_case *cc = arg;
    oxl_chan *c = oxl_chan_new(cc->cap, sizeof(int));
    oxl_spawn(producer, c);
    int v, sum = 0;
    while (oxl_chan_recv(c, &v) == OXL_CHAN_OK) say(&cc->log, "%d ", v), sum += v;
    say(&cc->log, "| closed v=%d", v);
    int one = 1;
    if (oxl_chan_send(c, &one) == OXL_CHAN_CLOSED) say(&cc->log, " | send refused");
    return (void *)(intptr_t)sum;
}

static void test_channels(void) {
    size_t caps[] = {0, 2, OXL_CHAN_UNBOUNDED};
    const char *names[] = {"unbuffered", "bounded", "unbounded"};
    for (int i = 0; i < 3; i++) {
        chan_case cc = {.cap = caps[i]};
        oxl_sched_options o = opts(5);
        oxl_sched_result r = oxl_sched_run(consume_all, &cc, &o);
        tap_is_int((intptr_t)r.value, 15, "%s channel delivers every element", names[i]);
        tap_is_str(cc.log.text, "1 2 3 4 5 | closed v=0 | send refused",
                   "%s: in order; recv on closed and drained says closed; send on closed is refused", names[i]);
        oxl_sched_result_free(&r);
    }
}

/* A bounded channel blocks its sender when full. */
static void *fill_then_report(void *arg) {
    transcript *log = arg;
    oxl_chan *c = oxl_chan_new(2, sizeof(int));
    oxl_spawn(producer, c);
    oxl_sleep(OXL_MS);
    say(log, "buffered=%zu", oxl_chan_len(c));
    int v;
    while (oxl_chan_recv(c, &v) == OXL_CHAN_OK) {
    }
    return NULL;
}

static void test_bounded_blocks(void) {
    transcript log = {0};
    oxl_sched_options o = opts(2);
    oxl_sched_result r = oxl_sched_run(fill_then_report, &log, &o);
    tap_is_str(log.text, "buffered=2", "a bounded channel holds cap elements and blocks the sender");
    oxl_sched_result_free(&r);
}

/* ---- select ---- */
typedef struct select_case {
    size_t picked[3];
    oxl_time_ns timeout_at;
    size_t timeout_index;
} select_case;

static void *select_root(void *arg) {
    select_case *sc = arg;
    oxl_chan *a = oxl_chan_new(4, sizeof(int)), *b = oxl_chan_new(4, sizeof(int)), *never = oxl_chan_new(0, sizeof(int));
    int x = 1, got;
    for (int i = 0; i < 20; i++) {
        oxl_chan_send(a, &x);
        oxl_chan_send(b, &x);
        oxl_select_case cases[] = {{a, false, &got}, {b, false, &got}, {never, false, &got}};
        oxl_chan_status st;
        sc->picked[oxl_select(cases, 3, -1, &st)]++;
        /* drain the other */
        oxl_select_case rest[] = {{a, false, &got}, {b, false, &got}};
        oxl_select(rest, 2, 0, &st);
    }
    oxl_select_case only_never[] = {{never, false, &got}};
    oxl_chan_status st;
    sc->timeout_index = oxl_select(only_never, 1, 100 * OXL_MS, &st);
    sc->timeout_at = oxl_now();
    return NULL;
}

static void test_select(void) {
    select_case a = {{0}, 0, 0}, b = {{0}, 0, 0};
    oxl_sched_options o = opts(11);
    oxl_sched_result r1 = oxl_sched_run(select_root, &a, &o);
    oxl_sched_result r2 = oxl_sched_run(select_root, &b, &o);
    tap_ok(a.picked[0] > 0 && a.picked[1] > 0 && a.picked[2] == 0,
           "select chooses among ready arms only (%zu / %zu / %zu)", a.picked[0], a.picked[1], a.picked[2]);
    tap_ok(memcmp(a.picked, b.picked, sizeof a.picked) == 0 && r1.trace_hash == r2.trace_hash,
           "the same seed makes the same choices");
    /* the choice is a stream of the seed: other seeds, other choices */
    uint64_t first_picks = 0;
    int distinct = 0;
    for (uint64_t seed = 1; seed <= 16; seed++) {
        select_case c = {{0}, 0, 0};
        oxl_sched_options so = opts(seed);
        oxl_sched_result rs = oxl_sched_run(select_root, &c, &so);
        uint64_t picks = c.picked[0]; /* how often arm a won of 20 */
        if (seed == 1) first_picks = picks;
        distinct += picks != first_picks;
        oxl_sched_result_free(&rs);
    }
    tap_ok(distinct > 0, "another seed makes other choices (%d of 15 seeds differ from seed 1)", distinct);
    tap_is_uint(a.timeout_index, 1, "a select with nothing ready returns n at its timeout");
    tap_is_int(a.timeout_at, 100 * OXL_MS, "after exactly the timeout in virtual time");
    oxl_sched_result_free(&r1);
    oxl_sched_result_free(&r2);
}

/* ---- a planted race: lost updates between a read and a write ---- */
typedef struct race {
    int counter;
    transcript order;
} race;

static void *racer(void *arg) {
    race *rc = arg;
    for (int i = 0; i < 3; i++) {
        int seen = rc->counter;
        say(&rc->order, "%llu", (unsigned long long)oxl_task_id(oxl_task_self()));
        oxl_yield();
        rc->counter = seen + 1;
    }
    return NULL;
}

static void *race_root(void *arg) {
    race *rc = arg;
    oxl_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = oxl_spawn(racer, rc);
    for (int i = 0; i < 3; i++) oxl_join(t[i], NULL);
    say(&rc->order, " rand=%llu", (unsigned long long)(oxl_rand() % 1000));
    return NULL;
}

static oxl_sched_result run_race(uint64_t seed, oxl_policy policy, race *rc, const uint32_t *script, size_t len) {
    memset(rc, 0, sizeof *rc);
    oxl_sched_options o = opts(seed);
    o.policy = policy;
    o.record_schedule = true;
    o.script = script;
    o.script_len = len;
    return oxl_sched_run(race_root, rc, &o);
}

static void test_seeds_and_replay(void) {
    race a, b;
    oxl_sched_result ra = run_race(3, OXL_POLICY_RANDOM, &a, NULL, 0);
    oxl_sched_result rb = run_race(3, OXL_POLICY_RANDOM, &b, NULL, 0);
    tap_ok(ra.trace_hash == rb.trace_hash && strcmp(a.order.text, b.order.text) == 0 && a.counter == b.counter,
           "same seed: same interleaving, result and trace hash (%s)", a.order.text);
    int distinct = 0;
    bool counters[10] = {false};
    char seen[64][64];
    for (uint64_t s = 1; s <= 64; s++) {
        race rc;
        oxl_sched_result r = run_race(s, OXL_POLICY_RANDOM, &rc, NULL, 0);
        if (rc.counter >= 0 && rc.counter <= 9) counters[rc.counter] = true;
        bool dup = false;
        for (int j = 0; j < distinct; j++) dup = dup || strcmp(seen[j], rc.order.text) == 0;
        if (!dup && distinct < 64) snprintf(seen[distinct++], sizeof seen[0], "%.63s", rc.order.text);
        oxl_sched_result_free(&r);
    }
    tap_ok(distinct > 20, "different seeds explore different interleavings (%d distinct in 64)", distinct);
    int outcomes = 0;
    for (int i = 0; i < 10; i++) outcomes += counters[i];
    tap_ok(outcomes >= 2,
           "and they lose different numbers of the planted race's updates (%d outcomes)", outcomes);

    race replay;
    oxl_sched_result rr = run_race(999, OXL_POLICY_SCRIPTED, &replay, ra.schedule, ra.schedule_len);
    tap_is_uint(rr.trace_hash, ra.trace_hash, "a recorded schedule replayed with the scripted policy gives the same hash");
    tap_ok(strncmp(replay.order.text, a.order.text, strcspn(a.order.text, " ")) == 0,
           "and the same interleaving under another seed");
    oxl_sched_result_free(&rr);

    /* Editing a schedule: out-of-range choices clamp, and past its end the
     * replay is FIFO. */
    uint32_t wild[] = {1000, 1000, 1000};
    race w;
    oxl_sched_result rw = run_race(1, OXL_POLICY_SCRIPTED, &w, wild, 3);
    tap_is_int(rw.status, OXL_SCHED_FINISHED, "a script with out-of-range choices still runs to the end");
    race f1, f2;
    oxl_sched_result rf1 = run_race(1, OXL_POLICY_FIFO, &f1, NULL, 0);
    oxl_sched_result rf2 = run_race(2, OXL_POLICY_FIFO, &f2, NULL, 0);
    tap_ok(strncmp(f1.order.text, f2.order.text, strcspn(f1.order.text, " ")) == 0 && rf1.schedule_len > 0,
           "FIFO gives one interleaving whatever the seed (%s)", f1.order.text);
    oxl_sched_result_free(&rw);
    oxl_sched_result_free(&rf1);
    oxl_sched_result_free(&rf2);
    oxl_sched_result_free(&ra);
    oxl_sched_result_free(&rb);
}

/* ---- oxl_rand is the seed's ---- */
/* A task on the process node draws from the run's "user" stream: the same
 * for a seed, another for another seed (and nodes draw their own). */
static void *draw_three(void *arg) {
    uint64_t *out = arg;
    for (int i = 0; i < 3; i++) out[i] = oxl_rand();
    return NULL;
}

static void test_rand_is_the_seeds(void) {
    uint64_t draws[9][3], again[3];
    for (uint64_t seed = 1; seed <= 9; seed++) {
        oxl_sched_options o = opts(seed);
        oxl_sched_result r = oxl_sched_run(draw_three, draws[seed - 1], &o);
        oxl_sched_result_free(&r);
    }
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(draw_three, again, &o);
    oxl_sched_result_free(&r);
    tap_ok(memcmp(again, draws[0], sizeof again) == 0, "oxl_rand: the same seed draws the same numbers");
    int same = 0;
    for (int i = 0; i < 9; i++)
        for (int j = i + 1; j < 9; j++) same += memcmp(draws[i], draws[j], sizeof draws[i]) == 0;
    tap_is_int(same, 0, "and nine seeds draw nine different sequences");
}

/* ---- the hash covers the schedule ---- */
/* Two tasks that only yield, then park on a channel nobody sends on: the
 * schedule differs from seed to seed, but no World event does (spawns, the
 * root's one sleep and its end are the same in every run). So only the
 * switches, folded into the hash, can tell two schedules apart: equal
 * hashes mean equal schedules, which the runner's determinism check
 * relies on. */
static void *yield_then_park(void *arg) {
    for (int i = 0; i < 8; i++) oxl_yield();
    int v;
    oxl_chan_recv(arg, &v);
    return NULL;
}

static void *two_yielders(void *arg) {
    oxl_chan *never = oxl_chan_new(0, sizeof(int));
    oxl_spawn(yield_then_park, never);
    oxl_spawn(yield_then_park, never);
    oxl_sleep(OXL_MS);
    return NULL;
}

typedef struct schedule_run {
    uint64_t hash;
    uint32_t schedule[64];
    size_t len;
    oxl_trace_event events[64];
    uint64_t nevents;
} schedule_run;

static void run_yielders(uint64_t seed, schedule_run *out) {
    oxl_world_options wo = oxl_world_options_default(1); /* one World seed: only the schedule's seed varies */
    oxl_world *w = oxl_world_new(&wo);
    oxl_sched_options o = opts(seed);
    o.world = w;
    o.record_schedule = true;
    oxl_sched_result r = oxl_sched_run(two_yielders, NULL, &o);
    memset(out, 0, sizeof *out);
    out->hash = r.trace_hash;
    out->len = r.schedule_len < 64 ? r.schedule_len : 64;
    memcpy(out->schedule, r.schedule, out->len * sizeof *r.schedule);
    out->nevents = oxl_world_trace_count(w);
    for (uint64_t i = 0; i < out->nevents && i < 64; i++) {
        oxl_world_trace_event(w, i, &out->events[i]);
        out->events[i].hash_after = 0; /* compare the events, not the hash */
    }
    oxl_sched_result_free(&r);
    oxl_world_free(w);
}

static bool same_events(const schedule_run *a, const schedule_run *b) {
    if (a->nevents != b->nevents) return false;
    for (uint64_t i = 0; i < a->nevents && i < 64; i++) {
        const oxl_trace_event *x = &a->events[i], *y = &b->events[i];
        if (x->kind != y->kind || x->time != y->time || x->seq != y->seq || x->arg != y->arg || x->node != y->node ||
            x->peer != y->peer || x->label != y->label)
            return false;
    }
    return true;
}

static void test_hash_covers_the_schedule(void) {
    schedule_run first, other;
    run_yielders(1, &first);
    int differing = 0, told_apart = 0, same_kept = 0;
    for (uint64_t seed = 2; seed <= 30; seed++) {
        run_yielders(seed, &other);
        bool same_schedule = other.len == first.len && memcmp(other.schedule, first.schedule, first.len * 4) == 0;
        if (same_schedule || !same_events(&first, &other)) continue;
        same_kept++;
        differing++;
        told_apart += other.hash != first.hash;
    }
    tap_ok(same_kept >= 5, "seeds give other schedules with the very same World events (%d of 29)", same_kept);
    tap_is_int(told_apart, differing, "and every other schedule has another trace hash");
    schedule_run again;
    run_yielders(1, &again);
    tap_is_uint(again.hash, first.hash, "the same schedule, the same hash");
}

/* ---- decisions at spawn and wakeup, only when asked for ---- */
static void *child_says(void *arg) {
    say(arg, "child ");
    return NULL;
}

static void *spawn_order_root(void *arg) {
    oxl_task *t = oxl_spawn(child_says, arg);
    say(arg, "parent ");
    oxl_join(t, NULL);
    return NULL;
}

static void test_preempt_on_wake(void) {
    int parent_first = 0, child_first = 0;
    for (int mode = 0; mode < 2; mode++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            transcript log = {0};
            oxl_sched_options o = opts(seed);
            o.preempt_on_wake = mode == 1;
            oxl_sched_result r = oxl_sched_run(spawn_order_root, &log, &o);
            bool pf = strcmp(log.text, "parent child ") == 0;
            if (mode == 0) parent_first += pf;
            else child_first += !pf;
            oxl_sched_result_free(&r);
        }
    tap_is_int(parent_first, 20, "by default a spawning task goes on until it suspends");
    tap_ok(child_first > 0 && child_first < 20, "with preempt_on_wake the new task runs first in some seeds (%d of 20)",
           child_first);
}

/* ---- PCT finds a depth-2 bug at least at its guaranteed rate ---- */
/* The bug: B's one check runs after A's first write but before its second,
 * one step later: two ordering constraints (depth 2). Round-robin never
 * hits it; PCT must, at a rate of at least 1/(n k). */
typedef struct depth2 {
    int a_state;
    bool bug;
} depth2;

static void *pct_a(void *arg) {
    depth2 *d = arg;
    for (int i = 0; i < 6; i++) oxl_yield();
    d->a_state = 1;
    oxl_yield();
    d->a_state = 2;
    return NULL;
}

static void *pct_b(void *arg) {
    depth2 *d = arg;
    oxl_yield();
    if (d->a_state == 1) d->bug = true;
    return NULL;
}

static void *pct_root(void *arg) {
    oxl_task *a = oxl_spawn(pct_a, arg), *b = oxl_spawn(pct_b, arg);
    oxl_join(a, NULL);
    oxl_join(b, NULL);
    return NULL;
}

static void test_pct(void) {
    int hits = 0;
    uint64_t max_steps = 0;
    const int runs = 1000, n = 3, d = 2;
    const uint64_t k = 16; /* at least the steps of one run (checked below) */
    for (int s = 1; s <= runs; s++) {
        depth2 st = {0, false};
        oxl_sched_options o = opts((uint64_t)s);
        o.policy = OXL_POLICY_PCT;
        o.pct_depth = d;
        o.pct_steps = k;
        oxl_sched_result r = oxl_sched_run(pct_root, &st, &o);
        hits += st.bug;
        if (r.steps > max_steps) max_steps = r.steps;
        oxl_sched_result_free(&r);
    }
    double bound = 1.0 / ((double)n * (double)k); /* 1 / (n k^(d-1)) */
    tap_ok((double)hits / runs >= bound, "PCT (d=2) hits the depth-2 bug in %d of %d runs, at least the 1/(n k^(d-1)) = %.4f bound",
           hits, runs, bound);
    tap_ok(max_steps <= k, "k covers every run's steps (%llu <= %llu)", (unsigned long long)max_steps,
           (unsigned long long)k);
    int fifo_hits = 0;
    for (int s = 1; s <= 50; s++) {
        depth2 st = {0, false};
        oxl_sched_options o = opts((uint64_t)s);
        o.policy = OXL_POLICY_FIFO;
        oxl_sched_result r = oxl_sched_run(pct_root, &st, &o);
        fifo_hits += st.bug;
        oxl_sched_result_free(&r);
    }
    tap_is_int(fifo_hits, 0, "FIFO never hits it");
    int random_hits = 0;
    for (int s = 1; s <= runs; s++) {
        depth2 st = {0, false};
        oxl_sched_options o = opts((uint64_t)s);
        oxl_sched_result r = oxl_sched_run(pct_root, &st, &o);
        random_hits += st.bug;
        oxl_sched_result_free(&r);
    }
    tap_diag("for comparison, the random policy hits it in %d of %d runs", random_hits, runs);
}

/* ---- a cancelled event is no event ---- */
/* A select's timeout that lost stays queued, cancelled: it neither holds the
 * run past the time limit nor lets a later event slip past it. */
static void *send_one(void *arg) {
    int v = 7;
    oxl_chan_send(arg, &v);
    return NULL;
}

typedef struct lost_timeout {
    oxl_dur_ns timeout;   /* of the select a message wins */
    oxl_dur_ns late;      /* a sleeper wakes then, if > 0 */
    bool late_ran;
    size_t won;
} lost_timeout;

static void *late_sleeper(void *arg) {
    lost_timeout *lt = arg;
    oxl_sleep(lt->late);
    lt->late_ran = true;
    return NULL;
}

static void *lost_timeout_root(void *arg) {
    lost_timeout *lt = arg;
    oxl_chan *c = oxl_chan_new(0, sizeof(int)), *never = oxl_chan_new(0, sizeof(int));
    if (lt->late > 0) oxl_task_detach(oxl_spawn(late_sleeper, lt));
    oxl_task_detach(oxl_spawn(send_one, c));
    int got = 0;
    oxl_select_case k[] = {{c, false, &got}};
    lt->won = oxl_select(k, 1, lt->timeout, NULL);
    oxl_chan_recv(never, &got);
    return NULL;
}

static void test_cancelled_events(void) {
    oxl_sched_options o = opts(1);
    o.time_limit = OXL_SEC;
    lost_timeout lt = {.timeout = 10 * OXL_SEC, .won = 9};
    oxl_sched_result r = oxl_sched_run(lost_timeout_root, &lt, &o);
    tap_is_uint(lt.won, 0, "the message wins the select");
    tap_is_int(r.status, OXL_SCHED_DEADLOCK, "only a lost timeout past the limit left queued: a deadlock, not a time limit");
    if (r.status != OXL_SCHED_DEADLOCK && r.report) tap_diag("%s", r.report);
    oxl_sched_result_free(&r);

    lt = (lost_timeout){.timeout = 500 * OXL_MS, .late = 5 * OXL_SEC, .won = 9};
    r = oxl_sched_run(lost_timeout_root, &lt, &o);
    tap_is_uint(lt.won, 0, "the message wins the select again");
    tap_is_int(r.status, OXL_SCHED_TIME_LIMIT, "a sleep past the limit is a time limit");
    tap_ok(!lt.late_ran, "no event past the time limit runs, though a lost timeout before it was queued");
    oxl_sched_result_free(&r);

    o.real_time = true;
    lt = (lost_timeout){.timeout = 10 * OXL_SEC, .won = 9};
    r = oxl_sched_run(lost_timeout_root, &lt, &o);
    tap_is_int(r.status, OXL_SCHED_DEADLOCK, "in real time too, a lost timeout is no reason to wait");
    oxl_sched_result_free(&r);
}

/* ---- failure reports, word for word ---- */
static int deadlock_line;
static void *deadlock_root(void *arg) {
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    int v;
    deadlock_line = __LINE__ + 1;
    oxl_chan_recv(c, &v);
    return NULL;
}

static int sleepy_line;
static void *forever_sleeper(void *arg) {
    for (;;) {
        sleepy_line = __LINE__ + 1;
        oxl_sleep(20 * OXL_SEC);
    }
    return NULL;
}

static int poll_line;
static void *poller(void *arg) {
    oxl_time_ns start = oxl_now();
    while (oxl_now() == start) {
        poll_line = __LINE__ + 1;
        oxl_yield();
    }
    return NULL;
}

static void test_reports(void) {
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(deadlock_root, NULL, &o);
    char want[8192]; /* reports that name __FILE__, however deep the checkout is */
    snprintf(want, sizeof want,
             "deadlock: every task of the deterministic simulation is blocked\n"
             "what everyone was doing at 0.000000000s of virtual time:\n"
             "  task 1 on process: receiving from channel 1 at %s:%d",
             __FILE__, deadlock_line);
    tap_is_int(r.status, OXL_SCHED_DEADLOCK, "a blocked program is a deadlock");
    tap_is_str(r.report, want, "the deadlock report, word for word");
    tap_is_int(oxl_sched_exit_status(&r, NULL), 101, "with exit status 101");
    oxl_sched_result_free(&r);

    setenv("OXL_SIM_TIME_LIMIT", "10", 1);
    oxl_sched_options_default(&o, 1);
    unsetenv("OXL_SIM_TIME_LIMIT");
    tap_is_int(o.time_limit, 10 * OXL_SEC, "OXL_SIM_TIME_LIMIT sets the time limit in seconds");
    r = oxl_sched_run(forever_sleeper, NULL, &o);
    snprintf(want, sizeof want,
             "time limit: the deterministic simulation is still waiting after 10s of virtual time\n"
             "what everyone was doing at 0.000000000s of virtual time:\n"
             "  task 1 on process: sleeping until 20.000000000s at %s:%d",
             __FILE__, sleepy_line);
    tap_is_int(r.status, OXL_SCHED_TIME_LIMIT, "a program still waiting at the limit stops");
    tap_is_str(r.report, want, "the time-limit report, word for word");
    oxl_sched_result_free(&r);
    oxl_sched_options_default(&o, 1);
    r = oxl_sched_run(forever_sleeper, NULL, &o);
    tap_contains(r.report, "after 24h of virtual time", "the default limit is 24 hours");
    oxl_sched_result_free(&r);

    /* a plain decimal number of seconds and nothing else: strtod's hex,
     * blanks, signs, inf and nan are refused too */
    static const char *const bad_limits[] = {"soon", "0x10", " 5", "+5", "5 ", "inf", "nan", "1e", ".", "-1", "0", ""};
    for (size_t i = 0; i < sizeof bad_limits / sizeof bad_limits[0]; i++) {
        setenv("OXL_SIM_TIME_LIMIT", bad_limits[i], 1);
        tap_ok(!oxl_sched_options_default(&o, 1), "a malformed OXL_SIM_TIME_LIMIT='%s' is refused", bad_limits[i]);
    }
    static const struct {
        const char *text;
        oxl_dur_ns ns;
    } good_limits[] = {{".5", OXL_SEC / 2}, {"3.", 3 * OXL_SEC}, {"1e3", 1000 * OXL_SEC}, {"25E-1", 2500 * OXL_MS}};
    for (size_t i = 0; i < sizeof good_limits / sizeof good_limits[0]; i++) {
        setenv("OXL_SIM_TIME_LIMIT", good_limits[i].text, 1);
        tap_ok(oxl_sched_options_default(&o, 1) && o.time_limit == good_limits[i].ns, "OXL_SIM_TIME_LIMIT='%s' is taken",
               good_limits[i].text);
    }
    unsetenv("OXL_SIM_TIME_LIMIT");

    oxl_sched_options_default(&o, 1);
    o.livelock_switches = 1000;
    r = oxl_sched_run(poller, NULL, &o);
    snprintf(want, sizeof want,
             "livelock: 1000 scheduling steps without virtual time advancing "
             "(a loop polling now() never sees time move: sleep instead)\n"
             "what everyone was doing at 0.000000000s of virtual time:\n"
             "  task 1 on process: ready to run at %s:%d",
             __FILE__, poll_line);
    tap_is_int(r.status, OXL_SCHED_LIVELOCK, "a busy loop polling now() is a livelock");
    tap_is_str(r.report, want, "the livelock report, word for word");
    oxl_sched_result_free(&r);
}

static int panic_line;
static void *panicker(void *arg) {
    oxl_sleep(OXL_MS);
    panic_line = __LINE__ + 1;
    oxl_panic("the answer was %d", 41);
}

static int panic_join_line, tick_line;
static void *panic_root(void *arg) {
    oxl_task *t = oxl_spawn(panicker, NULL);
    panic_join_line = __LINE__ + 1;
    oxl_join(t, NULL);
    return NULL;
}

static const char *always_broken(oxl_world *w, void *arg) {
    return oxl_world_now(w) >= 500 * OXL_MS ? "the sky fell" : NULL;
}

static void *tick_root(void *arg) {
    oxl_world_add_invariant(oxl_sched_world(), "sky", always_broken, NULL);
    tick_line = __LINE__ + 1;
    oxl_sleep(OXL_SEC);
    *(int *)arg = 1; /* never reached */
    return NULL;
}

static void test_panic_and_world_failure(void) {
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(panic_root, NULL, &o);
    char want[8192]; /* two __FILE__s: a checkout in a deep directory must fit */
    snprintf(want, sizeof want,
             "panic: the answer was 41\n  at %s:%d (task 2 on process)\n"
             "what everyone was doing at 0.001000000s of virtual time:\n"
             "  task 1 on process: joining task 2 at %s:%d",
             __FILE__, panic_line, __FILE__, panic_join_line);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "a panic in any task ends the run");
    tap_is_str(r.report, want, "with the message and the place, then what the other tasks were doing");
    oxl_sched_result_free(&r);

    /* The invariant breaks at the first event at or after 500ms: the
     * sleeper's own wakeup at 1s. The sleeper never resumes. */
    int reached = 0;
    r = oxl_sched_run(tick_root, &reached, &o);
    tap_is_int(r.status, OXL_SCHED_WORLD_FAILED, "a World invariant broken while a task sleeps fails the run");
    snprintf(want, sizeof want,
             "simulation failed: invariant 'sky' violated: the sky fell\n"
             "what everyone was doing at 1.000000000s of virtual time:\n"
             "  task 1 on process: sleeping until 1.000000000s at %s:%d",
             __FILE__, tick_line);
    tap_is_str(r.report, want, "with the World's reason and the sleeper");
    tap_is_int(reached, 0, "and the sleeper does not go on");
    tap_is_int(r.end_time, OXL_SEC, "at the virtual time of the event that broke it");
    oxl_sched_result_free(&r);
}

/* ---- cancellation and nodes ---- */
typedef struct node_case {
    int boots;
    int registry_inits;
    transcript log;
    oxl_node *n;
} node_case;

static void *blocked_forever(void *arg) {
    oxl_chan *c = arg;
    int v;
    oxl_chan_recv(c, &v);
    return (void *)1;
}

typedef struct counter_registry {
    int value;
} counter_registry;
static const char counter_key;
static node_case *registry_owner;
static void counter_init(void *obj) {
    ((counter_registry *)obj)->value = 100;
    registry_owner->registry_inits++;
}

static void *node_boot(void *arg) {
    node_case *nc = arg;
    nc->boots++;
    counter_registry *reg = oxl_node_local(&counter_key, sizeof *reg, counter_init);
    reg->value++;
    say(&nc->log, "boot%d:%d ", nc->boots, reg->value);
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    oxl_spawn(blocked_forever, c); /* inherits the node */
    int v;
    oxl_chan_recv(c, &v);
    return NULL;
}

static void *child_of_node(void *arg) {
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    oxl_task *inner = oxl_spawn(blocked_forever, c);
    say(arg, "inner on %s ", oxl_node_name(oxl_task_node(inner)));
    int v;
    oxl_chan_recv(c, &v);
    return NULL;
}

static void *nodes_root(void *arg) {
    node_case *nc = arg;
    registry_owner = nc;
    const char *roles[] = {"kv"};
    oxl_node_config cfg = {.name = "n1", .data_dir = "/data/n1", .roles = roles, .nroles = 1, .boot = node_boot,
                           .boot_arg = nc};
    nc->n = oxl_node_new(&cfg);
    oxl_sleep(OXL_MS); /* let it boot */
    oxl_task *t = oxl_spawn_on_node(nc->n, child_of_node, &nc->log);
    oxl_sleep(OXL_MS);
    say(&nc->log, "role=%d dir=%s ", oxl_node_has_role(nc->n, "kv"), oxl_node_data_dir(nc->n));
    oxl_node_kill(nc->n);
    void *v = (void *)7;
    oxl_join_status st = oxl_join(t, &v);
    say(&nc->log, "join=%s v=%p up=%d ", st == OXL_JOIN_CANCELLED ? "cancelled" : "ok", v, oxl_node_is_up(nc->n));
    oxl_node_restart(nc->n);
    oxl_sleep(OXL_MS);
    say(&nc->log, "process=%s", oxl_node_name(oxl_node_current()));
    return NULL;
}

static void test_nodes(void) {
    node_case nc;
    memset(&nc, 0, sizeof nc);
    oxl_sched_options o = opts(4);
    oxl_sched_result r = oxl_sched_run(nodes_root, &nc, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a run with a node finishes");
    tap_is_str(nc.log.text,
               "boot1:101 inner on n1 role=1 dir=/data/n1 join=cancelled v=(nil) up=0 boot2:101 process=process",
               "tasks inherit their node; a kill cancels them; joiners see it; restart reboots with fresh registries");
    tap_is_int(nc.registry_inits, 2, "a node-local registry is made once per incarnation");
    tap_is_int(nc.boots, 2, "the boot task runs at every boot");
    oxl_sched_result_free(&r);
}

static void *cancel_root(void *arg) {
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    oxl_task *t = oxl_spawn(blocked_forever, c);
    oxl_sleep(OXL_MS);
    oxl_task_cancel(t);
    void *v = (void *)5;
    oxl_join_status st = oxl_join(t, &v);
    int x = 3;
    /* Nobody waits on c any more: a send would block; a select says so. */
    oxl_select_case k[] = {{c, true, &x}};
    oxl_chan_status cs;
    size_t idx = oxl_select(k, 1, 0, &cs);
    return (void *)(intptr_t)((st == OXL_JOIN_CANCELLED) * 10 + (idx == 1));
}

static void test_cancel(void) {
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(cancel_root, NULL, &o);
    tap_is_int((intptr_t)r.value, 11, "a cancelled task never resumes, its joiner sees it, its waits are gone");
    oxl_sched_result_free(&r);
}

/* ---- cancel at the next wait (OxL's t.cancel()) ---- */
static void *noop(void *arg);

typedef struct wait_cancel {
    oxl_chan *c;
    int got, after;  /* what the receiver took, and whether it ran past its next wait */
    int started;
} wait_cancel;

static void *receive_twice(void *arg) {
    wait_cancel *wc = arg;
    wc->started = 1;
    oxl_chan_recv(wc->c, &wc->got);
    oxl_chan_recv(wc->c, &wc->got); /* the next wait: a cancel pending since the wake ends it here */
    wc->after = 1;
    return NULL;
}

static void *cancel_self(void *arg) {
    wait_cancel *wc = arg;
    oxl_task_cancel_at_wait(oxl_task_self());
    wc->got = 7; /* it goes on until it waits */
    oxl_yield();  /* not a wait */
    oxl_sleep(OXL_MS);
    wc->after = 1;
    return NULL;
}

static void *cancel_at_wait_root(void *arg) {
    transcript *log = arg;
    /* blocked: ends at once, and the channel keeps what is sent later */
    wait_cancel a = {.c = oxl_chan_new(1, sizeof(int))};
    oxl_task *t = oxl_spawn(receive_twice, &a);
    oxl_sleep(OXL_MS);
    oxl_task_cancel_at_wait(t);
    int v = 5;
    oxl_chan_send(a.c, &v);
    int st = oxl_join(t, NULL); /* joined before the fields are read */
    say(log, "blocked:%d,%zu,%d", st, oxl_chan_len(a.c), a.after);
    /* woken with a value and not yet run: it keeps the value, ends at its next wait */
    wait_cancel b = {.c = oxl_chan_new(0, sizeof(int))};
    t = oxl_spawn(receive_twice, &b);
    oxl_sleep(OXL_MS);
    v = 6;
    oxl_chan_send(b.c, &v);
    oxl_task_cancel_at_wait(t);
    st = oxl_join(t, NULL);
    say(log, " woken:%d,%d,%d", st, b.got, b.after);
    /* not started: it never runs */
    wait_cancel c = {.c = oxl_chan_new(0, sizeof(int))};
    t = oxl_spawn(receive_twice, &c);
    oxl_task_cancel_at_wait(t);
    st = oxl_join(t, NULL);
    say(log, " unstarted:%d,%d", st, c.started);
    /* itself: at its next wait, not at a yield */
    wait_cancel d = {0};
    t = oxl_spawn(cancel_self, &d);
    st = oxl_join(t, NULL);
    say(log, " self:%d,%d,%d", st, d.got, d.after);
    /* ended: nothing happens */
    t = oxl_spawn(noop, (void *)9);
    oxl_sleep(OXL_MS);
    oxl_task_cancel_at_wait(t);
    void *r = NULL;
    st = oxl_join(t, &r);
    say(log, " ended:%d,%d", st, (int)(intptr_t)r);
    return NULL;
}

static void test_cancel_at_wait(void) {
    transcript log = {0};
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(cancel_at_wait_root, &log, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "cancel at the next wait: the run finishes");
    tap_is_str(log.text, "blocked:1,1,0 woken:1,6,0 unstarted:1,0 self:1,7,0 ended:0,9",
               "a blocked or unstarted task ends at once; a woken one or the caller at its next wait; an ended one is left");
    oxl_sched_result_free(&r);
}

/* ---- several tasks join one ---- */
typedef struct join_case {
    oxl_task *target;
    oxl_task *joiner[2];
    intptr_t got[2];
    int ok[2];
    bool cancel_other; /* the first joiner back cancels the other, woken but not yet run */
} join_case;

static void *answer_later(void *arg) {
    oxl_sleep(10 * OXL_MS);
    return arg;
}

static void *noop(void *arg) { return arg; }

static void *join_target(join_case *jc, int me) {
    void *v = NULL;
    jc->ok[me] = oxl_join(jc->target, &v) == OXL_JOIN_OK;
    jc->got[me] = (intptr_t)v;
    if (jc->cancel_other) oxl_task_cancel(jc->joiner[1 - me]);
    /* A new task takes the memory a freed record leaves. */
    oxl_task_detach(oxl_spawn(noop, NULL));
    return NULL;
}

static void *joiner0(void *arg) { return join_target(arg, 0); }
static void *joiner1(void *arg) { return join_target(arg, 1); }

static void *joiners_root(void *arg) {
    join_case *jc = arg;
    jc->target = oxl_spawn(answer_later, (void *)42);
    jc->joiner[0] = oxl_spawn(joiner0, jc);
    jc->joiner[1] = oxl_spawn(joiner1, jc);
    int ok = 0;
    for (int i = 0; i < 2; i++) ok += oxl_join(jc->joiner[i], NULL) == OXL_JOIN_OK;
    return (void *)(intptr_t)ok;
}

static void *cancelled_joiner_root(void *arg) {
    join_case *jc = arg;
    jc->target = oxl_spawn(answer_later, (void *)42);
    jc->joiner[0] = oxl_spawn(joiner0, jc);
    oxl_sleep(OXL_MS); /* the joiner blocks in join */
    oxl_task_cancel(jc->joiner[0]);
    void *v = NULL;
    jc->ok[1] = oxl_join(jc->target, &v) == OXL_JOIN_OK;
    jc->got[1] = (intptr_t)v;
    return NULL;
}

static void test_several_joiners(void) {
    for (uint64_t seed = 1; seed <= 4; seed++) {
        join_case jc = {0};
        oxl_sched_options o = opts(seed);
        oxl_sched_result r = oxl_sched_run(joiners_root, &jc, &o);
        tap_ok(r.status == OXL_SCHED_FINISHED && (intptr_t)r.value == 2 && jc.ok[0] && jc.ok[1] && jc.got[0] == 42 &&
                   jc.got[1] == 42,
               "seed %llu: two tasks joining one at once both get its result", (unsigned long long)seed);
        oxl_sched_result_free(&r);
    }
    join_case jc = {.cancel_other = true};
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(joiners_root, &jc, &o);
    tap_ok(r.status == OXL_SCHED_FINISHED && (intptr_t)r.value == 1 && jc.ok[0] + jc.ok[1] == 1,
           "a joiner cancelled after its wake, before it ran, leaves the other's join whole");
    oxl_sched_result_free(&r);

    jc = (join_case){0};
    r = oxl_sched_run(cancelled_joiner_root, &jc, &o);
    tap_ok(r.status == OXL_SCHED_FINISHED && jc.ok[1] && jc.got[1] == 42 && !jc.ok[0],
           "a joiner cancelled while it waits leaves the task to the next join");
    oxl_sched_result_free(&r);
}

/* A World event kills the node of the task that is stepping the World
 * from its own fiber (the last task to block does that). */
static void *sleeps_forever(void *arg) {
    for (;;) oxl_sleep(10 * OXL_MS);
    return NULL;
}

static void kill_n2(oxl_world *w, void *arg) { oxl_world_kill(w, oxl_world_node_by_name(w, "n2")); }

static void *driver_killed_root(void *arg) {
    oxl_node_config cfg = {.name = "n2"};
    oxl_node *n = oxl_node_new(&cfg);
    oxl_task *t = oxl_spawn_on_node(n, sleeps_forever, NULL);
    oxl_world_after(oxl_sched_world(), 25 * OXL_MS, "kill n2", kill_n2, NULL);
    oxl_join_status st = oxl_join(t, NULL); /* blocks first: t drives the World */
    return (void *)(intptr_t)(st == OXL_JOIN_CANCELLED ? oxl_now() : -1);
}

static void test_driver_cancelled(void) {
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(driver_killed_root, NULL, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a task killed while it steps the World ends cleanly");
    if (r.report) tap_diag("%s", r.report);
    tap_is_int((intptr_t)r.value, 25 * OXL_MS, "its joiner sees the cancellation at the kill's time");
    oxl_sched_result_free(&r);
}

/* ---- clock controls ---- */
static void *clock_root(void *arg) {
    transcript *log = arg;
    oxl_clock_advance(OXL_HOUR);
    say(log, "%lld ", (long long)(oxl_now() / OXL_SEC));
    oxl_clock_set(2 * OXL_HOUR);
    say(log, "%lld", (long long)(oxl_now() / OXL_SEC));
    oxl_clock_set(OXL_HOUR); /* the past */
    return NULL;
}

static void test_clock(void) {
    transcript log = {0};
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(clock_root, &log, &o);
    tap_is_str(log.text, "3600 7200", "clock.advance and clock.set sleep until then");
    tap_contains(r.report, "panic: clock.set to a time in the past", "setting the clock back panics");
    oxl_sched_result_free(&r);
}

/* ---- a wakeup from another thread is refused and counted ---- */
static void *foreign_thread(void *arg) {
    int v = 1;
    return (void *)(intptr_t)oxl_chan_send(arg, &v);
}

static void *foreign_root(void *arg) {
    oxl_chan *c = oxl_chan_new(1, sizeof(int));
    pthread_t th;
    void *rv = NULL;
    if (pthread_create(&th, NULL, foreign_thread, c) == 0) pthread_join(th, &rv);
    *(intptr_t *)arg = (intptr_t)rv;
    return (void *)oxl_chan_len(c);
}

static void test_foreign(void) {
    intptr_t status = -1;
    oxl_sched_options o = opts(1);
    oxl_sched_result r = oxl_sched_run(foreign_root, &status, &o);
    tap_is_uint(r.foreign_wakeups, 1, "a call from another thread is counted");
    tap_ok(status == OXL_CHAN_CLOSED && r.value == NULL, "and refused: nothing was sent");
    oxl_sched_result_free(&r);
}

/* ---- the same seed in fresh processes ---- */
static void *transcript_root(void *arg) {
    transcript *log = arg;
    race rc;
    memset(&rc, 0, sizeof rc);
    oxl_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = oxl_spawn(racer, &rc);
    for (int i = 0; i < 3; i++) oxl_join(t[i], NULL);
    oxl_chan *a = oxl_chan_new(1, sizeof(int)), *b = oxl_chan_new(1, sizeof(int));
    int x = 0, got;
    oxl_chan_send(a, &x);
    oxl_chan_send(b, &x);
    oxl_select_case k[] = {{a, false, &got}, {b, false, &got}};
    size_t pick = oxl_select(k, 2, -1, NULL);
    oxl_sleep((oxl_dur_ns)(oxl_rand() % 1000) * OXL_MS);
    say(log, "order=%s counter=%d select=%zu rand=%llu now=%lld", rc.order.text, rc.counter, pick,
        (unsigned long long)(oxl_rand() % 100000), (long long)oxl_now());
    return NULL;
}

static void transcript_of(uint64_t seed, char *out, size_t cap) {
    transcript log = {0};
    oxl_sched_options o = opts(seed);
    oxl_sched_result r = oxl_sched_run(transcript_root, &log, &o);
    snprintf(out, cap, "%.900s hash=%016llx switches=%llu", log.text, (unsigned long long)r.trace_hash,
             (unsigned long long)r.switches);
    oxl_sched_result_free(&r);
}

static bool child_transcript(uint64_t seed, char *out, size_t cap) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    char env_seed[64];
    snprintf(env_seed, sizeof env_seed, "OXL_SCHED_TEST_CHILD=%llu", (unsigned long long)seed);
    char *envp[] = {env_seed, "OXL_PADDING=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL};
    char *argv[] = {"sched_test", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) return false;
    ssize_t n = read(fds[0], out, cap - 1);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    out[n > 0 ? n : 0] = 0;
    return n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_fresh_processes(void) {
    bool all = true, differ = false;
    char first[1024] = "";
    for (uint64_t seed = 1; seed <= 5; seed++) {
        char here[1024], a[1024], b[1024];
        transcript_of(seed, here, sizeof here);
        all = child_transcript(seed, a, sizeof a) && child_transcript(seed, b, sizeof b) && strcmp(a, b) == 0 &&
              strcmp(here, a) == 0 && all;
        if (seed == 1) {
            tap_diag("seed 1: %s", here);
            snprintf(first, sizeof first, "%s", here);
        } else {
            differ = differ || strcmp(first, here) != 0;
        }
    }
    tap_ok(all, "same seed in two fresh processes: same interleaving, rand draws, select choice, virtual time and hash");
    tap_ok(differ, "other seeds give other transcripts");
}

/* A failed run's process exits 101 with the report on stderr. */
static void test_exit_status(void) {
    int err[2];
    if (pipe(err) != 0) {
        tap_ok(false, "pipe");
        return;
    }
    char *envp[] = {"OXL_SCHED_TEST_DEADLOCK=1", NULL};
    char *argv[] = {"sched_test", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addclose(&fa, err[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(err[1]);
    char buf[1024] = "";
    ssize_t n = rc == 0 ? read(err[0], buf, sizeof buf - 1) : -1;
    buf[n > 0 ? n : 0] = 0;
    close(err[0]);
    int status = 0;
    if (rc == 0) waitpid(pid, &status, 0);
    tap_ok(rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 101, "a deadlocked program exits with status 101");
    tap_contains(buf,
                 "deadlock: every task of the deterministic simulation is blocked\nwhat everyone was doing at "
                 "0.000000000s of virtual time:\n  task 1 on process: ",
                 "and prints the report on stderr");
}

int main(void) {
    if (getenv("OXL_SCHED_TEST_DEADLOCK")) {
        oxl_sched_options o = opts(1);
        oxl_sched_result r = oxl_sched_run(deadlock_root, NULL, &o);
        int status = oxl_sched_exit_status(&r, stderr);
        oxl_sched_result_free(&r);
        return status;
    }
    const char *child = getenv("OXL_SCHED_TEST_CHILD");
    if (child) {
        char out[1024];
        transcript_of(strtoull(child, NULL, 10), out, sizeof out);
        fputs(out, stdout);
        return 0;
    }
    test_sleeps_overlap();
    test_channels();
    test_bounded_blocks();
    test_select();
    test_seeds_and_replay();
    test_hash_covers_the_schedule();
    test_rand_is_the_seeds();
    test_preempt_on_wake();
    test_pct();
    test_reports();
    test_panic_and_world_failure();
    test_cancel();
    test_cancel_at_wait();
    test_cancelled_events();
    test_several_joiners();
    test_nodes();
    test_clock();
    test_driver_cancelled();
    test_foreign();
    test_fresh_processes();
    test_exit_status();
    return tap_done();
}
