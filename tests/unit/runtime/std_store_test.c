/* std_store_test: std.store's C side in both backends. In a simulation: a
 * synced write survives a kill and a restart, unsynced writes are lost
 * as a seeded prefix (measured over many seeds), disk.fail reaches put and
 * sync, limits, sorted keys, one store per node, the kind-mismatch and
 * process-node panics. In file mode: a round trip with no run at all,
 * persistence across a re-open, torn and corrupt tails cut off, a real
 * I/O error (the file size limit) as io, the same limits, nodes of a
 * real-time run in their own directories, and OXL_DATA_DIR problems as
 * panics naming the variable. */
#include "oxl_sched.h"
#include "oxl_std_store.h"
#include "tap.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static oxl_string S(const char *s) { return oxl_str_from_cstr(s); }
static oxl_string SN(const char *s, size_t n) { return oxl_str_from_lit(s, (int64_t)n); }

/* The OxL results: a write's [] or [kind, message]; a read's [] or [v]. */
static bool ok(oxl_list r) { return oxl_list_len(r) == 0; }
static const char *kind_of(oxl_list r) {
    return oxl_list_len(r) == 2 ? oxl_str_cstr(oxl_word_to_str(r->items[0])) : "(none)";
}
static const char *message_of(oxl_list r) {
    return oxl_list_len(r) == 2 ? oxl_str_cstr(oxl_word_to_str(r->items[1])) : "(none)";
}
/* get(key) as a C string, NULL when absent. */
static const char *get_s(const char *key) {
    oxl_list r = oxl_std_store_native_getString(S(key));
    return oxl_list_len(r) ? oxl_str_cstr(oxl_word_to_str(r->items[0])) : NULL;
}
static bool get_i(const char *key, int64_t *v) {
    oxl_list r = oxl_std_store_native_getInt(S(key));
    if (!oxl_list_len(r)) return false;
    *v = (int64_t)r->items[0];
    return true;
}
/* keys() joined with commas. */
static const char *keys_text(void) {
    static char buf[4096];
    oxl_list l = oxl_std_store_keys();
    buf[0] = '\0';
    for (int64_t i = 0; i < oxl_list_len(l); i++) {
        if (i) strncat(buf, ",", sizeof buf - strlen(buf) - 1);
        strncat(buf, oxl_str_cstr(oxl_word_to_str(l->items[i])), sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

static void join_on(oxl_node *n, oxl_task_fn fn, void *arg) {
    oxl_join(oxl_spawn_on_node(n, fn, arg), NULL);
}

static oxl_node *node(const char *name) { return oxl_node_new(&(oxl_node_config){.name = name}); }

static oxl_sched_result sim_run(oxl_task_fn root, void *arg, uint64_t seed) {
    oxl_sched_options o;
    oxl_sched_options_default(&o, seed);
    return oxl_sched_run(root, arg, &o);
}

/* ---- simulation: durability ---- */

typedef struct durable {
    bool put_ok, sync_ok, after_restart, unsynced_visible;
    int64_t n;
    bool has_n;
} durable;

static void *write_synced(void *arg) {
    durable *d = arg;
    d->put_ok = ok(oxl_std_store_native_putString(S("name"), S("ada"))) &&
                ok(oxl_std_store_native_putInt(S("n"), -42)) &&
                ok(oxl_std_store_native_putBytes(S("raw"), SN("a\0b", 3)));
    d->sync_ok = ok(oxl_std_store_native_sync());
    return NULL;
}

static void *read_back(void *arg) {
    durable *d = arg;
    const char *v = get_s("name");
    oxl_list raw = oxl_std_store_native_getBytes(S("raw"));
    d->after_restart = v && strcmp(v, "ada") == 0 && oxl_list_len(raw) == 1 &&
                       oxl_bytes_len(oxl_word_to_str(raw->items[0])) == 3 &&
                       memcmp(oxl_str_cstr(oxl_word_to_str(raw->items[0])), "a\0b", 3) == 0;
    d->has_n = get_i("n", &d->n);
    return NULL;
}

static void *durable_root(void *arg) {
    oxl_node *n1 = node("n1");
    join_on(n1, write_synced, arg);
    oxl_node_kill(n1);
    oxl_node_restart(n1);
    oxl_sleep(OXL_MS);
    join_on(n1, read_back, arg);
    oxl_node_kill(n1); /* twice: a second crash loses nothing synced either */
    oxl_node_restart(n1);
    oxl_sleep(OXL_MS);
    join_on(n1, read_back, arg);
    return NULL;
}

static void test_synced_survives(void) {
    durable d = {0};
    oxl_sched_result r = sim_run(durable_root, &d, 5);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "sim: a node writes, syncs, is killed and restarted twice");
    tap_ok(d.put_ok && d.sync_ok, "sim: put, putInt, putBytes and sync succeed");
    tap_ok(d.after_restart, "sim: a synced String and Bytes (with a NUL) survive kill + restart");
    tap_ok(d.has_n && d.n == -42, "sim: so does a negative Int (%lld)", (long long)d.n);
    oxl_sched_result_free(&r);
}

/* ---- simulation: unsynced writes lost as a seeded prefix ---- */

#define CRASH_WRITES 10
typedef struct crash {
    int kept;        /* unsynced writes found after the restart */
    bool prefix;     /* never a later one without the earlier ones */
    bool base;       /* the synced write before them survived */
    bool visible;    /* before the crash every write was readable */
} crash;

static void *write_unsynced(void *arg) {
    crash *c = arg;
    oxl_std_store_native_putString(S("base"), S("synced"));
    oxl_std_store_native_sync();
    char key[16];
    c->visible = true;
    for (int i = 0; i < CRASH_WRITES; i++) {
        snprintf(key, sizeof key, "k%d", i);
        oxl_std_store_native_putInt(S(key), i);
        int64_t v;
        c->visible = c->visible && get_i(key, &v) && v == i;
    }
    return NULL;
}

static void *count_survivors(void *arg) {
    crash *c = arg;
    const char *b = get_s("base");
    c->base = b && strcmp(b, "synced") == 0;
    c->prefix = true;
    char key[16];
    for (int i = 0; i < CRASH_WRITES; i++) {
        snprintf(key, sizeof key, "k%d", i);
        int64_t v;
        bool present = get_i(key, &v) && v == i;
        if (present && c->kept != i) c->prefix = false;
        if (present) c->kept++;
    }
    return NULL;
}

static void *crash_root(void *arg) {
    oxl_node *n0 = node("n0");
    join_on(n0, write_unsynced, arg);
    oxl_node_kill(n0);
    oxl_node_restart(n0);
    oxl_sleep(OXL_MS);
    join_on(n0, count_survivors, arg);
    return NULL;
}

static void test_unsynced_prefix(void) {
    enum { SEEDS = 400 };
    int hist[CRASH_WRITES + 1] = {0};
    bool all_prefix = true, all_base = true, all_visible = true, all_finished = true, repeatable = true;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        crash c = {0};
        oxl_sched_result r = sim_run(crash_root, &c, seed);
        all_finished = all_finished && r.status == OXL_SCHED_FINISHED;
        oxl_sched_result_free(&r);
        all_prefix = all_prefix && c.prefix;
        all_base = all_base && c.base;
        all_visible = all_visible && c.visible;
        hist[c.kept]++;
        if (seed <= 20) { /* the same seed keeps the same prefix */
            crash again = {0};
            r = sim_run(crash_root, &again, seed);
            oxl_sched_result_free(&r);
            repeatable = repeatable && again.kept == c.kept;
        }
    }
    int partial = SEEDS - hist[0] - hist[CRASH_WRITES], lengths = 0;
    for (int k = 0; k <= CRASH_WRITES; k++) lengths += hist[k] > 0;
    tap_ok(all_finished && all_visible, "sim: %d seeds ran; unsynced writes are readable before the crash", SEEDS);
    tap_ok(all_base, "sim: the synced write survives in every seed");
    tap_ok(all_prefix, "sim: a crash keeps a prefix of the unsynced writes, never a later one alone");
    tap_ok(hist[0] > 0 && hist[CRASH_WRITES] > 0 && partial > 0,
           "sim: all %d lost in %d seeds, all kept in %d, partly kept in %d", CRASH_WRITES, hist[0],
           hist[CRASH_WRITES], partial);
    tap_ok(lengths == CRASH_WRITES + 1, "sim: every prefix length 0..%d occurs (%d of %d)", CRASH_WRITES, lengths,
           CRASH_WRITES + 1);
    tap_ok(repeatable, "sim: the kept prefix is a function of the seed");
    int lost = 0;
    for (int k = 0; k <= CRASH_WRITES; k++) lost += hist[k] * (CRASH_WRITES - k);
    tap_diag("loss over %d seeds of %d unsynced writes: %.1f%% of the writes lost; kept-prefix histogram:", SEEDS,
             CRASH_WRITES, 100.0 * lost / (SEEDS * CRASH_WRITES));
    for (int k = 0; k <= CRASH_WRITES; k++) tap_diag("  kept %2d: %d seeds", k, hist[k]);
}

/* ---- simulation: disk.fail, limits, keys, isolation ---- */

typedef struct faults {
    oxl_list put_fail, sync_fail, del_fail, after_repair;
    bool unchanged, still_unsynced_after_failed_sync;
} faults;

static void *fault_body(void *arg) {
    faults *f = arg;
    oxl_world *w = oxl_sched_world();
    oxl_node_id self = oxl_node_world_id(oxl_node_current());
    oxl_std_store_native_putString(S("k"), S("old"));
    oxl_std_store_native_sync();
    oxl_world_set_disk_fail_rate(w, self, 1.0, 0.0);
    f->put_fail = oxl_std_store_native_putString(S("k"), S("new"));
    f->del_fail = oxl_std_store_native_delete(S("k"));
    const char *v = get_s("k");
    f->unchanged = v && strcmp(v, "old") == 0;
    oxl_world_set_disk_fail_rate(w, self, 0.0, 1.0);
    oxl_std_store_native_putString(S("k"), S("new"));
    f->sync_fail = oxl_std_store_native_sync();
    f->still_unsynced_after_failed_sync = oxl_disk_unsynced(oxl_world_disk(w, self)) == 1;
    oxl_world_set_disk_fail_rate(w, self, 0.0, 0.0);
    f->after_repair = oxl_std_store_native_sync();
    return NULL;
}

static void *fault_root(void *arg) {
    join_on(node("n0"), fault_body, arg);
    return NULL;
}

static void test_disk_fail(void) {
    faults f;
    memset(&f, 0, sizeof f);
    oxl_sched_result r = sim_run(fault_root, &f, 9);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "sim: a body under disk.fail finishes");
    tap_is_str(kind_of(f.put_fail), "io", "sim: write rate 1.0: put reports io");
    tap_contains(message_of(f.put_fail), "put \"k\": injected I/O error (disk.fail)", "naming the call and the key");
    tap_is_str(kind_of(f.del_fail), "io", "sim: and delete too");
    tap_ok(f.unchanged, "sim: a failed write changes nothing");
    tap_is_str(kind_of(f.sync_fail), "io", "sim: sync rate 1.0: sync reports io");
    tap_contains(message_of(f.sync_fail), "1 writes stay unsynced", "saying the writes stay unsynced");
    tap_ok(f.still_unsynced_after_failed_sync, "sim: and they do");
    tap_ok(ok(f.after_repair), "sim: after disk.fail(write: 0, sync: 0) sync works again");
    oxl_sched_result_free(&r);
}

typedef struct limits {
    oxl_list long_key, empty_key, nul_key, big_value, max_value, too_many_keys, overwrite_at_limit, too_many_unsynced;
    oxl_list del_missing, del_bad_key;
    bool get_bad_key_none;
} limits;

static void *limit_body(void *arg) {
    limits *l = arg;
    char key[300];
    memset(key, 'k', sizeof key);
    l->long_key = oxl_std_store_native_putString(SN(key, OXL_STORE_MAX_KEY + 1), S("v"));
    l->empty_key = oxl_std_store_native_putString(S(""), S("v"));
    l->nul_key = oxl_std_store_native_putString(SN("a\0b", 3), S("v"));
    l->get_bad_key_none = oxl_list_len(oxl_std_store_native_getString(S(""))) == 0;
    l->del_missing = oxl_std_store_native_delete(S("never"));
    l->del_bad_key = oxl_std_store_native_delete(S(""));
    char *big = calloc(OXL_STORE_MAX_VALUE + 1, 1);
    l->big_value = oxl_std_store_native_putBytes(S("big"), SN(big, OXL_STORE_MAX_VALUE + 1));
    l->max_value = oxl_std_store_native_putBytes(S("big"), SN(big, OXL_STORE_MAX_VALUE));
    free(big);
    oxl_std_store_native_sync();
    oxl_std_store_native_delete(S("big"));
    for (int i = 0; i < OXL_STORE_MAX_KEYS; i++) {
        snprintf(key, sizeof key, "%06d", i);
        oxl_std_store_native_putInt(S(key), i);
        if (i % 1000 == 0) oxl_std_store_native_sync();
    }
    oxl_std_store_native_sync();
    l->too_many_keys = oxl_std_store_native_putInt(S("one-more"), 1);
    l->overwrite_at_limit = oxl_std_store_native_putInt(S("000000"), 2);
    for (int i = 1; i < OXL_STORE_MAX_UNSYNCED; i++) oxl_std_store_native_putInt(S("000001"), i);
    l->too_many_unsynced = oxl_std_store_native_putInt(S("000001"), 0);
    return NULL;
}

static void *limit_root(void *arg) {
    join_on(node("n0"), limit_body, arg);
    return NULL;
}

static void check_limits(const char *mode, limits *l) {
    tap_is_str(kind_of(l->long_key), "limit", "%s: a key over 255 bytes is a limit error", mode);
    tap_contains(message_of(l->long_key), "put: the key is over 255 bytes", "%s: saying so", mode);
    tap_contains(message_of(l->empty_key), "the key is empty", "%s: an empty key too", mode);
    tap_contains(message_of(l->nul_key), "the key contains a NUL byte", "%s: a key with U+0000 too", mode);
    tap_ok(l->get_bad_key_none, "%s: get of a key that cannot exist is none", mode);
    tap_ok(ok(l->del_missing) && ok(l->del_bad_key), "%s: deleting a missing key is not an error", mode);
    tap_contains(message_of(l->big_value), "putBytes \"big\": the value is 1048576 bytes, over the limit of 1048575",
                 "%s: a value over the limit", mode);
    tap_ok(ok(l->max_value), "%s: a value at the limit is stored", mode);
    tap_contains(message_of(l->too_many_keys), "putInt \"one-more\": the store holds 65536 keys, the limit",
                 "%s: a key past 65536 keys", mode);
    tap_ok(ok(l->overwrite_at_limit), "%s: overwriting a key at the key limit works", mode);
    tap_contains(message_of(l->too_many_unsynced), "65536 writes are not synced, the limit (call sync)",
                 "%s: a write past 65536 unsynced ones", mode);
    tap_is_str(kind_of(l->too_many_unsynced), "limit", "%s: of kind limit", mode);
}

static void test_sim_limits(void) {
    limits l;
    memset(&l, 0, sizeof l);
    oxl_sched_result r = sim_run(limit_root, &l, 3);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "sim: the limits body finishes");
    check_limits("sim", &l);
    oxl_sched_result_free(&r);
}

typedef struct iso {
    char n0_keys[256], n1_keys[256], n1_after[256];
    bool n1_no_a;
} iso;

static void *iso_n0(void *arg) {
    iso *s = arg;
    const char *puts[] = {"b", "\xc3\xa9t\xc3\xa9", "a", "ab", "B", "a b"};
    for (size_t i = 0; i < sizeof puts / sizeof *puts; i++) oxl_std_store_native_putString(S(puts[i]), S("0"));
    snprintf(s->n0_keys, sizeof s->n0_keys, "%s", keys_text());
    return NULL;
}

static void *iso_n1(void *arg) {
    iso *s = arg;
    snprintf(s->n1_keys, sizeof s->n1_keys, "%s", keys_text());
    s->n1_no_a = get_s("a") == NULL;
    oxl_std_store_native_putInt(S("z"), 1);
    oxl_std_store_native_delete(S("a"));
    snprintf(s->n1_after, sizeof s->n1_after, "%s", keys_text());
    return NULL;
}

static void *iso_root(void *arg) {
    oxl_node *n0 = node("n0"), *n1 = node("n1");
    join_on(n0, iso_n0, arg);
    join_on(n1, iso_n1, arg);
    return NULL;
}

static void test_keys_and_isolation(void) {
    iso s;
    memset(&s, 0, sizeof s);
    oxl_sched_result r = sim_run(iso_root, &s, 1);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "sim: two nodes use their stores");
    tap_is_str(s.n0_keys, "B,a,a b,ab,b,\xc3\xa9t\xc3\xa9", "sim: keys() is sorted bytewise");
    tap_ok(s.n1_no_a && s.n1_keys[0] == '\0', "sim: another node sees none of them");
    tap_is_str(s.n1_after, "z", "sim: and its writes and deletes stay its own");
    oxl_sched_result_free(&r);
}

/* ---- panics ---- */

static void *store_int(void *arg) {
    oxl_std_store_native_putInt(S("count"), 3);
    oxl_std_store_native_getString(S("count"));
    return NULL;
}

static void *store_bytes_read_int(void *arg) {
    oxl_std_store_native_putBytes(S("blob"), SN("xy", 2));
    oxl_std_store_native_getInt(S("blob"));
    return NULL;
}

static void *mismatch_root(void *arg) {
    join_on(node("n0"), arg, NULL);
    return NULL;
}

static void *process_node_put(void *arg) {
    oxl_std_store_native_putString(S("k"), S("v"));
    return NULL;
}

static void test_sim_panics(void) {
    oxl_sched_result r = sim_run(mismatch_root, (void *)store_int, 1);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "sim: reading an Int as a String panics");
    tap_contains(r.report, "std.store.get: key \"count\" holds an Int, not a String (read it with getInt)",
                 "naming the key, both kinds and the right reader");
    oxl_sched_result_free(&r);
    r = sim_run(mismatch_root, (void *)store_bytes_read_int, 1);
    tap_contains(r.report, "std.store.getInt: key \"blob\" holds Bytes, not an Int (read it with getBytes)",
                 "sim: Bytes read as an Int too");
    oxl_sched_result_free(&r);
    r = sim_run(process_node_put, NULL, 1);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "sim: a task of the process node cannot use the store");
    tap_contains(r.report, "std.store.put: this task runs on the process node, which has no simulated disk",
                 "saying why");
    oxl_sched_result_free(&r);
}

/* ---- file mode ---- */

static char data_root[256];

static void fresh_data_dir(void) {
    snprintf(data_root, sizeof data_root, "%s/oxl-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(data_root)) tap_bail("mkdtemp failed");
    setenv("OXL_DATA_DIR", data_root, 1);
    oxl_std_store_close_all();
}

static void remove_tree(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) tap_diag("could not remove %s", dir);
}

static char *log_path(const char *node_name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s/%s", data_root, node_name, OXL_STORE_LOG_FILE);
    return p;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void truncate_to(const char *path, long size) {
    if (truncate(path, size) != 0) tap_bail("truncate %s failed", path);
}

static void append_bytes(const char *path, const void *b, size_t n) {
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0 || write(fd, b, n) != (ssize_t)n) tap_bail("append to %s failed", path);
    close(fd);
}

static void test_file_round_trip(void) {
    fresh_data_dir();
    tap_ok(!oxl_sched_active(), "file: no scheduler runs (the store works without one)");
    tap_ok(ok(oxl_std_store_native_putString(S("name"), S("ada"))), "file: put");
    tap_ok(ok(oxl_std_store_native_putInt(S("n"), INT64_MIN)), "file: putInt");
    tap_ok(ok(oxl_std_store_native_putBytes(S("raw"), SN("\0\xff", 2))), "file: putBytes");
    tap_ok(ok(oxl_std_store_native_putString(S("gone"), S("x"))) && ok(oxl_std_store_native_delete(S("gone"))),
           "file: put and delete");
    tap_is_str(get_s("name"), "ada", "file: get reads a write at once");
    tap_is_str(keys_text(), "n,name,raw", "file: keys() sorted, the deleted key gone");
    tap_ok(ok(oxl_std_store_native_sync()), "file: sync");
    tap_ok(file_size(log_path("process")) > (long)OXL_STORE_LOG_HEADER, "file: the log is %s",
           log_path("process"));
    oxl_std_store_close_all(); /* a process restart */
    int64_t n = 0;
    tap_ok(get_i("n", &n) && n == INT64_MIN, "file: after a re-open the Int is back");
    oxl_list raw = oxl_std_store_native_getBytes(S("raw"));
    tap_ok(oxl_list_len(raw) == 1 && oxl_bytes_len(oxl_word_to_str(raw->items[0])) == 2 &&
               memcmp(oxl_str_cstr(oxl_word_to_str(raw->items[0])), "\0\xff", 2) == 0,
           "file: and the Bytes");
    tap_is_str(keys_text(), "n,name,raw", "file: and the keys, without the deleted one");
    tap_ok(ok(oxl_std_store_native_putString(S("name"), S("grace"))), "file: overwrite after a re-open");
    oxl_std_store_close_all();
    tap_is_str(get_s("name"), "grace", "file: the last write wins after replay");
    remove_tree(data_root);
}

static void test_file_torn_tail(void) {
    fresh_data_dir();
    oxl_std_store_native_putString(S("a"), S("1"));
    oxl_std_store_native_sync();
    long after_a = file_size(log_path("process"));
    oxl_std_store_native_putString(S("b"), S("2"));
    long after_b = file_size(log_path("process"));
    oxl_std_store_close_all();
    truncate_to(log_path("process"), after_b - 3); /* a crash tore b's record */
    tap_is_str(get_s("a"), "1", "file: a torn tail: the records before it are read");
    tap_ok(get_s("b") == NULL, "file: the torn record is dropped");
    tap_is_int(file_size(log_path("process")), after_a, "file: and cut off the file");
    oxl_std_store_native_putString(S("c"), S("3"));
    oxl_std_store_close_all();
    tap_ok(get_s("a") && get_s("c") && !get_s("b"), "file: a write after the cut is read back after the next open");

    /* corrupt bytes at the end: a checksum that does not match */
    oxl_std_store_native_putString(S("d"), S("4"));
    long before_d = file_size(log_path("process")) - (long)(8 + 4 + 1 + 1);
    oxl_std_store_close_all();
    int fd = open(log_path("process"), O_WRONLY);
    if (fd < 0 || pwrite(fd, "X", 1, file_size(log_path("process")) - 1) != 1) tap_bail("cannot corrupt the log");
    close(fd);
    tap_ok(!get_s("d") && get_s("c"), "file: a record failing its checksum is dropped, earlier ones kept");
    tap_is_int(file_size(log_path("process")), before_d, "file: and cut off");
    oxl_std_store_close_all();
    append_bytes(log_path("process"), "\xff\xff\xff\x7f garbage", 12);
    tap_ok(get_s("c") != NULL && strcmp(keys_text(), "a,c") == 0, "file: garbage with a huge length is ignored");

    /* a header torn before the first sync is a new log */
    oxl_std_store_close_all();
    truncate_to(log_path("process"), 5);
    tap_is_str(keys_text(), "", "file: a torn header is an empty store");
    tap_is_int(file_size(log_path("process")), OXL_STORE_LOG_HEADER, "file: with its header written again");
    remove_tree(data_root);
}

/* ---- file mode inside runs: nodes, panics ---- */

static oxl_sched_result rt_run(oxl_task_fn root, void *arg) {
    oxl_sched_options o;
    oxl_sched_options_real_time(&o);
    return oxl_sched_run(root, arg, &o);
}

static void *rt_node_body(void *arg) {
    oxl_std_store_native_putString(S("who"), S(oxl_node_name(oxl_node_current())));
    oxl_std_store_native_sync();
    return NULL;
}

static void *rt_root(void *arg) {
    join_on(node("w-0"), rt_node_body, NULL);
    join_on(node("w-1"), rt_node_body, NULL);
    rt_node_body(NULL); /* the process node */
    return NULL;
}

static void *rt_put(void *arg) {
    oxl_std_store_native_putString(S("k"), S("v"));
    return NULL;
}

static void test_file_nodes_and_panics(void) {
    fresh_data_dir();
    oxl_sched_result r = rt_run(rt_root, NULL);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "file: a real-time run with two nodes");
    oxl_sched_result_free(&r);
    tap_ok(file_size(log_path("w-0")) > 0 && file_size(log_path("w-1")) > 0 && file_size(log_path("process")) > 0,
           "file: each node (and the process) has its own $OXL_DATA_DIR/<node>/store.log");
    oxl_std_store_close_all();
    tap_is_str(get_s("who"), "process", "file: the process node reads its own store");

    remove_tree(data_root);

    unsetenv("OXL_DATA_DIR");
    oxl_std_store_close_all();
    r = rt_run(rt_put, NULL);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "file: OXL_DATA_DIR unset panics");
    tap_contains(r.report, "std.store.put: OXL_DATA_DIR is not set: outside a simulation the store of node 'process' "
                           "is a file in $OXL_DATA_DIR/process/",
                 "naming the variable and where the store goes");
    oxl_sched_result_free(&r);
    setenv("OXL_DATA_DIR", "", 1);
    r = rt_run(rt_put, NULL);
    tap_contains(r.report, "OXL_DATA_DIR is empty", "file: an empty OXL_DATA_DIR likewise");
    oxl_sched_result_free(&r);
    setenv("OXL_DATA_DIR", "/nonexistent/oxl-data", 1);
    r = rt_run(rt_put, NULL);
    tap_contains(r.report, "OXL_DATA_DIR '/nonexistent/oxl-data' is not usable: No such file or directory",
                 "file: a missing directory names the path and the reason");
    oxl_sched_result_free(&r);
    fresh_data_dir(); /* one that does not exist yet, in a parent that does */
    char fresh[512];
    snprintf(fresh, sizeof fresh, "%s/made-on-first-use", data_root);
    setenv("OXL_DATA_DIR", fresh, 1);
    oxl_std_store_close_all();
    r = rt_run(rt_put, NULL);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "file: a missing OXL_DATA_DIR whose parent exists is made on first use");
    oxl_sched_result_free(&r);
    char made[600];
    snprintf(made, sizeof made, "%s/process/%s", fresh, OXL_STORE_LOG_FILE);
    tap_ok(file_size(made) > 0, "file: and the store is in it");
    oxl_std_store_close_all();
    remove_tree(data_root);
    setenv("OXL_DATA_DIR", "/dev/null", 1);
    r = rt_run(rt_put, NULL);
    tap_contains(r.report, "OXL_DATA_DIR '/dev/null' is not usable: not a directory", "file: so does a file");
    oxl_sched_result_free(&r);

    fresh_data_dir(); /* a foreign file where the log goes */
    char path[512];
    snprintf(path, sizeof path, "%s/process", data_root);
    mkdir(path, 0777);
    int fd = open(log_path("process"), O_WRONLY | O_CREAT, 0666);
    if (fd < 0 || write(fd, "not a store log at all\n", 23) != 23) tap_bail("cannot write %s", log_path("process"));
    close(fd);
    r = rt_run(rt_put, NULL);
    tap_contains(r.report, "is not a std.store log (it does not start with OXLSTORE)",
                 "file: a foreign file where the log goes panics");
    oxl_sched_result_free(&r);
    tap_is_int(file_size(log_path("process")), 23, "file: and is left as it was");
    fd = open(log_path("process"), O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, "OXLSTORE\2\0\0\0\0\0\0\0", 16) != 16) tap_bail("cannot write %s", log_path("process"));
    close(fd);
    r = rt_run(rt_put, NULL);
    tap_contains(r.report, "is a std.store log of version 2; this runtime reads version 1",
                 "file: a log of another version panics naming it");
    oxl_sched_result_free(&r);
    remove_tree(data_root);
}

/* A real I/O error: the file size limit (RLIMIT_FSIZE) cuts a record
 * short. The write reports io, the torn bytes are cut off, and the log
 * stays valid for the writes that follow. */
static void test_file_io_error(void) {
    fresh_data_dir();
    oxl_std_store_native_putString(S("a"), S("1"));
    oxl_std_store_native_sync();
    long size = file_size(log_path("process"));
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = (rlim_t)size + 10; /* room for part of the next record */
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    oxl_list r = oxl_std_store_native_putString(S("b"), S("a value longer than ten bytes"));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    tap_is_str(kind_of(r), "io", "file: a write the file system refuses reports io");
    tap_contains(message_of(r), "put \"b\": write to ", "file: naming the call, the key");
    tap_contains(message_of(r), "File too large", "file: and the system's reason");
    tap_ok(get_s("b") == NULL, "file: the failed write changes nothing");
    tap_is_int(file_size(log_path("process")), size, "file: its torn bytes are cut off");
    tap_ok(ok(oxl_std_store_native_putString(S("c"), S("3"))), "file: the next write works");
    oxl_std_store_close_all();
    tap_is_str(keys_text(), "a,c", "file: and the log reads back whole");
    remove_tree(data_root);
}

/* Overwrites pile up dead records; once they pass 1 MiB and outweigh the
 * live ones, sync (or the next replay) rewrites the log. */
static void test_file_compaction(void) {
    fresh_data_dir();
    enum { VALUE = 100 * 1024 };
    char *v = malloc(VALUE);
    for (int i = 0; i < 20; i++) {
        memset(v, 'a' + i, VALUE);
        oxl_std_store_native_putBytes(S("big"), SN(v, VALUE));
    }
    oxl_std_store_native_putInt(S("small"), 5);
    long before = file_size(log_path("process"));
    tap_ok(ok(oxl_std_store_native_sync()), "file: sync after 20 overwrites of 100 KiB");
    long after = file_size(log_path("process"));
    tap_ok(before > 20L * VALUE && after < 2L * VALUE, "file: sync compacts the log (%ld bytes to %ld)", before,
           after);
    oxl_std_store_close_all();
    oxl_list big = oxl_std_store_native_getBytes(S("big"));
    int64_t small = 0;
    tap_ok(oxl_list_len(big) == 1 && oxl_bytes_len(oxl_word_to_str(big->items[0])) == VALUE &&
               oxl_str_cstr(oxl_word_to_str(big->items[0]))[VALUE - 1] == 'a' + 19 && get_i("small", &small) &&
               small == 5,
           "file: the compacted log replays the last values");
    for (int i = 0; i < 20; i++) oxl_std_store_native_putBytes(S("big"), SN(v, VALUE)); /* no sync */
    oxl_std_store_close_all();
    long grown = file_size(log_path("process"));
    bool replayed = get_i("small", &small) && small == 5;
    long replay_size = file_size(log_path("process"));
    tap_ok(replayed && replay_size < 2L * VALUE, "file: a replay compacts an overgrown log too (%ld bytes to %ld)",
           grown, replay_size);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", log_path("process"));
    tap_ok(file_size(tmp) < 0, "file: no temporary file is left");
    free(v);
    oxl_std_store_close_all();
    remove_tree(data_root);
}

static void test_file_limits(void) {
    fresh_data_dir();
    limits l;
    memset(&l, 0, sizeof l);
    limit_body(&l);
    check_limits("file", &l);
    oxl_std_store_close_all();
    remove_tree(data_root);
}

int main(void) {
    oxl_rt_init();
    test_synced_survives();
    test_unsynced_prefix();
    test_disk_fail();
    test_sim_limits();
    test_keys_and_isolation();
    test_sim_panics();
    test_file_round_trip();
    test_file_torn_tail();
    test_file_nodes_and_panics();
    test_file_io_error();
    test_file_compaction();
    test_file_limits();
    return tap_done();
}
