/* tr_failures.c: the failures file, <package>/oxl-test-failures.txt
 * (docs/testing.md): the seeds that failed, run first next time and
 * removed once they pass.
 *
 * Two runs of one package may end at the same time (two shells, a CI job
 * per kind), so the file is never written from what a run read at its
 * start: at the end the run takes a lock (flock of the package
 * directory, so no lock file lies in the package), reads the file as it
 * is now, applies its own changes (the seeds it saw pass go, the seeds it
 * saw fail come), and replaces the file by a rename of a synced
 * temporary, so a reader sees the old file or the new one, never a part. */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define FAILURES_MAX_BYTES (16u << 20)
#define LOCK_WAIT 10.0 /* seconds: another run holds the lock only while it writes */

typedef struct entries {
    tr_fail_entry *e;
    size_t n, cap;
} entries;

static bool same_entry(const tr_fail_entry *a, const char *name, uint64_t seed) {
    return a->seed == seed && strcmp(a->name, name) == 0;
}

static bool has_entry(const entries *es, const char *name, uint64_t seed) {
    for (size_t i = 0; i < es->n; i++)
        if (same_entry(&es->e[i], name, seed)) return true;
    return false;
}

static void add_entry(entries *es, char *name, uint64_t seed) {
    if (es->n == es->cap) {
        es->cap = es->cap ? es->cap * 2 : 8;
        es->e = tr_xrealloc(es->e, es->cap * sizeof *es->e);
    }
    es->e[es->n++] = (tr_fail_entry){name, seed, false, false};
}

/* A seed as the test binary takes it: decimal, 0 to 2^63-1. */
static bool parse_seed(const char *s, uint64_t *seed) {
    return tr_parse_u64(s, seed) && *seed <= (uint64_t)INT64_MAX;
}

/* The entries of the file at path, each once. With warn, each malformed
 * line is named on stderr. Returns false when the file had a malformed
 * or a repeated line (it should be rewritten); a missing file is empty. */
static bool read_entries(const char *path, bool warn, entries *es) {
    size_t len;
    char *text = tr_read_all(path, FAILURES_MAX_BYTES, &len);
    if (!text) return true;
    bool clean = true;
    int line = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        line++;
        if (*s && *s != '#') {
            char *tab = strchr(s, '\t');
            uint64_t seed = 0;
            bool seed_ok = false, name_ok = false;
            char *name = NULL;
            if (tab) {
                *tab = '\0';
                seed_ok = parse_seed(s, &seed);
                name = tr_name_unescape(tab + 1, strlen(tab + 1), true, &name_ok);
                name_ok = name_ok && *name;
            }
            if (!seed_ok || !name_ok) {
                if (warn)
                    fprintf(stderr, "oxl test: warning: %s:%d: not '<seed><tab><test name>'; the line is dropped\n",
                            path, line);
                free(name);
                clean = false;
            } else if (has_entry(es, name, seed)) {
                free(name);
                clean = false;
            } else {
                add_entry(es, name, seed);
            }
        }
        if (!nl) break;
        s = nl + 1;
    }
    free(text);
    return clean;
}

static void free_entries(entries *es) {
    for (size_t i = 0; i < es->n; i++) free(es->e[i].name);
    free(es->e);
    es->e = NULL;
    es->n = es->cap = 0;
}

void tr_load_failures(tr_runner *r) {
    if (r->o.failures_file) tr_pathf(r->fails_path, sizeof r->fails_path, "%s", r->o.failures_file);
    else tr_pathf(r->fails_path, sizeof r->fails_path, "%s/%s", r->o.pkg, TR_FAILURES_FILE);
    entries es = {0};
    if (!read_entries(r->fails_path, true, &es)) r->fails_changed = true;
    r->fails = es.e;
    r->nfails = es.n;
}

static tr_fail_entry *find_failure(tr_runner *r, const char *name, uint64_t seed) {
    for (size_t i = 0; i < r->nfails; i++)
        if (!r->fails[i].drop && same_entry(&r->fails[i], name, seed)) return &r->fails[i];
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
    r->fails[r->nfails++] = (tr_fail_entry){tr_xstrdup(t->name), seed, false, true};
    r->fails_changed = true;
}

static int cmp_fail(const void *a, const void *b) {
    const tr_fail_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* An exclusive lock on the package directory: its descriptor, or -1
 * (said) when it cannot be had in LOCK_WAIT seconds. */
static int lock_package(const char *pkg) {
    int fd = open(pkg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    double until = tr_now() + LOCK_WAIT;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || tr_now() > until) {
            fprintf(stderr, "oxl test: warning: cannot lock '%s' to update %s: %s; writing it unlocked\n", pkg,
                    TR_FAILURES_FILE, errno == EWOULDBLOCK ? "another run holds the lock" : strerror(errno));
            return fd; /* the rename still keeps the file whole */
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return fd;
}

/* The merged list into the file: removed when empty, else a synced
 * temporary renamed over it. */
static void write_entries(tr_runner *r, entries *es) {
    if (es->n == 0) {
        if (unlink(r->fails_path) != 0 && errno != ENOENT)
            fprintf(stderr, "oxl test: warning: cannot remove '%s': %s\n", r->fails_path, strerror(errno));
        return;
    }
    qsort(es->e, es->n, sizeof *es->e, cmp_fail);
    tr_buf b = {0};
    tr_buf_puts(&b, "# Seeds that failed in `oxl test`; each is run first next time and removed once\n"
                    "# it passes. Commit this file. Format: <seed><TAB><test name>.\n");
    for (size_t i = 0; i < es->n; i++) {
        tr_buf_printf(&b, "%" PRIu64 "\t", es->e[i].seed);
        tr_name_escape(&b, es->e[i].name);
        tr_buf_puts(&b, "\n");
    }
    char tmp[TR_PATH];
    tr_pathf(tmp, sizeof tmp, "%s.%ld.tmp", r->fails_path, (long)getpid());
    if (!tr_write_file_synced(tmp, b.s, b.len, 0644) || rename(tmp, r->fails_path) != 0) {
        fprintf(stderr, "oxl test: warning: cannot write '%s': %s\n", r->fails_path, strerror(errno));
        unlink(tmp);
    }
    tr_buf_free(&b);
}

void tr_save_failures(tr_runner *r) {
    if (!r->fails_changed) return;
    int lock = lock_package(r->o.pkg);
    entries now = {0}, merged = {0};
    read_entries(r->fails_path, false, &now);
    /* what is there now, without the seeds this run saw pass */
    for (size_t i = 0; i < now.n; i++) {
        bool passed = false;
        for (size_t k = 0; k < r->nfails && !passed; k++)
            passed = r->fails[k].drop && same_entry(&r->fails[k], now.e[i].name, now.e[i].seed);
        if (!passed) {
            add_entry(&merged, now.e[i].name, now.e[i].seed);
            now.e[i].name = NULL;
        }
    }
    /* and with the seeds it saw fail */
    for (size_t k = 0; k < r->nfails; k++)
        if (r->fails[k].added && !has_entry(&merged, r->fails[k].name, r->fails[k].seed))
            add_entry(&merged, tr_xstrdup(r->fails[k].name), r->fails[k].seed);
    write_entries(r, &merged);
    free_entries(&now);
    free_entries(&merged);
    if (lock >= 0) close(lock); /* and with it the lock */
}
