/* sim_sort_test: the checkers' typed merge sort (runtime/src/sim/
 * sim_sort.h) against a plain model: random, sorted, reversed, nearly
 * sorted and all-equal arrays of every length up to 300, ordered and
 * stable (equal keys keep their original order). */
#include "oxl_sim.h"
#include "sim/sim_sort.h"
#include "tap.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct item {
    int32_t key;
    uint32_t at; /* its original position: what stability keeps in order */
} item;

static inline bool key_less(const item *a, const item *b) { return a->key < b->key; }
SIM_SORT_DEFINE(sort_items, item, key_less)

enum { MAX_LEN = 300 };

/* Ordered by key, equal keys by original position, and a permutation. */
static bool sorted_stably(const item *a, size_t n) {
    bool seen[MAX_LEN] = {false};
    for (size_t i = 0; i < n; i++) {
        if (a[i].at >= n || seen[a[i].at]) return false;
        seen[a[i].at] = true;
        if (i && (a[i].key < a[i - 1].key || (a[i].key == a[i - 1].key && a[i].at < a[i - 1].at))) return false;
    }
    return true;
}

static bool check_shape(const char *shape, oxl_rng *r) {
    item a[MAX_LEN];
    for (size_t n = 0; n <= MAX_LEN; n++) {
        for (size_t i = 0; i < n; i++) {
            int32_t k;
            if (shape[0] == 'r' && shape[1] == 'a') k = (int32_t)oxl_rng_below(r, 50); /* random, many ties */
            else if (shape[0] == 's') k = (int32_t)i;
            else if (shape[0] == 'r') k = (int32_t)(n - i);
            else if (shape[0] == 'n') k = (int32_t)i + (oxl_rng_below(r, 10) == 0 ? (int32_t)oxl_rng_below(r, 20) - 10 : 0);
            else k = 7;
            a[i] = (item){.key = k, .at = (uint32_t)i};
        }
        sort_items(a, n);
        if (!sorted_stably(a, n)) return tap_ok(false, "%s arrays sort stably (length %zu fails)", shape, n);
    }
    return tap_ok(true, "%s arrays of lengths 0..%d sort stably", shape, MAX_LEN);
}

int main(void) {
    tap_plan(6);
    oxl_rng r;
    oxl_rng_seed(&r, 11, "sort");
    check_shape("random", &r);
    check_shape("sorted", &r);
    check_shape("reversed", &r);
    check_shape("nearly sorted", &r);
    check_shape("equal", &r);
    /* The model fails a wrong order: the check can fail. */
    item bad[3] = {{2, 0}, {1, 1}, {3, 2}};
    tap_ok(!sorted_stably(bad, 3), "an unsorted array is caught by the check");
    return tap_done();
}
