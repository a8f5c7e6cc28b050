/* mailbox.c: the rpc state of a run and of each node, the hooks through
 * which frames reach a node, and what a crash does to its calls.
 *
 * Everything is a table of the run (oxl_run_local), indexed by World node
 * id: never ordered by an address. A node's tables belong to its current
 * incarnation and are emptied by its crash, as a registry would be. */
#include "rpc/rpc_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *rpc_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

char *rpc_strf(const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = rpc_xrealloc(NULL, n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    return s;
}

RPC_HOT rpc_reply *rpc_reply_take(rpc_run *r, size_t len) {
    rpc_reply *rep = r->nfree_replies ? r->free_replies[--r->nfree_replies] : NULL;
    if (!rep || rep->cap < len) {
        size_t cap = len < 64 ? 64 : len;
        rep = rpc_xrealloc(rep, sizeof *rep + cap);
        rep->cap = cap;
    }
    rep->status = OXL_RPC_OK;
    rep->message = NULL;
    rep->len = len;
    return rep;
}

RPC_HOT void rpc_reply_give(rpc_run *r, rpc_reply *rep) {
    if (!rep) return;
    free(rep->message);
    rep->message = NULL;
    if (r->nfree_replies < RPC_FREE_RECORDS && rep->cap <= RPC_KEEP_BYTES)
        r->free_replies[r->nfree_replies++] = rep;
    else
        free(rep);
}

RPC_HOT rpc_running *rpc_running_take(rpc_run *r, size_t len) {
    rpc_running *ru = r->nfree_running ? r->free_running[--r->nfree_running] : NULL;
    size_t cap = ru ? ru->cap : 0;
    if (!ru || cap < len) {
        cap = len < 64 ? 64 : len;
        ru = rpc_xrealloc(ru, sizeof *ru + cap);
    }
    *ru = (rpc_running){.cap = cap};
    return ru;
}

RPC_HOT static void running_give(rpc_run *r, rpc_running *ru) {
    if (r->nfree_running < RPC_FREE_RECORDS && ru->cap <= RPC_KEEP_BYTES)
        r->free_running[r->nfree_running++] = ru;
    else
        free(ru);
}

/* ---- the run ---- */

static void drop_tables(rpc_run *r, rpc_node *rn);

static void run_init(void *obj) {
    rpc_run *r = obj;
    r->world = oxl_sched_world();
    oxl_rng_seed(&r->rng, oxl_world_seed(r->world), "rpc");
}

static void run_fini(void *obj) {
    rpc_run *r = obj;
    for (size_t i = 0; i <= r->nnodes; i++) {
        rpc_node *rn = i < r->nnodes ? &r->nodes[i] : &r->process;
        drop_tables(r, rn);
        free(rn->pending);
        free(rn->running);
        free(rn->answered);
        free(rn->answered_index);
    }
    free(r->nodes);
    free(r->labels);
    for (size_t i = 0; i < r->nfree_replies; i++) free(r->free_replies[i]);
    for (size_t i = 0; i < r->nfree_running; i++) free(r->free_running[i]);
    oxl_wire_buf_free(&r->scratch);
}

static const char run_key = 0;

/* The run's state, looked up once per run: every call step needs it. */
RPC_HOT rpc_run *rpc_run_get(void) {
    static _Thread_local uint64_t cached_run;
    static _Thread_local rpc_run *cached;
    uint64_t run = oxl_sched_run_id();
    if (run && run == cached_run) return cached;
    cached = oxl_run_local(&run_key, sizeof(rpc_run), run_init, run_fini);
    cached_run = run;
    return cached;
}

static void on_message(oxl_node *n, oxl_node_id from, const void *data, size_t len, void *arg);
static void on_crash(oxl_node *n, void *arg);

RPC_HOT rpc_node *rpc_node_of(rpc_run *r, oxl_node *n) {
    if (!n) return &r->process;
    oxl_node_id id = oxl_node_world_id(n);
    if ((size_t)id >= r->nnodes) {
        size_t cap = (size_t)id + 1;
        r->nodes = rpc_xrealloc(r->nodes, cap * sizeof *r->nodes);
        memset(r->nodes + r->nnodes, 0, (cap - r->nnodes) * sizeof *r->nodes);
        r->nnodes = cap;
    }
    rpc_node *rn = &r->nodes[id];
    if (!rn->hooked) {
        rn->node = n;
        rn->run = r;
        rn->world = r->world;
        rn->id = id;
        rn->hooked = true;
        oxl_node_hooks h = {on_message, on_crash, r}; /* the run: no lookup per frame */
        oxl_node_set_hooks(n, &h);
    }
    return rn;
}

rpc_node *rpc_node_by_id(rpc_run *r, oxl_node_id id) {
    if (id < 0 || (size_t)id >= r->nnodes || !r->nodes[id].hooked) return NULL;
    return &r->nodes[id];
}

const char *rpc_node_name(const rpc_node *rn) { return oxl_node_name(rn->node); }

RPC_HOT bool rpc_serves(const rpc_node *rn, const oxl_service *s) {
    for (size_t i = 0; i < rn->nserves; i++)
        if (rn->serves[i] == s) return true;
    return false;
}

RPC_HOT const oxl_service *rpc_served_by_id(const rpc_node *rn, uint64_t id) {
    for (size_t i = 0; i < rn->nserves; i++)
        if ((uint64_t)rn->serves[i]->id == id) return rn->serves[i];
    return NULL;
}

RPC_HOT oxl_ctx rpc_ctx(const rpc_node *rn) { return oxl_world_ctx(rn->world, rn->id); }

const char *rpc_label(char *buf, size_t cap, const char *what, const oxl_service *s, int64_t method) {
    if (s && method >= 0 && method < s->nmethods)
        snprintf(buf, cap, "%s %s.%s", what, s->name, s->methods[method].name);
    else
        snprintf(buf, cap, "%s", what);
    return buf;
}

static size_t label_slot(const rpc_label_entry *t, size_t cap, const char *what, const oxl_service *s, int64_t method) {
    uint64_t h = (uint64_t)(uintptr_t)what * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(uintptr_t)s ^ (uint64_t)method;
    h ^= h >> 29;
    size_t i = (size_t)(h * UINT64_C(0xBF58476D1CE4E5B9) >> 32) & (cap - 1);
    while (t[i].what && !(t[i].what == what && t[i].svc == s && t[i].method == method)) i = (i + 1) & (cap - 1);
    return i;
}

static uint32_t label_of(rpc_run *r, const char *what, const oxl_service *s, int64_t method) {
    if (r->cap_labels) {
        const rpc_label_entry *e = &r->labels[label_slot(r->labels, r->cap_labels, what, s, method)];
        if (e->what) return e->label;
    }
    if ((r->nlabels + 1) * 2 > r->cap_labels) {
        size_t cap = r->cap_labels ? r->cap_labels * 2 : 64;
        rpc_label_entry *t = rpc_xrealloc(NULL, cap * sizeof *t);
        memset(t, 0, cap * sizeof *t);
        for (size_t i = 0; i < r->cap_labels; i++)
            if (r->labels[i].what)
                t[label_slot(t, cap, r->labels[i].what, r->labels[i].svc, r->labels[i].method)] = r->labels[i];
        free(r->labels);
        r->labels = t;
        r->cap_labels = cap;
    }
    char text[256];
    uint32_t label = oxl_world_label(r->world, rpc_label(text, sizeof text, what, s, method));
    r->labels[label_slot(r->labels, r->cap_labels, what, s, method)] = (rpc_label_entry){what, s, method, label};
    r->nlabels++;
    return label;
}

void rpc_trace(const rpc_node *rn, oxl_node_id peer, uint64_t id, const char *what, const oxl_service *s,
               int64_t method) {
    if (!rn->node) return; /* the process node is not in the World */
    uint32_t label;
    if (s) {
        label = label_of(rn->run, what, s, method);
    } else {
        char text[256];
        label = oxl_world_label(rn->world, rpc_label(text, sizeof text, what, s, method));
    }
    oxl_world_trace_rpc(rn->world, rn->id, peer, id, label);
}

uint32_t rpc_hot_label_slow(rpc_run *r, rpc_hot_labels *e, int hot, const oxl_service *s, int64_t method) {
    static const char *const text[RPC_HOT_N] = {"call", "serve", "reply", "answer"};
    if (e->svc != s || e->method != method) {
        e->svc = s;
        e->method = method;
        for (int i = 0; i < RPC_HOT_N; i++) e->label[i] = RPC_NO_LABEL;
    }
    if (e->label[hot] == RPC_NO_LABEL) e->label[hot] = label_of(r, text[hot], s, method);
    return e->label[hot];
}


RPC_HOT void rpc_running_add(rpc_node *rn, rpc_running *ru) {
    if (rn->nrunning == rn->cap_running) {
        rn->cap_running = rn->cap_running ? rn->cap_running * 2 : 8;
        rn->running = rpc_xrealloc(rn->running, rn->cap_running * sizeof *rn->running);
    }
    rn->running[rn->nrunning++] = ru;
}

RPC_HOT void rpc_running_remove(rpc_run *r, rpc_node *rn, const rpc_running *ru) {
    for (size_t i = rn->nrunning; i-- > 0;) {
        if (rn->running[i] != ru) continue;
        running_give(r, rn->running[i]);
        memmove(&rn->running[i], &rn->running[i + 1], (rn->nrunning - i - 1) * sizeof *rn->running);
        rn->nrunning--;
        return;
    }
}

/* ---- frames reaching a node (a World callback: no task runs) ---- */

static void malformed(rpc_node *rn, oxl_node_id from, uint64_t id, const char *why) {
    char label[160];
    snprintf(label, sizeof label, "malformed frame dropped: %s", why);
    rpc_trace(rn, from, id, label, NULL, -1);
}

RPC_HOT static void on_message(oxl_node *n, oxl_node_id from, const void *data, size_t len, void *arg) {
    rpc_run *r = arg;
    rpc_node *rn = rpc_node_of(r, n);
    const unsigned char *p = data, *end = p + len;
    if (len < RPC_HEADER_LEN || p[0] != 'O' || p[1] != 'X' || p[2] != 'R')
        return malformed(rn, from, 0, "not an rpc frame");
    uint8_t version = p[3], kind = p[4];
    uint64_t id = rpc_load_u64le(p + 5);
    p += RPC_HEADER_LEN;
    if (version != OXL_WIRE_VERSION) return malformed(rn, from, id, "another wire version");
    if (kind == RPC_REQ) return rpc_take_request(r, rn, from, id, data, len, p, end);
    if (kind != RPC_REP) return malformed(rn, from, id, "unknown frame kind");
    uint8_t status;
    uint64_t svc, method;
    if (!rpc_get_u8(&p, end, &status) || !rpc_get_uvarint(&p, end, &svc) || !rpc_get_uvarint(&p, end, &method))
        return malformed(rn, from, id, "truncated answer");
    if (status != 0) return malformed(rn, from, id, "unknown answer status");
    rpc_node *server = rpc_node_by_id(r, from);
    const oxl_service *s = server ? rpc_served_by_id(server, svc) : NULL;
    if (!s || method >= (uint64_t)s->nmethods) return malformed(rn, from, id, "answer for an unknown rpc");
    rpc_take_answer(r, rn, from, id, p, end, s, (int64_t)method);
}

/* ---- crashes ---- */

static void drop_tables(rpc_run *r, rpc_node *rn) {
    for (size_t i = 0; i < rn->nrunning; i++) running_give(r, rn->running[i]);
    rn->nrunning = 0;
    rn->nidle = 0; /* parked workers: cancelled with the node's other tasks */
    for (size_t i = 0; i < rn->npending; i++) rpc_reply_give(r, rn->pending[i].held);
    rn->npending = 0;
    for (size_t i = 0; i < rn->nanswered; i++) { /* the slots past nanswered hold no frame */
        free(rn->answered[i].frame);
        rn->answered[i] = (rpc_answered){0};
    }
    rn->nanswered = rn->answered_next = 0;
    if (rn->answered_index) memset(rn->answered_index, 0, 2 * rn->answered_cap * sizeof *rn->answered_index);
    rn->calls = 0;
}

/* A panic report on one line: "boom\n  at f.oxl:3 (...)" reads "boom at
 * f.oxl:3 (...)". */
static char *one_line(const char *report) {
    if (strncmp(report, "panic: ", 7) == 0) report += 7;
    char *s = rpc_strf("%s", report), *w = s;
    for (const char *r = s; *r; r++) {
        if (*r == '\n') {
            *w++ = ' ';
            while (r[1] == ' ') r++;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    return s;
}

/* The node dies: each handler it ran will never answer. Its callers learn
 * it at once (the simulation knows; a real client would wait out its
 * deadline): crashed, or panic for the handler whose panic killed it. */
static void on_crash(oxl_node *n, void *arg) {
    (void)arg;
    rpc_run *r = rpc_run_get();
    rpc_node *rn = rpc_node_of(r, n);
    uint64_t panic_task = 0;
    const char *report = NULL;
    bool panicked = oxl_node_panic_info(n, &panic_task, &report);
    for (size_t i = 0; i < rn->nrunning; i++) {
        const rpc_running *ru = rn->running[i];
        rpc_node *caller = ru->id ? rpc_node_by_id(r, ru->from) : NULL; /* a local caller dies too */
        if (!caller) continue;
        const oxl_rpc_method *m = &ru->svc->methods[ru->method];
        bool by_panic = panicked && ru->task == panic_task;
        char *msg;
        if (by_panic) {
            char *what = one_line(report);
            msg = rpc_strf("%s.%s panicked on %s: %s", ru->svc->name, m->name, oxl_node_name(n), what);
            free(what);
        } else {
            msg = rpc_strf("%s crashed while %s.%s ran", oxl_node_name(n), ru->svc->name, m->name);
        }
        rpc_fail_call(caller, ru->id, oxl_node_world_id(n), by_panic ? OXL_RPC_PANIC : OXL_RPC_CRASHED, msg, ru->svc,
                      ru->method);
    }
    drop_tables(r, rn);
}
