/* disk.c: a node's simulated disk, a small key/value store that loses
 * unsynced writes in a crash.
 *
 * Writes go to the current view at once and to a pending log; sync moves
 * the log into the durable view. A crash keeps a seeded prefix of the log
 * (a prefix: the failure an application can defend against by syncing
 * before it acts) and rebuilds the current view from what is durable. The
 * dice come from the disk's own stream and are rolled only when there is
 * something to decide: a disk that is never written, or never crashes with
 * unsynced writes, and has no failure rate, draws nothing. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- a sorted key/value array ---- */

static size_t kv_find(const sim_kv *kv, const char *key, bool *found) {
    size_t lo = 0, hi = kv->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(kv->items[mid].key, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static void kv_clear(sim_kv *kv) {
    for (size_t i = 0; i < kv->count; i++) {
        free(kv->items[i].key);
        free(kv->items[i].val);
    }
    free(kv->items);
    memset(kv, 0, sizeof *kv);
}

static unsigned char *bytes_dup(const void *val, size_t len) {
    unsigned char *p = sim_xmalloc(len);
    if (len) memcpy(p, val, len);
    return p;
}

/* Applies one write. Limits were checked before the write was accepted. */
static void kv_apply(sim_kv *kv, sim_disk_op_type type, const char *key, const void *val, size_t len) {
    bool found;
    size_t i = kv_find(kv, key, &found);
    if (type == SIM_DISK_DEL) {
        if (!found) return;
        free(kv->items[i].key);
        free(kv->items[i].val);
        memmove(&kv->items[i], &kv->items[i + 1], (kv->count - i - 1) * sizeof *kv->items);
        kv->count--;
        return;
    }
    if (!found) {
        if (kv->count == kv->cap) {
            kv->cap = kv->cap ? kv->cap * 2 : 8;
            kv->items = sim_xrealloc(kv->items, kv->cap * sizeof *kv->items);
        }
        memmove(&kv->items[i + 1], &kv->items[i], (kv->count - i) * sizeof *kv->items);
        kv->items[i] = (sim_kv_entry){sim_xstrdup(key), NULL, 0};
        kv->count++;
    }
    sim_kv_entry *e = &kv->items[i];
    if (type == SIM_DISK_PUT || !found) {
        free(e->val);
        e->val = bytes_dup(val, len);
        e->len = len;
    } else { /* append to an existing value */
        e->val = sim_xrealloc(e->val, e->len + len);
        if (len) memcpy(e->val + e->len, val, len);
        e->len += len;
    }
}

static void kv_copy(sim_kv *dst, const sim_kv *src) {
    kv_clear(dst);
    dst->cap = dst->count = src->count;
    dst->items = sim_xcalloc(src->count, sizeof *dst->items);
    for (size_t i = 0; i < src->count; i++)
        dst->items[i] = (sim_kv_entry){sim_xstrdup(src->items[i].key),
                                       bytes_dup(src->items[i].val, src->items[i].len), src->items[i].len};
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

static void disk_drop_pending(oxl_disk *d, size_t from) {
    for (size_t i = from; i < d->npending; i++) {
        free(d->pending[i].key);
        free(d->pending[i].val);
    }
    d->npending = from;
}

void sim_disk_destroy(oxl_disk *d) {
    if (!d) return;
    disk_drop_pending(d, 0);
    free(d->pending);
    kv_clear(&d->durable);
    kv_clear(&d->current);
}

static void disk_trace(oxl_disk *d, const char *what, uint64_t arg) {
    oxl_world *w = d->world;
    sim_trace_record(w, OXL_EV_DISK, d->node, OXL_NO_NODE, w->next_seq, arg, sim_label_intern(&w->labels, what));
}

void sim_disk_crash(oxl_disk *d) {
    if (d->npending == 0) return;
    size_t keep = (size_t)oxl_rng_below(&d->rng, (uint64_t)d->npending + 1);
    for (size_t i = 0; i < keep; i++) {
        sim_disk_op *op = &d->pending[i];
        kv_apply(&d->durable, op->type, op->key, op->val, op->len);
    }
    disk_trace(d, "crash-kept", (uint64_t)keep << 32 | d->npending);
    disk_drop_pending(d, 0);
    kv_copy(&d->current, &d->durable);
}

static int disk_write(oxl_disk *d, sim_disk_op_type type, const char *key, const void *val, size_t len) {
    if (!d) return OXL_DISK_EDEAD;
    if (!key || !*key || strlen(key) > OXL_DISK_MAX_KEY || len > OXL_DISK_MAX_VALUE || (len && !val))
        return OXL_DISK_ELIMIT;
    if (d->npending >= OXL_DISK_MAX_PENDING) return OXL_DISK_ELIMIT;
    bool found;
    size_t at = kv_find(&d->current, key, &found);
    if (type == SIM_DISK_APPEND && found && d->current.items[at].len + len > OXL_DISK_MAX_VALUE)
        return OXL_DISK_ELIMIT;
    if (!found && type != SIM_DISK_DEL && d->current.count >= OXL_DISK_MAX_ENTRIES) return OXL_DISK_ELIMIT;
    if (d->write_fail_p > 0.0 && oxl_rng_chance(&d->rng, d->write_fail_p)) {
        disk_trace(d, "write-failed", 0);
        return OXL_DISK_EIO;
    }
    kv_apply(&d->current, type, key, val, len);
    if (d->npending == d->pending_cap) {
        d->pending_cap = d->pending_cap ? d->pending_cap * 2 : 8;
        d->pending = sim_xrealloc(d->pending, d->pending_cap * sizeof *d->pending);
    }
    d->pending[d->npending++] = (sim_disk_op){type, sim_xstrdup(key), bytes_dup(val, len), len};
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
    bool found = false;
    if (key) kv_find(&d->current, key, &found);
    if (!found) return key ? OXL_DISK_ENOENT : OXL_DISK_ELIMIT;
    return disk_write(d, SIM_DISK_DEL, key, NULL, 0);
}

int oxl_disk_get(oxl_disk *d, const char *key, const void **val, size_t *len) {
    if (!d) return OXL_DISK_EDEAD;
    if (!key) return OXL_DISK_ELIMIT;
    bool found;
    size_t i = kv_find(&d->current, key, &found);
    if (!found) return OXL_DISK_ENOENT;
    if (val) *val = d->current.items[i].val;
    if (len) *len = d->current.items[i].len;
    return OXL_DISK_OK;
}

int oxl_disk_sync(oxl_disk *d) {
    if (!d) return OXL_DISK_EDEAD;
    if (d->sync_fail_p > 0.0 && oxl_rng_chance(&d->rng, d->sync_fail_p)) {
        disk_trace(d, "sync-failed", d->npending);
        return OXL_DISK_EIO;
    }
    for (size_t i = 0; i < d->npending; i++) {
        sim_disk_op *op = &d->pending[i];
        kv_apply(&d->durable, op->type, op->key, op->val, op->len);
    }
    disk_drop_pending(d, 0);
    return OXL_DISK_OK;
}

size_t oxl_disk_unsynced(const oxl_disk *d) { return d ? d->npending : 0; }
size_t oxl_disk_key_count(const oxl_disk *d) { return d ? d->current.count : 0; }

const char *oxl_disk_key_at(const oxl_disk *d, size_t i) {
    return d && i < d->current.count ? d->current.items[i].key : NULL;
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
