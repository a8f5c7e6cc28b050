/* serve.c: the serving side: a node's services, their per-node state and
 * boot, the requests that reach it (duplicates answered once), the
 * handler tasks, and calls a node serves itself.
 *
 * A request runs its handler in a task of the serving node when the
 * frame arrives: a worker the node keeps parked since its last request,
 * or a new one; the answer goes back as another World message. A
 * duplicate of a request still running is dropped; one of a request
 * already answered gets the same answer again, so a handler runs once per
 * request and incarnation. */
#include "rpc/rpc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- services and their state ---- */

void oxl_rpc_serve(oxl_node *n, const oxl_service *s) {
    if (!n || !s) oxl_panic_at("(runtime)", 0, "oxl_rpc_serve needs a node and a service");
    rpc_node *rn = rpc_node_of(rpc_run_get(), n);
    if (rpc_serves(rn, s)) return;
    for (size_t i = 0; i < rn->nserves; i++)
        if (rn->serves[i]->id == s->id)
            oxl_panic_at("(runtime)", 0, "services %s and %s have the same id %lld", rn->serves[i]->name, s->name,
                         (long long)s->id);
    for (int64_t i = 0; i < s->nmethods; i++)
        if (s->methods[i].nparams < 0 || s->methods[i].nparams > RPC_MAX_PARAMS || !s->methods[i].entry)
            oxl_panic_at("(runtime)", 0, "service %s: method %s has %lld parameters or no entry", s->name,
                         s->methods[i].name, (long long)s->methods[i].nparams);
    if (rn->nserves == OXL_RPC_MAX_SERVICES)
        oxl_panic_at("(runtime)", 0, "node %s serves more than %d services", oxl_node_name(n), OXL_RPC_MAX_SERVICES);
    rn->serves[rn->nserves++] = s;
}

typedef struct state_box {
    oxl_word *words; /* scanned by the collector, freed with the registry */
    bool making;
} state_box;

static void state_fini(void *obj) { oxl_free_root(((state_box *)obj)->words); }

oxl_word *oxl_service_state(const oxl_service *s, const char *file, int line) {
    state_box *box = oxl_node_local_fini(s, sizeof *box, NULL, state_fini);
    if (box->words) return box->words;
    if (box->making)
        oxl_panic_at(file, line, "the state of service %s is used while its initial values are computed", s->name);
    box->making = true;
    oxl_word *words = oxl_alloc_root((size_t)(s->nstate ? s->nstate : 1) * sizeof *words);
    if (s->init) s->init(words); /* may switch tasks: the box is this node's for good */
    box->words = words;
    box->making = false;
    return words;
}

static void *start_task(void *arg) {
    ((const oxl_service *)arg)->start();
    return NULL;
}

void oxl_service_boot(const oxl_service *s) {
    oxl_service_state(s, "(boot)", 0);
    if (!s->start) return;
    oxl_task *t = oxl_spawn_on_node_at(oxl_node_current(), start_task, (void *)s, s->name, 0);
    if (t) oxl_task_detach(t);
}

/* ---- requests ---- */

static void answer_again(rpc_node *rn, const rpc_answered *a, const oxl_service *s, int64_t method) {
    rpc_trace(rn, a->from, a->id, "duplicate request answered again", s, method);
    oxl_ctx_send(rpc_ctx(rn), a->from, a->frame, a->len);
}

/* ---- the answered requests: a ring with a hash index on (from, id) ---- */

#define IX_SLOT(e) ((e) & 0xffffu)      /* the slot + 1 */
#define IX_HOME(e) ((e) >> 16 & 0x7ffu) /* where its probe starts */
#define IX_TAG(e) ((e) >> 27)           /* 5 more bits of its hash */

static size_t index_cap(const rpc_node *rn) { return 2 * rn->answered_cap; }

/* The entry (from, id) would have, but for its slot. */
static uint32_t index_key(const rpc_node *rn, oxl_node_id from, uint64_t id) {
    uint64_t h = (id ^ (uint64_t)(uint32_t)from << 48) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)((h >> 40) & (index_cap(rn) - 1)) << 16 | (uint32_t)(h >> 59) << 27;
}

/* The index position holding (from, id), or of the empty place where it
 * would go. */
static size_t index_find(const rpc_node *rn, oxl_node_id from, uint64_t id, uint32_t key) {
    size_t mask = index_cap(rn) - 1;
    for (size_t i = IX_HOME(key);; i = (i + 1) & mask) {
        uint32_t e = rn->answered_index[i];
        if (e == 0) return i;
        if ((e & 0xffff0000u) != key) continue;
        const rpc_answered *a = &rn->answered[IX_SLOT(e) - 1];
        if (a->from == from && a->id == id) return i;
    }
}

/* Empties index position i: each entry after it in its run moves back
 * into the hole unless its own start lies (cyclically) after the hole,
 * so every entry stays reachable from its start. */
static void index_remove(rpc_node *rn, size_t i) {
    size_t mask = index_cap(rn) - 1;
    for (size_t j = i;;) {
        j = (j + 1) & mask;
        uint32_t e = rn->answered_index[j];
        if (e == 0) break;
        size_t k = IX_HOME(e);
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            rn->answered_index[i] = e;
            i = j;
        }
    }
    rn->answered_index[i] = 0;
}

static void index_put(rpc_node *rn, size_t slot) {
    const rpc_answered *a = &rn->answered[slot];
    uint32_t key = index_key(rn, a->from, a->id);
    rn->answered_index[index_find(rn, a->from, a->id, key)] = key | (uint32_t)(slot + 1);
}

static rpc_answered *answered_find(rpc_node *rn, oxl_node_id from, uint64_t id) {
    if (!rn->nanswered) return NULL;
    uint32_t e = rn->answered_index[index_find(rn, from, id, index_key(rn, from, id))];
    return e ? &rn->answered[IX_SLOT(e) - 1] : NULL;
}

/* A full ring below the limit doubles: its slots are in the order they
 * were taken (it never wrapped), so the next one is the first new slot. */
static void answered_grow(rpc_node *rn) {
    size_t old = rn->answered_cap, cap = old ? 2 * old : RPC_ANSWERED_FIRST;
    if (cap > OXL_RPC_DEDUP) cap = OXL_RPC_DEDUP;
    rn->answered = rpc_xrealloc(rn->answered, cap * sizeof *rn->answered);
    memset(rn->answered + old, 0, (cap - old) * sizeof *rn->answered);
    rn->answered_cap = cap;
    free(rn->answered_index);
    rn->answered_index = rpc_xrealloc(NULL, index_cap(rn) * sizeof *rn->answered_index);
    memset(rn->answered_index, 0, index_cap(rn) * sizeof *rn->answered_index);
    for (size_t i = 0; i < rn->nanswered; i++) index_put(rn, i);
    rn->answered_next = rn->nanswered;
}

RPC_HOT static void remember(rpc_node *rn, oxl_node_id from, uint64_t id, const oxl_wire_buf *frame) {
    if (rn->nanswered == rn->answered_cap && rn->answered_cap < OXL_RPC_DEDUP) answered_grow(rn);
    size_t slot = rn->answered_next;
    rpc_answered *a = &rn->answered[slot];
    if (rn->nanswered == rn->answered_cap) /* the oldest goes */
        index_remove(rn, index_find(rn, a->from, a->id, index_key(rn, a->from, a->id)));
    else
        rn->nanswered++;
    if (a->cap < frame->len) { /* the slot's buffer is reused when it has room */
        a->cap = frame->len < 64 ? 64 : frame->len;
        free(a->frame);
        a->frame = rpc_xrealloc(NULL, a->cap);
    }
    a->from = from;
    a->id = id;
    a->len = frame->len;
    memcpy(a->frame, frame->data, frame->len);
    index_put(rn, slot);
    rn->answered_next = (rn->answered_next + 1) % rn->answered_cap;
}

/* One request on a handler task: decode, run, answer; its record given
 * back. A crash of the node ends the task at a wait, and on_crash frees
 * the record. */
RPC_HOT static void serve_one(rpc_running *ru) {
    rpc_run *r = ru->run;
    rpc_node *rn = &r->nodes[ru->node]; /* not kept across the entry: the table may grow */
    const oxl_service *s = ru->svc;
    const oxl_rpc_method *m = &s->methods[ru->method];
    oxl_word args[RPC_MAX_PARAMS]; /* on the task's stack, which the collector scans */
    const unsigned char *p = ru->req + RPC_HEADER_LEN, *end = ru->req + ru->len;
    uint64_t skip;
    rpc_get_uvarint(&p, end, &skip); /* service and method: checked on arrival */
    rpc_get_uvarint(&p, end, &skip);
    char err[256];
    for (int64_t i = 0; i < m->nparams; i++) {
        if (!rpc_decode(&p, end, m->params[i], &args[i], err, sizeof err)) {
            rpc_trace(rn, ru->from, ru->id, "malformed request dropped", s, ru->method);
            rpc_running_remove(r, rn, ru);
            return;
        }
    }
    if (p != end) {
        rpc_trace(rn, ru->from, ru->id, "malformed request dropped", s, ru->method);
        rpc_running_remove(r, rn, ru);
        return;
    }
    oxl_word result = m->entry(args);
    rn = &r->nodes[ru->node];
    oxl_wire_buf *frame = &r->scratch; /* the handler may have switched tasks: written now, sent now */
    frame->len = 0;
    rpc_put_header(frame, RPC_REP, ru->id);
    rpc_put_u8(frame, 0);
    rpc_put_uvarint(frame, (uint64_t)s->id);
    rpc_put_uvarint(frame, (uint64_t)ru->method);
    if (!rpc_encode(frame, m->result, result, err, sizeof err))
        oxl_panic_at(m->file, (int)m->line, "%s.%s: its result cannot be sent: %s", s->name, m->name, err);
    rpc_trace_hot(rn, ru->from, ru->id, RPC_HOT_REPLY, s, ru->method);
    oxl_ctx_send(rpc_ctx(rn), ru->from, frame->data, frame->len);
    remember(rn, ru->from, ru->id, frame);
    rpc_running_remove(r, rn, ru);
}

/* A handler task: a request, then, parked, each next request the node
 * hands it, so that a node answering one call after another spawns no
 * task per request. A worker beyond the node's idle room ends. */
RPC_HOT static void *worker_task(void *arg) {
    rpc_running *ru = arg;
    oxl_task *self = oxl_task_self();
    oxl_task_detach(self);
    rpc_run *r = ru->run;
    oxl_node_id node = ru->node;
    for (;;) {
        serve_one(ru);
        rpc_node *rn = &r->nodes[node]; /* the table may have grown meanwhile */
        if (rn->nidle == RPC_IDLE_WORKERS) return NULL;
        rn->idle[rn->nidle++] = self;
        ru = oxl_task_park_at(__FILE__, __LINE__);
        if (!ru) return NULL;
    }
}

RPC_HOT void rpc_take_request(rpc_run *r, rpc_node *rn, oxl_node_id from, uint64_t id, const unsigned char *frame,
                      size_t len, const unsigned char *p, const unsigned char *end) {
    uint64_t svc_id, method;
    const oxl_service *s;
    if (!rpc_get_uvarint(&p, end, &svc_id) || !rpc_get_uvarint(&p, end, &method) ||
        !(s = rpc_served_by_id(rn, svc_id)) || method >= (uint64_t)s->nmethods) {
        rpc_trace(rn, from, id, "malformed frame dropped: a request for an rpc this node does not serve", NULL, -1);
        return;
    }
    for (size_t i = 0; i < rn->nrunning; i++)
        if (rn->running[i]->from == from && rn->running[i]->id == id) {
            rpc_trace(rn, from, id, "duplicate request dropped (its handler runs)", s, (int64_t)method);
            return;
        }
    rpc_answered *again = answered_find(rn, from, id);
    if (again) return answer_again(rn, again, s, (int64_t)method);
    if (rn->nrunning >= OXL_RPC_MAX_RUNNING) {
        rpc_trace(rn, from, id, "request dropped: too many handlers running", s, (int64_t)method);
        return;
    }
    rpc_running *ru = rpc_running_take(r, len);
    ru->run = r;
    ru->node = rn->id;
    ru->from = from;
    ru->id = id;
    ru->svc = s;
    ru->method = (int64_t)method;
    ru->len = len;
    memcpy(ru->req, frame, len);
    const oxl_rpc_method *m = &s->methods[method];
    oxl_task *t = NULL;
    while (!t && rn->nidle) { /* a parked worker takes it, as a new task would */
        oxl_task *w = rn->idle[--rn->nidle];
        if (oxl_task_unpark(w, ru, m->file, (int)m->line)) t = w;
    }
    if (!t) t = oxl_spawn_on_node_at(rn->node, worker_task, ru, m->file, (int)m->line);
    if (!t) { /* the run is stopping */
        free(ru);
        return;
    }
    ru->task = oxl_task_id(t);
    rpc_running_add(rn, ru);
    rpc_trace_hot(rn, from, id, RPC_HOT_SERVE, s, (int64_t)method);
}

/* ---- calls the node serves itself ---- */

/* A value through the wire and back: a local call shares nothing with its
 * caller, as a remote one would not. */
static oxl_word copy_value(const oxl_type_desc *t, oxl_word v, const char *what, const oxl_service *s,
                           const oxl_rpc_method *m, const char *file, int line) {
    char err[256];
    oxl_wire_buf b = {0};
    if (!oxl_wire_encode(&b, t, v, err, sizeof err)) {
        oxl_wire_buf_free(&b);
        oxl_panic_at(file, line, "%s.%s: %s cannot be sent: %s", s->name, m->name, what, err);
    }
    const unsigned char *p = b.data;
    oxl_word out = 0;
    bool ok = oxl_wire_decode(&p, b.data + b.len, t, &out, err, sizeof err);
    oxl_wire_buf_free(&b);
    if (!ok) oxl_panic_at(file, line, "%s.%s: internal error: %s does not read back: %s", s->name, m->name, what, err);
    return out;
}

void rpc_call_local(rpc_node *rn, const oxl_service *s, int64_t method, const oxl_word *args, oxl_word *out,
                    const char *file, int line) {
    const oxl_rpc_method *m = &s->methods[method];
    oxl_word *copy = oxl_alloc((size_t)(m->nparams ? m->nparams : 1) * sizeof *copy);
    for (int64_t i = 0; i < m->nparams; i++) copy[i] = copy_value(m->params[i], args[i], "an argument", s, m, file, line);
    rpc_run *r = rpc_run_get();
    rpc_running *ru = rpc_running_take(r, 0);
    oxl_node_id self = rn->node ? oxl_node_world_id(rn->node) : OXL_NO_NODE;
    ru->from = self;
    ru->task = oxl_task_id(oxl_task_self());
    ru->svc = s;
    ru->method = method;
    rpc_running_add(rn, ru);
    rpc_trace(rn, self, 0, "local call", s, method);
    oxl_word result = m->entry(copy);
    rpc_running_remove(r, rn, ru);
    *out = copy_value(m->result, result, "its result", s, m, file, line);
}

/* ---- who is calling ---- */

oxl_string oxl_rpc_self(void) { return oxl_str_from_cstr(oxl_node_name(oxl_node_current())); }

bool oxl_rpc_caller(oxl_string *out) {
    rpc_node *rn = rpc_node_of(rpc_run_get(), oxl_node_current());
    uint64_t task = oxl_task_id(oxl_task_self());
    for (size_t i = rn->nrunning; i-- > 0;) {
        const rpc_running *ru = rn->running[i];
        if (ru->task != task) continue;
        *out = oxl_str_from_cstr(ru->from == OXL_NO_NODE ? "process"
                                                           : oxl_world_node_name(oxl_sched_world(), ru->from));
        return true;
    }
    return false;
}
