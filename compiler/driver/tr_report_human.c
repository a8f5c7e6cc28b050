/* tr_report_human.c: the human report (docs/testing.md, Reports): a line
 * per test, the failure blocks with the failing process's output and the
 * reproduce line, and the summary; the progress line on a terminal. */
#include "tr_internal.h"

#include <inttypes.h>

static void start(tr_runner *r, size_t nunit, size_t nsim) {
    tr_buf b = {0};
    char from[64];
    if (r->multi) snprintf(from, sizeof from, "%zu package%s", r->ngroup, r->ngroup == 1 ? "" : "s");
    tr_buf_printf(&b, "running %zu unit test%s and %zu sim test%s from %s with %d job%s", nunit, nunit == 1 ? "" : "s",
                  nsim, nsim == 1 ? "" : "s", r->multi ? from : r->o.pkg, r->o.jobs, r->o.jobs == 1 ? "" : "s");
    if (r->sharded) tr_buf_printf(&b, " (shard %" PRIu64 " of %" PRIu64 ")", r->shard_index + 1, r->shard_total);
    tr_buf_puts(&b, "\n");
    for (size_t i = 0; i < r->nuntested; i++) {
        tr_buf_printf(&b, "%sFAIL%s pkg   ", tr_paint(r, TR_RED), tr_paint(r, TR_RESET));
        tr_name_escape(&b, r->untested[i]->o.pkg);
        tr_buf_puts(&b, " (");
        tr_untested_text(r->untested[i], &b);
        tr_buf_puts(&b, ")\n");
    }
    tr_emit(&b);
}

/* A test's line comes at its end; passing seeds are not shown. */
static void test_start(tr_runner *r, const tr_test *t, uint64_t seeds) { (void)r, (void)t, (void)seeds; }

static void seed(tr_runner *r, const tr_item *it, uint64_t pos, const tr_outcome *oc) {
    (void)r, (void)it, (void)pos, (void)oc;
}

static void test_end(tr_runner *r, const tr_outcome *oc) {
    const tr_test *t = oc->test;
    tr_clear_progress(r);
    if (!oc->run) {
        tr_buf why = {0};
        tr_not_run_text(r, oc, &why);
        printf("%s%s%s %-5s %s (%s)\n", tr_paint(r, TR_YELLOW), oc->interrupted ? "INTR" : "skip", tr_paint(r, TR_RESET),
               tr_kind_name(t), t->shown, why.s);
        tr_buf_free(&why);
    } else if (oc->passed) {
        if (t->sim)
            printf("%sok%s   sim   %s (%" PRIu64 " seed%s, %.2f s)\n", tr_paint(r, TR_GREEN), tr_paint(r, TR_RESET),
                   t->shown, oc->seeds_run, oc->seeds_run == 1 ? "" : "s", oc->seconds);
        else printf("%sok%s   unit  %s (%.2f s)\n", tr_paint(r, TR_GREEN), tr_paint(r, TR_RESET), t->shown, oc->seconds);
    } else {
        printf("%sFAIL%s %-5s %s\n", tr_paint(r, TR_RED), tr_paint(r, TR_RESET), tr_kind_name(t), t->shown);
        tr_buf f = {0};
        tr_failure_text(r, oc, &f);
        printf("%s\n", f.s);
        tr_buf_free(&f);
        char lab[64];
        if (t->sim) snprintf(lab, sizeof lab, "stdout of seed %" PRIu64, oc->fail.seed);
        else snprintf(lab, sizeof lab, "stdout");
        tr_print_captured(lab, oc->fail.out, oc->fail.out_omitted);
        if (t->sim) snprintf(lab, sizeof lab, "stderr of seed %" PRIu64, oc->fail.seed);
        else snprintf(lab, sizeof lab, "stderr");
        tr_print_captured(lab, oc->fail.err, oc->fail.err_omitted);
        if (oc->diff) {
            tr_buf d = {0};
            tr_diff_text(oc, &d);
            printf("%s\n", d.s);
            tr_buf_free(&d);
        }
        if (oc->nondet) {
            tr_buf n = {0};
            tr_nondet_text(r, oc, &n);
            printf("%swarning:%s %s\n", tr_paint(r, TR_YELLOW), tr_paint(r, TR_RESET), n.s);
            tr_buf_free(&n);
        } else if (oc->uncompared) {
            tr_buf n = {0};
            tr_uncompared_text(r, oc, &n);
            printf("note: %s\n", n.s);
            tr_buf_free(&n);
        }
        printf("reproduce: %s\n", oc->reproduce);
    }
    fflush(stdout);
}

static void end(tr_runner *r, const tr_totals *tot, int status) {
    double secs = tr_now() - r->t0;
    tr_buf b = {0};
    tr_clear_progress(r);
    const char *word = status == 130                      ? "INTERRUPTED"
                       : status == TR_EXIT_NONDETERMINISM ? "NOT DETERMINISTIC"
                       : tot->failed || r->nuntested      ? "FAILED"
                                                          : "ok";
    const char *col = tot->failed || r->nuntested ? TR_RED : status == 130 ? TR_YELLOW : TR_GREEN;
    tr_buf_printf(&b, "\ntest result: %s%s%s. %zu passed, %zu failed", tr_paint(r, col), word, tr_paint(r, TR_RESET),
                  tot->passed, tot->failed);
    if (tot->interrupted) tr_buf_printf(&b, ", %zu interrupted", tot->interrupted);
    tr_buf_printf(&b, ", %zu not run", tot->skipped);
    if (tot->nondet) tr_buf_printf(&b, ", %zu not deterministic", tot->nondet);
    if (r->nuntested) tr_buf_printf(&b, ", %zu package%s not tested", r->nuntested, r->nuntested == 1 ? "" : "s");
    tr_buf_printf(&b, "; %" PRIu64 " process%s in %.2f s\n", r->procs_run, r->procs_run == 1 ? "" : "es", secs);
    tr_emit(&b);
}

const tr_reporter tr_human = {start, test_start, seed, test_end, end, .progress = true, .seed_traces = false};
