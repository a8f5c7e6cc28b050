/* describe.c: what the World holds at one moment, for a failure report:
 * the messages in flight (sender, receiver, size, arrival), the links cut
 * by partitions and blocks, the nodes that are down. Read-only; ordered by
 * (arrival, tie) and node ids, never by an address. */
#include "sim_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIBE_MAX_MESSAGES 32

typedef struct queued_msg {
    uint64_t time, tie;
    uint32_t slot;
} queued_msg;

static int cmp_msg(const void *a, const void *b) {
    const queued_msg *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static void put_time(FILE *out, oxl_time_ns t) {
    fprintf(out, "%" PRId64 ".%09" PRId64 "s", t / OXL_SEC, t % OXL_SEC);
}

void oxl_world_describe(const oxl_world *w, const char *indent, FILE *out) {
    if (!w || !out) return;
    if (!indent) indent = "";
    /* messages in flight, by arrival */
    const sim_evq *q = &w->queue;
    queued_msg *msgs = sim_xmalloc((q->len ? q->len : 1) * sizeof *msgs);
    size_t n = 0;
    for (uint32_t slot = 0; slot < q->used; slot++) {
        if (!sim_evq_queued(q, slot) || ((const sim_event *)sim_evq_payload(q, slot))->type != SIM_DELIVER) continue;
        msgs[n++] = (queued_msg){q->ent[slot].time, q->ent[slot].tie, slot};
    }
    qsort(msgs, n, sizeof *msgs, cmp_msg);
    for (size_t i = 0; i < n && i < DESCRIBE_MAX_MESSAGES; i++) {
        const sim_event *ev = sim_evq_payload(q, msgs[i].slot);
        fprintf(out, "%smessage %s -> %s (%" PRIu32 " bytes) in flight, arriving at ", indent,
                oxl_world_node_name(w, ev->from), oxl_world_node_name(w, ev->node), ev->len);
        put_time(out, (oxl_time_ns)msgs[i].time);
        fputc('\n', out);
    }
    if (n > DESCRIBE_MAX_MESSAGES) fprintf(out, "%s... and %zu more messages in flight\n", indent, n - DESCRIBE_MAX_MESSAGES);
    free(msgs);
    /* cut links, grouped by sender */
    for (oxl_node_id f = 0; f < w->nnodes; f++) {
        bool any = false;
        for (oxl_node_id t = 0; t < w->nnodes; t++) {
            if (t == f || !w->links[(size_t)f * (size_t)w->links_stride + (size_t)t].blocks) continue;
            if (!any) fprintf(out, "%slinks cut from %s to %s", indent, oxl_world_node_name(w, f), oxl_world_node_name(w, t));
            else fprintf(out, ", %s", oxl_world_node_name(w, t));
            any = true;
        }
        if (any) fputc('\n', out);
    }
    /* nodes down */
    for (oxl_node_id i = 0; i < w->nnodes; i++)
        if (!w->nodes[i].up)
            fprintf(out, "%snode %s is down (incarnation %" PRIu32 " was the last)\n", indent, w->nodes[i].name,
                    w->nodes[i].incarnation);
}
