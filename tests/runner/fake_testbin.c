/* fake_testbin: a test binary that speaks the test binary protocol of
 * docs/testing.md exactly, for the runner's own tests. Its tests come from
 * FAKE_TESTS, one per line:
 *     <unit|sim>|<first>|<last>|<name as --list writes it>|<rules>
 * (a unit test has '-' for first and last). Rules, separated by spaces,
 * are ACTION@SEEDS (SEEDS: '*' or a comma list of N and A-B); a rule
 * without '@' applies to every seed. Actions:
 *     fail       "assertion failed: ..." on stderr, exit 101
 *     segv abort crash by that signal         exit3   exit status 3
 *     hang       sleep until killed           hangchild  the same, with a
 *                child in the process group that records its pid
 *     nondet     a trace hash that differs from run to run
 *     flip       fail the first time, pass after (needs FAKE_STATE_DIR)
 *     out        a line on stdout and one on stderr
 *     big        100 KB of numbered lines on stderr
 *     delay=MS   sleep MS milliseconds first
 *     killserver the fork server that started this run is killed (SIGKILL)
 *                before the run goes on, once per FAKE_STATE_DIR (an
 *                exec'd run ignores it): a server that dies of itself
 *     killparent kill(getppid(), SIGKILL), as a hostile C extern might, then
 *                the same as hang
 *     spin       a busy loop until killed
 *     spinchild  the same, with a child that leaves the process group and
 *                the session (setsid) and spins too, its pid recorded in
 *                FAKE_STATE_DIR/child-<seed>
 *     exit0      exit(0) at once, before the run's end (as a C extern
 *                calling exit(0) would): no report line
 *     exhaust    "resource exhausted: ..." and exit 102, as a run the
 *                machine cannot give a stack ends
 *     nodumpvar  fail when OXL_SIM_TRACE_DUMP is set (it must not reach a seed)
 *     exhaustonce the same the first time only, a pass after (needs
 *                FAKE_STATE_DIR): a run that ran out where another did not
 *     bindnow    appends "LD_BIND_NOW=<value or (unset)>" to FAKE_STATE_DIR/bind
 *     cpus       appends "<seed> cpus=<n>" to FAKE_STATE_DIR/cpus, n the CPUs
 *                its affinity mask allows (after any delay)
 *     vars       appends the four request variables to FAKE_STATE_DIR/vars,
 *                each NAME=<value, set for the data directory, or
 *                (unset)>*<its entries in the environment>
 *     session    appends "<seed> <leader|parent's|other> <group|no-group>" to
 *                FAKE_STATE_DIR/session: whether it leads its session or is
 *                in its parent's, and whether it leads its process group
 *     capture    appends "<seed> <inode of fd 1> <inode of fd 2> <size of fd 1>
 *                <size of fd 2> <offset of fd 2>" to FAKE_STATE_DIR/capture,
 *                before its report line: which memfds it writes to, and
 *                that they were empty
 *     countfiles appends "<seed> files=<n>" to FAKE_STATE_DIR/files: n the
 *                capture files (out-*, err-*) in the directory that holds
 *                OXL_DATA_DIR, the run's temporary directory
 * With FAKE_STATE_DIR every run appends "<index> <seed> <pid> <pgid>
 * <OXL_DATA_DIR> <OXL_SIM_REPORT> <fork|exec> <ppid>" to FAKE_STATE_DIR/log
 * (fork: a child of --serve). FAKE_LIST=fail makes --list fail, FAKE_LIST=bad
 * makes it print a malformed line, FAKE_LIST=nohandshake leaves out its
 * `oxl-list:` line and FAKE_LIST=cut says one test more than it lists. `--serve` is the serve mode, with the
 * runtime's own loop (runtime/src/test/test_serve.c); FAKE_SERVE=vanish
 * says ready and dies (SIGKILL) on its first request; FAKE_SERVE=refuse
 * makes it exit 2 at once, as a binary without the mode would. `--explore`
 * is the explorer (runtime/src/test/test_explore.c's loop; explore_run
 * says which rules it knows); FAKE_EXPLORE=refuse makes it exit 2. */
#define _GNU_SOURCE /* sched_getaffinity */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_serve.h"

extern char **environ;

static const char default_tests[] =
    "unit|-|-|adds numbers|\n"
    "unit|-|-|prints and fails|out fail\n"
    "sim|1|20|ring survives|\n"
    "sim|1|50|checkout under faults|fail@7,30\n";

typedef struct test {
    char kind[8], first[24], last[24], name[512], rules[1024];
} test;

static void copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int load(test *ts, int max) {
    const char *spec = getenv("FAKE_TESTS");
    if (!spec) spec = default_tests;
    int n = 0;
    const char *p = spec;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        if (!*line) continue;
        char *f[5] = {0};
        int k = 0;
        char *s = line;
        f[k++] = s;
        while (k < 5 && (s = strchr(s, '|'))) {
            *s++ = '\0';
            f[k++] = s;
        }
        if (k < 4) continue;
        test *t = &ts[n++];
        copy(t->kind, sizeof t->kind, f[0]);
        copy(t->first, sizeof t->first, f[1]);
        copy(t->last, sizeof t->last, f[2]);
        copy(t->name, sizeof t->name, f[3]);
        copy(t->rules, sizeof t->rules, k == 5 ? f[4] : "");
    }
    return n;
}

static bool seed_in(const char *set, uint64_t seed) {
    if (strcmp(set, "*") == 0) return true;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", set);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        uint64_t a = strtoull(tok, NULL, 10), b = dash ? strtoull(dash + 1, NULL, 10) : a;
        if (seed >= a && seed <= b) return true;
    }
    return false;
}

/* Whether ACTION applies to seed; *param gets what follows '='. */
static void count_files(const char *seed_text, const char *data);

static bool has_rule(const char *rules, const char *action, uint64_t seed, long *param) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", rules);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *at = strchr(tok, '@');
        if (at) *at = '\0';
        char *eq = strchr(tok, '=');
        if (eq) *eq = '\0';
        if (strcmp(tok, action) != 0) continue;
        if (at && !seed_in(at + 1, seed)) continue;
        if (param) *param = eq ? strtol(eq + 1, NULL, 10) : 0;
        return true;
    }
    return false;
}

static uint64_t fnv(const char *s, uint64_t h) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static bool sim, report, served;
static long test_index;
static uint64_t seed, trace;

/* The end of a run, with the report lines of docs/test-binary.md
 * (FAKE_HANDSHAKE=0: none, as a binary of another protocol). */
static _Noreturn void finish(int status) {
    const char *hs = getenv("FAKE_HANDSHAKE");
    bool handshake = !hs || strcmp(hs, "0") != 0;
    if (sim && report && handshake) {
        fprintf(stderr, "oxl-sim: seed=%" PRIu64 " trace=%016" PRIx64 " switches=%d\n", seed, trace, (int)(seed % 17));
        if (status != 0) fprintf(stderr, "  t=0ms n0 start\n  t=5ms n0 panic\n");
    } else if (!sim && report && handshake) {
        fprintf(stderr, "oxl-unit: test=%ld done\n", test_index);
    }
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

/* This process's pid, parent and group, as /proc has them. */
static void outer_ids(long *pid, long *ppid, long *pgid) {
    *pid = (long)getpid(), *ppid = (long)getppid(), *pgid = (long)getpgrp();
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    long a, b, c;
    if (sscanf(buf, "%ld", &a) == 1) *pid = a;
    if (rp && sscanf(rp + 2, "%*c %ld %ld", &b, &c) == 2) *ppid = b, *pgid = c;
}

static void record_pid(const char *name, long pid) {
    const char *dir = getenv("FAKE_STATE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "/tmp", name);
    FILE *cf = fopen(path, "w");
    if (cf) {
        fprintf(cf, "%ld\n", pid);
        fclose(cf);
    }
}

/* Appends one formatted line to FAKE_STATE_DIR/<name>. */
static void append_state(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_state(const char *name, const char *fmt, ...) {
    const char *dir = getenv("FAKE_STATE_DIR");
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "/nonexistent", name);
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && len > 0) (void)!write(fd, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    if (fd >= 0) close(fd);
}

static void log_run(int index, const char *seed_text) {
    const char *dir = getenv("FAKE_STATE_DIR");
    if (!dir) return;
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/log", dir);
    const char *data = getenv("OXL_DATA_DIR"), *rep = getenv("OXL_SIM_REPORT");
    long pid, ppid, pgid;
    outer_ids(&pid, &ppid, &pgid);
    int n = snprintf(line, sizeof line, "%d %s %ld %ld %s %s %s %ld\n", index, seed_text, pid, pgid, data ? data : "-",
                     rep ? rep : "-", served ? "fork" : "exec", ppid);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)!write(fd, line, (size_t)n);
        close(fd);
    }
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static test ts[64];
static int n;

static int run_test(void);

static int serve_run(void *ctx) {
    (void)ctx;
    served = true;
    return run_test();
}

/* --explore: a seed in this process. The rules it knows: fail (101),
 * crash (abort: the explorer dies), hang, leak (the trace of every run
 * after the first in this process differs: state that leaks), and
 * explorefail (101 here only; a pass in a process of its own). It logs
 * "<index> <seed> explore" to FAKE_STATE_DIR/log. */
static int explore_run(void *ctx, uint64_t index, uint64_t s, uint64_t *out_trace) {
    (void)ctx;
    static int runs;
    if (index >= (uint64_t)n || strcmp(ts[index].kind, "sim") != 0) return 2;
    const test *t = &ts[index];
    char seed_text[32];
    snprintf(seed_text, sizeof seed_text, "%" PRIu64, s);
    if (getenv("FAKE_STATE_DIR")) append_state("log", "%" PRIu64 " %s explore\n", index, seed_text);
    *out_trace = fnv(t->name, fnv(seed_text, 0xcbf29ce484222325ull));
    if (has_rule(t->rules, "leak", s, NULL) && runs++ > 0) *out_trace ^= (uint64_t)runs;
    if (has_rule(t->rules, "crash", s, NULL)) abort();
    if (has_rule(t->rules, "hang", s, NULL))
        for (;;) pause();
    if (has_rule(t->rules, "fail", s, NULL) || has_rule(t->rules, "explorefail", s, NULL)) return 101;
    return 0;
}

int main(int argc, char **argv) {
    n = load(ts, 64);
    if (argc == 2 && strcmp(argv[1], "--explore") == 0) {
        const char *mode = getenv("FAKE_EXPLORE");
        if (mode && strcmp(mode, "refuse") == 0) {
            fputs("fake_testbin: no explore mode today\n", stderr);
            return 2;
        }
        return oxl_test_explore(explore_run, NULL);
    }
    if (argc == 2 && strcmp(argv[1], "--serve") == 0) {
        const char *mode = getenv("FAKE_SERVE");
        if (mode && strcmp(mode, "refuse") == 0) {
            fputs("fake_testbin: no serve mode today\n", stderr);
            return 2;
        }
        if (mode && strcmp(mode, "vanish") == 0) {
            /* ready, then dead with the first request in hand: what a
             * server looks like whose child killed it before it could
             * answer with the pid */
            char line[8192];
            fputs("ready\n", stdout);
            fflush(stdout);
            if (fgets(line, sizeof line, stdin)) kill(getpid(), SIGKILL);
            return 0;
        }
        return oxl_test_serve(serve_run, NULL);
    }
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        const char *mode = getenv("FAKE_LIST");
        if (mode && strcmp(mode, "fail") == 0) {
            fputs("fake_testbin: cannot list\n", stderr);
            return 1;
        }
        for (int i = 0; i < n; i++)
            printf("%d\t%s\t%s\t%s\tfake.oxl:%d:1\t%s\t%s\n", i, ts[i].kind, ts[i].first, ts[i].last, 3 + 4 * i,
                   ts[i].name, strcmp(ts[i].kind, "sim") == 0 ? "n0=api,n1=api+db" : "-");
        if (mode && strcmp(mode, "bad") == 0) printf("%d\tsim\t5\t1\tfake.oxl:1:1\tbackwards\t-\n", n);
        if (mode && strcmp(mode, "badlayout") == 0) printf("%d\tsim\t1\t5\tfake.oxl:1:1\tbad layout\tn0=\n", n);
        if (mode && strcmp(mode, "six") == 0) printf("%d\tsim\t1\t5\tfake.oxl:1:1\tno layout\n", n);
        /* the handshake: none, as a program of another protocol; or a
         * count other than the lines, as a listing cut short */
        if (!(mode && strcmp(mode, "nohandshake") == 0))
            fprintf(stderr, "oxl-list: tests=%d\n", mode && strcmp(mode, "cut") == 0 ? n + 1 : n);
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "fake_testbin: unknown argument '%s'\n", argv[1]);
        return 2;
    }
    return run_test();
}

/* OXL_SIM_TRACE_DUMP (docs/test-binary.md, The trace dump), as FAKE_DUMP
 * says (for the runner's trace diff):
 *     drop   a start-up task event in another order in odd seeds, then a
 *            send that a failing seed drops and a passing one delivers
 *     times  the same events in every seed, at times of the seed's own
 *     bad    a line that is no event, after the node lines
 *     nohead no 'oxl-trace-dump 2' header
 *     cut    as drop, with events said to be left out
 * unset: no file, as a binary without the variable. False when it cannot
 * be written. */
static void dump_event(FILE *f, int i, unsigned ns, int seq, const char *kind, const char *node, const char *peer,
                       unsigned arg, const char *label, const char *text) {
    fprintf(f, "event\t%d\t%u\t%d\t%s\t%s\t%s\t%u\t%s\t-\t#%d @0.%09us seq=%d %-9s %s\n", i, ns, seq, kind, node, peer,
            arg, label, i, ns, seq, kind, text);
}

static bool write_dump(bool fails) {
    const char *path = getenv("OXL_SIM_TRACE_DUMP"), *mode = getenv("FAKE_DUMP");
    if (!path || !mode) return true;
    FILE *f = fopen(path, "w");
    if (!f) return false;
    if (strcmp(mode, "nohead") != 0) fputs("oxl-trace-dump\t2\n", f);
    fprintf(f, "seed\t%" PRIu64 "\nnode\t0\tn0\nnode\t1\tn1\n", seed);
    if (strcmp(mode, "bad") == 0) fputs("not an event\n", f);
    bool times = strcmp(mode, "times") == 0;
    unsigned ns = times ? (unsigned)(seed % 1000) : 0;
    int first = !times && seed % 2 ? 3 : 2;
    char spawn[2][32];
    snprintf(spawn[0], sizeof spawn[0], "spawn task %d on n0", first);
    snprintf(spawn[1], sizeof spawn[1], "spawn task %d on n0", 5 - first);
    dump_event(f, 0, 0, 0, "net", "-", "-", 1000000, "latency-min", "latency-min = 1000000");
    dump_event(f, 1, 0, 1, "task", "n0", "-", (unsigned)first, "spawn", spawn[0]);
    dump_event(f, 2, 0, 1, "task", "n0", "-", (unsigned)(5 - first), "spawn", spawn[1]);
    dump_event(f, 3, 1000 + ns, 1, "send", "n0", "n1", 8, "", "n0 -> n1 (8 bytes)");
    if (!times && fails) dump_event(f, 4, 1000 + ns, 1, "drop", "n0", "n1", 2, "", "n0 -> n1 (random drop)");
    else dump_event(f, 4, 2000 + ns, 2, "deliver", "n1", "n0", 8, "", "n0 -> n1 (8 bytes)");
    if (strcmp(mode, "cut") == 0) fputs("truncated\t3\n", f);
    fprintf(f, "result\t%s\t%u\t%016" PRIx64 "\t%d\t%s\nend\n", fails ? "panicked" : "finished", 2000 + ns, trace,
            strcmp(mode, "cut") == 0 ? 8 : 5, fails ? "panic: fake failure" : "");
    return fclose(f) == 0;
}

/* One run as the environment says: exec'd, or in a child of --serve. */
static int run_test(void) {
    const char *run = getenv("OXL_TEST_RUN");
    char *end;
    if (!run || !*run) {
        fputs("fake_testbin: OXL_TEST_RUN is not set\n", stderr);
        return 2;
    }
    long index = strtol(run, &end, 10);
    if (*end || index < 0 || index >= n) {
        fprintf(stderr, "fake_testbin: OXL_TEST_RUN='%s' is not a test index\n", run);
        return 2;
    }
    test *t = &ts[index];
    test_index = index;
    sim = strcmp(t->kind, "sim") == 0;
    const char *seed_text = getenv("OXL_TEST_SEED");
    if (sim) {
        if (!seed_text || !*seed_text) {
            fputs("fake_testbin: a sim test needs OXL_TEST_SEED\n", stderr);
            return 2;
        }
        seed = strtoull(seed_text, &end, 10);
        if (*end || *seed_text == '-') {
            fprintf(stderr, "fake_testbin: OXL_TEST_SEED='%s' is not a seed\n", seed_text);
            return 2;
        }
    }
    const char *rep = getenv("OXL_SIM_REPORT");
    report = rep && strcmp(rep, "1") == 0;
    log_run((int)index, sim ? seed_text : "-");

    /* the runner names a fresh data directory for each process and makes
     * none: the process makes it on first use, as the runtime's store does */
    const char *data = getenv("OXL_DATA_DIR");
    struct stat st;
    if (!data || !*data) {
        fputs("fake_testbin: OXL_DATA_DIR is not set\n", stderr);
        return 3;
    }
    if (lstat(data, &st) == 0 || errno != ENOENT) {
        fprintf(stderr, "fake_testbin: OXL_DATA_DIR is not fresh: '%s' exists\n", data);
        return 3;
    }
    if (mkdir(data, 0700) != 0) {
        fprintf(stderr, "fake_testbin: OXL_DATA_DIR cannot be made: %s\n", strerror(errno));
        return 3;
    }
    char file[4096];
    snprintf(file, sizeof file, "%s/sub", data);
    mkdir(file, 0755);
    snprintf(file, sizeof file, "%s/sub/state", data);
    FILE *f = fopen(file, "w");
    if (f) {
        fputs("written by the test\n", f);
        fclose(f);
    }

    trace = fnv(t->name, fnv(seed_text ? seed_text : "-", 0xcbf29ce484222325ull));
    if (sim && !write_dump(has_rule(t->rules, "fail", seed, NULL))) return 2;
    if (served && has_rule(t->rules, "killserver", seed, NULL)) {
        const char *dir = getenv("FAKE_STATE_DIR");
        char mark[4096];
        snprintf(mark, sizeof mark, "%s/killed-server", dir ? dir : "/nonexistent");
        int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            long pid, ppid, pgid;
            outer_ids(&pid, &ppid, &pgid);
            kill((pid_t)ppid, SIGKILL);
            sleep_ms(50);
        }
    }
    if (has_rule(t->rules, "killparent", seed, NULL)) {
        kill(getppid(), SIGKILL);
        fflush(stdout);
        for (;;) pause();
    }
    bool spinchild = has_rule(t->rules, "spinchild", seed, NULL);
    if (spinchild || has_rule(t->rules, "spin", seed, NULL)) {
        if (spinchild && fork() == 0) {
            setsid();
            long me, pp, pg;
            outer_ids(&me, &pp, &pg);
            char name[64];
            snprintf(name, sizeof name, "child-%" PRIu64, seed);
            record_pid(name, me);
            for (volatile unsigned long i = 0;; i++) {
            }
        }
        long pid, ppid, pgid;
        outer_ids(&pid, &ppid, &pgid);
        char name[64];
        snprintf(name, sizeof name, "seed-%" PRIu64, seed);
        record_pid(name, pid);
        fflush(stdout);
        for (volatile unsigned long i = 0;; i++) {
        }
    }
    long ms;
    if (has_rule(t->rules, "delay", seed, &ms)) sleep_ms(ms);
    if (has_rule(t->rules, "exit0", seed, NULL)) {
        fflush(stdout);
        exit(0);
    }
    if (has_rule(t->rules, "nodumpvar", seed, NULL) && getenv("OXL_SIM_TRACE_DUMP")) {
        fprintf(stderr, "assertion failed: OXL_SIM_TRACE_DUMP reached seed %" PRIu64 "\n", seed);
        exit(101);
    }
    if (has_rule(t->rules, "out", seed, NULL)) {
        printf("stdout of seed %" PRIu64 "\n", seed);
        fprintf(stderr, "stderr of seed %" PRIu64 "\n", seed);
    }
    if (has_rule(t->rules, "countfiles", seed, NULL)) count_files(seed_text, data);
    if (has_rule(t->rules, "bindnow", seed, NULL)) {
        const char *bind = getenv("LD_BIND_NOW");
        append_state("bind", "LD_BIND_NOW=%s\n", bind ? bind : "(unset)");
    }
    if (has_rule(t->rules, "vars", seed, NULL)) {
        /* each request variable: its value (the data directory: set) and
         * how many entries the environment has of it */
        static const char *const names[] = {"OXL_TEST_RUN", "OXL_TEST_SEED", "OXL_SIM_REPORT", "OXL_DATA_DIR"};
        char line[512];
        size_t at = 0;
        for (int i = 0; i < 4; i++) {
            size_t len = strlen(names[i]), count = 0;
            for (char **e = environ; *e; e++) count += strncmp(*e, names[i], len) == 0 && (*e)[len] == '=';
            const char *v = getenv(names[i]);
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s=%s*%zu", i ? " " : "", names[i],
                                   !v ? "(unset)" : i == 3 ? "set" : v, count);
        }
        append_state("vars", "%s\n", line);
    }
    if (has_rule(t->rules, "capture", seed, NULL)) {
        struct stat o, e;
        if (fstat(1, &o) != 0 || fstat(2, &e) != 0) memset(&o, 0, sizeof o), memset(&e, 0, sizeof e);
        append_state("capture", "%s %llu %llu %lld %lld %lld\n", sim ? seed_text : "-", (unsigned long long)o.st_ino,
                     (unsigned long long)e.st_ino, (long long)o.st_size, (long long)e.st_size,
                     (long long)lseek(2, 0, SEEK_CUR));
    }
    if (has_rule(t->rules, "session", seed, NULL)) {
        long pid = (long)getpid(), sid = (long)getsid(0), pgid = (long)getpgrp(), parent_sid = (long)getsid(getppid());
        append_state("session", "%s %s %s\n", sim ? seed_text : "-", sid == pid ? "leader" : sid == parent_sid ? "parent's" : "other",
                     pgid == pid ? "group" : "no-group");
    }
    if (has_rule(t->rules, "cpus", seed, NULL)) {
        cpu_set_t set;
        int ncpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
        append_state("cpus", "%s cpus=%d\n", seed_text, ncpus);
    }
    if (has_rule(t->rules, "big", seed, NULL))
        for (int i = 0; i < 2000; i++) fprintf(stderr, "line %04d of a long story, padded to fifty bytes....\n", i);
    if (has_rule(t->rules, "nondet", seed, NULL)) {
        struct timespec ts2;
        clock_gettime(CLOCK_REALTIME, &ts2);
        trace ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts2.tv_nsec;
    }
    if (has_rule(t->rules, "flip", seed, NULL)) {
        const char *dir = getenv("FAKE_STATE_DIR");
        char mark[4096];
        snprintf(mark, sizeof mark, "%s/flip-%ld-%" PRIu64, dir ? dir : "/nonexistent", index, seed);
        int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            fprintf(stderr, "assertion failed: flip at seed %" PRIu64 "\n", seed);
            finish(101);
        }
        finish(0);
    }
    bool once = has_rule(t->rules, "exhaustonce", seed, NULL);
    if (once || has_rule(t->rules, "exhaust", seed, NULL)) {
        const char *dir = getenv("FAKE_STATE_DIR");
        char mark[4096];
        snprintf(mark, sizeof mark, "%s/exhausted-%ld-%" PRIu64, dir ? dir : "/nonexistent", index, seed);
        int fd = once ? open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644) : 0;
        if (fd >= 0) {
            if (once) close(fd);
            fprintf(stderr, "resource exhausted: cannot have a 1048576 byte task stack for a task beyond the 32767 live "
                            "ones: cannot map a region of task stacks: Cannot allocate memory\n");
            finish(102);
        }
    }
    if (has_rule(t->rules, "fail", seed, NULL)) {
        fprintf(stderr, "assertion failed: fake failure at seed %" PRIu64 "\n", seed);
        finish(101);
    }
    if (has_rule(t->rules, "exit3", seed, NULL)) finish(3);
    if (has_rule(t->rules, "segv", seed, NULL)) {
        fflush(stdout);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (has_rule(t->rules, "abort", seed, NULL)) {
        fflush(stdout);
        abort();
    }
    bool child = has_rule(t->rules, "hangchild", seed, NULL);
    if (child || has_rule(t->rules, "hang", seed, NULL)) {
        if (child) {
            if (fork() == 0) {
                long me, pp, pg;
                outer_ids(&me, &pp, &pg);
                char name[64];
                snprintf(name, sizeof name, "child-%" PRIu64, seed);
                record_pid(name, me); /* as /proc names it, for the runner's tests */
                for (;;) pause();
            }
        }
        fflush(stdout);
        for (;;) pause();
    }
    finish(0);
}

/* countfiles: what the runner left beside this process's data directory. */
static void count_files(const char *seed_text, const char *data) {
    const char *dir = getenv("FAKE_STATE_DIR");
    if (!dir) return;
    char parent[4096], path[4096], line[128];
    snprintf(parent, sizeof parent, "%s", data);
    char *slash = strrchr(parent, '/');
    if (slash) *slash = '\0';
    int count = 0;
    DIR *d = opendir(parent);
    if (!d) count = -1;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strncmp(e->d_name, "out-", 4) == 0 || strncmp(e->d_name, "err-", 4) == 0) count++;
    if (d) closedir(d);
    snprintf(path, sizeof path, "%s/files", dir);
    int len = snprintf(line, sizeof line, "%s files=%d\n", seed_text ? seed_text : "-", count);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)!write(fd, line, (size_t)len);
        close(fd);
    }
}
