/* tr_report_tap.c: the TAP report (docs/testing.md, Reports): a test
 * point per test, a subtest per sim test with a point per seed, and a YAML
 * block for each failure. The header says version 13, which TAP::Harness
 * (prove) accepts; the subtests are indented four spaces with a
 * `# Subtest:` comment as TAP 14 writes them, which a TAP 13 reader skips
 * as unknown lines and a TAP 14 reader reads as subtests. */
#include "tr_internal.h"

#include <inttypes.h>

static void tap_desc(tr_buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '#' || *s == '\\') tr_buf_add(b, "\\", 1), tr_buf_add(b, s, 1);
        else if (*s == '\n') tr_buf_puts(b, "\\n");
        else tr_buf_add(b, s, 1);
    }
}

/* A test's description: "pkg: name" in a run of many packages. */
static void tap_name(const tr_runner *r, tr_buf *b, const tr_test *t) {
    if (r->multi) tap_desc(b, t->pkg), tr_buf_puts(b, ": ");
    tap_desc(b, t->name);
}

/* A YAML block (TAP 13 diagnostics) of a failing test or seed. */
static void tap_yaml(const tr_runner *r, tr_buf *b, const char *indent, const tr_outcome *oc, const tr_item *it) {
    tr_buf_printf(b, "%s  ---\n", indent);
    tr_buf f = {0};
    if (oc) {
        tr_failure_text(r, oc, &f);
        tr_buf_printf(b, "%s  message: ", indent);
        tr_json_str(b, f.s);
        tr_buf_printf(b, "\n%s  severity: fail\n", indent);
        if (oc->nondet || oc->uncompared) {
            tr_buf n = {0};
            if (oc->nondet) tr_nondet_text(r, oc, &n);
            else tr_uncompared_text(r, oc, &n);
            tr_buf_printf(b, "%s  %s: ", indent, oc->nondet ? "warning" : "note");
            tr_json_str(b, n.s);
            tr_buf_puts(b, "\n");
            tr_buf_free(&n);
        }
        tr_buf_printf(b, "%s  reproduce: ", indent);
        tr_json_str(b, oc->reproduce);
        tr_buf_puts(b, "\n");
        if (oc->diff) {
            tr_buf d = {0};
            tr_diff_text(oc, &d);
            tr_buf_printf(b, "%s  trace_diff: ", indent);
            tr_json_str(b, d.s);
            tr_buf_puts(b, "\n");
            tr_buf_free(&d);
        }
    }
    if (it->test->sim && it->err) {
        tr_buf d = {0};
        tr_doing_text(it, &d);
        if (d.len) {
            tr_buf_printf(b, "%s  doing: ", indent);
            tr_json_str(b, d.s);
            tr_buf_puts(b, "\n");
            /* what its caps left out, as numbers (tr_explain.c) */
            tr_doing_omitted om;
            tr_doing_omitted_of(it, &om);
            tr_buf_printf(b, "%s  tasks_omitted: %" PRIu64 "\n", indent, om.tasks);
            tr_buf_printf(b, "%s  messages_omitted: %" PRIu64 "\n", indent, om.messages);
            tr_buf_printf(b, "%s  cuts_omitted: %" PRIu64 "\n", indent, om.cuts);
        }
        tr_buf_free(&d);
    }
    tr_buf_free(&f);
    tr_buf d = {0};
    tr_describe(r, &d, it);
    tr_buf_printf(b, "%s  got: ", indent);
    tr_json_str(b, d.s);
    tr_buf_free(&d);
    tr_buf_printf(b, "\n%s  stdout: ", indent);
    tr_json_str(b, it->out ? it->out : "");
    tr_buf_printf(b, "\n%s  stderr: ", indent);
    tr_json_str(b, it->err ? it->err : "");
    tr_buf_printf(b, "\n%s  ...\n", indent);
}

static void start(tr_runner *r, size_t nunit, size_t nsim) {
    (void)nunit, (void)nsim;
    tr_buf b = {0};
    tr_buf_printf(&b, "TAP version 13\n1..%zu\n", (r->plan_tests ? r->plan_tests : r->nsel) + r->nuntested);
    /* a package of many not tested is a failing point: a stream that a
     * consumer reads without the exit status never passes for it */
    for (size_t i = 0; i < r->nuntested; i++) {
        tr_buf why = {0};
        tr_untested_text(r->untested[i], &why);
        tr_buf_printf(&b, "not ok %d - ", ++r->tap_n);
        tap_desc(&b, r->untested[i]->o.pkg);
        tr_buf_puts(&b, "\n  ---\n  message: ");
        tr_json_str(&b, why.s);
        tr_buf_puts(&b, "\n  severity: fail\n  ...\n");
        tr_buf_free(&why);
    }
    tr_emit(&b);
}

static void test_start(tr_runner *r, const tr_test *t, uint64_t seeds) {
    (void)r, (void)seeds;
    if (!t->sim) return;
    tr_buf b = {0};
    tr_buf_puts(&b, "# Subtest: ");
    tap_name(r, &b, t);
    tr_buf_puts(&b, "\n");
    tr_emit(&b);
}

static void seed(tr_runner *r, const tr_item *it, uint64_t pos, const tr_outcome *oc) {
    tr_buf b = {0};
    tr_buf_printf(&b, "    %s %" PRIu64 " - seed %" PRIu64 "%s\n", it->res == TR_RES_PASS ? "ok" : "not ok", pos + 1,
                  it->seed, it->replay ? " (replayed)" : "");
    if (it->res != TR_RES_PASS) tap_yaml(r, &b, "    ", oc, it);
    tr_emit(&b);
}

static void test_end(tr_runner *r, const tr_outcome *oc) {
    const tr_test *t = oc->test;
    tr_buf b = {0};
    r->tap_n++;
    if (t->sim && (oc->run || oc->interrupted)) tr_buf_printf(&b, "    1..%" PRIu64 "\n", oc->seeds_run);
    /* an interrupted test is not ok: never a pass for work not done */
    bool ok = !oc->interrupted && (oc->passed || !oc->run);
    tr_buf_printf(&b, "%s %d - ", ok ? "ok" : "not ok", r->tap_n);
    tap_name(r, &b, t);
    tr_buf why = {0};
    if (!oc->run) tr_not_run_text(r, oc, &why);
    if (oc->interrupted) tr_buf_printf(&b, " # %s", why.s);
    else if (!oc->run) tr_buf_printf(&b, " # SKIP %s", why.s);
    tr_buf_puts(&b, "\n");
    if (oc->interrupted) {
        tr_buf_puts(&b, "  ---\n  message: ");
        tr_json_str(&b, why.s);
        tr_buf_puts(&b, "\n  severity: interrupted\n  ...\n");
    }
    tr_buf_free(&why);
    if (oc->run && !oc->passed) tap_yaml(r, &b, "", oc, &oc->fail);
    tr_emit(&b);
}

static void end(tr_runner *r, const tr_totals *tot, int status) {
    tr_buf b = {0};
    if (status == 130) tr_buf_puts(&b, "Bail out! interrupted\n");
    tr_buf_printf(&b, "# passed %zu, failed %zu, not run %zu, not deterministic %zu", tot->passed, tot->failed,
                  tot->skipped, tot->nondet);
    if (tot->interrupted) tr_buf_printf(&b, ", interrupted %zu", tot->interrupted);
    if (r->nuntested) tr_buf_printf(&b, ", packages not tested %zu", r->nuntested);
    tr_buf_puts(&b, "\n");
    tr_emit(&b);
}

const tr_reporter tr_tap = {start, test_start, seed, test_end, end, .progress = false, .seed_traces = false};
