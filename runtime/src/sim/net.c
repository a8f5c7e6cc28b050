/* net.c: the simulated network: latency, drops, duplicates, reordering,
 * partitions and one-way blocks.
 *
 * Every random verdict comes from the network's own stream ("net") and is
 * drawn only when the fault it decides is configured, so a world without
 * network faults makes exactly one draw per message (its latency). A link
 * is FIFO: a message is delivered at least 1ns after the previous one on
 * the same link, unless the reorder dice let it overtake. A cut link drops
 * messages both when they are sent and when they would arrive, so a
 * partition catches messages in flight. */
#include "sim_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Drop reasons, carried in the trace event's arg. */
enum { DROP_CUT = 1, DROP_RANDOM = 2, DROP_DOWN = 3 };

static inline sim_link *link_at(oxl_world *w, oxl_node_id from, oxl_node_id to) {
    return &w->links[(size_t)from * (size_t)w->links_stride + (size_t)to];
}

void sim_net_grow(oxl_world *w, int nodes) {
    if (nodes <= w->links_stride) return;
    int stride = w->links_stride ? w->links_stride : 4;
    while (stride < nodes) stride *= 2;
    sim_link *links = sim_xcalloc((size_t)stride * (size_t)stride, sizeof *links);
    for (int f = 0; f < w->links_stride; f++)
        memcpy(&links[(size_t)f * (size_t)stride], &w->links[(size_t)f * (size_t)w->links_stride],
               (size_t)w->links_stride * sizeof *links);
    free(w->links);
    w->links = links;
    w->links_stride = stride;
}

void sim_net_free(oxl_world *w) {
    free(w->links);
    for (uint32_t i = 0; i < w->npartitions; i++) {
        free(w->partitions[i].a);
        free(w->partitions[i].b);
    }
    free(w->partitions);
}

static void net_schedule_copy(oxl_world *w, oxl_node_id from, oxl_node_id to, const void *data, size_t len,
                              oxl_time_ns at) {
    sim_event ev;
    ev.type = SIM_DELIVER;
    ev.node = to;
    ev.from = from;
    ev.incarnation = 0;
    ev.label = 0;
    ev.len = (uint32_t)len;
    if (len <= SIM_INLINE_PAYLOAD) {
        ev.u.msg.heap_data = NULL;
        if (len) memcpy(ev.u.msg.inline_data, data, len);
    } else {
        ev.u.msg.heap_data = sim_xmalloc(len);
        memcpy(ev.u.msg.heap_data, data, len);
    }
    sim_schedule(w, at, &ev);
}

/* A message fault's label: "from>to". */
typedef struct link_ends {
    oxl_node_id from, to;
} link_ends;
static void link_label(oxl_world *w, const void *arg, char *buf, size_t cap) {
    const link_ends *e = arg;
    snprintf(buf, cap, "%s>%s", w->nodes[e->from].name, w->nodes[e->to].name);
}

SIM_HOT static oxl_time_ns net_arrival(oxl_world *w, oxl_node_id from, oxl_node_id to) {
    oxl_time_ns lat = w->lat_min;
    if (w->lat_max > w->lat_min) lat = oxl_rng_range(&w->net_rng, w->lat_min, w->lat_max);
    oxl_time_ns at = w->now + lat;
    sim_link *l = link_at(w, from, to);
    if (w->reorder_p > 0.0 &&
        sim_fault_gate(w, OXL_FAULT_REORDER, oxl_rng_chance(&w->net_rng, w->reorder_p), at, NULL, link_label,
                       &(link_ends){from, to}))
        return at; /* may overtake */
    if (at <= l->last_delivery) at = l->last_delivery + 1;
    l->last_delivery = at;
    return at;
}

SIM_HOT bool sim_net_send(oxl_world *w, oxl_node_id from, oxl_node_id to, const void *data, size_t len) {
    if (SIM_UNLIKELY(!sim_valid_node(w, to))) {
        sim_misuse(w, "oxl_ctx_send", "unknown destination node %d", (int)to);
        return false;
    }
    if (SIM_UNLIKELY(len > OXL_SIM_MAX_MESSAGE)) {
        sim_misuse(w, "oxl_ctx_send", "message of %zu bytes exceeds the %u byte limit", len, OXL_SIM_MAX_MESSAGE);
        return false;
    }
    if (SIM_UNLIKELY(len && !data)) {
        sim_misuse(w, "oxl_ctx_send", "NULL data with length %zu", len);
        return false;
    }
    const bool traced = w->opt.trace_messages;
    uint64_t seq = w->next_seq;
    if (traced) sim_trace_record(w, OXL_EV_SEND, from, to, seq, len, 0);
    if (link_at(w, from, to)->blocks) {
        if (traced) sim_trace_record(w, OXL_EV_DROP, from, to, seq, DROP_CUT, 0);
        return true; /* the sender cannot tell */
    }
    if (w->drop_p > 0.0 && sim_fault_gate(w, OXL_FAULT_DROP, oxl_rng_chance(&w->net_rng, w->drop_p), w->now, NULL,
                                          link_label, &(link_ends){from, to})) {
        if (traced) sim_trace_record(w, OXL_EV_DROP, from, to, seq, DROP_RANDOM, 0);
        return true;
    }
    net_schedule_copy(w, from, to, data, len, net_arrival(w, from, to));
    if (w->dup_p > 0.0 && sim_fault_gate(w, OXL_FAULT_DUPLICATE, oxl_rng_chance(&w->net_rng, w->dup_p), w->now,
                                         NULL, link_label, &(link_ends){from, to})) {
        if (traced) sim_trace_record(w, OXL_EV_DUPLICATE, from, to, w->next_seq, len, 0);
        net_schedule_copy(w, from, to, data, len, net_arrival(w, from, to));
    }
    return true;
}

SIM_HOT void sim_net_deliver(oxl_world *w, sim_event *ev, const void *data) {
    const bool traced = w->opt.trace_messages;
    if (link_at(w, ev->from, ev->node)->blocks) {
        if (traced) sim_trace_record(w, OXL_EV_DROP, ev->from, ev->node, ev->seq, DROP_CUT, 0);
        return;
    }
    sim_node *n = &w->nodes[ev->node];
    if (!n->up) {
        if (traced) sim_trace_record(w, OXL_EV_DROP, ev->from, ev->node, ev->seq, DROP_DOWN, 0);
        return;
    }
    if (traced) sim_trace_record(w, OXL_EV_DELIVER, ev->node, ev->from, ev->seq, ev->len, 0);
    oxl_ctx c = {w, ev->node, n->incarnation};
    oxl_process *p = n->proc;
    oxl_node_id saved = w->running_node;
    w->running_node = ev->node;
    p->ops->message(p, c, ev->from, data, ev->len);
    w->running_node = saved;
    if (w->ndoomed && saved == OXL_NO_NODE) sim_destroy_doomed(w);
}

/* ---- configuration ---- */

static bool probability_ok(double p) { return p >= 0.0 && p <= 1.0; }

static void net_trace_conf(oxl_world *w, const char *what, uint64_t value) {
    sim_trace_record(w, OXL_EV_NETCONF, OXL_NO_NODE, OXL_NO_NODE, w->next_seq, value,
                     sim_label_intern(&w->labels, what));
}

int oxl_net_latency(oxl_world *w, oxl_dur_ns min, oxl_dur_ns max) {
    if (min < 0 || max < 0)
        return sim_misuse(w, "oxl_net_latency", "negative latency %" PRId64 "ns..%" PRId64 "ns", min, max);
    if (max < min)
        return sim_misuse(w, "oxl_net_latency", "empty range %" PRId64 "ns..%" PRId64 "ns", min, max);
    w->lat_min = min;
    w->lat_max = max;
    net_trace_conf(w, "latency-min", (uint64_t)min);
    net_trace_conf(w, "latency-max", (uint64_t)max);
    return OXL_OK;
}

static int net_set_probability(oxl_world *w, const char *call, const char *what, double *slot, double p) {
    if (!probability_ok(p)) return sim_misuse(w, call, "probability %g is outside [0, 1]", p);
    *slot = p;
    net_trace_conf(w, what, (uint64_t)(p * 1e9));
    return OXL_OK;
}

int oxl_net_drop(oxl_world *w, double p) { return net_set_probability(w, "oxl_net_drop", "drop", &w->drop_p, p); }
int oxl_net_duplicate(oxl_world *w, double p) {
    return net_set_probability(w, "oxl_net_duplicate", "duplicate", &w->dup_p, p);
}
int oxl_net_reorder(oxl_world *w, double p) {
    return net_set_probability(w, "oxl_net_reorder", "reorder", &w->reorder_p, p);
}

/* ---- partitions ---- */

static void partition_apply(oxl_world *w, const sim_partition *p, int delta) {
    for (uint32_t i = 0; i < p->na; i++)
        for (uint32_t j = 0; j < p->nb; j++) {
            sim_link *ab = link_at(w, p->a[i], p->b[j]), *ba = link_at(w, p->b[j], p->a[i]);
            if (delta > 0) {
                ab->blocks++;
                if (!p->one_way) ba->blocks++;
            } else {
                if (ab->blocks) ab->blocks--;
                if (!p->one_way && ba->blocks) ba->blocks--;
            }
        }
}

static int check_group(oxl_world *w, const char *call, const oxl_node_id *g, size_t n) {
    if (n == 0 || !g) return sim_misuse(w, call, "an empty group");
    for (size_t i = 0; i < n; i++)
        if (!sim_valid_node(w, g[i])) return sim_misuse(w, call, "unknown node %d", (int)g[i]);
    return OXL_OK;
}

/* A partition's label lists its sides by node name: "a,b|c"; a one-way
 * block's is "a>c". */
static uint32_t partition_label(oxl_world *w, const sim_partition *p) {
    size_t cap = ((size_t)p->na + p->nb) * (OXL_SIM_NAME_MAX + 1) + 2, len = 0;
    char *buf = sim_xmalloc(cap);
    for (uint32_t i = 0; i < p->na; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", w->nodes[p->a[i]].name);
    len += (size_t)snprintf(buf + len, cap - len, p->one_way ? ">" : "|");
    for (uint32_t i = 0; i < p->nb; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", w->nodes[p->b[i]].name);
    uint32_t id = sim_label_intern(&w->labels, buf);
    free(buf);
    return id;
}

typedef struct cut_sides {
    const oxl_node_id *a, *b;
    size_t na, nb;
    bool one_way;
} cut_sides;
static void cut_label(oxl_world *w, const void *arg, char *buf, size_t cap) {
    const cut_sides *c = arg;
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < c->na && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", w->nodes[c->a[i]].name);
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, c->one_way ? ">" : "|");
    for (size_t i = 0; i < c->nb && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", w->nodes[c->b[i]].name);
}

static void partition_add_now(oxl_world *w, const oxl_node_id *a, size_t na, const oxl_node_id *b, size_t nb,
                              oxl_dur_ns for_d, bool one_way);

/* A partition or timed block, at its chance of the fault log. */
static void partition_add(oxl_world *w, const oxl_node_id *a, size_t na, const oxl_node_id *b, size_t nb,
                          oxl_dur_ns for_d, bool one_way) {
    if (!sim_fault_gate(w, one_way ? OXL_FAULT_BLOCK : OXL_FAULT_PARTITION, true, w->now, &for_d, cut_label,
                        &(cut_sides){a, b, na, nb, one_way}))
        return;
    partition_add_now(w, a, na, b, nb, for_d, one_way);
}

/* Records a cut between a and b (one way: a -> b only), traced, and its
 * timed end when for_d > 0. Arguments were validated. */
static void partition_add_now(oxl_world *w, const oxl_node_id *a, size_t na, const oxl_node_id *b, size_t nb,
                              oxl_dur_ns for_d, bool one_way) {
    if (w->npartitions == w->partitions_cap) {
        w->partitions_cap = w->partitions_cap ? w->partitions_cap * 2 : 8;
        w->partitions = sim_xrealloc(w->partitions, w->partitions_cap * sizeof *w->partitions);
    }
    uint32_t idx = w->npartitions++;
    sim_partition *p = &w->partitions[idx];
    p->a = sim_xmalloc(na * sizeof *p->a);
    p->b = sim_xmalloc(nb * sizeof *p->b);
    memcpy(p->a, a, na * sizeof *a);
    memcpy(p->b, b, nb * sizeof *b);
    p->na = (uint32_t)na;
    p->nb = (uint32_t)nb;
    p->heal_epoch = w->heal_epoch;
    p->one_way = one_way;
    p->ended = false;
    p->since = w->now;
    p->until = for_d > 0 ? w->now + for_d : 0;
    partition_apply(w, p, +1);
    if (one_way)
        sim_trace_record(w, OXL_EV_BLOCK, a[0], b[0], w->next_seq, (uint64_t)for_d, partition_label(w, p));
    else
        sim_trace_record(w, OXL_EV_PARTITION, OXL_NO_NODE, OXL_NO_NODE, w->next_seq, (uint64_t)for_d,
                         partition_label(w, p));
    if (for_d > 0) {
        sim_event ev = {.type = SIM_UNBLOCK, .node = OXL_NO_NODE, .from = OXL_NO_NODE};
        ev.u.unblock.partition = idx;
        sim_schedule(w, w->now + for_d, &ev);
    }
}

int oxl_net_partition(oxl_world *w, const oxl_node_id *a, size_t na, const oxl_node_id *b, size_t nb,
                      oxl_dur_ns for_d) {
    static const char call[] = "oxl_net_partition";
    if (check_group(w, call, a, na) != OXL_OK || check_group(w, call, b, nb) != OXL_OK) return OXL_EMISUSE;
    if (for_d < 0) return sim_misuse(w, call, "negative duration %" PRId64 "ns", for_d);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (a[i] == b[j]) return sim_misuse(w, call, "node '%s' is on both sides", w->nodes[a[i]].name);
    partition_add(w, a, na, b, nb, for_d, false);
    return OXL_OK;
}

int oxl_net_isolate(oxl_world *w, oxl_node_id n, oxl_dur_ns for_d) {
    if (!sim_valid_node(w, n)) return sim_misuse(w, "oxl_net_isolate", "unknown node %d", (int)n);
    if (w->nnodes < 2) return OXL_OK;
    oxl_node_id *others = sim_xmalloc((size_t)w->nnodes * sizeof *others);
    size_t k = 0;
    for (oxl_node_id i = 0; i < w->nnodes; i++)
        if (i != n) others[k++] = i;
    int r = oxl_net_partition(w, &n, 1, others, k, for_d);
    free(others);
    return r;
}

void sim_net_unblock(oxl_world *w, uint32_t idx) {
    sim_partition *p = &w->partitions[idx];
    if (p->heal_epoch != w->heal_epoch) return; /* a heal came first */
    partition_apply(w, p, -1);
    p->ended = true;
    sim_trace_record(w, OXL_EV_HEAL, OXL_NO_NODE, OXL_NO_NODE, w->next_seq, idx, partition_label(w, p));
}

int oxl_net_block(oxl_world *w, oxl_node_id from, oxl_node_id to) {
    if (!sim_valid_node(w, from) || !sim_valid_node(w, to))
        return sim_misuse(w, "oxl_net_block", "unknown node %d", (int)(sim_valid_node(w, from) ? to : from));
    if (from == to) return sim_misuse(w, "oxl_net_block", "node '%s' cannot block itself", w->nodes[from].name);
    oxl_dur_ns forever = 0;
    if (!sim_fault_gate(w, OXL_FAULT_BLOCK, true, w->now, &forever, cut_label, &(cut_sides){&from, &to, 1, 1, true}))
        return OXL_OK;
    if (forever > 0) { /* a replay shortened it: a timed block */
        partition_add_now(w, &from, 1, &to, 1, forever, true);
        return OXL_OK;
    }
    link_at(w, from, to)->blocks++;
    sim_trace_record(w, OXL_EV_BLOCK, from, to, w->next_seq, 0, 0);
    return OXL_OK;
}

int oxl_net_block_for(oxl_world *w, oxl_node_id from, oxl_node_id to, oxl_dur_ns for_d) {
    static const char call[] = "oxl_net_block_for";
    if (!sim_valid_node(w, from) || !sim_valid_node(w, to))
        return sim_misuse(w, call, "unknown node %d", (int)(sim_valid_node(w, from) ? to : from));
    if (from == to) return sim_misuse(w, call, "node '%s' cannot block itself", w->nodes[from].name);
    if (for_d < 0) return sim_misuse(w, call, "negative duration %" PRId64 "ns", for_d);
    if (for_d == 0) return oxl_net_block(w, from, to); /* until oxl_net_heal, as oxl_net_block */
    partition_add(w, &from, 1, &to, 1, for_d, true);
    return OXL_OK;
}

void oxl_net_heal(oxl_world *w) {
    for (int f = 0; f < w->nnodes; f++)
        for (int t = 0; t < w->nnodes; t++) link_at(w, f, t)->blocks = 0;
    w->heal_epoch++;
    sim_trace_record(w, OXL_EV_HEAL, OXL_NO_NODE, OXL_NO_NODE, w->next_seq, 0, 0);
}

bool oxl_net_is_blocked(const oxl_world *w, oxl_node_id from, oxl_node_id to) {
    if (!sim_valid_node(w, from) || !sim_valid_node(w, to)) return false;
    return w->links[(size_t)from * (size_t)w->links_stride + (size_t)to].blocks != 0;
}
