/* tr_more_opts.c: the flags of `oxl test` for shards past one machine
 * (--partition hash:auto/N, Kubernetes' JOB_COMPLETION_INDEX), for
 * seeing more (--no-capture, --trace-tail, --time-limit) and for a
 * failures file elsewhere (--failures-file); what they set in the
 * environment the test binary reads; the shard status line. */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_TAIL_MAX 1000000 /* events: more than any trace ring keeps */

/* "30s", "2m", "1h", "500ms", "1m30s" or plain seconds ("45", "0.5"). */
bool tr_parse_duration(const char *s, double *secs) {
    if (!*s) return false;
    double total = 0;
    const char *p = s;
    bool any = false;
    while (*p) {
        char *end;
        errno = 0;
        if (*p == '-' || *p == '+' || *p == ' ') return false;
        double v = strtod(p, &end);
        if (errno || end == p || !isfinite(v) || v < 0) return false;
        p = end;
        double unit;
        if (strncmp(p, "ms", 2) == 0) unit = 1e-3, p += 2;
        else if (*p == 's') unit = 1, p++;
        else if (*p == 'm') unit = 60, p++;
        else if (*p == 'h') unit = 3600, p++;
        else if (*p == '\0' && !any) unit = 1;
        else return false;
        total += v * unit;
        any = true;
    }
    if (!(total > 0) || total > 9.2e9) return false;
    *secs = total;
    return true;
}

int tr_parse_more_opt(int argc, char **argv, int *i, tr_opts *o) {
    const char *a = argv[*i], *v = NULL;
    int m;
    if (strcmp(a, "--no-capture") == 0 || strcmp(a, "--nocapture") == 0) {
        o->no_capture = true;
        return 1;
    }
    if (strcmp(a, "--merge") == 0) {
        o->merge = true;
        return 1;
    }
    if ((m = tr_take_value(argc, argv, i, "--trace-tail", NULL, &v))) {
        if (m < 0) return -1;
        uint64_t n;
        if (strcmp(v, "all") != 0 && (!tr_parse_u64(v, &n) || n > TRACE_TAIL_MAX)) {
            tr_usage("--trace-tail takes a number of trace events (0 to 1000000) or 'all', not '%s'", v);
            return -1;
        }
        o->trace_tail = v;
        return 1;
    }
    if ((m = tr_take_value(argc, argv, i, "--time-limit", NULL, &v))) {
        if (m < 0) return -1;
        if (!tr_parse_duration(v, &o->time_limit_secs)) {
            tr_usage("--time-limit takes a positive duration of virtual time (30s, 2m, 1h, 500ms, 1m30s or "
                     "seconds), not '%s'",
                     v);
            return -1;
        }
        o->time_limit = v;
        return 1;
    }
    if ((m = tr_take_value(argc, argv, i, "--failures-file", NULL, &v))) {
        if (m < 0) return -1;
        if (!*v) {
            tr_usage("%s", "--failures-file needs a file name");
            return -1;
        }
        o->failures_file = v;
        return 1;
    }
    return 0;
}

/* --partition hash:auto/N: 1 taken, 0 not this form, -1 a usage error. */
int tr_parse_partition_auto(const char *v, tr_opts *o) {
    if (strncmp(v, "hash:auto/", 10) != 0) return 0;
    uint64_t n;
    if (!tr_parse_u64(v + 10, &n) || n < 1 || n > UINT32_MAX) {
        tr_usage("--partition hash:auto/N takes a number of shards N >= 1, not '%s'", v);
        return -1;
    }
    o->has_partition = true;
    o->part_auto = true;
    o->part_total = n;
    return 1;
}

int tr_check_more_opts(tr_opts *o) {
    if (o->no_capture && o->jobs != 1) {
        if (o->jobs_given) {
            tr_usage("%s", "--no-capture prints each process's output as it comes, one process at a time: it needs "
                           "-j 1 (or no -j)");
            return TR_EXIT_USAGE;
        }
        o->jobs = 1; /* said in docs/testing.md: --no-capture runs one process at a time */
    }
    if (o->failures_file && o->npkgs > 1) {
        tr_usage("%s", "--failures-file names one package's file; it cannot be used with many packages");
        return TR_EXIT_USAGE;
    }
    if (o->merge && (o->list || o->has_partition)) {
        tr_usage("%s", o->list ? "--merge reads shard reports; it cannot be used with --list"
                               : "--merge reads shard reports; it cannot be used with --partition");
        return TR_EXIT_USAGE;
    }
    return TR_GO_ON;
}

/* JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod, 0-based) with
 * --partition hash:auto/N or OXL_TEST_TOTAL_SHARDS=N. TR_GO_ON, or a
 * usage error; *done true when this set the shard. */
int tr_setup_k8s_shards(tr_runner *r, bool *done) {
    *done = false;
    const char *index = getenv("JOB_COMPLETION_INDEX"), *total = getenv("OXL_TEST_TOTAL_SHARDS");
    bool has_index = index && *index, has_total = total && *total;
    uint64_t k = 0, n = 0;
    if (has_index && (!tr_parse_u64(index, &k) || k > UINT32_MAX)) {
        fprintf(stderr, "oxl test: JOB_COMPLETION_INDEX='%s' is not a shard index (an integer from 0)\n", index);
        return TR_EXIT_USAGE;
    }
    if (r->o.part_auto) {
        if (!has_index) {
            fprintf(stderr,
                    "oxl test: --partition hash:auto/%" PRIu64
                    " takes this shard's index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's), which is not "
                    "set\n",
                    r->o.part_total);
            return TR_EXIT_USAGE;
        }
        n = r->o.part_total;
    } else if (r->o.has_partition) {
        return TR_GO_ON; /* hash:M/N wins */
    } else if (has_total) {
        if (!tr_parse_u64(total, &n) || n < 1 || n > UINT32_MAX) {
            fprintf(stderr, "oxl test: OXL_TEST_TOTAL_SHARDS='%s' is not a number of shards (an integer >= 1)\n", total);
            return TR_EXIT_USAGE;
        }
        if (!has_index) {
            fprintf(stderr, "oxl test: OXL_TEST_TOTAL_SHARDS='%s' is set but JOB_COMPLETION_INDEX is not: which shard "
                            "is this?\n",
                    total);
            return TR_EXIT_USAGE;
        }
    } else {
        const char *bazel = getenv("TEST_TOTAL_SHARDS");
        if (has_index && !(bazel && *bazel))
            fprintf(stderr,
                    "oxl test: note: JOB_COMPLETION_INDEX=%s is set, but no number of shards (--partition "
                    "hash:auto/N or OXL_TEST_TOTAL_SHARDS): this run is not sharded\n",
                    index);
        return TR_GO_ON;
    }
    if (k >= n) {
        fprintf(stderr, "oxl test: JOB_COMPLETION_INDEX=%" PRIu64 " is not below the %" PRIu64 " shards (%s)\n", k, n,
                r->o.part_auto ? "--partition hash:auto/N" : "OXL_TEST_TOTAL_SHARDS");
        return TR_EXIT_USAGE;
    }
    r->sharded = n > 1;
    r->shard_index = k;
    r->shard_total = n;
    *done = true;
    return TR_GO_ON;
}

/* The settings the test binary takes from its environment: the runner's
 * own environment is every process's (spawned or forked by the server). */
int tr_export_more_opts(tr_runner *r) {
    char buf[64];
    /* --no-capture: no progress line between the lines it copies */
    if (r->o.no_capture) r->tty = false;
    if (r->o.time_limit) {
        /* the flag wins over an OXL_SIM_TIME_LIMIT in the environment */
        snprintf(buf, sizeof buf, "%.9g", r->o.time_limit_secs);
        if (setenv("OXL_SIM_TIME_LIMIT", buf, 1) != 0) return TR_EXIT_USAGE;
    }
    if (r->o.trace_tail) {
        if (setenv("OXL_TEST_TRACE_TAIL", r->o.trace_tail, 1) != 0) return TR_EXIT_USAGE;
    } else {
        const char *env = getenv("OXL_TEST_TRACE_TAIL");
        uint64_t n;
        if (env && strcmp(env, "all") != 0 && (!tr_parse_u64(env, &n) || n > TRACE_TAIL_MAX)) {
            fprintf(stderr,
                    "oxl test: OXL_TEST_TRACE_TAIL='%s' is not a number of trace events (0 to 1000000) or 'all'\n",
                    env);
            return TR_EXIT_USAGE;
        }
    }
    return TR_GO_ON;
}

void tr_shard_status(const tr_runner *r, uint64_t in_shard, uint64_t all) {
    if (!r->sharded) return;
    const char *from = r->o.has_partition && !r->o.part_auto ? "--partition"
                       : r->o.part_auto                       ? "JOB_COMPLETION_INDEX, --partition hash:auto"
                       : getenv("TEST_TOTAL_SHARDS") && *getenv("TEST_TOTAL_SHARDS")
                           ? "TEST_SHARD_INDEX, TEST_TOTAL_SHARDS"
                           : "JOB_COMPLETION_INDEX, OXL_TEST_TOTAL_SHARDS";
    fprintf(stderr, "oxl test: shard %" PRIu64 " of %" PRIu64 " (index %" PRIu64 " from %s): %" PRIu64 " of %" PRIu64
                    " processes\n",
            r->shard_index + 1, r->shard_total, r->shard_index, from, in_shard, all);
}
