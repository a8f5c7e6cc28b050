/* sim_toy_register.c: the ABD register on the simulation kernel.
 *
 * Replicas keep (timestamp, writer, value) per key on their disk and sync
 * before they acknowledge. A client operation has two phases, each a round
 * trip to a majority: query (learn the highest timestamp), then store
 * (write a new timestamp, or write the value read back). Clients record
 * every operation in a History; the scenario checks it for
 * linearizability. */
#include "sim_toy_register.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MSG_QUERY = 1, MSG_QUERY_REPLY, MSG_STORE, MSG_STORE_ACK };

/* The wire format: fixed 24 bytes, little-endian by construction. */
typedef struct abd_msg {
    uint8_t type;
    uint8_t key;
    uint16_t writer;
    uint32_t req;
    uint64_t ts;
    int64_t val;
} abd_msg;

enum { MSG_BYTES = 24 };

static void msg_encode(const abd_msg *m, unsigned char *b) {
    b[0] = m->type;
    b[1] = m->key;
    for (int i = 0; i < 2; i++) b[2 + i] = (unsigned char)(m->writer >> (8 * i));
    for (int i = 0; i < 4; i++) b[4 + i] = (unsigned char)(m->req >> (8 * i));
    for (int i = 0; i < 8; i++) b[8 + i] = (unsigned char)(m->ts >> (8 * i));
    for (int i = 0; i < 8; i++) b[16 + i] = (unsigned char)((uint64_t)m->val >> (8 * i));
}

static bool msg_decode(const void *data, size_t len, abd_msg *m) {
    if (len != MSG_BYTES) return false;
    const unsigned char *b = data;
    memset(m, 0, sizeof *m);
    m->type = b[0];
    m->key = b[1];
    for (int i = 0; i < 2; i++) m->writer |= (uint16_t)(b[2 + i] << (8 * i));
    for (int i = 0; i < 4; i++) m->req |= (uint32_t)b[4 + i] << (8 * i);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) m->ts |= (uint64_t)b[8 + i] << (8 * i);
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[16 + i] << (8 * i);
    m->val = (int64_t)v;
    return true;
}

static void send_msg(oxl_ctx c, oxl_node_id to, const abd_msg *m) {
    unsigned char b[MSG_BYTES];
    msg_encode(m, b);
    oxl_ctx_send(c, to, b, sizeof b);
}

/* (ts, writer) pairs order the versions of a key. */
typedef struct version {
    uint64_t ts;
    uint16_t writer;
    int64_t val;
} version;

static bool version_newer(version a, version b) { return a.ts > b.ts || (a.ts == b.ts && a.writer > b.writer); }

/* ---- the scenario shared by every node of one run ---- */
typedef struct scenario {
    abd_config cfg;
    oxl_history *history;
    int clients_done;
    /* oracle: the newest version each replica acknowledged, per key */
    version acked[ABD_MAX_REPLICAS][ABD_MAX_KEYS];
} scenario;

/* ---- replica ---- */
typedef struct replica {
    oxl_process base;
    scenario *sc;
    version state[ABD_MAX_KEYS];
} replica;

static void disk_key(char *buf, size_t cap, int key) { snprintf(buf, cap, "reg/%d", key); }

static void version_store_bytes(version v, unsigned char *b) {
    abd_msg m = {.ts = v.ts, .writer = v.writer, .val = v.val};
    msg_encode(&m, b);
}

static void replica_start(oxl_process *self, oxl_ctx c) {
    replica *r = (replica *)self;
    /* Recover whatever reached the disk (reads see synced and unsynced data
     * of this incarnation alike; after a crash only the kept prefix). */
    for (int k = 0; k < r->sc->cfg.keys; k++) {
        char key[32];
        disk_key(key, sizeof key, k);
        const void *val;
        size_t len;
        abd_msg m;
        if (oxl_disk_get(oxl_ctx_disk(c), key, &val, &len) == OXL_DISK_OK && msg_decode(val, len, &m))
            r->state[k] = (version){m.ts, m.writer, m.val};
    }
}

static void replica_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    replica *r = (replica *)self;
    abd_msg m;
    if (!msg_decode(data, len, &m) || m.key >= r->sc->cfg.keys) return;
    if (m.type == MSG_QUERY) {
        version v = r->state[m.key];
        abd_msg reply = {MSG_QUERY_REPLY, m.key, v.writer, m.req, v.ts, v.val};
        send_msg(c, from, &reply);
    } else if (m.type == MSG_STORE) {
        version incoming = {m.ts, m.writer, m.val};
        if (version_newer(incoming, r->state[m.key])) {
            char key[32];
            unsigned char b[MSG_BYTES];
            disk_key(key, sizeof key, m.key);
            version_store_bytes(incoming, b);
            if (oxl_disk_put(oxl_ctx_disk(c), key, b, sizeof b) != OXL_DISK_OK) return; /* no ack */
            r->state[m.key] = incoming;
        }
        /* Acknowledge only what is durable: sync before the ack. */
        if (r->sc->cfg.variant != ABD_BUG_UNSYNCED_ACK && oxl_disk_sync(oxl_ctx_disk(c)) != OXL_DISK_OK) return;
        version *acked = &r->sc->acked[c.node][m.key];
        if (version_newer(r->state[m.key], *acked)) *acked = r->state[m.key];
        abd_msg ack = {MSG_STORE_ACK, m.key, 0, m.req, 0, 0};
        send_msg(c, from, &ack);
    }
}

static void replica_destroy(oxl_process *self) { free(self); }

static const oxl_process_ops replica_ops = {replica_start, replica_message, replica_destroy};

static oxl_process *replica_new(oxl_ctx c, void *arg) {
    replica *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->base.ops = &replica_ops;
    r->sc = arg;
    return &r->base;
}

/* ---- client ---- */
typedef enum { IDLE, QUERYING, STORING } client_phase;

typedef struct client {
    oxl_process base;
    scenario *sc;
    int index;
    int ops_done;
    client_phase phase;
    bool is_read;
    int key;
    int64_t write_value;
    oxl_op_id op;
    uint32_t req;
    uint32_t answered; /* bitmask of replicas that answered this phase */
    int answers;
    version best;      /* highest version seen in the query phase */
    uint64_t last_ts;  /* the newest timestamp this client ever wrote */
    oxl_timer_id deadline;
} client;

static void client_next(oxl_process *self, oxl_ctx c, void *arg);

static int majority(const scenario *sc) { return sc->cfg.replicas / 2 + 1; }

static void client_broadcast(client *cl, oxl_ctx c, abd_msg *m) {
    for (int r = 0; r < cl->sc->cfg.replicas; r++) send_msg(c, r, m);
}

static void client_phase_start(client *cl, oxl_ctx c, client_phase phase, version v) {
    cl->phase = phase;
    cl->req++;
    cl->answered = 0;
    cl->answers = 0;
    abd_msg m = {phase == QUERYING ? MSG_QUERY : MSG_STORE, (uint8_t)cl->key, v.writer, cl->req, v.ts, v.val};
    client_broadcast(cl, c, &m);
}

static void client_finish(client *cl, oxl_ctx c, bool ok, int64_t value) {
    oxl_ctx_cancel_timer(c, cl->deadline);
    cl->deadline = 0;
    oxl_time_ns now = oxl_world_now(c.world);
    if (ok)
        oxl_history_ok(cl->sc->history, cl->op, value, now);
    else if (cl->is_read)
        oxl_history_fail(cl->sc->history, cl->op, now); /* a read changes nothing */
    else
        oxl_history_info(cl->sc->history, cl->op, now); /* a write may have landed */
    cl->phase = IDLE;
    if (++cl->ops_done == cl->sc->cfg.ops_per_client) {
        cl->sc->clients_done++;
        return;
    }
    oxl_ctx_set_timer(c, oxl_rng_range(oxl_ctx_rng(c), 0, 20 * OXL_MS), client_next, NULL);
}

static void client_timeout(oxl_process *self, oxl_ctx c, void *arg) {
    client *cl = (client *)self;
    cl->deadline = 0;
    if (cl->phase != IDLE) client_finish(cl, c, false, 0);
}

static void client_next(oxl_process *self, oxl_ctx c, void *arg) {
    client *cl = (client *)self;
    oxl_rng *rng = oxl_ctx_rng(c);
    cl->key = (int)oxl_rng_below(rng, (uint64_t)cl->sc->cfg.keys);
    cl->is_read = oxl_rng_chance(rng, 0.5);
    cl->write_value = (int64_t)(cl->index * 1000 + cl->ops_done + 1); /* unique per write */
    oxl_time_ns now = oxl_world_now(c.world);
    cl->op = cl->is_read ? oxl_history_invoke(cl->sc->history, cl->index, (uint64_t)cl->key, OXL_OP_READ, 0, 0, now)
                         : oxl_history_invoke(cl->sc->history, cl->index, (uint64_t)cl->key, OXL_OP_WRITE,
                                              cl->write_value, 0, now);
    cl->deadline = oxl_ctx_set_timer(c, 300 * OXL_MS, client_timeout, NULL);
    client_phase_start(cl, c, QUERYING, (version){0, 0, 0});
}

static void client_start(oxl_process *self, oxl_ctx c) {
    oxl_ctx_set_timer(c, oxl_rng_range(oxl_ctx_rng(c), 0, 10 * OXL_MS), client_next, NULL);
}

static void client_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    client *cl = (client *)self;
    abd_msg m;
    if (!msg_decode(data, len, &m) || m.req != cl->req || cl->phase == IDLE) return; /* stale */
    if (from < 0 || from >= cl->sc->cfg.replicas || (cl->answered & (1u << from))) return; /* duplicate */
    const scenario *sc = cl->sc;
    if (cl->phase == QUERYING && m.type == MSG_QUERY_REPLY) {
        cl->answered |= 1u << from;
        version v = {m.ts, m.writer, m.val};
        if (cl->answers == 0 || version_newer(v, cl->best)) cl->best = v;
        if (++cl->answers < majority(sc)) return;
        if (cl->is_read) {
            if (sc->cfg.variant == ABD_BUG_NO_WRITE_BACK) {
                client_finish(cl, c, true, cl->best.val);
                return;
            }
            client_phase_start(cl, c, STORING, cl->best); /* write back what we read */
        } else {
            /* Never reuse a timestamp: a timed-out write's stores may still
             * be in flight, and (ts, writer) must name one value only. */
            uint64_t ts = (cl->best.ts > cl->last_ts ? cl->best.ts : cl->last_ts) + 1;
            cl->last_ts = ts;
            version mine = {ts, (uint16_t)(cl->index + 1), cl->write_value};
            client_phase_start(cl, c, STORING, mine);
        }
    } else if (cl->phase == STORING && m.type == MSG_STORE_ACK) {
        cl->answered |= 1u << from;
        int needed = sc->cfg.variant == ABD_BUG_EARLY_ACK && !cl->is_read ? 1 : majority(sc);
        if (++cl->answers < needed) return;
        client_finish(cl, c, true, cl->is_read ? cl->best.val : 0);
    }
}

static void client_destroy(oxl_process *self) { free(self); }

static const oxl_process_ops client_ops = {client_start, client_message, client_destroy};

typedef struct client_arg {
    scenario *sc;
    int index;
} client_arg;

static oxl_process *client_new(oxl_ctx c, void *arg) {
    const client_arg *ca = arg;
    client *cl = calloc(1, sizeof *cl);
    if (!cl) return NULL;
    cl->base.ops = &client_ops;
    cl->sc = ca->sc;
    cl->index = ca->index;
    return &cl->base;
}

/* ---- oracles ---- */

/* Whatever a replica acknowledged must be on its disk, durably: a restart
 * must never forget an acknowledged store. Checked after every event. */
static const char *acked_is_durable(oxl_world *w, void *arg) {
    const scenario *sc = arg;
    for (int r = 0; r < sc->cfg.replicas; r++) {
        if (!oxl_world_is_up(w, r)) continue;
        const replica *rp = (const replica *)oxl_world_process(w, r);
        for (int k = 0; k < sc->cfg.keys; k++)
            if (version_newer(sc->acked[r][k], rp->state[k]))
                return oxl_world_strf(w, "replica %s forgot key %d: acked ts %" PRIu64 ", holds ts %" PRIu64,
                                      oxl_world_node_name(w, r), k, sc->acked[r][k].ts, rp->state[k].ts);
    }
    return NULL;
}

/* ---- faults: drawn from the world's fault stream ---- */

static void fault_crash(oxl_world *w, void *arg) {
    const scenario *sc = arg;
    oxl_rng *rng = oxl_world_rng(w);
    oxl_node_id victim = (oxl_node_id)oxl_rng_below(rng, (uint64_t)sc->cfg.replicas);
    if (oxl_world_is_up(w, victim)) oxl_world_crash_for(w, victim, oxl_rng_range(rng, 10 * OXL_MS, 400 * OXL_MS));
}

static void fault_partition(oxl_world *w, void *arg) {
    const scenario *sc = arg;
    oxl_rng *rng = oxl_world_rng(w);
    oxl_node_id cut = (oxl_node_id)oxl_rng_below(rng, (uint64_t)sc->cfg.replicas);
    oxl_net_isolate(w, cut, oxl_rng_range(rng, 10 * OXL_MS, 300 * OXL_MS));
}

abd_config abd_config_default(abd_variant variant) {
    return (abd_config){.variant = variant, .replicas = 3, .clients = 3, .keys = 2, .ops_per_client = 25,
                        .faults = true, .checker_budget = 0};
}

const char *abd_variant_name(abd_variant v) {
    switch (v) {
    case ABD_CORRECT: return "correct";
    case ABD_BUG_NO_WRITE_BACK: return "read without write-back";
    case ABD_BUG_EARLY_ACK: return "write acked before a quorum";
    case ABD_BUG_UNSYNCED_ACK: return "replica acks before syncing";
    }
    return "?";
}

const char *abd_scenario(oxl_world *w, void *arg) {
    scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.cfg = *(const abd_config *)arg;
    if (sc.cfg.replicas < 1 || sc.cfg.replicas > ABD_MAX_REPLICAS || sc.cfg.clients < 1 ||
        sc.cfg.clients > ABD_MAX_CLIENTS || sc.cfg.keys < 1 || sc.cfg.keys > ABD_MAX_KEYS)
        return "abd_scenario: configuration out of range";
    sc.history = oxl_history_new();
    client_arg cargs[ABD_MAX_CLIENTS];
    char name[16];
    for (int r = 0; r < sc.cfg.replicas; r++) {
        snprintf(name, sizeof name, "r%d", r);
        oxl_world_add_node(w, name, replica_new, &sc);
    }
    for (int i = 0; i < sc.cfg.clients; i++) {
        cargs[i] = (client_arg){&sc, i};
        snprintf(name, sizeof name, "c%d", i);
        oxl_world_add_node(w, name, client_new, &cargs[i]);
    }
    oxl_world_add_invariant(w, "acked stores are durable", acked_is_durable, &sc);
    if (sc.cfg.faults) {
        oxl_rng *rng = oxl_world_rng(w);
        oxl_net_latency(w, 1 * OXL_MS, oxl_rng_range(rng, 2, 30) * OXL_MS);
        oxl_net_drop(w, 0.05 * oxl_rng_unit(rng));
        oxl_net_duplicate(w, 0.05 * oxl_rng_unit(rng));
        oxl_net_reorder(w, 0.2 * oxl_rng_unit(rng));
        for (int r = 0; r < sc.cfg.replicas; r++) oxl_world_set_disk_fail_rate(w, r, 0.01, 0.01);
        int crashes = (int)oxl_rng_below(rng, 4), cuts = (int)oxl_rng_below(rng, 4);
        for (int i = 0; i < crashes; i++)
            oxl_world_after(w, oxl_rng_range(rng, 0, 2 * OXL_SEC), "crash a replica", fault_crash, &sc);
        for (int i = 0; i < cuts; i++)
            oxl_world_after(w, oxl_rng_range(rng, 0, 2 * OXL_SEC), "isolate a replica", fault_partition, &sc);
    }
    /* Bounded: every client finishes its operations (each ends within its
     * deadline), so a minute of virtual time is far more than enough. */
    oxl_world_run_until(w, 60 * OXL_SEC);
    const char *failure = NULL;
    if (!oxl_world_failed(w) && sc.clients_done != sc.cfg.clients)
        failure = oxl_world_strf(w, "only %d of %d clients finished", sc.clients_done, sc.cfg.clients);
    if (!oxl_world_failed(w) && !failure) {
        oxl_lin_result res = oxl_check_register(sc.history, 0, sc.cfg.checker_budget);
        if (res.verdict == OXL_LIN_VIOLATION)
            failure = oxl_world_strf(w, "%s", res.report);
        else if (res.verdict == OXL_LIN_UNKNOWN)
            failure = oxl_world_strf(w, "checker gave up: %s", res.report ? res.report : "budget exhausted");
        oxl_lin_result_free(&res);
    }
    /* sc dies with this frame; the caller only frees the world, which runs
     * no more events and destroys the processes without touching sc. */
    oxl_history_free(sc.history);
    return failure;
}
