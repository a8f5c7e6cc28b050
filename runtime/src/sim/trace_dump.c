/* trace_dump.c: the whole trace of a run, kept through a trace hook and
 * written after the run as one tab-separated line per event (the format
 * of docs/test-binary.md, "The trace dump"), for tools that draw or
 * compare a run (`oxl test --timeline`, the runner's trace diff).
 *
 * The World's ring keeps only the last trace_capacity events; the dump
 * keeps every one (up to OXL_TRACE_DUMP_MAX_EVENTS) with copies of the
 * label texts and node names it needs, so it outlives the World. It reads
 * nothing outside the process and writes only when asked, after the run. */
#include "sim_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct dump_event {
    uint64_t index, seq, arg;
    oxl_time_ns time;
    oxl_node_id node, peer;
    uint32_t label;
    int32_t site_line;
    const char *site_file; /* a spawn's site: static text of the program */
    size_t text;           /* its line as the trace tail prints it, at text[text] */
    uint8_t kind;
} dump_event;

struct oxl_trace_dump {
    dump_event *ev;
    size_t n, cap;
    uint64_t dropped; /* events past the limit */
    uint64_t total;   /* events the World recorded while the hook was on */
    char **labels;    /* copies, by label id */
    uint32_t nlabels, labels_cap;
    char **nodes; /* copies, by node id */
    int nnodes;
    uint32_t spawn_label; /* the scheduler's "spawn" label, 0 until seen */
    char *text;           /* the events' lines, each NUL-terminated */
    size_t text_len, text_cap;
};

oxl_trace_dump *oxl_trace_dump_new(void) { return sim_xcalloc(1, sizeof(oxl_trace_dump)); }

void oxl_trace_dump_free(oxl_trace_dump *d) {
    if (!d) return;
    for (uint32_t i = 0; i < d->nlabels; i++) free(d->labels[i]);
    for (int i = 0; i < d->nnodes; i++) free(d->nodes[i]);
    free(d->labels);
    free(d->nodes);
    free(d->ev);
    free(d->text);
    free(d);
}

static char *dup_text(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = sim_xmalloc(n);
    memcpy(c, s, n);
    return c;
}

/* Labels are interned in first-use order and never removed: copying the
 * new ones at each event keeps the copies complete. */
static void copy_new_labels(oxl_trace_dump *d, const oxl_world *w) {
    if (w->labels.count <= d->nlabels) return;
    if (w->labels.count > d->labels_cap) {
        d->labels_cap = w->labels.count * 2;
        d->labels = sim_xrealloc(d->labels, d->labels_cap * sizeof *d->labels);
    }
    for (uint32_t i = d->nlabels; i < w->labels.count; i++) {
        d->labels[i] = dup_text(w->labels.items[i].text);
        if (!d->spawn_label && strcmp(d->labels[i], "spawn") == 0) d->spawn_label = i;
    }
    d->nlabels = w->labels.count;
}

static void copy_new_nodes(oxl_trace_dump *d, const oxl_world *w) {
    int n = oxl_world_node_count(w);
    if (n <= d->nnodes) return;
    d->nodes = sim_xrealloc(d->nodes, (size_t)n * sizeof *d->nodes);
    for (int i = d->nnodes; i < n; i++) d->nodes[i] = dup_text(oxl_world_node_name(w, i));
    d->nnodes = n;
}

void oxl_trace_dump_hook(const oxl_world *w, const oxl_trace_event *e, void *arg) {
    oxl_trace_dump *d = arg;
    copy_new_labels(d, w);
    copy_new_nodes(d, w);
    d->total = e->index + 1;
    if (d->n >= OXL_TRACE_DUMP_MAX_EVENTS) {
        d->dropped++;
        return;
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 1024;
        d->ev = sim_xrealloc(d->ev, d->cap * sizeof *d->ev);
    }
    dump_event *x = &d->ev[d->n++];
    x->index = e->index;
    x->seq = e->seq;
    x->arg = e->arg;
    x->time = e->time;
    x->node = e->node;
    x->peer = e->peer;
    x->label = e->label < d->nlabels ? e->label : 0;
    x->kind = e->kind;
    x->site_file = NULL;
    x->site_line = 0;
    if (e->kind == OXL_EV_TASK && d->spawn_label && e->label == d->spawn_label && w->trace_site_file) {
        x->site_file = w->trace_site_file;
        x->site_line = w->trace_site_line;
    }
    char line[512];
    size_t n = oxl_world_trace_format(w, e, line, sizeof line);
    if (n >= sizeof line) n = sizeof line - 1;
    if (d->text_len + n + 1 > d->text_cap) {
        d->text_cap = d->text_cap ? d->text_cap * 2 : 1 << 16;
        while (d->text_cap < d->text_len + n + 1) d->text_cap *= 2;
        d->text = sim_xrealloc(d->text, d->text_cap);
    }
    x->text = d->text_len;
    memcpy(d->text + d->text_len, line, n);
    d->text[d->text_len + n] = '\0';
    d->text_len += n + 1;
}

/* The dump's escapes: backslash, tab, newline and carriage return, so a
 * field is one field and a line one line. */
static void put_field(const char *s, FILE *out) {
    for (; *s; s++) {
        switch (*s) {
        case '\\': fputs("\\\\", out); break;
        case '\t': fputs("\\t", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        default: putc(*s, out);
        }
    }
}

static void put_node(const oxl_trace_dump *d, oxl_node_id n, FILE *out) {
    if (n == OXL_NO_NODE || n < 0 || n >= d->nnodes) {
        putc('-', out);
        return;
    }
    put_field(d->nodes[n], out);
}

size_t oxl_trace_dump_events(const oxl_trace_dump *d) { return d->n; }

bool oxl_trace_dump_write(const oxl_trace_dump *d, uint64_t seed, const oxl_trace_dump_result *res, FILE *out) {
    fprintf(out, "oxl-trace-dump\t%d\n", OXL_TRACE_DUMP_VERSION);
    fprintf(out, "seed\t%" PRIu64 "\n", seed);
    for (int i = 0; i < d->nnodes; i++) {
        fprintf(out, "node\t%d\t", i);
        put_field(d->nodes[i], out);
        putc('\n', out);
    }
    for (size_t i = 0; i < d->n; i++) {
        const dump_event *x = &d->ev[i];
        fprintf(out, "event\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%s\t", x->index, x->time, x->seq,
                oxl_trace_kind_name(x->kind));
        put_node(d, x->node, out);
        putc('\t', out);
        put_node(d, x->peer, out);
        fprintf(out, "\t%" PRIu64 "\t", x->arg);
        put_field(x->label < d->nlabels ? d->labels[x->label] : "", out);
        putc('\t', out);
        if (x->site_file) {
            put_field(x->site_file, out);
            if (x->site_line > 0) fprintf(out, ":%d", (int)x->site_line);
        } else {
            putc('-', out);
        }
        putc('\t', out);
        put_field(d->text + x->text, out);
        putc('\n', out);
    }
    if (d->dropped) fprintf(out, "truncated\t%" PRIu64 "\n", d->dropped);
    fprintf(out, "result\t%s\t%" PRId64 "\t%016" PRIx64 "\t%" PRIu64 "\t", res->status, res->end_time, res->trace_hash,
            d->total);
    put_field(res->report ? res->report : "", out);
    fputs("\nend\n", out);
    return !ferror(out);
}
