/* tr_binary.c: the test binary of a run: built through the hook, or taken
 * from the cache by the key of its inputs (tr_cache_key, tr_util.c), and
 * its --list read into the run's tests (docs/testing.md, The test binary
 * cache; docs/test-binary.md, Protocol). */
#include "tr_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIST_TIMEOUT 60.0 /* for `<bin> --list` */
#define CACHE_KEEP 16     /* test binaries kept in the cache */

static int cmp_mtime_desc(const void *a, const void *b) {
    const struct {
        time_t t;
        char *name;
    } *x = a, *y = b;
    return x->t < y->t ? 1 : x->t > y->t ? -1 : strcmp(x->name, y->name);
}

/* Keeps the CACHE_KEEP most recently used binaries of the cache. */
static void prune_cache(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct ent {
        time_t t;
        char *name;
    } *es = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strlen(e->d_name) != 64) continue;
        char p[TR_PATH];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p || stat(p, &st) != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            es = tr_xrealloc(es, cap * sizeof *es);
        }
        es[n].t = st.st_mtime;
        es[n++].name = tr_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(es, n, sizeof *es, cmp_mtime_desc);
    for (size_t i = 0; i < n; i++) {
        if (i >= CACHE_KEEP) {
            char p[TR_PATH];
            snprintf(p, sizeof p, "%s/%s", dir, es[i].name);
            unlink(p);
        }
        free(es[i].name);
    }
    free(es);
}

int tr_get_binary(tr_runner *r) {
    char key[65], cdir[TR_PATH];
    if (!tr_cache_key(r->o.pkg, r->hooks, r->o.opt_level, key)) return TR_EXIT_USAGE;
    const char *dir = tr_cache_dir(cdir, sizeof cdir);
    if (dir) {
        tr_pathf(r->bin, sizeof r->bin, "%s/%s", dir, key);
        if (access(r->bin, X_OK) == 0) {
            utimensat(AT_FDCWD, r->bin, NULL, 0); /* most recently used: kept by the pruning */
            return TR_GO_ON;
        }
    } else {
        fprintf(stderr, "oxl test: note: no cache directory (set OXL_CACHE_DIR or HOME); building afresh\n");
        tr_pathf(r->bin, sizeof r->bin, "%s/test-binary", r->tmp);
    }
    char building[TR_PATH];
    tr_pathf(building, sizeof building, "%s.%ld.tmp", r->bin, (long)getpid());
    if (!r->hooks->build) {
        fprintf(stderr, "oxl test: this oxl cannot build test binaries\n");
        return TR_EXIT_BUILD;
    }
    int st = r->hooks->build(r->hooks->ctx, r->o.pkg, building, r->o.show_commands, r->o.opt_level);
    if (st != 0) {
        unlink(building);
        if (st == 2) return TR_EXIT_USAGE;
        fprintf(stderr, "oxl test: %s; no test ran\n",
                st == 1 ? "the package does not compile" : "the test binary could not be built");
        return TR_EXIT_BUILD;
    }
    /* rename: another `oxl test` never sees a half-written binary */
    if (rename(building, r->bin) != 0) {
        fprintf(stderr, "oxl test: cannot store the test binary as '%s': %s\n", r->bin, strerror(errno));
        unlink(building);
        return TR_EXIT_BUILD;
    }
    if (dir) prune_cache(dir);
    return TR_GO_ON;
}

int tr_keep_binary(tr_runner *r) {
    const char *keep = getenv("OXL_TEST_KEEP_BINARY");
    if (keep && *keep) {
        if (!tr_copy_file(r->bin, keep, 0755)) {
            fprintf(stderr, "oxl test: OXL_TEST_KEEP_BINARY: cannot copy the test binary to '%s': %s\n", keep,
                    strerror(errno));
            return TR_EXIT_USAGE;
        }
    }
    return TR_GO_ON;
}

static bool run_and_wait(tr_runner *r, tr_proc *p) {
    while (!tr_proc_poll(p)) {
        if (!tr_wait_event(0.25, -1)) {
            r->interrupted = true;
            tr_proc_kill(p);
            return false;
        }
    }
    return true;
}

/* Runs `<bin> --list` and reads its lines (docs/test-binary.md). */
int tr_read_list(tr_runner *r) {
    char out[TR_PATH], err[TR_PATH];
    tr_pathf(out, sizeof out, "%s/list.out", r->tmp);
    tr_pathf(err, sizeof err, "%s/list.err", r->tmp);
    tr_proc p;
    if (!tr_proc_start(&p, r->bin, "--list", NULL, out, err, LIST_TIMEOUT)) {
        fprintf(stderr, "oxl test: cannot start the test binary: %s\n", strerror(errno));
        return TR_EXIT_BUILD;
    }
    if (!run_and_wait(r, &p)) return 130;
    size_t len = 0, omitted;
    if (p.timed_out || !WIFEXITED(p.wstatus) || WEXITSTATUS(p.wstatus) != 0) {
        char sb[32];
        if (p.timed_out) fprintf(stderr, "oxl test: the test binary's --list did not finish in %g s\n", LIST_TIMEOUT);
        else if (WIFSIGNALED(p.wstatus))
            fprintf(stderr, "oxl test: the test binary's --list crashed: %s\n",
                    tr_signal_name(WTERMSIG(p.wstatus), sb, sizeof sb));
        else fprintf(stderr, "oxl test: the test binary's --list exited with status %d\n", WEXITSTATUS(p.wstatus));
        char *e = tr_read_tail(err, TR_SHOW_BYTES, &omitted);
        if (e && *e) fputs(e, stderr);
        free(e);
        return TR_EXIT_BUILD;
    }
    char *text = tr_read_all(out, 64u << 20, &len);
    if (!text) {
        fprintf(stderr, "oxl test: cannot read the test binary's --list output\n");
        return TR_EXIT_BUILD;
    }
    size_t cap = 0;
    int line = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        if (!nl) nl = s + strlen(s);
        line++;
        char *f[6];
        int nf = 0;
        bool too_many = false;
        f[nf++] = s;
        for (char *c = s; c < nl; c++) {
            if (*c != '\t') continue;
            if (nf == 6) {
                too_many = true;
                break;
            }
            *c = '\0';
            f[nf++] = c + 1;
        }
        bool had_nl = *nl == '\n';
        *nl = '\0';
        const char *why = NULL;
        tr_test t;
        memset(&t, 0, sizeof t);
        uint64_t idx = 0;
        if (nf != 6 || too_many) why = "expected 6 fields separated by tabs";
        else if (!tr_parse_u64(f[0], &idx) || idx != (uint64_t)r->ntests) why = "the index is not the line's number from 0";
        else if (strcmp(f[1], "unit") == 0) {
            if (strcmp(f[2], "-") || strcmp(f[3], "-")) why = "a unit test has '-' for its seeds";
        } else if (strcmp(f[1], "sim") == 0) {
            t.sim = true;
            if (!tr_parse_u64(f[2], &t.first) || !tr_parse_u64(f[3], &t.last) || t.first > t.last)
                why = "a sim test's seeds are two integers, first <= last";
            else if (t.last - t.first >= TR_MAX_SEEDS) why = "more than 2^40 seeds";
        } else why = "the kind is neither unit nor sim";
        bool name_ok = true;
        if (!why) {
            t.name = tr_name_unescape(f[5], strlen(f[5]), false, &name_ok);
            if (!name_ok || !*t.name) why = "the name is empty or has a bad escape";
        }
        if (why) {
            free(t.name);
            fprintf(stderr, "oxl test: the test binary's --list output is malformed at line %d: %s\n", line, why);
            free(text);
            return TR_EXIT_BUILD;
        }
        t.index = (int)idx;
        t.loc = tr_xstrdup(f[4]);
        tr_buf shown = {0};
        tr_name_escape(&shown, t.name);
        t.shown = shown.s;
        if (r->ntests == cap) {
            cap = cap ? cap * 2 : 16;
            r->tests = tr_xrealloc(r->tests, cap * sizeof *r->tests);
        }
        r->tests[r->ntests++] = t;
        s = had_nl ? nl + 1 : nl;
    }
    free(text);
    return TR_GO_ON;
}