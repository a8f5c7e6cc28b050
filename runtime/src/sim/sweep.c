/* sweep.c: run one scenario over many seeds and report every failing seed,
 * whether it reproduces, its trace tail and the command that reruns it. */
#include "sim_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

oxl_sweep_options oxl_sweep_options_default(uint64_t first, uint64_t count) {
    oxl_sweep_options o;
    memset(&o, 0, sizeof o);
    o.first = first;
    o.count = count;
    o.world = oxl_world_options_default(first);
    o.tail = 20;
    o.rerun = "OXL_SIM_SEED={seed}";
    return o;
}

static bool env_u64(const char *name, uint64_t *out) {
    const char *s = getenv(name);
    if (!s) return true;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-') {
        fprintf(stderr, "error: %s='%s' is not a non-negative integer\n", name, s);
        return false;
    }
    *out = v;
    return true;
}

bool oxl_sweep_options_from_env(oxl_sweep_options *opt) {
    uint64_t seed = 0, count = opt->count, first = opt->first;
    bool have_seed = getenv("OXL_SIM_SEED") != NULL;
    if (!env_u64("OXL_SIM_SEED", &seed) || !env_u64("OXL_SIM_SEEDS", &count) ||
        !env_u64("OXL_SIM_FIRST_SEED", &first))
        return false;
    if (have_seed) {
        opt->first = seed;
        opt->count = 1;
        return true;
    }
    if (count == 0) {
        fprintf(stderr, "error: OXL_SIM_SEEDS=0 runs no seed\n");
        return false;
    }
    opt->first = first;
    opt->count = count;
    return true;
}

/* The rerun command with every "{seed}" replaced. */
static char *sweep_command(const char *tmpl, uint64_t seed) {
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, seed);
    size_t cap = strlen(tmpl) + 1, len = 0;
    for (const char *p = strstr(tmpl, "{seed}"); p; p = strstr(p + 6, "{seed}")) cap += strlen(num);
    char *out = sim_xmalloc(cap);
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{seed}", 6) == 0) {
            memcpy(out + len, num, strlen(num));
            len += strlen(num);
            p += 6;
        } else {
            out[len++] = *p++;
        }
    }
    out[len] = 0;
    return out;
}

typedef struct sweep_run {
    char *reason; /* NULL = passed */
    uint64_t hash;
    char *tail;
} sweep_run;

static sweep_run sweep_once(oxl_sweep_body body, void *arg, const oxl_sweep_options *opt, uint64_t seed,
                            bool want_tail) {
    oxl_world_options wo = opt->world;
    wo.seed = seed;
    oxl_world *w = oxl_world_new(&wo);
    const char *why = body(w, arg);
    if (!why && oxl_world_failed(w)) why = oxl_world_failure(w);
    sweep_run r = {NULL, oxl_world_trace_hash(w), NULL};
    if (why) {
        r.reason = sim_xstrdup(why);
        if (want_tail) {
            char *buf = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&buf, &len);
            if (!mem) sim_oom();
            oxl_world_trace_render(w, opt->tail ? opt->tail : 20, mem);
            fclose(mem);
            r.tail = buf;
        }
    }
    oxl_world_free(w);
    return r;
}

uint64_t oxl_sweep(oxl_sweep_body body, void *arg, const oxl_sweep_options *opt, oxl_sweep_report *report) {
    memset(report, 0, sizeof *report);
    size_t cap = 0;
    for (uint64_t i = 0; i < opt->count; i++) {
        uint64_t seed = opt->first + i;
        sweep_run r = sweep_once(body, arg, opt, seed, true);
        report->run++;
        if (!r.reason) {
            report->passed++;
            continue;
        }
        /* Rerun the failing seed: the same reason and trace hash prove the
         * failure is a function of the seed alone. */
        sweep_run again = sweep_once(body, arg, opt, seed, false);
        if (report->failed == cap) {
            cap = cap ? cap * 2 : 4;
            report->failures = sim_xrealloc(report->failures, cap * sizeof *report->failures);
        }
        oxl_sweep_failure *f = &report->failures[report->failed++];
        f->seed = seed;
        f->reason = r.reason;
        f->hash = r.hash;
        f->rerun_hash = again.hash;
        f->reproduced = again.reason && strcmp(again.reason, r.reason) == 0 && again.hash == r.hash;
        f->tail = r.tail;
        f->command = sweep_command(opt->rerun ? opt->rerun : "OXL_SIM_SEED={seed}", seed);
        free(again.reason);
        if (opt->stop_at_first) break;
    }
    return report->failed;
}

void oxl_sweep_report_print(const oxl_sweep_report *r, FILE *out) {
    fprintf(out, "sweep: %" PRIu64 " seeds run, %" PRIu64 " passed, %" PRIu64 " failed\n", r->run, r->passed,
            r->failed);
    for (uint64_t i = 0; i < r->failed; i++) {
        const oxl_sweep_failure *f = &r->failures[i];
        fprintf(out, "seed %" PRIu64 " failed: %s\n", f->seed, f->reason);
        if (f->reproduced)
            fprintf(out, "  reproduced: yes (trace hash %016" PRIx64 ")\n", f->hash);
        else
            fprintf(out, "  reproduced: NO - not deterministic (trace hash %016" PRIx64 ", then %016" PRIx64 ")\n",
                    f->hash, f->rerun_hash);
        fprintf(out, "  last events:\n%s", f->tail ? f->tail : "");
        fprintf(out, "  rerun: %s\n", f->command);
    }
}

void oxl_sweep_report_free(oxl_sweep_report *r) {
    for (uint64_t i = 0; i < r->failed; i++) {
        free(r->failures[i].reason);
        free(r->failures[i].tail);
        free(r->failures[i].command);
    }
    free(r->failures);
    memset(r, 0, sizeof *r);
}
