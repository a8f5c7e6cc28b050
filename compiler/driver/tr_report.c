/* tr_report.c: what the report formats share: the result names, color,
 * the progress line, and the text of a process's result, of a failure and
 * of a nondeterminism warning. */
#include "tr_internal.h"

#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

#define TR_RESULT_NAME(id, name) name,
const char *const tr_result_names[TR_NRESULTS] = {TR_RESULTS(TR_RESULT_NAME)};
#undef TR_RESULT_NAME

const char *tr_kind_name(const tr_test *t) { return t->sim ? "sim" : "unit"; }

const char *tr_paint(const tr_runner *r, const char *code) { return r->color ? code : ""; }

void tr_clear_progress(tr_runner *r) {
    if (r->progress_shown) {
        fputs("\r\033[K", stdout);
        r->progress_shown = false;
    }
}

void tr_show_progress(tr_runner *r, const char *what, uint64_t done, uint64_t total, uint64_t failed, double since) {
    if (!r->tty || !r->rep->progress || !tr_progress_drawable()) return;
    tr_buf b = {0};
    tr_buf_puts(&b, "\r\033[K");
    tr_progress_text(&b, tr_term_width(1), what, done, total, failed, tr_now() - since);
    fputs(b.s, stdout);
    tr_buf_free(&b);
    fflush(stdout);
    r->progress_shown = true;
}

void tr_describe(const tr_runner *r, tr_buf *b, const tr_item *it) {
    char sb[32];
    if (it->timed_out) tr_buf_printf(b, "timed out after %g s", r->o.timeout);
    else if (WIFSIGNALED(it->wstatus)) tr_buf_puts(b, tr_signal_name(WTERMSIG(it->wstatus), sb, sizeof sb));
    else tr_buf_printf(b, "exit status %d", WEXITSTATUS(it->wstatus));
    if (it->test->sim) {
        if (it->has_trace) tr_buf_printf(b, ", trace %016" PRIx64, it->trace);
        else tr_buf_puts(b, ", no trace");
    }
}

void tr_failure_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b) {
    const tr_item *f = &oc->fail;
    char sb[32];
    const char *who = "test";
    char seedword[48];
    if (oc->test->sim) {
        snprintf(seedword, sizeof seedword, "seed %" PRIu64, f->seed);
        who = seedword;
        tr_buf_printf(b, "%s failed (%" PRIu64 " of %" PRIu64 " seeds run)", who, oc->seeds_run, oc->seeds_total);
    } else {
        tr_buf_puts(b, "test failed");
    }
    if (f->timed_out) tr_buf_printf(b, "\n%s timed out after %g s", who, r->o.timeout);
    else if (f->res == TR_RES_EXHAUSTED)
        tr_buf_printf(b,
                      "\n%s ran out of a resource (exit status %d): no verdict on the test; its report says what ran out",
                      who, TR_EXIT_EXHAUSTED);
    else if (f->server_died)
        tr_buf_printf(b, "\n%s crashed: SIGKILL, with the fork server that ran it (its parent: did it kill it?)", who);
    else if (WIFSIGNALED(f->wstatus))
        tr_buf_printf(b, "\n%s crashed: %s", who, tr_signal_name(WTERMSIG(f->wstatus), sb, sizeof sb));
    else if (f->incomplete)
        tr_buf_printf(b,
                      "\n%s crashed: exit status 0 before its run ended (no '%s' report line: an exit() in a C extern, or "
                      "not a test binary of this oxl)",
                      who, oc->test->sim ? "oxl-sim:" : "oxl-unit:");
    else if (WEXITSTATUS(f->wstatus) != 101) tr_buf_printf(b, "\n%s crashed: exit status %d", who, WEXITSTATUS(f->wstatus));
}

void tr_uncompared_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b) {
    tr_buf_puts(b, "not compared for determinism: a run ran out of a resource (the re-run gave ");
    tr_describe(r, b, &oc->rerun);
    tr_buf_puts(b, ")");
}

void tr_nondet_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b) {
    tr_buf_printf(b, "not deterministic: seed %" PRIu64 " gave ", oc->fail.seed);
    tr_describe(r, b, &oc->fail);
    tr_buf_puts(b, "; re-run with OXL_SIM_REPORT=1 it gave ");
    tr_describe(r, b, &oc->rerun);
}

void tr_not_run_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b) {
    if (oc->interrupted && oc->test->sim)
        tr_buf_printf(b, "interrupted after %" PRIu64 " of %" PRIu64 " seeds run", oc->seeds_run, oc->seeds_total);
    else if (oc->interrupted) tr_buf_puts(b, "interrupted");
    else tr_buf_puts(b, r->interrupted ? "not run: interrupted" : "not run: an earlier test failed");
}

void tr_print_captured(const char *label, const char *text, size_t omitted) {
    if (!text || !*text) return;
    printf("--- %s ---\n", label);
    if (omitted) printf("(%zu bytes before these not shown)\n", omitted);
    fputs(text, stdout);
    if (text[strlen(text) - 1] != '\n') putchar('\n');
}

void tr_emit(tr_buf *b) {
    fputs(b->s ? b->s : "", stdout);
    fflush(stdout);
    tr_buf_free(b);
}
