/* tr_timeline.c: `oxl test --timeline FILE` (docs/testing.md, Timeline):
 * after the run, the one seed of --exact/--seed runs once more with
 * OXL_SIM_TRACE_DUMP (docs/test-binary.md, The trace dump) and its whole
 * trace becomes one self-contained HTML page: the run as JSON, drawn by
 * the script and styled by the sheet of compiler/driver/timeline/, both
 * inline, so the page loads nothing. */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* compiler/driver/timeline/timeline.{js,css}, embedded by the build */
extern const char tr_timeline_js[], tr_timeline_css[];

#define TL_MAX_DUMP (1u << 30)     /* bytes of a dump read back */
#define TL_MAX_DRAWN 50000u        /* events in the page: the last ones (a browser draws them in seconds) */

/* The path's directory must exist and be writable, and the path must not
 * be a directory: said before the build, not after the run. */
int tr_timeline_check(const tr_runner *r) {
    /* a trace dump is the timeline's run's alone: the run's servers and
     * seeds never get one from the environment (they would all write the
     * same file) */
    unsetenv("OXL_SIM_TRACE_DUMP");
    const char *path = r->o.timeline;
    if (!path) return TR_GO_ON;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "oxl test: --timeline '%s' is a directory; it takes the HTML file to write\n", path);
        return TR_EXIT_USAGE;
    }
    char dir[TR_PATH];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else if (!tr_pathf(dir, sizeof dir, "%.*s", (int)(slash - path), path)) {
        fprintf(stderr, "oxl test: --timeline '%s': the path is too long\n", path);
        return TR_EXIT_USAGE;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "oxl test: --timeline '%s' cannot be written: no directory '%s'\n", path, dir);
        return TR_EXIT_USAGE;
    }
    if (access(dir, W_OK) != 0 || (access(path, F_OK) == 0 && access(path, W_OK) != 0)) {
        fprintf(stderr, "oxl test: --timeline '%s' cannot be written: %s\n", path, strerror(errno));
        return TR_EXIT_USAGE;
    }
    return TR_GO_ON;
}

/* ---- the page ---- */

/* JSON text safe inside a <script> element: no "<" at all. */
static void json_in_script(tr_buf *b, const char *s) {
    tr_buf tmp = {0};
    tr_json_str(&tmp, s);
    for (size_t i = 0; i < tmp.len; i++) {
        if (tmp.s[i] == '<') tr_buf_puts(b, "\\u003c");
        else tr_buf_add(b, &tmp.s[i], 1);
    }
    tr_buf_free(&tmp);
}

static void first_line(char *buf, size_t cap, const char *s) {
    size_t n = strcspn(s, "\n");
    if (n >= cap) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

static bool render(tr_runner *r, const tr_test *test, const tr_dump *t, const char *out_text, tr_buf *page) {
    char headline[512];
    first_line(headline, sizeof headline, t->report);
    size_t first = t->nev > TL_MAX_DRAWN ? t->nev - TL_MAX_DRAWN : 0;

    tr_buf data = {0};
    tr_buf_puts(&data, "{\"test\":");
    json_in_script(&data, test->name);
    tr_buf_printf(&data, ",\"seed\":%" PRIu64 ",\"status\":", r->o.seed);
    json_in_script(&data, t->status);
    tr_buf_printf(&data, ",\"end_time\":%" PRId64 ",\"hash\":", t->end_time);
    json_in_script(&data, t->hash);
    tr_buf_printf(&data, ",\"events_total\":%" PRIu64 ",\"headline\":", t->total);
    json_in_script(&data, headline);
    tr_buf_puts(&data, ",\"nodes\":[");
    for (size_t i = 0; i < t->nnodes; i++) {
        if (i) tr_buf_puts(&data, ",");
        json_in_script(&data, t->nodes[i]);
    }
    tr_buf_puts(&data, "],\"events\":[");
    for (size_t i = first; i < t->nev; i++) {
        const tr_dump_event *e = &t->ev[i]; /* its counts are digits: tr_dump_read saw to that */
        tr_buf_printf(&data, "%s[%s,%s,%s,", i > first ? ",\n" : "\n", e->index, e->time_text, e->seq);
        json_in_script(&data, e->kind);
        tr_buf_printf(&data, ",%d,%d,%s,", tr_dump_node(t, e->node), tr_dump_node(t, e->peer), e->arg);
        json_in_script(&data, e->label);
        tr_buf_puts(&data, ",");
        json_in_script(&data, e->site);
        tr_buf_puts(&data, "]");
    }
    tr_buf_puts(&data, "]}");

    bool failed = strcmp(t->status, "finished") != 0;
    tr_buf_puts(page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    tr_xml_text(page, test->name);
    tr_buf_printf(page, " seed %" PRIu64 " - oxl test timeline</title>\n<style>\n", r->o.seed);
    tr_buf_puts(page, tr_timeline_css);
    tr_buf_puts(page, "</style></head>\n<body>\n<h1>");
    tr_xml_text(page, test->name);
    tr_buf_printf(page, ", seed %" PRIu64 "</h1>\n<div class=\"meta\" id=\"summary\">", r->o.seed);
    tr_buf_printf(page, "%s at ", failed ? "failed" : "passed");
    tr_buf_printf(page, "%" PRId64 ".%09" PRId64 "s of virtual time; ", t->end_time / 1000000000, t->end_time % 1000000000);
    tr_buf_printf(page, "%zu nodes, %" PRIu64 " trace events, trace ", t->nnodes, t->total);
    tr_xml_text(page, t->hash);
    tr_buf_puts(page, "; <code>");
    tr_buf reproduce = {0};
    tr_seed_command(r, test, r->o.seed, &reproduce); /* the failure's own reproduce line */
    tr_xml_text(page, reproduce.s);
    tr_buf_free(&reproduce);
    tr_buf_puts(page, "</code>");
    if (first || t->truncated)
        tr_buf_printf(page, "<br>only the last %zu events are drawn (the dump kept %zu of %" PRIu64 ")", t->nev - first,
                      t->nev, t->total);
    tr_buf_puts(page,
                "</div>\n<div class=\"controls\"><button id=\"zoom-out\">&minus;</button><button id=\"zoom-in\">+</button>"
                "<button id=\"zoom-fit\">fit</button> <span id=\"zoom-level\"></span> &nbsp; x axis: "
                "<select id=\"mode\"><option value=\"time\">virtual time</option><option value=\"steps\">trace events"
                "</option></select> &nbsp; (ctrl+wheel zooms; hover for details)</div>\n"
                "<div class=\"legend\"><span><i style=\"background:#7fb3e6\"></i>task</span>"
                "<span><i style=\"background:#335;height:2px\"></i>message</span>"
                "<span><i style=\"background:#c07000;height:2px\"></i>duplicate</span>"
                "<span><i style=\"background:#c00;height:2px\"></i>dropped &times;</span>"
                "<span><i style=\"background:rgba(255,170,0,.4)\"></i>partition</span>"
                "<span><i style=\"background:rgba(120,120,120,.4)\"></i>node down</span>"
                "<span style=\"color:#c00\">&#x2716; crash</span><span style=\"color:#2a2\">&#x25B2; restart</span>"
                "<span style=\"color:#606\">&#x2691; note</span></div>\n"
                "<div id=\"chart\"></div>\n<div id=\"tip\"></div>\n");
    tr_buf_printf(page, "<h2>%s</h2>\n<pre class=\"report%s\" id=\"report\">", failed ? "The failure" : "The end",
                  failed ? "" : " ok");
    tr_xml_text(page, *t->report ? t->report : failed ? t->status : "the run finished: every task ended");
    tr_buf_puts(page, "</pre>\n");
    tr_buf_printf(page, "<details id=\"events\"><summary>the trace: %zu events, one a line</summary>"
                        "<pre id=\"event-list\"></pre></details>\n", t->nev - first);
    if (out_text && *out_text) {
        tr_buf_puts(page, "<details><summary>the test's stdout</summary><pre>");
        tr_xml_text(page, out_text);
        tr_buf_puts(page, "</pre></details>\n");
    }
    tr_buf_puts(page, "<script type=\"application/json\" id=\"oxl-run\">");
    tr_buf_add(page, data.s, data.len);
    tr_buf_puts(page, "</script>\n<script>\n");
    tr_buf_puts(page, tr_timeline_js);
    tr_buf_puts(page, "</script>\n</body></html>\n");
    tr_buf_free(&data);
    return true;
}

/* ---- the run of the seed ---- */

static const tr_test *timeline_test(const tr_runner *r) {
    for (size_t i = 0; i < r->nsel; i++)
        if (r->sel[i]->sim && strcmp(r->sel[i]->name, r->o.exact) == 0) return r->sel[i];
    return NULL;
}

/* The seed once more, exec'd (its environment carries the dump's path),
 * waited for. False, said, when it could not run or was interrupted. */
static bool run_seed(tr_runner *r, const tr_test *test, const char *dump, const char *out, const char *err,
                     int *wstatus) {
    char run[48], seed[48], data[TR_PATH + 16], dumpvar[TR_PATH + 32], datadir[TR_PATH];
    tr_pathf(datadir, sizeof datadir, "%s/timeline-data", r->tmp);
    if (!tr_mkdir_p(datadir)) {
        fprintf(stderr, "oxl test: cannot create '%s': %s\n", datadir, strerror(errno));
        return false;
    }
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", test->index);
    snprintf(seed, sizeof seed, "OXL_TEST_SEED=%" PRIu64, r->o.seed);
    snprintf(data, sizeof data, "OXL_DATA_DIR=%s", datadir);
    snprintf(dumpvar, sizeof dumpvar, "OXL_SIM_TRACE_DUMP=%s", dump);
    /* the run's policy: the page is of the seed as the run ran it */
    const char *env[] = {run, seed, data, "OXL_SIM_REPORT=1", dumpvar, r->sim_env[0], r->sim_env[1], NULL};
    tr_proc p;
    if (!tr_proc_start(&p, r->bin, NULL, env, out, err, r->o.timeout)) {
        fprintf(stderr, "oxl test: cannot start the test binary for the timeline: %s\n", strerror(errno));
        return false;
    }
    while (!tr_proc_poll(&p)) {
        if (!tr_wait_event(0.5, NULL, 0)) {
            tr_proc_kill(&p);
            r->interrupted = true;
            fprintf(stderr, "oxl test: interrupted; no timeline written\n");
            return false;
        }
    }
    if (p.timed_out) {
        fprintf(stderr, "oxl test: the timeline's run of seed %" PRIu64 " timed out after %gs\n", r->o.seed, r->o.timeout);
        return false;
    }
    *wstatus = p.wstatus;
    return true;
}

int tr_timeline_write(tr_runner *r, int status) {
    if (!r->o.timeline || r->interrupted) return status;
    /* as for --junit: a page that could not be had turns a pass into a
     * usage error and leaves a failure the failure it is */
    int bad = status == TR_EXIT_PASS ? TR_EXIT_USAGE : status;
    const tr_test *test = timeline_test(r);
    if (!test) {
        fprintf(stderr, "oxl test: --timeline: '%s' is not a sim test of this run\n", r->o.exact);
        return bad;
    }
    char dump[TR_PATH], out[TR_PATH], err[TR_PATH], tmp_page[TR_PATH + 16];
    tr_pathf(dump, sizeof dump, "%s/timeline.trace", r->tmp);
    tr_pathf(out, sizeof out, "%s/timeline.out", r->tmp);
    tr_pathf(err, sizeof err, "%s/timeline.err", r->tmp);
    int wstatus = 0;
    if (!run_seed(r, test, dump, out, err, &wstatus)) return r->interrupted ? 130 : bad;
    tr_dump t;
    char why[512];
    if (!tr_dump_read(dump, TL_MAX_DUMP, &t, why, sizeof why)) {
        size_t omitted = 0;
        char *said = tr_read_tail(err, 4096, &omitted);
        fprintf(stderr, "oxl test: the timeline's run of seed %" PRIu64 ": %s (wait status %d)%s%s\n", r->o.seed, why,
                wstatus, said && *said ? ":\n" : "", said ? said : "");
        free(said);
        return bad;
    }
    size_t omitted = 0;
    char *out_text = tr_read_tail(out, TR_SHOW_BYTES, &omitted);
    tr_buf page = {0};
    bool ok = render(r, test, &t, out_text, &page);
    if (ok) {
        /* a whole page or none: written beside, then renamed */
        tr_pathf(tmp_page, sizeof tmp_page, "%s.tmp", r->o.timeline);
        if (!tr_write_file(tmp_page, page.s, page.len, 0644) || rename(tmp_page, r->o.timeline) != 0) {
            fprintf(stderr, "oxl test: cannot write the timeline '%s': %s\n", r->o.timeline, strerror(errno));
            unlink(tmp_page);
            ok = false;
        }
    }
    if (ok) {
        fprintf(stderr, "oxl test: timeline of seed %" PRIu64 " (%s, %" PRIu64 " events, %zu node%s) written to %s\n",
                r->o.seed, t.status, t.total, t.nnodes, t.nnodes == 1 ? "" : "s", r->o.timeline);
        /* the failing run's trace against the timeline's: they must agree */
        for (size_t i = 0; r->outs && i < r->nsel; i++) {
            const tr_outcome *oc = &r->outs[i];
            if (oc->test != test || oc->passed || !oc->fail.has_trace) continue;
            char h[17];
            snprintf(h, sizeof h, "%016" PRIx64, oc->fail.trace);
            if (strcmp(h, t.hash) != 0)
                fprintf(stderr, "oxl test: warning: the timeline's run has trace %s, the failing run had %s: the test is "
                                "not deterministic, the timeline may show another run\n", t.hash, h);
        }
    }
    tr_buf_free(&page);
    free(out_text);
    tr_dump_free(&t);
    return ok ? status : bad;
}
