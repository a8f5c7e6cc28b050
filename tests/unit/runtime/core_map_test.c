/* core_map_test: insertion-ordered maps with Int and String keys. */
#include "core_test_util.h"

#include <inttypes.h>

#define F "m.oxl"

/* A deterministic workload: 100,000 inserts with deletes interleaved, then
 * lookups; returns a hash of the iteration order and checks everything
 * against a plain array model. */
static uint64_t workload(bool *ok_out) {
    enum { N = 100000 };
    oxl_map m = oxl_map_new(OXL_KEY_INT);
    static int64_t order[N]; /* keys in insertion order; -1 once deleted */
    static int64_t value[N];
    int64_t n = 0;
    bool ok = true;
    uint64_t x = 12345;
    for (int64_t i = 0; i < N; i++) {
        int64_t key = i * 7919 - 50000; /* distinct, some negative */
        oxl_map_set(m, (oxl_word)key, (oxl_word)(i * 2), F, 1);
        order[n] = key;
        value[n++] = i * 2;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (i % 3 == 2) { /* delete a pseudo-random earlier key */
            int64_t j = (int64_t)((x >> 33) % (uint64_t)n);
            oxl_word old = 0;
            bool had = oxl_map_remove(m, (oxl_word)order[j], &old);
            ok = ok && had == (order[j] != -1);
            if (had) ok = ok && (int64_t)old == value[j];
            order[j] = -1;
        }
        if (i % 5 == 4) { /* overwrite keeps the position */
            int64_t j = (int64_t)((x >> 20) % (uint64_t)n);
            if (order[j] != -1) {
                oxl_map_set(m, (oxl_word)order[j], (oxl_word)(value[j] = -i), F, 1);
            }
        }
    }
    int64_t live = 0;
    for (int64_t j = 0; j < n; j++) {
        oxl_word v = 0;
        if (order[j] == -1) continue;
        live++;
        ok = ok && oxl_map_get(m, (oxl_word)order[j], &v) && (int64_t)v == value[j];
        ok = ok && oxl_map_has(m, (oxl_word)order[j]);
    }
    ok = ok && oxl_map_len(m) == live;
    ok = ok && !oxl_map_has(m, (oxl_word)(INT64_C(-50001)));
    /* Iteration order is insertion order. */
    int64_t pos = 0, j = 0;
    oxl_word k, v;
    uint64_t h = 1469598103934665603ULL;
    while (oxl_map_next(m, &pos, &k, &v)) {
        while (j < n && order[j] == -1) j++;
        ok = ok && j < n && (int64_t)k == order[j] && (int64_t)v == value[j];
        j++;
        h = (h ^ k) * 1099511628211ULL;
    }
    while (j < n && order[j] == -1) j++;
    ok = ok && j == n;
    oxl_list keys = oxl_map_keys(m), vals = oxl_map_values(m);
    ok = ok && oxl_list_len(keys) == live && oxl_list_len(vals) == live;
    j = 0;
    for (int64_t i = 0; i < live; i++) {
        while (order[j] == -1) j++;
        ok = ok && (int64_t)oxl_list_at(keys, i, F, 0) == order[j] && (int64_t)oxl_list_at(vals, i, F, 0) == value[j];
        j++;
    }
    *ok_out = ok;
    return h;
}

int main(void) {
    oxl_rt_init();
    bool ok1 = false, ok2 = false;
    uint64_t h1 = workload(&ok1), h2 = workload(&ok2);
    tap_ok(ok1, "100,000 inserts with deletes and overwrites match the model, in insertion order");
    tap_ok(ok2, "second run too");
    tap_ok(h1 == h2, "iteration identical across two runs");

    /* String keys by content. */
    oxl_map s = oxl_map_new(OXL_KEY_STR);
    oxl_map_set(s, W("b"), 2, F, 1);
    oxl_map_set(s, W("a"), 1, F, 1);
    oxl_map_set(s, W("c"), 3, F, 1);
    oxl_word v = 0;
    tap_ok(oxl_map_get(s, W("a"), &v) && v == 1, "get by a different string object with the same text");
    tap_ok(!oxl_map_get(s, W("d"), &v), "missing key");
    tap_ok(oxl_map_has(s, W("c")) && !oxl_map_has(s, W("")), "has");
    oxl_map_set(s, W("b"), 20, F, 1);
    tap_is_int(oxl_map_len(s), 3, "overwrite keeps the length");
    oxl_list keys = oxl_map_keys(s);
    tap_ok(oxl_list_len(keys) == 3 && oxl_str_eq(oxl_word_to_str(oxl_list_at(keys, 0, F, 0)), S("b")) &&
               oxl_str_eq(oxl_word_to_str(oxl_list_at(keys, 2, F, 0)), S("c")),
           "keys in insertion order; overwrite keeps the position");
    oxl_word old = 0;
    tap_ok(oxl_map_remove(s, W("b"), &old) && old == 20, "remove returns the value");
    tap_ok(!oxl_map_remove(s, W("b"), NULL), "remove of a missing key");
    oxl_map_set(s, W("b"), 5, F, 1);
    oxl_list vals = oxl_map_values(s);
    tap_ok(oxl_list_len(vals) == 3 && oxl_list_at(vals, 0, F, 0) == 1 && oxl_list_at(vals, 2, F, 0) == 5,
           "set after remove moves the key to the end");
    tap_is_int((int64_t)oxl_map_at(s, W("c"), F, 1), 3, "checked get");
    CT_PANICS(oxl_map_at(s, W("zebra"), F, 30), F, 30, "key not found: zebra");
    oxl_map im = oxl_map_new(OXL_KEY_INT);
    CT_PANICS(oxl_map_at(im, (oxl_word)(int64_t)-7, F, 31), F, 31, "key not found: -7");
    oxl_map_set(im, 0, 1, F, 1);
    tap_ok(oxl_map_has(im, 0) && !oxl_map_has(im, 1), "key 0");
    tap_ok(oxl_map_remove(im, 0, NULL) && oxl_map_len(im) == 0, "remove to empty");
    int64_t pos = 0;
    tap_ok(!oxl_map_next(im, &pos, NULL, NULL), "empty iteration");
    oxl_map_set(im, 9, 1, F, 1);
    tap_ok(oxl_map_len(im) == 1 && oxl_map_has(im, 9), "reuse after empty");

    /* Removing during iteration skips the removed entries. */
    oxl_map it = oxl_map_new(OXL_KEY_INT);
    for (int64_t i = 0; i < 10; i++) oxl_map_set(it, (oxl_word)i, (oxl_word)i, F, 1);
    pos = 0;
    oxl_word k;
    int64_t seen = 0;
    while (oxl_map_next(it, &pos, &k, NULL)) {
        seen++;
        if (k + 1 < 10) oxl_map_remove(it, k + 1, NULL);
    }
    tap_is_int(seen, 5, "removal during iteration");
    tap_is_int(oxl_map_len(it), 5, "five left");

    /* Many string keys, removals and churn (compaction). */
    oxl_map big = oxl_map_new(OXL_KEY_STR);
    bool ok = true;
    for (int64_t i = 0; i < 20000; i++) {
        oxl_map_set(big, oxl_word_from_str(oxl_int_to_str(i)), (oxl_word)i, F, 1);
        if (i >= 10) ok = ok && oxl_map_remove(big, oxl_word_from_str(oxl_int_to_str(i - 10)), NULL);
    }
    ok = ok && oxl_map_len(big) == 10;
    keys = oxl_map_keys(big);
    for (int64_t i = 0; i < 10; i++)
        ok = ok && oxl_str_eq(oxl_word_to_str(oxl_list_at(keys, i, F, 0)), oxl_int_to_str(19990 + i));
    tap_ok(ok, "sliding window of string keys keeps order");
    return tap_done();
}
