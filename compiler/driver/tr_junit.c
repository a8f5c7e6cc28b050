/* tr_junit.c: the JUnit XML report (docs/testing.md, JUnit XML), written
 * after the run to --junit's file or Bazel's XML_OUTPUT_FILE: a file, not
 * a stream, so it is no tr_reporter. A run of many packages has a
 * <testsuite> a package. */
#include "tr_internal.h"

#include <errno.h>
#include <string.h>

/* The counts of a package's run. */
static void count(const tr_runner *r, size_t *fails, size_t *skips, double *total) {
    for (size_t i = 0; i < r->nsel; i++) {
        if (!r->outs[i].run) ++*skips;
        else if (!r->outs[i].passed) ++*fails;
        *total += r->outs[i].seconds;
    }
}

/* One <testsuite>: a package. */
static void suite(tr_runner *r, tr_buf *b) {
    size_t fails = 0, skips = 0;
    double total = 0;
    count(r, &fails, &skips, &total);
    tr_buf_puts(b, "  <testsuite name=\"");
    tr_xml_text(b, r->o.pkg);
    tr_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", r->nsel, fails,
                  skips, total);
    for (size_t i = 0; i < r->nsel; i++) {
        const tr_outcome *oc = &r->outs[i];
        tr_buf_puts(b, "    <testcase name=\"");
        tr_xml_text(b, oc->test->name);
        tr_buf_printf(b, "\" classname=\"%s\" file=\"", tr_kind_name(oc->test));
        tr_xml_text(b, oc->test->loc);
        tr_buf_printf(b, "\" time=\"%.3f\"", oc->seconds);
        if (oc->run && oc->passed) {
            tr_buf_puts(b, "/>\n");
            continue;
        }
        tr_buf_puts(b, ">\n");
        if (!oc->run) {
            /* interrupted: not run, with the seeds it did */
            tr_buf why = {0};
            tr_not_run_text(r, oc, &why);
            tr_buf_puts(b, "      <skipped message=\"");
            tr_xml_text(b, why.s);
            tr_buf_puts(b, "\"/>\n");
            tr_buf_free(&why);
        } else {
            tr_buf f = {0};
            tr_failure_text(r, oc, &f);
            tr_buf_puts(b, "      <failure message=\"");
            tr_xml_text(b, f.s);
            tr_buf_printf(b, "\" type=\"%s\">", tr_result_names[oc->fail.res]);
            tr_xml_text(b, f.s);
            if (oc->nondet || oc->uncompared) {
                tr_buf n = {0};
                if (oc->nondet) tr_nondet_text(r, oc, &n);
                else tr_uncompared_text(r, oc, &n);
                tr_buf_puts(b, oc->nondet ? "\nwarning: " : "\nnote: ");
                tr_xml_text(b, n.s);
                tr_buf_free(&n);
            }
            tr_buf_puts(b, "\nreproduce: ");
            tr_xml_text(b, oc->reproduce);
            tr_buf_puts(b, "</failure>\n      <system-out>");
            tr_xml_text(b, oc->fail.out ? oc->fail.out : "");
            tr_buf_puts(b, "</system-out>\n      <system-err>");
            tr_xml_text(b, oc->fail.err ? oc->fail.err : "");
            tr_buf_puts(b, "</system-err>\n");
            tr_buf_free(&f);
        }
        tr_buf_puts(b, "    </testcase>\n");
    }
    tr_buf_puts(b, "  </testsuite>\n");
}

bool tr_write_junit(tr_runner *r, const char *path) {
    tr_buf b = {0};
    size_t fails = 0, skips = 0, tests = 0;
    double total = 0;
    size_t n = r->group ? r->ngroup : 1;
    for (size_t k = 0; k < n; k++) {
        tr_runner *p = r->group ? r->group[k] : r;
        count(p, &fails, &skips, &total);
        tests += p->nsel;
    }
    tr_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tr_buf_printf(&b, "<testsuites name=\"oxl test\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
                  tests, fails, skips, total);
    for (size_t k = 0; k < n; k++) suite(r->group ? r->group[k] : r, &b);
    tr_buf_puts(&b, "</testsuites>\n");
    bool ok = tr_write_file(path, b.s, b.len, 0644);
    if (!ok) fprintf(stderr, "oxl test: cannot write the JUnit report '%s': %s\n", path, strerror(errno));
    tr_buf_free(&b);
    return ok;
}
