/* tr_locate.c: where a test and its failure are, for the reports that CI
 * servers read (JUnit, GitHub annotations, JSON): the package's name,
 * paths relative to the current directory, and a failure's message and
 * place taken from the failing process's report (its first `panic:`,
 * `deadlock:`, ... line and the `  at FILE:LINE` under it). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "tr_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tr_package_name(const tr_runner *r, char *buf, size_t cap) {
    char real[PATH_MAX];
    const char *p = realpath(r->o.pkg, real) ? real : r->o.pkg;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') n--;
    const char *base = p + n;
    while (base > p && base[-1] != '/') base--;
    snprintf(buf, cap, "%.*s", (int)(p + n - base), base);
    if (!*buf) snprintf(buf, cap, "%s", p);
    return buf;
}

/* The package directory as a prefix for its files, relative to the
 * current directory when it is inside it: "" for ".", "shop/", or an
 * absolute path outside. */
static void package_prefix(const tr_runner *r, char *buf, size_t cap) {
    const char *p = r->o.pkg;
    char cwd[PATH_MAX];
    size_t n;
    if (p[0] == '/') {
        if (getcwd(cwd, sizeof cwd) && (n = strlen(cwd)) > 1 && strncmp(p, cwd, n) == 0 && (p[n] == '/' || !p[n]))
            for (p += n; *p == '/'; p++) {
            }
    } else {
        while (p[0] == '.' && p[1] == '/')
            for (p += 2; *p == '/'; p++) {
            }
        if (strcmp(p, ".") == 0) p = "";
    }
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/') len--;
    if (len == 0) buf[0] = '\0';
    else snprintf(buf, cap, "%.*s%s", (int)len, p, p[len - 1] == '/' ? "" : "/");
}

/* "dir/file" for a file named relative to the package (an absolute name
 * stays as it is). */
static void cwd_path(const tr_runner *r, const char *file, size_t len, char *out, size_t cap) {
    if (len && file[0] == '/') {
        snprintf(out, cap, "%.*s", (int)len, file);
        return;
    }
    char pre[TR_PATH];
    package_prefix(r, pre, sizeof pre);
    snprintf(out, cap, "%s%.*s", pre, (int)len, file);
}

/* "file:line:col" into its parts; false when it is not of that form. */
static bool split_loc(const char *loc, size_t *flen, int *line, int *col) {
    const char *c2 = strrchr(loc, ':');
    if (!c2 || c2 == loc) return false;
    const char *c1 = c2 - 1;
    while (c1 > loc && *c1 != ':') c1--;
    if (*c1 != ':') return false;
    *flen = (size_t)(c1 - loc);
    *line = atoi(c1 + 1);
    *col = atoi(c2 + 1);
    return *line > 0;
}

void tr_test_place(const tr_runner *r, const tr_test *t, tr_place *pl) {
    size_t flen;
    memset(pl, 0, sizeof *pl);
    if (!split_loc(t->loc, &flen, &pl->line, &pl->column)) {
        snprintf(pl->file, sizeof pl->file, "%s", t->loc);
        pl->line = pl->column = 0;
        return;
    }
    cwd_path(r, t->loc, flen, pl->file, sizeof pl->file);
}

static const char *const heads[] = {"panic: ",       "deadlock: ", "time limit: ", "livelock: ",
                                    "simulation failed: ", "resource exhausted: ", NULL};

/* The first line of text that starts with a report's head, or NULL. */
static const char *head_line(const char *text) {
    for (const char *s = text; s && *s;) {
        for (int i = 0; heads[i]; i++)
            if (strncmp(s, heads[i], strlen(heads[i])) == 0) return s;
        s = strchr(s, '\n');
        if (s) s++;
    }
    return NULL;
}

void tr_failure_place(const tr_runner *r, const tr_outcome *oc, tr_buf *message, tr_place *pl) {
    tr_test_place(r, oc->test, pl);
    pl->from_report = false;
    const char *h = head_line(oc->fail.err);
    if (!h) {
        /* no report: what the runner saw (a signal, a timeout, a status) */
        tr_buf f = {0};
        tr_failure_text(r, oc, &f);
        const char *last = strrchr(f.s, '\n');
        tr_buf_puts(message, last ? last + 1 : f.s);
        tr_buf_free(&f);
        return;
    }
    if (strncmp(h, "panic: ", 7) == 0) h += 7;
    /* the message runs to the "  at FILE:LINE" line (a message may have
     * newlines of its own); without one within a few lines, its first line */
    size_t first = strcspn(h, "\n");
    const char *s = h + first, *at = NULL;
    for (int k = 0; k < 8 && *s == '\n'; k++) {
        s++;
        if (strncmp(s, "  at ", 5) == 0) {
            at = s;
            break;
        }
        s += strcspn(s, "\n");
    }
    tr_buf_add(message, h, at ? (size_t)(at - 1 - h) : first);
    if (!message->s) tr_buf_puts(message, "");
    if (!at) return;
    const char *f = at + 5;
    size_t flen = strcspn(f, ": \n");
    if (f[flen] == ':' && f[flen + 1] >= '1' && f[flen + 1] <= '9' && f[0] != '(' && f[0] != '?') {
        cwd_path(r, f, flen, pl->file, sizeof pl->file);
        pl->line = atoi(f + flen + 1);
        pl->column = 0;
        pl->from_report = true;
    }
}
