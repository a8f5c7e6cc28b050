/* tr_explain.c: what explains a failing sim seed beyond its output
 * (docs/testing.md, Explaining a failure): the "what everyone was doing"
 * section of its stderr, taken apart for the reports, and the trace diff
 * against the last seed of the same test that passed: both seeds run once
 * more with OXL_SIM_TRACE_DUMP (docs/test-binary.md), compared event by
 * event by kind and label, never by time or sequence. All of it runs only
 * for a failing seed: a run that passes costs nothing here. */
#include "tr_internal.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TR_DOING_HEADER "what everyone was doing at "
#define TR_DUMP_MAX_BYTES (256u << 20) /* of one trace dump read back */
#define TR_DIFF_CONTEXT 8              /* common events shown before the parting one, at most */

/* ---- what everyone was doing ---- */

/* The section: its header line and the indented lines under it, up to
 * the first line that is not indented. NULL when there is none. */
static const char *doing_start(const tr_item *it, const char **end) {
    if (!it->err) return NULL;
    /* the last one: the runtime's report comes after what the test printed */
    const char *p = NULL;
    for (const char *q = it->err; (q = strstr(q, TR_DOING_HEADER)); q++)
        if (q == it->err || q[-1] == '\n') p = q;
    if (!p) return NULL;
    const char *e = strchr(p, '\n');
    while (e && e[1] == ' ' && e[2] == ' ') e = strchr(e + 1, '\n');
    *end = e ? e : p + strlen(p);
    return p;
}

void tr_doing_text(const tr_item *it, tr_buf *b) {
    const char *end, *p = doing_start(it, &end);
    if (p) tr_buf_add(b, p, (size_t)(end - p));
}

/* "task 6 on api-0: receiving from channel 1 at case.oxl:24" */
static bool task_line(const char *s, size_t n, tr_buf *b) {
    char *line = tr_xmalloc(n + 1);
    memcpy(line, s, n);
    line[n] = 0;
    uint64_t id;
    char *p = line + 5, *colon = strstr(line, ": "), *on = strstr(line, " on "), *at = NULL;
    for (char *q = colon; q && (q = strstr(q, " at ")); q++) at = q;
    bool ok = strncmp(line, "task ", 5) == 0 && on && colon && on < colon && at;
    if (ok) {
        *on = 0;
        ok = tr_parse_u64(p, &id);
    }
    if (ok) {
        *colon = 0;
        *at = 0;
        tr_buf_printf(b, "{\"id\":%" PRIu64 ",\"node\":", id);
        tr_json_str(b, on + 4);
        tr_buf_puts(b, ",\"state\":");
        tr_json_str(b, colon + 2);
        tr_buf_puts(b, ",\"at\":");
        tr_json_str(b, at + 4);
        tr_buf_puts(b, "}");
    }
    free(line);
    return ok;
}

/* "... and 47 more tasks", "... and 8 more messages in flight", "... and 8
 * more partitions and blocks in force": the runtime's lines for what its
 * caps left out (runtime/src/sched/sched.c, runtime/src/sim/describe.c),
 * counted into o. False for any other line. */
static bool omitted_line(const char *s, size_t n, tr_doing_omitted *o) {
    static const char head[] = "... and ";
    static const struct {
        const char *tail;
        size_t at;
    } kinds[] = {{" more tasks", offsetof(tr_doing_omitted, tasks)},
                 {" more messages in flight", offsetof(tr_doing_omitted, messages)},
                 {" more partitions and blocks in force", offsetof(tr_doing_omitted, cuts)}};
    if (n <= sizeof head - 1 || strncmp(s, head, sizeof head - 1) != 0) return false;
    size_t d = sizeof head - 1, e = d;
    while (e < n && s[e] >= '0' && s[e] <= '9') e++;
    if (e == d || e - d > 19) return false;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        size_t tn = strlen(kinds[k].tail);
        if (n - e != tn || strncmp(s + e, kinds[k].tail, tn) != 0) continue;
        uint64_t v = 0;
        for (size_t i = d; i < e; i++) v = v * 10 + (uint64_t)(s[i] - '0');
        *(uint64_t *)((char *)o + kinds[k].at) += v;
        return true;
    }
    return false;
}

bool tr_doing_omitted_of(const tr_item *it, tr_doing_omitted *o) {
    memset(o, 0, sizeof *o);
    const char *end, *p = doing_start(it, &end);
    if (!p) return false;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    for (const char *l = eol; l && l < end; l = eol) {
        l += 1; /* the newline */
        eol = memchr(l, '\n', (size_t)(end - l));
        if (!eol) eol = end;
        if (eol - l > 2) omitted_line(l + 2, (size_t)(eol - l - 2), o); /* past the indent */
    }
    return true;
}

void tr_doing_json(const tr_item *it, tr_buf *b) {
    const char *end, *p = doing_start(it, &end);
    if (!p) {
        tr_buf_puts(b, "null");
        return;
    }
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    /* "what everyone was doing at 1.010000000s of virtual time:" */
    const char *t = p + strlen(TR_DOING_HEADER);
    const char *sp = memchr(t, ' ', (size_t)(eol - t));
    tr_buf_puts(b, "{\"at\":");
    char *at = tr_xmalloc((size_t)(eol - t) + 1);
    size_t an = sp ? (size_t)(sp - t) : 0;
    memcpy(at, t, an);
    at[an] = 0;
    tr_json_str(b, at);
    free(at);
    tr_buf world = {0}, tasks = {0};
    tr_doing_omitted omitted = {0};
    for (const char *l = eol; l < end; l = eol) {
        l += 1; /* the newline */
        eol = memchr(l, '\n', (size_t)(end - l));
        if (!eol) eol = end;
        const char *s = l + 2; /* the indent */
        size_t n = eol > s ? (size_t)(eol - s) : 0;
        if (n == 0) continue;
        if (omitted_line(s, n, &omitted)) continue; /* counts of their own, never a line of the world */
        tr_buf *into = &world;
        tr_buf one = {0};
        if (task_line(s, n, &one)) into = &tasks;
        if (into->len) tr_buf_puts(into, ",");
        if (into == &tasks) {
            tr_buf_add(into, one.s, one.len);
        } else {
            char *text = tr_xmalloc(n + 1);
            memcpy(text, s, n);
            text[n] = 0;
            tr_json_str(into, text);
            free(text);
        }
        tr_buf_free(&one);
    }
    tr_buf_printf(b,
                  ",\"tasks\":[%s],\"tasks_omitted\":%" PRIu64 ",\"world\":[%s],\"messages_omitted\":%" PRIu64
                  ",\"cuts_omitted\":%" PRIu64 "}",
                  tasks.s ? tasks.s : "", omitted.tasks, world.s ? world.s : "", omitted.messages, omitted.cuts);
    tr_buf_free(&tasks);
    tr_buf_free(&world);
}

/* ---- the trace diff ---- */

/* An event as the diff compares it: kind and label (with the nodes, as
 * the trace tail prints them), never its index, time or sequence. */
typedef struct dump_event {
    const char *line; /* the whole line, as the trace tail prints it */
    const char *key;  /* from the kind on */
    int64_t time;     /* nanoseconds */
} dump_event;

typedef struct dump {
    tr_dump file;
    dump_event *ev;
    size_t n;
    bool cut;
} dump;

static bool network_kind(const char *key) {
    static const char *const kinds[] = {"send ", "deliver ", "drop ", "duplicate ", "partition ", "block ", "heal ", "rpc "};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strncmp(key, kinds[i], strlen(kinds[i])) == 0) return true;
    return false;
}

/* "#12 @1.000000000s seq=3 task      run task 4 on api-0": from "task" on */
static const char *event_key(const char *text) {
    const char *p = strstr(text, " seq=");
    if (!p || !(p = strchr(p + 1, ' '))) return NULL;
    while (*p == ' ') p++;
    return p;
}

/* Reads a dump the test binary wrote; false (why filled) when it cannot. */
static bool read_dump(const char *path, dump *d, char *why, size_t cap) {
    memset(d, 0, sizeof *d);
    if (!tr_dump_read(path, TR_DUMP_MAX_BYTES, &d->file, why, cap)) return false;
    d->cut = d->file.truncated > 0;
    d->ev = tr_xmalloc((d->file.nev + 1) * sizeof *d->ev);
    for (size_t i = 0; i < d->file.nev; i++) {
        const tr_dump_event *e = &d->file.ev[i];
        dump_event *x = &d->ev[d->n++];
        x->line = e->text;
        x->time = e->time;
        if (!(x->key = event_key(e->text))) {
            snprintf(why, cap, "event %zu of its trace dump has no kind", i);
            free(d->ev);
            tr_dump_free(&d->file);
            return false;
        }
    }
    return true;
}

static void free_dump(dump *d) {
    free(d->ev);
    tr_dump_free(&d->file);
}

/* Where two event sequences part: how many agree from the start, the
 * first events that differ (NULL: that sequence ended), and the common
 * events before them from the nearest network event or clock advance. */
typedef struct tr_part {
    uint64_t common;
    char *fail_ev, *pass_ev;
    char **context;
    size_t ncontext;
    bool early;       /* no network event or clock advance before the part */
    bool context_cut; /* more than TR_DIFF_CONTEXT of them: the last ones */
} tr_part;

struct tr_trace_diff {
    bool compared;     /* both traces were had */
    bool no_passing;   /* no seed of the test passed before the failing one */
    uint64_t fail_seed, pass_seed;
    char why[512];     /* when !compared and !no_passing: why not */
    uint64_t nfail, npass;
    bool cut;          /* a dump had only the first events of its run */
    tr_part all;       /* every event */
    bool has_beyond;   /* they part at a task event: */
    tr_part beyond;    /*   the same without task events (spawns, wakes, ends) */
};

/* The events of a dump to compare: all, or all but task events. */
typedef struct seq {
    const dump *d;
    size_t *idx;
    size_t n;
} seq;

static void make_seq(const dump *d, bool tasks, seq *q) {
    q->d = d;
    q->idx = tr_xmalloc((d->n + 1) * sizeof *q->idx);
    q->n = 0;
    for (size_t i = 0; i < d->n; i++)
        if (tasks || strncmp(d->ev[i].key, "task ", 5) != 0) q->idx[q->n++] = i;
}

static const dump_event *at(const seq *q, size_t i) { return &q->d->ev[q->idx[i]]; }

/* A network event, or the first of a later virtual time. */
static bool is_anchor(const seq *q, size_t i) {
    return network_kind(at(q, i)->key) || (i > 0 && at(q, i)->time != at(q, i - 1)->time);
}

static void compare_part(const seq *f, const seq *p, tr_part *pt) {
    size_t n = f->n < p->n ? f->n : p->n, k = 0;
    while (k < n && strcmp(at(f, k)->key, at(p, k)->key) == 0) k++;
    pt->common = k;
    pt->fail_ev = k < f->n ? tr_xstrdup(at(f, k)->line) : NULL;
    pt->pass_ev = k < p->n ? tr_xstrdup(at(p, k)->line) : NULL;
    size_t a = k;
    while (a > 0 && !is_anchor(f, a - 1)) a--;
    /* an early part (in the opening bookkeeping): no context before it */
    pt->early = a == 0;
    if (a > 0) a--; /* the anchor itself */
    if (k - a > TR_DIFF_CONTEXT) {
        a = k - TR_DIFF_CONTEXT;
        pt->context_cut = true;
    }
    pt->ncontext = pt->early ? 0 : k - a;
    pt->context = tr_xmalloc((pt->ncontext + 1) * sizeof *pt->context);
    for (size_t i = 0; i < pt->ncontext; i++) pt->context[i] = tr_xstrdup(at(f, a + i)->line);
}

static void free_part(tr_part *pt) {
    free(pt->fail_ev);
    free(pt->pass_ev);
    for (size_t i = 0; i < pt->ncontext; i++) free(pt->context[i]);
    free(pt->context);
}

static void compare(tr_trace_diff *df, const dump *f, const dump *p) {
    df->compared = true;
    df->nfail = f->n;
    df->npass = p->n;
    df->cut = f->cut || p->cut;
    seq fa, pa;
    make_seq(f, true, &fa);
    make_seq(p, true, &pa);
    compare_part(&fa, &pa, &df->all);
    /* two seeds often part in task bookkeeping (which task a policy ran
     * first) long before anything a reader looks for: then the same
     * without task events, where a drop or a timeout shows */
    size_t k = df->all.common;
    bool task_part = (k < f->n && strncmp(f->ev[k].key, "task ", 5) == 0) ||
                     (k < p->n && strncmp(p->ev[k].key, "task ", 5) == 0);
    if (task_part) {
        seq fb, pb;
        make_seq(f, false, &fb);
        make_seq(p, false, &pb);
        df->has_beyond = true;
        compare_part(&fb, &pb, &df->beyond);
        free(fb.idx);
        free(pb.idx);
    }
    free(fa.idx);
    free(pa.idx);
}

typedef struct dump_ctx {
    bool done;
    tr_item item;
} dump_ctx;

static void dump_done(tr_runner *r, tr_item *it, uint64_t pos, void *ctx) {
    (void)r, (void)pos;
    dump_ctx *c = ctx;
    c->done = true;
    c->item = *it;
    it->out = it->err = NULL;
}

/* Runs seed of t once with its trace dumped to path. */
static bool run_dumped(tr_runner *r, const tr_test *t, uint64_t seed, const char *path, char *why, size_t cap) {
    tr_gen one;
    memset(&one, 0, sizeof one);
    uint64_t s = seed;
    one.test = t;
    one.pre = &s;
    one.npre = 1;
    one.all_shards = true;
    dump_ctx c = {0};
    r->trace_dump = path;
    tr_run_batch(r, &one, false, 1, NULL, dump_done, &c);
    r->trace_dump = NULL;
    tr_free_item(&c.item);
    if (!c.done) snprintf(why, cap, "its run was interrupted");
    else if (c.item.res != TR_RES_PASS) snprintf(why, cap, "it did not pass when run again");
    return c.done && c.item.res == TR_RES_PASS;
}

void tr_trace_dump_path(tr_runner *r, const char *what, char *buf, size_t cap) {
    tr_pathf(buf, cap, "%s/trace-%s-%lu", r->tmp, what, ++r->counter);
}

void tr_explain_failure(tr_runner *r, tr_outcome *oc, const char *fail_dump) {
    tr_trace_diff *df = tr_xmalloc(sizeof *df);
    memset(df, 0, sizeof *df);
    oc->diff = df;
    df->fail_seed = oc->fail.seed;
    if (!oc->has_passed_seed) {
        df->no_passing = true;
        unlink(fail_dump);
        return;
    }
    df->pass_seed = oc->passed_seed;
    dump f, p;
    char why[256];
    if (!read_dump(fail_dump, &f, why, sizeof why)) {
        snprintf(df->why, sizeof df->why, "no trace of seed %" PRIu64 ": %s", df->fail_seed, why);
        unlink(fail_dump);
        return;
    }
    unlink(fail_dump);
    char pass_dump[TR_PATH];
    tr_trace_dump_path(r, "pass", pass_dump, sizeof pass_dump);
    if (!run_dumped(r, oc->test, df->pass_seed, pass_dump, why, sizeof why) ||
        !read_dump(pass_dump, &p, why, sizeof why)) {
        snprintf(df->why, sizeof df->why, "no trace of seed %" PRIu64 ": %s", df->pass_seed, why);
        free_dump(&f);
        unlink(pass_dump);
        return;
    }
    unlink(pass_dump);
    compare(df, &f, &p);
    free_dump(&f);
    free_dump(&p);
}

void tr_explain_free(tr_outcome *oc) {
    tr_trace_diff *df = oc->diff;
    if (!df) return;
    free_part(&df->all);
    free_part(&df->beyond);
    free(df);
    oc->diff = NULL;
}

static void part_text(const tr_trace_diff *df, const tr_part *pt, tr_buf *b) {
    if (pt->early) tr_buf_puts(b, "\n  they part before any network event or clock advance");
    else if (pt->ncontext)
        tr_buf_puts(b, pt->context_cut ? "\n  the last common events, after the nearest network event or clock advance:"
                                       : "\n  from the nearest network event or clock advance:");
    for (size_t i = 0; i < pt->ncontext; i++) tr_buf_printf(b, "\n    %s", pt->context[i]);
    if (pt->fail_ev) tr_buf_printf(b, "\n  seed %" PRIu64 " (failed) goes on with: %s", df->fail_seed, pt->fail_ev);
    else tr_buf_printf(b, "\n  seed %" PRIu64 " (failed) ends there", df->fail_seed);
    if (pt->pass_ev) tr_buf_printf(b, "\n  seed %" PRIu64 " (passed) goes on with: %s", df->pass_seed, pt->pass_ev);
    else tr_buf_printf(b, "\n  seed %" PRIu64 " (passed) ends there", df->pass_seed);
}

void tr_diff_text(const tr_outcome *oc, tr_buf *b) {
    const tr_trace_diff *df = oc->diff;
    if (!df) return;
    if (df->no_passing) {
        tr_buf_printf(b, "trace diff: no seed of this test passed before seed %" PRIu64 " in this run: nothing to compare",
                      df->fail_seed);
        return;
    }
    if (!df->compared) {
        tr_buf_printf(b, "trace diff: against seed %" PRIu64 ", not made: %s", df->pass_seed, df->why);
        return;
    }
    tr_buf_printf(b,
                  "trace diff: seed %" PRIu64 " (%" PRIu64 " events) against seed %" PRIu64 " (%" PRIu64
                  " events), the last that passed: the first %" PRIu64 " events agree by kind and label",
                  df->fail_seed, df->nfail, df->pass_seed, df->npass, df->all.common);
    if (df->cut)
        tr_buf_printf(b, " (a trace was cut at its first %u,%03u,%03u events: only those were compared)",
                      TR_DUMP_MAX_EVENTS / 1000000, TR_DUMP_MAX_EVENTS / 1000 % 1000, TR_DUMP_MAX_EVENTS % 1000);
    if (!df->all.fail_ev && !df->all.pass_ev) {
        tr_buf_puts(b, ", all of them (they differ in times only)");
        return;
    }
    part_text(df, &df->all, b);
    if (!df->has_beyond) return;
    const tr_part *bt = &df->beyond;
    if (!bt->fail_ev && !bt->pass_ev) {
        tr_buf_puts(b, "\n  without task events (spawns, wakes, ends) the two agree by kind and label");
        return;
    }
    tr_buf_printf(b, "\n  without task events (spawns, wakes, ends) the first %" PRIu64 " agree:", bt->common);
    part_text(df, bt, b);
}

static void part_json(const tr_part *pt, tr_buf *b) {
    tr_buf_printf(b, "{\"common_prefix\":%" PRIu64 ",\"first_difference\":", pt->common);
    if (pt->fail_ev) tr_json_str(b, pt->fail_ev);
    else tr_buf_puts(b, "null");
    tr_buf_puts(b, ",\"against_event\":");
    if (pt->pass_ev) tr_json_str(b, pt->pass_ev);
    else tr_buf_puts(b, "null");
    tr_buf_puts(b, ",\"context\":[");
    for (size_t i = 0; i < pt->ncontext; i++) {
        if (i) tr_buf_puts(b, ",");
        tr_json_str(b, pt->context[i]);
    }
    tr_buf_puts(b, "]}");
}

void tr_diff_json(const tr_outcome *oc, tr_buf *b) {
    const tr_trace_diff *df = oc->diff;
    if (!df) {
        tr_buf_puts(b, "null");
        return;
    }
    tr_buf_printf(b, "{\"seed\":%" PRIu64, df->fail_seed);
    if (df->no_passing) {
        tr_buf_puts(b, ",\"against_seed\":null,\"compared\":false,\"why\":");
        tr_json_str(b, "no seed of this test passed before it in this run");
        tr_buf_puts(b, "}");
        return;
    }
    tr_buf_printf(b, ",\"against_seed\":%" PRIu64 ",\"compared\":%s", df->pass_seed, df->compared ? "true" : "false");
    if (!df->compared) {
        tr_buf_puts(b, ",\"why\":");
        tr_json_str(b, df->why);
        tr_buf_puts(b, "}");
        return;
    }
    tr_buf_printf(b, ",\"events\":%" PRIu64 ",\"against_events\":%" PRIu64 ",\"cut\":%s,\"all\":", df->nfail,
                  df->npass, df->cut ? "true" : "false");
    part_json(&df->all, b);
    tr_buf_puts(b, ",\"without_tasks\":");
    if (df->has_beyond) part_json(&df->beyond, b);
    else tr_buf_puts(b, "null");
    tr_buf_puts(b, "}");
}
