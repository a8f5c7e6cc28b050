/* world.c: the World: virtual time, the event queue, nodes and their
 * incarnations, node contexts, node faults, oracles.
 *
 * One door: every effect that happens later is an event in one queue
 * (event_queue.h) keyed (time, tie), where tie is the sequence number,
 * with a seeded draw in its high bits when randomize_ties is on. Nothing
 * is ever ordered by an address. */
#include "sim_internal.h"
#include "sim_hot.h"
#include "fence/fence.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ---- */

void sim_oom(void) {
    fputs("oxl sim: out of memory\n", stderr);
    abort();
}

void *sim_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) sim_oom();
    return p;
}

void *sim_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) sim_oom();
    return p;
}

/* aligned_alloc wants a multiple of the alignment */
static size_t whole_lines(size_t size) {
    return size ? (size + SIM_CACHE_LINE - 1) / SIM_CACHE_LINE * SIM_CACHE_LINE : SIM_CACHE_LINE;
}

void *sim_xmalloc_line(size_t size) {
    void *p = aligned_alloc(SIM_CACHE_LINE, whole_lines(size));
    if (!p) sim_oom();
    return p;
}

void *sim_xcalloc_line(size_t size) { return memset(sim_xmalloc_line(size), 0, whole_lines(size)); }

void *sim_xrealloc_line(void *p, size_t old, size_t n) {
    void *q = sim_xmalloc_line(n);
    if (p) memcpy(q, p, old < n ? old : n);
    free(p);
    return q;
}

void *sim_xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) sim_oom();
    return p;
}

char *sim_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = sim_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

static char *world_vformat(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return sim_xstrdup("(unformattable message)");
    char *s = sim_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* ---- labels ---- */

static void labels_init(sim_labels *l) {
    l->cap = 64;
    l->items = sim_xcalloc(l->cap, sizeof *l->items);
    l->items[0].text = sim_xstrdup("");
    l->items[0].hash = sim_text_hash("", 0);
    l->count = 1;
    l->index_cap = 128;
    l->index = sim_xcalloc(l->index_cap, sizeof *l->index);
}

static void labels_free(sim_labels *l) {
    for (uint32_t i = 0; i < l->count; i++) free(l->items[i].text);
    free(l->items);
    free(l->index);
}

static void labels_reindex(sim_labels *l) {
    free(l->index);
    l->index_cap *= 2;
    l->index = sim_xcalloc(l->index_cap, sizeof *l->index);
    for (uint32_t id = 1; id < l->count; id++) {
        uint32_t mask = l->index_cap - 1, i = (uint32_t)l->items[id].hash & mask;
        while (l->index[i]) i = (i + 1) & mask;
        l->index[i] = id;
    }
}

uint32_t sim_label_intern(sim_labels *l, const char *text) {
    if (!text || !*text) return 0;
    size_t len = strlen(text);
    uint64_t h = sim_text_hash(text, len);
    uint32_t mask = l->index_cap - 1, i = (uint32_t)h & mask;
    while (l->index[i]) {
        sim_label *it = &l->items[l->index[i]];
        if (it->hash == h && strcmp(it->text, text) == 0) return l->index[i];
        i = (i + 1) & mask;
    }
    if (l->count == l->cap) {
        l->cap *= 2;
        l->items = sim_xrealloc(l->items, l->cap * sizeof *l->items);
    }
    uint32_t id = l->count++;
    l->items[id].text = sim_xstrdup(text);
    l->items[id].hash = h;
    l->index[i] = id;
    if (l->count * 2 > l->index_cap) labels_reindex(l);
    return id;
}

/* ---- world ---- */

oxl_world_options oxl_world_options_default(uint64_t seed) {
    oxl_world_options o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    o.randomize_ties = true;
    o.trace_messages = true;
    o.trace_capacity = SIM_TRACE_DEFAULT_CAPACITY;
    o.max_events = UINT64_C(1000000000);
    o.latency_min = 1 * OXL_MS;
    o.latency_max = 5 * OXL_MS;
    return o;
}

oxl_world *oxl_world_new(const oxl_world_options *opt) {
    oxl_world *w = sim_xcalloc(1, sizeof *w);
    w->opt = opt ? *opt : oxl_world_options_default(0);
    if (w->opt.trace_capacity == 0) w->opt.trace_capacity = SIM_TRACE_DEFAULT_CAPACITY;
    if (w->opt.max_events == 0) w->opt.max_events = UINT64_C(1000000000);
    labels_init(&w->labels);
    sim_trace_init(&w->trace, w->opt.trace_capacity);
    w->label_wake = sim_label_intern(&w->labels, "wake");
    uint64_t seed = w->opt.seed;
    oxl_rng_seed(&w->tie_rng, seed, "ties");
    oxl_rng_seed(&w->net_rng, seed, "net");
    oxl_rng_seed(&w->fault_rng, seed, "faults");
    oxl_rng_seed(&w->dead_rng, seed, "dead");
    w->running_node = OXL_NO_NODE;
    w->qtaken = SIM_QUEUE_NO_SLOT;
    sim_queue_grow(w, 2);
    w->pool_cap = 256;
    w->pool = sim_xmalloc_line(w->pool_cap * sizeof *w->pool);
    w->free_slots = sim_xmalloc(w->pool_cap * sizeof *w->free_slots);
    /* Options are validated like any other call: a bad range is a misuse. */
    if (oxl_net_latency(w, w->opt.latency_min, w->opt.latency_max) != OXL_OK) w->lat_min = w->lat_max = 0;
    return w;
}

static void event_release_payload(sim_event *ev) {
    if (ev->type == SIM_DELIVER && ev->u.msg.heap_data) {
        free(ev->u.msg.heap_data);
        ev->u.msg.heap_data = NULL;
    }
}

void sim_destroy_doomed(oxl_world *w) {
    for (size_t i = 0; i < w->ndoomed; i++) w->doomed[i]->ops->destroy(w->doomed[i]);
    w->ndoomed = 0;
}

void oxl_world_free(oxl_world *w) {
    if (!w) return;
    queue_settle(w);
    for (uint32_t s = 0; s < w->pool_len; s++)
        if (sim_queue_holds(w, s)) event_release_payload(&w->pool[s]);
    for (int i = 0; i < w->nnodes; i++) {
        sim_node *n = &w->nodes[i];
        if (n->proc) n->proc->ops->destroy(n->proc);
        sim_disk_destroy(n->disk);
        free(n->disk);
    }
    sim_destroy_doomed(w);
    free(w->doomed);
    sim_net_free(w);
    sim_faults_free(w);
    sim_deadlines_free(w);
    free(w->nodes);
    sim_queue_free(w);
    free(w->pool);
    free(w->free_slots);
    for (size_t i = 0; i < w->nstrings; i++) free(w->strings[i]);
    free(w->strings);
    free(w->failure);
    sim_trace_free(&w->trace);
    labels_free(&w->labels);
    free(w->task_names);
    free(w);
}

uint64_t oxl_world_seed(const oxl_world *w) { return w->opt.seed; }
SIM_HOT oxl_time_ns oxl_world_now(const oxl_world *w) { return w->now; }
uint64_t oxl_world_event_count(const oxl_world *w) { return w->events_run; }
size_t oxl_world_pending(const oxl_world *w) { return w->queued + w->deadlines.len; }
oxl_rng *oxl_world_rng(oxl_world *w) { return &w->fault_rng; }

/* ---- failure ---- */

void sim_fail_text(oxl_world *w, char *owned_text) {
    if (w->failure) { /* the first failure is the one that counts */
        free(owned_text);
        return;
    }
    w->failure = owned_text;
    sim_trace_record(w, OXL_EV_FAIL, w->running_node, OXL_NO_NODE, w->next_seq, 0,
                     sim_label_intern(&w->labels, owned_text));
}

void oxl_world_fail(oxl_world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sim_fail_text(w, world_vformat(fmt, ap));
    va_end(ap);
}

int sim_misuse(oxl_world *w, const char *call, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *what = world_vformat(fmt, ap);
    va_end(ap);
    size_t n = strlen(call) + strlen(what) + 32;
    char *msg = sim_xmalloc(n);
    snprintf(msg, n, "API misuse: %s: %s", call, what);
    free(what);
    sim_fail_text(w, msg);
    return OXL_EMISUSE;
}

bool oxl_world_failed(const oxl_world *w) { return w->failure != NULL; }
const char *oxl_world_failure(const oxl_world *w) { return w->failure; }

const char *oxl_world_strf(oxl_world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = world_vformat(fmt, ap);
    va_end(ap);
    if (w->nstrings == w->strings_cap) {
        w->strings_cap = w->strings_cap ? w->strings_cap * 2 : 16;
        w->strings = sim_xrealloc(w->strings, w->strings_cap * sizeof *w->strings);
    }
    w->strings[w->nstrings++] = s;
    return s;
}

/* ---- the event queue (event_queue.h) ---- */

void sim_queue_grow(oxl_world *w, uint32_t cap) {
    assert(cap >= 2 && (cap & (cap - 1)) == 0 && cap <= (UINT32_C(1) << 31) && cap > w->qcap);
    queue_settle(w);
    w->qtime = sim_xrealloc(w->qtime, cap * sizeof *w->qtime);
    w->qtie = sim_xrealloc(w->qtie, cap * sizeof *w->qtie);
    for (uint32_t s = w->qcap; s < cap; s++) queue_clear_leaf(w, s);
    free(w->qwin);
    w->qwin = sim_xmalloc(cap * sizeof *w->qwin);
    w->qcap = cap;
    /* inner node i's children are 2i and 2i+1; nodes cap .. 2cap-1 are the leaves */
    for (uint32_t i = cap - 1; i >= 1; i--) {
        uint32_t l = 2 * i >= cap ? 2 * i - cap : w->qwin[2 * i];
        uint32_t r = 2 * i + 1 >= cap ? 2 * i + 1 - cap : w->qwin[2 * i + 1];
        w->qwin[i] = queue_before(w, r, l) ? r : l;
    }
    w->qwin[0] = SIM_QUEUE_NO_SLOT; /* not a node */
}

void sim_queue_free(oxl_world *w) {
    free(w->qtime);
    free(w->qtie);
    free(w->qwin);
    w->qtime = w->qtie = NULL;
    w->qwin = NULL;
    w->qcap = 0;
}

uint32_t sim_pool_new_slot(oxl_world *w) {
    if (w->pool_len == w->pool_cap) {
        w->pool = sim_xrealloc_line(w->pool, w->pool_cap * sizeof *w->pool, 2 * w->pool_cap * sizeof *w->pool);
        w->pool_cap *= 2;
        w->free_slots = sim_xrealloc(w->free_slots, w->pool_cap * sizeof *w->free_slots);
    }
    uint32_t slot = w->pool_len++;
    w->pool[slot].gen = 0;
    if (slot >= w->qcap) sim_queue_grow(w, w->qcap * 2);
    return slot;
}

/* A queued event at time t, its payload left to the caller (sim_schedule). */
static inline __attribute__((always_inline)) sim_event *event_queue(oxl_world *w, oxl_time_ns t, uint32_t *slot_out) {
    sim_event *dst = sim_event_slot(w, slot_out);
    sim_event_push(w, t, dst->seq, *slot_out);
    return &w->pool[*slot_out]; /* queue_push does not move the pool */
}

SIM_HOT uint32_t sim_schedule(oxl_world *w, oxl_time_ns t, sim_event *ev) {
    uint32_t slot;
    sim_event *dst = event_queue(w, t, &slot);
    uint32_t gen = dst->gen;
    uint64_t seq = dst->seq;
    *dst = *ev;
    dst->gen = gen;
    dst->seq = seq;
    return slot;
}

/* ---- nodes ---- */

SIM_HOT bool sim_valid_node(const oxl_world *w, oxl_node_id n) { return n >= 0 && n < w->nnodes; }

SIM_HOT sim_node *sim_live_node(oxl_ctx c) {
    oxl_world *w = c.world;
    if (SIM_UNLIKELY(!w || c.node < 0 || c.node >= w->nnodes)) return NULL;
    sim_node *n = &w->nodes[c.node];
    return (n->up && n->incarnation == c.incarnation) ? n : NULL;
}

static bool name_ok(const char *name) {
    size_t len = strlen(name);
    if (len == 0 || len > OXL_SIM_NAME_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        /* '|', '>' and control characters would make trace lines ambiguous */
        if (ch < 0x21 || ch == '|' || ch == '>' || ch == 0x7f) return false;
    }
    return true;
}

oxl_node_id oxl_world_add_node(oxl_world *w, const char *name, oxl_process_factory factory, void *arg) {
    static const char call[] = "oxl_world_add_node";
    if (!name || !name_ok(name)) {
        sim_misuse(w, call, "bad node name '%s' (1..%d printable characters, no spaces, '|' or '>')",
                   name ? name : "(null)", OXL_SIM_NAME_MAX);
        return OXL_NO_NODE;
    }
    if (!factory) {
        sim_misuse(w, call, "node '%s' has no factory", name);
        return OXL_NO_NODE;
    }
    if (oxl_world_node_by_name(w, name) != OXL_NO_NODE) {
        sim_misuse(w, call, "a node named '%s' exists already", name);
        return OXL_NO_NODE;
    }
    if (w->nnodes == OXL_SIM_MAX_NODES) {
        sim_misuse(w, call, "more than %d nodes", OXL_SIM_MAX_NODES);
        return OXL_NO_NODE;
    }
    if (w->nnodes == w->nodes_cap) {
        w->nodes_cap = w->nodes_cap ? w->nodes_cap * 2 : 8;
        w->nodes = sim_xrealloc(w->nodes, (size_t)w->nodes_cap * sizeof *w->nodes);
    }
    oxl_node_id id = w->nnodes++;
    sim_net_grow(w, w->nnodes);
    sim_node *n = &w->nodes[id];
    memset(n, 0, sizeof *n);
    memcpy(n->name, name, strlen(name) + 1);
    n->label = sim_label_intern(&w->labels, name);
    n->factory = factory;
    n->factory_arg = arg;
    n->incarnation = 1;
    char stream[32];
    snprintf(stream, sizeof stream, "node:%d", id);
    oxl_rng_seed(&n->rng, w->opt.seed, stream);
    n->disk = sim_xcalloc(1, sizeof *n->disk);
    sim_disk_init(n->disk, w, id);
    /* Boot as an event, so that every node of the scenario exists before
     * any of them starts sending. */
    sim_event ev = {.type = SIM_BOOT, .node = id, .from = OXL_NO_NODE, .incarnation = 1};
    sim_schedule(w, w->now, &ev);
    return id;
}

int oxl_world_node_count(const oxl_world *w) { return w->nnodes; }

oxl_node_id oxl_world_node_by_name(const oxl_world *w, const char *name) {
    if (!name) return OXL_NO_NODE;
    for (int i = 0; i < w->nnodes; i++)
        if (strcmp(w->nodes[i].name, name) == 0) return i;
    return OXL_NO_NODE;
}

const char *oxl_world_node_name(const oxl_world *w, oxl_node_id n) {
    return sim_valid_node(w, n) ? w->nodes[n].name : "?";
}

SIM_HOT bool oxl_world_is_up(const oxl_world *w, oxl_node_id n) { return sim_valid_node(w, n) && w->nodes[n].up; }

uint32_t oxl_world_incarnation(const oxl_world *w, oxl_node_id n) {
    return sim_valid_node(w, n) ? w->nodes[n].incarnation : 0;
}

oxl_process *oxl_world_process(oxl_world *w, oxl_node_id n) {
    return oxl_world_is_up(w, n) ? w->nodes[n].proc : NULL;
}

SIM_HOT oxl_ctx oxl_world_ctx(oxl_world *w, oxl_node_id n) {
    oxl_ctx c = {w, n, 0};
    if (sim_valid_node(w, n) && w->nodes[n].up) c.incarnation = w->nodes[n].incarnation;
    return c;
}

oxl_disk *oxl_world_disk(oxl_world *w, oxl_node_id n) { return sim_valid_node(w, n) ? w->nodes[n].disk : NULL; }

/* Runs a callback of node n's process with n marked as running, so that a
 * kill of n from inside it defers the destroy until the callback returns. */
#define WITH_RUNNING_NODE(w, n, stmt)                 \
    do {                                              \
        oxl_node_id saved_ = (w)->running_node;       \
        (w)->running_node = (n);                      \
        stmt;                                         \
        (w)->running_node = saved_;                   \
        if ((w)->ndoomed && saved_ == OXL_NO_NODE)    \
            sim_destroy_doomed(w);                  \
    } while (0)

static void node_boot(oxl_world *w, oxl_node_id id, oxl_event_kind kind, uint64_t seq) {
    sim_node *n = &w->nodes[id];
    n->up = true;
    n->booted = true;
    sim_trace_record(w, kind, id, OXL_NO_NODE, seq, n->incarnation, 0);
    oxl_ctx c = {w, id, n->incarnation};
    oxl_process *p = NULL;
    WITH_RUNNING_NODE(w, id, p = n->factory(c, n->factory_arg));
    n = &w->nodes[id];
    if (!p || !p->ops || !p->ops->start || !p->ops->message || !p->ops->destroy) {
        n->up = false;
        if (p && p->ops && p->ops->destroy) p->ops->destroy(p);
        sim_misuse(w, "oxl_process_factory", "the factory of node '%s' returned %s", n->name,
                   p ? "a process without start, message and destroy" : "NULL");
        return;
    }
    n->proc = p;
    WITH_RUNNING_NODE(w, id, p->ops->start(p, c));
}

void sim_boot_now(oxl_world *w, oxl_node_id id) {
    if (sim_valid_node(w, id) && !w->nodes[id].booted)
        node_boot(w, id, OXL_EV_START, w->next_seq); /* its queued boot event is then void */
}

static void node_crash(oxl_world *w, oxl_node_id id, uint64_t seq) {
    sim_node *n = &w->nodes[id];
    n->up = false;
    sim_trace_record(w, OXL_EV_KILL, id, OXL_NO_NODE, seq, n->incarnation, 0);
    oxl_process *p = n->proc;
    n->proc = NULL;
    if (p) {
        if (w->running_node != OXL_NO_NODE) { /* some process callback is on the stack */
            if (w->ndoomed == w->doomed_cap) {
                w->doomed_cap = w->doomed_cap ? w->doomed_cap * 2 : 4;
                w->doomed = sim_xrealloc(w->doomed, w->doomed_cap * sizeof *w->doomed);
            }
            w->doomed[w->ndoomed++] = p;
        } else {
            p->ops->destroy(p);
        }
    }
    sim_disk_crash(n->disk);
}

static void node_label(oxl_world *w, const void *arg, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", w->nodes[*(const oxl_node_id *)arg].name);
}

/* A node fault's chance in the fault log (faults.c). */
static bool node_fault(oxl_world *w, oxl_fault_kind k, oxl_node_id id, oxl_time_ns at, oxl_dur_ns *dur) {
    return sim_fault_gate(w, k, true, at, dur, node_label, &id);
}

int oxl_world_kill(oxl_world *w, oxl_node_id id) {
    if (!sim_valid_node(w, id)) return sim_misuse(w, "oxl_world_kill", "unknown node %d", (int)id);
    if (!w->nodes[id].up)
        return sim_misuse(w, "oxl_world_kill", "node '%s' is already down", w->nodes[id].name);
    if (!node_fault(w, OXL_FAULT_KILL, id, w->now, NULL)) return OXL_OK;
    node_crash(w, id, w->next_seq);
    return OXL_OK;
}

int oxl_world_restart(oxl_world *w, oxl_node_id id) {
    if (!sim_valid_node(w, id)) return sim_misuse(w, "oxl_world_restart", "unknown node %d", (int)id);
    if (!node_fault(w, OXL_FAULT_RESTART, id, w->now, NULL)) return OXL_OK;
    if (w->nodes[id].up) node_crash(w, id, w->next_seq);
    w->nodes[id].incarnation++;
    node_boot(w, id, OXL_EV_RESTART, w->next_seq);
    return OXL_OK;
}

/* who: the caller to name when the fault cannot happen when it is due (a
 * string the World owns), or NULL. */
static int schedule_node_fault(oxl_world *w, const char *call, sim_event_type type, oxl_node_id id, oxl_dur_ns d,
                               const char *who) {
    if (!sim_valid_node(w, id)) return sim_misuse(w, call, "unknown node %d", (int)id);
    if (d < 0) return sim_misuse(w, call, "negative duration %" PRId64 "ns", d);
    sim_event ev = {.type = (uint8_t)type, .node = id, .from = OXL_NO_NODE};
    ev.u.call.arg = (void *)who;
    sim_schedule(w, w->now + d, &ev);
    return OXL_OK;
}

int oxl_world_crash_for(oxl_world *w, oxl_node_id id, oxl_dur_ns d) {
    if (!sim_valid_node(w, id)) return sim_misuse(w, "oxl_world_crash_for", "unknown node %d", (int)id);
    if (d < 0) return sim_misuse(w, "oxl_world_crash_for", "negative duration %" PRId64 "ns", d);
    if (!w->nodes[id].up)
        return sim_misuse(w, "oxl_world_crash_for", "node '%s' is already down", w->nodes[id].name);
    if (!node_fault(w, OXL_FAULT_CRASH, id, w->now, &d)) return OXL_OK;
    node_crash(w, id, w->next_seq);
    return schedule_node_fault(w, "oxl_world_crash_for", SIM_RESTART, id, d, NULL);
}

int oxl_world_kill_after(oxl_world *w, oxl_node_id id, oxl_dur_ns d) {
    if (sim_valid_node(w, id) && d >= 0 && !node_fault(w, OXL_FAULT_KILL, id, w->now + d, NULL)) return OXL_OK;
    return schedule_node_fault(w, "oxl_world_kill_after", SIM_KILL, id, d, NULL);
}

int oxl_world_kill_after_by(oxl_world *w, oxl_node_id id, oxl_dur_ns d, const char *who) {
    if (sim_valid_node(w, id) && d >= 0 && !node_fault(w, OXL_FAULT_KILL, id, w->now + d, NULL)) return OXL_OK;
    return schedule_node_fault(w, "oxl_world_kill_after", SIM_KILL, id, d,
                               who ? oxl_world_strf(w, "%s", who) : NULL);
}

int oxl_world_restart_after(oxl_world *w, oxl_node_id id, oxl_dur_ns d) {
    if (sim_valid_node(w, id) && d >= 0 && !node_fault(w, OXL_FAULT_RESTART, id, w->now + d, NULL)) return OXL_OK;
    return schedule_node_fault(w, "oxl_world_restart_after", SIM_RESTART, id, d, NULL);
}

int oxl_world_set_clock_skew(oxl_world *w, oxl_node_id id, oxl_dur_ns skew) {
    if (!sim_valid_node(w, id)) return sim_misuse(w, "oxl_world_set_clock_skew", "unknown node %d", (int)id);
    w->nodes[id].skew = skew;
    sim_trace_record(w, OXL_EV_SKEW, id, OXL_NO_NODE, w->next_seq, (uint64_t)skew, 0);
    return OXL_OK;
}

static bool probability_ok(double p) { return p >= 0.0 && p <= 1.0; } /* false for NaN too */

int oxl_world_set_disk_fail_rate(oxl_world *w, oxl_node_id id, double write_p, double sync_p) {
    static const char call[] = "oxl_world_set_disk_fail_rate";
    if (!sim_valid_node(w, id)) return sim_misuse(w, call, "unknown node %d", (int)id);
    if (!probability_ok(write_p)) return sim_misuse(w, call, "write probability %g is outside [0, 1]", write_p);
    if (!probability_ok(sync_p)) return sim_misuse(w, call, "sync probability %g is outside [0, 1]", sync_p);
    w->nodes[id].disk->write_fail_p = write_p;
    w->nodes[id].disk->sync_fail_p = sync_p;
    sim_trace_record(w, OXL_EV_DISK, id, OXL_NO_NODE, w->next_seq,
                     (uint64_t)(write_p * 1e6) << 32 | (uint64_t)(sync_p * 1e6),
                     sim_label_intern(&w->labels, "fail-rate"));
    return OXL_OK;
}

/* ---- test-level callbacks ---- */

int oxl_world_at(oxl_world *w, oxl_time_ns t, const char *label, oxl_world_fn fn, void *arg) {
    if (!fn) return sim_misuse(w, "oxl_world_at", "no callback");
    if (t < w->now)
        return sim_misuse(w, "oxl_world_at", "time %" PRId64 "ns is in the past (now %" PRId64 "ns)", t, w->now);
    sim_event ev = {.type = SIM_CALL, .node = OXL_NO_NODE, .from = OXL_NO_NODE,
                    .label = sim_label_intern(&w->labels, label)};
    ev.u.call.fn = fn;
    ev.u.call.arg = arg;
    sim_schedule(w, t, &ev);
    return OXL_OK;
}

int oxl_world_after(oxl_world *w, oxl_dur_ns d, const char *label, oxl_world_fn fn, void *arg) {
    if (d < 0) return sim_misuse(w, "oxl_world_after", "negative duration %" PRId64 "ns", d);
    return oxl_world_at(w, w->now + d, label, fn, arg);
}


/* The event a handle names, if it is still queued. */
SIM_HOT static sim_event *event_by_handle(oxl_world *w, uint64_t handle) {
    uint64_t slot = (handle & 0xffffffffu) - 1;
    if (handle == 0 || slot >= w->pool_len || w->pool[slot].gen != (uint32_t)(handle >> 32)) return NULL;
    return &w->pool[slot];
}


/* A queued event that will not run leaves the queue and frees its slot now
 * (its handle goes stale with the slot's generation). It was never run nor
 * traced, so the trace does not change. */
SIM_HOT static void cancel_queued(oxl_world *w, sim_event *ev) {
    uint32_t slot = (uint32_t)(ev - w->pool);
    queue_settle(w);
    event_release_payload(ev);
    queue_remove(w, slot);
    sim_pool_release(w, slot);
}

SIM_HOT void sim_cancel_event(oxl_world *w, uint64_t handle) {
    if (handle & SIM_DEADLINE_HANDLE_BIT) return sim_deadline_cancel(w, handle);
    sim_event *ev = event_by_handle(w, handle);
    if (ev) cancel_queued(w, ev);
}



bool sim_next_event_time(oxl_world *w, oxl_time_ns *t) {
    /* Dead events at the top go now, as world_step would drop them (no
     * trace record, next_seq untouched): the answer is the time of the
     * next event that runs, and a queue of dead events is an empty one. */
    queue_settle(w);
    while (w->queued && sim_event_dead(w, &w->pool[queue_top(w)])) sim_pool_release(w, sim_queue_pop(w));
    if (sim_deadline_first(w, t)) return true;
    if (w->queued == 0) return false;
    *t = queue_top_time(w);
    return true;
}

uint32_t sim_intern(oxl_world *w, const char *label) { return sim_label_intern(&w->labels, label); }

/* ---- node context ---- */

bool oxl_ctx_alive(oxl_ctx c) { return sim_live_node(c) != NULL; }

oxl_time_ns oxl_ctx_now(oxl_ctx c) {
    if (!c.world) return 0;
    oxl_time_ns skew = sim_valid_node(c.world, c.node) ? c.world->nodes[c.node].skew : 0;
    return c.world->now + skew;
}

oxl_rng *oxl_ctx_rng(oxl_ctx c) {
    sim_node *n = sim_live_node(c);
    if (n) return &n->rng;
    return c.world ? &c.world->dead_rng : NULL;
}

oxl_disk *oxl_ctx_disk(oxl_ctx c) {
    sim_node *n = sim_live_node(c);
    return n ? n->disk : NULL;
}

SIM_HOT bool oxl_ctx_send(oxl_ctx c, oxl_node_id to, const void *data, size_t len) {
    if (SIM_UNLIKELY(!sim_live_node(c))) return false;
    return sim_net_send(c.world, c.node, to, data, len);
}

void oxl_ctx_broadcast(oxl_ctx c, const void *data, size_t len) {
    if (!sim_live_node(c)) return;
    for (oxl_node_id to = 0; to < c.world->nnodes; to++)
        if (to != c.node) sim_net_send(c.world, c.node, to, data, len);
}

oxl_timer_id oxl_ctx_set_timer(oxl_ctx c, oxl_dur_ns delay, oxl_timer_fn fn, void *arg) {
    if (!sim_live_node(c)) return 0;
    oxl_world *w = c.world;
    if (delay < 0) {
        sim_misuse(w, "oxl_ctx_set_timer", "negative delay %" PRId64 "ns", delay);
        return 0;
    }
    if (!fn) {
        sim_misuse(w, "oxl_ctx_set_timer", "no callback");
        return 0;
    }
    uint32_t slot;
    sim_event *ev = event_queue(w, w->now + delay, &slot);
    ev->type = SIM_TIMER;
    ev->node = c.node;
    ev->from = OXL_NO_NODE;
    ev->incarnation = c.incarnation;
    ev->label = 0;
    ev->len = 0;
    ev->u.timer.fn = fn;
    ev->u.timer.arg = arg;
    return sim_event_handle(w, slot);
}

void oxl_ctx_cancel_timer(oxl_ctx c, oxl_timer_id id) {
    if (!sim_live_node(c)) return;
    sim_event *ev = event_by_handle(c.world, id);
    /* A stale id (fired, cancelled, or another node's) matches no live slot. */
    if (ev && ev->type == SIM_TIMER && ev->node == c.node && ev->incarnation == c.incarnation) cancel_queued(c.world, ev);
}

/* A note's label: a bare "%s" (how std.test's sim.note passes its text)
 * interned as it is, anything else formatted first. */
static uint32_t note_label(oxl_world *w, const char *fmt, va_list ap) {
    if (strcmp(fmt, "%s") == 0) {
        const char *text = va_arg(ap, const char *);
        return sim_label_intern(&w->labels, text ? text : "(null)");
    }
    char *text = world_vformat(fmt, ap);
    uint32_t label = sim_label_intern(&w->labels, text);
    free(text);
    return label;
}

void oxl_ctx_trace(oxl_ctx c, const char *fmt, ...) {
    if (!sim_live_node(c)) return;
    va_list ap;
    va_start(ap, fmt);
    uint32_t label = note_label(c.world, fmt, ap);
    va_end(ap);
    sim_trace_record(c.world, OXL_EV_NOTE, c.node, OXL_NO_NODE, c.world->next_seq, 0, label);
}

void oxl_world_note(oxl_world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    uint32_t label = note_label(w, fmt, ap);
    va_end(ap);
    sim_trace_record(w, OXL_EV_NOTE, OXL_NO_NODE, OXL_NO_NODE, w->next_seq, 0, label);
}

void oxl_ctx_fail(oxl_ctx c, const char *fmt, ...) {
    if (!sim_live_node(c)) return;
    va_list ap;
    va_start(ap, fmt);
    char *what = world_vformat(fmt, ap);
    va_end(ap);
    size_t n = strlen(what) + OXL_SIM_NAME_MAX + 16;
    char *msg = sim_xmalloc(n);
    snprintf(msg, n, "node %s: %s", c.world->nodes[c.node].name, what);
    free(what);
    sim_fail_text(c.world, msg);
}

/* ---- oracles ---- */

int oxl_world_add_invariant(oxl_world *w, const char *name, oxl_invariant_fn fn, void *arg) {
    if (!fn || !name || !*name) return sim_misuse(w, "oxl_world_add_invariant", "an invariant needs a name and a function");
    if (w->ninvariants == OXL_SIM_MAX_INVARIANTS)
        return sim_misuse(w, "oxl_world_add_invariant", "more than %d invariants", OXL_SIM_MAX_INVARIANTS);
    w->invariants[w->ninvariants++] = (sim_invariant){sim_label_intern(&w->labels, name), fn, arg};
    return OXL_OK;
}

void sim_world_check_invariants(oxl_world *w) {
    for (int i = 0; i < w->ninvariants && !w->failure; i++) {
        const char *why = w->invariants[i].fn(w, w->invariants[i].arg);
        if (why) oxl_world_fail(w, "invariant '%s' violated: %s", w->labels.items[w->invariants[i].label].text, why);
    }
}

/* ---- running ---- */


/* Fires the earliest deadline (sim_deadline_first said it is next): a task
 * wakeup as sim_run_wake runs one, with the sequence number it takes now. */
static bool fire_deadline(oxl_world *w) {
    if (SIM_UNLIKELY(++w->events_run > w->opt.max_events)) {
        oxl_world_fail(w, "event limit: more than %" PRIu64 " events (max_events)", w->opt.max_events);
        return false;
    }
    uint64_t seq = w->next_seq++;
    if (SIM_UNLIKELY(seq > SIM_SEQ_MASK)) {
        oxl_world_fail(w, "event limit: more than 2^40 events scheduled");
        return false;
    }
    sim_deadline d = sim_deadline_take(w);
    sim_wake_task(w, d.time, d.node, seq, d.tag, d.fn, d.arg);
    return true;
}

/* Runs the next event (or deadline) if its time is <= limit. */
SIM_HOT bool sim_world_step(oxl_world *w, oxl_time_ns limit) {
    for (;;) {
        queue_settle(w);
        if (w->failure) return false;
        oxl_time_ns d;
        if (SIM_UNLIKELY(sim_deadline_first(w, &d))) return d <= limit && fire_deadline(w);
        if (w->queued == 0) return false;
        oxl_time_ns t = queue_top_time(w);
        if (t > limit) return false;
        uint32_t slot = sim_queue_pop(w);
        const sim_event *queued = &w->pool[slot];
        if (queued->type == SIM_WAKE && SIM_LIKELY(w->events_run < w->opt.max_events)) {
            sim_run_wake(w, slot, t, queued);
            return true;
        }
        sim_event ev = *queued; /* copy: handlers may grow the pool */
        sim_pool_release(w, slot);
        if (sim_event_dead(w, &ev)) continue;
        w->now = t;
        if (SIM_UNLIKELY(++w->events_run > w->opt.max_events)) {
            event_release_payload(&ev);
            oxl_world_fail(w, "event limit: more than %" PRIu64 " events (max_events)", w->opt.max_events);
            return false;
        }
        switch ((sim_event_type)ev.type) {
        case SIM_DELIVER: {
            const void *data = ev.u.msg.heap_data ? ev.u.msg.heap_data : ev.u.msg.inline_data;
            sim_net_deliver(w, &ev, data);
            event_release_payload(&ev);
            break;
        }
        case SIM_TIMER: {
            sim_node *n = &w->nodes[ev.node];
            sim_trace_record(w, OXL_EV_TIMER, ev.node, OXL_NO_NODE, ev.seq, 0, 0);
            oxl_ctx c = {w, ev.node, ev.incarnation};
            oxl_process *p = n->proc;
            WITH_RUNNING_NODE(w, ev.node, ev.u.timer.fn(p, c, ev.u.timer.arg));
            break;
        }
        case SIM_BOOT: /* the first boot, unless sim_boot_now did it (a node killed since stays down) */
            if (!w->nodes[ev.node].booted) node_boot(w, ev.node, OXL_EV_START, ev.seq);
            break;
        case SIM_CALL:
            sim_trace_record(w, OXL_EV_CALL, OXL_NO_NODE, OXL_NO_NODE, ev.seq, 0, ev.label);
            ev.u.call.fn(w, ev.u.call.arg);
            break;
        case SIM_UNBLOCK:
            sim_net_unblock(w, ev.u.unblock.partition);
            break;
        case SIM_WAKE:
            sim_trace_record(w, OXL_EV_TASK, ev.node, OXL_NO_NODE, ev.seq, ev.u.wake.tag, w->label_wake);
            ev.u.wake.fn(w, ev.u.wake.arg, ev.u.wake.tag);
            break;
        case SIM_KILL:
            if (w->nodes[ev.node].up)
                node_crash(w, ev.node, ev.seq);
            else if (ev.u.call.arg) /* a caller that names itself: "kv.oxl:12: node.kill" */
                oxl_world_fail(w, "%s: node '%s' is already down when the kill is due",
                               (const char *)ev.u.call.arg, w->nodes[ev.node].name);
            else
                sim_misuse(w, "oxl_world_kill_after", "node '%s' is already down", w->nodes[ev.node].name);
            break;
        case SIM_RESTART:
            if (w->nodes[ev.node].up) node_crash(w, ev.node, ev.seq);
            w->nodes[ev.node].incarnation++;
            node_boot(w, ev.node, OXL_EV_RESTART, ev.seq);
            break;
        }
        if (w->ninvariants && !w->failure) sim_world_check_invariants(w);
        return true;
    }
}

/* A World run by the C API is a deterministic run: the fence is armed
 * while its events run (fence/fence.h). */
static void world_fence_arm(const oxl_world *w) {
    if (!w->sched_driven) fence_arm();
}
static void world_fence_disarm(const oxl_world *w) {
    if (!w->sched_driven) fence_disarm();
}


bool oxl_world_step(oxl_world *w) {
    world_fence_arm(w);
    bool stepped = sim_world_step(w, INT64_MAX);
    world_fence_disarm(w);
    return stepped;
}

oxl_run_status oxl_world_run(oxl_world *w) {
    world_fence_arm(w);
    while (sim_world_step(w, INT64_MAX)) {
    }
    world_fence_disarm(w);
    return w->failure ? OXL_RUN_FAILED : OXL_RUN_IDLE;
}

oxl_run_status oxl_world_run_until(oxl_world *w, oxl_time_ns t) {
    world_fence_arm(w);
    while (sim_world_step(w, t)) {
    }
    world_fence_disarm(w);
    if (w->failure) return OXL_RUN_FAILED;
    if (t > w->now) w->now = t; /* time passes even when nothing happens */
    return oxl_world_pending(w) ? OXL_RUN_DEADLINE : OXL_RUN_IDLE;
}

oxl_run_status oxl_world_run_for(oxl_world *w, oxl_dur_ns d) {
    if (d < 0) {
        sim_misuse(w, "oxl_world_run_for", "negative duration %" PRId64 "ns", d);
        return OXL_RUN_FAILED;
    }
    return oxl_world_run_until(w, w->now + d);
}
