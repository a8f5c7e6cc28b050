/* tr_opts.c: the flags of `oxl test` (docs/testing.md, Options) and the
 * settings it takes from the environment: Bazel's sharding variables,
 * OXL_TEST_FORK_SERVER, OXL_SIM_TIME_LIMIT and the run's temporary
 * directory. */
#include "tr_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tr_usage(const char *fmt, const char *arg) {
    fputs("oxl test: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'oxl help')\n", stderr);
}

bool tr_parse_u64(const char *s, uint64_t *v) {
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
        if (!tr_parse_u64(s, hi) || *hi == 0) return false;
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
    return tr_parse_u64(a, lo) && tr_parse_u64(b, hi) && *lo <= *hi;
}

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
        tr_usage("%s needs a value", a);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int tr_parse_opts(int argc, char **argv, tr_opts *o) {
    memset(o, 0, sizeof *o);
    o->pkg = NULL;
    o->timeout = TR_DEFAULT_TIMEOUT;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)(cores > 256 ? 256 : cores) : 1;
    o->color = "auto";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int m;
#define VALUE(lng, shrt) take_value(argc, argv, &i, lng, shrt, &v)
        if (strcmp(a, "--no-fail-fast") == 0) {
            o->no_fail_fast = true;
        } else if (strcmp(a, "--in-process") == 0) {
            o->in_process = true;
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "-###") == 0) {
            o->show_commands = true;
        } else if (strcmp(a, "-O2") == 0) {
            o->opt_level = 2;
        } else if (strcmp(a, "-O0") == 0) {
            o->opt_level = 0;
        } else if (strcmp(a, "--") == 0) {
            tr_usage("%s", "'oxl test' passes no arguments to the test binary; '--' is not an option");
            return TR_EXIT_USAGE;
        } else if ((m = VALUE("--kind", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "unit") == 0) o->kind = TR_KIND_UNIT;
            else if (strcmp(v, "sim") == 0) o->kind = TR_KIND_SIM;
            else {
                tr_usage("--kind takes unit or sim, not '%s'", v);
                return TR_EXIT_USAGE;
            }
        } else if ((m = VALUE("--seeds", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!parse_seeds(v, &o->seeds_lo, &o->seeds_hi) || o->seeds_hi > INT64_MAX) {
                tr_usage("--seeds takes a..b (inclusive, 0 <= a <= b < 2^63) or a count N (1..N), not '%s'", v);
                return TR_EXIT_USAGE;
            }
            if (o->seeds_hi - o->seeds_lo >= TR_MAX_SEEDS) {
                tr_usage("--seeds '%s' is more than 2^40 seeds", v);
                return TR_EXIT_USAGE;
            }
            o->has_seeds = true;
        } else if ((m = VALUE("--seed", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!tr_parse_u64(v, &o->seed) || o->seed > INT64_MAX) {
                tr_usage("--seed takes an integer from 0 to 2^63-1, not '%s'", v);
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
                tr_usage("--timeout takes seconds (0 for none, at most 1000000), not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->timeout = t;
        } else if ((m = VALUE("--jobs", "-j"))) {
            if (m < 0) return TR_EXIT_USAGE;
            uint64_t j;
            if (!tr_parse_u64(v, &j) || j < 1 || j > 1024) {
                tr_usage("-j takes a number of processes from 1 to 1024, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->jobs = (int)j;
        } else if ((m = VALUE("--format", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "human") == 0) o->format = TR_FMT_HUMAN;
            else if (strcmp(v, "tap") == 0) o->format = TR_FMT_TAP;
            else if (strcmp(v, "json") == 0) o->format = TR_FMT_JSON;
            else {
                tr_usage("--format takes human, tap or json, not '%s'", v);
                return TR_EXIT_USAGE;
            }
        } else if ((m = VALUE("--junit", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!*v) {
                tr_usage("%s", "--junit needs a file name");
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
                ok = tr_parse_u64(num, &mm) && tr_parse_u64(slash + 1, &nn) && mm >= 1 && mm <= nn;
            }
            if (!ok) {
                tr_usage("--partition takes hash:M/N with 1 <= M <= N, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_partition = true;
            o->part_index = mm - 1;
            o->part_total = nn;
        } else if ((m = VALUE("--color", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never")) {
                tr_usage("--color takes auto, always or never, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->color = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            tr_usage("unknown option '%s' for 'oxl test'", a);
            return TR_EXIT_USAGE;
        } else if (o->pkg) {
            tr_usage("'oxl test' takes one package directory; '%s' is one too many", a);
            return TR_EXIT_USAGE;
        } else {
            o->pkg = a;
        }
#undef VALUE
    }
    if (!o->pkg) o->pkg = ".";
    if (o->has_seed && o->has_seeds) {
        tr_usage("%s", "--seed and --seeds cannot be used together");
        return TR_EXIT_USAGE;
    }
    if (o->has_seed) {
        if (o->kind == TR_KIND_UNIT) {
            tr_usage("%s", "--seed runs sim tests; it cannot be used with --kind unit");
            return TR_EXIT_USAGE;
        }
        o->kind = TR_KIND_SIM;
    }
    return TR_GO_ON;
}

/* Bazel's sharding variables; --partition wins over them. */
static int setup_shards(tr_runner *r) {
    const char *total = getenv("TEST_TOTAL_SHARDS"), *index = getenv("TEST_SHARD_INDEX");
    if (r->o.has_partition) {
        r->sharded = r->o.part_total > 1;
        r->shard_index = r->o.part_index;
        r->shard_total = r->o.part_total;
    } else if ((total && *total) || (index && *index)) {
        uint64_t t, k;
        if (!total || !index || !tr_parse_u64(total, &t) || !tr_parse_u64(index, &k) || t < 1 || k >= t) {
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
    return TR_GO_ON;
}

/* The run's settings from the environment that are not a flag's. */
int tr_setup_env(tr_runner *r) {
    int s = setup_shards(r);
    if (s != TR_GO_ON) return s;
    const char *fs = getenv("OXL_TEST_FORK_SERVER");
    if (fs && *fs && strcmp(fs, "0") != 0 && strcmp(fs, "1") != 0) {
        fprintf(stderr,
                "oxl test: OXL_TEST_FORK_SERVER='%s' must be 1 (the default: one fork server forks every process) "
                "or 0 (each process is forked by a server of its own)\n",
                fs);
        return TR_EXIT_USAGE;
    }
    r->shared_off = fs && strcmp(fs, "0") == 0;
    /* every process inherits it and the test binary checks it as
     * oxl_sched_options_default does: checked here once, a bad value is
     * the run's usage error rather than every seed's exit status 2 */
    const char *limit = getenv("OXL_SIM_TIME_LIMIT");
    if (limit) {
        char *end = NULL;
        errno = 0;
        double secs = strtod(limit, &end);
        if (!*limit || *end || errno || !(secs > 0) || secs > 9.2e9) {
            fprintf(stderr, "oxl test: OXL_SIM_TIME_LIMIT='%s' is not a positive number of seconds\n", limit);
            return TR_EXIT_USAGE;
        }
    }
    if (!tr_explore_check_env()) return TR_EXIT_USAGE; /* OXL_TEST_CANARY_EVERY, said */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    if ((size_t)snprintf(r->tmp, sizeof r->tmp, "%s/oxl-test-XXXXXX", tmpdir) >= sizeof r->tmp || !mkdtemp(r->tmp)) {
        fprintf(stderr, "oxl test: cannot create a directory in '%s': %s\n", tmpdir, strerror(errno));
        r->tmp[0] = '\0';
        return TR_EXIT_USAGE;
    }
    return TR_GO_ON;
}
