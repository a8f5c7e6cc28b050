/* tr_merge.c: `oxl test --merge a.json b.json ...` (docs/testing.md,
 * Merging shards): the JSON reports of a sharded run's shards read back
 * and reported (human, tap, json, JUnit) as the one unsharded run of the
 * same package and binary would have been: each test's lowest failing
 * seed across the shards with its `K of M seeds run` counted over the
 * whole range, fail fast across tests, and the unsharded exit status.
 * Reports of another package or binary, a shard missing or given twice,
 * an unfinished shard and lines that are not JSON are named errors. */
#include "tr_internal.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_MAX_BYTES (1u << 30) /* of one report */
#define MERGE_MAX_FILES 4096

/* ---- what the json report writes for this reader ---- */

void tr_json_run_fields(const tr_runner *r, tr_buf *b) {
    if (r->key[0]) tr_buf_printf(b, ",\"binary\":\"%s\"", r->key);
    tr_buf_printf(b, ",\"fail_fast\":%s,\"timeout\":%g", r->o.no_fail_fast ? "false" : "true", r->o.timeout);
    if (!r->group || !r->multi) return;
    tr_buf_puts(b, ",\"packages\":[");
    for (size_t i = 0; i < r->ngroup; i++) {
        tr_buf_puts(b, i ? ",{\"package\":" : "{\"package\":");
        tr_json_str(b, r->group[i]->o.pkg);
        tr_buf_printf(b, ",\"binary\":\"%s\"}", r->group[i]->key);
    }
    tr_buf_puts(b, "]");
}

void tr_json_test_fields(const tr_runner *r, const tr_test *t, tr_buf *b) {
    if (t->sim) {
        uint64_t lo = r->o.has_seed ? r->o.seed : r->o.has_seeds ? r->o.seeds_lo : t->first;
        uint64_t hi = r->o.has_seed ? r->o.seed : r->o.has_seeds ? r->o.seeds_hi : t->last;
        tr_buf_printf(b, ",\"first_seed\":%" PRIu64 ",\"last_seed\":%" PRIu64, lo, hi);
    }
    tr_buf_puts(b, ",\"package\":");
    tr_json_str(b, t->pkg ? t->pkg : r->o.pkg);
}

/* ---- the shards read back ---- */

typedef struct m_seed {
    uint64_t seed;
    bool replayed;
    tr_item it;
} m_seed;

typedef struct m_test {
    tr_test t;
    bool seen_start;
    bool failed, seen_pass, seen_skip;
    tr_outcome best; /* the failure kept: fail, rerun, nondet, reproduce */
    bool best_replayed;
    uint64_t run_sum, total_sum;
    double seconds;
    m_seed *seeds; /* passing seeds, and every replayed one */
    size_t nseeds;
    bool last_fail_replayed; /* of the failing seed event just read */
} m_test;

typedef struct m_pkg {
    char *name, *binary;
    m_test *tests;
    size_t ntests;
} m_pkg;

typedef struct m_file {
    const char *path;
    uint64_t shard, shards;
    bool fail_fast;
    double timeout;
    char *ident; /* "pkg\tbinary\n..." of its packages */
    uint64_t processes;
} m_file;

typedef struct merge {
    m_pkg *pkgs;
    size_t npkgs;
    bool fail_fast;
    double timeout;
    uint64_t processes;
} merge;

static m_pkg *find_pkg(merge *m, const char *name, bool add) {
    for (size_t i = 0; i < m->npkgs; i++)
        if (strcmp(m->pkgs[i].name, name) == 0) return &m->pkgs[i];
    if (!add) return NULL;
    m->pkgs = tr_xrealloc(m->pkgs, (m->npkgs + 1) * sizeof *m->pkgs);
    m_pkg *p = &m->pkgs[m->npkgs++];
    memset(p, 0, sizeof *p);
    p->name = tr_xstrdup(name);
    return p;
}

static m_test *find_test(m_pkg *p, const char *name) {
    for (size_t i = 0; i < p->ntests; i++)
        if (strcmp(p->tests[i].t.name, name) == 0) return &p->tests[i];
    p->tests = tr_xrealloc(p->tests, (p->ntests + 1) * sizeof *p->tests);
    m_test *t = &p->tests[p->ntests++];
    memset(t, 0, sizeof *t);
    t->t.name = tr_xstrdup(name);
    return t;
}

static int signal_number(const char *name) {
    char b[32];
    for (int s = 1; s < 65; s++)
        if (strcmp(tr_signal_name(s, b, sizeof b), name) == 0) return s;
    return SIGKILL;
}

/* A process's fields (the json report's item_fields) into it. */
static bool read_item(const tr_jv *o, tr_item *it, const tr_test *t) {
    const char *res = tr_jv_str(o, "result");
    if (!res) return false;
    it->res = -1;
    for (int i = 0; i < TR_NRESULTS; i++)
        if (strcmp(res, tr_result_names[i]) == 0) it->res = i;
    if (it->res < 0) return false;
    it->test = t;
    it->timed_out = it->res == TR_RES_TIMEOUT;
    uint64_t st = 0;
    const char *sig = tr_jv_str(o, "signal");
    if (sig) it->wstatus = signal_number(sig);
    else if (tr_jv_u64(o, "status", &st)) it->wstatus = (int)((st & 0xff) << 8);
    const char *trace = tr_jv_str(o, "trace");
    if (trace && strlen(trace) == 16) {
        it->has_trace = true;
        it->trace = strtoull(trace, NULL, 16);
    }
    const tr_jv *secs = tr_jv_get(o, "seconds");
    if (secs && secs->kind == TR_JV_NUMBER) it->seconds = secs->num;
    const char *out = tr_jv_str(o, "stdout"), *err = tr_jv_str(o, "stderr");
    if (out && *out) it->out = tr_xstrdup(out);
    if (err && *err) it->err = tr_xstrdup(err);
    it->incomplete = it->res == TR_RES_CRASH && !sig && st == 0 && !it->timed_out;
    return true;
}

static bool bad(const char *path, int line, const char *why) {
    fprintf(stderr, "oxl test: --merge: %s:%d: %s\n", path, line, why);
    return false;
}

/* A test_start event, or a test event (which has the same fields: a
 * test that fail fast left out has no test_start). */
static bool read_test_start(merge *m, m_file *f, const tr_jv *o, int line) {
    const char *name = tr_jv_str(o, "name"), *kind = tr_jv_str(o, "kind"), *loc = tr_jv_str(o, "location");
    const char *pkg = tr_jv_str(o, "package");
    uint64_t index;
    if (!name || !kind || !loc || !pkg || !tr_jv_u64(o, "index", &index))
        return bad(f->path, line, "a test_start event without its name, kind, index, location and package");
    m_pkg *p = find_pkg(m, pkg, false);
    if (!p) return bad(f->path, line, "a test of a package its start event does not name");
    m_test *t = find_test(p, name);
    bool sim = strcmp(kind, "sim") == 0;
    uint64_t lo = 0, hi = 0;
    if (sim && (!tr_jv_u64(o, "first_seed", &lo) || !tr_jv_u64(o, "last_seed", &hi) || lo > hi))
        return bad(f->path, line, "a sim test's test_start without first_seed and last_seed (a report of an older oxl?)");
    if (t->seen_start && (t->t.sim != sim || t->t.index != (int)index || strcmp(t->t.loc, loc) != 0 ||
                          (sim && (t->t.first != lo || t->t.last != hi))))
        return bad(f->path, line, "this test differs from the same test in another shard (another binary, or other --seeds?)");
    if (!t->seen_start) {
        t->seen_start = true;
        t->t.sim = sim;
        t->t.index = (int)index;
        t->t.loc = tr_xstrdup(loc);
        t->t.layout = tr_xstrdup("-");
        t->t.first = lo;
        t->t.last = hi;
    }
    return true;
}

static m_test *test_of(merge *m, const tr_jv *o) {
    const char *name = tr_jv_str(o, "name"), *pkg = tr_jv_str(o, "package");
    if (!name || !pkg) return NULL;
    m_pkg *p = find_pkg(m, pkg, false);
    if (!p) return NULL;
    for (size_t i = 0; i < p->ntests; i++)
        if (p->tests[i].seen_start && strcmp(p->tests[i].t.name, name) == 0) return &p->tests[i];
    return NULL;
}

static bool read_seed(merge *m, m_file *f, const tr_jv *o, int line) {
    m_test *t = test_of(m, o);
    uint64_t seed;
    const tr_jv *rep = tr_jv_get(o, "replayed");
    if (!t || !tr_jv_u64(o, "seed", &seed) || !rep)
        return bad(f->path, line, "a seed event of no test started before it, or without its seed");
    bool replayed = rep->kind == TR_JV_TRUE;
    const char *res = tr_jv_str(o, "result");
    if (res && strcmp(res, "pass") != 0) {
        t->last_fail_replayed = replayed;
        if (!replayed) return true;
    }
    t->seeds = tr_xrealloc(t->seeds, (t->nseeds + 1) * sizeof *t->seeds);
    m_seed *s = &t->seeds[t->nseeds++];
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->replayed = replayed;
    if (!read_item(o, &s->it, &t->t)) return bad(f->path, line, "a seed event without a known result");
    return true;
}

/* Whether failure a comes before b in an unsharded run's order of the
 * test: remembered (replayed) seeds first, then the range, each rising. */
static bool before(bool ra, uint64_t a, bool rb, uint64_t b) { return ra != rb ? ra : a < b; }

static bool read_test(merge *m, m_file *f, const tr_jv *o, int line) {
    m_test *t = test_of(m, o);
    const char *res = tr_jv_str(o, "result");
    if (!t && res && !read_test_start(m, f, o, line)) return false;
    if (!t) t = test_of(m, o);
    if (!t || !res) return bad(f->path, line, "a test event without its result");
    if (strcmp(res, "interrupted") == 0) return bad(f->path, line, "this shard was interrupted: its results are not whole; run it again");
    uint64_t n;
    const tr_jv *secs = tr_jv_get(o, "seconds");
    if (strcmp(res, "skip") == 0) {
        t->seen_skip = true;
        return true;
    }
    if (secs && secs->kind == TR_JV_NUMBER) t->seconds += secs->num;
    if (tr_jv_u64(o, "seeds", &n)) t->total_sum += n;
    if (strcmp(res, "pass") == 0) {
        t->seen_pass = true;
        if (tr_jv_u64(o, "seeds_run", &n)) t->run_sum += n;
        return true;
    }
    if (strcmp(res, "fail") != 0) return bad(f->path, line, "a test event with an unknown result");
    const tr_jv *fo = tr_jv_get(o, "failure");
    const char *repro = tr_jv_str(o, "reproduce");
    uint64_t seed = 0;
    if (!fo || !repro || (t->t.sim && !tr_jv_u64(o, "failed_seed", &seed)))
        return bad(f->path, line, "a failing test event without its failure, failed_seed and reproduce line");
    bool replayed = t->t.sim && t->last_fail_replayed;
    t->last_fail_replayed = false;
    if (t->failed && !before(replayed, seed, t->best_replayed, seed == t->best.fail.seed ? seed + 1 : t->best.fail.seed))
        return true;
    if (t->failed && seed == t->best.fail.seed)
        return bad(f->path, line, "the same seed failed in two shards: are two reports of one shard given?");
    tr_free_item(&t->best.fail);
    tr_free_item(&t->best.rerun);
    free(t->best.reproduce);
    memset(&t->best, 0, sizeof t->best);
    t->failed = true;
    t->best_replayed = replayed;
    if (!read_item(fo, &t->best.fail, &t->t)) return bad(f->path, line, "a failure without a known result");
    t->best.fail.seed = seed;
    t->best.fail.replay = replayed;
    const char *msg = tr_jv_str(o, "message");
    if (msg && strstr(msg, "with the fork server that ran it")) t->best.fail.server_died = true;
    t->best.reproduce = tr_xstrdup(repro);
    const tr_jv *rr = tr_jv_get(o, "rerun");
    if (rr && read_item(rr, &t->best.rerun, &t->t)) {
        t->best.rerun_done = true;
        t->best.rerun.seed = seed;
        const tr_jv *det = tr_jv_get(o, "deterministic");
        t->best.nondet = det && det->kind == TR_JV_FALSE;
        t->best.uncompared = det && det->kind == TR_JV_NULL;
    }
    return true;
}

static bool read_start(merge *m, m_file *f, const tr_jv *o, int line) {
    const char *pkg = tr_jv_str(o, "package");
    const tr_jv *ff = tr_jv_get(o, "fail_fast"), *to = tr_jv_get(o, "timeout"), *pk = tr_jv_get(o, "packages");
    if (!pkg || !ff || !to || to->kind != TR_JV_NUMBER)
        return bad(f->path, line, "a start event without package, fail_fast and timeout (a report of an older oxl?)");
    if (!tr_jv_u64(o, "shards", &f->shards)) f->shards = 1, f->shard = 0;
    else if (!tr_jv_u64(o, "shard", &f->shard) || f->shard >= f->shards)
        return bad(f->path, line, "a start event with a bad shard index");
    f->fail_fast = ff->kind == TR_JV_TRUE;
    f->timeout = to->num;
    tr_buf id = {0};
    tr_buf_add(&id, "", 0);
    if (pk && pk->kind == TR_JV_ARRAY) {
        for (size_t i = 0; i < pk->n; i++) {
            const char *pn = tr_jv_str(pk->items[i], "package"), *bin = tr_jv_str(pk->items[i], "binary");
            if (!pn || !bin) {
                tr_buf_free(&id);
                return bad(f->path, line, "a start event's packages without package and binary");
            }
            tr_buf_printf(&id, "%s\t%s\n", pn, bin);
            m_pkg *p = find_pkg(m, pn, true);
            if (!p->binary) p->binary = tr_xstrdup(bin);
        }
    } else {
        const char *bin = tr_jv_str(o, "binary");
        if (!bin) {
            tr_buf_free(&id);
            return bad(f->path, line, "a start event without the test binary's key");
        }
        tr_buf_printf(&id, "%s\t%s\n", pkg, bin);
        m_pkg *p = find_pkg(m, pkg, true);
        if (!p->binary) p->binary = tr_xstrdup(bin);
    }
    f->ident = id.s;
    return true;
}

static bool read_file(merge *m, m_file *f) {
    size_t len;
    char *text = tr_read_all(f->path, MERGE_MAX_BYTES, &len);
    if (!text) {
        fprintf(stderr, "oxl test: --merge: cannot read '%s' (missing, unreadable, or over 1 GiB)\n", f->path);
        return false;
    }
    bool ok = true, started = false, ended = false;
    int line = 0;
    for (char *s = text; ok && *s;) {
        char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        line++;
        char why[160];
        tr_jv *o = NULL;
        if (n == 0) {
            ok = bad(f->path, line, "an empty line (a json report has one object a line)");
        } else if (!(o = tr_jv_parse(s, n, why, sizeof why))) {
            char msg[200];
            snprintf(msg, sizeof msg, "not JSON: %s", why);
            ok = bad(f->path, line, msg);
        } else {
            const char *ev = tr_jv_str(o, "event");
            if (o->kind != TR_JV_OBJECT || !ev) ok = bad(f->path, line, "not an event of `oxl test --format json`");
            else if (ended) ok = bad(f->path, line, "an event after the end event");
            else if (strcmp(ev, "start") == 0) {
                if (started) ok = bad(f->path, line, "a second start event: one report is one run");
                else ok = read_start(m, f, o, line);
                started = true;
            } else if (!started) {
                ok = bad(f->path, line, strcmp(ev, "list") == 0 ? "a --list report, not a run's"
                                                                : "no start event first: not a whole `oxl test --format json` report");
            } else if (strcmp(ev, "test_start") == 0) ok = read_test_start(m, f, o, line);
            else if (strcmp(ev, "seed") == 0) ok = read_seed(m, f, o, line);
            else if (strcmp(ev, "test") == 0) ok = read_test(m, f, o, line);
            else if (strcmp(ev, "end") == 0) {
                uint64_t st = 0;
                tr_jv_u64(o, "exit_status", &st);
                tr_jv_u64(o, "processes", &f->processes);
                const tr_jv *nt = tr_jv_get(o, "not_tested");
                if (st == 130) ok = bad(f->path, line, "this shard was interrupted: its results are not whole; run it again");
                else if (nt && nt->kind == TR_JV_ARRAY && nt->n > 0)
                    ok = bad(f->path, line, "a package of this shard was not tested (its end event's not_tested): its results are not whole");
                ended = true;
            } else ok = bad(f->path, line, "an event --merge does not know");
        }
        tr_jv_free(o);
        s = nl ? nl + 1 : s + n;
    }
    free(text);
    if (ok && !started) ok = bad(f->path, line, "empty: no start event");
    if (ok && !ended)
        ok = bad(f->path, line, "no end event: the shard's run did not finish (or its report was cut short)");
    return ok;
}

/* The shards together: one run (package, binary), each shard once, none missing. */
static bool check_shards(m_file *fs, size_t n) {
    for (size_t i = 1; i < n; i++) {
        if (strcmp(fs[i].ident, fs[0].ident) != 0) {
            fprintf(stderr,
                    "oxl test: --merge: '%s' is a report of other packages or another test binary than '%s':\n"
                    "  %s: %s  %s: %s"
                    "  the shards of one run test the same packages with the same binary (same sources, oxl and -O)\n",
                    fs[i].path, fs[0].path, fs[0].path, fs[0].ident, fs[i].path, fs[i].ident);
            return false;
        }
        if (fs[i].shards != fs[0].shards) {
            fprintf(stderr, "oxl test: --merge: '%s' is a shard of %" PRIu64 ", but '%s' is one of %" PRIu64 "\n",
                    fs[i].path, fs[i].shards, fs[0].path, fs[0].shards);
            return false;
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++)
            if (fs[i].shard == fs[k].shard) {
                fprintf(stderr, "oxl test: --merge: '%s' and '%s' are both shard %" PRIu64 " of %" PRIu64
                                ": overlapping shards (one report given twice?)\n",
                        fs[k].path, fs[i].path, fs[i].shard + 1, fs[i].shards);
                return false;
            }
    if (n < fs[0].shards) {
        tr_buf miss = {0};
        for (uint64_t s = 0; s < fs[0].shards; s++) {
            bool have = false;
            for (size_t i = 0; i < n && !have; i++) have = fs[i].shard == s;
            if (!have) tr_buf_printf(&miss, "%s%" PRIu64, miss.len ? ", " : "", s + 1);
        }
        fprintf(stderr, "oxl test: --merge: shard%s %s of %" PRIu64 " missing: give every shard's report\n",
                strchr(miss.s, ',') ? "s" : "", miss.s, fs[0].shards);
        tr_buf_free(&miss);
        return false;
    }
    return true;
}

static int cmp_seed(const void *a, const void *b) {
    const m_seed *x = a, *y = b;
    if (x->replayed != y->replayed) return x->replayed ? -1 : 1;
    return x->seed < y->seed ? -1 : x->seed > y->seed;
}

static int cmp_test(const void *a, const void *b) {
    const tr_test *x = *(const tr_test *const *)a, *y = *(const tr_test *const *)b;
    if (x->sim != y->sim) return x->sim ? 1 : -1;
    return x->index - y->index;
}

/* The unsharded position of t's failure (K) and its seeds (M). */
static void count_seeds(const m_test *t, uint64_t *k, uint64_t *total) {
    const tr_test *x = &t->t;
    uint64_t fail = t->best.fail.seed, nrep = 0, rep_before = 0, rep_in_range_before = 0, rep_outside = 0;
    for (size_t i = 0; i < t->nseeds; i++) {
        const m_seed *s = &t->seeds[i];
        if (!s->replayed) continue;
        nrep++;
        if (s->seed < fail) rep_before++;
        if (s->seed >= x->first && s->seed < fail) rep_in_range_before++;
        if (s->seed < x->first || s->seed > x->last) rep_outside++;
    }
    if (t->best_replayed) {
        nrep++; /* the failing one */
        if (fail < x->first || fail > x->last) rep_outside++;
        *k = rep_before + 1;
    } else {
        *k = nrep + (fail >= x->first ? fail - x->first + 1 : 1) - rep_in_range_before;
    }
    *total = x->last - x->first + 1 + rep_outside;
}

int tr_run_merge(tr_runner *lead) {
    size_t n = lead->o.npkgs;
    if (n > MERGE_MAX_FILES) {
        fprintf(stderr, "oxl test: --merge takes at most %d reports\n", MERGE_MAX_FILES);
        return TR_EXIT_USAGE;
    }
    merge m = {0};
    m_file *fs = tr_xmalloc(n * sizeof *fs);
    memset(fs, 0, n * sizeof *fs);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        fs[i].path = lead->o.pkgs[i];
        ok = read_file(&m, &fs[i]);
        if (ok) {
            m.fail_fast = m.fail_fast || fs[i].fail_fast;
            m.timeout = fs[i].timeout;
            m.processes += fs[i].processes;
        }
    }
    if (ok) ok = check_shards(fs, n);
    int status = TR_EXIT_USAGE;
    tr_runner *rs = NULL;
    tr_runner **group = NULL;
    if (ok) {
        rs = tr_xmalloc((m.npkgs + 1) * sizeof *rs);
        group = tr_xmalloc((m.npkgs + 1) * sizeof *group);
        bool multi = m.npkgs > 1;
        size_t nunit = 0, nsim = 0;
        for (size_t p = 0; p < m.npkgs; p++) {
            tr_runner *r = &rs[p];
            memset(r, 0, sizeof *r);
            r->o = lead->o;
            r->o.pkg = m.pkgs[p].name;
            r->o.timeout = m.timeout;
            r->o.no_fail_fast = !m.fail_fast;
            r->rep = lead->rep;
            r->tty = lead->tty;
            r->color = lead->color;
            r->t0 = lead->t0;
            r->multi = multi;
            snprintf(r->key, sizeof r->key, "%s", m.pkgs[p].binary ? m.pkgs[p].binary : "");
            group[p] = r;
            m_pkg *mp = &m.pkgs[p];
            r->sel = tr_xmalloc((mp->ntests + 1) * sizeof *r->sel);
            for (size_t i = 0; i < mp->ntests; i++) {
                m_test *t = &mp->tests[i];
                t->t.pkg = mp->name;
                tr_buf shown = {0};
                tr_test_label(r, &t->t, &shown);
                t->t.shown = shown.s;
                r->sel[r->nsel++] = &t->t;
                if (t->t.sim) nsim++;
                else nunit++;
            }
            qsort(r->sel, r->nsel, sizeof *r->sel, cmp_test);
            r->outs = tr_xmalloc((r->nsel + 1) * sizeof *r->outs);
            memset(r->outs, 0, (r->nsel + 1) * sizeof *r->outs);
            lead->plan_tests += r->nsel;
        }
        lead->multi = multi;
        lead->group = group;
        lead->ngroup = m.npkgs;
        lead->o.pkg = m.pkgs[0].name;
        lead->o.timeout = m.timeout;
        lead->o.no_fail_fast = !m.fail_fast;
        snprintf(lead->key, sizeof lead->key, "%s", m.pkgs[0].binary ? m.pkgs[0].binary : "");
        lead->procs_run = m.processes;
        lead->rep->start(lead, nunit, nsim);
        tr_totals tot = {0};
        bool failed = false;
        for (size_t p = 0; p < m.npkgs; p++) {
            tr_runner *r = &rs[p];
            m_pkg *mp = &m.pkgs[p];
            r->tap_n = lead->tap_n;
            /* as tr_plan.c reports: the unit tests' starts, then their ends; each sim test in turn */
            for (size_t i = 0; i < r->nsel; i++)
                if (!r->sel[i]->sim) r->rep->test_start(r, r->sel[i], 1);
            for (size_t i = 0; i < r->nsel; i++) {
                const tr_test *tt = r->sel[i];
                m_test *t = NULL;
                for (size_t k = 0; k < mp->ntests && !t; k++)
                    if (&mp->tests[k].t == tt) t = &mp->tests[k];
                tr_outcome *oc = &r->outs[i];
                oc->test = tt;
                if ((failed && m.fail_fast) || (!t->failed && t->seen_skip) || (!t->failed && !t->seen_pass)) {
                    r->rep->test_end(r, oc); /* not run: an earlier test failed */
                    tot.skipped++;
                    continue;
                }
                oc->run = true;
                oc->passed = !t->failed;
                oc->seconds = t->seconds;
                uint64_t k_fail = 0, m_total = t->total_sum;
                if (tt->sim && t->failed) count_seeds(t, &k_fail, &m_total);
                if (tt->sim) {
                    r->rep->test_start(r, tt, m_total);
                    qsort(t->seeds, t->nseeds, sizeof *t->seeds, cmp_seed);
                    uint64_t pos = 0;
                    for (size_t k = 0; k < t->nseeds; k++) {
                        m_seed *s = &t->seeds[k];
                        if (t->failed && !before(s->replayed, s->seed, t->best_replayed, t->best.fail.seed)) continue;
                        if (s->it.res != TR_RES_PASS) continue;
                        s->it.test = tt; /* the tests array moved as it grew */
                        s->it.seed = s->seed;
                        s->it.replay = s->replayed;
                        r->rep->seed(r, &s->it, pos++, NULL);
                    }
                    oc->seeds_run = t->run_sum;
                    oc->seeds_total = t->total_sum;
                }
                if (t->failed) {
                    oc->fail = t->best.fail;
                    oc->rerun = t->best.rerun;
                    oc->fail.test = oc->rerun.test = tt;
                    oc->rerun_done = t->best.rerun_done;
                    oc->nondet = t->best.nondet;
                    oc->uncompared = t->best.uncompared;
                    oc->reproduce = t->best.reproduce;
                    memset(&t->best, 0, sizeof t->best); /* moved */
                    if (tt->sim) {
                        oc->seeds_run = k_fail;
                        oc->seeds_total = m_total;
                        r->rep->seed(r, &oc->fail, oc->seeds_run - 1, oc);
                    }
                    failed = true;
                    tot.failed++;
                    if (oc->nondet) tot.nondet++;
                } else {
                    tot.passed++;
                }
                r->rep->test_end(r, oc);
            }
            lead->tap_n = r->tap_n;
        }
        status = tr_plan_status(lead, &tot);
        lead->rep->end(lead, &tot, status);
        if (!tr_plan_junit(lead) && status == TR_EXIT_PASS) status = TR_EXIT_USAGE;
    }
    for (size_t p = 0; rs && p < m.npkgs; p++) {
        tr_runner *r = &rs[p];
        for (size_t i = 0; i < r->nsel; i++) {
            tr_free_item(&r->outs[i].fail);
            tr_free_item(&r->outs[i].rerun);
            free(r->outs[i].reproduce);
        }
        free(r->outs);
        free(r->sel);
    }
    for (size_t p = 0; p < m.npkgs; p++) {
        m_pkg *mp = &m.pkgs[p];
        for (size_t i = 0; i < mp->ntests; i++) {
            m_test *t = &mp->tests[i];
            free(t->t.name), free(t->t.loc), free(t->t.layout), free(t->t.shown);
            for (size_t k = 0; k < t->nseeds; k++) tr_free_item(&t->seeds[k].it);
            free(t->seeds);
            tr_free_item(&t->best.fail);
            tr_free_item(&t->best.rerun);
            free(t->best.reproduce);
        }
        free(mp->tests);
        free(mp->name);
        free(mp->binary);
    }
    free(m.pkgs);
    for (size_t i = 0; i < n; i++) free(fs[i].ident);
    free(fs);
    free(rs);
    free(group);
    lead->group = NULL;
    lead->ngroup = 0;
    lead->o.pkg = NULL;
    return status;
}
