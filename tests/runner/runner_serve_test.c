/* runner_serve_test: the fork server's fast requests (docs/test-binary.md,
 * "Fast requests") driven directly against fake_testbin's --serve (the
 * runtime's own loop): `jobs` and its queue, `lazy` captures (no file for
 * a passing seed, both files for a failing one), the queue held after an
 * unclean end until `go` or `drop`, and malformed lines refused; then
 * `oxl test` on top of them: a sweep leaves no file behind its passing
 * seeds, and a fail-fast run forks nothing past its failure; a seed
 * forked alone stays on the server's CPU until another starts. */
#define _GNU_SOURCE /* pipe2 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct srv {
    pid_t pid;
    int in, out;
    char buf[8192];
    size_t len;
} srv;

static void srv_start(srv *s) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) tap_bail("pipe");
    char err[TR_PATH];
    snprintf(err, sizeof err, "%s/serve.err", work);
    memset(s, 0, sizeof *s);
    int e = tr_spawn(&s->pid, FAKE_TESTBIN, "--serve", NULL, in[0], out[1], NULL, err);
    if (e != 0) tap_bail("cannot start the fake's server: %s", strerror(e));
    close(in[0]);
    close(out[1]);
    s->in = in[1];
    s->out = out[0];
}

static void srv_send(srv *s, const char *text) {
    size_t n = strlen(text);
    if (write(s->in, text, n) != (ssize_t)n) tap_bail("cannot write to the server");
}

/* The next answer line within seconds; "" when none came. */
static void srv_line(srv *s, char *line, size_t cap, double seconds) {
    double until = tr_now() + seconds;
    for (;;) {
        char *nl = memchr(s->buf, '\n', s->len);
        if (nl) {
            size_t n = (size_t)(nl - s->buf);
            snprintf(line, cap, "%.*s", (int)n, s->buf);
            memmove(s->buf, nl + 1, s->len - n - 1);
            s->len -= n + 1;
            return;
        }
        double left = until - tr_now();
        struct pollfd pf = {s->out, POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) <= 0) break;
        ssize_t r = read(s->out, s->buf + s->len, sizeof s->buf - s->len);
        if (r <= 0) break;
        s->len += (size_t)r;
    }
    line[0] = '\0';
}

static int srv_stop(srv *s) {
    close(s->in);
    char line[512];
    do srv_line(s, line, sizeof line, 5);
    while (line[0]);
    close(s->out);
    int st = -1;
    waitpid(s->pid, &st, 0);
    return st;
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A lazy request for seed of test 0, its files and data directory named
 * after tag in the work directory. */
static void lazy_request(srv *s, int seed, const char *tag) {
    char req[4096];
    snprintf(req, sizeof req, "0\t%d\t1\t%s/%s.out\t%s/%s.err\t%s/%s.data\t-\tlazy\n", seed, work, tag, work, tag, work,
             tag);
    srv_send(s, req);
}

static void path_of(char *buf, size_t cap, const char *tag, const char *ext) {
    snprintf(buf, cap, "%s/%s.%s", work, tag, ext);
}

static void test_lazy_and_jobs(void) {
    set_tests("sim|1|9|lazy|fail@2 out@3 delay=300@4\n");
    srv s;
    srv_start(&s);
    char line[2048], path[TR_PATH];
    srv_line(&s, line, sizeof line, 5);
    tap_is_str(line, "ready", "the server is ready");
    srv_send(&s, "jobs 0\njobs x\njobs 1\n");
    srv_line(&s, line, sizeof line, 5);
    tap_contains(line, "error malformed request: jobs takes a number from 1 to 1024", "jobs 0 is refused");
    srv_line(&s, line, sizeof line, 5);
    tap_contains(line, "error malformed request: jobs takes a number", "and so is jobs x");
    srv_line(&s, line, sizeof line, 5);
    tap_is_str(line, "ok", "jobs 1 is taken");

    /* a pass: no file at all, the report line in the status */
    lazy_request(&s, 1, "p1");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "a lazy request is started: %s", line);
    srv_line(&s, line, sizeof line, 5);
    long pid;
    int st = -1, used = 0;
    long long usec;
    tap_ok(sscanf(line, "status %ld %d %lld %n", &pid, &st, &usec, &used) == 3 && st == 0, "it passes: %s", line);
    tap_ok(used > 0 && strncmp(line + used, "oxl-sim: seed=1 trace=", 22) == 0,
           "its status carries its report line: %s", line + used);
    path_of(path, sizeof path, "p1", "out");
    tap_ok(!exists(path), "no stdout file was made for it");
    path_of(path, sizeof path, "p1", "err");
    tap_ok(!exists(path), "nor a stderr file");
    path_of(path, sizeof path, "p1", "data");
    tap_ok(exists(path), "its data directory is the one it made itself");

    /* a pass with output: still no file (a passing seed's output is not shown) */
    lazy_request(&s, 3, "p3");
    srv_line(&s, line, sizeof line, 5);
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strstr(line, " oxl-sim: seed=3 ") != NULL, "a pass that wrote output: report line only (%s)", line);
    path_of(path, sizeof path, "p3", "out");
    tap_ok(!exists(path), "and no file");

    /* a failure: both files, with all it wrote; the queue is held */
    lazy_request(&s, 2, "f2");
    lazy_request(&s, 5, "q5");
    lazy_request(&s, 6, "q6");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "the failing seed is started");
    srv_line(&s, line, sizeof line, 5);
    st = -1;
    used = 0;
    tap_ok(sscanf(line, "status %ld %d %lld%n", &pid, &st, &usec, &used) == 3 && WIFEXITED(st) &&
               WEXITSTATUS(st) == 101 && line[used] == '\0',
           "it fails, and its status has no report line: %s", line);
    path_of(path, sizeof path, "f2", "err");
    char *err = slurp(path);
    tap_contains(err, "assertion failed", "its stderr file has what it wrote");
    tap_contains(err, "oxl-sim: seed=2 ", "up to its report line");
    tap_ok(err && strstr(err, "seed 3") == NULL, "and nothing of the seed before it, whose memfds it had");
    free(err);
    path_of(path, sizeof path, "f2", "out");
    tap_ok(exists(path), "its stdout file is written too");
    err = slurp(path);
    tap_ok(err && strstr(err, "seed 3") == NULL, "without the stdout of the seed before it");
    free(err);
    srv_line(&s, line, sizeof line, 0.5);
    tap_is_str(line, "", "after an unclean end the queue waits for the runner");
    srv_send(&s, "go\n");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "go lets it go on: %s", line);
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "seed 6 is forked as seed 5 ends: its pid comes first (%s)", line);
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "status ", 7) == 0 && strstr(line, "oxl-sim: seed=5 "), "then seed 5's status");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "status ", 7) == 0 && strstr(line, "oxl-sim: seed=6 "), "seed 6 passes");

    /* one job: the second waits for the first (300 ms) */
    double t0 = tr_now();
    lazy_request(&s, 4, "d4");
    lazy_request(&s, 7, "d7");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "the slow seed is started");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "the next waited for it");
    tap_ok(tr_now() - t0 >= 0.25, "for its 300 ms (%.2f s)", tr_now() - t0);
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strstr(line, "oxl-sim: seed=4 ") != NULL, "then the slow one's status");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strstr(line, "oxl-sim: seed=7 ") != NULL, "and the next's");

    /* drop: what waits is refused, in order, and nothing is forked */
    reset_state();
    lazy_request(&s, 2, "f2b");
    lazy_request(&s, 8, "x8");
    lazy_request(&s, 9, "x9");
    srv_line(&s, line, sizeof line, 5);
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "status ", 7) == 0, "another failure");
    srv_send(&s, "drop\n");
    srv_line(&s, line, sizeof line, 5);
    tap_is_str(line, "error dropped: not run", "drop refuses the first waiting request");
    srv_line(&s, line, sizeof line, 5);
    tap_is_str(line, "error dropped: not run", "and the second");
    char *log = read_log();
    tap_ok(strstr(log, "0 8 ") == NULL && strstr(log, "0 9 ") == NULL, "neither was forked");
    free(log);
    lazy_request(&s, 1, "after");
    srv_line(&s, line, sizeof line, 5);
    tap_ok(strncmp(line, "pid ", 4) == 0, "after drop the server takes requests again");
    srv_line(&s, line, sizeof line, 5);

    srv_send(&s, "0\t1\t1\ta\tb\tc\t-\tfast\n");
    srv_line(&s, line, sizeof line, 5);
    tap_contains(line, "error malformed request: the eighth field is not 'lazy'", "an eighth field but lazy is refused");
    st = srv_stop(&s);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server ends at the end of its input");
}

/* Files in dir whose names start with prefix. */
static int count_named(const char *dir, const char *prefix) {
    char cmd[TR_PATH + 128];
    snprintf(cmd, sizeof cmd, "ls -a '%s' 2>/dev/null | grep -c '^%s' || true", dir, prefix);
    FILE *p = popen(cmd, "r");
    int n = 0;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = 0;
        pclose(p);
    }
    return n;
}

static int count_sub(const char *s, const char *sub) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, sub)); p++) n++;
    return n;
}

static void test_runner_on_top(void) {
    /* every seed counts the capture files in the run's temporary directory
     * while it runs: a passing seed before it made none, nor does it */
    set_tests("sim|1|30|sweep|out@* countfiles@*\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-j", "2"));
    tap_is_int(r.status, 0, "a sweep of 30 passing seeds passes");
    char *log = read_log();
    tap_is_int(count_lines(log, "0 "), 30, "each seed ran once");
    tap_ok(strstr(log, " exec ") == NULL, "each in the shared server");
    free(log);
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/files", state);
    char *files = slurp(path);
    tap_is_int(count_sub(files, " files=0\n"), 30, "no seed saw a capture file of the run");
    tap_is_int(count_sub(files, " files="), 30, "every seed looked");
    free(files);
    free_result(&r);

    /* a failing seed's output is shown as before (its files are written) */
    set_tests("sim|1|30|sweep|out@* fail@3\n");
    remove_failures();
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "2"));
    tap_contains(r.out, "seed 3 failed (3 of 30 seeds run)", "a failing seed is found");
    tap_contains(r.out, "--- stderr of seed 3 ---", "with its stderr");
    tap_contains(r.out, "assertion failed", "as it wrote it");

    /* a fail-fast run at -j 1 forks nothing past its failure: what
     * waited in the server is dropped */
    set_tests("sim|1|30|stop|fail@4\n");
    remove_failures();
    reset_state();
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    tap_contains(r.out, "seed 4 failed (4 of 30 seeds run)", "-j 1: seed 4 fails");
    log = read_log();
    int above = 0;
    for (int s = 5; s <= 30; s++) {
        char pat[32];
        snprintf(pat, sizeof pat, "0 %d ", s);
        if (strstr(log, pat)) above++;
    }
    tap_is_int(above, 0, "-j 1: no seed after the failure was forked");
    free(log);
    free_result(&r);
    remove_failures();
    tap_is_int(count_named(tmpd, "oxl-test"), 0, "the runs left no temporary directory");
    tap_is_int(servers_left(), 0, "and no fork server");
}

/* The CPUs each seed's process may run on, from FAKE_STATE_DIR/cpus, by
 * seed (0: the seed did not record). */
static void seed_cpus(int *cpus, int nseeds) {
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/cpus", state);
    char *text = slurp(path);
    for (int i = 0; i <= nseeds; i++) cpus[i] = 0;
    for (char *p = text; *p;) {
        int seed, n;
        if (sscanf(p, "%d cpus=%d", &seed, &n) == 2 && seed >= 1 && seed <= nseeds) cpus[seed] = n;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    free(text);
}

/* A sim seed forked while no other runs stays on the server's CPU; it is
 * let go to the server's CPUs when another starts; OXL_TEST_SPREAD_FORKS=1
 * keeps none, and another value of it is refused (docs/testing.md). */
static void test_kept_on_the_server_cpu(void) {
    cpu_set_t mine;
    int all = sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine) : 1;
    if (all < 2) {
        tap_skip("a single CPU: nothing to keep a seed on", "a -j 1 seed runs on the server's CPU alone");
        tap_skip("a single CPU", "OXL_TEST_SPREAD_FORKS=1 keeps none");
        tap_skip("a single CPU", "a kept seed is let go when another starts");
    } else {
        int cpus[7];
        set_tests("sim|1|6|cpus|cpus@*\n");
        reset_state();
        result r = run_env(NULL, ARGS(pkg, "-j", "1"));
        seed_cpus(cpus, 6);
        int ones = 0;
        for (int i = 1; i <= 6; i++) ones += cpus[i] == 1;
        tap_ok(r.status == 0 && ones == 6, "a -j 1 seed runs on the server's CPU alone (%d of 6 seeds on one CPU)", ones);
        free_result(&r);

        reset_state();
        r = run_env(ENV("OXL_TEST_SPREAD_FORKS=1"), ARGS(pkg, "-j", "1"));
        seed_cpus(cpus, 6);
        int full = 0;
        for (int i = 1; i <= 6; i++) full += cpus[i] == all;
        tap_ok(r.status == 0 && full == 6, "OXL_TEST_SPREAD_FORKS=1 keeps none (%d of 6 seeds on all %d CPUs)", full,
               all);
        free_result(&r);

        /* seed 1 starts alone and is kept; it looks after seed 2 started */
        set_tests("sim|1|2|cpus|delay=500@1 cpus@*\n");
        reset_state();
        r = run_env(NULL, ARGS(pkg, "-j", "2"));
        seed_cpus(cpus, 2);
        tap_ok(r.status == 0 && cpus[1] == all && cpus[2] == all,
               "a kept seed is let go when another starts (seed 1 on %d, seed 2 on %d of %d CPUs)", cpus[1], cpus[2],
               all);
        free_result(&r);
    }
    /* the server's own check, for a --serve driven without oxl test */
    setenv("OXL_TEST_SPREAD_FORKS", "2", 1);
    srv s;
    srv_start(&s);
    unsetenv("OXL_TEST_SPREAD_FORKS");
    int st = srv_stop(&s);
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/serve.err", work);
    char *err = slurp(path);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(err, "OXL_TEST_SPREAD_FORKS='2' must be 0 or 1"),
           "--serve with OXL_TEST_SPREAD_FORKS=2 exits 2 naming it: %s", err);
    free(err);

    result r = run_env(ENV("OXL_TEST_SPREAD_FORKS=yes"), ARGS(pkg, "-j", "1"));
    tap_is_int(r.status, 2, "OXL_TEST_SPREAD_FORKS=yes is a usage error");
    tap_contains(r.err, "OXL_TEST_SPREAD_FORKS='yes' must be", "that names it");
    free_result(&r);
}

/* A server is started with every symbol bound (LD_BIND_NOW=oxl-serve),
 * which its children do not see; a runner's own LD_BIND_NOW is kept. */
static void test_bind_now(void) {
    set_tests("sim|1|2|bind|bindnow@*\n");
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/bind", state);
    reset_state();
    unsetenv("LD_BIND_NOW");
    result r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 0, "a run without LD_BIND_NOW passes");
    char *bind = slurp(path);
    tap_is_str(bind, "LD_BIND_NOW=(unset)\nLD_BIND_NOW=(unset)\n", "its seeds do not see the server's setting");
    free(bind);
    free_result(&r);
    reset_state();
    r = run_env(ENV("LD_BIND_NOW=1"), ARGS(pkg));
    bind = slurp(path);
    tap_is_str(bind, "LD_BIND_NOW=1\nLD_BIND_NOW=1\n", "the runner's own LD_BIND_NOW reaches its seeds as it was");
    free(bind);
    free_result(&r);
    remove_failures();
}

/* A served sim seed leads a process group of its own in its server's
 * session (a session of its own costs a scheduler task group a seed); a
 * unit test's process, and a process spawned without a server, also leads
 * a session (docs/test-binary.md). */
static void test_sessions(void) {
    set_tests("unit|-|-|alone|session\nsim|1|3|grouped|session@*\n");
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/session", state);
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-j", "1"));
    char *got = slurp(path);
    tap_is_str(got, "- leader group\n1 parent's group\n2 parent's group\n3 parent's group\n",
               "served: a seed leads its group in the server's session, a unit test its own session");
    tap_is_int(r.status, 0, "and the run passes");
    free(got);
    free_result(&r);
    reset_state();
    r = run_env(ENV("FAKE_SERVE=refuse"), ARGS(pkg, "-j", "1"));
    got = slurp(path);
    tap_is_str(got, "- leader group\n1 leader group\n2 leader group\n3 leader group\n",
               "spawned without a server: every process leads a session");
    free(got);
    free_result(&r);
    remove_failures();
}

/* A request sets its variables and unsets those it says "-" for, whatever
 * the server's environment has of them, each once (docs/test-binary.md). */
static void test_request_vars(void) {
    set_tests("unit|-|-|alone|vars\nsim|1|9|seeded|vars@*\n");
    reset_state();
    setenv("OXL_TEST_SEED", "99", 1);
    setenv("OXL_SIM_REPORT", "0", 1);
    setenv("OXL_TEST_RUN", "7", 1);
    setenv("FAKE_STATE_DIR", state, 1);
    srv s;
    srv_start(&s);
    unsetenv("FAKE_STATE_DIR");
    unsetenv("OXL_TEST_SEED");
    unsetenv("OXL_SIM_REPORT");
    unsetenv("OXL_TEST_RUN");
    char req[4096], line[512];
    snprintf(req, sizeof req, "jobs 1\n0\t-\t1\t%s/v1.out\t%s/v1.err\t%s/v1.data\t-\n1\t4\t-\t%s/v2.out\t%s/v2.err\t%s/v2.data\t-\n",
             work, work, work, work, work, work);
    srv_send(&s, req);
    int statuses = 0;
    for (int i = 0; i < 8 && statuses < 2; i++) {
        srv_line(&s, line, sizeof line, 10);
        statuses += strncmp(line, "status ", 7) == 0;
    }
    srv_stop(&s);
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/vars", state);
    char *got = slurp(path);
    tap_is_str(got,
               "OXL_TEST_RUN=0*1 OXL_TEST_SEED=(unset)*0 OXL_SIM_REPORT=1*1 OXL_DATA_DIR=set*1\n"
               "OXL_TEST_RUN=1*1 OXL_TEST_SEED=4*1 OXL_SIM_REPORT=(unset)*0 OXL_DATA_DIR=set*1\n",
               "a served process has the request's variables, once each, not the server's");
    free(got);
}

/* One served round of test 0's seeds 1..n (sim) or of test 1 (unit, n
 * times), lazy, at jobs 1, from a server with the fence as fence says
 * (NULL: unset); the capture lines they appended. */
static char *served_captures(const char *fence, int n, bool unit) {
    static int round; /* each round's files and data directories are its own */
    round++;
    reset_state();
    setenv("FAKE_STATE_DIR", state, 1);
    if (fence) setenv("OXL_SIM_FENCE", fence, 1);
    srv s;
    srv_start(&s);
    unsetenv("FAKE_STATE_DIR");
    unsetenv("OXL_SIM_FENCE");
    char req[4096], line[512];
    srv_send(&s, "jobs 1\n");
    for (int i = 1; i <= n; i++) {
        if (unit)
            snprintf(req, sizeof req, "1\t-\t1\t%s/u%d-%d.out\t%s/u%d-%d.err\t%s/u%d-%d.data\t-\tlazy\n", work, round, i,
                     work, round, i, work, round, i);
        else
            snprintf(req, sizeof req, "0\t%d\t1\t%s/c%d-%d.out\t%s/c%d-%d.err\t%s/c%d-%d.data\t-\tlazy\n", i, work,
                     round, i, work, round, i, work, round, i);
        srv_send(&s, req);
    }
    int statuses = 0;
    for (int i = 0; i < 4 * n && statuses < n; i++) {
        srv_line(&s, line, sizeof line, 10);
        statuses += strncmp(line, "status ", 7) == 0;
    }
    srv_stop(&s);
    char path[TR_PATH];
    snprintf(path, sizeof path, "%s/capture", state);
    return slurp(path);
}

/* How many of the capture lines' seeds wrote to the first one's memfds,
 * and whether every one found them empty. */
static int same_memfds(const char *lines, bool *empty) {
    unsigned long long o0 = 0, e0 = 0;
    int same = 0, n = 0;
    *empty = true;
    for (const char *p = lines; p && *p; n++) {
        char seed[32];
        unsigned long long o, e;
        long long os, es, off;
        if (sscanf(p, "%31s %llu %llu %lld %lld %lld", seed, &o, &e, &os, &es, &off) != 6) break;
        if (n == 0) o0 = o, e0 = e;
        same += o == o0 && e == e0;
        *empty = *empty && os == 0 && es == 0 && off == 0;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return same;
}

/* A passed sim seed's memfds, emptied, serve the next sim seed while the
 * fence is on; with OXL_SIM_FENCE=0 (a seed may have started a process
 * that holds them) and for unit tests each process has fresh ones. */
static void test_capture_reuse(void) {
    set_tests("sim|1|9|reused|capture@*\nunit|-|-|fresh|capture\n");
    bool empty;
    char *got = served_captures(NULL, 4, false);
    tap_ok(same_memfds(got, &empty) == 4, "four passing sim seeds in a row write to one pair of memfds:\n%s", got ? got : "");
    tap_ok(empty, "each found them empty, at offset 0");
    free(got);
    got = served_captures("0", 4, false);
    tap_ok(same_memfds(got, &empty) == 1 && empty, "with OXL_SIM_FENCE=0 each seed has fresh ones:\n%s", got ? got : "");
    free(got);
    got = served_captures(NULL, 3, true);
    tap_ok(same_memfds(got, &empty) == 1 && empty, "and so has each unit test:\n%s", got ? got : "");
    free(got);
}

int main(void) {
    harness_init("runner-serve-test");
    test_lazy_and_jobs();
    test_runner_on_top();
    test_bind_now();
    test_kept_on_the_server_cpu();
    test_sessions();
    test_request_vars();
    test_capture_reuse();
    return harness_done();
}
