/* sim_schedule_test: the World's fault log and its replay, a scheduler
 * run recorded and replayed (decisions and faults), and the schedule
 * file's reader and writer (oxl_schedule.h). */
#include "oxl_sched.h"
#include "oxl_schedule.h"
#include "oxl_sim.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a counting process ---- */
typedef struct counter {
    oxl_process base;
    int *received;
} counter;

static void c_start(oxl_process *self, oxl_ctx c) { (void)self, (void)c; }
static void c_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    (void)c, (void)from, (void)data, (void)len;
    (*((counter *)self)->received)++;
}
static void c_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops c_ops = {c_start, c_message, c_destroy};
static oxl_process *c_new(oxl_ctx c, void *arg) {
    (void)c;
    counter *p = calloc(1, sizeof *p);
    p->base.ops = &c_ops;
    p->received = arg;
    return &p->base;
}

/* Two nodes, 200 messages from n0 to n1 under drops and duplicates, run
 * to the end; mode 0 none, 1 records, 2 replays list. */
static oxl_world *lossy_run(int mode, const oxl_fault *list, size_t n, int *received) {
    oxl_world_options o = oxl_world_options_default(7);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "n0", c_new, received);
    oxl_world_add_node(w, "n1", c_new, received);
    oxl_world_run(w);
    if (mode == 1) oxl_world_record_faults(w);
    if (mode == 2) oxl_world_replay_faults(w, list, n);
    oxl_net_drop(w, 0.3);
    oxl_net_duplicate(w, 0.2);
    for (int i = 0; i < 200; i++) oxl_ctx_send(oxl_world_ctx(w, 0), 1, &i, sizeof i);
    oxl_world_run(w);
    return w;
}

static void test_message_faults(void) {
    int plain = 0, got = 0, again = 0, none = 0, one_less = 0;
    oxl_world *w0 = lossy_run(0, NULL, 0, &plain);
    const oxl_fault *log;
    tap_is_uint(oxl_world_fault_log(w0, &log), 0, "a World that does not record has no fault log");
    oxl_world *w = lossy_run(1, NULL, 0, &got);
    size_t n = oxl_world_fault_log(w, &log);
    size_t drops = 0, dups = 0;
    for (size_t i = 0; i < n; i++) {
        drops += log[i].kind == OXL_FAULT_DROP;
        dups += log[i].kind == OXL_FAULT_DUPLICATE;
    }
    tap_ok(drops > 20 && dups > 10, "the log holds the dice's drops (%zu) and duplicates (%zu)", drops, dups);
    tap_is_int(got, 200 - (int)drops + (int)dups, "every fault that fired is in the log");
    tap_is_int(got, plain, "recording changes nothing");
    tap_is_uint(oxl_world_trace_hash(w), oxl_world_trace_hash(w0), "not even the trace hash");
    tap_is_str(log[0].label, "n0>n1", "a message fault's label is its link");
    bool ordered = true;
    for (size_t i = 1; i < n; i++)
        if (log[i].kind == log[i - 1].kind && log[i].ordinal <= log[i - 1].ordinal) ordered = false;
    tap_ok(ordered, "ordinals grow within a kind");

    oxl_fault *copy = malloc(n * sizeof *copy);
    memcpy(copy, log, n * sizeof *copy);
    oxl_world *r = lossy_run(2, copy, n, &again);
    tap_is_int(again, got, "replaying the log gives the same deliveries");
    tap_is_uint(oxl_world_trace_hash(r), oxl_world_trace_hash(w), "and the same trace hash");
    oxl_world *e = lossy_run(2, NULL, 0, &none);
    tap_is_int(none, 200, "replaying an empty list: no fault fires, whatever the dice say");
    size_t k = 0;
    while (copy[k].kind != OXL_FAULT_DROP) k++;
    memmove(copy + k, copy + k + 1, (n - k - 1) * sizeof *copy);
    oxl_world *d = lossy_run(2, copy, n - 1, &one_less);
    tap_is_int(one_less, got + 1, "a drop taken out of the list is a message delivered");
    free(copy);
    oxl_world_free(w0);
    oxl_world_free(w);
    oxl_world_free(r);
    oxl_world_free(e);
    oxl_world_free(d);
}

static void test_partitions_and_kills(void) {
    int recv = 0;
    oxl_world_options o = oxl_world_options_default(3);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "api", c_new, &recv);
    oxl_world_add_node(w, "storage", c_new, &recv);
    oxl_world_run(w);
    oxl_world_record_faults(w);
    oxl_node_id a = 0, b = 1;
    oxl_net_partition(w, &a, 1, &b, 1, 2 * OXL_SEC);
    oxl_world_kill_after(w, b, OXL_SEC);
    oxl_world_restart_after(w, b, 3 * OXL_SEC);
    oxl_net_block_for(w, a, b, 5 * OXL_SEC);
    const oxl_fault *log;
    size_t n = oxl_world_fault_log(w, &log);
    tap_is_uint(n, 4, "a partition, a kill, a restart and a block are logged when asked for");
    tap_ok(n == 4 && log[0].kind == OXL_FAULT_PARTITION && log[0].dur == 2 * OXL_SEC && !strcmp(log[0].label, "api|storage"),
           "the partition with its sides and duration");
    tap_ok(n == 4 && log[1].kind == OXL_FAULT_KILL && log[1].at == OXL_SEC && !strcmp(log[1].label, "storage"),
           "the kill with its node and the time it lands");
    tap_ok(n == 4 && log[3].kind == OXL_FAULT_BLOCK && !strcmp(log[3].label, "api>storage"), "the block one way");
    oxl_world_free(w);

    /* replayed: the partition shortened to 1 ms, no kill, no block */
    w = oxl_world_new(&o);
    oxl_world_add_node(w, "api", c_new, &recv);
    oxl_world_add_node(w, "storage", c_new, &recv);
    oxl_world_run(w);
    oxl_fault keep = {.kind = OXL_FAULT_PARTITION, .ordinal = 0, .dur = OXL_MS};
    oxl_world_replay_faults(w, &keep, 1);
    oxl_net_partition(w, &a, 1, &b, 1, 2 * OXL_SEC);
    oxl_world_kill_after(w, b, OXL_SEC);
    oxl_net_block_for(w, a, b, 5 * OXL_SEC);
    tap_ok(oxl_net_is_blocked(w, a, b) && oxl_net_is_blocked(w, b, a), "a listed partition fires");
    oxl_world_run_for(w, 2 * OXL_MS);
    tap_ok(!oxl_net_is_blocked(w, a, b), "for the listed duration");
    oxl_world_run_for(w, 2 * OXL_SEC);
    tap_ok(oxl_world_is_up(w, b), "an unlisted kill does not fire");
    n = oxl_world_fault_log(w, &log);
    tap_ok(n == 1 && log[0].kind == OXL_FAULT_PARTITION && log[0].dur == OXL_MS && !strcmp(log[0].label, "api|storage"),
           "a replay's log is the listed faults that fired, with the duration they had");
    oxl_world_free(w);
}

/* A node's disk: 40 writes with write and sync failures at 30% each, then
 * 5 unsynced writes and a crash; returns how many writes failed and sets
 * *kept to the keys the crash kept of the 5. */
static int disk_run(int mode, const oxl_fault *list, size_t n, int *kept, oxl_fault **log_out, size_t *nlog) {
    int recv = 0, failed = 0;
    oxl_world_options o = oxl_world_options_default(21);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "db", c_new, &recv);
    oxl_world_run(w);
    if (mode == 1) oxl_world_record_faults(w);
    if (mode == 2) oxl_world_replay_faults(w, list, n);
    oxl_world_set_disk_fail_rate(w, 0, 0.3, 0.3);
    oxl_disk *d = oxl_world_disk(w, 0);
    char key[16];
    for (int i = 0; i < 40; i++) {
        snprintf(key, sizeof key, "k%d", i);
        failed += oxl_disk_put(d, key, "v", 1) == OXL_DISK_EIO;
        failed += oxl_disk_sync(d) == OXL_DISK_EIO;
    }
    oxl_world_set_disk_fail_rate(w, 0, 0, 0);
    while (oxl_disk_sync(d) != OXL_DISK_OK) {
    }
    size_t before = oxl_disk_key_count(d);
    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof key, "u%d", i);
        oxl_disk_put(d, key, "v", 1);
    }
    oxl_world_kill(w, 0);
    *kept = (int)(oxl_disk_key_count(oxl_world_disk(w, 0)) - before);
    if (log_out) {
        const oxl_fault *log;
        *nlog = oxl_world_fault_log(w, &log);
        *log_out = malloc((*nlog ? *nlog : 1) * sizeof **log_out);
        memcpy(*log_out, log, *nlog * sizeof **log_out);
    }
    oxl_world_free(w);
    return failed;
}

static void test_disk_faults(void) {
    int kept = 0, kept_none = 0, kept_again = 0;
    oxl_fault *log;
    size_t n;
    int failed = disk_run(1, NULL, 0, &kept, &log, &n);
    size_t io = 0, lost = 0;
    for (size_t i = 0; i < n; i++) {
        io += log[i].kind == OXL_FAULT_WRITE_FAIL || log[i].kind == OXL_FAULT_SYNC_FAIL;
        lost += log[i].kind == OXL_FAULT_LOST_WRITES;
    }
    tap_ok(failed > 5 && (size_t)failed == io, "every failed write and sync is a fault of the log (%d)", failed);
    tap_ok(lost == 1 && kept < 5, "a crash that lost unsynced writes is one (it kept %d of 5)", kept);
    tap_ok(n > 0 && !strcmp(log[0].label, "db"), "labelled with the node");
    int again = disk_run(2, log, n, &kept_again, NULL, NULL);
    tap_ok(again == failed && kept_again == kept, "replayed, the same failures and the same loss");
    int none = disk_run(2, NULL, 0, &kept_none, NULL, NULL);
    tap_ok(none == 0 && kept_none == 5, "with none listed no write fails and the crash keeps every write");
    free(log);
}

/* ---- a scheduler run: tasks racing, a node killed ---- */
static int order[16], norder;

static void *racer(void *arg) {
    for (int i = 0; i < 3; i++) {
        oxl_yield();
        if (norder < 16) order[norder++] = (int)(intptr_t)arg;
    }
    return NULL;
}

static void *race_root(void *arg) {
    (void)arg;
    oxl_node_config ca = {.name = "a"}, cb = {.name = "b"};
    oxl_node *na = oxl_node_new(&ca), *nb = oxl_node_new(&cb);
    oxl_node_id ia = oxl_node_world_id(na), ib = oxl_node_world_id(nb);
    oxl_net_partition(oxl_sched_world(), &ia, 1, &ib, 1, OXL_SEC);
    oxl_world_kill_after(oxl_sched_world(), ib, 10 * OXL_MS);
    oxl_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = oxl_spawn(racer, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 3; i++) oxl_join(t[i], NULL);
    oxl_sleep(20 * OXL_MS);
    return NULL;
}

static void test_sched_record_replay(void) {
    oxl_sched_options o;
    oxl_sched_options_default(&o, 11);
    o.record_schedule = true;
    o.record_faults = true;
    norder = 0;
    oxl_sched_result r = oxl_sched_run(race_root, NULL, &o);
    int first[16];
    memcpy(first, order, sizeof first);
    tap_ok(r.status == OXL_SCHED_FINISHED && r.schedule_len > 3, "a random run records its decisions (%zu)",
           r.schedule_len);
    tap_is_uint(r.nfaults, 2, "and its faults");

    oxl_sched_options p;
    oxl_sched_options_default(&p, 11);
    p.policy = OXL_POLICY_SCRIPTED;
    p.script = r.schedule;
    p.script_len = r.schedule_len;
    p.replay_faults = true;
    p.faults = r.faults;
    p.nfaults = r.nfaults;
    norder = 0;
    oxl_sched_result q = oxl_sched_run(race_root, NULL, &p);
    tap_is_uint(q.trace_hash, r.trace_hash, "the scripted replay of both is the same run");
    tap_ok(memcmp(order, first, sizeof first) == 0, "the tasks ran in the same order");
    oxl_sched_result_free(&q);

    p.nfaults = 1; /* the partition only: the kill is gone */
    q = oxl_sched_run(race_root, NULL, &p);
    tap_ok(q.trace_hash != r.trace_hash, "without the kill it is another run");
    oxl_sched_result_free(&q);

    p.script_len = 0; /* FIFO from the start */
    p.nfaults = r.nfaults;
    norder = 0;
    q = oxl_sched_run(race_root, NULL, &p);
    bool fifo = true;
    for (int i = 0; i + 1 < norder; i++)
        if (order[i] > order[i + 1] && !(order[i] == 3 && order[i + 1] == 1)) fifo = false;
    tap_ok(q.status == OXL_SCHED_FINISHED && fifo, "past the end of the script the policy is FIFO: 1 2 3 1 2 3 ...");
    oxl_sched_result_free(&q);
    oxl_sched_result_free(&r);
}

/* ---- the file ---- */

static bool parses(const char *text, char *err, size_t cap) {
    oxl_schedule s;
    bool ok = oxl_schedule_parse(text, strlen(text), &s, err, cap);
    oxl_schedule_free(&s);
    return ok;
}

static void test_file(void) {
    oxl_schedule s;
    memset(&s, 0, sizeof s);
    memset(s.binary, 'a', 64);
    s.test = "a\ttest\nwith \\ escapes";
    s.seed = 42;
    s.failure = "x.oxl:3\tassertion failed: ";
    uint32_t dec[40];
    for (int i = 0; i < 40; i++) dec[i] = (uint32_t)(i % 3);
    s.decisions = dec;
    s.ndecisions = 40;
    oxl_fault f[2] = {{.kind = OXL_FAULT_PARTITION, .ordinal = 0, .at = 5, .dur = OXL_SEC, .label = "api|storage"},
                      {.kind = OXL_FAULT_DROP, .ordinal = 17, .at = 9, .label = "a>b\x01"}};
    s.faults = f;
    s.nfaults = 2;
    size_t len;
    char *text = oxl_schedule_format(&s, &len);
    tap_contains(text, "oxl-schedule 1\nbinary aaaa", "the header names the version and the binary");
    tap_contains(text, "test a\\ttest\\nwith \\\\ escapes\n", "a name's escapes");
    tap_contains(text, "partition 0 5 1000000000 api|storage\n", "a fault line");
    oxl_schedule t;
    char err[256] = "";
    tap_ok(oxl_schedule_parse(text, len, &t, err, sizeof err), "what it writes it reads back (%s)", err);
    tap_is_str(t.test, s.test, "the name");
    tap_ok(t.seed == 42 && t.ndecisions == 40 && memcmp(t.decisions, dec, sizeof dec) == 0, "the seed and decisions");
    tap_ok(t.nfaults == 2 && t.faults[1].ordinal == 17 && !strcmp(t.faults[1].label, "a>b\x01") &&
               t.faults[0].dur == OXL_SEC,
           "the faults");
    tap_is_str(t.failure, s.failure, "the failure");
    oxl_schedule_free(&t);
    free(text);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "line 1: not a schedule file"},
        {"oxl-schedule 2\n", "line 1: schedule format version '2', this build reads version 1"},
        {"oxl-schedule 1\ntest x\nseed -1\n", "line 3: expected 'seed <n>'"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 2\n1\n", "line 6: the file ends before the last decision"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 1\n1 2\n", "line 5: more decisions than the 1 announced"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 1\n1  \n", "line 5: a decisions line is numbers"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 0\nfaults 1\nflood 0 0 0 x\nend\n", "line 6: 'flood' is not a fault kind"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 0\nfaults 2\ndrop 3 0 0 x\ndrop 3 0 0 y\nend\n",
         "line 7: the fault drop 3 is listed twice"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 0\nfaults 0\nend\nmore\n", "line 7: text after 'end'"},
        {"oxl-schedule 1\ntest x\\q\n", "line 2: expected 'test <name>'"},
        {"oxl-schedule 1\nbinary 12\n", "line 2: the binary's identity must be 64 lowercase hex digits"},
        {"oxl-schedule 1\ntest x\nseed 1\ndecisions 99999999999\n", "line 4: expected 'decisions <n>' (at most"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        bool ok = parses(bad[i].text, err, sizeof err);
        tap_ok(!ok && strncmp(err, bad[i].why, strlen(bad[i].why)) == 0, "refused: %s (%s)", bad[i].why, err);
    }
    const char nul[] = "oxl-schedule 1\n\0";
    oxl_schedule u;
    tap_ok(!oxl_schedule_parse(nul, sizeof nul - 1, &u, err, sizeof err) && strstr(err, "NUL"), "a NUL byte: %s", err);
    tap_ok(parses("oxl-schedule 1\ntest x\nseed 0\ndecisions 0\nfaults 0\nend", err, sizeof err),
           "the last newline may be missing");
}

int main(void) {
    test_message_faults();
    test_partitions_and_kills();
    test_disk_faults();
    test_sched_record_replay();
    test_file();
    return tap_done();
}
