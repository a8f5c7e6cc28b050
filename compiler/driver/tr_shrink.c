/* tr_shrink.c: `oxl test --shrink` and `--replay` (docs/testing.md,
 * "Shrinking a failure"). A failing seed is recorded as a schedule (the
 * scheduler's decisions and the World's faults, oxl_schedule.h), then
 * made smaller run by run while it still fails the same way: the tail
 * past the failure cut, the longest head handed back to FIFO by binary
 * search, the decisions left ddmin'd to FIFO, then the faults ddmin'd and
 * each partition, block or crash shortened. "The same way" is the same
 * failure site and message prefix, never the trace hash, which any edit
 * changes. Every run is a process of the test binary with
 * OXL_SIM_SCHEDULE_IN (docs/test-binary.md). */
#include "tr_internal.h"

#include "oxl_schedule.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHRINK_DEFAULT_BUDGET 500
#define SHRINK_MAX_BUDGET 1000000
#define SHRINK_PREFIX_MAX 64 /* bytes of a failure's message that must match */

/* ---- flags ---- */

int tr_shrink_flag(int argc, char **argv, int *i, tr_opts *o) {
    const char *a = argv[*i], *v = NULL;
    if (strcmp(a, "--shrink") == 0) {
        o->shrink = true;
        return 1;
    }
    static const char *const valued[] = {"--shrink-budget", "--shrink-out", "--replay"};
    int which = -1;
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(valued[k]);
        if (strncmp(a, valued[k], n) == 0 && (a[n] == 0 || a[n] == '=')) {
            which = k;
            v = a[n] == '=' ? a + n + 1 : NULL;
        }
    }
    if (which < 0) return 0;
    if (!v) {
        if (*i + 1 >= argc) {
            tr_usage("%s needs a value", a);
            return -1;
        }
        v = argv[++*i];
    }
    if (which == 0) {
        uint64_t b;
        if (!tr_parse_u64(v, &b) || b < 1 || b > SHRINK_MAX_BUDGET) {
            tr_usage("--shrink-budget takes a number of runs from 1 to 1000000, not '%s'", v);
            return -1;
        }
        o->shrink_budget = b;
    } else if (!*v) {
        tr_usage("%s needs a file name", valued[which]);
        return -1;
    } else if (which == 1) {
        o->shrink_out = v;
    } else {
        o->replay = v;
    }
    return 1;
}

int tr_shrink_check_opts(const tr_opts *o) {
    const char *bad = NULL;
    if ((o->shrink_budget || o->shrink_out) && !o->shrink)
        bad = o->shrink_budget ? "--shrink-budget goes with --shrink" : "--shrink-out goes with --shrink";
    else if (o->shrink && o->replay)
        bad = "--shrink and --replay cannot be used together (replay the file --shrink writes afterwards)";
    else if (o->shrink && (!o->exact || !o->has_seed))
        bad = "--shrink needs --exact NAME and --seed N: the one failing seed of one sim test to shrink";
    else if (o->replay && !o->exact)
        bad = "--replay needs --exact NAME: the test the schedule file is of";
    else if (o->replay && (o->has_seed || o->has_seeds))
        bad = "--replay takes no --seed or --seeds: the schedule file names its seed";
    else if (o->replay && (o->has_policy || o->has_pct_depth))
        bad = o->has_policy ? "--replay takes no --policy: the schedule file fixes every choice of the scheduler"
                            : "--replay takes no --pct-depth: the schedule file fixes every choice of the scheduler";
    else if ((o->shrink || o->replay) && (o->list || o->junit || o->format != TR_FMT_HUMAN || o->has_partition))
        bad = o->shrink ? "--shrink runs one seed and prints text: it cannot be used with --list, --junit, --format "
                          "tap|json or --partition"
                        : "--replay runs one schedule and prints text: it cannot be used with --list, --junit, "
                          "--format tap|json or --partition";
    if (bad) {
        tr_usage("%s", bad);
        return TR_EXIT_USAGE;
    }
    /* the flags' variables too: a replay would ignore them */
    static const char *const policy_vars[] = {"OXL_SIM_POLICY", "OXL_SIM_PCT_DEPTH"};
    for (int k = 0; o->replay && k < 2; k++) {
        const char *v = getenv(policy_vars[k]);
        if (v && *v) {
            fprintf(stderr, "oxl test: %s='%s' is set, and --replay takes no policy: the schedule file fixes every "
                            "choice of the scheduler; unset it\n", policy_vars[k], v);
            return TR_EXIT_USAGE;
        }
    }
    return TR_GO_ON;
}

int tr_shrink_check_env(void) {
    static const char *const vars[] = {"OXL_SIM_SCHEDULE_IN", "OXL_SIM_SCHEDULE_OUT"};
    for (int k = 0; k < 2; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v) {
            fprintf(stderr,
                    "oxl test: %s='%s' is set: it is the test binary's own variable, which every seed would "
                    "inherit; unset it (oxl test --replay FILE replays a schedule, --shrink records one)\n",
                    vars[k], v);
            return TR_EXIT_USAGE;
        }
    }
    return TR_GO_ON;
}

/* ---- the failure's identity ---- */

/* "site\tprefix" of the failure report in a run's stderr, malloc'd; NULL
 * when it has none. The site is a panic's or assert's `at file:line`, or
 * the report's kind (deadlock, time limit, livelock, simulation failed);
 * the prefix is the message up to its first digit, since the numbers an
 * assert prints change from one candidate to the next. */
static char *failure_identity(const char *err) {
    static const char *const heads[] = {"panic: ", "deadlock: ", "time limit: ", "livelock: ", "simulation failed: "};
    const char *end = strstr(err, "\noxl-sim: ");
    if (!end) return NULL;
    const char *found = NULL, *msg = NULL;
    int kind = -1;
    for (const char *line = err; line && line < end; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        for (int k = 0; k < 5; k++)
            if (strncmp(line, heads[k], strlen(heads[k])) == 0) {
                found = line;
                kind = k;
                msg = k == 0 ? line + strlen(heads[k]) : line;
            }
    if (!found) return NULL;
    tr_buf b = {0};
    if (kind == 0) {
        const char *nl = strchr(msg, '\n');
        const char *at = nl ? nl + 1 : NULL;
        if (at && strncmp(at, "  at ", 5) == 0) {
            at += 5;
            size_t n = strcspn(at, " \n");
            tr_buf_add(&b, at, n);
        } else {
            tr_buf_puts(&b, "panic");
        }
    } else {
        tr_buf_add(&b, heads[kind], strlen(heads[kind]) - 2);
    }
    tr_buf_puts(&b, "\t");
    size_t n = 0;
    while (msg[n] && msg[n] != '\n' && !(msg[n] >= '0' && msg[n] <= '9') && n < SHRINK_PREFIX_MAX) n++;
    tr_buf_add(&b, msg, n);
    return b.s;
}

/* The identity for a person: "bank_test.oxl:49: assertion failed: ...". */
static void show_identity(tr_buf *b, const char *id) {
    const char *tab = strchr(id, '\t');
    size_t site = tab ? (size_t)(tab - id) : strlen(id);
    if (!tab) {
        tr_buf_add(b, id, site);
        return;
    }
    const char *msg = tab + 1;
    size_t n = strlen(msg);
    while (n && msg[n - 1] == ' ') n--; /* a prefix cut before a number ends in a space */
    /* a report's kind is its message's first words: "time limit: ..." once */
    if (!(strncmp(msg, id, site) == 0 && msg[site] == ':')) {
        tr_buf_add(b, id, site);
        tr_buf_puts(b, ": ");
    }
    tr_buf_add(b, msg, n);
}

/* ---- the binary's identity ---- */

static bool binary_identity(const char *path, char hex[65]) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    tr_sha256 c;
    tr_sha256_init(&c);
    unsigned char buf[65536], out[32];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) tr_sha256_add(&c, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    tr_sha256_done(&c, out);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", out[i]);
    return ok;
}

/* ---- one run ---- */

typedef struct cand {
    uint32_t *dec;
    size_t ndec;
    oxl_fault *faults;
    size_t nfaults;
} cand;

typedef struct shrink {
    tr_runner *r;
    const tr_test *t;
    uint64_t seed;
    char in[TR_PATH], rec[TR_PATH], out[TR_PATH], err[TR_PATH];
    char *want;       /* the failure's identity */
    uint64_t runs, budget;
    bool exhausted;   /* out of budget: the best so far is the answer */
    bool stopped;     /* interrupted, or a run could not be made */
} shrink;

static void cand_free(cand *c) {
    free(c->dec);
    free(c->faults);
    memset(c, 0, sizeof *c);
}

static cand cand_copy(const cand *c) {
    cand d = {tr_xmalloc((c->ndec ? c->ndec : 1) * sizeof *d.dec), c->ndec,
              tr_xmalloc((c->nfaults ? c->nfaults : 1) * sizeof *d.faults), c->nfaults};
    if (c->ndec) memcpy(d.dec, c->dec, c->ndec * sizeof *d.dec);
    if (c->nfaults) memcpy(d.faults, c->faults, c->nfaults * sizeof *d.faults);
    return d;
}

static size_t not_fifo(const cand *c) {
    size_t n = 0;
    for (size_t i = 0; i < c->ndec; i++) n += c->dec[i] != 0;
    return n;
}

static bool write_schedule(const char *path, const tr_test *t, uint64_t seed, const cand *c, const char *binary,
                           const char *failure) {
    oxl_schedule s;
    memset(&s, 0, sizeof s);
    if (binary) snprintf(s.binary, sizeof s.binary, "%s", binary);
    s.test = t->name;
    s.seed = seed;
    s.failure = (char *)failure;
    s.decisions = c->dec;
    s.ndecisions = c->ndec;
    s.faults = c->faults;
    s.nfaults = c->nfaults;
    size_t len;
    char *text = oxl_schedule_format(&s, &len);
    bool ok = text && tr_write_file(path, text, len, 0644);
    free(text);
    return ok;
}

/* Runs the test binary once: with c as its schedule (NULL: the seed as it
 * is), recorded into sh->rec when record. Returns the failure's identity
 * (malloc'd) or NULL when the run passed or did not fail by a report;
 * false when no run was made (interrupted, cannot start). */
static bool run_once(shrink *sh, const cand *c, bool record, char **identity) {
    *identity = NULL;
    if (c && !write_schedule(sh->in, sh->t, sh->seed, c, NULL, NULL)) {
        fprintf(stderr, "oxl test: cannot write '%s': %s\n", sh->in, strerror(errno));
        sh->stopped = true;
        return false;
    }
    char run[32], seed[32], in[TR_PATH + 32], rec[TR_PATH + 32];
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", sh->t->index);
    snprintf(seed, sizeof seed, "OXL_TEST_SEED=%" PRIu64, sh->seed);
    snprintf(in, sizeof in, "OXL_SIM_SCHEDULE_IN=%s", sh->in);
    snprintf(rec, sizeof rec, "OXL_SIM_SCHEDULE_OUT=%s", sh->rec);
    /* the run's policy too: the first recording is of the seed as it
     * failed (a replayed schedule overrides the policy) */
    const char *env[] = {run, seed, "OXL_SIM_REPORT=1", c ? in : "OXL_SIM_SCHEDULE_IN", record ? rec : "OXL_SIM_SCHEDULE_OUT",
                         "OXL_DATA_DIR", sh->r->sim_env[0], sh->r->sim_env[1], NULL};
    tr_proc p;
    if (!tr_proc_start(&p, sh->r->bin, NULL, env, sh->out, sh->err, sh->r->o.timeout)) {
        fprintf(stderr, "oxl test: cannot start the test binary: %s\n", strerror(errno));
        sh->stopped = true;
        return false;
    }
    sh->runs++;
    while (!tr_proc_poll(&p))
        if (!tr_wait_event(0.25, NULL, 0)) {
            tr_proc_kill(&p);
            sh->r->interrupted = true;
            sh->stopped = true;
            return false;
        }
    if (p.timed_out || !WIFEXITED(p.wstatus) || WEXITSTATUS(p.wstatus) != 101) return true;
    size_t omitted;
    char *text = tr_read_tail(sh->err, TR_SHOW_BYTES, &omitted);
    if (text) *identity = failure_identity(text);
    free(text);
    return true;
}

/* Whether candidate c fails the same way; false too when the budget is
 * spent (sh->exhausted) or the run was stopped. */
static bool same_failure(shrink *sh, const cand *c) {
    if (sh->stopped) return false;
    if (sh->runs >= sh->budget) {
        sh->exhausted = true;
        return false;
    }
    char *id;
    if (!run_once(sh, c, false, &id)) return false;
    bool same = id && strcmp(id, sh->want) == 0;
    free(id);
    return same;
}

/* ---- the passes ---- */

/* ddmin over the n items of c[] (indices into something the test builds
 * a candidate from): a subset where every smaller one tried passes.
 * Returns the new count; c[] holds the kept items. */
typedef bool (*subset_test)(shrink *sh, const size_t *keep, size_t n, void *ctx);
static size_t ddmin(shrink *sh, size_t *c, size_t n, subset_test test, void *ctx) {
    if (n == 0) return 0;
    if (test(sh, c, 0, ctx)) return 0;
    size_t gran = 2;
    size_t *tmp = tr_xmalloc(n * sizeof *tmp);
    while (n >= 2 && !sh->exhausted && !sh->stopped) {
        size_t chunk = (n + gran - 1) / gran;
        bool reduced = false;
        for (size_t start = 0; start < n && !reduced; start += chunk) {
            size_t len = start + chunk <= n ? chunk : n - start;
            if (len < n && test(sh, c + start, len, ctx)) {
                memmove(c, c + start, len * sizeof *c);
                n = len;
                gran = 2;
                reduced = true;
            }
        }
        for (size_t start = 0; start < n && !reduced && gran > 2; start += chunk) {
            size_t len = start + chunk <= n ? chunk : n - start, k = 0;
            for (size_t i = 0; i < n; i++)
                if (i < start || i >= start + len) tmp[k++] = c[i];
            if (test(sh, tmp, k, ctx)) {
                memcpy(c, tmp, k * sizeof *c);
                n = k;
                gran = gran - 1 > 2 ? gran - 1 : 2;
                reduced = true;
            }
        }
        if (!reduced) {
            if (gran >= n) break;
            gran = gran * 2 < n ? gran * 2 : n;
        }
    }
    free(tmp);
    return n;
}

typedef struct dec_ctx {
    const cand *base;
} dec_ctx;

/* base with every decision not in keep handed back to FIFO */
static bool test_decisions(shrink *sh, const size_t *keep, size_t n, void *ctx) {
    const cand *base = ((dec_ctx *)ctx)->base;
    cand c = cand_copy(base);
    memset(c.dec, 0, c.ndec * sizeof *c.dec);
    for (size_t i = 0; i < n; i++) c.dec[keep[i]] = base->dec[keep[i]];
    bool same = same_failure(sh, &c);
    cand_free(&c);
    return same;
}

static bool test_faults(shrink *sh, const size_t *keep, size_t n, void *ctx) {
    const cand *base = ((dec_ctx *)ctx)->base;
    cand c = cand_copy(base);
    c.nfaults = 0;
    for (size_t i = 0; i < n; i++) c.faults[c.nfaults++] = base->faults[keep[i]];
    bool same = same_failure(sh, &c);
    cand_free(&c);
    return same;
}

static void shrink_passes(shrink *sh, cand *best) {
    /* 1. the tail: the shortest prefix that, FIFO after it, still fails */
    size_t lo = 0, hi = best->ndec;
    while (lo < hi && !sh->exhausted && !sh->stopped) {
        size_t mid = lo + (hi - lo) / 2;
        cand c = cand_copy(best);
        c.ndec = mid;
        if (same_failure(sh, &c)) hi = mid;
        else lo = mid + 1;
        cand_free(&c);
    }
    if (hi < best->ndec) best->ndec = hi;
    /* 2. the head: the longest prefix handed back to FIFO */
    lo = 0, hi = best->ndec;
    while (lo < hi && !sh->exhausted && !sh->stopped) {
        size_t mid = lo + (hi - lo + 1) / 2;
        cand c = cand_copy(best);
        memset(c.dec, 0, mid * sizeof *c.dec);
        if (same_failure(sh, &c)) lo = mid;
        else hi = mid - 1;
        cand_free(&c);
    }
    memset(best->dec, 0, lo * sizeof *best->dec);
    /* 3. ddmin of the decisions left that are not FIFO */
    size_t *idx = tr_xmalloc((best->ndec + best->nfaults + 1) * sizeof *idx), n = 0;
    for (size_t i = 0; i < best->ndec; i++)
        if (best->dec[i]) idx[n++] = i;
    if (n && !sh->exhausted && !sh->stopped) {
        cand base = cand_copy(best);
        dec_ctx dc = {&base};
        /* ddmin keeps only failing subsets: what it returns stands even
         * when the budget ran out in the middle */
        size_t k = ddmin(sh, idx, n, test_decisions, &dc);
        memset(best->dec, 0, best->ndec * sizeof *best->dec);
        for (size_t i = 0; i < k; i++) best->dec[idx[i]] = base.dec[idx[i]];
        cand_free(&base);
    }
    while (best->ndec && best->dec[best->ndec - 1] == 0) best->ndec--; /* past the end is FIFO */
    /* 4. ddmin of the faults */
    n = best->nfaults;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    if (n && !sh->exhausted && !sh->stopped) {
        cand base = cand_copy(best);
        dec_ctx dc = {&base};
        size_t k = ddmin(sh, idx, n, test_faults, &dc);
        best->nfaults = 0;
        for (size_t i = 0; i < k; i++) best->faults[best->nfaults++] = base.faults[idx[i]];
        cand_free(&base);
    }
    free(idx);
    /* 5. each partition, block and crash as short as it can be, to 1 ms */
    for (size_t f = 0; f < best->nfaults && !sh->exhausted && !sh->stopped; f++) {
        oxl_dur_ns d = best->faults[f].dur;
        if (d <= 0) continue;
        const int64_t ms = 1000000;
        int64_t lo_ms = 1, hi_ms = (d + ms - 1) / ms;
        while (lo_ms < hi_ms && !sh->exhausted && !sh->stopped) {
            int64_t mid = lo_ms + (hi_ms - lo_ms) / 2;
            cand c = cand_copy(best);
            c.faults[f].dur = mid * ms;
            if (same_failure(sh, &c)) hi_ms = mid;
            else lo_ms = mid + 1;
            cand_free(&c);
        }
        if (hi_ms * ms < d) best->faults[f].dur = hi_ms * ms;
    }
}

/* ---- the summary ---- */

static void show_time(tr_buf *b, int64_t ns) {
    if (ns % 1000000000 == 0) tr_buf_printf(b, "%" PRId64 " s", ns / 1000000000);
    else if (ns < 1000000000 && ns % 1000000 == 0) tr_buf_printf(b, "%" PRId64 " ms", ns / 1000000);
    else tr_buf_printf(b, "%.9g s", (double)ns / 1e9);
}

static void show_fault(tr_buf *b, const oxl_fault *f, const oxl_fault *was) {
    tr_buf_printf(b, "%s %s at ", oxl_fault_kind_name(f->kind), f->label);
    show_time(b, f->at);
    if (f->dur > 0) {
        tr_buf_puts(b, " for ");
        show_time(b, f->dur);
        if (was && was->dur != f->dur) {
            tr_buf_puts(b, " (was ");
            show_time(b, was->dur);
            tr_buf_puts(b, ")");
        }
    }
}

/* "FIFO except switches 3 (choice 1) and 9 (choice 2)"; finding: the
 * shrinker's, which says what FIFO throughout means */
static void show_decisions(tr_buf *b, const cand *c, bool finding) {
    size_t k = not_fifo(c), seen = 0;
    if (k == 0) {
        tr_buf_puts(b, finding ? "FIFO throughout (the interleaving does not matter: look at the faults and the "
                                 "seed's random values)"
                               : "FIFO throughout");
        return;
    }
    tr_buf_printf(b, "FIFO except switch%s ", k > 1 ? "es" : "");
    for (size_t i = 0; i < c->ndec; i++)
        if (c->dec[i]) {
            seen++;
            tr_buf_printf(b, "%s%zu (choice %" PRIu32 ")", seen == 1 ? "" : seen == k ? " and " : ", ", i, c->dec[i]);
        }
}

static void summary(tr_buf *b, const shrink *sh, const cand *orig, const cand *best, double secs) {
    tr_buf_printf(b, "shrunk seed %" PRIu64 " of '%s' in %" PRIu64 " runs (%.2f s)\n", sh->seed, sh->t->shown, sh->runs,
                  secs);
    if (sh->exhausted)
        tr_buf_printf(b, "  the budget of %" PRIu64 " runs ran out: this is the best schedule found\n", sh->budget);
    tr_buf_puts(b, "  the failure: ");
    show_identity(b, sh->want);
    tr_buf_printf(b, "\n  decisions: %zu, %zu not FIFO -> %zu, %zu not FIFO\n", orig->ndec, not_fifo(orig), best->ndec,
                  not_fifo(best));
    tr_buf_printf(b, "  faults: %zu -> %zu\n", orig->nfaults, best->nfaults);
    tr_buf_puts(b, "  ");
    show_decisions(b, best, true);
    tr_buf_puts(b, "; faults kept: ");
    if (best->nfaults == 0) tr_buf_puts(b, "none");
    bool lines = best->nfaults > 3; /* a long list one a line */
    for (size_t i = 0; i < best->nfaults; i++) {
        const oxl_fault *was = NULL;
        for (size_t j = 0; j < orig->nfaults; j++)
            if (orig->faults[j].kind == best->faults[i].kind && orig->faults[j].ordinal == best->faults[i].ordinal)
                was = &orig->faults[j];
        tr_buf_puts(b, lines ? "\n    " : i ? ", " : "");
        show_fault(b, &best->faults[i], was);
    }
    tr_buf_puts(b, "\n");
}

/* ---- the commands ---- */

static const tr_test *the_test(tr_runner *r, const char *flag) {
    if (r->nsel != 1) {
        fprintf(stderr, "oxl test: %s takes exactly one test; --exact matched %zu\n", flag, r->nsel);
        return NULL;
    }
    if (!r->sel[0]->sim) {
        fprintf(stderr, "oxl test: %s takes a sim test; '%s' is a unit test\n", flag, r->sel[0]->shown);
        return NULL;
    }
    return r->sel[0];
}

static void paths(shrink *sh) {
    tr_pathf(sh->in, sizeof sh->in, "%s/shrink.schedule", sh->r->tmp);
    tr_pathf(sh->rec, sizeof sh->rec, "%s/shrink.recorded", sh->r->tmp);
    tr_pathf(sh->out, sizeof sh->out, "%s/shrink.out", sh->r->tmp);
    tr_pathf(sh->err, sizeof sh->err, "%s/shrink.err", sh->r->tmp);
}

/* The schedule the test binary wrote into sh->rec, as a candidate. */
static bool read_recorded(shrink *sh, cand *c) {
    size_t len;
    char *text = tr_read_all(sh->rec, OXL_SCHEDULE_MAX_BYTES, &len), why[512];
    oxl_schedule rec;
    if (!text || !oxl_schedule_parse(text, len, &rec, why, sizeof why)) {
        fprintf(stderr, "oxl test: the test binary did not record the seed's schedule%s%s\n", text ? ": " : "",
                text ? why : "");
        free(text);
        return false;
    }
    free(text);
    *c = (cand){rec.decisions, rec.ndecisions, rec.faults, rec.nfaults};
    rec.decisions = NULL;
    rec.faults = NULL;
    oxl_schedule_free(&rec);
    return true;
}

static int shrink_main(tr_runner *r, const tr_test *t) {
    double t0 = tr_now();
    shrink sh = {.r = r, .t = t, .seed = r->o.seed, .budget = r->o.shrink_budget ? r->o.shrink_budget
                                                                                   : SHRINK_DEFAULT_BUDGET};
    paths(&sh);
    char ident[65];
    if (!binary_identity(r->bin, ident)) {
        fprintf(stderr, "oxl test: cannot read the test binary '%s': %s\n", r->bin, strerror(errno));
        return TR_EXIT_USAGE;
    }
    /* the seed as it is, recorded */
    if (!run_once(&sh, NULL, true, &sh.want)) return r->interrupted ? 130 : TR_EXIT_USAGE;
    if (!sh.want) {
        char *e = tr_read_tail(sh.err, TR_SHOW_BYTES, &(size_t){0});
        fprintf(stderr, "oxl test: seed %" PRIu64 " of '%s' does not fail with a report (a passing seed, a crash or a "
                        "timeout): nothing to shrink\n", sh.seed, t->shown);
        if (e && *e) tr_print_captured("stderr", e, 0);
        free(e);
        return TR_EXIT_FAILED;
    }
    cand orig;
    if (!read_recorded(&sh, &orig)) {
        free(sh.want);
        return TR_EXIT_USAGE;
    }
    cand best = cand_copy(&orig);
    int status = TR_EXIT_FAILED;
    /* the recording must replay to the same failure, or no edit of it means anything */
    if (!same_failure(&sh, &best)) {
        if (!sh.stopped)
            fprintf(stderr, "oxl test: seed %" PRIu64 " of '%s' does not fail the same way when its recorded schedule "
                            "is replayed: it cannot be shrunk (is the test nondeterministic?)\n", sh.seed, t->shown);
        status = sh.stopped ? (r->interrupted ? 130 : TR_EXIT_USAGE) : TR_EXIT_NONDETERMINISM;
        goto done;
    }
    /* again while a pass gains: fewer faults can free decisions, and back */
    for (;;) {
        size_t dec = not_fifo(&best), faults = best.nfaults, ndec = best.ndec;
        shrink_passes(&sh, &best);
        if (sh.exhausted || sh.stopped || (not_fifo(&best) == dec && best.nfaults == faults && best.ndec == ndec)) break;
    }
    if (r->interrupted) {
        status = 130;
        goto done;
    }
    /* once more, recorded, for the faults as this schedule sees them: their
     * times and labels (the recording's drift once decisions change), and
     * only those that had their chance; not counted in the budget */
    char *id = NULL;
    cand seen;
    uint64_t runs = sh.runs;
    bool again = run_once(&sh, &best, true, &id);
    sh.runs = runs;
    if (again && id && strcmp(id, sh.want) == 0 && read_recorded(&sh, &seen)) {
        free(best.faults);
        best.faults = seen.faults;
        best.nfaults = seen.nfaults;
        seen.faults = NULL;
        cand_free(&seen);
    }
    free(id);
    char file[TR_PATH];
    if (r->o.shrink_out) snprintf(file, sizeof file, "%s", r->o.shrink_out);
    else snprintf(file, sizeof file, "oxl-schedule-seed%" PRIu64 ".txt", sh.seed);
    if (!write_schedule(file, t, sh.seed, &best, ident, sh.want)) {
        fprintf(stderr, "oxl test: cannot write the schedule file '%s': %s\n", file, strerror(errno));
        status = TR_EXIT_USAGE;
        goto done;
    }
    tr_buf b = {0};
    summary(&b, &sh, &orig, &best, tr_now() - t0);
    tr_buf_printf(&b, "schedule: %s\nreplay: ", file);
    /* as the reproduce line, without the seed and the policy (the file has
     * them): -O2 is another test binary, which the file would not match */
    tr_command_of(r, t, &b);
    tr_buf_puts(&b, " --replay ");
    tr_shell_word(&b, file);
    tr_buf_puts(&b, "\n");
    tr_emit(&b);
    status = TR_EXIT_FAILED; /* the test fails: the schedule shows how */
done:
    cand_free(&orig);
    cand_free(&best);
    free(sh.want);
    return status;
}

static int replay_main(tr_runner *r, const tr_test *t) {
    const char *file = r->o.replay;
    size_t len;
    char *text = tr_read_all(file, OXL_SCHEDULE_MAX_BYTES, &len), why[512], ident[65];
    if (!text) {
        fprintf(stderr, "oxl test: --replay '%s': cannot read it: %s\n", file,
                errno ? strerror(errno) : "larger than the limit");
        return TR_EXIT_USAGE;
    }
    oxl_schedule s;
    bool ok = oxl_schedule_parse(text, len, &s, why, sizeof why);
    free(text);
    if (!ok) {
        fprintf(stderr, "oxl test: --replay '%s' is not a schedule file: %s\n", file, why);
        return TR_EXIT_USAGE;
    }
    int status = TR_EXIT_USAGE;
    if (strcmp(s.test, t->name) != 0) {
        tr_buf b = {0};
        tr_name_escape(&b, s.test);
        fprintf(stderr, "oxl test: --replay '%s' is a schedule of the test '%s', not of '%s'\n", file, b.s ? b.s : "",
                t->shown);
        tr_buf_free(&b);
        goto done;
    }
    if (!binary_identity(r->bin, ident)) {
        fprintf(stderr, "oxl test: cannot read the test binary '%s': %s\n", r->bin, strerror(errno));
        goto done;
    }
    if (!s.binary[0] || strcmp(s.binary, ident) != 0) {
        fprintf(stderr,
                "oxl test: --replay '%s' was made with another test binary (%s%.12s, this one is %.12s): the "
                "package, the compiler or the runtime changed since; shrink the seed again\n",
                file, s.binary[0] ? "" : "none named", s.binary, ident);
        goto done;
    }
    {
        cand held = {s.decisions, s.ndecisions, s.faults, s.nfaults};
        tr_buf b = {0};
        tr_buf_printf(&b, "replaying %s: seed %" PRIu64 ", %zu decisions, ", file, s.seed, s.ndecisions);
        show_decisions(&b, &held, false);
        tr_buf_printf(&b, "; %zu fault%s%s", s.nfaults, s.nfaults == 1 ? "" : "s", s.nfaults ? ": " : "");
        for (size_t i = 0; i < s.nfaults && i < 8; i++) {
            if (i) tr_buf_puts(&b, ", ");
            show_fault(&b, &s.faults[i], NULL);
        }
        if (s.nfaults > 8) tr_buf_printf(&b, ", and %zu more", s.nfaults - 8);
        tr_buf_puts(&b, "\n");
        tr_emit(&b);
    }
    shrink sh = {.r = r, .t = t, .seed = s.seed, .budget = 1};
    paths(&sh);
    if (!tr_copy_file(file, sh.in, 0644)) {
        fprintf(stderr, "oxl test: cannot copy '%s': %s\n", file, strerror(errno));
        goto done;
    }
    /* the file as it is, not rewritten: run_once with a candidate would write it */
    char run[32], seed[32], in[TR_PATH + 32];
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", t->index);
    snprintf(seed, sizeof seed, "OXL_TEST_SEED=%" PRIu64, s.seed);
    snprintf(in, sizeof in, "OXL_SIM_SCHEDULE_IN=%s", sh.in);
    const char *env[] = {run, seed, "OXL_SIM_REPORT=1", in, "OXL_SIM_SCHEDULE_OUT", "OXL_DATA_DIR", NULL};
    tr_proc p;
    if (!tr_proc_start(&p, r->bin, NULL, env, sh.out, sh.err, r->o.timeout)) {
        fprintf(stderr, "oxl test: cannot start the test binary: %s\n", strerror(errno));
        goto done;
    }
    while (!tr_proc_poll(&p))
        if (!tr_wait_event(0.25, NULL, 0)) {
            tr_proc_kill(&p);
            r->interrupted = true;
            status = 130;
            goto done;
        }
    size_t omitted;
    char *err = tr_read_tail(sh.err, TR_SHOW_BYTES, &omitted);
    char *id = err && WIFEXITED(p.wstatus) && WEXITSTATUS(p.wstatus) == 101 ? failure_identity(err) : NULL;
    tr_buf b = {0};
    if (WIFEXITED(p.wstatus) && WEXITSTATUS(p.wstatus) == 0) {
        tr_buf_printf(&b, "ok   sim   %s (replay of %s, seed %" PRIu64 "): passes on this schedule\n", t->shown, file,
                      s.seed);
        status = TR_EXIT_PASS;
    } else {
        tr_buf_printf(&b, "FAIL sim   %s (replay of %s, seed %" PRIu64 ")\n", t->shown, file, s.seed);
        tr_emit(&b);
        if (err && *err) tr_print_captured("stderr", err, omitted);
        if (!id) tr_buf_puts(&b, "replay: the run did not end with a failure report\n");
        else if (s.failure && strcmp(id, s.failure) == 0) {
            tr_buf_puts(&b, "replay: the same failure as when it was shrunk (");
            show_identity(&b, id);
            tr_buf_puts(&b, ")\n");
        } else if (s.failure) {
            /* the schedule fixes the run, not its settings: a time limit,
             * the fence, an edited file can still change the failure */
            tr_buf_puts(&b, "replay: another failure than when it was shrunk: now ");
            show_identity(&b, id);
            tr_buf_puts(&b, ", then ");
            show_identity(&b, s.failure);
            tr_buf_puts(&b, "\n");
        }
        status = TR_EXIT_FAILED;
    }
    tr_emit(&b);
    free(id);
    free(err);
done:
    oxl_schedule_free(&s);
    return status;
}

int tr_shrink_main(tr_runner *r) {
    const tr_test *t = the_test(r, r->o.shrink ? "--shrink" : "--replay");
    if (!t) return TR_EXIT_USAGE;
    return r->o.shrink ? shrink_main(r, t) : replay_main(r, t);
}
