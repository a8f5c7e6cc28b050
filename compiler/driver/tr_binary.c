/* tr_binary.c: the test binary of a run: built through the hook, or taken
 * from the cache by the key of its inputs (tr_cache_key, tr_util.c), and
 * its --list read into the run's tests (docs/testing.md, The test binary
 * cache; docs/test-binary.md, Protocol). */
#include "tr_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIST_TIMEOUT 60.0 /* for `<bin> --list` */

static uint64_t le_bytes(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
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
            if (tr_pathf(p, sizeof p, "%s/%s", dir, es[i].name)) unlink(p);
        }
        free(es[i].name);
    }
    free(es);
}

/* The cache directory (made when missing) into buf: NULL, with why
 * filled, when there is none or it cannot be made. */
static const char *cache_dir(char *buf, size_t cap, char *why, size_t why_cap) {
    static const struct {
        const char *var, *sub;
    } roots[] = {{"OXL_CACHE_DIR", "test-binaries"}, {"XDG_CACHE_HOME", "oxl/test-binaries"},
                 {"HOME", ".cache/oxl/test-binaries"}};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        const char *root = getenv(roots[i].var);
        if (!root || !*root) continue;
        if (!tr_pathf(buf, cap, "%s/%s", root, roots[i].sub)) {
            snprintf(why, why_cap, "cannot use the cache directory under '%s' (from %s): the path is too long", root,
                     roots[i].var);
            return NULL;
        }
        if (!tr_mkdir_p(buf)) {
            snprintf(why, why_cap, "cannot use the cache directory '%s' (from %s): %s", buf, roots[i].var,
                     strerror(errno));
            return NULL;
        }
        return buf;
    }
    snprintf(why, why_cap, "no cache directory (OXL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)");
    return NULL;
}

/* Whether the ELF file at path is whole: its headers are there and every
 * part they point at lies inside the file. An entry that a full disk or a
 * crash cut short (or left empty) is found out here, not by an exec that
 * fails, or a process that crashes, at every later run. NULL when whole,
 * else what is wrong. */
static const char *damaged(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "it cannot be opened";
    struct stat st;
    unsigned char h[64];
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "it is not a file";
    else if (st.st_size == 0) why = "it is empty";
    else if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0 || h[4] != 2 || h[5] != 1)
        why = "it is not a 64-bit little-endian ELF file";
    if (why) {
        close(fd);
        return why;
    }
#define LE(p, n) le_bytes((p), (n))
    uint64_t size = (uint64_t)st.st_size;
    uint64_t phoff = LE(h + 32, 8), shoff = LE(h + 40, 8);
    uint64_t phentsize = LE(h + 54, 2), phnum = LE(h + 56, 2), shentsize = LE(h + 58, 2), shnum = LE(h + 60, 2);
    if (phnum == 0 || phentsize < 56 || phoff > size || phnum * phentsize > size - phoff)
        why = "its program headers are cut off";
    else if (shnum && (shentsize < 64 || shoff > size || shnum * shentsize > size - shoff))
        why = "its section headers are cut off";
    for (uint64_t i = 0; !why && i < phnum; i++) {
        unsigned char ph[56];
        if (pread(fd, ph, sizeof ph, (off_t)(phoff + i * phentsize)) != (ssize_t)sizeof ph) {
            why = "its program headers cannot be read";
            break;
        }
        uint64_t off = LE(ph + 8, 8), filesz = LE(ph + 32, 8);
        if (off > size || filesz > size - off) why = "a segment runs past its end";
    }
#undef LE
    close(fd);
    return why;
}

/* Stores the binary built at built as the cache's dest: renamed when
 * both are on one file system, else copied beside dest and renamed,
 * synced first either way. False, errno set, when the cache cannot take
 * it (full, read-only): the built one is then used where it is. */
static bool store(const char *built, const char *dest) {
    int fd = open(built, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    int synced = fsync(fd);
    close(fd);
    if (synced != 0) return false;
    if (rename(built, dest) == 0) return true;
    if (errno != EXDEV) return false;
    char tmp[TR_PATH];
    if (!tr_pathf(tmp, sizeof tmp, "%s.%ld.tmp", dest, (long)getpid())) {
        errno = ENAMETOOLONG;
        return false;
    }
    /* a rename of a whole, synced file: another run never sees a part */
    if (!tr_copy_file_synced(built, tmp, 0755) || rename(tmp, dest) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return false;
    }
    return true;
}

int tr_get_binary(tr_runner *r) {
    char key[65], cdir[TR_PATH], why[TR_PATH + 256], cached[TR_PATH];
    if (!tr_cache_key(r->o.pkg, r->hooks, r->o.opt_level, key)) return TR_EXIT_USAGE;
    memcpy(r->key, key, sizeof r->key);
    const char *dir = cache_dir(cdir, sizeof cdir, why, sizeof why);
    if (dir && tr_pathf(cached, sizeof cached, "%s/%s", dir, key) && access(cached, F_OK) == 0) {
        const char *bad = damaged(cached);
        if (!bad && access(cached, X_OK) == 0) {
            snprintf(r->bin, sizeof r->bin, "%s", cached);
            r->bin_cached = true;
            utimensat(AT_FDCWD, cached, NULL, 0); /* most recently used: kept by the pruning */
            return TR_GO_ON;
        }
        fprintf(stderr, "oxl test: warning: the cached test binary '%s' is damaged (%s); building it again\n", cached,
                bad ? bad : "it is not executable");
        unlink(cached);
    } else if (!dir) {
        fprintf(stderr, "oxl test: note: %s; building in TMPDIR\n", why);
    }
    /* built in the run's own directory, then stored: a cache that cannot
     * take it (full, read-only) leaves the run with the built one */
    r->bin_cached = false;
    tr_pathf(r->bin, sizeof r->bin, "%s/test-binary", r->tmp);
    if (!r->hooks->build) {
        fprintf(stderr, "oxl test: this oxl cannot build test binaries\n");
        return TR_EXIT_BUILD;
    }
    int st = r->hooks->build(r->hooks->ctx, r->o.pkg, r->bin, r->o.show_commands, r->o.opt_level);
    if (st != 0) {
        unlink(r->bin);
        if (st == 2) return TR_EXIT_USAGE;
        fprintf(stderr, "oxl test: %s; no test ran\n",
                st == 1 ? "the package does not compile" : "the test binary could not be built");
        return TR_EXIT_BUILD;
    }
    const char *bad = damaged(r->bin);
    if (bad) {
        fprintf(stderr, "oxl test: the test binary the build left at '%s' is damaged (%s); no test ran\n", r->bin, bad);
        return TR_EXIT_BUILD;
    }
    if (!dir) return TR_GO_ON;
    if (!store(r->bin, cached)) {
        fprintf(stderr, "oxl test: note: cannot store the test binary in the cache '%s': %s; running it from TMPDIR\n",
                dir, strerror(errno));
        return TR_GO_ON;
    }
    snprintf(r->bin, sizeof r->bin, "%s", cached);
    prune_cache(dir);
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
        if (!tr_wait_event(0.25, NULL, 0)) {
            r->interrupted = true;
            tr_proc_kill(p);
            return false;
        }
    }
    return true;
}

/* Why a --list layout field is malformed, or NULL: "-" for a unit test;
 * for a sim test nodes separated by ',', each a name with its roles after
 * '=' joined by '+', every name letters, digits, '_' and '-'. */
static const char *check_layout(bool sim, const char *s) {
    if (!sim) return strcmp(s, "-") == 0 ? NULL : "a unit test has '-' for its layout";
    if (strcmp(s, "-") == 0) return NULL; /* a sim test on the default node */
    bool want_name = true, in_roles = false;
    for (const char *c = s;; c++) {
        bool name_char = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                         *c == '_' || *c == '-';
        if (name_char) {
            want_name = false;
            continue;
        }
        if (want_name) return "a sim test's layout has an empty node or role name";
        if (*c == '\0') return NULL;
        if (*c == ',') in_roles = false;
        else if (*c == '=' && !in_roles) in_roles = true;
        else if (*c != '+' || !in_roles) return "a sim test's layout is not node=role+role,...";
        want_name = true;
    }
}

/* The count of the `oxl-list: tests=<n>` line of a --list's stderr (the
 * last such line), or -1 when it has none. */
static long long list_handshake(const char *err_path) {
    size_t omitted;
    char *e = tr_read_tail(err_path, TR_SHOW_BYTES, &omitted);
    long long n = -1;
    static const char tag[] = "oxl-list: tests=";
    for (char *line = e; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        uint64_t v;
        if (strncmp(line, tag, sizeof tag - 1) == 0 && tr_parse_u64(line + sizeof tag - 1, &v) && v <= INT32_MAX)
            n = (long long)v;
        if (!nl) break;
        line = nl + 1;
    }
    free(e);
    return n;
}

void tr_free_tests(tr_runner *r) {
    for (size_t i = 0; i < r->ntests; i++) {
        free(r->tests[i].name);
        free(r->tests[i].shown);
        free(r->tests[i].loc);
        free(r->tests[i].layout);
    }
    free(r->tests);
    r->tests = NULL;
    r->ntests = 0;
}

/* Runs `<bin> --list` and reads its lines into r->tests
 * (docs/test-binary.md). TR_GO_ON; 130 when interrupted; TR_EXIT_BUILD,
 * r->tests empty, with what went wrong in why ("--list exited with
 * status 2") and *show the stderr to show with it (malloc'd) or NULL. */
static int list_once(tr_runner *r, char *why_buf, size_t why_cap, char **show) {
    char out[TR_PATH], err[TR_PATH];
    *show = NULL;
    tr_pathf(out, sizeof out, "%s/list.out", r->tmp);
    tr_pathf(err, sizeof err, "%s/list.err", r->tmp);
    tr_proc p;
    if (!tr_proc_start(&p, r->bin, "--list", NULL, out, err, LIST_TIMEOUT)) {
        snprintf(why_buf, why_cap, "--list cannot be started: %s", strerror(errno));
        return TR_EXIT_BUILD;
    }
    if (!run_and_wait(r, &p)) return 130;
    size_t len = 0, omitted;
    if (p.timed_out || !WIFEXITED(p.wstatus) || WEXITSTATUS(p.wstatus) != 0) {
        char sb[32];
        if (p.timed_out) snprintf(why_buf, why_cap, "--list did not finish in %g s", LIST_TIMEOUT);
        else if (WIFSIGNALED(p.wstatus))
            snprintf(why_buf, why_cap, "--list crashed: %s", tr_signal_name(WTERMSIG(p.wstatus), sb, sizeof sb));
        else snprintf(why_buf, why_cap, "--list exited with status %d", WEXITSTATUS(p.wstatus));
        char *e = tr_read_tail(err, TR_SHOW_BYTES, &omitted);
        if (e && *e) *show = e;
        else free(e);
        return TR_EXIT_BUILD;
    }
    char *text = tr_read_all(out, 64u << 20, &len);
    if (!text) {
        snprintf(why_buf, why_cap, "--list output cannot be read");
        return TR_EXIT_BUILD;
    }
    size_t cap = 0;
    int line = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        if (!nl) nl = s + strlen(s);
        line++;
        char *f[7];
        int nf = 0;
        bool too_many = false;
        f[nf++] = s;
        for (char *c = s; c < nl; c++) {
            if (*c != '\t') continue;
            if (nf == 7) {
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
        if (nf != 7 || too_many) why = "expected 7 fields separated by tabs";
        else if (!tr_parse_u64(f[0], &idx) || idx != (uint64_t)r->ntests) why = "the index is not the line's number from 0";
        else if (strcmp(f[1], "unit") == 0) {
            if (strcmp(f[2], "-") || strcmp(f[3], "-")) why = "a unit test has '-' for its seeds";
        } else if (strcmp(f[1], "sim") == 0) {
            t.sim = true;
            if (!tr_parse_u64(f[2], &t.first) || !tr_parse_u64(f[3], &t.last) || t.first > t.last)
                why = "a sim test's seeds are two integers, first <= last";
            else if (t.last - t.first >= TR_MAX_SEEDS) why = "more than 2^40 seeds";
        } else why = "the kind is neither unit nor sim";
        if (!why) why = check_layout(t.sim, f[6]);
        bool name_ok = true;
        if (!why) {
            t.name = tr_name_unescape(f[5], strlen(f[5]), false, &name_ok);
            if (!name_ok || !*t.name) why = "the name is empty or has a bad escape";
        }
        if (why) {
            free(t.name);
            snprintf(why_buf, why_cap, "--list output is malformed at line %d: %s", line, why);
            free(text);
            tr_free_tests(r);
            return TR_EXIT_BUILD;
        }
        t.index = (int)idx;
        t.loc = tr_xstrdup(f[4]);
        t.layout = tr_xstrdup(f[6]);
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
    /* a program that exits 0 and prints nothing (another program in the
     * binary's place) lists no tests: only the handshake tells that from
     * a package without tests */
    long long said = list_handshake(err);
    if (said < 0 || (size_t)said != r->ntests) {
        if (said < 0)
            snprintf(why_buf, why_cap,
                     "--list has no 'oxl-list: tests=<n>' line on stderr (a program that is not an oxl test binary?)");
        else
            snprintf(why_buf, why_cap, "--list printed %zu test lines where its 'oxl-list:' line says %lld (cut short?)",
                     r->ntests, said);
        tr_free_tests(r);
        return TR_EXIT_BUILD;
    }
    return TR_GO_ON;
}

int tr_read_list(tr_runner *r) {
    for (bool again = false;; again = true) {
        char why[512], *show = NULL;
        int s = list_once(r, why, sizeof why, &show);
        if (s != TR_EXIT_BUILD) return s;
        if (!r->bin_cached || again) {
            fprintf(stderr, "oxl test: the test binary's %s\n", why);
            if (show) fputs(show, stderr);
            free(show);
            return TR_EXIT_BUILD;
        }
        /* the entry is whole (tr_get_binary checked it) but does not list
         * as a test binary does: something else was put in its place, or
         * it broke. Damaged, like a cut-short one: built again, once (the
         * rebuilt one is this run's own; if it fails too, that is said).
         * The build runs with the signals as they are: at once for one
         * package, blocked for a later one of several, as their builds do */
        fprintf(stderr, "oxl test: warning: the cached test binary '%s' is damaged (its %s); building it again\n",
                r->bin, why);
        free(show);
        unlink(r->bin);
        if ((s = tr_get_binary(r)) != TR_GO_ON) return s;
        if ((s = tr_keep_binary(r)) != TR_GO_ON) return s;
    }
}
