/* tr_packages.c: `oxl test DIR...` and `oxl test DIR/...` (docs/testing.md,
 * Many packages): the packages found (a directory holding .oxl files,
 * below DIR in path order), one runner each, every binary built and
 * every list read first, then the packages run one after another as one
 * run: one report, one summary, -j processes at a time for the whole run
 * (a package's batches use the slots the one before has left), fail fast
 * across packages, each package's own failures file, and the worst exit
 * status of them all. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "tr_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PKG_MAX 4096   /* packages of one run */
#define WALK_DEPTH 64  /* directory levels below DIR */

typedef struct pkg_list {
    char **path;
    char **real; /* realpath, to drop a package named twice */
    size_t n;
} pkg_list;

bool tr_is_tree_arg(const char *arg) {
    size_t n = strlen(arg);
    return strcmp(arg, "...") == 0 || (n >= 4 && strcmp(arg + n - 4, "/...") == 0);
}

void tr_test_label(const tr_runner *r, const tr_test *t, tr_buf *b) {
    if (r->multi && t->pkg) {
        tr_name_escape(b, t->pkg);
        tr_buf_puts(b, ": ");
    }
    tr_name_escape(b, t->name);
}

void tr_untested_text(const tr_runner *r, tr_buf *b) {
    tr_buf_puts(b, "not tested: ");
    switch (r->not_tested) {
    case TR_EXIT_BUILD: tr_buf_puts(b, "its test binary was not built"); break;
    case TR_EXIT_USAGE: tr_buf_puts(b, "not a package directory, or a usage error"); break;
    case 130: tr_buf_puts(b, "interrupted"); break;
    default: tr_buf_puts(b, "it could not be prepared"); break;
    }
    tr_buf_printf(b, ", exit status %d", r->not_tested);
}

static bool add_pkg(pkg_list *l, const char *path) {
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->real[i], real) == 0) return true;
    if (l->n == PKG_MAX) {
        fprintf(stderr, "oxl test: more than %d packages in one run\n", PKG_MAX);
        return false;
    }
    l->path = tr_xrealloc(l->path, (l->n + 1) * sizeof *l->path);
    l->real = tr_xrealloc(l->real, (l->n + 1) * sizeof *l->real);
    l->path[l->n] = tr_xstrdup(path);
    l->real[l->n++] = tr_xstrdup(real);
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* dir when it holds a .oxl file, then its subdirectories in byte order
 * (names starting with '.' skipped, symbolic links not followed). */
static bool walk(pkg_list *l, const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "oxl test: cannot read the directory '%s': %s\n", dir, strerror(errno));
        return false;
    }
    char **subs = NULL;
    size_t nsubs = 0;
    bool has_oxl = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[TR_PATH];
        if (!tr_pathf(p, sizeof p, "%s/%s", dir, e->d_name)) continue;
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            subs = tr_xrealloc(subs, (nsubs + 1) * sizeof *subs);
            subs[nsubs++] = tr_xstrdup(p);
        } else if (n > 4 && strcmp(e->d_name + n - 4, ".oxl") == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
            has_oxl = true;
        }
    }
    closedir(d);
    bool ok = !has_oxl || add_pkg(l, dir);
    if (nsubs) qsort(subs, nsubs, sizeof *subs, cmp_str);
    for (size_t i = 0; i < nsubs; i++) {
        if (ok && depth < WALK_DEPTH) ok = walk(l, subs[i], depth + 1);
        free(subs[i]);
    }
    free(subs);
    return ok;
}

/* The packages the arguments name, in their order, DIR/... expanded. */
static int expand(const tr_opts *o, pkg_list *l) {
    for (size_t i = 0; i < o->npkgs; i++) {
        const char *a = o->pkgs[i];
        if (!tr_is_tree_arg(a)) {
            if (!add_pkg(l, a)) return TR_EXIT_USAGE;
            continue;
        }
        char dir[TR_PATH];
        size_t n = strlen(a);
        if (n <= 4) snprintf(dir, sizeof dir, "%s", n == 3 ? "." : "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(n - 4), a);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "oxl test: '%s': '%s' is not a directory\n", a, dir);
            return TR_EXIT_USAGE;
        }
        size_t before = l->n;
        if (!walk(l, dir, 0)) return TR_EXIT_USAGE;
        if (l->n == before) fprintf(stderr, "oxl test: note: '%s' names no package (no directory of .oxl files)\n", a);
    }
    return TR_GO_ON;
}

/* Which of two exit statuses a run of many packages ends with. */
static int rank(int s) {
    switch (s) {
    case 130: return 6;
    case TR_EXIT_USAGE: return 5;
    case TR_EXIT_BUILD: return 4;
    case TR_EXIT_NONDETERMINISM: return 3;
    case TR_EXIT_FAILED: return 2;
    case TR_EXIT_NO_TESTS: return 1;
    default: return 0;
    }
}
static int worst(int a, int b) { return rank(b) > rank(a) ? b : a; }

static void free_list(pkg_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->path[i]), free(l->real[i]);
    free(l->path);
    free(l->real);
}

int tr_run_packages(tr_runner *lead) {
    pkg_list l = {0};
    int s = expand(&lead->o, &l);
    if (s != TR_GO_ON) {
        free_list(&l);
        return s;
    }
    const char *keep = getenv("OXL_TEST_KEEP_BINARY");
    if (keep && *keep && l.n > 1) {
        fprintf(stderr, "oxl test: OXL_TEST_KEEP_BINARY keeps one package's test binary; this run has %zu packages\n",
                l.n);
        free_list(&l);
        return TR_EXIT_USAGE;
    }
    if (l.n == 0) {
        fprintf(stderr, "oxl test: no package to test\n");
        free_list(&l);
        return TR_EXIT_NO_TESTS;
    }
    tr_runner *all = tr_xmalloc(l.n * sizeof *all);
    tr_runner **group = tr_xmalloc(l.n * sizeof *group);
    tr_runner **untested = tr_xmalloc(l.n * sizeof *untested);
    size_t ng = 0, nu = 0;
    int status = TR_EXIT_PASS;
    bool any_tests = false;
    /* every package's binary and tests first: a package that does not
     * build is known before anything runs */
    for (size_t i = 0; i < l.n; i++) {
        tr_runner *r = &all[i];
        memset(r, 0, sizeof *r);
        r->o = lead->o;
        r->o.pkg = l.path[i];
        r->hooks = lead->hooks;
        r->rep = lead->rep;
        r->tty = lead->tty;
        r->color = lead->color;
        r->t0 = lead->t0;
        r->multi = true;
        s = lead->interrupted ? 130 : tr_prepare_package(r);
        if (s == 130) lead->interrupted = true;
        if (s == TR_EXIT_NO_TESTS) continue; /* said; not an error while another package has tests */
        if (s != TR_GO_ON) {
            fprintf(stderr, "oxl test: package '%s' not tested (exit status %d)\n", r->o.pkg, s);
            status = worst(status, s);
            r->not_tested = s;
            untested[nu++] = r; /* every report says so: never a run that looks whole */
            continue;
        }
        any_tests = true;
        group[ng++] = r;
    }
    if (!any_tests) status = worst(status, TR_EXIT_NO_TESTS);
    lead->multi = true;
    lead->group = group;
    lead->ngroup = ng;
    lead->untested = untested;
    lead->nuntested = nu;
    if (lead->o.list) {
        for (size_t i = 0; i < ng; i++) tr_list_tests(group[i]);
    } else if (ng > 0 && !lead->interrupted) {
        size_t nunit = 0, nsim = 0;
        uint64_t in_shard = 0, all_pairs = 0;
        tr_runner *sharded = NULL;
        for (size_t i = 0; i < ng; i++) {
            tr_runner *r = group[i];
            tr_load_failures(r);
            tr_plan_prepare(r);
            nunit += r->plan_nunit;
            nsim += r->plan_nsim;
            lead->plan_tests += r->nsel;
            in_shard += r->plan_in_shard;
            all_pairs += r->plan_all;
            if (r->sharded) sharded = r;
        }
        if (sharded) {
            lead->sharded = true;
            lead->shard_index = sharded->shard_index;
            lead->shard_total = sharded->shard_total;
            tr_shard_status(sharded, in_shard, all_pairs);
        }
        lead->rep->start(lead, nunit, nsim);
        bool failed = false;
        tr_totals tot = {0};
        for (size_t i = 0; i < ng; i++) {
            tr_runner *r = group[i];
            r->tap_n = lead->tap_n;
            if (lead->interrupted) r->interrupted = true;
            tr_plan_execute(r, &failed, &tot);
            lead->tap_n = r->tap_n;
            lead->procs_run += r->procs_run;
            if (r->interrupted) lead->interrupted = true;
            tr_server_stop(r->srv);
            r->srv = NULL;
            if (!r->sharded) tr_save_failures(r);
        }
        int run_status = tr_plan_status(lead, &tot);
        if (lead->interrupted) {
            tr_clear_progress(lead);
            fprintf(stderr, "oxl test: interrupted; the running tests were killed\n");
        }
        status = worst(status, run_status);
        lead->rep->end(lead, &tot, status);
        if (!tr_plan_junit(lead) && status == TR_EXIT_PASS) status = TR_EXIT_USAGE;
    }
    if (lead->interrupted) status = 130;
    for (size_t i = 0; i < l.n; i++) {
        tr_server_stop(all[i].srv);
        if (all[i].tmp[0]) tr_remove_tree(all[i].tmp);
        all[i].o.pkgs = NULL;
        tr_free_runner(&all[i]);
    }
    free(all);
    free(group);
    free(untested);
    lead->group = NULL;
    lead->ngroup = 0;
    lead->untested = NULL;
    lead->nuntested = 0;
    free_list(&l);
    return status;
}
