/* tr_failures.c: the failures file, <package>/oxl-test-failures.txt
 * (docs/testing.md): the seeds that failed, run first next time and
 * removed once they pass. */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tr_load_failures(tr_runner *r) {
    tr_pathf(r->fails_path, sizeof r->fails_path, "%s/%s", r->o.pkg, TR_FAILURES_FILE);
    size_t len;
    char *text = tr_read_all(r->fails_path, 16u << 20, &len);
    if (!text) return;
    size_t cap = 0;
    int line = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        line++;
        if (*s && *s != '#') {
            char *tab = strchr(s, '\t');
            uint64_t seed = 0;
            bool ok = tab != NULL;
            char *name = NULL;
            if (ok) {
                *tab = '\0';
                ok = tr_parse_u64(s, &seed);
                name = tr_name_unescape(tab + 1, strlen(tab + 1), &ok);
                ok = ok && *name;
            }
            if (!ok) {
                fprintf(stderr, "oxl test: warning: %s:%d: not '<seed><tab><test name>'; the line is dropped\n",
                        r->fails_path, line);
                free(name);
                r->fails_changed = true;
            } else {
                if (r->nfails == cap) {
                    cap = cap ? cap * 2 : 8;
                    r->fails = tr_xrealloc(r->fails, cap * sizeof *r->fails);
                }
                r->fails[r->nfails++] = (tr_fail_entry){name, seed, false};
            }
        }
        if (!nl) break;
        s = nl + 1;
    }
    free(text);
}

static tr_fail_entry *find_failure(tr_runner *r, const char *name, uint64_t seed) {
    for (size_t i = 0; i < r->nfails; i++)
        if (!r->fails[i].drop && r->fails[i].seed == seed && strcmp(r->fails[i].name, name) == 0) return &r->fails[i];
    return NULL;
}

void tr_forget_failure(tr_runner *r, const tr_test *t, uint64_t seed) {
    tr_fail_entry *f = find_failure(r, t->name, seed);
    if (f) {
        f->drop = true;
        r->fails_changed = true;
    }
}

void tr_remember_failure(tr_runner *r, const tr_test *t, uint64_t seed) {
    if (find_failure(r, t->name, seed)) return;
    r->fails = tr_xrealloc(r->fails, (r->nfails + 1) * sizeof *r->fails);
    r->fails[r->nfails++] = (tr_fail_entry){tr_xstrdup(t->name), seed, false};
    r->fails_changed = true;
}

static int cmp_fail(const void *a, const void *b) {
    const tr_fail_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->seed < y->seed ? -1 : x->seed > y->seed;
}

void tr_save_failures(tr_runner *r) {
    if (!r->fails_changed) return;
    size_t live = 0;
    for (size_t i = 0; i < r->nfails; i++)
        if (!r->fails[i].drop) r->fails[live++] = r->fails[i];
        else free(r->fails[i].name);
    r->nfails = live;
    if (live == 0) {
        if (unlink(r->fails_path) != 0 && errno != ENOENT)
            fprintf(stderr, "oxl test: warning: cannot remove '%s': %s\n", r->fails_path, strerror(errno));
        return;
    }
    qsort(r->fails, live, sizeof *r->fails, cmp_fail);
    tr_buf b = {0};
    tr_buf_puts(&b, "# Seeds that failed in `oxl test`; each is run first next time and removed once\n"
                    "# it passes. Commit this file. Format: <seed><TAB><test name>.\n");
    for (size_t i = 0; i < live; i++) {
        tr_buf_printf(&b, "%" PRIu64 "\t", r->fails[i].seed);
        tr_name_escape(&b, r->fails[i].name);
        tr_buf_puts(&b, "\n");
    }
    char tmp[TR_PATH];
    tr_pathf(tmp, sizeof tmp, "%s.%ld.tmp", r->fails_path, (long)getpid());
    if (!tr_write_file(tmp, b.s, b.len, 0644) || rename(tmp, r->fails_path) != 0) {
        fprintf(stderr, "oxl test: warning: cannot write '%s': %s\n", r->fails_path, strerror(errno));
        unlink(tmp);
    }
    tr_buf_free(&b);
}
