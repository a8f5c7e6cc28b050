/* map.c: insertion-ordered hash maps.
 *
 * Entries live in an array in insertion order; a removed entry stays as a
 * dead hole (cleared so the collector can reclaim its key and value) until
 * the array fills up, when the live entries are compacted (keeping their
 * order) and the index rebuilt. The index is an open-addressing table
 * (linear probing, load <= 1/2) of entry numbers + 1 (0 = empty slot);
 * removal uses backward-shift deletion, so there are no tombstones. */
#include "core_internal.h"

#include "oxl_sched.h"

#include <inttypes.h>
#include <string.h>

/* compiler/codegen/debug.c describes core_entry and the offsets of len,
 * used and entries below to debuggers: keep them in step. */
typedef struct core_entry {
    oxl_word key, val;
    uint64_t hash;
    uint64_t live;
} core_entry;

struct oxl_map_obj {
    oxl_key_kind kind;
    const int64_t *str_tags; /* OXL_KEY_UNION: the tags of String and Bytes members */
    int64_t nstr_tags;
    int64_t len;        /* live entries */
    int64_t used;       /* entries[0..used) in use, live or dead */
    int64_t cap;        /* entries allocated */
    core_entry *entries;
    int64_t *slots;     /* mask + 1 slots */
    uint64_t mask;
};

static bool core_tag_is_str(const struct oxl_map_obj *m, int64_t tag) {
    for (int64_t i = 0; i < m->nstr_tags; i++)
        if (m->str_tags[i] == tag) return true;
    return false;
}

static uint64_t core_key_hash(const struct oxl_map_obj *m, oxl_word key) {
    if (m->kind == OXL_KEY_STR || m->kind == OXL_KEY_BYTES) return oxl_str_hash(oxl_word_to_str(key));
    if (m->kind == OXL_KEY_UNION) {
        /* by the member's tag and value, never by the box's address */
        const oxl_box *b = oxl_word_to_ptr(key);
        if (!b) return core_mix64(UINT64_C(0x6E6F6E65));
        uint64_t v = core_tag_is_str(m, b->tag) ? oxl_str_hash(oxl_word_to_str(b->word)) : core_mix64(b->word);
        return core_mix64(v ^ ((uint64_t)b->tag * UINT64_C(0x9E3779B97F4A7C15)));
    }
    return core_mix64(key + UINT64_C(0x9E3779B97F4A7C15));
}

static bool core_key_eq(const struct oxl_map_obj *m, oxl_word a, oxl_word b) {
    if (a == b) return true;
    if (m->kind == OXL_KEY_STR || m->kind == OXL_KEY_BYTES) return oxl_str_eq(oxl_word_to_str(a), oxl_word_to_str(b));
    if (m->kind == OXL_KEY_UNION) {
        const oxl_box *x = oxl_word_to_ptr(a), *y = oxl_word_to_ptr(b);
        if (!x || !y || x->tag != y->tag) return false;
        if (core_tag_is_str(m, x->tag)) return oxl_str_eq(oxl_word_to_str(x->word), oxl_word_to_str(y->word));
        return x->word == y->word;
    }
    return false;
}

oxl_map oxl_map_new(oxl_key_kind kind) {
    oxl_map m = oxl_alloc(sizeof *m);
    /* the kinds past STR compare like INT or STR and only name keys
     * differently in messages */
    m->kind = kind >= OXL_KEY_INT && kind <= OXL_KEY_BYTES && kind != OXL_KEY_UNION ? kind : OXL_KEY_INT;
    return m;
}

oxl_map oxl_map_new_union(const int64_t *str_tags, int64_t nstr_tags) {
    oxl_map m = oxl_alloc(sizeof *m);
    m->kind = OXL_KEY_UNION;
    m->str_tags = str_tags;
    m->nstr_tags = nstr_tags > 0 ? nstr_tags : 0;
    return m;
}

int64_t oxl_map_len(oxl_map m) { return m->len; }

/* The slot holding key, or (when absent) the empty slot where it would go,
 * as a negative number -(slot + 1). Needs a table. */
static int64_t core_map_find(const struct oxl_map_obj *m, oxl_word key, uint64_t hash) {
    uint64_t i = hash & m->mask;
    for (;;) {
        int64_t s = m->slots[i];
        if (s == 0) return -(int64_t)i - 1;
        const core_entry *e = &m->entries[s - 1];
        if (e->hash == hash && core_key_eq(m, e->key, key)) return (int64_t)i;
        i = (i + 1) & m->mask;
    }
}

static void core_map_rebuild(struct oxl_map_obj *m, int64_t cap) {
    core_entry *entries = oxl_alloc((size_t)cap * sizeof(core_entry));
    int64_t n = 0;
    for (int64_t i = 0; i < m->used; i++)
        if (m->entries[i].live) entries[n++] = m->entries[i];
    uint64_t nslots = 8;
    while (nslots < (uint64_t)cap * 2) nslots *= 2;
    int64_t *slots = oxl_alloc_atomic(nslots * sizeof(int64_t));
    memset(slots, 0, nslots * sizeof(int64_t));
    m->entries = entries;
    m->used = n;
    m->cap = cap;
    m->slots = slots;
    m->mask = nslots - 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t j = entries[i].hash & m->mask;
        while (slots[j]) j = (j + 1) & m->mask;
        slots[j] = i + 1;
    }
}

bool oxl_map_get(oxl_map m, oxl_word key, oxl_word *out) {
    if (m->len == 0) return false;
    int64_t s = core_map_find(m, key, core_key_hash(m, key));
    if (s < 0) return false;
    *out = m->entries[m->slots[s] - 1].val;
    return true;
}

bool oxl_map_has(oxl_map m, oxl_word key) {
    oxl_word v;
    return oxl_map_get(m, key, &v);
}

oxl_word oxl_map_at(oxl_map m, oxl_word key, const char *file, int line) {
    oxl_word v;
    if (oxl_map_get(m, key, &v)) return v;
    oxl_rt_flush();
    /* the key as the program would print it (bounded) */
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_key_kind kind = m->kind;
    if (kind == OXL_KEY_UNION) {
        const oxl_box *box = oxl_word_to_ptr(key);
        kind = !box ? OXL_KEY_UNION : core_tag_is_str(m, box->tag) ? OXL_KEY_STR : OXL_KEY_INT;
        if (box) key = box->word;
    }
    switch (kind) {
    case OXL_KEY_UNION: oxl_sb_none(&b); break;
    case OXL_KEY_STR: {
        oxl_string k = oxl_word_to_str(key);
        oxl_sb_lit(&b, k->data, k->len > 1000 ? 1000 : k->len);
        break;
    }
    case OXL_KEY_BYTES: oxl_sb_bytes(&b, oxl_word_to_str(key)); break;
    case OXL_KEY_BOOL: oxl_sb_bool(&b, key != 0); break;
    case OXL_KEY_DURATION: oxl_sb_dur(&b, (int64_t)key); break;
    case OXL_KEY_INSTANT: oxl_sb_instant(&b, (int64_t)key); break;
    default: oxl_sb_int(&b, (int64_t)key); break;
    }
    oxl_string text = oxl_sb_finish(&b);
    oxl_panic_at(file, line, "key not found: %.*s", (int)(text->len > 1000 ? 1000 : text->len), text->data);
}

void oxl_map_set(oxl_map m, oxl_word key, oxl_word val, const char *file, int line) {
    uint64_t h = core_key_hash(m, key);
    int64_t s = -1; /* the free slot the first probe found, as -slot - 1 */
    if (m->slots) {
        s = core_map_find(m, key, h);
        if (s >= 0) {
            m->entries[m->slots[s] - 1].val = val;
            return;
        }
    }
    if (m->used == m->cap) {
        int64_t cap = m->cap ? m->cap : 4;
        if (m->len + 1 > cap / 2) cap *= 2; /* else compacting frees enough room */
        core_check_len(m->len + 1, file, line);
        if (cap > OXL_MAX_LEN) cap = OXL_MAX_LEN;
        core_map_rebuild(m, cap);
        s = core_map_find(m, key, h); /* the slots moved */
    }
    int64_t slot = -s - 1;
    core_entry *e = &m->entries[m->used];
    e->key = key;
    e->val = val;
    e->hash = h;
    e->live = 1;
    m->slots[slot] = ++m->used;
    m->len++;
}

bool oxl_map_remove(oxl_map m, oxl_word key, oxl_word *old) {
    if (m->len == 0) return false;
    int64_t s = core_map_find(m, key, core_key_hash(m, key));
    if (s < 0) return false;
    core_entry *e = &m->entries[m->slots[s] - 1];
    if (old) *old = e->val;
    memset(e, 0, sizeof *e);
    m->len--;
    /* Backward-shift deletion. */
    uint64_t i = (uint64_t)s, j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->slots[j] == 0) break;
        uint64_t k = m->entries[m->slots[j] - 1].hash & m->mask;
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        m->slots[i] = m->slots[j];
        i = j;
    }
    m->slots[i] = 0;
    if (m->len == 0) m->used = 0; /* all dead: start the entry array over */
    return true;
}

static oxl_list core_map_collect(oxl_map m, bool keys) {
    oxl_list l = oxl_list_new(m->len);
    for (int64_t i = 0; i < m->used; i++)
        if (m->entries[i].live) l->items[l->len++] = keys ? m->entries[i].key : m->entries[i].val;
    return l;
}

oxl_list oxl_map_keys(oxl_map m) { return core_map_collect(m, true); }

oxl_list oxl_map_values(oxl_map m) { return core_map_collect(m, false); }

bool oxl_map_next(oxl_map m, int64_t *pos, oxl_word *key, oxl_word *val) {
    while (*pos < m->used) {
        const core_entry *e = &m->entries[(*pos)++];
        if (e->live) {
            if (key) *key = e->key;
            if (val) *val = e->val;
            return true;
        }
    }
    return false;
}
