/* disk.c: a node's simulated disk, a small key/value store that loses
 * unsynced writes in a crash.
 *
 * Writes go to the current view at once, and each unsynced one is kept as
 * what undoes it (the key's previous value); sync forgets them, making the
 * current view durable. A crash keeps a seeded prefix of the unsynced
 * writes (a prefix: the failure an application can defend against by
 * syncing before it acts) by undoing the rest, newest first. The
 * dice come from the disk's own stream and are rolled only when there is
 * something to decide: a disk that is never written, or never crashes with
 * unsynced writes, and has no failure rate, draws nothing.
 *
 * The view is a hash-indexed map whose small keys and values (up to
 * SIM_DISK_INLINE bytes) live inside their entries: a write of a small
 * value allocates nothing, and a lookup compares one hash. Nothing depends
 * on an address or on the index's layout; the entries' order is a function
 * of the writes. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- bytes ---- */

static const unsigned char *bytes_data(const sim_bytes *b) { return b->heap ? b->heap : b->small; }

static void bytes_free(sim_bytes *b) {
    free(b->heap);
    b->heap = NULL;
    b->len = 0;
}

static void bytes_set(sim_bytes *b, const void *p, size_t len) {
    if (len <= SIM_DISK_INLINE) {
        if (len) memmove(b->small, p, len);
        free(b->heap);
        b->heap = NULL;
    } else {
        unsigned char *h = sim_xmalloc(len);
        memcpy(h, p, len);
        free(b->heap);
        b->heap = h;
    }
    b->len = (uint32_t)len;
}

static void bytes_append(sim_bytes *b, const void *p, size_t len) {
    size_t total = (size_t)b->len + len;
    if (!b->heap && total <= SIM_DISK_INLINE) {
        if (len) memcpy(b->small + b->len, p, len);
    } else {
        if (!b->heap) {
            b->heap = sim_xmalloc(total);
            memcpy(b->heap, b->small, b->len);
        } else {
            b->heap = sim_xrealloc(b->heap, total);
        }
        if (len) memcpy(b->heap + b->len, p, len);
    }
    b->len = (uint32_t)total;
}

/* dst is fresh: its heap part is not freed. */
static void bytes_copy(sim_bytes *dst, const sim_bytes *src) {
    *dst = *src;
    if (src->heap) {
        dst->heap = sim_xmalloc(src->len);
        memcpy(dst->heap, src->heap, src->len);
    }
}

static bool bytes_equal(const sim_bytes *b, const char *p, size_t len) {
    return b->len == len && memcmp(bytes_data(b), p, len) == 0;
}

/* ---- a hash-indexed key/value map ---- */

static inline sim_kv_entry *kv_item(const sim_kv *kv, size_t n) {
    return &kv->chunks[n >> SIM_KV_CHUNK_BITS][n & (SIM_KV_CHUNK - 1)];
}

/* Eight bytes a step, then splitmix64's finalizer so the low bits the
 * index masks with depend on every byte. Only the index's layout depends
 * on it, and nothing depends on that. */
static uint64_t key_hash(const char *key, size_t len) {
    const uint64_t mul = UINT64_C(0x9E3779B97F4A7C15);
    uint64_t h = (uint64_t)len * mul;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, key + i, 8);
        h = (h ^ w) * mul;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    size_t k = 0;
    if (len - i >= 4) {
        uint32_t w;
        memcpy(&w, key + i, 4);
        tail = w;
        k = 4;
    }
    for (; i + k < len; k++) tail |= (uint64_t)(unsigned char)key[i + k] << (8 * k);
    h ^= tail;
    h ^= h >> 30;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

/* The index slot of key: where it is, or the empty slot where it would go. */
static size_t kv_slot(const sim_kv *kv, uint64_t hash, const char *key, size_t len) {
    size_t mask = kv->index_cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        uint32_t it = kv->index[i];
        if (!it) return i;
        const sim_kv_entry *e = kv_item(kv, it - 1);
        if (e->hash == hash && bytes_equal(&e->key, key, len)) return i;
    }
}

/* The entry of key, or NULL. */
static sim_kv_entry *kv_find(const sim_kv *kv, uint64_t hash, const char *key, size_t len) {
    if (!kv->count) return NULL;
    uint32_t it = kv->index[kv_slot(kv, hash, key, len)];
    return it ? kv_item(kv, it - 1) : NULL;
}

static void kv_reindex(sim_kv *kv, size_t cap) {
    free(kv->index);
    kv->index = sim_xcalloc(cap, sizeof *kv->index);
    kv->index_cap = cap;
    for (size_t n = 0; n < kv->count; n++) {
        size_t i = (size_t)kv_item(kv, n)->hash & (cap - 1);
        while (kv->index[i]) i = (i + 1) & (cap - 1);
        kv->index[i] = (uint32_t)(n + 1);
    }
}

static void kv_clear(sim_kv *kv) {
    for (size_t i = 0; i < kv->count; i++) {
        bytes_free(&kv_item(kv, i)->key);
        bytes_free(&kv_item(kv, i)->val);
    }
    for (size_t c = 0; c < kv->cap / SIM_KV_CHUNK; c++) free(kv->chunks[c]);
    free(kv->chunks);
    free(kv->index);
    memset(kv, 0, sizeof *kv);
}

static void kv_delete(sim_kv *kv, uint64_t hash, const char *key, size_t klen) {
    if (!kv->count) return;
    size_t mask = kv->index_cap - 1, slot = kv_slot(kv, hash, key, klen);
    uint32_t it = kv->index[slot];
    if (!it) return;
    size_t n = it - 1;
    bytes_free(&kv_item(kv, n)->key);
    bytes_free(&kv_item(kv, n)->val);
    /* Backward-shift deletion keeps every other key reachable. */
    size_t hole = slot;
    for (size_t i = (slot + 1) & mask; kv->index[i]; i = (i + 1) & mask) {
        size_t home = (size_t)kv_item(kv, kv->index[i] - 1)->hash & mask;
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            kv->index[hole] = kv->index[i];
            hole = i;
        }
    }
    kv->index[hole] = 0;
    /* The last entry fills the array's hole. */
    size_t last = kv->count - 1;
    if (n != last) {
        sim_kv_entry *hole_e = kv_item(kv, n);
        *hole_e = *kv_item(kv, last);
        size_t s = kv_slot(kv, hole_e->hash, (const char *)bytes_data(&hole_e->key), hole_e->key.len);
        kv->index[s] = (uint32_t)(n + 1);
    }
    kv->count--;
}

/* A put or an append to an entry that exists. */
static void kv_update(sim_kv_entry *e, sim_disk_op_type type, const void *val, size_t len) {
    if (type == SIM_DISK_PUT)
        bytes_set(&e->val, val, len);
    else
        bytes_append(&e->val, val, len);
}

static void kv_apply(sim_kv *kv, sim_disk_op_type type, uint64_t hash, const char *key, size_t klen,
                     const void *val, size_t len) {
    if (type == SIM_DISK_DEL) {
        kv_delete(kv, hash, key, klen);
        return;
    }
    if ((kv->count + 1) * 2 > kv->index_cap) kv_reindex(kv, kv->index_cap ? kv->index_cap * 2 : 128);
    size_t slot = kv_slot(kv, hash, key, klen);
    if (!kv->index[slot]) {
        if (kv->count == kv->cap) {
            size_t c = kv->cap / SIM_KV_CHUNK;
            if (c == kv->chunks_cap) {
                kv->chunks_cap = kv->chunks_cap ? kv->chunks_cap * 2 : 8;
                kv->chunks = sim_xrealloc(kv->chunks, kv->chunks_cap * sizeof *kv->chunks);
            }
            kv->chunks[c] = sim_xmalloc(SIM_KV_CHUNK * sizeof **kv->chunks);
            kv->cap += SIM_KV_CHUNK;
        }
        sim_kv_entry *e = kv_item(kv, kv->count++);
        e->hash = hash;
        e->key.heap = e->val.heap = NULL; /* bytes_set fills the rest */
        bytes_set(&e->key, key, klen);
        bytes_set(&e->val, val, len);
        kv->index[slot] = (uint32_t)kv->count;
        return;
    }
    kv_update(kv_item(kv, kv->index[slot] - 1), type, val, len);
}

/* ---- the disk ---- */

void sim_disk_init(oxl_disk *d, oxl_world *w, oxl_node_id node) {
    memset(d, 0, sizeof *d);
    d->world = w;
    d->node = node;
    char stream[32];
    snprintf(stream, sizeof stream, "disk:%d", node);
    oxl_rng_seed(&d->rng, oxl_world_seed(w), stream);
}

static void disk_drop_pending(oxl_disk *d) {
    for (size_t i = 0; i < d->npending; i++) {
        bytes_free(&d->pending[i].key);
        bytes_free(&d->pending[i].old);
    }
    d->npending = 0;
}

static void sorted_drop(oxl_disk *d) {
    for (size_t i = 0; i < d->nsorted; i++) free(d->sorted[i]);
    free(d->sorted);
    d->sorted = NULL;
    d->nsorted = 0;
    d->sorted_ok = false;
}

void sim_disk_destroy(oxl_disk *d) {
    if (!d) return;
    disk_drop_pending(d);
    free(d->pending);
    kv_clear(&d->current);
    sorted_drop(d);
}

static void disk_label(oxl_world *w, const void *arg, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", w->nodes[((const oxl_disk *)arg)->node].name);
}

/* A disk fault's chance in the World's fault log (faults.c). */
static bool disk_fault(oxl_disk *d, oxl_fault_kind k, bool would) {
    return sim_fault_gate(d->world, k, would, d->world->now, NULL, disk_label, d);
}

static void disk_trace(oxl_disk *d, const char *what, uint64_t arg) {
    oxl_world *w = d->world;
    sim_trace_record(w, OXL_EV_DISK, d->node, OXL_NO_NODE, w->next_seq, arg, sim_label_intern(&w->labels, what));
}

void sim_disk_crash(oxl_disk *d) {
    if (d->npending == 0) return;
    size_t keep = (size_t)oxl_rng_below(&d->rng, (uint64_t)d->npending + 1);
    if (!disk_fault(d, OXL_FAULT_LOST_WRITES, keep < d->npending)) keep = d->npending;
    else if (keep == d->npending) keep = d->npending - 1; /* a replay that lists it loses one at least */
    for (size_t i = d->npending; i-- > keep;) {
        const sim_disk_undo *u = &d->pending[i];
        const char *key = (const char *)bytes_data(&u->key);
        if (u->existed)
            kv_apply(&d->current, SIM_DISK_PUT, u->hash, key, u->key.len, bytes_data(&u->old), u->old.len);
        else
            kv_apply(&d->current, SIM_DISK_DEL, u->hash, key, u->key.len, NULL, 0);
    }
    disk_trace(d, "crash-kept", (uint64_t)keep << 32 | d->npending);
    disk_drop_pending(d);
    d->sorted_ok = false;
}

static int disk_write(oxl_disk *d, sim_disk_op_type type, const char *key, const void *val, size_t len) {
    if (!d) return OXL_DISK_EDEAD;
    size_t klen = key ? strlen(key) : 0;
    if (!klen || klen > OXL_DISK_MAX_KEY || len > OXL_DISK_MAX_VALUE || (len && !val)) return OXL_DISK_ELIMIT;
    if (d->npending >= OXL_DISK_MAX_PENDING) return OXL_DISK_ELIMIT;
    uint64_t hash = key_hash(key, klen);
    const sim_kv_entry *found = kv_find(&d->current, hash, key, klen);
    if (type == SIM_DISK_APPEND && found && found->val.len + len > OXL_DISK_MAX_VALUE) return OXL_DISK_ELIMIT;
    if (!found && type != SIM_DISK_DEL && d->current.count >= OXL_DISK_MAX_ENTRIES) return OXL_DISK_ELIMIT;
    if (d->write_fail_p > 0.0 && disk_fault(d, OXL_FAULT_WRITE_FAIL, oxl_rng_chance(&d->rng, d->write_fail_p))) {
        disk_trace(d, "write-failed", 0);
        return OXL_DISK_EIO;
    }
    if (d->npending == d->pending_cap) {
        d->pending_cap = d->pending_cap ? d->pending_cap * 2 : 8;
        d->pending = sim_xrealloc(d->pending, d->pending_cap * sizeof *d->pending);
    }
    sim_disk_undo *u = &d->pending[d->npending++];
    u->hash = hash;
    u->key.heap = NULL; /* bytes_set fills the rest */
    bytes_set(&u->key, key, klen);
    u->existed = found != NULL;
    if (found) {
        bytes_copy(&u->old, &found->val);
    } else {
        u->old.heap = NULL;
        u->old.len = 0;
    }
    if (found && type != SIM_DISK_DEL) /* the entry is where the lookup found it */
        kv_update((sim_kv_entry *)found, type, val, len);
    else
        kv_apply(&d->current, type, hash, key, klen, val, len);
    d->sorted_ok = false;
    return OXL_DISK_OK;
}

int oxl_disk_put(oxl_disk *d, const char *key, const void *val, size_t len) {
    return disk_write(d, SIM_DISK_PUT, key, val, len);
}

int oxl_disk_append(oxl_disk *d, const char *key, const void *val, size_t len) {
    return disk_write(d, SIM_DISK_APPEND, key, val, len);
}

int oxl_disk_del(oxl_disk *d, const char *key) {
    if (!d) return OXL_DISK_EDEAD;
    if (!key) return OXL_DISK_ELIMIT;
    size_t klen = strlen(key);
    if (!kv_find(&d->current, key_hash(key, klen), key, klen)) return OXL_DISK_ENOENT;
    return disk_write(d, SIM_DISK_DEL, key, NULL, 0);
}

int oxl_disk_get(oxl_disk *d, const char *key, const void **val, size_t *len) {
    if (!d) return OXL_DISK_EDEAD;
    if (!key) return OXL_DISK_ELIMIT;
    size_t klen = strlen(key);
    const sim_kv_entry *e = kv_find(&d->current, key_hash(key, klen), key, klen);
    if (!e) return OXL_DISK_ENOENT;
    if (val) *val = bytes_data(&e->val);
    if (len) *len = e->val.len;
    return OXL_DISK_OK;
}

int oxl_disk_sync(oxl_disk *d) {
    if (!d) return OXL_DISK_EDEAD;
    if (d->sync_fail_p > 0.0 && disk_fault(d, OXL_FAULT_SYNC_FAIL, oxl_rng_chance(&d->rng, d->sync_fail_p))) {
        disk_trace(d, "sync-failed", d->npending);
        return OXL_DISK_EIO;
    }
    disk_drop_pending(d); /* what the current view holds is durable now */
    return OXL_DISK_OK;
}

size_t oxl_disk_unsynced(const oxl_disk *d) { return d ? d->npending : 0; }
size_t oxl_disk_key_count(const oxl_disk *d) { return d ? d->current.count : 0; }

static int cmp_key(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b); /* bytewise: keys hold no NUL */
}

const char *oxl_disk_key_at(const oxl_disk *cd, size_t i) {
    if (!cd || i >= cd->current.count) return NULL;
    oxl_disk *d = (oxl_disk *)cd; /* the sorted copy is a cache: the disk's contents do not change */
    if (!d->sorted_ok) {
        sorted_drop(d);
        d->nsorted = d->current.count;
        d->sorted = sim_xmalloc((d->nsorted ? d->nsorted : 1) * sizeof *d->sorted);
        for (size_t k = 0; k < d->nsorted; k++) {
            const sim_bytes *key = &kv_item(&d->current, k)->key;
            char *s = sim_xmalloc((size_t)key->len + 1);
            memcpy(s, bytes_data(key), key->len);
            s[key->len] = 0;
            d->sorted[k] = s;
        }
        qsort(d->sorted, d->nsorted, sizeof *d->sorted, cmp_key);
        d->sorted_ok = true;
    }
    return d->sorted[i];
}

const char *oxl_disk_strerror(int err) {
    switch (err) {
    case OXL_DISK_OK: return "ok";
    case OXL_DISK_ENOENT: return "no such key";
    case OXL_DISK_EDEAD: return "the node's incarnation is dead";
    case OXL_DISK_ELIMIT: return "bad key or a disk limit exceeded";
    case OXL_DISK_EIO: return "injected I/O error";
    default: return "unknown disk error";
    }
}
