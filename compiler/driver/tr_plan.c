/* tr_plan.c: what a run does in which order (docs/testing.md, What runs,
 * in which order): the unit tests, then each sim test's seeds (their
 * order is tr_gen.c's), in this shard; the first failing seed of a test,
 * its determinism re-run, and the run's totals and exit status. */
#include "tr_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void reproduce_line(tr_runner *r, tr_outcome *oc) { tr_reproduce_line(r, oc); }

static void unit_done(tr_runner *r, tr_item *it, uint64_t pos, void *ctx) {
    size_t *k = ctx; /* index in r->outs of the first unit test of this shard */
    size_t i = *k;
    while (r->outs[i].test != it->test) i++;
    *k = i + 1;
    tr_outcome *oc = &r->outs[i];
    oc->run = true;
    oc->passed = it->res == TR_RES_PASS;
    oc->seconds = it->seconds;
    if (!oc->passed) {
        oc->fail = *it;
        it->out = it->err = NULL; /* moved */
        reproduce_line(r, oc);
    }
    r->rep->test_end(r, oc);
}

typedef struct sim_ctx {
    tr_outcome *oc;
    uint64_t base; /* positions reported before this batch (--in-process) */
} sim_ctx;

static void seed_done(tr_runner *r, tr_item *it, uint64_t pos, void *ctx) {
    tr_outcome *oc = ((sim_ctx *)ctx)->oc;
    pos += ((sim_ctx *)ctx)->base;
    oc->seeds_run = pos + 1;
    if (it->res == TR_RES_PASS) {
        oc->has_passed_seed = true; /* the trace diff's other side */
        oc->passed_seed = it->seed;
        tr_forget_failure(r, it->test, it->seed);
        r->rep->seed(r, it, pos, NULL);
        return;
    }
    /* the first failing seed: the batch stops here */
    oc->passed = false;
    oc->fail = *it;
    it->out = it->err = NULL;
    tr_remember_failure(r, it->test, it->seed);
}

static void rerun_done(tr_runner *r, tr_item *it, uint64_t pos, void *ctx) {
    tr_outcome *oc = ctx;
    oc->rerun = *it;
    it->out = it->err = NULL;
    oc->rerun_done = true;
}

static bool same_failure(const tr_item *a, const tr_item *b) {
    if (a->timed_out != b->timed_out) return false;
    if (!a->timed_out && a->wstatus != b->wstatus) return false;
    if (a->has_trace != b->has_trace) return false;
    return !a->has_trace || a->trace == b->trace;
}

/* --in-process: the seeds in explorers (tr_explore.c) until one does not
 * pass there; that one runs in a fresh process, whose result counts, and
 * the explorer starts again after it. A seed that failed in the explorer
 * and passes in a fresh process ran differently there: the mode stops
 * (state leaked between seeds) and the caller runs the rest in process
 * mode, as it does after a canary that ran differently. */
static void explore_sim_test(tr_runner *r, tr_outcome *oc, tr_gen *g, sim_ctx *c, uint64_t total, const char *what) {
    uint64_t pos = 0;
    for (;;) {
        int why = tr_explore(r, oc->test, g, &pos, total, what, seed_done, c);
        if (why != TR_EXPLORE_STOPPED || r->interrupted) break;
        tr_item it;
        if (!tr_gen_next(r, g, &it)) break;
        tr_gen one;
        memset(&one, 0, sizeof one);
        one.test = oc->test;
        tr_gen_give_back(&one, &it);
        c->base = pos;
        pos += tr_run_batch(r, &one, true, total, what, seed_done, c);
        free(one.back);
        if (!oc->passed || r->interrupted) break;
        tr_clear_progress(r);
        fprintf(stderr,
                "oxl test: error: --in-process: state leaked between seeds in '%s': seed %" PRIu64
                " did not pass in the explorer and passes in a fresh process; the rest of its seeds run in process "
                "mode\n",
                oc->test->shown, it.seed);
        break;
    }
    c->base = pos;
}

static void run_sim_test(tr_runner *r, tr_outcome *oc, uint64_t total) {
    const tr_test *t = oc->test;
    tr_gen g;
    tr_sim_gen(r, t, &g);
    oc->run = true;
    oc->passed = true;
    oc->seeds_total = total;
    r->rep->test_start(r, t, total);
    sim_ctx c = {oc, 0};
    char what[256];
    snprintf(what, sizeof what, "sim %.200s", t->shown);
    double t0 = tr_now();
    if (r->o.in_process) explore_sim_test(r, oc, &g, &c, total, what);
    if (oc->passed && !r->interrupted) tr_run_batch(r, &g, true, total, what, seed_done, &c);
    oc->seconds = tr_now() - t0;
    free(g.pre);
    free(g.back);
    if (r->interrupted && oc->passed) {
        /* not a pass: it did only the seeds it reports */
        oc->run = false;
        oc->interrupted = true;
        tr_clear_progress(r);
        r->rep->test_end(r, oc);
        return;
    }
    if (!oc->passed) {
        reproduce_line(r, oc);
        /* the same seed once more, to see that it fails the same way */
        tr_gen one;
        memset(&one, 0, sizeof one);
        one.test = t;
        one.pre = &oc->fail.seed;
        one.npre = 1;
        one.all_shards = true;
        /* a server of its own, not the run's: two children of one server
         * share its address layout, so behaviour that depends on
         * addresses would repeat; a new exec lays the process out anew */
        r->own_server = true;
        /* its trace, for the diff against the last passing seed */
        char dump[TR_PATH] = "";
        if (oc->has_passed_seed) tr_trace_dump_path(r, "fail", dump, sizeof dump);
        r->trace_dump = dump[0] ? dump : NULL;
        tr_run_batch(r, &one, false, 1, NULL, rerun_done, oc);
        r->trace_dump = NULL;
        r->own_server = false;
        if (!r->interrupted) tr_explain_failure(r, oc, dump);
        /* interrupted in the re-run: the failure stands, unchecked */
        /* a run that ran out of a resource says nothing of the test:
         * two runs of one seed run out at different points (a served and
         * an exec'd process have different mappings) */
        oc->uncompared = oc->rerun_done && (oc->fail.res == TR_RES_EXHAUSTED || oc->rerun.res == TR_RES_EXHAUSTED);
        oc->nondet = oc->rerun_done && !oc->uncompared && !same_failure(&oc->fail, &oc->rerun);
        r->rep->seed(r, &oc->fail, oc->seeds_run - 1, oc);
    }
    tr_clear_progress(r);
    r->rep->test_end(r, oc);
}

void tr_plan_prepare(tr_runner *r) {
    size_t nunit = 0, nsim = 0;
    /* unit tests first, then sim tests, each in source order; tests with
     * no process in this shard are left out */
    const tr_test **order = tr_xmalloc((r->nsel + 1) * sizeof *order);
    uint64_t *counts = tr_xmalloc((r->nsel + 1) * sizeof *counts);
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < r->nsel; i++) {
            const tr_test *t = r->sel[i];
            if (t->sim != (pass == 1)) continue;
            uint64_t c;
            if (t->sim) {
                tr_gen g;
                tr_sim_gen(r, t, &g);
                c = tr_gen_count(r, &g);
                free(g.pre);
            } else {
                c = tr_in_shard(r, t, 0) ? 1 : 0;
            }
            if (r->sharded) {
                /* for the shard status line: the processes of every shard */
                r->sharded = false;
                if (t->sim) {
                    tr_gen g;
                    tr_sim_gen(r, t, &g);
                    r->plan_all += tr_gen_count(r, &g);
                    free(g.pre);
                } else {
                    r->plan_all++;
                }
                r->sharded = true;
            }
            r->plan_in_shard += c;
            if (c == 0) continue;
            order[n] = t;
            counts[n++] = c;
            if (t->sim) nsim++;
            else nunit++;
        }
    }
    free(r->sel);
    r->sel = order;
    r->nsel = n;
    r->outs = tr_xmalloc((n + 1) * sizeof *r->outs);
    memset(r->outs, 0, (n + 1) * sizeof *r->outs);
    for (size_t i = 0; i < n; i++) r->outs[i].test = order[i];
    free(r->plan_counts);
    r->plan_counts = counts;
    r->plan_nunit = nunit;
    r->plan_nsim = nsim;
}

void tr_plan_execute(tr_runner *r, bool *failed_before, tr_totals *tot) {
    const tr_test **order = r->sel;
    size_t n = r->nsel, nunit = r->plan_nunit;
    uint64_t *counts = r->plan_counts;
    bool fail_fast = !r->o.no_fail_fast, failed = *failed_before;
    if (nunit && !(failed && fail_fast) && !r->interrupted) {
        tr_gen g;
        memset(&g, 0, sizeof g);
        g.units = order;
        g.nunits = nunit;
        g.all_shards = true; /* already chosen */
        size_t k = 0;
        for (size_t i = 0; i < nunit; i++) r->rep->test_start(r, order[i], 1);
        tr_run_batch(r, &g, fail_fast, nunit, "unit tests", unit_done, &k);
        tr_clear_progress(r);
        for (size_t i = 0; i < nunit; i++) {
            if (r->outs[i].run && !r->outs[i].passed) failed = true;
            /* started (handed to the batch) but not done */
            if (r->interrupted && !r->outs[i].run && i < g.upos) {
                r->outs[i].interrupted = true;
                r->rep->test_end(r, &r->outs[i]);
            }
        }
    }
    for (size_t i = nunit; i < n && !r->interrupted; i++) {
        if (failed && fail_fast) break;
        run_sim_test(r, &r->outs[i], counts[i]);
        if (r->outs[i].run && !r->outs[i].passed) failed = true;
    }
    *failed_before = failed;
    for (size_t i = 0; i < n; i++) {
        tr_outcome *oc = &r->outs[i];
        if (oc->interrupted) {
            tot->interrupted++;
        } else if (!oc->run) {
            tot->skipped++;
            r->rep->test_end(r, oc);
        } else if (oc->passed) tot->passed++;
        else {
            tot->failed++;
            if (oc->nondet) tot->nondet++;
        }
    }
}

int tr_plan_status(const tr_runner *r, const tr_totals *tot) {
    return r->interrupted   ? 130
           : tot->nondet    ? TR_EXIT_NONDETERMINISM
           : tot->failed    ? TR_EXIT_FAILED
                            : TR_EXIT_PASS;
}

bool tr_plan_junit(tr_runner *r) {
    const char *junit = r->o.junit;
    if (!junit) junit = getenv("XML_OUTPUT_FILE");
    return !(junit && *junit) || tr_write_junit(r, junit);
}

int tr_run_plan(tr_runner *r) {
    tr_plan_prepare(r);
    tr_shard_status(r, r->plan_in_shard, r->plan_all);
    r->rep->start(r, r->plan_nunit, r->plan_nsim);
    bool failed = false;
    tr_totals tot = {0};
    tr_plan_execute(r, &failed, &tot);
    int status = tr_plan_status(r, &tot);
    if (r->interrupted) {
        tr_clear_progress(r);
        fprintf(stderr, "oxl test: interrupted; the running tests were killed\n");
    }
    r->rep->end(r, &tot, status);
    if (!tr_plan_junit(r) && status == TR_EXIT_PASS) status = TR_EXIT_USAGE;
    return status;
}
