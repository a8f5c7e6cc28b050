/* trace.c: the record of every decision, and its running hash.
 *
 * Each event folds (kind, node, peer, time, seq, arg, label text hash) into
 * a 64-bit running hash, never an address or a payload pointer, so equal
 * hashes mean an exact replay. The last trace_capacity events are kept in a
 * ring for render and first_divergence; each keeps the hash up to itself. */
#include "sim_internal.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* One ring of the default capacity, kept for the next World: a World made
 * after another's end (an explorer's next seed) takes it without a malloc,
 * and a fork server keeps one ready for its children (sim_trace_reserve),
 * whose 224 KiB would be a mapping made and unmapped in every seed. */
#define SIM_TRACE_SPARE_CAP SIM_TRACE_DEFAULT_CAPACITY
static _Atomic(oxl_trace_event *) spare_ring;

void sim_trace_init(sim_trace *t, uint32_t capacity) {
    uint64_t cap = 1;
    while (cap < capacity) cap <<= 1;
    /* not zeroed: an entry is read only once recorded (count), and zeroing
     * 224 KiB a World was a tenth of an in-process seed */
    oxl_trace_event *ring = cap == SIM_TRACE_SPARE_CAP ? atomic_exchange(&spare_ring, NULL) : NULL;
    t->ring = ring ? ring : sim_xmalloc(cap * sizeof *t->ring);
    t->mask = cap - 1;
    t->count = 0;
    t->hash = UINT64_C(0x6F786C2D73696D31); /* "oxl-sim1" */
}

void sim_trace_free(sim_trace *t) {
    oxl_trace_event *none = NULL;
    if (t->mask + 1 == SIM_TRACE_SPARE_CAP && atomic_compare_exchange_strong(&spare_ring, &none, t->ring)) {
        t->ring = NULL;
        return;
    }
    free(t->ring);
    t->ring = NULL;
}

void sim_trace_reserve(void) {
    oxl_trace_event *ring = sim_xmalloc(SIM_TRACE_SPARE_CAP * sizeof *ring), *none = NULL;
    if (!atomic_compare_exchange_strong(&spare_ring, &none, ring)) free(ring);
}

uint64_t oxl_world_trace_hash(const oxl_world *w) { return w->trace.hash; }

void oxl_world_set_trace_hook(oxl_world *w, oxl_trace_hook fn, void *arg) {
    w->trace_hook = fn;
    w->trace_hook_arg = fn ? arg : NULL;
}

uint32_t oxl_world_label(oxl_world *w, const char *text) { return sim_label_intern(&w->labels, text); }

/* The record for node n's current incarnation, without a context to
 * build and check first: what the rpc layer traces from a live node's own
 * code. Nothing when n is down (as a dead context records nothing). */
SIM_HOT void oxl_world_trace_rpc(oxl_world *w, oxl_node_id n, oxl_node_id peer, uint64_t id, uint32_t label) {
    if (SIM_UNLIKELY(!w || n < 0 || n >= w->nnodes) || !w->nodes[n].up) return;
    if (label >= w->labels.count) label = 0; /* not one of this world's */
    sim_trace_record(w, OXL_EV_RPC, n, peer, w->next_seq, id, label);
}
void oxl_ctx_trace_rpc(oxl_ctx c, oxl_node_id peer, uint64_t id, uint32_t label) {
    if (sim_live_node(c)) oxl_world_trace_rpc(c.world, c.node, peer, id, label);
}
uint64_t oxl_world_trace_count(const oxl_world *w) { return w->trace.count; }

static uint64_t trace_first_kept(const sim_trace *t) {
    uint64_t cap = t->mask + 1;
    return t->count > cap ? t->count - cap : 0;
}

bool oxl_world_trace_event(const oxl_world *w, uint64_t index, oxl_trace_event *out) {
    const sim_trace *t = &w->trace;
    if (index >= t->count || index < trace_first_kept(t)) return false;
    *out = t->ring[index & t->mask];
    return true;
}

static const char *kind_name(uint8_t kind) {
    static const char *const names[] = {
        [OXL_EV_SEND] = "send",          [OXL_EV_DELIVER] = "deliver", [OXL_EV_DROP] = "drop",
        [OXL_EV_DUPLICATE] = "duplicate", [OXL_EV_PARTITION] = "partition", [OXL_EV_BLOCK] = "block",
        [OXL_EV_HEAL] = "heal",          [OXL_EV_KILL] = "kill",       [OXL_EV_START] = "start",
        [OXL_EV_RESTART] = "restart",    [OXL_EV_TIMER] = "timer",     [OXL_EV_CALL] = "call",
        [OXL_EV_NOTE] = "note",          [OXL_EV_FAIL] = "fail",       [OXL_EV_SKEW] = "skew",
        [OXL_EV_DISK] = "disk",          [OXL_EV_NETCONF] = "net",     [OXL_EV_TASK] = "task",
        [OXL_EV_RPC] = "rpc",
    };
    return kind < sizeof names / sizeof names[0] && names[kind] ? names[kind] : "?";
}

const char *oxl_trace_kind_name(uint8_t kind) { return kind_name(kind); }

static const char *drop_reason(uint64_t arg) {
    switch (arg) {
    case 1: return "link cut";
    case 2: return "random drop";
    case 3: return "node down";
    default: return "?";
    }
}

size_t oxl_world_trace_format(const oxl_world *w, const oxl_trace_event *ev, char *buf, size_t cap) {
    const char *label = w->labels.items[ev->label < w->labels.count ? ev->label : 0].text;
    const char *node = oxl_world_node_name(w, ev->node), *peer = oxl_world_node_name(w, ev->peer);
    int n = snprintf(buf, cap, "#%" PRIu64 " @%" PRId64 ".%09" PRId64 "s seq=%" PRIu64 " %-9s ", ev->index,
                     ev->time / OXL_SEC, ev->time % OXL_SEC, ev->seq, kind_name(ev->kind));
    if (n < 0) return 0;
    size_t len = (size_t)n < cap ? (size_t)n : cap;
    char *p = buf + len;
    size_t room = cap - len;
    switch (ev->kind) {
    case OXL_EV_SEND: n = snprintf(p, room, "%s -> %s (%" PRIu64 " bytes)", node, peer, ev->arg); break;
    case OXL_EV_DELIVER: n = snprintf(p, room, "%s -> %s (%" PRIu64 " bytes)", peer, node, ev->arg); break;
    case OXL_EV_DUPLICATE: n = snprintf(p, room, "%s -> %s (%" PRIu64 " bytes)", node, peer, ev->arg); break;
    case OXL_EV_DROP: n = snprintf(p, room, "%s -> %s (%s)", node, peer, drop_reason(ev->arg)); break;
    case OXL_EV_BLOCK: n = snprintf(p, room, "%s -> %s", node, peer); break;
    case OXL_EV_PARTITION: n = snprintf(p, room, "%s", label); break;
    case OXL_EV_HEAL: n = snprintf(p, room, "%s", *label ? label : "all links"); break;
    case OXL_EV_KILL:
    case OXL_EV_START:
    case OXL_EV_RESTART: n = snprintf(p, room, "%s (incarnation %" PRIu64 ")", node, ev->arg); break;
    case OXL_EV_TIMER: n = snprintf(p, room, "%s", node); break;
    case OXL_EV_SKEW: n = snprintf(p, room, "%s %+" PRId64 "ns", node, (int64_t)ev->arg); break;
    case OXL_EV_DISK: n = snprintf(p, room, "%s %s", node, label); break;
    case OXL_EV_NETCONF: n = snprintf(p, room, "%s = %" PRIu64, label, ev->arg); break;
    case OXL_EV_TASK: {
        uint64_t id = ev->arg & ((UINT64_C(1) << 40) - 1);
        const char *name = sim_task_name(w, id);
        if (name) n = snprintf(p, room, "%s %s on %s", label, name, ev->node == OXL_NO_NODE ? "process" : node);
        else n = snprintf(p, room, "%s task %" PRIu64 " on %s", label, id, ev->node == OXL_NO_NODE ? "process" : node);
        break;
    }
    case OXL_EV_RPC: /* call ids are the caller's incarnation << 40 | its count of calls; 0: a local call */
        if (ev->arg)
            n = snprintf(p, room, "%s: %s #%" PRIu64 ".%" PRIu64 " with %s", node, label, ev->arg >> 40,
                         ev->arg & ((UINT64_C(1) << 40) - 1), ev->peer == OXL_NO_NODE ? "none" : peer);
        else
            n = snprintf(p, room, "%s: %s", node, label);
        break;
    default:
        n = ev->node == OXL_NO_NODE ? snprintf(p, room, "%s", label) : snprintf(p, room, "%s: %s", node, label);
        break;
    }
    if (n > 0) len += (size_t)n < room ? (size_t)n : room;
    return len;
}

void oxl_world_trace_render(const oxl_world *w, size_t n, FILE *out) {
    const sim_trace *t = &w->trace;
    uint64_t first = trace_first_kept(t);
    if (t->count - first > n) first = t->count - n;
    char line[512];
    for (uint64_t i = first; i < t->count; i++) {
        oxl_world_trace_format(w, &t->ring[i & t->mask], line, sizeof line);
        fprintf(out, "  %s\n", line);
    }
}

static bool events_equal(const oxl_world *a, const oxl_trace_event *x, const oxl_world *b,
                         const oxl_trace_event *y) {
    return x->kind == y->kind && x->time == y->time && x->seq == y->seq && x->arg == y->arg &&
           x->node == y->node && x->peer == y->peer &&
           strcmp(a->labels.items[x->label].text, b->labels.items[y->label].text) == 0;
}

static void describe(const oxl_world *w, const char *side, uint64_t index, FILE *out) {
    oxl_trace_event ev;
    char line[512];
    if (oxl_world_trace_event(w, index, &ev)) {
        oxl_world_trace_format(w, &ev, line, sizeof line);
        fprintf(out, "  %s: %s\n", side, line);
    } else {
        fprintf(out, "  %s: (no event #%" PRIu64 ": the run recorded %" PRIu64 ")\n", side, index,
                oxl_world_trace_count(w));
    }
}

int64_t oxl_trace_first_divergence(const oxl_world *a, const oxl_world *b, FILE *out) {
    const sim_trace *ta = &a->trace, *tb = &b->trace;
    uint64_t lo = trace_first_kept(ta), lob = trace_first_kept(tb);
    if (lob > lo) lo = lob;
    uint64_t common = ta->count < tb->count ? ta->count : tb->count;
    for (uint64_t i = lo; i < common; i++) {
        const oxl_trace_event *x = &ta->ring[i & ta->mask], *y = &tb->ring[i & tb->mask];
        if (events_equal(a, x, b, y)) {
            if (x->hash_after == y->hash_after) continue;
            /* Equal events, unequal hashes: they parted earlier, before the
             * kept window or in events hashed but not kept (task switches). */
            if (out)
                fprintf(out, "the runs diverge before event #%" PRIu64 ": in an older event (raise trace_capacity) "
                             "or in the task switches, which the hash covers but the trace does not keep\n", i);
            return (int64_t)i;
        }
        if (out) {
            fprintf(out, "the runs diverge at event #%" PRIu64 ":\n", i);
            describe(a, "first ", i, out);
            describe(b, "second", i, out);
        }
        return (int64_t)i;
    }
    if (ta->count == tb->count && ta->hash == tb->hash) return -1;
    if (ta->count != tb->count) {
        if (out) {
            fprintf(out, "one run stops early: %" PRIu64 " events against %" PRIu64 ":\n", ta->count, tb->count);
            describe(a, "first ", common, out);
            describe(b, "second", common, out);
        }
        return (int64_t)common;
    }
    if (out) fprintf(out, "the runs diverge before event #%" PRIu64 " (outside the kept window)\n", lo);
    return (int64_t)lo;
}

void sim_name_task(oxl_world *w, uint64_t task_id, const char *name) {
    uint32_t label = sim_intern(w, name);
    for (size_t i = 0; i < w->ntask_names; i++)
        if (w->task_names[i].id == task_id) {
            w->task_names[i].label = label;
            return;
        }
    if (w->ntask_names == w->task_names_cap) {
        w->task_names_cap = w->task_names_cap ? w->task_names_cap * 2 : 16;
        w->task_names = sim_xrealloc(w->task_names, w->task_names_cap * sizeof *w->task_names);
    }
    w->task_names[w->ntask_names].id = task_id;
    w->task_names[w->ntask_names++].label = label;
}

const char *sim_task_name(const oxl_world *w, uint64_t task_id) {
    for (size_t i = w->ntask_names; i-- > 0;)
        if (w->task_names[i].id == task_id) return w->labels.items[w->task_names[i].label].text;
    return NULL;
}
