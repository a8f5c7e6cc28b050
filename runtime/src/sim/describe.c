/* describe.c: what the World holds at one moment, for a failure report:
 * the messages in flight (sender, receiver, size, arrival), the links cut
 * by partitions and blocks, the nodes that are down. Read-only; ordered by
 * (arrival, tie) and node ids, never by an address. */
#include "sim_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIBE_MAX_MESSAGES 32

static int cmp_item(const void *a, const void *b) {
    const sim_heap_item *x = a, *y = b;
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
    sim_heap_item *msgs = sim_xmalloc((w->heap_len ? w->heap_len : 1) * sizeof *msgs);
    size_t n = 0;
    for (size_t i = w->heap_hole ? 1 : 0; i < w->heap_len; i++) /* a taken top is no longer queued */
        if (w->pool[w->heap[i].slot].type == SIM_DELIVER) msgs[n++] = w->heap[i];
    qsort(msgs, n, sizeof *msgs, cmp_item);
    for (size_t i = 0; i < n && i < DESCRIBE_MAX_MESSAGES; i++) {
        const sim_event *ev = &w->pool[msgs[i].slot];
        fprintf(out, "%smessage %s -> %s (%" PRIu32 " bytes) in flight, arriving at ", indent,
                oxl_world_node_name(w, ev->from), oxl_world_node_name(w, ev->node), ev->len);
        put_time(out, msgs[i].time);
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
