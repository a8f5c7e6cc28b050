/* call.c: the calling side of an rpc: which node answers, the request,
 * the wait for its answer until the deadline, and what comes back.
 *
 * The serving node is a seeded draw (the run's "rpc" stream) among the
 * live nodes that serve the service, in node order; a call `to:` a node
 * goes there whatever its state. A call the caller's own node serves runs
 * on the caller's task (serve.c). */
#include "rpc/rpc_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RpcError { kind, message }: two words, as OxL lays out the built-in
 * struct's fields. */
static oxl_word rpc_error(const char *kind, const char *message) {
    oxl_word *e = oxl_alloc(2 * sizeof *e);
    e[0] = oxl_word_from_str(oxl_str_from_cstr(kind));
    e[1] = oxl_word_from_str(oxl_str_from_cstr(message));
    return oxl_word_from_ptr(e);
}

static int64_t fail_with(oxl_word *out, int64_t status, const char *message) {
    static const char *const kinds[] = {
        [OXL_RPC_DEADLINE] = "deadline", [OXL_RPC_UNAVAILABLE] = "unavailable",
        [OXL_RPC_CRASHED] = "crashed",   [OXL_RPC_PANIC] = "panic",
    };
    *out = rpc_error(kinds[status], message);
    return status;
}

RPC_HOT static rpc_pending *pending_find(rpc_node *rn, uint64_t id, size_t *at) {
    for (size_t i = 0; i < rn->npending; i++)
        if (rn->pending[i].id == id) {
            if (at) *at = i;
            return &rn->pending[i];
        }
    return NULL;
}

/* The call ends: an answer it holds and did not take goes too. */
RPC_HOT static void pending_remove(rpc_run *r, rpc_node *rn, uint64_t id) {
    size_t i;
    if (!pending_find(rn, id, &i)) return;
    rpc_reply_give(r, rn->pending[i].held);
    rn->pending[i] = rn->pending[--rn->npending];
}

/* Hands a reply to the waiting call (held when the caller is not waiting
 * right now), or drops it when there is none (a late answer, one to a
 * dead incarnation) or it holds one already (a duplicate). */
RPC_HOT static void deliver(rpc_run *r, rpc_node *rn, uint64_t id, oxl_node_id server, rpc_reply *rep, const oxl_service *s,
                    int64_t method) {
    rpc_pending *p = pending_find(rn, id, NULL);
    bool taken = false;
    if (p && oxl_task_hand(p->waiter, rep)) {
        taken = true;
    } else if (p && !p->held) {
        p->held = rep;
        taken = true;
    }
    if (!taken) {
        rpc_trace(rn, server, id, p ? "duplicate answer dropped" : "late answer dropped", s, method);
        rpc_reply_give(r, rep);
        return;
    }
    if (rep->status == OXL_RPC_OK)
        rpc_trace_hot(rn, server, id, RPC_HOT_ANSWER, s, method);
    else
        rpc_trace(rn, server, id, rep->status == OXL_RPC_PANIC ? "panicked" : "crashed", s, method);
}

RPC_HOT void rpc_take_answer(rpc_run *r, rpc_node *rn, oxl_node_id from, uint64_t id, const unsigned char *p,
                     const unsigned char *end, const oxl_service *s, int64_t method) {
    size_t len = (size_t)(end - p);
    rpc_reply *rep = rpc_reply_take(r, len);
    if (len) memcpy(rep->data, p, len);
    deliver(r, rn, id, from, rep, s, method);
}

void rpc_fail_call(rpc_node *caller, uint64_t id, oxl_node_id server, int64_t status, char *message,
                   const oxl_service *s, int64_t method) {
    rpc_run *r = rpc_run_get();
    rpc_reply *rep = rpc_reply_take(r, 0);
    rep->status = status;
    rep->message = message;
    deliver(r, caller, id, server, rep, s, method);
}

/* ---- choosing the node ---- */

/* The names of the nodes that serve s, for a message. */
static char *servers_text(rpc_run *r, const oxl_service *s) {
    char *text = rpc_strf("%s", "");
    for (size_t i = 0; i < r->nnodes; i++) {
        if (!r->nodes[i].hooked || !rpc_serves(&r->nodes[i], s)) continue;
        char *more = rpc_strf("%s%s%s", text, *text ? ", " : "", rpc_node_name(&r->nodes[i]));
        free(text);
        text = more;
    }
    return text;
}

/* A live node serving s, or NULL. The first 64 candidates are noted on
 * the way, so the common case walks the nodes once. */
RPC_HOT static rpc_node *choose(rpc_run *r, const oxl_service *s) {
    oxl_world *w = r->world;
    size_t live = 0, seen[64];
    for (size_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].hooked && rpc_serves(&r->nodes[i], s) && oxl_world_is_up(w, (oxl_node_id)i)) {
            if (live < sizeof seen / sizeof seen[0]) seen[live] = i;
            live++;
        }
    if (!live) return NULL;
    uint64_t pick = live > 1 ? oxl_rng_below(&r->rng, live) : 0; /* no draw without a choice */
    if (pick < sizeof seen / sizeof seen[0]) return &r->nodes[seen[pick]];
    for (size_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].hooked && rpc_serves(&r->nodes[i], s) && oxl_world_is_up(w, (oxl_node_id)i) && pick-- == 0)
            return &r->nodes[i];
    return NULL;
}

/* ---- the call ---- */

/* A call's wait, as a failure report names it. */
typedef struct call_note {
    const oxl_service *s;
    const oxl_rpc_method *m;
    uint64_t id;
    const oxl_node *target; /* not its rpc_node: the table may grow while the call waits */
    oxl_time_ns until;
} call_note;

static void print_call_note(const void *arg, char *buf, size_t cap) {
    const call_note *n = arg;
    snprintf(buf, cap, "awaiting the answer of %s.%s #%llu.%llu from %s until %lld.%09llds", n->s->name, n->m->name,
             (unsigned long long)(n->id >> RPC_ID_COUNT_BITS),
             (unsigned long long)(n->id & ((UINT64_C(1) << RPC_ID_COUNT_BITS) - 1)), oxl_node_name(n->target),
             (long long)(n->until / OXL_SEC), (long long)(n->until % OXL_SEC));
}

RPC_HOT static int64_t remote(rpc_run *r, rpc_node *me, rpc_node *target, const oxl_service *s, int64_t method,
                      const oxl_word *args, int64_t deadline, oxl_word *out, const char *file, int line) {
    const oxl_rpc_method *m = &s->methods[method];
    if (me->npending >= OXL_RPC_MAX_PENDING)
        oxl_panic_at(file, line, "%s.%s: node %s has %d calls in flight already (the limit)", s->name, m->name,
                     rpc_node_name(me), OXL_RPC_MAX_PENDING);
    oxl_ctx c = rpc_ctx(me);
    uint64_t id = (uint64_t)c.incarnation << RPC_ID_COUNT_BITS | ++me->calls;
    oxl_wire_buf *frame = &r->scratch;
    frame->len = 0;
    rpc_put_header(frame, RPC_REQ, id);
    rpc_put_uvarint(frame, (uint64_t)s->id);
    rpc_put_uvarint(frame, (uint64_t)method);
    for (int64_t i = 0; i < m->nparams; i++) {
        char err[256];
        if (!rpc_encode(frame, m->params[i], args[i], err, sizeof err))
            oxl_panic_at(file, line, "%s.%s: argument %lld cannot be sent: %s", s->name, m->name, (long long)i + 1, err);
    }
    if (me->npending == me->cap_pending) {
        me->cap_pending = me->cap_pending ? me->cap_pending * 2 : 8;
        me->pending = rpc_xrealloc(me->pending, me->cap_pending * sizeof *me->pending);
    }
    oxl_node_id to = oxl_node_world_id(target->node);
    me->pending[me->npending++] = (rpc_pending){id, oxl_task_handle(oxl_task_self()), NULL, to};
    rpc_trace_hot(me, to, id, RPC_HOT_CALL, s, method);
    oxl_ctx_send(c, to, frame->data, frame->len);

    oxl_time_ns until = oxl_world_now(r->world) + deadline;
    /* what this task waits for, should the run fail meanwhile: written
     * only then */
    call_note note = {s, m, id, target->node, until};
    oxl_task_wait_note_fn(print_call_note, &note);
    oxl_node_id me_id = me->id;
    for (;;) {
        /* an answer held (one that came while this task was not waiting)
         * first, as a select takes a ready case before it waits */
        rpc_pending *waiting = pending_find(me, id, NULL);
        rpc_reply *rep = waiting ? waiting->held : NULL;
        if (rep) {
            waiting->held = NULL;
        } else {
            oxl_time_ns left = until - oxl_world_now(r->world);
            rep = oxl_task_await_at(left > 0 ? left : 0, file, line);
        }
        if (me != &r->process) me = &r->nodes[me_id]; /* the node table may have grown meanwhile */
        if (!rep) { /* the deadline */
            pending_remove(r, me, id);
            rpc_trace(me, to, id, "deadline", s, method);
            char *msg = rpc_strf("no answer from %s within %s (%s.%s)", oxl_node_name(note.target),
                                 oxl_str_cstr(oxl_dur_to_str(deadline)), s->name, m->name);
            int64_t status = fail_with(out, OXL_RPC_DEADLINE, msg);
            free(msg);
            oxl_task_wait_note(NULL);
            return status;
        }
        if (rep->status != OXL_RPC_OK) {
            pending_remove(r, me, id);
            int64_t status = fail_with(out, rep->status, rep->message);
            rpc_reply_give(r, rep);
            oxl_task_wait_note(NULL);
            return status;
        }
        const unsigned char *p = rep->data;
        char err[256];
        bool ok = rpc_decode(&p, rep->data + rep->len, m->result, out, err, sizeof err) &&
                  p == rep->data + rep->len;
        rpc_reply_give(r, rep);
        if (ok) {
            pending_remove(r, me, id);
            oxl_task_wait_note(NULL);
            return OXL_RPC_OK;
        }
        /* a malformed answer is dropped, as a lost one would be: wait on */
        rpc_trace(me, to, id, "malformed answer dropped", s, method);
    }
}

RPC_HOT int64_t oxl_rpc_call(const oxl_service *s, int64_t method, const oxl_word *args, int64_t deadline, oxl_string to,
                     oxl_word *out, const char *file, int line) {
    if (!s || method < 0 || method >= s->nmethods)
        oxl_panic_at(file, line, "oxl_rpc_call: no method %lld of service %s", (long long)method, s ? s->name : "?");
    if (!oxl_sched_world()) oxl_panic_at(file, line, "an rpc call outside a scheduler run");
    const oxl_rpc_method *m = &s->methods[method];
    if (deadline == OXL_RPC_NO_DEADLINE) deadline = OXL_RPC_DEFAULT_DEADLINE;
    if (deadline < 0)
        oxl_panic_at(file, line, "%s.%s: negative deadline %s", s->name, m->name, oxl_str_cstr(oxl_dur_to_str(deadline)));
    rpc_run *r = rpc_run_get();
    oxl_node *self = oxl_node_current();
    rpc_node *me = rpc_node_of(r, self);
    rpc_node *target = NULL;
    if (to) {
        oxl_node *n = oxl_node_by_name(oxl_str_cstr(to));
        if (!n) { /* the names on the stack: the panic does not return */
            char known[512] = "";
            size_t len = 0;
            for (oxl_node *k = oxl_node_next(NULL); k && len < sizeof known; k = oxl_node_next(k)) {
                int w = snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", oxl_node_name(k));
                if (w > 0) len += (size_t)w;
            }
            oxl_panic_at(file, line, "%s.%s: unknown node '%s' (to:; nodes: %s)", s->name, m->name, oxl_str_cstr(to),
                         len ? known : "none");
        }
        target = rpc_node_of(r, n);
        if (!rpc_serves(target, s)) {
            char *msg = rpc_strf("node %s does not serve %s", oxl_node_name(n), s->name);
            rpc_trace(me, oxl_node_world_id(n), 0, "unavailable", s, method);
            int64_t status = fail_with(out, OXL_RPC_UNAVAILABLE, msg);
            free(msg);
            return status;
        }
    } else if (!self || rpc_serves(me, s)) {
        target = me; /* outside a layout the process serves every service */
    } else if (!(target = choose(r, s))) {
        char *who = servers_text(r, s);
        char *msg = *who ? rpc_strf("no live node serves %s (%s down)", s->name, who)
                         : rpc_strf("no node serves %s", s->name);
        free(who);
        rpc_trace(me, OXL_NO_NODE, 0, "unavailable", s, method);
        int64_t status = fail_with(out, OXL_RPC_UNAVAILABLE, msg);
        free(msg);
        return status;
    }
    if (target == me) {
        rpc_call_local(me, s, method, args, out, file, line);
        return OXL_RPC_OK;
    }
    return remote(r, me, target, s, method, args, deadline, out, file, line);
}
