/* tr_dumpread.c: a trace dump (OXL_SIM_TRACE_DUMP, docs/test-binary.md,
 * The trace dump) read back, for the timeline and the trace diff. The
 * fields point into the dump's text, split at the tabs and unescaped in
 * place. */
#include "tr_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DUMP_MAX_FIELDS 11 /* an event line's, and one more to see a longer one */

/* Splits a line at its tabs, undoing the dump's escapes in place. */
static size_t split_fields(char *line, char **f, size_t max) {
    size_t n = 0;
    char *w = line, *start = line;
    for (char *p = line;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            *w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
            continue;
        }
        if (*p == '\t' || *p == '\0') {
            bool end = *p == '\0';
            *w = '\0';
            if (n < max) f[n++] = start;
            if (end) break;
            start = w = p + 1;
            continue;
        }
        *w++ = *p;
    }
    return n;
}

/* A field taken as a count: decimal digits only (JSON and strtoull both
 * read it as written). */
static bool is_count(const char *s) {
    if (!*s || strlen(s) > 20) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

static bool fail(tr_dump *d, char *why, size_t cap, const char *what, size_t lineno) {
    if (lineno) snprintf(why, cap, "line %zu of its trace dump %s", lineno, what);
    else snprintf(why, cap, "its trace dump %s", what);
    tr_dump_free(d);
    return false;
}

static bool event_line(tr_dump *d, char *line, size_t *cap) {
    char *f[DUMP_MAX_FIELDS];
    if (split_fields(line, f, DUMP_MAX_FIELDS) != 11) return false;
    for (int k = 1; k <= 3; k++)
        if (!is_count(f[k])) return false;
    if (!is_count(f[7])) return false;
    if (d->nev == *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        d->ev = tr_xrealloc(d->ev, *cap * sizeof *d->ev);
    }
    tr_dump_event *e = &d->ev[d->nev++];
    e->index = f[1];
    e->time = strtoll(f[2], NULL, 10);
    e->time_text = f[2];
    e->seq = f[3];
    e->kind = f[4];
    e->node = f[5];
    e->peer = f[6];
    e->arg = f[7];
    e->label = f[8];
    e->site = f[9];
    e->text = f[10];
    return true;
}

bool tr_dump_read(const char *path, size_t max_bytes, tr_dump *d, char *why, size_t cap) {
    memset(d, 0, sizeof *d);
    size_t len;
    d->text = tr_read_all(path, max_bytes, &len);
    if (!d->text) {
        struct stat st;
        if (stat(path, &st) == 0) snprintf(why, cap, "its trace dump is larger than %zu MiB", max_bytes >> 20);
        else snprintf(why, cap, "it wrote no trace dump");
        return false;
    }
    size_t lineno = 0, ev_cap = 0;
    bool ended = false;
    for (char *line = d->text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *f[DUMP_MAX_FIELDS];
        if (lineno == 1) {
            size_t n = split_fields(line, f, DUMP_MAX_FIELDS);
            if (n != 2 || strcmp(f[0], "oxl-trace-dump") != 0 || strcmp(f[1], TR_DUMP_VERSION) != 0)
                return fail(d, why, cap, "is not one of version " TR_DUMP_VERSION, 0);
            continue;
        }
        if (ended) return fail(d, why, cap, "goes on after its end", lineno);
        if (strncmp(line, "event\t", 6) == 0) {
            if (!event_line(d, line, &ev_cap)) return fail(d, why, cap, "is a malformed event", lineno);
            continue;
        }
        size_t n = split_fields(line, f, DUMP_MAX_FIELDS);
        if (strcmp(f[0], "node") == 0 && n == 3) {
            d->nodes = tr_xrealloc(d->nodes, (d->nnodes + 1) * sizeof *d->nodes);
            d->nodes[d->nnodes++] = f[2];
        } else if (strcmp(f[0], "truncated") == 0 && n == 2) {
            if (!tr_parse_u64(f[1], &d->truncated)) return fail(d, why, cap, "has a bad truncated count", lineno);
        } else if (strcmp(f[0], "result") == 0 && n == 6) {
            if (!tr_parse_u64(f[4], &d->total)) return fail(d, why, cap, "has a bad event count", lineno);
            d->status = f[1];
            d->end_time = strtoll(f[2], NULL, 10);
            d->hash = f[3];
            d->report = f[5];
        } else if (strcmp(f[0], "end") == 0 && n == 1) {
            ended = true;
        } else if (strcmp(f[0], "seed") != 0 || n != 2) {
            return fail(d, why, cap, "is malformed", lineno);
        }
    }
    if (lineno == 0) return fail(d, why, cap, "is empty", 0);
    if (!ended || !d->status) return fail(d, why, cap, "ends early (the run did not finish writing it)", 0);
    return true;
}

int tr_dump_node(const tr_dump *d, const char *name) {
    if (strcmp(name, "-") == 0) return -1;
    for (size_t i = 0; i < d->nnodes; i++)
        if (strcmp(d->nodes[i], name) == 0) return (int)i;
    return -1;
}

void tr_dump_free(tr_dump *d) {
    free(d->nodes);
    free(d->ev);
    free(d->text);
    memset(d, 0, sizeof *d);
}
