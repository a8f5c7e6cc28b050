/* tr_opts.c: the flags of `oxl test` (docs/testing.md, Options) and the
 * settings it takes from the environment: Bazel's sharding variables,
 * OXL_TEST_FORK_SERVER, OXL_SIM_TIME_LIMIT, OXL_SIM_POLICY and
 * OXL_SIM_PCT_DEPTH, and the run's temporary directory. */
#include "cli.h"
#include "tr_internal.h"
#include "oxl_sched.h" /* oxl_time_limit_seconds */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tr_usage(const char *fmt, const char *arg) {
    fputs("oxl test: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'oxl help test')\n", stderr);
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

const char *const tr_policy_names[3] = {"random", "fifo", "pct"};

static bool parse_policy(const char *s, int *policy) {
    for (int i = 0; i < 3; i++)
        if (strcmp(s, tr_policy_names[i]) == 0) {
            *policy = i;
            return true;
        }
    return false;
}

static bool parse_depth(const char *s, uint64_t *d) {
    return tr_parse_u64(s, d) && *d >= 1 && *d <= TR_MAX_PCT_DEPTH;
}

/* Matches a (long or short) flag that takes a value: "--x v", "--x=v",
 * "-x v", "-xv". */
int tr_take_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val) {
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
#define VALUE(lng, shrt) tr_take_value(argc, argv, &i, lng, shrt, &v)
        /* every option is a row of cli.c's table: the help lists it */
        if (cli_is_help(a)) {
            cli_print_help(stdout, cli_find_cmd("test"));
            return TR_EXIT_PASS;
        }
        if (a[0] == '-' && a[1] != '\0' && strcmp(a, "--") != 0 && !cli_match("test", a)) {
            tr_usage("unknown option '%s' for 'oxl test'", a);
            return TR_EXIT_USAGE;
        }
        if ((m = tr_parse_more_opt(argc, argv, &i, o))) {
            if (m < 0) return TR_EXIT_USAGE;
        } else if (strcmp(a, "--no-fail-fast") == 0) {
            o->no_fail_fast = true;
        } else if (strcmp(a, "--in-process") == 0) {
            o->in_process = true;
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "--gdb") == 0) {
            o->gdb = true;
        } else if (strcmp(a, "-###") == 0) {
            o->show_commands = true;
        } else if (strcmp(a, "-O2") == 0) {
            o->opt_level = 2;
        } else if (strcmp(a, "-O0") == 0) {
            o->opt_level = 0;
        } else if (strcmp(a, "--") == 0) {
            o->gdb_args = argv + i + 1; /* gdb's, with --gdb (checked below) */
            o->gdb_nargs = argc - i - 1;
            o->has_dashdash = true;
            break;
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
            o->jobs_given = true;
        } else if ((m = VALUE("--format", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "human") == 0) o->format = TR_FMT_HUMAN;
            else if (strcmp(v, "tap") == 0) o->format = TR_FMT_TAP;
            else if (strcmp(v, "json") == 0) o->format = TR_FMT_JSON;
            else if (strcmp(v, "github") == 0) o->format = TR_FMT_GITHUB;
            else {
                tr_usage("--format takes human, tap, json or github, not '%s'", v);
                return TR_EXIT_USAGE;
            }
        } else if ((m = VALUE("--junit", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!*v) {
                tr_usage("%s", "--junit needs a file name");
                return TR_EXIT_USAGE;
            }
            o->junit = v;
        } else if ((m = VALUE("--timeline", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!*v) {
                tr_usage("%s", "--timeline needs a file name");
                return TR_EXIT_USAGE;
            }
            o->timeline = v;
        } else if ((m = VALUE("--partition", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            int au = tr_parse_partition_auto(v, o);
            if (au < 0) return TR_EXIT_USAGE;
            if (au > 0) continue;
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
                tr_usage("--partition takes hash:M/N with 1 <= M <= N, or hash:auto/N, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_partition = true;
            o->part_auto = false;
            o->part_index = mm - 1;
            o->part_total = nn;
        } else if ((m = VALUE("--policy", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!parse_policy(v, &o->policy)) {
                tr_usage("--policy takes random, fifo or pct, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_policy = true;
        } else if ((m = VALUE("--pct-depth", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (!parse_depth(v, &o->pct_depth)) {
                tr_usage("--pct-depth takes a bug depth from 1 to 64, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->has_pct_depth = true;
        } else if ((m = VALUE("--color", NULL))) {
            if (m < 0) return TR_EXIT_USAGE;
            if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never")) {
                tr_usage("--color takes auto, always or never, not '%s'", v);
                return TR_EXIT_USAGE;
            }
            o->color = v;
        } else if ((m = tr_shrink_flag(argc, argv, &i, o))) {
            if (m < 0) return TR_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            tr_usage("unknown option '%s' for 'oxl test'", a);
            return TR_EXIT_USAGE;
        } else {
            /* a package (or, with --merge, a shard's report) */
            o->pkgs = tr_xrealloc(o->pkgs, (o->npkgs + 1) * sizeof *o->pkgs);
            o->pkgs[o->npkgs++] = a;
            if (!o->pkg) o->pkg = a;
        }
#undef VALUE
    }
    if (o->has_dashdash && !o->gdb) {
        tr_usage("%s", "'oxl test' passes no arguments to the test binary; '--' is not an option (only --gdb takes "
                       "gdb's arguments after it)");
        return TR_EXIT_USAGE;
    }
    if (!o->pkg && o->merge) {
        tr_usage("%s", "--merge needs the JSON reports of the shards (oxl test --merge a.json b.json ...)");
        return TR_EXIT_USAGE;
    }
    if (!o->pkg) o->pkg = ".";
    int more = tr_check_more_opts(o);
    if (more != TR_GO_ON) return more;
    if (o->has_seed && o->has_seeds) {
        tr_usage("%s", "--seed and --seeds cannot be used together");
        return TR_EXIT_USAGE;
    }
    if (o->timeline && (!o->exact || !o->has_seed)) {
        tr_usage("%s", "--timeline draws one seed of one test: it needs --exact NAME and --seed N");
        return TR_EXIT_USAGE;
    }
    if (o->timeline && o->list) {
        tr_usage("%s", "--timeline runs a seed; it cannot be used with --list");
        return TR_EXIT_USAGE;
    }
    if (o->has_seed) {
        if (o->kind == TR_KIND_UNIT) {
            tr_usage("%s", "--seed runs sim tests; it cannot be used with --kind unit");
            return TR_EXIT_USAGE;
        }
        o->kind = TR_KIND_SIM;
    }
    return tr_shrink_check_opts(o);
}

/* Bazel's sharding variables; --partition wins over them. */
static int setup_shards(tr_runner *r) {
    const char *total = getenv("TEST_TOTAL_SHARDS"), *index = getenv("TEST_SHARD_INDEX");
    bool k8s;
    int ks = tr_setup_k8s_shards(r, &k8s);
    if (ks != TR_GO_ON) return ks;
    if (k8s) {
        /* --partition hash:auto/N or OXL_TEST_TOTAL_SHARDS: set */
    } else if (r->o.has_partition) {
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

/* The policy: the flags, else OXL_SIM_POLICY and OXL_SIM_PCT_DEPTH (the
 * test binary's own variables, which a user may have set), checked here;
 * then what every sim process gets, so the policy is the run's, never
 * what an environment left over. */
static int setup_policy(tr_runner *r) {
    tr_opts *o = &r->o;
    const char *pe = getenv("OXL_SIM_POLICY"), *de = getenv("OXL_SIM_PCT_DEPTH");
    if (!o->has_policy && pe && *pe) {
        if (!parse_policy(pe, &o->policy)) {
            fprintf(stderr, "oxl test: OXL_SIM_POLICY='%s' is not a policy: expected random, fifo or pct\n", pe);
            return TR_EXIT_USAGE;
        }
        o->has_policy = true;
    }
    if (!o->has_pct_depth && de && *de) {
        if (!parse_depth(de, &o->pct_depth)) {
            fprintf(stderr, "oxl test: OXL_SIM_PCT_DEPTH='%s' is not a depth: expected an integer from 1 to %d\n", de,
                    TR_MAX_PCT_DEPTH);
            return TR_EXIT_USAGE;
        }
        if (o->policy != TR_POLICY_PCT) {
            fprintf(stderr, "oxl test: OXL_SIM_PCT_DEPTH='%s' is the depth of the pct policy, and the policy is %s\n",
                    de, tr_policy_names[o->policy]);
            return TR_EXIT_USAGE;
        }
        o->has_pct_depth = true;
    } else if (o->has_pct_depth && o->policy != TR_POLICY_PCT) {
        tr_usage("%s", "--pct-depth is the depth of --policy pct; it needs --policy pct");
        return TR_EXIT_USAGE;
    }
    if (!o->has_pct_depth) o->pct_depth = TR_DEFAULT_PCT_DEPTH;
    snprintf(r->policy_env[0], sizeof r->policy_env[0], "OXL_SIM_POLICY=%s", tr_policy_names[o->policy]);
    snprintf(r->policy_env[1], sizeof r->policy_env[1], "OXL_SIM_PCT_DEPTH=%u", (unsigned)o->pct_depth);
    r->sim_env[0] = r->policy_env[0];
    r->sim_env[1] = r->policy_env[1];
    r->sim_env[2] = "OXL_SIM_TRACE_DUMP"; /* unset: only the trace diff's and the timeline's runs write one */
    /* a process whose output is watched as it comes prints it line by line */
    r->sim_env[3] = o->no_capture || o->gdb ? "OXL_TEST_STREAM=1" : "OXL_TEST_STREAM";
    r->sim_env[4] = NULL;
    return TR_GO_ON;
}

/* A variable that is 0 or 1 (or unset, or empty) into *v; false, said,
 * for another value. */
static bool env_zero_one(const char *name, const char **v, const char *zero, const char *one) {
    *v = getenv(name);
    if (!*v || !**v || strcmp(*v, "0") == 0 || strcmp(*v, "1") == 0) return true;
    fprintf(stderr, "oxl test: %s='%s' must be 0 (%s) or 1 (%s)\n", name, *v, zero, one);
    return false;
}

/* The run's settings from the environment that are not a flag's. */
int tr_setup_env(tr_runner *r) {
    int s = setup_policy(r);
    if (s != TR_GO_ON) return s;
    s = setup_shards(r);
    if (s != TR_GO_ON) return s;
    if ((s = tr_shrink_check_env()) != TR_GO_ON) return s;
    const char *fs;
    if (!env_zero_one("OXL_TEST_FORK_SERVER", &fs, "each process is forked by a server of its own",
                      "the default: one fork server forks every process"))
        return TR_EXIT_USAGE;
    r->shared_off = fs && strcmp(fs, "0") == 0;
    /* read by the fork server (test_serve.c), which the seeds inherit it from */
    const char *spread;
    if (!env_zero_one("OXL_TEST_SPREAD_FORKS", &spread,
                      "the default: a sim seed forked while no other runs stays on the fork server's CPU",
                      "the kernel places every seed"))
        return TR_EXIT_USAGE;
    if ((s = tr_export_more_opts(r)) != TR_GO_ON) return s;
    /* every process inherits it and the test binary checks it as
     * oxl_sched_options_default does: checked here once, a bad value is
     * the run's usage error rather than every seed's exit status 2 */
    /* named by the docs of the scheduler's past, not implemented: refused */
    const char *sched = getenv("OXL_SIM_SCHED");
    if (sched && strcmp(sched, "1") != 0) {
        fprintf(stderr,
                "oxl test: OXL_SIM_SCHED='%s' is not supported: there is no legacy scheduler, every sim test runs on "
                "the deterministic one (unset OXL_SIM_SCHED, or set it to 1)\n",
                sched);
        return TR_EXIT_USAGE;
    }
    const char *limit = getenv("OXL_SIM_TIME_LIMIT");
    if (limit) {
        double secs;
        if (!oxl_time_limit_seconds(limit, &secs)) {
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
