/* sim_disk_test: the simulated disk: buffered writes, sync, crash prefixes,
 * injected failures, limits, and no dice for an unconfigured disk. */
#include "oxl_sim.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

typedef struct idle {
    oxl_process base;
} idle;
static void idle_start(oxl_process *self, oxl_ctx c) {}
static void idle_message(oxl_process *self, oxl_ctx c, oxl_node_id f, const void *d, size_t n) {}
static void idle_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops idle_ops = {idle_start, idle_message, idle_destroy};
static oxl_process *idle_new(oxl_ctx c, void *arg) {
    idle *p = calloc(1, sizeof *p);
    p->base.ops = &idle_ops;
    return &p->base;
}

static oxl_world *one_node(uint64_t seed) {
    oxl_world_options o = oxl_world_options_default(seed);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "n0", idle_new, NULL);
    oxl_world_run(w);
    return w;
}

static oxl_disk *disk0(oxl_world *w) { return oxl_ctx_disk(oxl_world_ctx(w, 0)); }

static bool has(oxl_disk *d, const char *key, const char *want) {
    const void *v;
    size_t n;
    if (oxl_disk_get(d, key, &v, &n) != OXL_DISK_OK) return want == NULL;
    return want && n == strlen(want) && memcmp(v, want, n) == 0;
}

/* Writes k0..k9 unsynced, crashes, and returns how many survived; checks
 * that the survivors are a prefix. */
static int crash_survivors(oxl_world *w, bool *prefix) {
    oxl_disk *d = disk0(w);
    char key[8];
    for (int i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "k%d", i);
        oxl_disk_put(d, key, "v", 1);
    }
    oxl_world_kill(w, 0);
    oxl_world_restart(w, 0);
    d = disk0(w);
    int kept = 0;
    *prefix = true;
    for (int i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "k%d", i);
        bool present = has(d, key, "v");
        if (present && kept != i) *prefix = false;
        if (present) kept++;
    }
    return kept;
}

static void test_buffered_and_synced(void) {
    oxl_world *w = one_node(1);
    oxl_disk *d = disk0(w);
    tap_is_int(oxl_disk_put(d, "a", "1", 1), OXL_DISK_OK, "put");
    tap_ok(has(d, "a", "1"), "a write is visible to reads at once");
    tap_is_int(oxl_disk_unsynced(d), 1, "and unsynced");
    tap_is_int(oxl_disk_sync(d), OXL_DISK_OK, "sync");
    tap_is_int(oxl_disk_unsynced(d), 0, "nothing unsynced after sync");
    oxl_disk_append(d, "log", "ab", 2);
    oxl_disk_append(d, "log", "cd", 2);
    tap_ok(has(d, "log", "abcd"), "append extends a value");
    oxl_disk_sync(d);
    tap_is_int(oxl_disk_del(d, "a"), OXL_DISK_OK, "delete");
    tap_is_int(oxl_disk_del(d, "a"), OXL_DISK_ENOENT, "deleting a missing key is ENOENT");
    oxl_disk_put(d, "b", "2", 1); /* never synced */
    oxl_world_kill(w, 0);
    oxl_world_restart(w, 0);
    d = disk0(w);
    tap_ok(has(d, "log", "abcd"), "synced data survives a crash");
    /* "a" was deleted and "b" put after the last sync: the crash keeps a
     * prefix of those two writes, so either both, the delete only, or none. */
    bool a = has(d, "a", "1"), b = has(d, "b", "2");
    tap_ok((!a && b) || (!a && !b) || (a && !b), "the unsynced tail is kept as a prefix (a=%d b=%d)", a, b);
    oxl_world_free(w);
}

static void test_crash_keeps_seeded_prefix(void) {
    int seen[11] = {0};
    bool all_prefix = true, repeatable = true;
    for (uint64_t seed = 0; seed < 200; seed++) {
        bool prefix;
        oxl_world *w = one_node(seed);
        int kept = crash_survivors(w, &prefix);
        oxl_world_free(w);
        w = one_node(seed);
        bool prefix2;
        repeatable = repeatable && crash_survivors(w, &prefix2) == kept;
        oxl_world_free(w);
        all_prefix = all_prefix && prefix;
        seen[kept]++;
    }
    tap_ok(all_prefix, "a crash always keeps a prefix of the unsynced writes");
    tap_ok(repeatable, "the kept prefix is a function of the seed");
    tap_ok(seen[0] > 0 && seen[10] > 0, "from nothing (%d seeds) to everything (%d seeds)", seen[0], seen[10]);
    int lengths = 0;
    for (int i = 0; i <= 10; i++) lengths += seen[i] > 0;
    tap_ok(lengths >= 9, "over many lengths (%d of 11)", lengths);
}

/* An unconfigured disk draws no numbers: a node that wrote and synced a
 * hundred times before loses exactly the same prefix as one that did not. */
static void test_unconfigured_disk_draws_nothing(void) {
    bool same = true;
    for (uint64_t seed = 0; seed < 50; seed++) {
        bool prefix;
        oxl_world *w = one_node(seed);
        int plain = crash_survivors(w, &prefix);
        oxl_world_free(w);
        w = one_node(seed);
        oxl_disk *d = disk0(w);
        for (int i = 0; i < 100; i++) {
            oxl_disk_put(d, "busy", "x", 1);
            oxl_disk_sync(d);
        }
        oxl_disk_del(d, "busy");
        oxl_disk_sync(d);
        int busy = crash_survivors(w, &prefix);
        oxl_world_free(w);
        same = same && plain == busy;
    }
    tap_ok(same, "writes and syncs without failure rates draw no random numbers");
}

static void test_failures(void) {
    oxl_world *w = one_node(3);
    oxl_world_set_disk_fail_rate(w, 0, 1.0, 0.0);
    oxl_disk *d = disk0(w);
    tap_is_int(oxl_disk_put(d, "k", "v", 1), OXL_DISK_EIO, "write failure rate 1 fails every write");
    tap_ok(has(d, "k", NULL), "a failed write changes nothing");
    oxl_world_set_disk_fail_rate(w, 0, 0.0, 1.0);
    tap_is_int(oxl_disk_put(d, "k", "v", 1), OXL_DISK_OK, "writes work again");
    tap_is_int(oxl_disk_sync(d), OXL_DISK_EIO, "sync failure rate 1 fails every sync");
    tap_is_int(oxl_disk_unsynced(d), 1, "a failed sync leaves the write unsynced");
    oxl_world_set_disk_fail_rate(w, 0, 0.3, 0.0);
    int failed = 0;
    for (int i = 0; i < 1000; i++) failed += oxl_disk_put(d, "k", "v", 1) == OXL_DISK_EIO;
    tap_ok(failed > 230 && failed < 370, "a rate of 0.3 fails about 30%% of writes (%d of 1000)", failed);
    oxl_world_free(w);
}

static void test_limits(void) {
    oxl_world *w = one_node(4);
    oxl_disk *d = disk0(w);
    char big_key[OXL_DISK_MAX_KEY + 2];
    memset(big_key, 'k', sizeof big_key - 1);
    big_key[sizeof big_key - 1] = 0;
    tap_is_int(oxl_disk_put(d, big_key, "v", 1), OXL_DISK_ELIMIT, "a key over the limit is refused");
    tap_is_int(oxl_disk_put(d, "", "v", 1), OXL_DISK_ELIMIT, "an empty key is refused");
    tap_is_int(oxl_disk_put(d, "k", NULL, 3), OXL_DISK_ELIMIT, "NULL data with a length is refused");
    tap_is_int(oxl_disk_get(NULL, "k", NULL, NULL), OXL_DISK_EDEAD, "a NULL disk says EDEAD");
    tap_is_str(oxl_disk_strerror(OXL_DISK_EIO), "injected I/O error", "errors have names");
    /* Durable state is readable from the harness while the node is down. */
    oxl_disk_put(d, "k", "v", 1);
    oxl_disk_sync(d);
    oxl_world_kill(w, 0);
    tap_ok(has(oxl_world_disk(w, 0), "k", "v"), "the harness reads a dead node's durable disk");
    oxl_world_free(w);
}

/* The keys in bytewise order: a byte above 0x7f sorts after ASCII, a proper
 * prefix first; a delete takes its key out. */
static void test_key_order(void) {
    oxl_world *w = one_node(3);
    oxl_disk *d = disk0(w);
    const char *puts[] = {"b", "\xc3\xa9", "a", "ab", "B"};
    for (size_t i = 0; i < sizeof puts / sizeof *puts; i++) oxl_disk_put(d, puts[i], "v", 1);
    oxl_disk_del(d, "b");
    const char *want[] = {"B", "a", "ab", "\xc3\xa9"};
    bool ok = oxl_disk_key_count(d) == 4;
    for (size_t i = 0; ok && i < 4; i++) ok = strcmp(oxl_disk_key_at(d, i), want[i]) == 0;
    tap_ok(ok, "oxl_disk_key_at walks the keys in bytewise order");
    tap_ok(oxl_disk_key_at(d, 4) == NULL && oxl_disk_key_at(NULL, 0) == NULL, "and is NULL past the end");
    oxl_disk_put(d, "aa", "v", 1);
    tap_is_str(oxl_disk_key_at(d, 2), "aa", "a write since the walk is in the next one");
    oxl_world_free(w);
}

/* Many keys, random puts, appends, deletes, syncs and crashes, against a
 * plain model of the two views: the map's index must find every key after
 * any sequence of deletes, and values of every size must come back. */
#define MODEL_KEYS 300
#define MODEL_MAX 80 /* bytes per model value: both inline and heap sizes */

typedef struct model_view {
    bool present[MODEL_KEYS];
    unsigned char val[MODEL_KEYS][MODEL_MAX * 4];
    size_t len[MODEL_KEYS];
} model_view;

static void model_apply(model_view *m, int op, int k, const unsigned char *v, size_t n) {
    if (op == 2) {
        m->present[k] = false;
        return;
    }
    if (op == 0 || !m->present[k]) m->len[k] = 0;
    if (m->len[k] + n > sizeof m->val[k]) n = 0; /* the generator keeps under this */
    memcpy(m->val[k] + m->len[k], v, n);
    m->len[k] += n;
    m->present[k] = true;
}

static void test_many_keys_against_a_model(void) {
    static model_view cur, dur;
    static struct {
        int op, k;
        unsigned char v[MODEL_MAX];
        size_t n;
    } pending[4096];
    memset(&cur, 0, sizeof cur);
    memset(&dur, 0, sizeof dur);
    size_t npending = 0;
    oxl_world *w = one_node(99);
    uint64_t x = 12345;
    int mismatches = 0, checks = 0, crashes = 0;
    for (int step = 0; step < 20000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int k = (int)(x % MODEL_KEYS), op = (int)((x >> 20) % 10);
        char key[64];
        snprintf(key, sizeof key, "key/%d/%s", k, k % 7 == 0 ? "with-a-long-name-past-the-inline-size" : "");
        oxl_disk *d = disk0(w);
        if (op < 4 || op == 9) { /* put, or append when op == 9 */
            unsigned char v[MODEL_MAX];
            size_t n = (size_t)((x >> 30) % MODEL_MAX);
            for (size_t i = 0; i < n; i++) v[i] = (unsigned char)(x >> (i % 50));
            int kind = op == 9 ? 1 : 0;
            if (kind == 1 && cur.present[k] && cur.len[k] + n > sizeof cur.val[k]) continue;
            int rc = kind ? oxl_disk_append(d, key, v, n) : oxl_disk_put(d, key, v, n);
            if (rc != OXL_DISK_OK) mismatches++;
            model_apply(&cur, kind, k, v, n);
            pending[npending].op = kind;
            pending[npending].k = k;
            memcpy(pending[npending].v, v, n);
            pending[npending++].n = n;
        } else if (op < 7) { /* delete */
            int rc = oxl_disk_del(d, key);
            if ((rc == OXL_DISK_OK) != cur.present[k]) mismatches++;
            if (rc == OXL_DISK_OK) {
                model_apply(&cur, 2, k, NULL, 0);
                pending[npending].op = 2;
                pending[npending++].k = k;
            }
        } else if (op == 7) {
            oxl_disk_sync(d);
            for (size_t i = 0; i < npending; i++) model_apply(&dur, pending[i].op, pending[i].k, pending[i].v, pending[i].n);
            npending = 0;
        } else if (x % 97 == 0) { /* a crash: the kept prefix is the disk's draw, so read it back */
            size_t before = npending;
            oxl_world_kill(w, 0);
            oxl_world_restart(w, 0);
            crashes++;
            /* Find the prefix length that explains the survivors. */
            model_view trial;
            size_t keep = 0;
            bool found = false;
            for (keep = 0; keep <= before && !found; keep++) {
                trial = dur;
                for (size_t i = 0; i < keep; i++) model_apply(&trial, pending[i].op, pending[i].k, pending[i].v, pending[i].n);
                bool same = true;
                for (int j = 0; j < MODEL_KEYS && same; j++) {
                    char kj[64];
                    snprintf(kj, sizeof kj, "key/%d/%s", j, j % 7 == 0 ? "with-a-long-name-past-the-inline-size" : "");
                    const void *v;
                    size_t n;
                    int rc = oxl_disk_get(disk0(w), kj, &v, &n);
                    same = (rc == OXL_DISK_OK) == trial.present[j] &&
                           (rc != OXL_DISK_OK || (n == trial.len[j] && memcmp(v, trial.val[j], n) == 0));
                }
                if (same) found = true;
            }
            if (!found) mismatches++;
            cur = dur = trial;
            npending = 0;
        }
        if (step % 50 == 0) { /* every key, as the current view holds it */
            d = disk0(w);
            size_t count = 0;
            for (int j = 0; j < MODEL_KEYS; j++) {
                char kj[64];
                snprintf(kj, sizeof kj, "key/%d/%s", j, j % 7 == 0 ? "with-a-long-name-past-the-inline-size" : "");
                const void *v;
                size_t n;
                int rc = oxl_disk_get(d, kj, &v, &n);
                checks++;
                if ((rc == OXL_DISK_OK) != cur.present[j] ||
                    (rc == OXL_DISK_OK && (n != cur.len[j] || (n && memcmp(v, cur.val[j], n) != 0))))
                    mismatches++;
                count += cur.present[j];
            }
            if (oxl_disk_key_count(d) != count) mismatches++;
            if (oxl_disk_unsynced(d) != npending) mismatches++;
        }
        if (npending >= sizeof pending / sizeof pending[0] - 1) {
            oxl_disk_sync(disk0(w));
            for (size_t i = 0; i < npending; i++) model_apply(&dur, pending[i].op, pending[i].k, pending[i].v, pending[i].n);
            npending = 0;
        }
    }
    tap_is_int(mismatches, 0, "20,000 random writes, deletes, syncs and %d crashes agree with a model (%d reads checked)",
               crashes, checks);
    oxl_world_free(w);
}

int main(void) {
    test_buffered_and_synced();
    test_key_order();
    test_crash_keeps_seeded_prefix();
    test_unconfigured_disk_draws_nothing();
    test_failures();
    test_limits();
    test_many_keys_against_a_model();
    return tap_done();
}
