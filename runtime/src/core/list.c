/* list.c: growable lists of words. */
#include "core_internal.h"

#include <string.h>

oxl_list oxl_list_new(int64_t cap_hint) {
    oxl_list l = oxl_alloc(sizeof *l);
    if (cap_hint < 0) cap_hint = 0;
    core_check_len(cap_hint, "(runtime)", 0);
    if (cap_hint > 0) {
        l->items = oxl_alloc((size_t)cap_hint * sizeof(oxl_word));
        l->cap = cap_hint;
    }
    return l;
}

static void core_list_grow(oxl_list l, int64_t need, const char *file, int line) {
    core_check_len(need, file, line);
    if (need <= l->cap) return;
    int64_t cap = l->cap ? l->cap * 2 : 4;
    while (cap < need) cap *= 2;
    if (cap > OXL_MAX_LEN) cap = OXL_MAX_LEN;
    oxl_word *items = oxl_alloc((size_t)cap * sizeof(oxl_word));
    if (l->len) memcpy(items, l->items, (size_t)l->len * sizeof(oxl_word));
    l->items = items;
    l->cap = cap;
}

bool oxl_list_get(oxl_list l, int64_t i, oxl_word *out) {
    if ((uint64_t)i >= (uint64_t)l->len) return false;
    *out = l->items[i];
    return true;
}

void oxl_list_set(oxl_list l, int64_t i, oxl_word v, const char *file, int line) {
    if ((uint64_t)i >= (uint64_t)l->len) oxl_panic_index(file, line, i, l->len);
    l->items[i] = v;
}

void oxl_list_push(oxl_list l, oxl_word v, const char *file, int line) {
    if (l->len == l->cap) core_list_grow(l, l->len + 1, file, line);
    l->items[l->len++] = v;
}

oxl_word oxl_list_pop(oxl_list l, const char *file, int line) {
    oxl_word v;
    if (!oxl_list_try_pop(l, &v)) core_panic(file, line, "pop from an empty list");
    return v;
}

bool oxl_list_try_pop(oxl_list l, oxl_word *out) {
    if (l->len == 0) return false;
    *out = l->items[--l->len];
    l->items[l->len] = 0; /* let the collector reclaim what it pointed to */
    return true;
}

void oxl_list_insert(oxl_list l, int64_t i, oxl_word v, const char *file, int line) {
    if (i < 0 || i > l->len) oxl_panic_index(file, line, i, l->len);
    if (l->len == l->cap) core_list_grow(l, l->len + 1, file, line);
    memmove(l->items + i + 1, l->items + i, (size_t)(l->len - i) * sizeof(oxl_word));
    l->items[i] = v;
    l->len++;
}

oxl_word oxl_list_remove(oxl_list l, int64_t i, const char *file, int line) {
    if ((uint64_t)i >= (uint64_t)l->len) oxl_panic_index(file, line, i, l->len);
    oxl_word v = l->items[i];
    memmove(l->items + i, l->items + i + 1, (size_t)(l->len - i - 1) * sizeof(oxl_word));
    l->items[--l->len] = 0;
    return v;
}

bool oxl_list_contains(oxl_list l, oxl_word v) {
    for (int64_t i = 0; i < l->len; i++)
        if (l->items[i] == v) return true;
    return false;
}

bool oxl_list_contains_str(oxl_list l, oxl_string s) {
    for (int64_t i = 0; i < l->len; i++)
        if (oxl_str_eq(oxl_word_to_str(l->items[i]), s)) return true;
    return false;
}

oxl_list oxl_list_slice(oxl_list l, int64_t from, int64_t to, const char *file, int line) {
    core_check_range(from, to, l->len, file, line);
    oxl_list r = oxl_list_new(to - from);
    if (to > from) memcpy(r->items, l->items + from, (size_t)(to - from) * sizeof(oxl_word));
    r->len = to - from;
    return r;
}
