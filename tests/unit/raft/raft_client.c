/* raft_client.c: the scenario's clients. Each issues one operation at a
 * time (put, get or cas on a random key; client 0 also membership changes
 * when asked) to the server it believes leads, follows NOT_LEADER hints,
 * retries an unanswered request on the next server with the same command
 * number (the servers' sessions apply it once), and records every
 * operation in the history: invoked when first sent, ok when answered. A
 * client never gives up: an operation stays pending until answered, which
 * the liveness phase requires. */
#include "raft_scenario.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_LEADER_RETRY (5 * OXL_MS)  /* after a NOT_LEADER: ask the hinted server */
#define NO_LEADER_RETRY (20 * OXL_MS)  /* after a NOT_LEADER without a hint: the next one */

typedef struct client client;

struct raft_clients {
    oxl_world *w;
    const raft_cluster *cl;
    oxl_history *history;
    int n, keys;
    oxl_dur_ns think_max, attempt;
    bool draining;
    uint64_t completed;
    oxl_node_id first;              /* client 0's node */
    uint32_t config_request;        /* a membership change for client 0 to make (0: none) */
};

struct client {
    oxl_process base;
    raft_clients *all;
    int index;
    bool busy;
    raft_command cmd;               /* the operation in flight (cmd.seq numbers them) */
    oxl_op_id op;                   /* its history id; OXL_NO_OP for a membership change */
    oxl_time_ns invoked;
    oxl_node_id target;
    bool hinted;                    /* the pending resend goes to target as it is */
    oxl_timer_id timer;             /* the think pause or the attempt's deadline */
    int64_t seen[RAFT_MAX_KEYS];    /* the last value it knows per key, for cas */
};

static client *client_of(oxl_world *w, const raft_clients *c, int i) {
    return (client *)oxl_world_process(w, c->first + i);
}

static void on_timer(oxl_process *self, oxl_ctx c, void *arg);

static void send_request(client *cl, oxl_ctx c) {
    unsigned char b[RAFT_REQUEST_BYTES];
    size_t n = raft_encode_request(&cl->cmd, b, sizeof b);
    oxl_ctx_send(c, cl->target, b, n);
    oxl_ctx_cancel_timer(c, cl->timer);
    cl->timer = oxl_ctx_set_timer(c, cl->all->attempt, on_timer, NULL);
}

static void retry_later(client *cl, oxl_ctx c, oxl_dur_ns d) {
    cl->hinted = true;
    oxl_ctx_cancel_timer(c, cl->timer);
    cl->timer = oxl_ctx_set_timer(c, d, on_timer, NULL);
}

static void think(client *cl, oxl_ctx c) {
    cl->timer = oxl_ctx_set_timer(c, oxl_rng_range(oxl_ctx_rng(c), 0, cl->all->think_max), on_timer, NULL);
}

/* Starts the next operation. Values written are unique per client and op,
 * so a report names each write by its value. */
static void start_op(client *cl, oxl_ctx c) {
    raft_clients *all = cl->all;
    oxl_rng *rng = oxl_ctx_rng(c);
    uint32_t seq = cl->cmd.seq + 1;
    cl->busy = true;
    cl->invoked = oxl_world_now(c.world);
    if (cl->index == 0 && all->config_request) {
        cl->cmd = (raft_command){.op = RAFT_OP_CONFIG, .seq = seq, .a = all->config_request};
        all->config_request = 0;
        cl->op = OXL_NO_OP;
        oxl_ctx_trace(c, "raft client: membership change requested");
        send_request(cl, c);
        return;
    }
    int key = (int)oxl_rng_below(rng, (uint64_t)all->keys);
    int64_t fresh = (int64_t)(cl->index + 1) * 1000000 + seq;
    uint64_t pick = oxl_rng_below(rng, 10);
    if (pick < 4) {
        cl->cmd = (raft_command){.op = RAFT_OP_PUT, .key = (uint8_t)key, .seq = seq, .a = fresh};
        cl->op = oxl_history_invoke(all->history, cl->index, (uint64_t)key, OXL_OP_WRITE, fresh, 0, cl->invoked);
    } else if (pick < 7) {
        cl->cmd = (raft_command){.op = RAFT_OP_GET, .key = (uint8_t)key, .seq = seq};
        cl->op = oxl_history_invoke(all->history, cl->index, (uint64_t)key, OXL_OP_READ, 0, 0, cl->invoked);
    } else {
        int64_t expect = cl->seen[key];
        cl->cmd = (raft_command){.op = RAFT_OP_CAS, .key = (uint8_t)key, .seq = seq, .a = expect, .b = fresh};
        cl->op = oxl_history_invoke(all->history, cl->index, (uint64_t)key, OXL_OP_CAS, expect, fresh, cl->invoked);
    }
    send_request(cl, c);
}

static void finish(client *cl, oxl_ctx c, int64_t result) {
    raft_clients *all = cl->all;
    if (cl->op != OXL_NO_OP) {
        oxl_history_ok(all->history, cl->op, result, oxl_world_now(c.world));
        const raft_command *m = &cl->cmd;
        if (m->op == RAFT_OP_PUT) cl->seen[m->key] = m->a;
        if (m->op == RAFT_OP_GET) cl->seen[m->key] = result;
        if (m->op == RAFT_OP_CAS) cl->seen[m->key] = result ? m->b : cl->seen[m->key];
        all->completed++;
    }
    cl->busy = false;
    oxl_ctx_cancel_timer(c, cl->timer);
    cl->timer = 0;
    if (!all->draining) think(cl, c);
}

static void on_timer(oxl_process *self, oxl_ctx c, void *arg) {
    client *cl = (client *)self;
    cl->timer = 0;
    if (!cl->busy) {
        if (!cl->all->draining) start_op(cl, c);
        return;
    }
    /* No answer in time: the next server. */
    if (!cl->hinted) cl->target = (cl->target + 1) % cl->all->cl->params.servers;
    cl->hinted = false;
    send_request(cl, c);
}

static void client_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    client *cl = (client *)self;
    raft_response r;
    if (!raft_decode_response(data, len, &r) || !cl->busy || r.seq != cl->cmd.seq) return; /* late or stale */
    switch (r.status) {
    case RAFT_OK: finish(cl, c, r.result); break;
    case RAFT_REFUSED: finish(cl, c, 0); break; /* a membership change that cannot happen now */
    default:
        if (r.leader >= 0 && r.leader < cl->all->cl->params.servers && r.leader != from) {
            cl->target = r.leader;
            retry_later(cl, c, NOT_LEADER_RETRY);
        } else {
            cl->target = (from + 1) % cl->all->cl->params.servers;
            retry_later(cl, c, NO_LEADER_RETRY);
        }
        break;
    }
}

static void client_start(oxl_process *self, oxl_ctx c) {
    client *cl = (client *)self;
    cl->target = (oxl_node_id)oxl_rng_below(oxl_ctx_rng(c), (uint64_t)cl->all->cl->params.servers);
    think(cl, c);
}

static void client_destroy(oxl_process *self) { free(self); }

static const oxl_process_ops client_ops = {client_start, client_message, client_destroy};

static oxl_process *client_new(oxl_ctx c, void *arg) {
    raft_clients *all = arg;
    client *cl = calloc(1, sizeof *cl);
    if (!cl) return NULL;
    cl->base.ops = &client_ops;
    cl->all = all;
    cl->index = c.node - all->first;
    cl->op = OXL_NO_OP;
    return &cl->base;
}

raft_clients *raft_clients_new(oxl_world *w, const raft_cluster *cl, int n, int keys, oxl_dur_ns think_max,
                               oxl_dur_ns attempt, oxl_history *h) {
    raft_clients *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    *c = (raft_clients){.w = w, .cl = cl, .history = h, .n = n, .keys = keys, .think_max = think_max,
                        .attempt = attempt, .first = (oxl_node_id)cl->params.servers};
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        oxl_world_add_node(w, name, client_new, c);
    }
    return c;
}

void raft_clients_free(raft_clients *c) { free(c); }
void raft_clients_drain(raft_clients *c) {
    c->draining = true;
    c->config_request = 0; /* not started yet: it never will be */
}
uint64_t raft_clients_completed(const raft_clients *c) { return c->completed; }

int raft_clients_pending(const raft_clients *c) {
    int pending = c->config_request ? 1 : 0;
    for (int i = 0; i < c->n; i++) {
        const client *cl = client_of(c->w, c, i);
        pending += cl && cl->busy;
    }
    return pending;
}

void raft_clients_describe_pending(oxl_world *w, const raft_clients *c, char *buf, size_t cap) {
    const client *oldest = NULL;
    for (int i = 0; i < c->n; i++) {
        const client *cl = client_of(w, c, i);
        if (cl && cl->busy && (!oldest || cl->invoked < oldest->invoked)) oldest = cl;
    }
    if (!oldest) {
        snprintf(buf, cap, "none");
        return;
    }
    static const char *const ops[] = {"?", "put", "get", "cas", "membership change"};
    const raft_command *m = &oldest->cmd;
    snprintf(buf, cap, "c%d's %s on key %u (seq %" PRIu32 ") since %.3fs, now asking %s", oldest->index,
             ops[m->op <= RAFT_OP_CONFIG ? m->op : 0], m->key, m->seq, (double)oldest->invoked / 1e9,
             oxl_world_node_name(w, oldest->target));
}

bool raft_clients_change_members(oxl_world *w, raft_clients *c, uint32_t members) {
    if (c->n == 0 || c->draining) return false;
    c->config_request = members;
    /* An idle client 0 starts it at once; a busy one after its operation. */
    client *cl = client_of(w, c, 0);
    if (cl && !cl->busy) {
        oxl_ctx ctx = oxl_world_ctx(w, c->first);
        oxl_ctx_cancel_timer(ctx, cl->timer);
        start_op(cl, ctx);
    }
    return true;
}
