/* describe.c: what the World holds at one moment, for a failure report:
 * the messages in flight (sender, receiver, size, arrival), the partitions
 * and one-way blocks in force (their sides, since when, until when), the
 * nodes that are down. Read-only; ordered by (arrival, tie), by the order
 * the cuts were made and by node ids, never by an address. */
#include "sim_internal.h"
#include "event_queue.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIBE_MAX_MESSAGES 32
#define DESCRIBE_MAX_CUTS 32      /* lines of partitions and blocks */
#define DESCRIBE_MAX_SIDE 16      /* node names of one side of a cut */

typedef struct queued_msg {
    sim_qkey key;
    uint32_t slot;
} queued_msg;

static int cmp_item(const void *a, const void *b) {
    const queued_msg *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void put_time(FILE *out, oxl_time_ns t) {
    fprintf(out, "%" PRId64 ".%09" PRId64 "s", t / OXL_SEC, t % OXL_SEC);
}

static void put_side(FILE *out, const oxl_world *w, const oxl_node_id *ids, uint32_t n) {
    for (uint32_t i = 0; i < n && i < DESCRIBE_MAX_SIDE; i++)
        fprintf(out, "%s%s", i ? "," : "", oxl_world_node_name(w, ids[i]));
    if (n > DESCRIBE_MAX_SIDE) fprintf(out, ",+%" PRIu32 " more", n - DESCRIBE_MAX_SIDE);
}

/* A cut made by oxl_net_partition, oxl_net_isolate or oxl_net_block_for
 * (or a block a replay shortened) that neither its timed end nor a heal
 * has lifted. */
static bool in_force(const oxl_world *w, const sim_partition *p) { return !p->ended && p->heal_epoch == w->heal_epoch; }

/* The partitions and blocks in force, by the order they were made:
 * "partition a,b|c since 1.000000000s, healing at 3.000000000s" (or
 * "until a heal"), "one-way block a>c since ..., lifting at ...". What the
 * links hold beyond those is oxl_net_block's, which has no end but a heal
 * and keeps no entry (it would cost a net.block in a loop memory): "one-way
 * block a>c,d until a heal", by sender. */
static void describe_cuts(const oxl_world *w, const char *indent, FILE *out) {
    size_t lines = 0, more = 0;
    size_t nlinks = (size_t)w->nnodes * (size_t)w->nnodes;
    uint32_t *made = NULL; /* made[f * nnodes + t]: cuts of link f -> t by the entries in force */
    for (uint32_t i = 0; i < w->npartitions; i++) {
        const sim_partition *p = &w->partitions[i];
        if (!in_force(w, p)) continue;
        if (!made) {
            made = sim_xmalloc((nlinks ? nlinks : 1) * sizeof *made);
            memset(made, 0, (nlinks ? nlinks : 1) * sizeof *made);
        }
        for (uint32_t x = 0; x < p->na; x++)
            for (uint32_t y = 0; y < p->nb; y++) {
                made[(size_t)p->a[x] * (size_t)w->nnodes + (size_t)p->b[y]]++;
                if (!p->one_way) made[(size_t)p->b[y] * (size_t)w->nnodes + (size_t)p->a[x]]++;
            }
        if (lines++ >= DESCRIBE_MAX_CUTS) {
            more++;
            continue;
        }
        fprintf(out, "%s%s ", indent, p->one_way ? "one-way block" : "partition");
        put_side(out, w, p->a, p->na);
        fputc(p->one_way ? '>' : '|', out);
        put_side(out, w, p->b, p->nb);
        fputs(" since ", out);
        put_time(out, p->since);
        if (p->until) {
            fputs(p->one_way ? ", lifting at " : ", healing at ", out);
            put_time(out, p->until);
        } else {
            fputs(", until a heal", out);
        }
        fputc('\n', out);
    }
    for (oxl_node_id f = 0; f < w->nnodes; f++) {
        uint32_t to = 0;
        for (oxl_node_id t = 0; t < w->nnodes; t++) {
            size_t k = (size_t)f * (size_t)w->nnodes + (size_t)t;
            uint32_t cuts = w->links[(size_t)f * (size_t)w->links_stride + (size_t)t].blocks;
            if (t == f || cuts <= (made ? made[k] : 0)) continue;
            if (to == 0 && lines++ >= DESCRIBE_MAX_CUTS) {
                more++;
                break;
            }
            if (to == 0)
                fprintf(out, "%sone-way block %s>%s", indent, oxl_world_node_name(w, f), oxl_world_node_name(w, t));
            else if (to < DESCRIBE_MAX_SIDE)
                fprintf(out, ",%s", oxl_world_node_name(w, t));
            to++;
        }
        if (to > DESCRIBE_MAX_SIDE) fprintf(out, ",+%" PRIu32 " more", to - DESCRIBE_MAX_SIDE);
        if (to) fputs(" until a heal\n", out);
    }
    free(made);
    if (more) fprintf(out, "%s... and %zu more partitions and blocks in force\n", indent, more);
}

void oxl_world_describe(const oxl_world *w, const char *indent, FILE *out) {
    if (!w || !out) return;
    if (!indent) indent = "";
    /* messages in flight, by arrival */
    queued_msg *msgs = sim_xmalloc((w->queued ? w->queued : 1) * sizeof *msgs);
    size_t n = 0;
    for (uint32_t s = 0; s < w->pool_len; s++) /* a taken top is no longer queued */
        if (sim_queue_holds(w, s) && w->pool[s].type == SIM_DELIVER) msgs[n++] = (queued_msg){sim_queue_key(w, s), s};
    qsort(msgs, n, sizeof *msgs, cmp_item);
    for (size_t i = 0; i < n && i < DESCRIBE_MAX_MESSAGES; i++) {
        const sim_event *ev = &w->pool[msgs[i].slot];
        fprintf(out, "%smessage %s -> %s (%" PRIu32 " bytes) in flight, arriving at ", indent,
                oxl_world_node_name(w, ev->from), oxl_world_node_name(w, ev->node), ev->len);
        put_time(out, (oxl_time_ns)(uint64_t)(msgs[i].key >> 64));
        fputc('\n', out);
    }
    if (n > DESCRIBE_MAX_MESSAGES) fprintf(out, "%s... and %zu more messages in flight\n", indent, n - DESCRIBE_MAX_MESSAGES);
    free(msgs);
    describe_cuts(w, indent, out);
    /* nodes down */
    for (oxl_node_id i = 0; i < w->nnodes; i++)
        if (!w->nodes[i].up)
            fprintf(out, "%snode %s is down (incarnation %" PRIu32 " was the last)\n", indent, w->nodes[i].name,
                    w->nodes[i].incarnation);
}
