/* test_main.c: the main of a test binary: the protocol of
 * docs/test-binary.md. A unit test's body runs as the root task of a
 * real-time run; a sim test's body runs on the first node of its layout in
 * a fresh World seeded with OXL_TEST_SEED, on the deterministic scheduler,
 * with the virtual clock at 2026-01-01T00:00:00Z. */
#include "oxl_rpc.h"
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_test.h"
#include "test_schedule.h"
#include "test_serve.h"
#include "fence/fence.h"
#include "core/core_internal.h"
#include "sched/fiber.h"
#include "sim/sim_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h> /* __fpending */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_TAIL_EVENTS 20
#define TEST_TAIL_MAX 1000000 /* OXL_TEST_TRACE_TAIL's largest number */
#define TEST_MAX_NODES 1024
#define TEST_MAX_ROLES 64
#define TEST_STACK_SIZE (1024 * 1024) /* of a sim test's tasks */
#define TEST_SERVE_STACKS 8           /* mapped by the fork server for its children */

static void put_escaped(const char *s, int64_t n, FILE *out) {
    for (int64_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\')
            fputs("\\\\", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\n')
            fputs("\\n", out);
        else
            putc(c, out);
    }
}

/* A sim test's layout for --list: its nodes in order (the body's first),
 * comma-separated, each with its roles after '=' joined by '+'
 * ("api-0=api,storage-0=storage"; a node serving nothing is its name
 * alone); "-" for a unit test. Node and role names are identifiers with
 * a number, so they need none of these separators escaped. */
static void put_layout(const oxl_test_case *t, FILE *out) {
    if (!t->sim || t->nnodes <= 0) {
        putc('-', out);
        return;
    }
    for (int64_t n = 0; n < t->nnodes; n++) {
        const oxl_test_node *node = &t->layout[n];
        if (n) putc(',', out);
        fputs(node->name, out);
        for (int64_t r = 0; r < node->nroles; r++) {
            putc(r ? '+' : '=', out);
            fputs(node->roles[r].name, out);
        }
    }
}

static void list_tests(const oxl_test_case *t, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (t[i].sim)
            printf("%" PRId64 "\tsim\t%" PRId64 "\t%" PRId64 "\t", i, t[i].seed_first, t[i].seed_last);
        else
            printf("%" PRId64 "\tunit\t-\t-\t", i);
        printf("%s:%" PRId64 ":%" PRId64 "\t", t[i].file, t[i].line, t[i].col);
        put_escaped(t[i].name, t[i].name_len, stdout);
        putchar('\t');
        put_layout(&t[i], stdout);
        putchar('\n');
    }
    /* the handshake of a whole listing (docs/test-binary.md, Protocol):
     * oxl test takes a program that lists without it (another program
     * in the cache entry's place) for a damaged binary, and a count that
     * differs from the lines it read for a cut-short listing */
    if (fflush(stdout) == 0 && !ferror(stdout)) fprintf(stderr, "oxl-list: tests=%" PRId64 "\n", n);
}

/* A non-negative decimal Int without sign, spaces or leading zeros. */
static bool parse_index(const char *s, uint64_t *out) {
    if (!s || !*s || strlen(s) > 19) return false;
    if (s[0] == '0' && s[1]) return false;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)INT64_MAX) return false;
    *out = v;
    return true;
}

typedef struct sim_session {
    const oxl_test_case *tc;
    const char *data_dir;
} sim_session;

static void *run_body(void *arg) {
    ((const oxl_test_case *)arg)->body();
    return NULL;
}

/* A node's boot, at every boot: its roles' services (state, `on start`). */
static void *boot_node(void *arg) {
    const oxl_test_node *ln = arg;
    for (int64_t r = 0; r < ln->nroles; r++)
        if (ln->roles[r].service) oxl_service_boot(ln->roles[r].service);
    return NULL;
}

/* The root of a sim run: the layout's nodes, each serving its roles'
 * services, then the body on the first. A panic on another node crashes
 * that node, as a real process would die, and the run goes on. */
static void *sim_root(void *arg) {
    const sim_session *ss = arg;
    const oxl_test_case *tc = ss->tc;
    oxl_node *first = NULL;
    for (int64_t i = 0; i < tc->nnodes; i++) {
        const oxl_test_node *ln = &tc->layout[i];
        const char *roles[TEST_MAX_ROLES];
        char dir[4096];
        if (ln->nroles > TEST_MAX_ROLES)
            oxl_panic_at(tc->file, (int)tc->line, "node '%s' has more than %d roles", ln->name, TEST_MAX_ROLES);
        for (int64_t r = 0; r < ln->nroles; r++) roles[r] = ln->roles[r].name;
        oxl_node_config cfg = {.name = ln->name, .roles = roles, .nroles = (size_t)ln->nroles,
                               .boot = ln->nroles ? boot_node : NULL, .boot_arg = (void *)ln, .panic_crashes = i > 0};
        if (ss->data_dir && *ss->data_dir) {
            snprintf(dir, sizeof dir, "%s/%s", ss->data_dir, ln->name);
            cfg.data_dir = dir;
        }
        oxl_node *n = oxl_node_new(&cfg);
        if (!n) oxl_panic_at(tc->file, (int)tc->line, "cannot make the simulated node '%s'", ln->name);
        for (int64_t r = 0; r < ln->nroles; r++)
            if (ln->roles[r].service) oxl_rpc_serve(n, ln->roles[r].service);
        if (!first) first = n;
    }
    if (!first) oxl_panic_at(tc->file, (int)tc->line, "the test has no simulated node to run on");
    oxl_task *body = oxl_spawn_on_node_at(first, run_body, (void *)ss->tc, ss->tc->file, (int)ss->tc->line);
    oxl_task_wait_note("the test's harness, waiting for its body to end"); /* for failure reports */
    if (oxl_join_at(body, NULL, ss->tc->file, (int)ss->tc->line) == OXL_JOIN_CANCELLED)
        oxl_panic_at(ss->tc->file, (int)ss->tc->line, "the test body was cancelled (its node %s was killed)", oxl_node_name(first));
    return NULL;
}

#define TEST_MAX_PCT_DEPTH 64

/* OXL_SIM_POLICY (random, fifo, pct; unset or empty: random) and
 * OXL_SIM_PCT_DEPTH (1..64, for pct; unset or empty: 3) into opt; false,
 * said, on a bad value. */
static bool policy_from_env(oxl_sched_options *opt) {
    const char *p = getenv("OXL_SIM_POLICY");
    if (p && *p) {
        if (strcmp(p, "random") == 0) opt->policy = OXL_POLICY_RANDOM;
        else if (strcmp(p, "fifo") == 0) opt->policy = OXL_POLICY_FIFO;
        else if (strcmp(p, "pct") == 0) opt->policy = OXL_POLICY_PCT;
        else {
            fprintf(stderr, "error: OXL_SIM_POLICY='%s' is not a policy: expected random, fifo or pct\n", p);
            return false;
        }
    }
    const char *d = getenv("OXL_SIM_PCT_DEPTH");
    if (d && *d) {
        uint64_t v;
        if (!parse_index(d, &v) || v < 1 || v > TEST_MAX_PCT_DEPTH) {
            fprintf(stderr, "error: OXL_SIM_PCT_DEPTH='%s' is not a depth: expected an integer from 1 to %d\n", d,
                    TEST_MAX_PCT_DEPTH);
            return false;
        }
        opt->pct_depth = (int)v;
    }
    return true;
}

static const char *status_word(oxl_sched_status st) {
    switch (st) {
    case OXL_SCHED_FINISHED: return "finished";
    case OXL_SCHED_DEADLOCK: return "deadlock";
    case OXL_SCHED_TIME_LIMIT: return "time-limit";
    case OXL_SCHED_LIVELOCK: return "livelock";
    case OXL_SCHED_WORLD_FAILED: return "world-failed";
    case OXL_SCHED_PANICKED: return "panicked";
    case OXL_SCHED_EXHAUSTED: return "exhausted";
    }
    return "?";
}

/* OXL_SIM_TRACE_DUMP: the file is opened before the run (a bad path is
 * the variable's error, exit 2) and written after it, outside the fence. */
static bool trace_dump_open(FILE **out, const char **path_out) {
    const char *path = getenv("OXL_SIM_TRACE_DUMP");
    *out = NULL;
    *path_out = path;
    if (!path) return true;
    if (!*path) {
        fputs("error: OXL_SIM_TRACE_DUMP is empty: it names the file the run's trace is written to\n", stderr);
        return false;
    }
    *out = fopen(path, "w");
    if (!*out) {
        fprintf(stderr, "error: OXL_SIM_TRACE_DUMP='%s' cannot be written: %s\n", path, strerror(errno));
        return false;
    }
    return true;
}

/* OXL_SIM_TRACE_DUMP's dump: static, so that what it holds stays
 * reachable while the run is on task stacks (a C extern that calls exit()
 * there is no leak). */
static oxl_trace_dump *run_tdump;

static bool trace_dump_close(FILE *out, const char *path, const oxl_trace_dump *d, uint64_t seed,
                             const oxl_sched_result *r) {
    oxl_trace_dump_result res = {status_word(r->status), r->end_time, r->trace_hash, r->report};
    bool ok = oxl_trace_dump_write(d, seed, &res, out);
    if (fclose(out) != 0) ok = false;
    if (!ok) fprintf(stderr, "error: OXL_SIM_TRACE_DUMP='%s': the trace could not be written\n", path);
    return ok;
}

/* OXL_TEST_TRACE_TAIL: how many trace events a failing seed's report
 * shows (docs/test-binary.md): a number, or "all" (every event the trace
 * keeps). False (said) on a bad value. */
static bool trace_tail(size_t *n) {
    const char *env = getenv("OXL_TEST_TRACE_TAIL");
    *n = TEST_TAIL_EVENTS;
    if (!env) return true;
    if (strcmp(env, "all") == 0) {
        *n = SIZE_MAX;
        return true;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    if (!*env || *env == '-' || *env == '+' || *end || errno || v > TEST_TAIL_MAX) {
        fprintf(stderr, "error: OXL_TEST_TRACE_TAIL='%s' is not a number of trace events (0 to %d) or 'all'\n", env,
                TEST_TAIL_MAX);
        return false;
    }
    *n = (size_t)v;
    return true;
}

/* Appends v in decimal, or in hex as 16 digits. */
static char *put_dec(char *o, uint64_t v) {
    char digits[20];
    const char *p = core_u64_dec(digits + sizeof digits, v);
    size_t n = (size_t)(digits + sizeof digits - p);
    memcpy(o, p, n);
    return o + n;
}

static char *put_hex16(char *o, uint64_t v) {
    for (int shift = 60; shift >= 0; shift -= 4) *o++ = "0123456789abcdef"[(v >> shift) & 15];
    return o;
}

/* The seed's report line, "oxl-sim: seed=<n> trace=<16 hex> switches=<n>",
 * written to fd 2 at once (stderr is unbuffered: nothing of it waits):
 * formatted here rather than by fprintf, whose code and 8 KiB stack
 * buffer were five pages a served seed touched for this one line. */
static void put_report(uint64_t seed, uint64_t trace, uint64_t switches) {
    char line[96], *o = line;
    memcpy(o, "oxl-sim: seed=", 14);
    o = put_dec(o + 14, seed);
    memcpy(o, " trace=", 7);
    o = put_hex16(o + 7, trace);
    memcpy(o, " switches=", 10);
    o = put_dec(o + 10, switches);
    *o++ = '\n';
    if (__fpending(stderr)) fflush(stderr); /* a C extern's setvbuf: what it holds goes first */
    for (const char *p = line; p < o;) {
        ssize_t w = write(2, p, (size_t)(o - p));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* as fprintf to a closed stderr: the runner sees no report */
        p += w;
    }
}

static int run_sim(const oxl_test_case *tc, uint64_t seed, bool report, uint64_t *trace) {
    oxl_sched_options opt;
    if (!oxl_sched_options_default(&opt, seed)) return 2; /* OXL_SIM_TIME_LIMIT, said why */
    if (!policy_from_env(&opt)) return 2;
    if (!trace_tail(&opt.tail_events)) return 2;
    opt.stack_size = TEST_STACK_SIZE; /* as in a real-time run: the same recursion fits */
    if (tc->nnodes > TEST_MAX_NODES) {
        fprintf(stderr, "error: the test asks for %" PRId64 " nodes (the limit is %d)\n", tc->nnodes, TEST_MAX_NODES);
        return 2;
    }
    const char *debug = getenv("OXL_SIM_NODES_DEBUG");
    if (debug && *debug && strcmp(debug, "0") != 0 && strcmp(debug, "1") != 0) {
        fprintf(stderr, "error: OXL_SIM_NODES_DEBUG='%s' must be 1 or 0\n", debug);
        return 2;
    }
    if (debug && strcmp(debug, "1") == 0) opt.nodes_debug = stderr;
    test_schedule sched_file;
    if (test_schedule_begin(&sched_file, tc, seed, &opt) != 0) return 2; /* OXL_SIM_SCHEDULE_IN/_OUT, said why */
    FILE *dump_out;
    const char *dump_path;
    if (!trace_dump_open(&dump_out, &dump_path)) return 2;
    oxl_trace_dump *tdump = NULL;
    if (dump_out) {
        tdump = run_tdump = oxl_trace_dump_new();
        opt.trace_hook = oxl_trace_dump_hook;
        opt.trace_hook_arg = tdump;
    }
    sim_session ss = {tc, getenv("OXL_DATA_DIR")};
    oxl_sched_result r = oxl_sched_run(sim_root, &ss, &opt);
    oxl_rt_flush();
    int status = oxl_sched_exit_status(&r, stderr);
    if (test_schedule_end(&sched_file, tc, seed, &r) != 0 && status == 0) status = 2;
    if (dump_out) {
        bool ok = trace_dump_close(dump_out, dump_path, tdump, seed, &r);
        oxl_trace_dump_free(tdump);
        run_tdump = NULL;
        if (!ok && status == 0) status = 2;
    }
    if (report) {
        put_report(seed, r.trace_hash, r.switches);
        if (status != 0 && r.tail) fputs(r.tail, stderr);
    }
    if (trace) *trace = r.trace_hash;
    oxl_sched_result_free(&r);
    return status;
}

/* SIGTERM, which the runner sends a process past its -t limit before it
 * kills it (docs/test-binary.md): what the test printed and stdout still
 * buffers is written before the process ends, so its report shows it.
 * fflush is not async-signal-safe: a print the signal interrupts may show
 * in part; the process ends here either way, and glibc's stream lock is
 * recursive, so the flush cannot wait on the interrupted print. */
static void on_term(int sig) {
    oxl_rt_flush();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* How the process's output goes out: OXL_TEST_STREAM=1 (the runner's
 * --no-capture and --gdb) makes stdout line-buffered, so each printed
 * line reaches the runner as it is printed; without it stdout stays fully
 * buffered (oxl_rt_init), one write for many lines. False (said) for
 * another value. */
static bool output_from_env(void) {
    const char *stream = getenv("OXL_TEST_STREAM");
    if (stream && *stream && strcmp(stream, "0") != 0 && strcmp(stream, "1") != 0) {
        fprintf(stderr, "error: OXL_TEST_STREAM='%s' must be 1 (stdout line-buffered) or 0\n", stream);
        return false;
    }
    if (stream && strcmp(stream, "1") == 0) setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    return true;
}

/* One test as the environment names it: the exec'd path and, in each
 * forked child, the serve mode. */
static int run_from_env(const oxl_test_case *tests, int64_t ntests) {
    if (!output_from_env()) return 2;
    const char *run = getenv("OXL_TEST_RUN");
    uint64_t index;
    if (!run) {
        fputs("error: OXL_TEST_RUN is not set: it names the test to run by index (see --list)\n", stderr);
        return 2;
    }
    if (!parse_index(run, &index) || index >= (uint64_t)ntests) {
        if (ntests == 0)
            fprintf(stderr, "error: OXL_TEST_RUN='%s' is not a test index: this binary has no tests\n", run);
        else
            fprintf(stderr, "error: OXL_TEST_RUN='%s' is not a test index: expected 0..%" PRId64 "\n", run,
                    ntests - 1);
        return 2;
    }
    const char *rep = getenv("OXL_SIM_REPORT");
    if (rep && *rep && strcmp(rep, "0") != 0 && strcmp(rep, "1") != 0) {
        fprintf(stderr, "error: OXL_SIM_REPORT='%s' must be 1 or 0\n", rep);
        return 2;
    }
    bool report = rep && strcmp(rep, "1") == 0;
    const oxl_test_case *tc = &tests[index];
    if (!tc->sim) {
        int status = oxl_rt_main(tc->body); /* a unit test runs as a program's main does */
        /* the run reached its end: what tells a pass from an exit(0) in
         * a C extern (docs/test-binary.md) */
        if (report) fprintf(stderr, "oxl-unit: test=%" PRIu64 " done\n", index);
        return status;
    }
    const char *seed_env = getenv("OXL_TEST_SEED");
    uint64_t seed;
    if (!seed_env) {
        fprintf(stderr, "error: OXL_TEST_SEED is not set: test %" PRIu64 " is a sim test and needs a seed\n", index);
        return 2;
    }
    if (!parse_index(seed_env, &seed)) {
        fprintf(stderr, "error: OXL_TEST_SEED='%s' is not a seed: expected a non-negative integer up to %" PRId64 "\n",
                seed_env, INT64_MAX);
        return 2;
    }
    if (!fence_config_from_env()) return 2; /* OXL_SIM_FENCE, said why */
    return run_sim(tc, seed, report, NULL);
}

typedef struct serve_ctx {
    const oxl_test_case *tests;
    int64_t ntests;
} serve_ctx;

static int serve_run(void *arg) {
    const serve_ctx *c = arg;
    return run_from_env(c->tests, c->ntests);
}

/* One seed of the explorer (--explore): a sim test run in this process,
 * as an exec'd run of it would run (the same status and trace). */
static int explore_run(void *arg, uint64_t index, uint64_t seed, uint64_t *trace) {
    const serve_ctx *c = arg;
    if (index >= (uint64_t)c->ntests || !c->tests[index].sim) {
        fprintf(stderr, "error: --explore: test %" PRIu64 " is not a sim test of this binary\n", index);
        return 2;
    }
    return run_sim(&c->tests[index], seed, false, trace);
}

int oxl_test_main(int argc, char **argv, const oxl_test_case *tests, int64_t ntests) {
    /* the one-time setup a served child inherits: the collector and the
     * stack overflow handler; nothing that depends on the seed */
    if (argc == 2 && strcmp(argv[1], "--serve") == 0) test_serve_before_gc();
    oxl_rt_init();
    oxl_catch_stack_overflow();
    if (argc > 1) {
        if (argc == 2 && strcmp(argv[1], "--list") == 0) {
            list_tests(tests, ntests);
            return 0;
        }
        if (argc == 2 && strcmp(argv[1], "--serve") == 0) {
            /* a seed's first task stacks, mapped once here for every child
             * (a child that needs more maps them itself), and the ring
             * of its trace */
            sched_stack_reserve(TEST_STACK_SIZE, TEST_SERVE_STACKS);
            sim_trace_reserve();
            serve_ctx c = {tests, ntests};
            return oxl_test_serve(serve_run, &c);
        }
        if (argc == 2 && strcmp(argv[1], "--explore") == 0) {
            if (!fence_config_from_env()) return 2; /* OXL_SIM_FENCE, said why */
            serve_ctx c = {tests, ntests};
            return oxl_test_explore(explore_run, &c);
        }
        fprintf(stderr,
                "usage: %s [--list | --serve | --explore]  (run a test with OXL_TEST_RUN=<index> [OXL_TEST_SEED=<n>])\n",
                argv[0]);
        return 2;
    }
    return run_from_env(tests, ntests);
}
