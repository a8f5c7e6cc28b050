/* test_runner.c: `oxl test` (docs/testing.md): options, the test binary
 * (built through a hook, cached by content), its --list, the plan (unit
 * tests, then each sim test's seeds, sharded), the runs in parallel with
 * the lowest failing seed reported exactly as a sequential run would, the
 * determinism check of a failing seed, the reports (human, TAP 14, JSON
 * lines, JUnit XML) and the failures file. */
#include "tr_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FAILURES_FILE "oxl-test-failures.txt"
#define DEFAULT_TIMEOUT 300.0     /* seconds per process; -t 0 turns it off */
#define LIST_TIMEOUT 60.0         /* for `<bin> --list` */
#define SHOW_BYTES (64u << 10)    /* of a failing process's stdout and stderr */
#define MAX_SEEDS (1ull << 40)    /* of one sim test */
#define CACHE_KEEP 16             /* test binaries kept in the cache */

enum { KIND_ALL, KIND_UNIT, KIND_SIM };
enum { FMT_HUMAN, FMT_TAP, FMT_JSON };
enum { RES_PASS, RES_FAIL, RES_CRASH, RES_TIMEOUT };

typedef struct tr_opts {
    const char *pkg;
    int kind;
    bool has_seed, has_seeds;
    uint64_t seed, seeds_lo, seeds_hi;
    const char *exact, *filter;
    double timeout;
    int jobs;
    bool no_fail_fast, list;
    int format;
    const char *junit;
    bool has_partition;
    uint64_t part_index, part_total; /* 0-based index */
    const char *color;
    bool show_commands;
    int opt_level;
} tr_opts;

typedef struct tr_test {
    int index;
    bool sim;
    uint64_t first, last;
    char *loc, *name;
    char *shown; /* the name for a terminal: \\, \t, \n and \xNN escaped */
} tr_test;

/* One process of the plan: a unit test or one seed of a sim test. */
typedef struct item {
    const tr_test *test;
    uint64_t seed;
    bool replay;  /* from the failures file */
    bool done;
    int res;
    int wstatus;
    bool timed_out;
    bool has_trace;
    uint64_t trace;
    double seconds;
    char *out, *err; /* failing processes only */
    size_t out_omitted, err_omitted;
} item;

/* What one test came to. */
typedef struct outcome {
    const tr_test *test;
    bool run;            /* false: not run after an earlier failure */
    bool passed;
    uint64_t seeds_total, seeds_run;
    item fail;           /* the failing process, when !passed */
    bool rerun_done, nondet;
    item rerun;
    double seconds;
    char *reproduce;
} outcome;

typedef struct fail_entry {
    char *name;
    uint64_t seed;
    bool drop;
} fail_entry;

typedef struct runner {
    tr_opts o;
    const tr_hooks *hooks;
    char tmp[TR_PATH];
    char bin[TR_PATH];
    tr_test *tests;
    size_t ntests;
    const tr_test **sel;
    size_t nsel;
    outcome *outs;
    bool tty, color;
    bool sharded;
    uint64_t shard_index, shard_total;
    fail_entry *fails;
    size_t nfails;
    bool fails_changed;
    char fails_path[TR_PATH];
    bool interrupted;
    unsigned long counter;
    double t0;
    uint64_t procs_run;
    int tap_n;
    bool progress_shown;
    tr_server *srv;          /* the fork server, started at the first process */
    bool serve_off, serve_warned;
    bool spawn_only;         /* the determinism re-run: a new exec, see run_sim_test */
    char (*trash)[TR_PATH];  /* files and directories of ended processes, removed later */
    size_t ntrash, trash_cap;
} runner;

/* ---- small helpers ---- */

static void usage(const char *fmt, const char *arg) {
    fputs("oxl test: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'oxl help')\n", stderr);
}

static bool parse_u64(const char *s, uint64_t *v) {
    if (!*s || *s == '-' || *s == '+') return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || end == s) return false;
    *v = (uint64_t)x;
    return true;
}

/* "a..b", "a..=b" (both inclusive) or "N" (1..N). */
static bool parse_seeds(const char *s, uint64_t *lo, uint64_t *hi) {
    const char *dots = strstr(s, "..");
    if (!dots) {
        if (!parse_u64(s, hi) || *hi == 0) return false;
        *lo = 1;
        return true;
    }
    char a[32];
    size_t n = (size_t)(dots - s);
    if (n == 0 || n >= sizeof a) return false;
    memcpy(a, s, n);
    a[n] = '\0';
    const char *b = dots + 2;
    if (*b == '=') b++;
    return parse_u64(a, lo) && parse_u64(b, hi) && *lo <= *hi;
}

unsigned long long tr_shard_hash(const char *name, bool has_seed, unsigned long long seed) {
    uint64_t h = tr_fnv1a64(TR_FNV_OFFSET, name, strlen(name) + 1); /* the name and its NUL */
    char num[24];
    if (has_seed) snprintf(num, sizeof num, "%llu", seed);
    else snprintf(num, sizeof num, "-");
    h = tr_fnv1a64(h, num, strlen(num));
    /* FNV-1a's low bits follow the last byte (mod 2 it is the parity of
     * the seed's last digit): MurmurHash3's 64-bit finalizer mixes every
     * bit into every other before the modulus */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static bool in_shard(const runner *r, const tr_test *t, uint64_t seed) {
    if (!r->sharded) return true;
    return tr_shard_hash(t->name, t->sim, seed) % r->shard_total == r->shard_index;
}

static const char *kind_name(const tr_test *t) { return t->sim ? "sim" : "unit"; }

/* ---- options ---- */

/* Matches a (long or short) flag that takes a value: "--x v", "--x=v",
 * "-x v", "-xv". */
static int take_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val) {
    const char *a = argv[*i];
    size_t ln = strlen(lng);
    if (strncmp(a, lng, ln) == 0 && (a[ln] == '\0' || a[ln] == '=')) {
        if (a[ln] == '=') {
            *val = a + ln + 1;
            return 1;
        }
    } else if (shrt && strncmp(a, shrt, 2) == 0) {
        if (a[2]) {
            *val = a + 2;
            return 1;
        }
    } else {
        return 0;
    }
    if (*i + 1 >= argc) {
        usage("%s needs a value", a);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

static int parse_opts(int argc, char **argv, tr_opts *o) {
    memset(o, 0, sizeof *o);
    o->pkg = NULL;
    o->timeout = DEFAULT_TIMEOUT;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)(cores > 256 ? 256 : cores) : 1;
    o->color = "auto";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int m;
#define VALUE(lng, shrt) take_value(argc, argv, &i, lng, shrt, &v)
        if (strcmp(a, "--no-fail-fast") == 0) {
            o->no_fail_fast = true;
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "-###") == 0) {
            o->show_commands = true;
        } else if (strcmp(a, "-O2") == 0) {
            o->opt_level = 2;
        } else if (strcmp(a, "-O0") == 0) {
            o->opt_level = 0;
        } else if (strcmp(a, "--") == 0) {
            usage("%s", "'oxl test' passes no arguments to the test binary; '--' is not an option");
            return TR_EXIT_USAGE;
        } else if ((m = VALUE("--kind", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "unit") == 0) o->kind = KIND_UNIT;
            else if (strcmp(v, "sim") == 0) o->kind = KIND_SIM;
            else {
                usage("--kind takes unit or sim, not '%s'", v);
                return TR_EXIT_USAGE;
            }
        } else if ((m = VALUE("--seeds", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!parse_seeds(v, &o->seeds_lo, &o->seeds_hi) || o->seeds_hi > INT64_MAX) {
                usage("--seeds takes a..b (inclusive, 0 <= a <= b < 2^63) or a count N (1..N), not '%s'", v);
                return TR_EXIT_USAGE;
            }
            if (o->seeds_hi - o->seeds_lo >= MAX_SEEDS) {
                usage("--seeds '%s' is more than 2^40 seeds", v);
                return TR_EXIT_USAGE;
            }
            o->has_seeds = true;
        } else if ((m = VALUE("--seed", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!parse_u64(v, &o->seed) || o->seed > INT64_MAX) {
                usage("--seed takes an integer from 0 to 2^63-1, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_seed = true;
        } else if ((m = VALUE("--exact", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            o->exact = v;
        } else if ((m = VALUE("--filter", "-f"))) {
            if (m < 0) return TR_EXIT_USAGE;
            o->filter = v;
        } else if ((m = VALUE("--timeout", "-t"))) {
            if (m < 0) return TR_EXIT_USAGE;
            char *end;
            errno = 0;
            double t = strtod(v, &end);
            if (errno || end == v || *end || !(t >= 0) || t > 1e6) {
                usage("--timeout takes seconds (0 for none, at most 1000000), not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->timeout = t;
        } else if ((m = VALUE("--jobs", "-j"))) {
            if (m < 0) return TR_EXIT_USAGE;
            uint64_t j;
            if (!parse_u64(v, &j) || j < 1 || j > 1024) {
                usage("-j takes a number of processes from 1 to 1024, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->jobs = (int)j;
        } else if ((m = VALUE("--format", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "human") == 0) o->format = FMT_HUMAN;
            else if (strcmp(v, "tap") == 0) o->format = FMT_TAP;
            else if (strcmp(v, "json") == 0) o->format = FMT_JSON;
            else {
                usage("--format takes human, tap or json, not '%s'", v);
                return TR_EXIT_USAGE;
            }
        } else if ((m = VALUE("--junit", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!*v) {
                usage("%s", "--junit needs a file name");
                return TR_EXIT_USAGE;
            }
            o->junit = v;
        } else if ((m = VALUE("--partition", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            uint64_t mm, nn;
            char num[32];
            const char *slash = strchr(v, '/');
            bool ok = strncmp(v, "hash:", 5) == 0 && slash && (size_t)(slash - v - 5) < sizeof num;
            if (ok) {
                memcpy(num, v + 5, (size_t)(slash - v - 5));
                num[slash - v - 5] = '\0';
                ok = parse_u64(num, &mm) && parse_u64(slash + 1, &nn) && mm >= 1 && mm <= nn;
            }
            if (!ok) {
                usage("--partition takes hash:M/N with 1 <= M <= N, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_partition = true;
            o->part_index = mm - 1;
            o->part_total = nn;
        } else if ((m = VALUE("--color", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never")) {
                usage("--color takes auto, always or never, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->color = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            usage("unknown option '%s' for 'oxl test'", a);
            return TR_EXIT_USAGE;
        } else if (o->pkg) {
            usage("'oxl test' takes one package directory; '%s' is one too many", a);
            return TR_EXIT_USAGE;
        } else {
            o->pkg = a;
        }
#undef VALUE
    }
    if (!o->pkg) o->pkg = ".";
    if (o->has_seed && o->has_seeds) {
        usage("%s", "--seed and --seeds cannot be used together");
        return TR_EXIT_USAGE;
    }
    if (o->has_seed) {
        if (o->kind == KIND_UNIT) {
            usage("%s", "--seed runs sim tests; it cannot be used with --kind unit");
            return TR_EXIT_USAGE;
        }
        o->kind = KIND_SIM;
    }
    return -1;
}

/* Bazel's sharding variables; --partition wins over them. */
static int setup_shards(runner *r) {
    const char *total = getenv("TEST_TOTAL_SHARDS"), *index = getenv("TEST_SHARD_INDEX");
    if (r->o.has_partition) {
        r->sharded = r->o.part_total > 1;
        r->shard_index = r->o.part_index;
        r->shard_total = r->o.part_total;
    } else if ((total && *total) || (index && *index)) {
        uint64_t t, k;
        if (!total || !index || !parse_u64(total, &t) || !parse_u64(index, &k) || t < 1 || k >= t) {
            fprintf(stderr,
                    "oxl test: TEST_TOTAL_SHARDS='%s' and TEST_SHARD_INDEX='%s' must be integers with "
                    "0 <= index < total\n",
                    total ? total : "", index ? index : "");
            return TR_EXIT_USAGE;
        }
        r->sharded = t > 1;
        r->shard_index = k;
        r->shard_total = t;
    }
    const char *status = getenv("TEST_SHARD_STATUS_FILE");
    if (status && *status && total && *total) {
        /* tells Bazel this runner shards */
        if (!tr_write_file(status, "", 0, 0644))
            fprintf(stderr, "oxl test: warning: cannot write TEST_SHARD_STATUS_FILE '%s': %s\n", status,
                    strerror(errno));
    }
    return -1;
}

/* ---- the test binary ---- */

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

static int get_binary(runner *r) {
    char key[65], cdir[TR_PATH];
    if (!tr_cache_key(r->o.pkg, r->hooks, r->o.opt_level, key)) return TR_EXIT_USAGE;
    const char *dir = tr_cache_dir(cdir, sizeof cdir);
    if (dir) {
        tr_pathf(r->bin, sizeof r->bin, "%s/%s", dir, key);
        if (access(r->bin, X_OK) == 0) {
            utimensat(AT_FDCWD, r->bin, NULL, 0); /* most recently used: kept by the pruning */
            return -1;
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
    return -1;
}

static void escape_name(tr_buf *b, const char *s);

/* Runs `<bin> --list` and reads its lines (docs/testing.md). */
static char *unescape_name(const char *s, size_t n, bool *ok) {
    char *d = tr_xmalloc(n + 1), *q = d;
    *ok = true;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            *q++ = s[i];
            continue;
        }
        char c = i + 1 < n ? s[++i] : '\0';
        if (c == '\\') *q++ = '\\';
        else if (c == 't') *q++ = '\t';
        else if (c == 'n') *q++ = '\n';
        else *ok = false;
    }
    *q = '\0';
    return d;
}

static bool run_and_wait(runner *r, tr_proc *p) {
    while (!tr_proc_poll(p)) {
        if (!tr_wait_event(0.25, -1)) {
            r->interrupted = true;
            tr_proc_kill(p);
            return false;
        }
    }
    return true;
}

static int read_list(runner *r) {
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
        char *e = tr_read_tail(err, SHOW_BYTES, &omitted);
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
        else if (!parse_u64(f[0], &idx) || idx != (uint64_t)r->ntests) why = "the index is not the line's number from 0";
        else if (strcmp(f[1], "unit") == 0) {
            if (strcmp(f[2], "-") || strcmp(f[3], "-")) why = "a unit test has '-' for its seeds";
        } else if (strcmp(f[1], "sim") == 0) {
            t.sim = true;
            if (!parse_u64(f[2], &t.first) || !parse_u64(f[3], &t.last) || t.first > t.last)
                why = "a sim test's seeds are two integers, first <= last";
            else if (t.last - t.first >= MAX_SEEDS) why = "more than 2^40 seeds";
        } else why = "the kind is neither unit nor sim";
        bool name_ok = true;
        if (!why) {
            t.name = unescape_name(f[5], strlen(f[5]), &name_ok);
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
        escape_name(&shown, t.name);
        t.shown = shown.s;
        if (r->ntests == cap) {
            cap = cap ? cap * 2 : 16;
            r->tests = tr_xrealloc(r->tests, cap * sizeof *r->tests);
        }
        r->tests[r->ntests++] = t;
        s = had_nl ? nl + 1 : nl;
    }
    free(text);
    return -1;
}

/* ---- the failures file ---- */

static void load_failures(runner *r) {
    tr_pathf(r->fails_path, sizeof r->fails_path, "%s/%s", r->o.pkg, FAILURES_FILE);
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
                ok = parse_u64(s, &seed);
                name = unescape_name(tab + 1, strlen(tab + 1), &ok);
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
                r->fails[r->nfails++] = (fail_entry){name, seed, false};
            }
        }
        if (!nl) break;
        s = nl + 1;
    }
    free(text);
}

static fail_entry *find_failure(runner *r, const char *name, uint64_t seed) {
    for (size_t i = 0; i < r->nfails; i++)
        if (!r->fails[i].drop && r->fails[i].seed == seed && strcmp(r->fails[i].name, name) == 0) return &r->fails[i];
    return NULL;
}

static void forget_failure(runner *r, const tr_test *t, uint64_t seed) {
    fail_entry *f = find_failure(r, t->name, seed);
    if (f) {
        f->drop = true;
        r->fails_changed = true;
    }
}

static void remember_failure(runner *r, const tr_test *t, uint64_t seed) {
    if (find_failure(r, t->name, seed)) return;
    r->fails = tr_xrealloc(r->fails, (r->nfails + 1) * sizeof *r->fails);
    r->fails[r->nfails++] = (fail_entry){tr_xstrdup(t->name), seed, false};
    r->fails_changed = true;
}

static int cmp_fail(const void *a, const void *b) {
    const fail_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* As --list writes a name; other control characters (which --list passes
 * through) as \xNN, so a name never moves the terminal's cursor. */
static void escape_name(tr_buf *b, const char *s) {
    tr_buf_add(b, "", 0);
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') {
            tr_buf_printf(b, "\\x%02x", (unsigned char)*s);
            continue;
        }
        if (*s == '\\') tr_buf_puts(b, "\\\\");
        else if (*s == '\t') tr_buf_puts(b, "\\t");
        else if (*s == '\n') tr_buf_puts(b, "\\n");
        else tr_buf_add(b, s, 1);
    }
}

static void save_failures(runner *r) {
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
        escape_name(&b, r->fails[i].name);
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

/* ---- the order of processes ---- */

/* The processes of a batch in order: the unit tests, or one sim test's
 * seeds (explicit ones first: --seed, or the replayed failures; then the
 * range without them), in this shard. */
typedef struct gen {
    const tr_test **units;
    size_t nunits, upos;
    const tr_test *test;
    uint64_t *pre;
    size_t npre, prepos;
    bool range, range_done, all_shards;
    uint64_t lo, hi, cur;
} gen;

static bool in_pre(const gen *g, uint64_t s) {
    for (size_t i = 0; i < g->npre; i++)
        if (g->pre[i] == s) return true;
    return false;
}

static bool gen_next(const runner *r, gen *g, item *it) {
    memset(it, 0, sizeof *it);
    if (g->units) {
        while (g->upos < g->nunits) {
            const tr_test *t = g->units[g->upos++];
            if (g->all_shards || in_shard(r, t, 0)) {
                it->test = t;
                return true;
            }
        }
        return false;
    }
    it->test = g->test;
    while (g->prepos < g->npre) {
        uint64_t s = g->pre[g->prepos++];
        if (g->all_shards || in_shard(r, g->test, s)) {
            it->seed = s;
            it->replay = true;
            return true;
        }
    }
    while (g->range && !g->range_done) {
        uint64_t s = g->cur;
        if (g->cur == g->hi) g->range_done = true;
        else g->cur++;
        if (in_pre(g, s) || !(g->all_shards || in_shard(r, g->test, s))) continue;
        it->seed = s;
        return true;
    }
    return false;
}

static uint64_t gen_count(const runner *r, const gen *g0) {
    if (!r->sharded && !g0->units) {
        uint64_t n = g0->npre;
        if (g0->range) {
            n += g0->hi - g0->lo + 1;
            for (size_t i = 0; i < g0->npre; i++)
                if (g0->pre[i] >= g0->lo && g0->pre[i] <= g0->hi) n--;
        }
        return n;
    }
    gen g = *g0;
    item it;
    uint64_t n = 0;
    while (gen_next(r, &g, &it)) n++;
    return n;
}

static void sim_gen(runner *r, const tr_test *t, gen *g) {
    memset(g, 0, sizeof *g);
    g->test = t;
    if (r->o.has_seed) {
        g->pre = tr_xmalloc(sizeof *g->pre);
        g->pre[0] = r->o.seed;
        g->npre = 1;
        return;
    }
    for (size_t i = 0; i < r->nfails; i++) {
        if (r->fails[i].drop || strcmp(r->fails[i].name, t->name) != 0) continue;
        if (in_pre(g, r->fails[i].seed)) continue;
        g->pre = tr_xrealloc(g->pre, (g->npre + 1) * sizeof *g->pre);
        g->pre[g->npre++] = r->fails[i].seed;
    }
    g->range = true;
    g->lo = g->cur = r->o.has_seeds ? r->o.seeds_lo : t->first;
    g->hi = r->o.has_seeds ? r->o.seeds_hi : t->last;
}

/* ---- output ---- */

static const char *paint(const runner *r, const char *code) { return r->color ? code : ""; }
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

static void clear_progress(runner *r) {
    if (r->progress_shown) {
        fputs("\r\033[K", stdout);
        r->progress_shown = false;
    }
}

static void show_progress(runner *r, const char *what, uint64_t done, uint64_t total, uint64_t failed, double since) {
    if (!r->tty || r->o.format != FMT_HUMAN) return;
    double dt = tr_now() - since;
    char rate[32] = "";
    if (dt > 0.2) snprintf(rate, sizeof rate, ", %.0f/s", (double)done / dt);
    printf("\r\033[K%s: %" PRIu64 "/%" PRIu64 " done, %" PRIu64 " failed%s", what, done, total, failed, rate);
    fflush(stdout);
    r->progress_shown = true;
}

/* "exit status 101, trace 0123456789abcdef" and the like. */
static void describe(const runner *r, tr_buf *b, const item *it) {
    char sb[32];
    if (it->timed_out) tr_buf_printf(b, "timed out after %g s", r->o.timeout);
    else if (WIFSIGNALED(it->wstatus)) tr_buf_puts(b, tr_signal_name(WTERMSIG(it->wstatus), sb, sizeof sb));
    else tr_buf_printf(b, "exit status %d", WEXITSTATUS(it->wstatus));
    if (it->test->sim) {
        if (it->has_trace) tr_buf_printf(b, ", trace %016" PRIx64, it->trace);
        else tr_buf_puts(b, ", no trace");
    }
}

/* The headline and detail lines of a failure, without a newline at the end. */
static void failure_text(const runner *r, const outcome *oc, tr_buf *b) {
    const item *f = &oc->fail;
    char sb[32];
    const char *who = "test";
    char seedword[48];
    if (oc->test->sim) {
        snprintf(seedword, sizeof seedword, "seed %" PRIu64, f->seed);
        who = seedword;
        tr_buf_printf(b, "%s failed (%" PRIu64 " of %" PRIu64 " seeds run)", who, oc->seeds_run, oc->seeds_total);
    } else {
        tr_buf_puts(b, "test failed");
    }
    if (f->timed_out) tr_buf_printf(b, "\n%s timed out after %g s", who, r->o.timeout);
    else if (WIFSIGNALED(f->wstatus))
        tr_buf_printf(b, "\n%s crashed: %s", who, tr_signal_name(WTERMSIG(f->wstatus), sb, sizeof sb));
    else if (WEXITSTATUS(f->wstatus) != 101) tr_buf_printf(b, "\n%s crashed: exit status %d", who, WEXITSTATUS(f->wstatus));
}

static void nondet_text(const runner *r, const outcome *oc, tr_buf *b) {
    tr_buf_printf(b, "not deterministic: seed %" PRIu64 " gave ", oc->fail.seed);
    describe(r, b, &oc->fail);
    tr_buf_puts(b, "; re-run with OXL_SIM_REPORT=1 it gave ");
    describe(r, b, &oc->rerun);
}

static void print_captured(const char *label, const char *text, size_t omitted) {
    if (!text || !*text) return;
    printf("--- %s ---\n", label);
    if (omitted) printf("(%zu bytes before these not shown)\n", omitted);
    fputs(text, stdout);
    if (text[strlen(text) - 1] != '\n') putchar('\n');
}

/* TAP YAML and JSON carry a failing process's outputs the same way. */
static void json_item_fields(const runner *r, tr_buf *b, const item *it) {
    char sb[32];
    static const char *res[] = {"pass", "fail", "crash", "timeout"};
    tr_buf_printf(b, "\"result\":\"%s\"", res[it->res]);
    if (it->timed_out) tr_buf_puts(b, ",\"status\":null,\"signal\":null");
    else if (WIFSIGNALED(it->wstatus))
        tr_buf_printf(b, ",\"status\":null,\"signal\":\"%s\"", tr_signal_name(WTERMSIG(it->wstatus), sb, sizeof sb));
    else tr_buf_printf(b, ",\"status\":%d,\"signal\":null", WEXITSTATUS(it->wstatus));
    if (it->test->sim) {
        if (it->has_trace) tr_buf_printf(b, ",\"trace\":\"%016" PRIx64 "\"", it->trace);
        else tr_buf_puts(b, ",\"trace\":null");
    }
    tr_buf_printf(b, ",\"seconds\":%.6f", it->seconds);
    if (it->res != RES_PASS) {
        tr_buf_puts(b, ",\"stdout\":");
        tr_json_str(b, it->out ? it->out : "");
        tr_buf_puts(b, ",\"stderr\":");
        tr_json_str(b, it->err ? it->err : "");
    }
}

static void tap_desc(tr_buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '#' || *s == '\\') tr_buf_add(b, "\\", 1), tr_buf_add(b, s, 1);
        else if (*s == '\n') tr_buf_puts(b, "\\n");
        else tr_buf_add(b, s, 1);
    }
}

/* A YAML block (TAP 14 diagnostics) of a failing test or seed. */
static void tap_yaml(const runner *r, tr_buf *b, const char *indent, const outcome *oc, const item *it) {
    tr_buf_printf(b, "%s  ---\n", indent);
    tr_buf f = {0};
    if (oc) {
        failure_text(r, oc, &f);
        tr_buf_printf(b, "%s  message: ", indent);
        tr_json_str(b, f.s);
        tr_buf_printf(b, "\n%s  severity: fail\n", indent);
        if (oc->nondet) {
            tr_buf n = {0};
            nondet_text(r, oc, &n);
            tr_buf_printf(b, "%s  warning: ", indent);
            tr_json_str(b, n.s);
            tr_buf_puts(b, "\n");
            tr_buf_free(&n);
        }
        tr_buf_printf(b, "%s  reproduce: ", indent);
        tr_json_str(b, oc->reproduce);
        tr_buf_puts(b, "\n");
    }
    tr_buf_free(&f);
    tr_buf d = {0};
    describe(r, &d, it);
    tr_buf_printf(b, "%s  got: ", indent);
    tr_json_str(b, d.s);
    tr_buf_free(&d);
    tr_buf_printf(b, "\n%s  stdout: ", indent);
    tr_json_str(b, it->out ? it->out : "");
    tr_buf_printf(b, "\n%s  stderr: ", indent);
    tr_json_str(b, it->err ? it->err : "");
    tr_buf_printf(b, "\n%s  ...\n", indent);
}

static void emit(tr_buf *b) {
    fputs(b->s ? b->s : "", stdout);
    fflush(stdout);
    tr_buf_free(b);
}

static void report_start(runner *r, size_t nunit, size_t nsim) {
    tr_buf b = {0};
    if (r->o.format == FMT_HUMAN) {
        tr_buf_printf(&b, "running %zu unit test%s and %zu sim test%s from %s with %d job%s", nunit,
                      nunit == 1 ? "" : "s", nsim, nsim == 1 ? "" : "s", r->o.pkg, r->o.jobs, r->o.jobs == 1 ? "" : "s");
        if (r->sharded) tr_buf_printf(&b, " (shard %" PRIu64 " of %" PRIu64 ")", r->shard_index + 1, r->shard_total);
        tr_buf_puts(&b, "\n");
    } else if (r->o.format == FMT_TAP) {
        tr_buf_printf(&b, "TAP version 14\n1..%zu\n", r->nsel);
    } else {
        tr_buf_puts(&b, "{\"event\":\"start\",\"package\":");
        tr_json_str(&b, r->o.pkg);
        tr_buf_printf(&b, ",\"unit\":%zu,\"sim\":%zu,\"jobs\":%d", nunit, nsim, r->o.jobs);
        if (r->sharded) tr_buf_printf(&b, ",\"shard\":%" PRIu64 ",\"shards\":%" PRIu64, r->shard_index, r->shard_total);
        tr_buf_puts(&b, "}\n");
    }
    emit(&b);
}

static void report_test_start(runner *r, const tr_test *t, uint64_t n) {
    tr_buf b = {0};
    if (r->o.format == FMT_TAP && t->sim) {
        tr_buf_puts(&b, "# Subtest: ");
        tap_desc(&b, t->name);
        tr_buf_puts(&b, "\n");
    } else if (r->o.format == FMT_JSON) {
        tr_buf_printf(&b, "{\"event\":\"test_start\",\"kind\":\"%s\",\"index\":%d,\"name\":", kind_name(t), t->index);
        tr_json_str(&b, t->name);
        tr_buf_puts(&b, ",\"location\":");
        tr_json_str(&b, t->loc);
        if (t->sim) tr_buf_printf(&b, ",\"seeds\":%" PRIu64, n);
        tr_buf_puts(&b, "}\n");
    }
    emit(&b);
}

/* One seed of a sim test, in order. */
static void report_seed(runner *r, const item *it, uint64_t pos, const outcome *oc) {
    tr_buf b = {0};
    if (r->o.format == FMT_TAP) {
        tr_buf_printf(&b, "    %s %" PRIu64 " - seed %" PRIu64 "%s\n", it->res == RES_PASS ? "ok" : "not ok", pos + 1,
                      it->seed, it->replay ? " (replayed)" : "");
        if (it->res != RES_PASS) tap_yaml(r, &b, "    ", oc, it);
    } else if (r->o.format == FMT_JSON) {
        tr_buf_puts(&b, "{\"event\":\"seed\",\"name\":");
        tr_json_str(&b, it->test->name);
        tr_buf_printf(&b, ",\"seed\":%" PRIu64 ",\"replayed\":%s,", it->seed, it->replay ? "true" : "false");
        json_item_fields(r, &b, it);
        tr_buf_puts(&b, "}\n");
    }
    emit(&b);
}

static void report_test_end(runner *r, const outcome *oc) {
    const tr_test *t = oc->test;
    tr_buf b = {0};
    r->tap_n++;
    if (r->o.format == FMT_HUMAN) {
        clear_progress(r);
        if (!oc->run) {
            printf("%sskip%s %-5s %s (not run: an earlier test failed)\n", paint(r, YELLOW), paint(r, RESET),
                   kind_name(t), t->shown);
        } else if (oc->passed) {
            if (t->sim)
                printf("%sok%s   sim   %s (%" PRIu64 " seed%s, %.2f s)\n", paint(r, GREEN), paint(r, RESET), t->shown,
                       oc->seeds_run, oc->seeds_run == 1 ? "" : "s", oc->seconds);
            else printf("%sok%s   unit  %s (%.2f s)\n", paint(r, GREEN), paint(r, RESET), t->shown, oc->seconds);
        } else {
            printf("%sFAIL%s %-5s %s\n", paint(r, RED), paint(r, RESET), kind_name(t), t->shown);
            tr_buf f = {0};
            failure_text(r, oc, &f);
            printf("%s\n", f.s);
            tr_buf_free(&f);
            char lab[64];
            if (t->sim) snprintf(lab, sizeof lab, "stdout of seed %" PRIu64, oc->fail.seed);
            else snprintf(lab, sizeof lab, "stdout");
            print_captured(lab, oc->fail.out, oc->fail.out_omitted);
            if (t->sim) snprintf(lab, sizeof lab, "stderr of seed %" PRIu64, oc->fail.seed);
            else snprintf(lab, sizeof lab, "stderr");
            print_captured(lab, oc->fail.err, oc->fail.err_omitted);
            if (oc->nondet) {
                tr_buf n = {0};
                nondet_text(r, oc, &n);
                printf("%swarning:%s %s\n", paint(r, YELLOW), paint(r, RESET), n.s);
                tr_buf_free(&n);
            }
            printf("reproduce: %s\n", oc->reproduce);
        }
        fflush(stdout);
        return;
    }
    if (r->o.format == FMT_TAP) {
        if (t->sim && oc->run) tr_buf_printf(&b, "    1..%" PRIu64 "\n", oc->seeds_run);
        tr_buf_printf(&b, "%s %d - ", oc->passed || !oc->run ? "ok" : "not ok", r->tap_n);
        tap_desc(&b, t->name);
        if (!oc->run) tr_buf_puts(&b, " # SKIP not run: an earlier test failed");
        tr_buf_puts(&b, "\n");
        if (oc->run && !oc->passed) tap_yaml(r, &b, "", oc, &oc->fail);
    } else {
        tr_buf_printf(&b, "{\"event\":\"test\",\"kind\":\"%s\",\"index\":%d,\"name\":", kind_name(t), t->index);
        tr_json_str(&b, t->name);
        tr_buf_printf(&b, ",\"result\":\"%s\"", !oc->run ? "skip" : oc->passed ? "pass" : "fail");
        if (t->sim && oc->run)
            tr_buf_printf(&b, ",\"seeds\":%" PRIu64 ",\"seeds_run\":%" PRIu64, oc->seeds_total, oc->seeds_run);
        if (oc->run) tr_buf_printf(&b, ",\"seconds\":%.6f", oc->seconds);
        if (oc->run && !oc->passed) {
            tr_buf f = {0};
            failure_text(r, oc, &f);
            tr_buf_puts(&b, ",\"message\":");
            tr_json_str(&b, f.s);
            tr_buf_free(&f);
            if (t->sim) tr_buf_printf(&b, ",\"failed_seed\":%" PRIu64, oc->fail.seed);
            if (t->sim) tr_buf_printf(&b, ",\"deterministic\":%s", oc->nondet ? "false" : "true");
            if (oc->nondet) {
                tr_buf n = {0};
                nondet_text(r, oc, &n);
                tr_buf_puts(&b, ",\"warning\":");
                tr_json_str(&b, n.s);
                tr_buf_free(&n);
            }
            tr_buf_puts(&b, ",\"reproduce\":");
            tr_json_str(&b, oc->reproduce);
            tr_buf_puts(&b, ",\"failure\":{");
            json_item_fields(r, &b, &oc->fail);
            tr_buf_puts(&b, "}");
        }
        tr_buf_puts(&b, "}\n");
    }
    emit(&b);
}

static void report_end(runner *r, size_t passed, size_t failed, size_t skipped, size_t nondet, int status) {
    double secs = tr_now() - r->t0;
    tr_buf b = {0};
    if (r->o.format == FMT_HUMAN) {
        clear_progress(r);
        const char *word = status == TR_EXIT_NONDETERMINISM ? "NOT DETERMINISTIC" : failed ? "FAILED" : "ok";
        const char *col = failed ? RED : GREEN;
        tr_buf_printf(&b, "\ntest result: %s%s%s. %zu passed, %zu failed, %zu not run", paint(r, col), word,
                      paint(r, RESET), passed, failed, skipped);
        if (nondet) tr_buf_printf(&b, ", %zu not deterministic", nondet);
        tr_buf_printf(&b, "; %" PRIu64 " process%s in %.2f s\n", r->procs_run, r->procs_run == 1 ? "" : "es", secs);
    } else if (r->o.format == FMT_TAP) {
        tr_buf_printf(&b, "# passed %zu, failed %zu, not run %zu, not deterministic %zu\n", passed, failed, skipped,
                      nondet);
    } else {
        tr_buf_printf(&b,
                      "{\"event\":\"end\",\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu,\"nondeterministic\":%zu,"
                      "\"processes\":%" PRIu64 ",\"seconds\":%.6f,\"exit_status\":%d}\n",
                      passed, failed, skipped, nondet, r->procs_run, secs, status);
    }
    emit(&b);
}

static bool write_junit(runner *r, const char *path) {
    tr_buf b = {0};
    size_t fails = 0, skips = 0;
    double total = 0;
    for (size_t i = 0; i < r->nsel; i++) {
        if (!r->outs[i].run) skips++;
        else if (!r->outs[i].passed) fails++;
        total += r->outs[i].seconds;
    }
    tr_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tr_buf_printf(&b, "<testsuites name=\"oxl test\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
                  r->nsel, fails, skips, total);
    tr_buf_puts(&b, "  <testsuite name=\"");
    tr_xml_text(&b, r->o.pkg);
    tr_buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", r->nsel, fails,
                  skips, total);
    for (size_t i = 0; i < r->nsel; i++) {
        const outcome *oc = &r->outs[i];
        tr_buf_puts(&b, "    <testcase name=\"");
        tr_xml_text(&b, oc->test->name);
        tr_buf_printf(&b, "\" classname=\"%s\" file=\"", kind_name(oc->test));
        tr_xml_text(&b, oc->test->loc);
        tr_buf_printf(&b, "\" time=\"%.3f\"", oc->seconds);
        if (oc->run && oc->passed) {
            tr_buf_puts(&b, "/>\n");
            continue;
        }
        tr_buf_puts(&b, ">\n");
        if (!oc->run) {
            tr_buf_puts(&b, "      <skipped message=\"not run: an earlier test failed\"/>\n");
        } else {
            tr_buf f = {0};
            failure_text(r, oc, &f);
            tr_buf_puts(&b, "      <failure message=\"");
            tr_xml_text(&b, f.s);
            static const char *type[] = {"pass", "fail", "crash", "timeout"};
            tr_buf_printf(&b, "\" type=\"%s\">", type[oc->fail.res]);
            tr_xml_text(&b, f.s);
            if (oc->nondet) {
                tr_buf n = {0};
                nondet_text(r, oc, &n);
                tr_buf_puts(&b, "\nwarning: ");
                tr_xml_text(&b, n.s);
                tr_buf_free(&n);
            }
            tr_buf_puts(&b, "\nreproduce: ");
            tr_xml_text(&b, oc->reproduce);
            tr_buf_puts(&b, "</failure>\n      <system-out>");
            tr_xml_text(&b, oc->fail.out ? oc->fail.out : "");
            tr_buf_puts(&b, "</system-out>\n      <system-err>");
            tr_xml_text(&b, oc->fail.err ? oc->fail.err : "");
            tr_buf_puts(&b, "</system-err>\n");
            tr_buf_free(&f);
        }
        tr_buf_puts(&b, "    </testcase>\n");
    }
    tr_buf_puts(&b, "  </testsuite>\n</testsuites>\n");
    bool ok = tr_write_file(path, b.s, b.len, 0644);
    if (!ok) fprintf(stderr, "oxl test: cannot write the JUnit report '%s': %s\n", path, strerror(errno));
    tr_buf_free(&b);
    return ok;
}

/* ---- running a batch ---- */

typedef struct slot {
    tr_proc p;
    bool busy;
    uint64_t pos;
    char out[TR_PATH], err[TR_PATH], data[TR_PATH];
} slot;

/* The window of positions [head, next) of a batch. */
typedef struct window {
    item *items;
    uint64_t head, next;
    size_t cap;
} window;

static item *win_at(window *w, uint64_t pos) { return &w->items[pos % w->cap]; }

static void win_push(window *w, const item *it) {
    if (w->next - w->head == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        item *n = tr_xmalloc(cap * sizeof *n);
        for (uint64_t p = w->head; p < w->next; p++) n[p % cap] = w->items[p % w->cap];
        free(w->items);
        w->items = n;
        w->cap = cap;
    }
    w->items[w->next % w->cap] = *it;
    w->next++;
}

/* Reads the last `oxl-sim: seed=<n> trace=<hex> ...` line of stderr. */
static bool find_trace(const char *text, uint64_t *trace) {
    const char *last = NULL;
    for (const char *p = text; (p = strstr(p, "oxl-sim: seed=")); p++)
        if (p == text || p[-1] == '\n') last = p;
    if (!last) return false;
    const char *t = strstr(last, " trace=");
    const char *eol = strchr(last, '\n');
    if (!t || (eol && t > eol)) return false;
    t += 7;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = t[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return false;
        v = v << 4 | (uint64_t)d;
    }
    if (t[16] != ' ' && t[16] != '\n' && t[16] != '\0') return false;
    *trace = v;
    return true;
}

/* The fork server failed: said once, and every later process is spawned. */
static void serve_fail(runner *r, const char *why) {
    r->serve_off = true;
    if (r->serve_warned) return;
    r->serve_warned = true;
    clear_progress(r);
    fprintf(stderr, "oxl test: warning: the fork server failed: %s; each process is started with posix_spawn from now on\n",
            why);
}

/* What an ended process leaves is removed after the next processes have
 * started: off the path from one process to the next. */
static void trash(runner *r, const char *path) {
    if (r->ntrash == r->trash_cap) {
        r->trash_cap = r->trash_cap ? r->trash_cap * 2 : 16;
        r->trash = tr_xrealloc(r->trash, r->trash_cap * sizeof *r->trash);
    }
    snprintf(r->trash[r->ntrash++], TR_PATH, "%s", path);
}

static void empty_trash(runner *r) {
    for (size_t i = 0; i < r->ntrash; i++) tr_remove_tree(r->trash[i]);
    r->ntrash = 0;
}

/* What the slot's last process left, removed later (trash). */
static void trash_slot(runner *r, slot *s) {
    trash(r, s->data);
    trash(r, s->out);
    trash(r, s->err);
}

/* A fresh data directory and capture file names for the slot's next
 * process. False (reported) when the directory cannot be made. */
static bool fresh_paths(runner *r, slot *s) {
    ++r->counter;
    tr_pathf(s->data, sizeof s->data, "%s/data-%lu", r->tmp, r->counter);
    /* new files each time rather than truncated ones: ext4 writes a file
     * truncated to zero out when it is closed (auto_da_alloc), a disk
     * write per process */
    tr_pathf(s->out, sizeof s->out, "%s/out-%lu", r->tmp, r->counter);
    tr_pathf(s->err, sizeof s->err, "%s/err-%lu", r->tmp, r->counter);
    if (mkdir(s->data, 0700) != 0) {
        fprintf(stderr, "oxl test: cannot create '%s': %s\n", s->data, strerror(errno));
        return false;
    }
    return true;
}

static bool start_slot(runner *r, slot *s, item *it, uint64_t pos, bool report) {
    if (!fresh_paths(r, s)) return false;
    char run[48], seed[48], data[TR_PATH + 16];
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", it->test->index);
    snprintf(seed, sizeof seed, "OXL_TEST_SEED=%" PRIu64, it->seed);
    snprintf(data, sizeof data, "OXL_DATA_DIR=%s", s->data);
    const char *env[6] = {run, it->test->sim ? seed : "OXL_TEST_SEED", data,
                          it->test->sim || report ? "OXL_SIM_REPORT=1" : "OXL_SIM_REPORT", NULL};
    bool served = false;
    if (!r->serve_off && !r->spawn_only) {
        char why[1024];
        if (!r->srv) {
            char err[TR_PATH];
            tr_pathf(err, sizeof err, "%s/serve.err", r->tmp);
            r->srv = tr_server_start(r->bin, err, why, sizeof why);
            if (!r->srv) serve_fail(r, why);
        }
        if (r->srv && !r->serve_off) {
            served = tr_server_run(r->srv, &s->p, env, s->out, s->err, r->o.timeout, why, sizeof why);
            if (!served) {
                /* the server may have forked a child into these paths
                 * before it failed (it dies with the server): start
                 * again, spawned (serve_off is set), in paths of its own */
                serve_fail(r, why);
                trash_slot(r, s);
                return start_slot(r, s, it, pos, report);
            }
        }
    }
    if (!served && !tr_proc_start(&s->p, r->bin, NULL, env, s->out, s->err, r->o.timeout)) {
        fprintf(stderr, "oxl test: cannot start a process: %s\n", strerror(errno));
        tr_remove_tree(s->data);
        return false;
    }
    s->busy = true;
    s->pos = pos;
    return true;
}

static void finish_slot(runner *r, slot *s, item *it) {
    it->done = true;
    it->wstatus = s->p.wstatus;
    it->timed_out = s->p.timed_out;
    it->seconds = s->p.end - s->p.start;
    if (it->timed_out) it->res = RES_TIMEOUT;
    else if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) == 0) it->res = RES_PASS;
    else if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) == 101) it->res = RES_FAIL;
    else it->res = RES_CRASH;
    /* a passing seed's trace is shown only in JSON and compared only in
     * the determinism re-run: otherwise its stderr is not read */
    bool want_trace = it->test->sim && (r->o.format == FMT_JSON || r->spawn_only);
    if (want_trace || it->res != RES_PASS) {
        size_t om;
        char *err = tr_read_tail(s->err, it->res == RES_PASS ? 4096 : SHOW_BYTES, &om);
        if (err && it->test->sim) it->has_trace = find_trace(err, &it->trace);
        if (it->res != RES_PASS) {
            it->err = err;
            it->err_omitted = om;
            it->out = tr_read_tail(s->out, SHOW_BYTES, &it->out_omitted);
        } else {
            free(err);
        }
    }
    trash_slot(r, s);
    s->busy = false;
    r->procs_run++;
}

static void free_item(item *it) {
    free(it->out);
    free(it->err);
    it->out = it->err = NULL;
}

typedef void (*item_done_fn)(runner *r, item *it, uint64_t pos, void *ctx);

/* Runs the batch's processes, -j at a time. With stop_on_fail, the first
 * failure in ORDER ends it: later positions still running are killed,
 * earlier ones awaited (one of them may fail and become the first), so the
 * result is the sequential one. done() sees each item in order. Returns
 * the number of positions reported. */
static uint64_t run_batch(runner *r, gen *g, bool stop_on_fail, uint64_t total, const char *what, bool report,
                          item_done_fn done, void *ctx) {
    int nslots = r->o.jobs;
    slot *slots = tr_xmalloc((size_t)nslots * sizeof *slots);
    for (int i = 0; i < nslots; i++) slots[i].busy = false;
    window w = {0};
    uint64_t stop = UINT64_MAX, emitted = 0, failed = 0;
    bool exhausted = false, broken = false;
    int busy = 0;
    double since = tr_now(), last_progress = 0;
    for (;;) {
        while (!r->interrupted && !broken && busy < nslots && !exhausted && w.next < stop) {
            item it;
            if (!gen_next(r, g, &it)) {
                exhausted = true;
                break;
            }
            uint64_t pos = w.next;
            win_push(&w, &it);
            slot *s = NULL;
            for (int i = 0; i < nslots && !s; i++)
                if (!slots[i].busy) s = &slots[i];
            if (!start_slot(r, s, win_at(&w, pos), pos, report)) {
                broken = true; /* reported; the run ends as interrupted */
                w.next--;
                break;
            }
            busy++;
        }
        empty_trash(r); /* while the new processes run */
        if (busy == 0) break;
        double timeout = r->tty ? 0.1 : 1.0;
        int fd = -1;
        for (int i = 0; i < nslots; i++) {
            if (!slots[i].busy || !slots[i].p.srv) continue;
            fd = tr_server_fd(r->srv);
            if (slots[i].p.ended) timeout = 0; /* its status came with another answer */
        }
        if (!tr_wait_event(timeout, fd)) r->interrupted = true;
        for (int i = 0; i < nslots; i++) {
            slot *s = &slots[i];
            if (!s->busy) continue;
            if (r->interrupted || broken) {
                tr_proc_kill(&s->p);
                tr_remove_tree(s->data);
                s->busy = false;
                busy--;
                continue;
            }
            if (!tr_proc_poll(&s->p)) continue;
            if (s->p.lost) {
                /* the server died under it: run it again, spawned, in fresh
                 * files and a fresh data directory */
                serve_fail(r, tr_server_why(r->srv));
                trash_slot(r, s);
                s->busy = false;
                if (!start_slot(r, s, win_at(&w, s->pos), s->pos, report)) {
                    broken = true;
                    busy--;
                }
                continue;
            }
            item *it = win_at(&w, s->pos);
            finish_slot(r, s, it);
            busy--;
            if (it->res != RES_PASS) {
                failed++;
                if (stop_on_fail && s->pos < stop) {
                    stop = s->pos;
                    for (int k = 0; k < nslots; k++) {
                        if (slots[k].busy && slots[k].pos > stop) {
                            tr_proc_kill(&slots[k].p);
                            tr_remove_tree(slots[k].data);
                            slots[k].busy = false;
                            busy--;
                        }
                    }
                }
            }
        }
        while (w.head < w.next && w.head <= stop && win_at(&w, w.head)->done) {
            item *it = win_at(&w, w.head);
            done(r, it, w.head, ctx);
            free_item(it);
            w.head++;
            emitted++;
        }
        /* items after the stop that finished before it was known */
        if (stop != UINT64_MAX && w.head > stop) {
            for (uint64_t p = w.head; p < w.next; p++) free_item(win_at(&w, p));
            w.head = w.next;
        }
        double now = tr_now();
        if (what && now - last_progress >= 0.1) {
            show_progress(r, what, emitted, total, failed, since);
            last_progress = now;
        }
        if (r->interrupted && busy == 0) break;
    }
    for (uint64_t p = w.head; p < w.next; p++) free_item(win_at(&w, p));
    free(w.items);
    free(slots);
    empty_trash(r);
    if (broken) r->interrupted = true;
    return emitted;
}

/* ---- the plan ---- */

static void reproduce_line(runner *r, outcome *oc) {
    tr_buf b = {0};
    tr_buf_puts(&b, "oxl test ");
    tr_shell_word(&b, r->o.pkg);
    tr_buf_puts(&b, " --exact ");
    tr_shell_quote(&b, oc->test->name);
    if (oc->test->sim) tr_buf_printf(&b, " --seed %" PRIu64, oc->fail.seed);
    oc->reproduce = b.s;
}

static void unit_done(runner *r, item *it, uint64_t pos, void *ctx) {
    size_t *k = ctx; /* index in r->outs of the first unit test of this shard */
    size_t i = *k;
    while (r->outs[i].test != it->test) i++;
    *k = i + 1;
    outcome *oc = &r->outs[i];
    oc->run = true;
    oc->passed = it->res == RES_PASS;
    oc->seconds = it->seconds;
    if (!oc->passed) {
        oc->fail = *it;
        it->out = it->err = NULL; /* moved */
        reproduce_line(r, oc);
    }
    report_test_end(r, oc);
}

typedef struct sim_ctx {
    outcome *oc;
} sim_ctx;

static void seed_done(runner *r, item *it, uint64_t pos, void *ctx) {
    outcome *oc = ((sim_ctx *)ctx)->oc;
    oc->seeds_run = pos + 1;
    if (it->res == RES_PASS) {
        forget_failure(r, it->test, it->seed);
        report_seed(r, it, pos, NULL);
        return;
    }
    /* the first failing seed: the batch stops here */
    oc->passed = false;
    oc->fail = *it;
    it->out = it->err = NULL;
    remember_failure(r, it->test, it->seed);
}

static void rerun_done(runner *r, item *it, uint64_t pos, void *ctx) {
    outcome *oc = ctx;
    oc->rerun = *it;
    it->out = it->err = NULL;
    oc->rerun_done = true;
}

static bool same_failure(const item *a, const item *b) {
    if (a->timed_out != b->timed_out) return false;
    if (!a->timed_out && a->wstatus != b->wstatus) return false;
    if (a->has_trace != b->has_trace) return false;
    return !a->has_trace || a->trace == b->trace;
}

static void run_sim_test(runner *r, outcome *oc, uint64_t total) {
    const tr_test *t = oc->test;
    gen g;
    sim_gen(r, t, &g);
    oc->run = true;
    oc->passed = true;
    oc->seeds_total = total;
    report_test_start(r, t, total);
    sim_ctx c = {oc};
    char what[256];
    snprintf(what, sizeof what, "sim %.200s", t->shown);
    double t0 = tr_now();
    run_batch(r, &g, true, total, what, false, seed_done, &c);
    oc->seconds = tr_now() - t0;
    free(g.pre);
    if (r->interrupted) return;
    if (!oc->passed) {
        reproduce_line(r, oc);
        /* the same seed once more, to see that it fails the same way */
        gen one;
        memset(&one, 0, sizeof one);
        one.test = t;
        one.pre = &oc->fail.seed;
        one.npre = 1;
        one.all_shards = true;
        /* spawned, not forked: two children of one server share its
         * address layout, so behaviour that depends on addresses would
         * repeat; a new exec lays the process out anew */
        r->spawn_only = true;
        run_batch(r, &one, false, 1, NULL, true, rerun_done, oc);
        r->spawn_only = false;
        if (r->interrupted) return;
        oc->nondet = oc->rerun_done && !same_failure(&oc->fail, &oc->rerun);
        report_seed(r, &oc->fail, oc->seeds_run - 1, oc);
    }
    clear_progress(r);
    report_test_end(r, oc);
}

static bool selected(const runner *r, const tr_test *t) {
    if (r->o.kind == KIND_UNIT && t->sim) return false;
    if (r->o.kind == KIND_SIM && !t->sim) return false;
    if (r->o.exact && strcmp(t->name, r->o.exact) != 0) return false;
    if (r->o.filter && !strstr(t->name, r->o.filter)) return false;
    return true;
}

static int list_tests(runner *r) {
    tr_buf b = {0};
    for (size_t i = 0; i < r->nsel; i++) {
        const tr_test *t = r->sel[i];
        if (r->o.format == FMT_JSON) {
            tr_buf_printf(&b, "{\"event\":\"list\",\"kind\":\"%s\",\"index\":%d,\"name\":", kind_name(t), t->index);
            tr_json_str(&b, t->name);
            tr_buf_puts(&b, ",\"location\":");
            tr_json_str(&b, t->loc);
            if (t->sim) tr_buf_printf(&b, ",\"first_seed\":%" PRIu64 ",\"last_seed\":%" PRIu64, t->first, t->last);
            tr_buf_puts(&b, "}\n");
        } else {
            char seeds[64] = "";
            if (t->sim) snprintf(seeds, sizeof seeds, "%" PRIu64 "..%" PRIu64, t->first, t->last);
            tr_buf_printf(&b, "%-4s  %-13s  %s  %s\n", kind_name(t), seeds, t->loc, t->shown);
        }
    }
    emit(&b);
    return TR_EXIT_PASS;
}

static int run_plan(runner *r) {
    size_t nunit = 0, nsim = 0;
    /* unit tests first, then sim tests, each in source order; tests with
     * no process in this shard are left out */
    const tr_test **order = tr_xmalloc((r->nsel + 1) * sizeof *order);
    uint64_t *counts = tr_xmalloc((r->nsel + 1) * sizeof *counts);
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < r->nsel; i++) {
            const tr_test *t = r->sel[i];
            if (t->sim != (pass == 1)) continue;
            uint64_t c;
            if (t->sim) {
                gen g;
                sim_gen(r, t, &g);
                c = gen_count(r, &g);
                free(g.pre);
            } else {
                c = in_shard(r, t, 0) ? 1 : 0;
            }
            if (c == 0) continue;
            order[n] = t;
            counts[n++] = c;
            if (t->sim) nsim++;
            else nunit++;
        }
    }
    free(r->sel);
    r->sel = order;
    r->nsel = n;
    r->outs = tr_xmalloc((n + 1) * sizeof *r->outs);
    memset(r->outs, 0, (n + 1) * sizeof *r->outs);
    for (size_t i = 0; i < n; i++) r->outs[i].test = order[i];

    report_start(r, nunit, nsim);
    bool fail_fast = !r->o.no_fail_fast, failed = false;
    if (nunit) {
        gen g;
        memset(&g, 0, sizeof g);
        g.units = order;
        g.nunits = nunit;
        g.all_shards = true; /* already chosen */
        size_t k = 0;
        for (size_t i = 0; i < nunit; i++) report_test_start(r, order[i], 1);
        run_batch(r, &g, fail_fast, nunit, "unit tests", false, unit_done, &k);
        clear_progress(r);
        for (size_t i = 0; i < nunit; i++)
            if (r->outs[i].run && !r->outs[i].passed) failed = true;
    }
    for (size_t i = nunit; i < n && !r->interrupted; i++) {
        if (failed && fail_fast) break;
        run_sim_test(r, &r->outs[i], counts[i]);
        if (r->outs[i].run && !r->outs[i].passed) failed = true;
    }
    free(counts);
    size_t passed = 0, nfailed = 0, skipped = 0, nondet = 0;
    for (size_t i = 0; i < n; i++) {
        outcome *oc = &r->outs[i];
        if (!oc->run) {
            skipped++;
            if (!r->interrupted) report_test_end(r, oc);
        } else if (oc->passed) passed++;
        else {
            nfailed++;
            if (oc->nondet) nondet++;
        }
    }
    int status = r->interrupted ? 130 : nondet ? TR_EXIT_NONDETERMINISM : nfailed ? TR_EXIT_FAILED : TR_EXIT_PASS;
    if (r->interrupted) {
        clear_progress(r);
        fprintf(stderr, "oxl test: interrupted; the running tests were killed\n");
        if (r->o.format == FMT_TAP) printf("Bail out! interrupted\n");
    }
    report_end(r, passed, nfailed, skipped, nondet, status);
    const char *junit = r->o.junit;
    if (!junit) junit = getenv("XML_OUTPUT_FILE");
    if (junit && *junit && !write_junit(r, junit) && status == TR_EXIT_PASS) status = TR_EXIT_USAGE;
    return status;
}

/* ---- the command ---- */

static void free_runner(runner *r) {
    for (size_t i = 0; i < r->ntests; i++) {
        free(r->tests[i].name);
        free(r->tests[i].shown);
        free(r->tests[i].loc);
    }
    free(r->tests);
    for (size_t i = 0; r->outs && i < r->nsel; i++) {
        free_item(&r->outs[i].fail);
        free_item(&r->outs[i].rerun);
        free(r->outs[i].reproduce);
    }
    free(r->outs);
    free(r->sel);
    for (size_t i = 0; i < r->nfails; i++) free(r->fails[i].name);
    free(r->fails);
    free(r->trash);
}

static int run(runner *r) {
    struct stat st;
    if (stat(r->o.pkg, &st) != 0) {
        fprintf(stderr, "oxl test: cannot open '%s': %s\n", r->o.pkg, strerror(errno));
        return TR_EXIT_USAGE;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "oxl test: '%s' is not a package directory\n", r->o.pkg);
        return TR_EXIT_USAGE;
    }
    int s = setup_shards(r);
    if (s >= 0) return s;
    const char *fs = getenv("OXL_TEST_FORK_SERVER");
    if (fs && *fs && strcmp(fs, "0") != 0 && strcmp(fs, "1") != 0) {
        fprintf(stderr,
                "oxl test: OXL_TEST_FORK_SERVER='%s' must be 1 (the default: the test binary forks each process) "
                "or 0 (each process is started with posix_spawn)\n",
                fs);
        return TR_EXIT_USAGE;
    }
    r->serve_off = fs && strcmp(fs, "0") == 0;
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    if ((size_t)snprintf(r->tmp, sizeof r->tmp, "%s/oxl-test-XXXXXX", tmpdir) >= sizeof r->tmp || !mkdtemp(r->tmp)) {
        fprintf(stderr, "oxl test: cannot create a directory in '%s': %s\n", tmpdir, strerror(errno));
        r->tmp[0] = '\0';
        return TR_EXIT_USAGE;
    }
    if ((s = get_binary(r)) >= 0) return s;
    const char *keep = getenv("OXL_TEST_KEEP_BINARY");
    if (keep && *keep) {
        if (!tr_copy_file(r->bin, keep, 0755)) {
            fprintf(stderr, "oxl test: OXL_TEST_KEEP_BINARY: cannot copy the test binary to '%s': %s\n", keep,
                    strerror(errno));
            return TR_EXIT_USAGE;
        }
    }
    tr_signals_block();
    s = read_list(r);
    if (s >= 0) return s;
    r->sel = tr_xmalloc((r->ntests + 1) * sizeof *r->sel);
    for (size_t i = 0; i < r->ntests; i++)
        if (selected(r, &r->tests[i])) r->sel[r->nsel++] = &r->tests[i];
    if (r->nsel == 0) {
        if (r->ntests == 0) fprintf(stderr, "oxl test: the package '%s' has no tests\n", r->o.pkg);
        else {
            tr_buf b = {0};
            if (r->o.kind) tr_buf_printf(&b, " --kind %s", r->o.kind == KIND_UNIT ? "unit" : "sim");
            if (r->o.exact) tr_buf_puts(&b, " --exact "), tr_shell_quote(&b, r->o.exact);
            if (r->o.filter) tr_buf_puts(&b, " --filter "), tr_shell_quote(&b, r->o.filter);
            fprintf(stderr, "oxl test: no test matched%s (the package has %zu)\n", b.s ? b.s : "", r->ntests);
            tr_buf_free(&b);
        }
        return TR_EXIT_NO_TESTS;
    }
    if (r->o.list) return list_tests(r);
    load_failures(r);
    s = run_plan(r);
    if (!r->sharded) save_failures(r);
    return s;
}

int tr_main(int argc, char **argv, const tr_hooks *hooks) {
    runner r;
    memset(&r, 0, sizeof r);
    r.hooks = hooks;
    r.t0 = tr_now();
    int s = parse_opts(argc, argv, &r.o);
    if (s >= 0) return s;
    r.tty = isatty(1);
    const char *term = getenv("TERM");
    if (strcmp(r.o.color, "always") == 0) r.color = true;
    else if (strcmp(r.o.color, "auto") == 0)
        r.color = r.tty && !(getenv("NO_COLOR") && *getenv("NO_COLOR")) && !(term && strcmp(term, "dumb") == 0);
    if (r.o.format != FMT_HUMAN) r.color = false;
    s = run(&r);
    tr_server_stop(r.srv);
    tr_signals_restore();
    if (r.tmp[0]) tr_remove_tree(r.tmp);
    free_runner(&r);
    fflush(stdout);
    return s;
}
