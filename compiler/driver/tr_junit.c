/* tr_junit.c: the JUnit XML report (docs/testing.md, JUnit XML), written
 * after the run to --junit's file or Bazel's XML_OUTPUT_FILE: a file, not
 * a stream, so it is no tr_reporter. Shaped as Jenkins and GitLab group
 * it: the package is the classname, the test's name the testcase's, its
 * file (relative to the current directory) and line attributes of their
 * own, and a failure's message the panic's text. Valid against the
 * structure of Jenkins' junit-10.xsd (tests/runner/junit.xsd, with the
 * testcase's file and line added): no properties inside a testcase (a
 * test's kind and seeds are its suite's properties, named after it), no
 * skipped count on <testsuites>. A run of many packages has a <testsuite>
 * a package. */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* An attribute's value: as text, with newlines, tabs and CRs as character
 * references (a parser turns literal ones into spaces). */
static void xml_attr(tr_buf *b, const char *s) {
    while (*s) {
        size_t n = strcspn(s, "\n\t\r");
        char *part = tr_xmalloc(n + 1);
        memcpy(part, s, n);
        part[n] = '\0';
        tr_xml_text(b, part);
        free(part);
        s += n;
        if (*s) tr_buf_printf(b, "&#%d;", *s++);
    }
}

/* The counts of a package's run. */
static void count(const tr_runner *r, size_t *fails, size_t *skips, double *total) {
    for (size_t i = 0; i < r->nsel; i++) {
        if (!r->outs[i].run) ++*skips;
        else if (!r->outs[i].passed) ++*fails;
        *total += r->outs[i].seconds;
    }
}

/* A test's property, as its suite's: "<field>:<test name>" (junit-10
 * has properties on suites only; test names are unique in a package, and
 * a field never holds a ':', so the name splits at the first). */
static void test_property(tr_buf *b, const char *field, const tr_test *t, const char *value) {
    tr_buf_printf(b, "      <property name=\"%s:", field);
    xml_attr(b, t->name);
    tr_buf_puts(b, "\" value=\"");
    xml_attr(b, value);
    tr_buf_puts(b, "\"/>\n");
}

/* One <testsuite>: a package. */
static void suite(tr_runner *r, tr_buf *bp) {
    tr_buf b = *bp;
    size_t fails = 0, skips = 0;
    double total = 0;
    count(r, &fails, &skips, &total);
    char pkg[256];
    tr_package_name(r, pkg, sizeof pkg);
    /* the package as named on the command line: unique in a run of many
     * (the classname is its name, tr_package_name) */
    tr_buf_puts(&b, "  <testsuite name=\"");
    tr_xml_text(&b, r->o.pkg);
    tr_buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", r->nsel, fails,
                  skips, total);
    tr_buf_puts(&b, "    <properties>\n");
    for (size_t i = 0; i < r->nsel; i++) {
        const tr_outcome *oc = &r->outs[i];
        const tr_test *t = oc->test;
        char v[64];
        test_property(&b, "kind", t, tr_kind_name(t));
        if (t->sim) {
            snprintf(v, sizeof v, "%" PRIu64 "..%" PRIu64, t->first, t->last);
            test_property(&b, "seeds", t, v);
        }
        if (t->sim && oc->run && !oc->passed) {
            snprintf(v, sizeof v, "%" PRIu64, oc->fail.seed);
            test_property(&b, "failed_seed", t, v);
        }
        tr_doing_omitted om;
        if (t->sim && oc->run && !oc->passed && tr_doing_omitted_of(&oc->fail, &om)) {
            /* what the failure body's "what everyone was doing" left out, as numbers */
            snprintf(v, sizeof v, "%" PRIu64, om.tasks);
            test_property(&b, "tasks_omitted", t, v);
            snprintf(v, sizeof v, "%" PRIu64, om.messages);
            test_property(&b, "messages_omitted", t, v);
            snprintf(v, sizeof v, "%" PRIu64, om.cuts);
            test_property(&b, "cuts_omitted", t, v);
        }
    }
    tr_buf_puts(&b, "    </properties>\n");
    for (size_t i = 0; i < r->nsel; i++) {
        const tr_outcome *oc = &r->outs[i];
        const tr_test *t = oc->test;
        tr_place pl;
        tr_test_place(r, t, &pl);
        tr_buf_puts(&b, "    <testcase name=\"");
        tr_xml_text(&b, t->name);
        tr_buf_puts(&b, "\" classname=\"");
        tr_xml_text(&b, pkg);
        tr_buf_puts(&b, "\" file=\"");
        tr_xml_text(&b, pl.file);
        if (pl.line) tr_buf_printf(&b, "\" line=\"%d", pl.line);
        tr_buf_printf(&b, "\" time=\"%.3f\"", oc->seconds);
        if (oc->run && oc->passed) {
            tr_buf_puts(&b, "/>\n");
            continue;
        }
        tr_buf_puts(&b, ">\n");
        if (!oc->run) {
            /* interrupted: not run, with the seeds it did */
            tr_buf why = {0};
            tr_not_run_text(r, oc, &why);
            tr_buf_puts(&b, "      <skipped message=\"");
            tr_xml_text(&b, why.s);
            tr_buf_puts(&b, "\"/>\n");
            tr_buf_free(&why);
        } else {
            tr_buf f = {0}, msg = {0};
            tr_failure_text(r, oc, &f);
            tr_place fp;
            tr_failure_place(r, oc, &msg, &fp);
            tr_buf_puts(&b, "      <failure message=\"");
            xml_attr(&b, msg.s);
            tr_buf_free(&msg);
            tr_buf_printf(&b, "\" type=\"%s\">", tr_result_names[oc->fail.res]);
            tr_xml_text(&b, f.s);
            if (fp.from_report) {
                tr_buf_puts(&b, "\nat ");
                tr_xml_text(&b, fp.file);
                tr_buf_printf(&b, ":%d", fp.line);
            }
            if (oc->nondet || oc->uncompared) {
                tr_buf n = {0};
                if (oc->nondet) tr_nondet_text(r, oc, &n);
                else tr_uncompared_text(r, oc, &n);
                tr_buf_puts(&b, oc->nondet ? "\nwarning: " : "\nnote: ");
                tr_xml_text(&b, n.s);
                tr_buf_free(&n);
            }
            tr_buf_puts(&b, "\nreproduce: ");
            tr_xml_text(&b, oc->reproduce);
            tr_buf extra = {0};
            tr_doing_text(&oc->fail, &extra);
            tr_buf diff = {0};
            tr_diff_text(oc, &diff);
            if (diff.len) {
                if (extra.len) tr_buf_puts(&extra, "\n");
                tr_buf_add(&extra, diff.s, diff.len);
            }
            tr_buf_free(&diff);
            if (extra.len) {
                tr_buf_puts(&b, "\n");
                tr_xml_text(&b, extra.s);
            }
            tr_buf_free(&extra);
            tr_buf_puts(&b, "</failure>\n      <system-out>");
            tr_xml_text(&b, oc->fail.out ? oc->fail.out : "");
            tr_buf_puts(&b, "</system-out>\n      <system-err>");
            tr_xml_text(&b, oc->fail.err ? oc->fail.err : "");
            tr_buf_puts(&b, "</system-err>\n");
            tr_buf_free(&f);
        }
        tr_buf_puts(&b, "    </testcase>\n");
    }
    tr_buf_puts(&b, "  </testsuite>\n");
    *bp = b;
}

/* A package of many that was not tested: a suite of one testcase in
 * error, so a CI server that reads the file never shows the run whole. */
static void untested_suite(tr_runner *r, tr_buf *b) {
    char pkg[256];
    tr_package_name(r, pkg, sizeof pkg);
    tr_buf why = {0};
    tr_untested_text(r, &why);
    tr_buf_puts(b, "  <testsuite name=\"");
    tr_xml_text(b, r->o.pkg);
    tr_buf_puts(b, "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n    <testcase name=\"(package)\" classname=\"");
    tr_xml_text(b, pkg);
    tr_buf_puts(b, "\" time=\"0.000\">\n      <error message=\"");
    xml_attr(b, why.s);
    tr_buf_printf(b, "\" type=\"not-tested\"/>\n    </testcase>\n  </testsuite>\n");
    tr_buf_free(&why);
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
    /* junit-10 has no skipped count on <testsuites>: each suite has its own */
    tr_buf_printf(&b, "<testsuites name=\"oxl test\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
                  tests + r->nuntested, fails, r->nuntested, total);
    for (size_t k = 0; k < r->nuntested; k++) untested_suite(r->untested[k], &b);
    for (size_t k = 0; k < n; k++) suite(r->group ? r->group[k] : r, &b);
    tr_buf_puts(&b, "</testsuites>\n");
    bool ok = tr_write_file(path, b.s, b.len, 0644);
    if (!ok) fprintf(stderr, "oxl test: cannot write the JUnit report '%s': %s\n", path, strerror(errno));
    tr_buf_free(&b);
    return ok;
}
