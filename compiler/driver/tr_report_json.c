/* tr_report_json.c: the JSON lines report (docs/testing.md, Reports): one
 * object per line, start, then per test test_start, its seeds and test,
 * and end. */
#include "tr_internal.h"

#include <inttypes.h>
#include <sys/wait.h>

/* A process's result, status or signal, trace, time and, when it failed,
 * its output. */
static void item_fields(const tr_runner *r, tr_buf *b, const tr_item *it) {
    (void)r;
    char sb[32];
    tr_buf_printf(b, "\"result\":\"%s\"", tr_result_names[it->res]);
    if (it->timed_out) tr_buf_puts(b, ",\"status\":null,\"signal\":null");
    else if (WIFSIGNALED(it->wstatus))
        tr_buf_printf(b, ",\"status\":null,\"signal\":\"%s\"", tr_signal_name(WTERMSIG(it->wstatus), sb, sizeof sb));
    else tr_buf_printf(b, ",\"status\":%d,\"signal\":null", WEXITSTATUS(it->wstatus));
    if (it->test->sim) {
        if (it->has_trace) tr_buf_printf(b, ",\"trace\":\"%016" PRIx64 "\"", it->trace);
        else tr_buf_puts(b, ",\"trace\":null");
    }
    tr_buf_printf(b, ",\"seconds\":%.6f", it->seconds);
    if (it->res != TR_RES_PASS) {
        tr_buf_puts(b, ",\"stdout\":");
        tr_json_str(b, it->out ? it->out : "");
        tr_buf_puts(b, ",\"stderr\":");
        tr_json_str(b, it->err ? it->err : "");
        if (it->test->sim) {
            tr_buf_puts(b, ",\"doing\":");
            tr_doing_json(it, b);
        }
    }
}

static void start(tr_runner *r, size_t nunit, size_t nsim) {
    tr_buf b = {0};
    tr_buf_puts(&b, "{\"event\":\"start\",\"package\":");
    tr_json_str(&b, r->o.pkg);
    tr_buf_printf(&b, ",\"unit\":%zu,\"sim\":%zu,\"jobs\":%d", nunit, nsim, r->o.jobs);
    if (r->sharded) tr_buf_printf(&b, ",\"shard\":%" PRIu64 ",\"shards\":%" PRIu64, r->shard_index, r->shard_total);
    tr_json_run_fields(r, &b); /* tr_merge.c: what --merge checks */
    tr_buf_puts(&b, "}\n");
    tr_emit(&b);
}

static void test_start(tr_runner *r, const tr_test *t, uint64_t seeds) {
    (void)r;
    tr_buf b = {0};
    tr_buf_printf(&b, "{\"event\":\"test_start\",\"kind\":\"%s\",\"index\":%d,\"name\":", tr_kind_name(t), t->index);
    tr_json_str(&b, t->name);
    tr_buf_puts(&b, ",\"location\":");
    tr_json_str(&b, t->loc);
    if (t->sim) tr_buf_printf(&b, ",\"seeds\":%" PRIu64, seeds);
    tr_json_test_fields(r, t, &b);
    tr_buf_puts(&b, "}\n");
    tr_emit(&b);
}

static void seed(tr_runner *r, const tr_item *it, uint64_t pos, const tr_outcome *oc) {
    (void)pos, (void)oc;
    tr_buf b = {0};
    tr_buf_puts(&b, "{\"event\":\"seed\",\"name\":");
    tr_json_str(&b, it->test->name);
    tr_buf_printf(&b, ",\"seed\":%" PRIu64 ",\"replayed\":%s,", it->seed, it->replay ? "true" : "false");
    item_fields(r, &b, it);
    tr_buf_puts(&b, ",\"package\":");
    tr_json_str(&b, it->test->pkg);
    tr_buf_puts(&b, "}\n");
    tr_emit(&b);
}

static void test_end(tr_runner *r, const tr_outcome *oc) {
    const tr_test *t = oc->test;
    tr_buf b = {0};
    tr_buf_printf(&b, "{\"event\":\"test\",\"kind\":\"%s\",\"index\":%d,\"name\":", tr_kind_name(t), t->index);
    tr_json_str(&b, t->name);
    tr_buf_printf(&b, ",\"result\":\"%s\"",
                  oc->interrupted ? "interrupted" : !oc->run ? "skip" : oc->passed ? "pass" : "fail");
    if (!oc->run && !oc->interrupted)
        tr_buf_printf(&b, ",\"reason\":\"%s\"", r->interrupted ? "interrupted" : "an earlier test failed");
    if (t->sim && (oc->run || oc->interrupted))
        tr_buf_printf(&b, ",\"seeds\":%" PRIu64 ",\"seeds_run\":%" PRIu64, oc->seeds_total, oc->seeds_run);
    if (oc->run || oc->interrupted) tr_buf_printf(&b, ",\"seconds\":%.6f", oc->seconds);
    if (oc->interrupted) {
        tr_buf why = {0};
        tr_not_run_text(r, oc, &why);
        tr_buf_puts(&b, ",\"message\":");
        tr_json_str(&b, why.s);
        tr_buf_free(&why);
    }
    if (oc->run && !oc->passed) {
        tr_buf f = {0};
        tr_failure_text(r, oc, &f);
        tr_buf_puts(&b, ",\"message\":");
        tr_json_str(&b, f.s);
        tr_buf_free(&f);
        /* where it failed: the report's place, else the test's */
        tr_buf why = {0};
        tr_place pl;
        tr_failure_place(r, oc, &why, &pl);
        tr_buf_puts(&b, ",\"file\":");
        tr_json_str(&b, pl.file);
        if (pl.line) tr_buf_printf(&b, ",\"line\":%d", pl.line);
        else tr_buf_puts(&b, ",\"line\":null");
        if (pl.column) tr_buf_printf(&b, ",\"column\":%d", pl.column);
        else tr_buf_puts(&b, ",\"column\":null");
        tr_buf_puts(&b, ",\"panic\":");
        tr_json_str(&b, why.s);
        tr_buf_free(&why);
        if (t->sim) tr_buf_printf(&b, ",\"failed_seed\":%" PRIu64, oc->fail.seed);
        if (t->sim)
            tr_buf_printf(&b, ",\"deterministic\":%s",
                          !oc->rerun_done || oc->uncompared ? "null" : oc->nondet ? "false" : "true");
        if (oc->nondet || oc->uncompared) {
            tr_buf n = {0};
            if (oc->nondet) tr_nondet_text(r, oc, &n);
            else tr_uncompared_text(r, oc, &n);
            tr_buf_puts(&b, oc->nondet ? ",\"warning\":" : ",\"note\":");
            tr_json_str(&b, n.s);
            tr_buf_free(&n);
        }
        tr_buf_puts(&b, ",\"reproduce\":");
        tr_json_str(&b, oc->reproduce);
        if (t->sim) {
            tr_buf_puts(&b, ",\"trace_diff\":");
            tr_diff_json(oc, &b);
        }
        tr_buf_puts(&b, ",\"failure\":{");
        item_fields(r, &b, &oc->fail);
        tr_buf_puts(&b, "}");
        if (oc->rerun_done) {
            /* the determinism re-run, for --merge */
            tr_buf_puts(&b, ",\"rerun\":{");
            item_fields(r, &b, &oc->rerun);
            tr_buf_puts(&b, "}");
        }
    }
    tr_buf_puts(&b, ",\"location\":");
    tr_json_str(&b, t->loc);
    tr_json_test_fields(r, t, &b);
    tr_buf_puts(&b, "}\n");
    tr_emit(&b);
}

static void end(tr_runner *r, const tr_totals *tot, int status) {
    double secs = tr_now() - r->t0;
    tr_buf b = {0};
    tr_buf_printf(&b,
                  "{\"event\":\"end\",\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu,\"nondeterministic\":%zu,"
                  "\"interrupted\":%zu,\"processes\":%" PRIu64 ",\"seconds\":%.6f,\"exit_status\":%d",
                  tot->passed, tot->failed, tot->skipped, tot->nondet, tot->interrupted, r->procs_run, secs, status);
    if (r->multi) {
        /* the packages of many not tested: [{"package":...,"exit_status":3,"message":...}] */
        tr_buf_puts(&b, ",\"not_tested\":[");
        for (size_t i = 0; i < r->nuntested; i++) {
            tr_buf why = {0};
            tr_untested_text(r->untested[i], &why);
            tr_buf_puts(&b, i ? ",{\"package\":" : "{\"package\":");
            tr_json_str(&b, r->untested[i]->o.pkg);
            tr_buf_printf(&b, ",\"exit_status\":%d,\"message\":", r->untested[i]->not_tested);
            tr_json_str(&b, why.s);
            tr_buf_puts(&b, "}");
            tr_buf_free(&why);
        }
        tr_buf_puts(&b, "]");
    }
    tr_buf_puts(&b, "}\n");
    tr_emit(&b);
}

const tr_reporter tr_json = {start, test_start, seed, test_end, end, .progress = false, .seed_traces = true};
