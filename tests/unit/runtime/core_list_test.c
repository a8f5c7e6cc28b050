/* core_list_test: lists of words. */
#include "core_test_util.h"

#define F "l.oxl"

static bool list_is(oxl_list l, const int64_t *want, int64_t n) {
    if (oxl_list_len(l) != n) return false;
    for (int64_t i = 0; i < n; i++)
        if ((int64_t)oxl_list_at(l, i, F, 0) != want[i]) return false;
    return true;
}

int main(void) {
    oxl_rt_init();
    oxl_list l = oxl_list_new(0);
    tap_is_int(oxl_list_len(l), 0, "new list is empty");
    oxl_word w = 99;
    tap_ok(!oxl_list_get(l, 0, &w) && w == 99, "get on empty: none");
    tap_ok(!oxl_list_try_pop(l, &w), "try_pop on empty: none");
    for (int64_t i = 0; i < 1000; i++) oxl_list_push(l, (oxl_word)(i * 3), F, 1);
    tap_is_int(oxl_list_len(l), 1000, "push 1000");
    bool ok = true;
    for (int64_t i = 0; i < 1000; i++) ok = ok && oxl_list_at(l, i, F, 1) == (oxl_word)(i * 3);
    tap_ok(ok, "at reads what push wrote");
    tap_ok(oxl_list_get(l, 999, &w) && w == 2997, "get in range");
    tap_ok(!oxl_list_get(l, 1000, &w) && !oxl_list_get(l, -1, &w), "get out of range: none");
    oxl_list_set(l, 5, 7, F, 1);
    tap_is_int((int64_t)oxl_list_at(l, 5, F, 1), 7, "set");
    tap_is_int((int64_t)oxl_list_pop(l, F, 1), 2997, "pop returns the last");
    tap_is_int(oxl_list_len(l), 999, "pop shrinks");
    tap_ok(oxl_list_try_pop(l, &w) && w == 2994, "try_pop");
    tap_ok(oxl_list_contains(l, 7) && oxl_list_contains(l, 0) && !oxl_list_contains(l, 15) &&
               !oxl_list_contains(l, 2994),
           "contains by word");

    oxl_list m = oxl_list_new(2);
    oxl_list_push(m, 1, F, 1);
    oxl_list_push(m, 3, F, 1);
    oxl_list_insert(m, 1, 2, F, 1);
    oxl_list_insert(m, 0, 0, F, 1);
    oxl_list_insert(m, 4, 4, F, 1);
    tap_ok(list_is(m, (int64_t[]){0, 1, 2, 3, 4}, 5), "insert at front, middle, end");
    tap_is_int((int64_t)oxl_list_remove(m, 2, F, 1), 2, "remove returns the element");
    tap_ok(list_is(m, (int64_t[]){0, 1, 3, 4}, 4), "remove shifts");
    tap_is_int((int64_t)oxl_list_remove(m, 3, F, 1), 4, "remove last");
    tap_is_int((int64_t)oxl_list_remove(m, 0, F, 1), 0, "remove first");
    tap_ok(list_is(m, (int64_t[]){1, 3}, 2), "after removes");

    oxl_list n = oxl_list_new(0);
    for (int64_t i = 0; i < 10; i++) oxl_list_push(n, (oxl_word)i, F, 1);
    oxl_list s = oxl_list_slice(n, 2, 5, F, 1);
    tap_ok(list_is(s, (int64_t[]){2, 3, 4}, 3), "slice");
    oxl_list_set(s, 0, 100, F, 1);
    tap_is_int((int64_t)oxl_list_at(n, 2, F, 1), 2, "slice is a new list");
    tap_is_int(oxl_list_len(oxl_list_slice(n, 10, 10, F, 1)), 0, "empty slice at the end");
    tap_ok(list_is(oxl_list_slice(n, 0, 10, F, 1), (int64_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10), "whole slice");
    oxl_list_push(s, 5, F, 1);
    tap_is_int((int64_t)oxl_list_at(n, 5, F, 1), 5, "pushing to a slice leaves the source");

    oxl_list strs = oxl_list_new(0);
    oxl_list_push(strs, W("apple"), F, 1);
    oxl_list_push(strs, W("pear"), F, 1);
    tap_ok(oxl_list_contains_str(strs, S("pear")), "contains_str by content");
    tap_ok(!oxl_list_contains_str(strs, S("pea")), "contains_str miss");
    tap_ok(!oxl_list_contains(strs, W("pear")), "contains compares words, not text");

    /* References: a copy of the handle sees changes. */
    oxl_list alias = n;
    oxl_list_push(alias, 10, F, 1);
    tap_is_int(oxl_list_len(n), 11, "lists are references");

    CT_PANICS(oxl_list_at(n, 11, F, 10), F, 10, "index out of range [11] with length 11");
    CT_PANICS(oxl_list_at(n, -1, F, 11), F, 11, "index out of range [-1] with length 11");
    CT_PANICS(oxl_list_set(n, 11, 0, F, 12), F, 12, "index out of range [11] with length 11");
    CT_PANICS(oxl_list_pop(oxl_list_new(0), F, 13), F, 13, "pop from an empty list");
    CT_PANICS(oxl_list_insert(n, 12, 0, F, 14), F, 14, "index out of range [12] with length 11");
    CT_PANICS(oxl_list_insert(n, -1, 0, F, 15), F, 15, "index out of range [-1] with length 11");
    CT_PANICS(oxl_list_remove(n, 11, F, 16), F, 16, "index out of range [11] with length 11");
    CT_PANICS(oxl_list_remove(oxl_list_new(0), 0, F, 17), F, 17, "index out of range [0] with length 0");
    CT_PANICS(oxl_list_slice(n, 3, 2, F, 18), F, 18, "slice bounds out of range [3:2]");
    CT_PANICS(oxl_list_slice(n, 0, 12, F, 19), F, 19, "index out of range [12] with length 11");
    CT_PANICS(oxl_list_slice(n, -2, 1, F, 20), F, 20, "index out of range [-2] with length 11");
    /* The length limit, without allocating 8 TB: pretend the list is full. */
    CT_PANICS((n->len = n->cap = OXL_MAX_LEN, oxl_list_push(n, 0, F, 21)), F, 21,
              "length 1099511627777 exceeds the limit (2^40)");
    return tap_done();
}
