/* tr_report_github.c: `--format github`, and the human report under
 * GITHUB_ACTIONS=true: the human report with, after each failure's block,
 * a workflow command `::error file=F,line=L,title=T::message` that GitHub
 * shows on the failing line (docs/testing.md, github). */
#include "tr_internal.h"

#include <string.h>

/* A workflow command's data: %, CR and LF escaped; in a property ':' and
 * ',' too (they end it). */
static void gh_escape(tr_buf *b, const char *s, bool property) {
    for (; *s; s++) {
        if (*s == '%') tr_buf_puts(b, "%25");
        else if (*s == '\r') tr_buf_puts(b, "%0D");
        else if (*s == '\n') tr_buf_puts(b, "%0A");
        else if (property && *s == ':') tr_buf_puts(b, "%3A");
        else if (property && *s == ',') tr_buf_puts(b, "%2C");
        else tr_buf_add(b, s, 1);
    }
}

void tr_github_annotation(const tr_runner *r, const tr_outcome *oc, tr_buf *b) {
    tr_buf msg = {0}, f = {0}, title = {0};
    tr_place pl;
    tr_failure_place(r, oc, &msg, &pl);
    tr_failure_text(r, oc, &f);
    tr_buf_printf(&title, "%s %s", tr_kind_name(oc->test), oc->test->name);
    tr_buf_puts(b, "::error file=");
    gh_escape(b, pl.file, true);
    if (pl.line) tr_buf_printf(b, ",line=%d", pl.line);
    if (pl.column) tr_buf_printf(b, ",col=%d", pl.column);
    tr_buf_puts(b, ",title=");
    gh_escape(b, title.s, true);
    tr_buf_puts(b, "::");
    /* one line: the message, then the headline and the reproduce line */
    gh_escape(b, msg.s, false);
    tr_buf_puts(b, "%0A");
    gh_escape(b, f.s, false);
    tr_buf_puts(b, "%0Areproduce: ");
    gh_escape(b, oc->reproduce ? oc->reproduce : "", false);
    tr_buf_puts(b, "\n");
    tr_buf_free(&msg);
    tr_buf_free(&f);
    tr_buf_free(&title);
}

static void start(tr_runner *r, size_t nunit, size_t nsim) { tr_human.start(r, nunit, nsim); }
static void test_start(tr_runner *r, const tr_test *t, uint64_t seeds) { tr_human.test_start(r, t, seeds); }
static void seed(tr_runner *r, const tr_item *it, uint64_t pos, const tr_outcome *oc) { tr_human.seed(r, it, pos, oc); }

static void test_end(tr_runner *r, const tr_outcome *oc) {
    tr_human.test_end(r, oc);
    if (!oc->run || oc->passed) return;
    tr_buf b = {0};
    tr_github_annotation(r, oc, &b);
    tr_emit(&b);
}

static void end(tr_runner *r, const tr_totals *tot, int status) { tr_human.end(r, tot, status); }

const tr_reporter tr_github = {start, test_start, seed, test_end, end, .progress = true, .seed_traces = false};
