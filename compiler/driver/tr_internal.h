/* tr_internal.h: what the files of the test runner share. Not a public
 * interface. The files, in the order a run uses them:
 *   tr_main.c      the command: tr_main, the selection, --list
 *   tr_opts.c      the flags and the environment's settings
 *   tr_binary.c    the test binary: built or taken from the cache, --list read
 *   tr_failures.c  the failures file
 *   tr_plan.c      what runs in which order: the tests, the first failing
 *                  seed, the determinism re-run; tr_gen.c the seeds of a
 *                  test, shards
 *   tr_batch.c     one batch of processes, -j at a time, in order
 *   tr_report.c    the text the formats share; tr_report_{human,tap,json}.c
 *                  the report formats (a tr_reporter each); tr_junit.c the
 *                  JUnit file written after the run
 *   tr_explain.c   what explains a failing seed: what everyone was doing,
 *                  the trace diff against the last passing seed
 *   tr_shrink.c    --shrink and --replay: one seed's schedule made small
 *   tr_timeline.c  --timeline: the seed's whole trace as an HTML page
 *   tr_exec.c      processes and signals; tr_serve.c the fork server
 *   tr_util.c      text, escapes, files, hashes and the cache key */
#ifndef OXL_TR_INTERNAL_H
#define OXL_TR_INTERNAL_H

#include "test_runner.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#if defined(__GNUC__)
#define TR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TR_PRINTF(f, a)
#endif

#define TR_PATH 4096

/* ---- a growable byte buffer (aborts on out of memory, like the arenas) ---- */
typedef struct tr_buf {
    char *s;
    size_t len, cap;
} tr_buf;
void tr_buf_add(tr_buf *b, const char *s, size_t n);
void tr_buf_puts(tr_buf *b, const char *s);
void tr_buf_printf(tr_buf *b, const char *fmt, ...) TR_PRINTF(2, 3);
void tr_buf_free(tr_buf *b);
void *tr_xmalloc(size_t n);
void *tr_xrealloc(void *p, size_t n);
char *tr_xstrdup(const char *s);

/* Escapes for the output formats. Invalid UTF-8 becomes U+FFFD. */
void tr_json_str(tr_buf *b, const char *s);   /* "..." with JSON escapes */
void tr_xml_text(tr_buf *b, const char *s);   /* &amp; &lt; &gt; &quot;, no control characters */
/* '...' with ' written '\''; $'...' (\n, \t, \xNN, \', \\) when s has a
 * control character, so the text stays one line and moves no cursor */
void tr_shell_quote(tr_buf *b, const char *s);
void tr_shell_word(tr_buf *b, const char *s);  /* as is when safe, else quoted */
/* A test name as --list writes it (\\, \t, \n) and, beyond that, other
 * control characters as \xNN, so a name never moves a terminal's cursor
 * (the terminal, the failures file). */
void tr_name_escape(tr_buf *b, const char *s);
/* The n bytes at s with --list's escapes undone and, with hex, also
 * tr_name_escape's \xNN (not \x00) (malloc'd); *ok false on a bad escape. */
char *tr_name_unescape(const char *s, size_t n, bool hex, bool *ok);

/* ---- files ---- */
/* snprintf into a path buffer; false when it did not fit. */
bool tr_pathf(char *buf, size_t cap, const char *fmt, ...) TR_PRINTF(3, 4);
/* The last max bytes of a file (NUL-terminated, malloc'd); *omitted gets
 * how many bytes came before them. NULL when unreadable. */
char *tr_read_tail(const char *path, size_t max, size_t *omitted);
/* A whole small file (at most max bytes); NULL when unreadable or larger. */
char *tr_read_all(const char *path, size_t max, size_t *len);
/* Writes all of data to fd (again after EINTR and short writes); false when a write fails. */
bool tr_write_all(int fd, const char *data, size_t len);
bool tr_write_file(const char *path, const char *data, size_t len, int mode);
/* The same, synced to disk before it is closed: for a file that is then
 * renamed into place, so a crash leaves the old file or the whole new one. */
bool tr_write_file_synced(const char *path, const char *data, size_t len, int mode);
bool tr_copy_file(const char *from, const char *to, int mode);
bool tr_copy_file_synced(const char *from, const char *to, int mode); /* synced before it is closed */
/* Removes a file or a directory tree (symbolic links are not followed). */
void tr_remove_tree(const char *path);
bool tr_mkdir_p(const char *path);

/* ---- hashes ---- */
typedef struct tr_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
} tr_sha256;
void tr_sha256_init(tr_sha256 *c);
void tr_sha256_add(tr_sha256 *c, const void *data, size_t n);
void tr_sha256_done(tr_sha256 *c, unsigned char out[32]);
uint64_t tr_fnv1a64(uint64_t h, const void *data, size_t n);
#define TR_FNV_OFFSET 0xcbf29ce484222325ull

/* ---- the test binary cache ---- */
/* Fills key (64 hex digits) from the package sources, the std tree, the
 * compiler and the runtime. False (message printed) when the package
 * cannot be read. */
bool tr_cache_key(const char *pkg, const tr_hooks *h, int opt_level, char key[65]);

/* ---- processes ---- */
typedef struct tr_server tr_server;

typedef struct tr_proc {
    pid_t pid;          /* 0 when not running */
    double start, end;  /* monotonic seconds */
    double ran;         /* srv: seconds from fork to end as the server measured them; -1 unknown */
    double deadline;    /* 0: none */
    int wstatus;
    bool timed_out;
    tr_server *srv;     /* a child of this fork server; NULL: spawned by the runner */
    bool ended;         /* srv: the server has told its status */
    bool lost;          /* srv: the server ended first; the child was killed, its result is unknown */
    bool queued;        /* srv: sent, no `pid` answer yet (pid is 0) */
    bool refused;       /* srv: the server answered `error` (also lost: nothing ran) */
    double timeout;     /* srv: the deadline's seconds after the `pid` answer */
    double term_at;     /* past its deadline: when SIGTERM asked it to end (0: not yet) */
    char *report;       /* srv, lazy: the report line the status carried (malloc'd); no files were written */
    bool lazy;          /* srv: its output stays in the server unless reported */
} tr_proc;
#define TR_MAX_JOBS 1024

double tr_now(void);
/* Blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP so the runner takes them with
 * tr_wait_event; tr_signals_restore undoes it. */
void tr_signals_block(void);
void tr_signals_restore(void);
/* Starts exe (argv[0] = exe, one more argument or NULL) in a process group
 * of its own, stdin from /dev/null, stdout and stderr into the files.
 * env: "NAME=value" to set, "NAME" to unset, NULL-terminated. */
bool tr_proc_start(tr_proc *p, const char *exe, const char *arg, const char *const *env, const char *out,
                   const char *err, double timeout);
/* True when p has ended (reaped; leftovers of its group killed). Kills and
 * reaps it when its deadline has passed. */
bool tr_proc_poll(tr_proc *p);
/* Kills the process group and reaps the process. */
void tr_proc_kill(tr_proc *p);
/* Sleeps until a child changes state, one of the n descriptors fds is
 * readable, a signal arrives or timeout seconds pass. Returns false when
 * SIGINT, SIGTERM or SIGHUP arrived (then always, until tr_signals_block
 * again). */
bool tr_wait_event(double timeout, const int *fds, size_t n);
/* How many times tr_wait_event has been called: a round of the runner's
 * loops is what happens between two. */
unsigned long tr_wait_rounds(void);
/* posix_spawn of exe (argv[0] = exe, one more argument or NULL) in a
 * process group of its own with the runner's signal mask and default
 * dispositions; stdin from in_fd (-1: /dev/null), stdout to out_fd or, when
 * it is -1, the file out, stderr to the file err. 0 or an errno value. */
int tr_spawn(pid_t *pid, const char *exe, const char *arg, const char *const *env, int in_fd, int out_fd,
             const char *out, const char *err);
/* ---- the fork server: the test binary's --serve (docs/test-binary.md) ---- */
/* The LD_BIND_NOW value a server is started with when the runner has none:
 * the server drops exactly this one (runtime/src/test/test_serve.c). */
#define TR_SERVE_BIND_NOW "oxl-serve"
/* Starts `exe --serve`, its stderr into the file err. NULL, with why
 * filled, when it cannot be started. */
tr_server *tr_server_start(const char *exe, const char *err, char *why, size_t cap);
/* The same, with extra ("NAME=value", NULL-terminated, at most
 * TR_SERVER_EXTRA_ENV) in the server's environment, so every child has
 * them: the run's policy, a trace dump's file. */
#define TR_SERVER_EXTRA_ENV 8
tr_server *tr_server_start_env(const char *exe, const char *const *extra, const char *err, char *why, size_t cap);
/* Has the server fork a child for p, as tr_proc_start would start exe:
 * env may set or unset OXL_TEST_RUN, OXL_TEST_SEED, OXL_SIM_REPORT and
 * OXL_DATA_DIR (the server's own environment has none of them); the
 * server kills it itself a second after timeout. False, with why filled,
 * when the server refused or failed: then nothing runs and the caller
 * starts the process another way. */
bool tr_server_run(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                   double timeout, bool lazy, char *why, size_t cap);
/* The same without waiting for the `pid` answer: p is queued until it
 * comes (tr_server_pump), then runs; an `error` answer makes it ended,
 * lost and refused (tr_server_why says why). lazy: the output stays in
 * the server's memory unless the process is reported (docs/test-binary.md,
 * "Fast requests"): a passing one leaves p->report and no files. */
bool tr_server_submit(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                      double timeout, bool lazy, char *why, size_t cap);
/* At most jobs processes at once in the server; the rest wait there, in
 * order. Before the first request only. */
void tr_server_set_jobs(tr_server *s, int jobs);
/* p is no longer the caller's to be told of: a child started for it
 * later is killed at once. */
void tr_server_forget(tr_server *s, tr_proc *p);
/* With jobs set, the server holds its queue after each lazy process
 * that ended without a report line (a failure, a crash, a kill) until
 * told: this lets it go on, or (drop) refuses what waits there first
 * (each such process ends refused). */
void tr_server_resume(tr_server *s, bool drop);
/* The descriptor to wait on for its answers; -1 once it has ended. */
int tr_server_fd(const tr_server *s);
/* Whether it said `ready` (a server that failed before that cannot
 * serve; one that failed after may have been killed by a process it ran). */
bool tr_server_answered(const tr_server *s);
/* True when it was ready, was sent a request and died before answering
 * it: the process it forked may have killed it before it could say its
 * pid, so it is no sign that the binary cannot serve. */
bool tr_server_request_lost(const tr_server *s);
/* Ends its input: it runs what it has started, reports it and exits (a
 * server for one process). */
void tr_server_close_input(tr_server *s);
/* Reads what the server has said without blocking. */
void tr_server_pump(tr_server *s);
/* Like tr_server_pump, but reads nothing when a read in this round
 * (tr_wait_rounds) already found the pipe empty: polling several
 * processes of one server after a wakeup, the first read takes all. */
void tr_server_pump_round(tr_server *s);
/* Why it ended, when it did ("" while it runs). */
const char *tr_server_why(const tr_server *s);
/* Closes its input, waits for it to exit (kills it after a grace time),
 * frees it. Children still in flight are killed first. */
void tr_server_stop(tr_server *s);

/* "SIGSEGV", or "signal 40". */
const char *tr_signal_name(int sig, char *buf, size_t cap);

/* ---- the runner (tr_main.c and the files it calls) ---- */

#define TR_FAILURES_FILE "oxl-test-failures.txt"
#define TR_DEFAULT_TIMEOUT 300.0  /* seconds per process; -t 0 turns it off */
#define TR_SHOW_BYTES (64u << 10) /* of a failing process's stdout and stderr */
#define TR_MAX_SEEDS (1ull << 40) /* of one sim test */

/* What a step of the run returns: an exit status to end with, or this. */
enum { TR_GO_ON = -1 };

enum { TR_KIND_ALL, TR_KIND_UNIT, TR_KIND_SIM };
enum { TR_FMT_HUMAN, TR_FMT_TAP, TR_FMT_JSON, TR_FMT_GITHUB };

/* What a process came to: one list for the enum and the names the
 * reports print (JSON result, JUnit failure type). */
#define TR_RESULTS(X) \
    X(PASS, "pass")   \
    X(FAIL, "fail")   /* exit status 101 */ \
    X(CRASH, "crash") /* a signal or another status */ \
    X(TIMEOUT, "timeout") \
    X(EXHAUSTED, "exhausted") /* exit status 102: a resource of the machine ran out */
#define TR_RESULT_ENUM(id, name) TR_RES_##id,
enum { TR_RESULTS(TR_RESULT_ENUM) TR_NRESULTS };
#undef TR_RESULT_ENUM
extern const char *const tr_result_names[TR_NRESULTS];

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
    /* --policy, --pct-depth (or OXL_SIM_POLICY, OXL_SIM_PCT_DEPTH): the
     * scheduler's policy in every sim process (docs/testing.md, Policies) */
    int policy; /* TR_POLICY_* */
    uint64_t pct_depth;
    bool has_policy, has_pct_depth;
    /* tr_shrink.c */
    bool shrink;
    uint64_t shrink_budget; /* 0: the default */
    const char *shrink_out, *replay;
    bool gdb; /* --gdb: the one selected test (and seed) under gdb (tr_gdb.c) */
    char **gdb_args; /* after "--" with --gdb: gdb's own arguments */
    int gdb_nargs;
    bool has_dashdash;
    const char *timeline; /* --timeline FILE */
    /* issue 15: many packages, shards past one machine, more output */
    const char **pkgs; /* the package arguments (malloc'd; pkg is pkgs[0]) */
    size_t npkgs;
    bool part_auto;    /* --partition hash:auto/N: the index from JOB_COMPLETION_INDEX */
    bool merge;        /* --merge: the arguments are shard JSON reports */
    bool no_capture;
    const char *trace_tail;   /* --trace-tail: "20", "all"; NULL: the default */
    const char *time_limit;   /* --time-limit as given; NULL: none */
    double time_limit_secs;
    const char *failures_file; /* --failures-file; NULL: <package>/oxl-test-failures.txt */
    bool jobs_given;
    bool in_process; /* --in-process: sim seeds in long-lived explorers (tr_explore.c) */
} tr_opts;

enum { TR_POLICY_RANDOM, TR_POLICY_FIFO, TR_POLICY_PCT };
#define TR_DEFAULT_PCT_DEPTH 3
#define TR_MAX_PCT_DEPTH 64
extern const char *const tr_policy_names[3];

typedef struct tr_test {
    int index;
    bool sim;
    uint64_t first, last;
    char *loc, *name;
    char *shown;  /* the name for a terminal (tr_name_escape) */
    char *layout; /* a sim test's nodes and roles as --list gives them ("-": none) */
    const char *pkg; /* its package as the command line gave it */
} tr_test;

/* One process of the plan: a unit test or one seed of a sim test. */
typedef struct tr_item {
    const tr_test *test;
    uint64_t seed;
    bool replay; /* from the failures file */
    bool done;
    int res;
    int wstatus;
    bool timed_out;
    bool incomplete;  /* exit 0 without the report line of a run's end: a crash */
    bool server_died; /* its own fork server died with it (it killed its parent): a crash */
    bool has_trace;
    uint64_t trace;
    double seconds;
    char *out, *err; /* failing processes only */
    size_t out_omitted, err_omitted;
} tr_item;

/* What one test came to. */
typedef struct tr_outcome {
    const tr_test *test;
    bool run;         /* false: not run after an earlier failure or an interrupt */
    bool interrupted; /* (not run) started, and stopped by an interrupt after seeds_run seeds */
    bool passed;
    uint64_t seeds_total, seeds_run;
    tr_item fail; /* the failing process, when !passed */
    bool rerun_done, nondet;
    bool uncompared; /* a run ran out of a resource: no determinism verdict */
    tr_item rerun;
    double seconds;
    char *reproduce;
    bool has_passed_seed;  /* a seed passed before the failing one: */
    uint64_t passed_seed;  /*   the last such, for the trace diff */
    struct tr_trace_diff *diff; /* tr_explain.c, for a failing seed */
} tr_outcome;

/* The summary's counts. */
typedef struct tr_totals {
    size_t passed, failed, skipped, nondet, interrupted;
} tr_totals;

typedef struct tr_fail_entry {
    char *name;
    uint64_t seed;
    bool drop;  /* loaded, and it passed in this run */
    bool added; /* it failed in this run */
} tr_fail_entry;

typedef struct tr_runner tr_runner;

/* A report format: the run calls these in order (start; per test
 * test_start, its seeds in order, test_end; end). Unit tests get their
 * test_start calls before their batch runs. */
typedef struct tr_reporter {
    void (*start)(tr_runner *r, size_t nunit, size_t nsim);
    void (*test_start)(tr_runner *r, const tr_test *t, uint64_t seeds);
    /* oc is the test's outcome for its failing seed, NULL for others */
    void (*seed)(tr_runner *r, const tr_item *it, uint64_t pos, const tr_outcome *oc);
    void (*test_end)(tr_runner *r, const tr_outcome *oc);
    void (*end)(tr_runner *r, const tr_totals *tot, int status);
    bool progress;    /* draws the progress line on a terminal */
    bool seed_traces; /* shows a passing seed's trace hash */
} tr_reporter;
extern const tr_reporter tr_human, tr_tap, tr_json;
extern const tr_reporter tr_github; /* tr_report_github.c: human plus ::error annotations */

struct tr_runner {
    tr_opts o;
    const tr_hooks *hooks;
    const tr_reporter *rep;
    char tmp[TR_PATH];
    char bin[TR_PATH];
    bool bin_cached; /* bin was taken from the cache, not built by this run */
    tr_test *tests;
    size_t ntests;
    const tr_test **sel;
    size_t nsel;
    tr_outcome *outs;
    bool tty, color;
    bool sharded;
    uint64_t shard_index, shard_total;
    tr_fail_entry *fails;
    size_t nfails;
    bool fails_changed;
    char fails_path[TR_PATH];
    bool interrupted;
    unsigned long counter;
    double t0;
    uint64_t procs_run;
    int tap_n;
    bool progress_shown;
    tr_server *srv;    /* the fork server, started at the first process */
    bool shared_off;   /* no shared server (OXL_TEST_FORK_SERVER=0, or it died): one per process */
    bool servers_off;  /* the binary cannot serve: every process is spawned */
    bool serve_warned, spawn_warned;
    bool own_server;   /* the determinism re-run: a server (a new exec) of its own, see tr_plan.c */
    char (*trash)[TR_PATH]; /* files and directories of ended processes, removed later */
    /* what every process gets in its environment (tr_opts.c): the
     * policy's variables, OXL_SIM_TRACE_DUMP unset, OXL_TEST_STREAM (1
     * with --no-capture and --gdb, else unset); NULL-terminated */
    char policy_env[2][48];
    const char *sim_env[5];
    const char *trace_dump; /* set around a batch: its one process writes its trace here (tr_explain.c) */
    size_t ntrash, trash_cap;
    /* many packages (tr_packages.c): one runner a package, reported as one run */
    bool multi;          /* more than one package: reports name each test's package */
    tr_runner **group;   /* on the first runner: every package's runner, in order */
    size_t ngroup;
    tr_runner **untested; /* on the first runner: the packages not tested (not built, no
                           * directory), each with its exit status in not_tested */
    size_t nuntested;
    int not_tested;      /* a package not tested: the exit status it ended with */
    size_t plan_tests;   /* tests of the whole run (TAP's plan); 0: nsel */
    uint64_t *plan_counts; /* tr_plan_prepare: the processes of each of sel */
    size_t plan_nunit, plan_nsim;
    uint64_t plan_in_shard, plan_all; /* processes in this shard, in all shards */
    char key[65];        /* the test binary's cache key: the identity of a shard's report */
};

/* tr_opts.c */
void tr_usage(const char *fmt, const char *arg);
bool tr_parse_u64(const char *s, uint64_t *v);
/* The flags into o: TR_GO_ON, or the exit status (a usage error, said). */
int tr_parse_opts(int argc, char **argv, tr_opts *o);
/* A flag that takes a value ("--x v", "--x=v", "-x v", "-xv"): 1 taken
 * (*val set), 0 not this flag, -1 its value is missing (said). */
int tr_take_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val);

/* tr_more_opts.c: the flags of issue 15's shards and output. */
bool tr_parse_duration(const char *s, double *secs);
int tr_parse_more_opt(int argc, char **argv, int *i, tr_opts *o); /* as tr_take_value */
int tr_parse_partition_auto(const char *v, tr_opts *o);           /* 1, 0 or -1 */
int tr_check_more_opts(tr_opts *o);                               /* TR_GO_ON or a usage error */
int tr_setup_k8s_shards(tr_runner *r, bool *done);
int tr_export_more_opts(tr_runner *r);
/* "oxl test: shard 2 of 4 (index 1 from ...): K of M processes" on stderr */
void tr_shard_status(const tr_runner *r, uint64_t in_shard, uint64_t all);
/* Bazel's sharding variables, OXL_TEST_FORK_SERVER and the run's
 * temporary directory under TMPDIR: TR_GO_ON or a usage error. */
int tr_setup_env(tr_runner *r);

/* tr_binary.c: the test binary into r->bin (TR_GO_ON or an exit status),
 * OXL_TEST_KEEP_BINARY, and the tests of its --list into r->tests (a
 * cached binary that does not list is damaged: built again, once). */
int tr_get_binary(tr_runner *r);
int tr_keep_binary(tr_runner *r);
int tr_read_list(tr_runner *r);

/* tr_failures.c */
void tr_load_failures(tr_runner *r);
void tr_forget_failure(tr_runner *r, const tr_test *t, uint64_t seed);
void tr_remember_failure(tr_runner *r, const tr_test *t, uint64_t seed);
void tr_save_failures(tr_runner *r);

/* tr_gen.c: the processes of a batch in order: the unit tests, or one
 * sim test's seeds (explicit ones first: --seed, or the replayed
 * failures; then the range without them), in this shard. */
typedef struct tr_gen {
    const tr_test **units;
    size_t nunits, upos;
    const tr_test *test;
    uint64_t *pre;
    size_t npre, prepos;
    bool pre_replayed; /* pre are the failures file's seeds (not --seed's) */
    bool range, range_done, all_shards;
    uint64_t lo, hi, cur;
    tr_item *back; /* given back (tr_gen_give_back), taken again first (malloc'd) */
    size_t nback, backpos, back_cap;
} tr_gen;
/* Items taken and not run, given back in order: tr_gen_next gives them
 * again before anything else. */
void tr_gen_give_back(tr_gen *g, const tr_item *it);
bool tr_in_shard(const tr_runner *r, const tr_test *t, uint64_t seed);
/* The seeds of sim test t in this run (g->pre is malloc'd). */
void tr_sim_gen(tr_runner *r, const tr_test *t, tr_gen *g);
bool tr_gen_next(const tr_runner *r, tr_gen *g, tr_item *it);
/* How many processes g gives, without taking them. */
uint64_t tr_gen_count(const tr_runner *r, const tr_gen *g);

/* tr_gdb.c: --gdb: the one selected test under gdb; its exit status. */
int tr_run_gdb(tr_runner *r);

/* tr_reproduce.c: oc->reproduce, a command that reruns the failing seed
 * as it ran; tr_oxl_command appends the oxl to name in such a command.
 * tr_seed_command appends the reproduce line of seed of t (the timeline's
 * page has it too); tr_command_of the same without the seed and the
 * policy: the kept environment, the oxl, the package, --exact and what
 * changes the build or the run (-O2, -t, --time-limit), for a command
 * whose file fixes every choice (--replay FILE). */
void tr_reproduce_line(tr_runner *r, tr_outcome *oc);
void tr_oxl_command(const tr_runner *r, tr_buf *b);
void tr_command_of(const tr_runner *r, const tr_test *t, tr_buf *b);
void tr_seed_command(const tr_runner *r, const tr_test *t, uint64_t seed, tr_buf *b);

/* tr_plan.c: runs the selected tests and reports them: the exit status. */
int tr_run_plan(tr_runner *r);
/* The same in steps, for a run of many packages (tr_packages.c): the
 * order and counts of sel; the tests run (*failed: a test failed, in or
 * before this package), added to tot; the status of totals. */
void tr_plan_prepare(tr_runner *r);
void tr_plan_execute(tr_runner *r, bool *failed, tr_totals *tot);
int tr_plan_status(const tr_runner *r, const tr_totals *tot);
/* The JUnit file of the run, when asked for: false when it was asked for
 * and could not be written. */
bool tr_plan_junit(tr_runner *r);

/* tr_main.c: one package's binary, tests and selection (TR_GO_ON or the
 * exit status, said); --list of its selection; the runner freed. */
int tr_prepare_package(tr_runner *r);
int tr_list_tests(tr_runner *r);
void tr_free_runner(tr_runner *r);
/* The test table read from a binary's --list (tr_binary.c), emptied. */
void tr_free_tests(tr_runner *r);

/* tr_packages.c: `oxl test DIR...` and `DIR/...`: every package's runner
 * prepared, then run in path order as one run with one report. */
int tr_run_packages(tr_runner *lead);
/* Whether a package argument is DIR/... (every package below DIR). */
bool tr_is_tree_arg(const char *arg);
/* "pkg: name" in a run of many packages, the escaped name in one */
void tr_test_label(const tr_runner *r, const tr_test *t, tr_buf *b);
/* Why a package of many was not tested (r->not_tested), as every report
 * says it: "not tested: its test binary was not built, exit status 3"
 * (the error itself is on stderr). */
void tr_untested_text(const tr_runner *r, tr_buf *b);

/* tr_merge.c: `oxl test --merge a.json b.json ...`; the fields of the
 * JSON report it reads back (the start event's, a test_start's). */
int tr_run_merge(tr_runner *r);
void tr_json_run_fields(const tr_runner *r, tr_buf *b);
void tr_json_test_fields(const tr_runner *r, const tr_test *t, tr_buf *b);

/* tr_jsonread.c: one JSON value read back. */
enum { TR_JV_NULL, TR_JV_FALSE, TR_JV_TRUE, TR_JV_NUMBER, TR_JV_STRING, TR_JV_ARRAY, TR_JV_OBJECT };
typedef struct tr_jv {
    int kind;
    double num;
    char *str;          /* a string's text; a number's as written */
    struct tr_jv **items; /* an array's elements, an object's values */
    char **keys;        /* an object's keys */
    size_t n;
} tr_jv;
/* NULL, with why filled, when s is not one JSON value. */
tr_jv *tr_jv_parse(const char *s, size_t n, char *why, size_t cap);
void tr_jv_free(tr_jv *v);
const tr_jv *tr_jv_get(const tr_jv *o, const char *key);
const char *tr_jv_str(const tr_jv *o, const char *key); /* NULL: absent or not a string */
bool tr_jv_u64(const tr_jv *o, const char *key, uint64_t *out);

/* tr_batch.c */
typedef void (*tr_item_done_fn)(tr_runner *r, tr_item *it, uint64_t pos, void *ctx);
/* Runs the batch's processes, -j at a time. With stop_on_fail, the first
 * failure in ORDER ends it: later positions still running are killed,
 * earlier ones awaited (one of them may fail and become the first), so the
 * result is the sequential one. done() sees each item in order. what
 * names the batch in the progress line (NULL: none). Returns the number
 * of positions reported. */
uint64_t tr_run_batch(tr_runner *r, tr_gen *g, bool stop_on_fail, uint64_t total, const char *what,
                      tr_item_done_fn done, void *ctx);
void tr_free_item(tr_item *it);

/* tr_stream.c: --no-capture's copy of a running process's output. */
void tr_stream_begin(tr_runner *r, const tr_item *it);
void tr_stream_files(tr_runner *r, const char *out, const char *err, off_t *out_off, off_t *err_off);
/* tr_explore.c: --in-process. Runs g's seeds of sim test t in an
 * explorer (the test binary's --explore, one process for seed after seed)
 * and hands each passing one to done at positions from *pos on. It stops
 * at a seed that did not pass there (it failed, the explorer crashed or
 * hung), which it gives back to g with every seed after it: the caller
 * runs that one in a fresh process, which decides its result.
 * TR_EXPLORE_LEAKED: its canary seed ran differently than at first (said
 * as `state leaked between seeds`): the rest is the caller's, in process
 * mode. */
enum { TR_EXPLORE_DONE, TR_EXPLORE_STOPPED, TR_EXPLORE_LEAKED, TR_EXPLORE_UNAVAILABLE };
/* OXL_TEST_CANARY_EVERY is unset or good; false (said) when not. */
bool tr_explore_check_env(void);
int tr_explore(tr_runner *r, const tr_test *t, tr_gen *g, uint64_t *pos, uint64_t total, const char *what,
               tr_item_done_fn done, void *ctx);


/* tr_report.c: what the formats share. */
#define TR_RED "\033[31m"
#define TR_GREEN "\033[32m"
#define TR_YELLOW "\033[33m"
#define TR_RESET "\033[0m"
const char *tr_paint(const tr_runner *r, const char *code);
const char *tr_kind_name(const tr_test *t);
void tr_clear_progress(tr_runner *r);
void tr_show_progress(tr_runner *r, const char *what, uint64_t done, uint64_t total, uint64_t failed, double since);
/* "exit status 101, trace 0123456789abcdef" and the like. */
void tr_describe(const tr_runner *r, tr_buf *b, const tr_item *it);
/* The headline and detail lines of a failure, without a newline at the end. */
void tr_failure_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b);
void tr_nondet_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b);
/* Why a failing seed's two runs were not compared (oc->uncompared). */
void tr_uncompared_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b);
/* Why a test did not run or did not finish: "not run: an earlier test
 * failed", "not run: interrupted", "interrupted after K of M seeds run". */
void tr_not_run_text(const tr_runner *r, const tr_outcome *oc, tr_buf *b);
void tr_print_captured(const char *label, const char *text, size_t omitted);
/* Writes b to stdout, flushes, frees b. */
void tr_emit(tr_buf *b);

/* tr_dumpread.c: a trace dump (OXL_SIM_TRACE_DUMP) read back. Version
 * and limit as the runtime's OXL_TRACE_DUMP_VERSION and
 * OXL_TRACE_DUMP_MAX_EVENTS (runtime/include/oxl_sim.h). */
#define TR_DUMP_VERSION "2"
#define TR_DUMP_MAX_EVENTS 2000000u
typedef struct tr_dump_event {
    const char *index, *time_text, *seq, *kind, *node, *peer, *arg, *label, *site;
    const char *text; /* the line as the trace tail prints it */
    int64_t time;     /* virtual nanoseconds */
} tr_dump_event;
typedef struct tr_dump {
    char *text; /* the file; every field points into it */
    char **nodes;
    size_t nnodes;
    tr_dump_event *ev;
    size_t nev;
    uint64_t truncated, total; /* events left out; events of the run */
    const char *status, *hash, *report;
    int64_t end_time;
} tr_dump;
/* False, why filled ("it wrote no trace dump", ...), when the file is not
 * there, is larger than max_bytes, or is not a whole dump of this version. */
bool tr_dump_read(const char *path, size_t max_bytes, tr_dump *d, char *why, size_t cap);
void tr_dump_free(tr_dump *d);
int tr_dump_node(const tr_dump *d, const char *name); /* its id; -1 for "-" or an unknown name */

/* tr_explain.c: what explains a failing sim seed (docs/testing.md,
 * Explaining a failure), for every report format. */
typedef struct tr_trace_diff tr_trace_diff;
/* The "what everyone was doing at ..." section of a failing process's
 * stderr: as its text (nothing when it has none), or as JSON (null). */
void tr_doing_text(const tr_item *it, tr_buf *b);
void tr_doing_json(const tr_item *it, tr_buf *b);
/* What the section's caps left out (64 tasks, 32 messages in flight, 32
 * partitions and blocks: its "... and N more" lines), for the reports'
 * fields of their own; false (all 0) when there is no section. */
typedef struct tr_doing_omitted {
    uint64_t tasks, messages, cuts;
} tr_doing_omitted;
bool tr_doing_omitted_of(const tr_item *it, tr_doing_omitted *o);
/* A fresh file name in the run's directory for a trace dump. */
void tr_trace_dump_path(tr_runner *r, const char *what, char *buf, size_t cap);
/* After the failing seed's re-run, which dumped its trace to fail_dump
 * ("" when there is no passing seed): runs the last passing seed with a
 * dump and compares them into oc->diff (removes the dumps). */
void tr_explain_failure(tr_runner *r, tr_outcome *oc, const char *fail_dump);
void tr_explain_free(tr_outcome *oc);
/* The trace diff as text (nothing without one; no newline at the end),
 * or as JSON (null without one). */
void tr_diff_text(const tr_outcome *oc, tr_buf *b);
void tr_diff_json(const tr_outcome *oc, tr_buf *b);
/* tr_shrink.c: --shrink, --shrink-budget, --shrink-out and --replay
 * (docs/testing.md, "Shrinking a failure"). tr_shrink_flag takes one of
 * its flags at argv[*i]: 1 taken, 0 not one of them, -1 a usage error
 * (said). tr_shrink_check_opts: TR_GO_ON or a usage error (said).
 * tr_shrink_main runs the selected test's shrink or replay. */
int tr_shrink_flag(int argc, char **argv, int *i, tr_opts *o);
int tr_shrink_check_opts(const tr_opts *o);
/* OXL_SIM_SCHEDULE_IN/_OUT in the runner's environment: a usage error (said). */
int tr_shrink_check_env(void);
int tr_shrink_main(tr_runner *r);
/* tr_locate.c: where a test and its failure are, for CI servers. */
typedef struct tr_place {
    char file[TR_PATH]; /* relative to the current directory (absolute when outside it) */
    int line, column;   /* 0: not known */
    bool from_report;   /* the failing process's report named it (else it is the test's) */
} tr_place;
/* The package's name: its directory's last component. */
const char *tr_package_name(const tr_runner *r, char *buf, size_t cap);
void tr_test_place(const tr_runner *r, const tr_test *t, tr_place *pl);
/* A failure's message (its report's first line: "assertion failed: ...",
 * "deadlock: ...", or "seed 3 crashed: SIGSEGV" without a report) into
 * message, and its place: the report's "  at FILE:LINE", else the test's. */
void tr_failure_place(const tr_runner *r, const tr_outcome *oc, tr_buf *message, tr_place *pl);

/* tr_report_github.c: a failure as a GitHub workflow command
 * (::error file=...,line=...::message, escaped), ending in a newline. */
void tr_github_annotation(const tr_runner *r, const tr_outcome *oc, tr_buf *b);

/* tr_progress.c: the progress line (drawn by tr_show_progress). */
bool tr_progress_drawable(void); /* TERM set and not dumb: \r and erase work */
int tr_term_width(int fd);       /* TIOCGWINSZ, else COLUMNS, else 80 */
/* "what: D/T done, F failed, R/s, ETA E" in at most width - 1 columns. */
void tr_progress_text(tr_buf *b, int width, const char *what, uint64_t done, uint64_t total, uint64_t failed,
                      double elapsed);
/* The columns a terminal draws UTF-8 text s in (a CJK character is two,
 * a combining mark none); the bytes of its longest prefix of at most cols
 * columns, with the columns it takes in *used. */
size_t tr_display_cols(const char *s);
size_t tr_display_cols_prefix(const char *s, size_t cols, size_t *used);
/* tr_timeline.c: --timeline FILE (docs/testing.md, Timeline).
 * tr_timeline_check says before the build whether the file can be
 * written (and unsets OXL_SIM_TRACE_DUMP for every other process); tr_timeline_write, after the run, runs the seed once more with
 * a trace dump and writes the page: status, or a usage error (said) when
 * no page could be written. */
int tr_timeline_check(const tr_runner *r);
int tr_timeline_write(tr_runner *r, int status);

/* tr_junit.c: the JUnit XML report of the run; false (said) when it
 * cannot be written. */
bool tr_write_junit(tr_runner *r, const char *path);

#endif
