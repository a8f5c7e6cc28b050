/* test_trace_dump.c: OXL_SIM_TRACE_TEXT=<file>: a sim seed's whole trace,
 * for the runner's trace diff (docs/testing.md, "Where a failing seed parted
 * from a passing one"). The events are formatted into memory as the World
 * records them (an observer: the run and its hash are the same with or
 * without it) and written to the file only after the run has ended, when
 * the fence is disarmed. */
#include "test_trace_dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(test_dump *d, const char *s, size_t n) {
    if (d->len + n + 1 > d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1 << 16;
        while (cap < d->len + n + 1) cap *= 2;
        char *b = realloc(d->buf, cap);
        if (!b) {
            fputs("error: OXL_SIM_TRACE_TEXT: out of memory\n", stderr);
            abort();
        }
        d->buf = b;
        d->cap = cap;
    }
    memcpy(d->buf + d->len, s, n);
    d->len += n;
    d->buf[d->len] = 0;
}

static void on_event(const oxl_world *w, const oxl_trace_event *ev, void *arg) {
    test_dump *d = arg;
    if (d->events >= TEST_DUMP_MAX_EVENTS) {
        d->cut = true;
        return;
    }
    char line[512];
    size_t n = oxl_world_trace_format(w, ev, line, sizeof line - 1);
    line[n++] = '\n';
    add(d, line, n);
    d->events++;
}

bool test_dump_from_env(test_dump *d) {
    memset(d, 0, sizeof *d);
    const char *p = getenv("OXL_SIM_TRACE_TEXT");
    if (!p) return true;
    if (!*p) {
        fputs("error: OXL_SIM_TRACE_TEXT is set but empty: it names the file for the trace\n", stderr);
        return false;
    }
    d->path = p;
    return true;
}

void test_dump_attach(test_dump *d, oxl_world *w) {
    if (!d->path) return;
    /* what the world recorded as it was made, then the rest as it comes */
    oxl_trace_event ev;
    for (uint64_t i = 0; i < oxl_world_trace_count(w); i++)
        if (oxl_world_trace_event(w, i, &ev)) on_event(w, &ev, d);
    oxl_world_set_trace_hook(w, on_event, d);
}

bool test_dump_write(test_dump *d, uint64_t seed, const char *policy, uint64_t trace_hash, uint64_t events) {
    if (!d->path) return true;
    /* the run's events only: a borrowed world records its nodes' kills
     * at the teardown, after the hash was taken */
    size_t keep = 0;
    uint64_t kept = 0;
    while (keep < d->len && strtoull(d->buf + keep + 1, NULL, 10) < events) { /* "#<index> ..." */
        const char *nl = memchr(d->buf + keep, '\n', d->len - keep);
        keep = nl ? (size_t)(nl - d->buf) + 1 : d->len;
        kept++;
    }
    d->len = keep;
    d->events = kept;
    d->cut = events > kept;
    FILE *f = fopen(d->path, "w");
    if (!f) {
        fprintf(stderr, "error: OXL_SIM_TRACE_TEXT='%s' cannot be written: %s\n", d->path, strerror(errno));
        return false;
    }
    fprintf(f, "oxl-trace 1 seed=%" PRIu64 " policy=%s trace=%016" PRIx64 " events=%" PRIu64 "%s\n", seed, policy,
            trace_hash, d->events, d->cut ? " cut" : "");
    if (d->len) fwrite(d->buf, 1, d->len, f);
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "error: OXL_SIM_TRACE_TEXT='%s' cannot be written: %s\n", d->path, strerror(errno));
    return ok;
}

void test_dump_free(test_dump *d) {
    free(d->buf);
    d->buf = NULL;
    d->len = d->cap = 0;
}
