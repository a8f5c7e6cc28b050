/* runner_test: `oxl test` (compiler/driver/tr_*.c) driven against
 * fake_testbin through the build hook (harness.h): every flag, the lowest
 * failing seed under -j 2, timeouts, signals, the determinism check, the
 * report formats, sharding, the failures file, the cache and bad flags. */
#define _XOPEN_SOURCE 700
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_default_run(void) {
    set_tests("unit|-|-|adds numbers|\n"
              "unit|-|-|prints and fails|out fail\n"
              "sim|1|20|ring survives|out\n"
              "sim|1|50|checkout under faults|fail@7,30 out@7\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 1, "a failing unit test: status 1");
    tap_contains(r.out, "FAIL unit  prints and fails\ntest failed\n", "the failing unit test is named");
    tap_contains(r.out, "--- stdout ---\nstdout of seed 0\n", "its stdout is shown");
    tap_contains(r.out, "--- stderr ---\nstderr of seed 0\nassertion failed", "its stderr is shown");
    char want[TR_PATH + 128];
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 'prints and fails'\n", pkg);
    tap_contains(r.out, want, "a unit test's reproduce line");
    tap_contains(r.out, "skip sim   ring survives (not run: an earlier test failed)", "fail fast: sim tests not run");
    tap_ok(strstr(r.out, "ok   unit  adds numbers") != NULL, "the passing unit test is reported");
    tap_ok(strchr(r.out, '\r') == NULL && strstr(r.out, "\033[") == NULL, "no progress line or color off a terminal");
    char *log = read_log();
    tap_is_int(count_lines(log, "2 "), 0, "no seed of a sim test ran");
    free(log);
    free_result(&r);

    reset_state();
    r = run_env(NULL, ARGS(pkg, "--no-fail-fast", "-j", "1"));
    tap_is_int(r.status, 1, "--no-fail-fast: status 1");
    tap_contains(r.out, "ok   sim   ring survives (20 seeds,", "the passing sim test and its seeds");
    tap_ok(strstr(r.out, "stdout of seed 3") == NULL, "a passing seed's output is not shown");
    tap_contains(r.out, "FAIL sim   checkout under faults\nseed 7 failed (7 of 50 seeds run)\n", "the contract's failure line");
    tap_contains(r.out, "--- stdout of seed 7 ---\nstdout of seed 7\n", "the failing seed's stdout");
    tap_contains(r.out, "--- stderr of seed 7 ---\nstderr of seed 7\nassertion failed: fake failure at seed 7\n",
                 "the failing seed's stderr");
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 'checkout under faults' --seed 7\n", pkg);
    tap_contains(r.out, want, "the contract's reproduce line");
    tap_ok(strstr(r.out, "not deterministic") == NULL, "a deterministic failure has no warning");
    tap_contains(r.out, "test result: FAILED. 2 passed, 2 failed, 0 not run", "the summary");
    log = read_log();
    char seeds[4096];
    seeds_run(log, 3, seeds, sizeof seeds);
    tap_is_str(seeds, "1,2,3,4,5,6,7,7", "-j 1: seeds 1..7 ran, 7 twice (the determinism re-run)");
    free(log);
    free_result(&r);
    remove_failures();
}

static void test_process_env(void) {
    set_tests("unit|-|-|u|\nsim|1|6|s|\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-j", "2"));
    tap_is_int(r.status, 0, "all pass: status 0");
    tap_contains(r.out, "test result: ok. 2 passed, 0 failed, 0 not run; 7 processes", "summary counts processes");
    char *log = read_log();
    tap_is_int(count_lines(log, ""), 7, "one process per unit test and per seed");
    bool own_group = true, fresh = true, removed = true, report = true, forked = true;
    char dirs[16][TR_PATH];
    int nd = 0;
    for (const char *p = log; *p;) {
        int idx;
        char seed[32], dir[TR_PATH], rep[8], via[8];
        long pid, pgid;
        if (sscanf(p, "%d %31s %ld %ld %4095s %7s %7s", &idx, seed, &pid, &pgid, dir, rep, via) == 7) {
            if (pid != pgid) own_group = false;
            if (strcmp(via, "fork") != 0) forked = false;
            for (int k = 0; k < nd; k++)
                if (strcmp(dirs[k], dir) == 0) fresh = false;
            if (nd < 16) snprintf(dirs[nd++], TR_PATH, "%s", dir);
            if (access(dir, F_OK) == 0) removed = false;
            if (strcmp(rep, "1") != 0) report = false;
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    tap_ok(forked, "every process is a child of the fork server by default");
    tap_ok(own_group, "every process leads its own process group");
    tap_ok(fresh, "every process has its own OXL_DATA_DIR");
    tap_ok(removed, "the data directories (with files in them) are removed afterwards");
    tap_ok(report, "sim seeds and unit tests run with OXL_SIM_REPORT=1 (their report line says they ended)");
    tap_ok(dir_empty(tmpd), "the runner leaves nothing in TMPDIR");
    free(log);
    free_result(&r);
}

static void test_fork_server(void) {
    const char *spec = "unit|-|-|u ok|out\nunit|-|-|u bad|fail out\nsim|1|12|s|fail@9 out@9 segv@11\n"
                       "sim|1|6|crash|abort@4\n";
    set_tests(spec);
    reset_state();
    result served = run_env(NULL, ARGS(pkg, "--no-fail-fast", "-j", "2", "--format", "json"));
    char *log = read_log();
    int f, o, x;
    count_via(log, 2, -1, &f, &o, &x);
    tap_ok(f >= 9 && o == 1 && x == 0, "the fork server ran seeds 1..9 (and 10 with -j 2; %d shared, %d own, %d spawned)",
           f, o, x);
    count_via(log, 2, 9, &f, &o, &x);
    tap_ok(f == 1 && o == 1 && x == 0,
           "the determinism re-run of seed 9 has a server of its own: a new address layout (%d, %d, %d)", f, o, x);
    free(log);
    remove_failures();
    reset_state();
    result spawned = run_env(ENV("OXL_TEST_FORK_SERVER=0"), ARGS(pkg, "--no-fail-fast", "-j", "2", "--format", "json"));
    log = read_log();
    count_via(log, 2, -1, &f, &o, &x);
    tap_ok(f == 0 && o >= 10 && x == 0, "OXL_TEST_FORK_SERVER=0: every process has a server of its own (%d, %d, %d)", f,
           o, x);
    free(log);
    remove_failures();
    char *a = without_timing(served.out), *b = without_timing(spawned.out);
    tap_is_int(served.status, spawned.status, "the same exit status on both paths (%d)", served.status);
    tap_is_str(a, b, "the same report on both paths: results, signals, traces, captured output");
    tap_contains(a, "\"signal\":\"SIGABRT\"", "a signal through the server is named");
    tap_ok(strstr(served.err, "warning") == NULL && strstr(spawned.err, "warning") == NULL,
           "no warning when the servers work");
    free(a);
    free(b);
    free_result(&served);
    free_result(&spawned);
    tap_is_int(servers_left(), 0, "no fork server outlives its run");

    result r = run_env(ENV("OXL_TEST_FORK_SERVER=yes"), ARGS(pkg));
    tap_is_int(r.status, 2, "OXL_TEST_FORK_SERVER=yes: usage error");
    tap_contains(r.err, "oxl test: OXL_TEST_FORK_SERVER='yes' must be 0 (each process is forked by a server of its own) or 1", "named message");
    free_result(&r);
    r = run_env(ENV("OXL_TEST_FORK_SERVER=1"), ARGS(pkg, "--kind", "unit"));
    tap_is_int(r.status, 1, "OXL_TEST_FORK_SERVER=1 is the default");
    free_result(&r);

    /* a binary that cannot serve: one warning, every process spawned */
    reset_state();
    r = run_env(ENV("FAKE_SERVE=refuse"), ARGS(pkg, "--no-fail-fast", "-j", "2"));
    log = read_log();
    count_via(log, 2, -1, &f, &o, &x);
    tap_ok(f == 0 && o == 0 && x >= 10, "a server that cannot start: every seed spawned (%d, %d, %d)", f, o, x);
    tap_is_int(count_lines(r.err, "oxl test: warning: the fork server failed"), 1, "said once");
    tap_contains(r.err, "it exited with status 2: fake_testbin: no serve mode today; each process is started with "
                 "posix_spawn from now on", "with the server's status and its last stderr line");
    tap_contains(r.out, "seed 9 failed (9 of 12 seeds run)", "the results are all there");
    tap_contains(r.out, "test result: FAILED. 1 passed, 3 failed", "every test ran");
    free(log);
    free_result(&r);
    remove_failures();

    /* the server dies (of itself, once) while seed 5 runs: seed 5 runs
     * again in a server of its own, and the rest too; nothing is lost and
     * no process is left. */
    set_tests("sim|1|12|dies|killserver@5 delay=100@5 fail@9 out@9\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "2"));
    log = read_log();
    count_via(log, 0, 5, &f, &o, &x);
    tap_ok(f + o == 2 && x == 0, "seed 5 ran in the server's child, then in a server of its own (%d, %d)", f, o);
    /* which of seeds 6..9 the server forked before seed 5's child killed
     * it depends on how the machine schedules them: only what holds
     * either way is checked */
    count_via(log, 0, 9, &f, &o, &x);
    /* seed 9 itself may have been forked by the shared server before it
     * died (then it is counted as shared); its determinism re-run is
     * always an exec of a server of its own */
    tap_ok(f + o >= 2 && o >= 1 && x == 0,
           "seed 9 ran, and its re-run in a server of its own (%d, %d, %d)", f, o, x);
    bool all = true;
    for (long sd = 1; sd <= 9; sd++) {
        count_via(log, 0, sd, &f, &o, &x);
        if (f + o + x == 0) all = false;
    }
    tap_ok(all, "every seed up to the failure ran");
    tap_is_int(r.status, 1, "status 1");
    tap_contains(r.out, "seed 9 failed (9 of 12 seeds run)\n", "the same first failure as without the server's death");
    tap_contains(r.out, "--- stdout of seed 9 ---\nstdout of seed 9\n", "its output");
    tap_is_int(count_lines(r.err, "oxl test: warning: the fork server failed: it "), 1, "one warning");
    tap_contains(r.err, "; each process is started in a fork server of its own from now on", "saying what comes next");
    tap_is_int(servers_left(), 0, "no server left");
    tap_ok(dir_empty(tmpd), "no files left");
    if (r.status != 1 || count_lines(r.err, "oxl test: warning: ") != 1) show(&r);
    free(log);
    free_result(&r);
    remove_failures();

    /* the result of the run again is the seed's: here a failure */
    set_tests("sim|1|6|dies failing|killserver@3 fail@3\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    log = read_log();
    count_via(log, 0, 3, &f, &o, &x);
    tap_ok(f + o == 3 && x == 0, "seed 3: served, then again in a server of its own, then its re-run (%d, %d)", f, o);
    tap_contains(r.out, "seed 3 failed (3 of 6 seeds run)\n", "a seed whose server died fails as it should");
    tap_ok(strstr(r.out, "not deterministic") == NULL, "and deterministically");
    free(log);
    free_result(&r);
    remove_failures();
}

static void test_lowest_seed(void) {
    /* seed 5 fails slowly, seed 9 quickly: in parallel 9 fails first */
    set_tests("sim|1|40|race|fail@5,9 delay=1000@5\n");
    reset_state();
    result seq = run_env(NULL, ARGS(pkg, "-j", "1"));
    remove_failures();
    reset_state();
    result par = run_env(NULL, ARGS(pkg, "-j", "2"));
    tap_is_int(seq.status, 1, "-j 1: status 1");
    tap_is_int(par.status, 1, "-j 2: status 1");
    tap_contains(seq.out, "seed 5 failed (5 of 40 seeds run)", "-j 1 reports seed 5");
    tap_contains(par.out, "seed 5 failed (5 of 40 seeds run)", "-j 2 reports the lowest failing seed, 5, as -j 1 does");
    tap_ok(strstr(par.out, "seed 9") == NULL, "-j 2 says nothing of seed 9");
    char *log = read_log();
    tap_ok(strstr(log, " 9 ") != NULL, "-j 2 did run seed 9 before seed 5 finished");
    int above = 0;
    for (int s = 10; s <= 40; s++) {
        char pat[32];
        snprintf(pat, sizeof pat, "0 %d ", s);
        if (strstr(log, pat)) above++;
    }
    tap_is_int(above, 0, "no seed above the first failure was started");
    free(log);
    free_result(&seq);
    free_result(&par);
    remove_failures();

    /* seeds above a failure that are still running are killed */
    set_tests("sim|1|4|kill above|fail@1 delay=300@1 hangchild@2-4\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-j", "3", "-t", "30"));
    tap_contains(r.out, "seed 1 failed (1 of 4 seeds run)", "the failing seed below running ones");
    tap_ok(r.seconds < 10, "seeds above it were killed, not awaited (%.1f s)", r.seconds);
    free_result(&r);
    remove_failures();

    /* unit tests in parallel stop at the first failing one in order */
    set_tests("unit|-|-|u0|\nunit|-|-|u1|fail delay=300\nunit|-|-|u2|fail\nunit|-|-|u3|\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "2"));
    tap_contains(r.out, "FAIL unit  u1\n", "the first failing unit test in order is reported");
    tap_ok(strstr(r.out, "FAIL unit  u2") == NULL, "not the later one that failed first");
    tap_contains(r.out, "skip unit  u3", "later unit tests are not run");
    free_result(&r);
}


static void test_timeout(void) {
    set_tests("sim|1|5|sleepy|hangchild@3\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-t", "0.5"));
    tap_is_int(r.status, 1, "a timeout is a failure: status 1");
    tap_contains(r.out, "seed 3 failed (3 of 5 seeds run)\nseed 3 timed out after 0.5 s\n", "reported as a timeout");
    char want[TR_PATH + 128];
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 'sleepy' --seed 3 -t 0.5\n", pkg);
    tap_contains(r.out, want, "with its reproduce line, which keeps -t");
    tap_ok(r.seconds < 10, "the run ends soon after the timeout (%.1f s)", r.seconds);
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/child-3", state);
    char *c = slurp(p);
    long pid = atol(c);
    free(c);
    /* SIGKILL is delivered asynchronously: give it a moment */
    for (int i = 0; i < 200 && pid > 0 && alive(pid); i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
    tap_ok(pid > 0 && !alive(pid), "the test's own child was killed with its process group (pid %ld)", pid);
    free_result(&r);
    remove_failures();

    r = run_env(NULL, ARGS(pkg, "-t", "soon"));
    tap_is_int(r.status, 2, "-t soon: usage error");
    tap_contains(r.err, "oxl test: --timeout takes seconds", "named message");
    free_result(&r);
}

static void test_signals(void) {
    set_tests("sim|1|10|crashy|segv@4\nunit|-|-|aborts|abort\nsim|1|3|exits|exit3@2\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--no-fail-fast"));
    tap_is_int(r.status, 1, "crashes are failures: status 1");
    tap_contains(r.out, "seed 4 failed (4 of 10 seeds run)\nseed 4 crashed: SIGSEGV\n", "a signal by name");
    tap_contains(r.out, "test failed\ntest crashed: SIGABRT\n", "a unit test's signal by name");
    tap_contains(r.out, "seed 2 crashed: exit status 3\n", "another exit status is a crash");
    tap_contains(r.out, "reproduce: oxl test", "the reproduce lines");
    tap_is_int(count_lines(r.out, "reproduce: "), 3, "one per failing test");
    free_result(&r);
    remove_failures();

    set_tests("sim|1|2|loud|big@2 fail@2\n");
    r = run_env(NULL, ARGS(pkg));
    tap_contains(r.out, " bytes before these not shown)\nline ", "a long stderr: its last 64 KiB, from a line's start");
    tap_contains(r.out, "line 1999 of a long story", "its end is shown");
    tap_contains(r.out, "assertion failed: fake failure at seed 2\noxl-sim: seed=2", "with the failure and the report");
    free_result(&r);
    remove_failures();
}

static void test_nondeterminism(void) {
    set_tests("sim|1|10|hash changes|fail@3 nondet@3\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 5, "a different trace hash on the re-run: status 5");
    tap_contains(r.out, "warning: not deterministic: seed 3 gave exit status 101, trace ", "the warning");
    tap_contains(r.out, "NOT DETERMINISTIC", "the summary says so");
    char *log = read_log();
    tap_is_int(count_lines(log, "0 3 "), 2, "the failing seed ran twice");
    tap_ok(strstr(log, "0 3 ") && !strstr(log, "0 3 - "), "both runs had OXL_SIM_REPORT=1");
    free(log);
    free_result(&r);
    remove_failures();

    set_tests("sim|1|10|flips|flip@2\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--format", "json"));
    tap_is_int(r.status, 5, "a different exit status on the re-run: status 5");
    tap_contains(r.out, "\"deterministic\":false", "json says deterministic false");
    tap_contains(r.out, "re-run with OXL_SIM_REPORT=1 it gave exit status 0", "the warning names the re-run's status");
    free_result(&r);
    remove_failures();
}

static void test_formats(void) {
    set_tests("unit|-|-|u ok|\nunit|-|-|u # bad|fail\nsim|1|5|s ok|\nsim|1|9|s bad|fail@4 out@4\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--format", "tap", "--no-fail-fast", "-j", "2"));
    tap_is_int(r.status, 1, "tap: status 1");
    tap_ok(strncmp(r.out, "TAP version 13\n1..4\n", 20) == 0, "TAP 13 header and plan");
    tap_contains(r.out, "ok 1 - u ok\nnot ok 2 - u \\# bad\n", "unit tests as test points, '#' escaped");
    tap_contains(r.out, "# Subtest: s ok\n    ok 1 - seed 1\n    ok 2 - seed 2\n", "a subtest per sim test");
    tap_contains(r.out, "    ok 5 - seed 5\n    1..5\nok 3 - s ok\n", "its plan, then its test point");
    tap_contains(r.out, "    not ok 4 - seed 4\n      ---\n      message: \"seed 4 failed (4 of 9 seeds run)\"",
                 "the failing seed with a YAML block");
    tap_contains(r.out, "    1..4\nnot ok 4 - s bad\n  ---\n", "the failing sim test");
    tap_contains(r.out, "  stdout: \"stdout of seed 4\\n\"", "captured output in the YAML");
    tap_contains(r.out, "\n  ...\n", "YAML blocks end with ...");
    free_result(&r);
    remove_failures();

    char junit[TR_PATH];
    snprintf(junit, sizeof junit, "%s/junit.xml", work);
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--format", "json", "--no-fail-fast", "--junit", junit));
    int n = json_lines(r.out);
    tap_ok(n > 0, "json: every line is one JSON object (%d lines)", n);
    tap_ok(strncmp(r.out, "{\"event\":\"start\"", 16) == 0, "json starts with a start event");
    tap_is_int(count_lines(r.out, "{\"event\":\"seed\""), 9, "one seed event per seed run (5 + 4)");
    tap_is_int(count_lines(r.out, "{\"event\":\"test\""), 4, "one test event per test");
    tap_contains(r.out, "\"failed_seed\":4", "the failed seed");
    tap_contains(r.out, "{\"event\":\"end\",\"passed\":2,\"failed\":2,", "the end event");
    char *x = slurp(junit);
    tap_ok(strncmp(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 50) == 0, "junit: an XML document");
    tap_contains(x, "tests=\"4\" failures=\"2\"", "junit counts");
    tap_is_int(count_lines(x, "    <testcase "), 4, "a testcase per test");
    tap_contains(x, "<testcase name=\"s bad\" classname=\"pkg\"", "sim test case");
    tap_contains(x, "<failure message=\"seed 4 failed (4 of 9 seeds run)\" type=\"fail\">", "its failure");
    tap_contains(x, "<system-out>stdout of seed 4\n</system-out>", "its output");
    tap_contains(x, "</testsuite>\n</testsuites>\n", "closed");
    free(x);
    free_result(&r);
    remove_failures();

    /* XML_OUTPUT_FILE (Bazel) writes the same report */
    unlink(junit);
    char env[TR_PATH + 32];
    snprintf(env, sizeof env, "XML_OUTPUT_FILE=%s", junit);
    r = run_env(ENV(env), ARGS(pkg, "--kind", "unit", "--exact", "u ok"));
    x = slurp(junit);
    tap_contains(x, "tests=\"1\" failures=\"0\"", "XML_OUTPUT_FILE gets the JUnit report");
    free(x);
    free_result(&r);

    r = run_env(NULL, ARGS(pkg, "--format", "xml"));
    tap_is_int(r.status, 2, "--format xml: usage error");
    tap_contains(r.err, "--format takes human, tap, json or github, not 'xml'", "named message");
    free_result(&r);

    r = run_env(NULL, ARGS(pkg, "--kind", "unit", "--color", "always"));
    tap_contains(r.out, "\033[32mok\033[0m", "--color always colors");
    free_result(&r);
    r = run_env(ENV("NO_COLOR=1"), ARGS(pkg, "--kind", "unit", "--color", "auto"));
    tap_ok(strstr(r.out, "\033[") == NULL, "--color auto with NO_COLOR: none");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--color", "sometimes"));
    tap_is_int(r.status, 2, "--color sometimes: usage error");
    free_result(&r);
    remove_failures();
}

/* The (test, seed) pairs of a json run, as "name/seed" lines. */
static void pairs(const char *json, tr_buf *b) {
    for (const char *p = json; (p = strstr(p, "{\"event\":\"")); p++) {
        char name[256];
        unsigned long long seed;
        if (sscanf(p, "{\"event\":\"seed\",\"name\":\"%255[^\"]\",\"seed\":%llu", name, &seed) == 2)
            tr_buf_printf(b, "%s/%llu\n", name, seed);
        else if (sscanf(p, "{\"event\":\"test\",\"kind\":\"unit\",\"index\":%*d,\"name\":\"%255[^\"]\"", name) == 1)
            tr_buf_printf(b, "%s/-\n", name);
    }
}

static int cmp_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_sharding(void) {
    tap_is_uint(tr_fnv1a64(TR_FNV_OFFSET, "a", 1), 0xaf63dc4c8601ec8cull, "FNV-1a 64 of \"a\" (published vector)");
    uint64_t h = tr_fnv1a64(tr_fnv1a64(TR_FNV_OFFSET, "ring\0", 5), "17", 2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    tap_is_uint(tr_shard_hash("ring", true, 17), h, "the shard hash is fmix64 of FNV-1a 64 of \"<name>\\0<seed>\"");
    /* two shards are not the seeds' parity, and 1,000 seeds split evenly */
    int odd_in_0 = 0, in_0 = 0;
    for (unsigned long long seed = 1; seed <= 1000; seed++) {
        bool zero = tr_shard_hash("ring", true, seed) % 2 == 0;
        in_0 += zero;
        odd_in_0 += zero && seed % 2 == 1;
    }
    tap_ok(odd_in_0 > 200 && odd_in_0 < 300, "shard 0 of 2 holds %d of the 500 odd seeds (not a parity split)", odd_in_0);
    tap_ok(in_0 > 450 && in_0 < 550, "shard 0 of 2 holds %d of 1,000 seeds", in_0);

    set_tests("unit|-|-|u1|\nunit|-|-|u2|\nunit|-|-|u3|\nsim|1|30|alpha|\nsim|5|25|beta|\nsim|1|1|gamma|\n");
    tr_buf all = {0};
    int total = 0;
    bool agree = true;
    for (int k = 1; k <= 3; k++) {
        char part[32], env1[32], env2[32], status[TR_PATH + 32];
        snprintf(part, sizeof part, "hash:%d/3", k);
        result r = run_env(NULL, ARGS(pkg, "--partition", part, "--format", "json", "--no-fail-fast"));
        tr_buf b = {0};
        pairs(r.out, &b);
        snprintf(env1, sizeof env1, "TEST_SHARD_INDEX=%d", k - 1);
        snprintf(env2, sizeof env2, "TEST_TOTAL_SHARDS=3");
        snprintf(status, sizeof status, "TEST_SHARD_STATUS_FILE=%s/shard-status", work);
        result z = run_env(ENV(env1, env2, status), ARGS(pkg, "--format", "json", "--no-fail-fast"));
        tr_buf bz = {0};
        pairs(z.out, &bz);
        if (!b.s || !bz.s || strcmp(b.s, bz.s) != 0) agree = false;
        if (r.status != 0) show(&r);
        if (b.s) tr_buf_puts(&all, b.s);
        for (const char *p = b.s; p && *p; p++)
            if (*p == '\n') total++;
        tr_buf_free(&b);
        tr_buf_free(&bz);
        free_result(&r);
        free_result(&z);
    }
    tap_ok(agree, "TEST_TOTAL_SHARDS/TEST_SHARD_INDEX give the same partition as --partition");
    char sp[TR_PATH];
    snprintf(sp, sizeof sp, "%s/shard-status", work);
    tap_ok(access(sp, F_OK) == 0, "TEST_SHARD_STATUS_FILE is touched");
    tap_is_int(total, 3 + 30 + 21 + 1, "the shards together ran every pair");
    /* exactly once: sort and look for neighbours that are equal */
    char **lines = tr_xmalloc((size_t)(total + 1) * sizeof *lines);
    int n = 0;
    for (char *p = all.s, *nl; p && *p && (nl = strchr(p, '\n')); p = nl + 1) {
        *nl = '\0';
        lines[n++] = p;
    }
    qsort(lines, (size_t)n, sizeof *lines, cmp_lines);
    int dup = 0;
    for (int i = 1; i < n; i++)
        if (strcmp(lines[i - 1], lines[i]) == 0) dup++;
    tap_is_int(dup, 0, "no pair ran in two shards");
    bool has = false;
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i], "beta/5") == 0) has = true;
    tap_ok(has && n == total, "the pairs are the tests' own (beta/5 among them)");
    free(lines);
    tr_buf_free(&all);

    result r = run_env(NULL, ARGS(pkg, "--partition", "hash:0/3"));
    tap_is_int(r.status, 2, "--partition hash:0/3: usage error");
    tap_contains(r.err, "--partition takes hash:M/N with 1 <= M <= N, or hash:auto/N, not 'hash:0/3'", "named message");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--partition", "2/3"));
    tap_is_int(r.status, 2, "--partition 2/3: usage error");
    free_result(&r);
    r = run_env(ENV("TEST_TOTAL_SHARDS=3", "TEST_SHARD_INDEX=3"), ARGS(pkg));
    tap_is_int(r.status, 2, "TEST_SHARD_INDEX out of range: usage error");
    tap_contains(r.err, "TEST_TOTAL_SHARDS='3' and TEST_SHARD_INDEX='3'", "named message");
    free_result(&r);
}

static void test_failures_file(void) {
    remove_failures();
    set_tests("sim|1|20|remembered|fail@12\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 1, "a failing seed");
    char *f = failures_file();
    tap_ok(f && strstr(f, "\n12\tremembered\n"), "is remembered in oxl-test-failures.txt");
    free(f);
    free_result(&r);

    /* next run: 12 passes now, 15 fails */
    set_tests("sim|1|20|remembered|fail@15\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    char *log = read_log();
    tap_ok(strncmp(log, "0 12 ", 5) == 0, "the remembered seed runs first");
    tap_contains(r.out, "seed 15 failed (15 of 20 seeds run)", "then the range without it");
    f = failures_file();
    tap_ok(f && strstr(f, "\n15\tremembered\n") && !strstr(f, "\n12\t"), "12 passed and is gone, 15 is added");
    free(f);
    free(log);
    free_result(&r);

    set_tests("sim|1|20|remembered|\n");
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 0, "everything passes");
    tap_ok(failures_file() == NULL, "the file is removed once it is empty");
    free_result(&r);

    /* names with a quote and a tab: the reproduce line and the file */
    set_tests("sim|1|3|it's \"odd\"\\there|fail@2\n");
    r = run_env(NULL, ARGS(pkg));
    tap_contains(r.out, "--exact $'it\\'s \"odd\"\\there' --seed 2\n", "the name with a tab quoted $'...', ' escaped");
    f = failures_file();
    tap_ok(f && strstr(f, "\n2\tit's \"odd\"\\there\n"), "the file escapes the tab as --list does");
    free(f);
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--exact", "it's \"odd\"\there", "--seed", "2"));
    tap_contains(r.out, "seed 2 failed (1 of 1 seeds run)", "the reproduce command finds the test");
    free_result(&r);
    remove_failures();

    write_pkg_file("oxl-test-failures.txt", "# comment\nnot a line\n3\tkept\n");
    set_tests("sim|1|5|kept|\n");
    r = run_env(NULL, ARGS(pkg));
    tap_contains(r.err, "oxl-test-failures.txt:2: not '<seed><tab><test name>'; the line is dropped", "a malformed line is named");
    tap_ok(failures_file() == NULL, "the rewritten file drops it (3 passed too)");
    free_result(&r);
}

static void test_selection(void) {
    set_tests("unit|-|-|parse one|\nunit|-|-|parse two|\nsim|1|100|ring|\nsim|1|50|ring big|fail@40\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--seed", "30"));
    char *log = read_log();
    tap_is_int(r.status, 0, "--seed 30 (implies --kind sim)");
    tap_is_int(count_lines(log, "0 "), 0, "no unit test ran");
    char s2[256], s3[256];
    seeds_run(log, 2, s2, sizeof s2);
    seeds_run(log, 3, s3, sizeof s3);
    tap_ok(strcmp(s2, "30") == 0 && strcmp(s3, "30") == 0, "exactly seed 30 of each sim test (%s; %s)", s2, s3);
    free(log);
    free_result(&r);

    reset_state();
    r = run_env(NULL, ARGS(pkg, "--seeds", "3..5", "--kind", "sim"));
    log = read_log();
    seeds_run(log, 2, s2, sizeof s2);
    tap_is_str(s2, "3,4,5", "--seeds 3..5 is inclusive");
    free(log);
    free_result(&r);
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--seeds", "4", "--exact", "ring", "-j", "1"));
    log = read_log();
    seeds_run(log, 2, s2, sizeof s2);
    tap_is_str(s2, "1,2,3,4", "--seeds 4 is 1..4");
    tap_is_int(count_lines(log, "3 "), 0, "--exact ring leaves 'ring big' out");
    free(log);
    free_result(&r);

    reset_state();
    r = run_env(NULL, ARGS(pkg, "-f", "parse"));
    log = read_log();
    tap_ok(count_lines(log, "0 ") == 1 && count_lines(log, "1 ") == 1 && count_lines(log, "2 ") == 0,
           "-f parse runs the tests whose name has 'parse'");
    free(log);
    free_result(&r);
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--kind", "unit"));
    tap_contains(r.out, "running 2 unit tests and 0 sim tests", "--kind unit");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--kind=sim", "--filter=big", "--seeds=1..45", "--timeout=20", "--jobs=2"));
    tap_contains(r.out, "seed 40 failed (40 of 45 seeds run)", "--flag=value forms");
    free_result(&r);
    remove_failures();

    r = run_env(NULL, ARGS(pkg, "--list"));
    tap_is_int(r.status, 0, "--list: status 0");
    tap_contains(r.out, "unit                 fake.oxl:3:1  parse one\n", "--list shows unit tests");
    tap_contains(r.out, "sim   1..100         fake.oxl:11:1  ring\n", "and sim tests with their seeds");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--list", "--kind", "sim", "--format", "json"));
    tap_is_int(json_lines(r.out), 2, "--list --format json: one object per test");
    free_result(&r);

    r = run_env(NULL, ARGS(pkg, "--exact", "nothing like it"));
    tap_is_int(r.status, 4, "no test matched: status 4");
    tap_contains(r.err, "oxl test: no test matched --exact 'nothing like it' (the package has 4)", "named");
    free_result(&r);
    set_tests("");
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(r.status, 4, "no tests at all: status 4");
    tap_contains(r.err, "has no tests", "named");
    free_result(&r);
}


static void test_cache(void) {
    set_tests("unit|-|-|u|\n");
    tr_remove_tree(cache);
    int b0 = count_builds();
    result r = run_env(NULL, ARGS(pkg));
    tap_is_int(count_builds(), b0 + 1, "the first run builds");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(count_builds(), b0 + 1, "the second run uses the cached binary");
    tap_is_int(r.status, 0, "and runs it");
    free_result(&r);
    write_pkg_file("sub/b.oxl", "// changed\n");
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(count_builds(), b0 + 2, "a changed .oxl in a subdirectory rebuilds");
    free_result(&r);
    write_pkg_file("notes.txt", "not a source\n");
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(count_builds(), b0 + 2, "another kind of file does not");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "-O2"));
    tap_is_int(count_builds(), b0 + 3, "-O2 is another binary");
    free_result(&r);

    char keep[TR_PATH], env[TR_PATH + 32];
    snprintf(keep, sizeof keep, "%s/kept-binary", work);
    snprintf(env, sizeof env, "OXL_TEST_KEEP_BINARY=%s", keep);
    r = run_env(ENV(env), ARGS(pkg));
    struct stat st;
    tap_ok(stat(keep, &st) == 0 && (st.st_mode & 0100), "OXL_TEST_KEEP_BINARY copies the test binary");
    free_result(&r);
    r = run_env(ENV("OXL_TEST_KEEP_BINARY=/nonexistent/dir/bin"), ARGS(pkg));
    tap_is_int(r.status, 2, "OXL_TEST_KEEP_BINARY into a missing directory: status 2");
    tap_contains(r.err, "OXL_TEST_KEEP_BINARY: cannot copy the test binary to '/nonexistent/dir/bin'", "named");
    free_result(&r);

    write_pkg_file("sub/b.oxl", "// changed again\n");
    r = run_env(ENV("FAKE_BUILD_STATUS=1"), ARGS(pkg));
    tap_is_int(r.status, 3, "a compile error: status 3");
    tap_contains(r.err, "fake.oxl:1:1: error: a compile error\noxl test: the package does not compile; no test ran",
                 "the diagnostics, then the runner's line");
    free_result(&r);
    r = run_env(ENV("FAKE_BUILD_STATUS=3"), ARGS(pkg));
    tap_is_int(r.status, 3, "an internal or link error: status 3");
    free_result(&r);
    r = run_env(ENV("FAKE_BUILD_STATUS=2"), ARGS(pkg));
    tap_is_int(r.status, 2, "an unreadable package: status 2");
    free_result(&r);
    r = run_env(ENV("FAKE_LIST=fail"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list failing: status 3");
    tap_contains(r.err, "the test binary's --list exited with status 1\nfake_testbin: cannot list", "named, with its stderr");
    free_result(&r);
    r = run_env(ENV("FAKE_LIST=bad"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list malformed: status 3");
    tap_contains(r.err, "malformed at line 2: a sim test's seeds are two integers, first <= last", "named");
    free_result(&r);
    r = run_env(ENV("FAKE_LIST=badlayout"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list with an empty role: status 3");
    tap_contains(r.err, "malformed at line 2: a sim test's layout has an empty node or role name", "named");
    free_result(&r);
    r = run_env(ENV("FAKE_LIST=six"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list without a layout field: status 3");
    tap_contains(r.err, "malformed at line 2: expected 7 fields separated by tabs", "named");
    free_result(&r);
    /* the handshake (docs/test-binary.md): without it a listing is not a
     * test binary's; with another count it was cut short */
    r = run_env(ENV("FAKE_LIST=nohandshake"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list without its oxl-list line: status 3");
    tap_contains(r.err, "oxl test: the test binary's --list has no 'oxl-list: tests=<n>' line on stderr", "named");
    free_result(&r);
    r = run_env(ENV("FAKE_LIST=cut"), ARGS(pkg));
    tap_is_int(r.status, 3, "--list with fewer lines than its oxl-list line says: status 3");
    tap_contains(r.err, "--list printed 1 test lines where its 'oxl-list:' line says 2 (cut short?)", "named");
    free_result(&r);
    /* the layout as oxl test --list shows it */
    set_tests("unit|-|-|u|\nsim|1|3|s|\n");
    r = run_env(NULL, ARGS(pkg, "--list"));
    tap_is_int(r.status, 0, "--list: status 0");
    tap_contains(r.out, "\n      nodes: n0 (api), n1 (api, db)\n", "--list: a sim test's nodes and roles");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--list", "--format", "json"));
    tap_contains(r.out, "\"layout\":[{\"node\":\"n0\",\"roles\":[\"api\"]},{\"node\":\"n1\",\"roles\":[\"api\",\"db\"]}]",
                 "--list JSON: the layout");
    free_result(&r);
}

static void test_terminal_and_interrupt(void) {
    /* on a terminal: a progress line */
    set_tests("sim|1|8|slow seeds|delay=150\n");
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        tap_skip("no pseudo-terminal", "progress line on a terminal");
    } else {
        char slave[256];
        snprintf(slave, sizeof slave, "%s", ptsname(master));
        double t0 = tr_now();
        pid_t pid = run_start(ENV("TERM=xterm"), ARGS(pkg, "-j", "2"), slave);
        tr_buf got = {0};
        char buf[4096];
        fcntl(master, F_SETFL, O_NONBLOCK);
        for (;;) {
            ssize_t n = read(master, buf, sizeof buf);
            if (n > 0) {
                tr_buf_add(&got, buf, (size_t)n);
                continue;
            }
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                /* the runner has exited: what it wrote last may still be
                 * waiting in the terminal, so drain it before stopping */
                while ((n = read(master, buf, sizeof buf)) > 0) tr_buf_add(&got, buf, (size_t)n);
                break;
            }
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        (void)t0;
        tap_contains(got.s ? got.s : "", "\r\033[Ksim slow seeds: ", "a progress line on a terminal");
        tap_contains(got.s ? got.s : "", " done, 0 failed", "with seeds done and failures");
        tap_contains(got.s ? got.s : "", "\033[32mok\033[0m", "and color by default");
        tr_buf_free(&got);
        close(master);
    }

    /* Ctrl-C: the runner kills what runs, cleans up and exits 130 */
    set_tests("sim|1|4|hangs|hangchild@1-4\n");
    reset_state();
    double t0 = tr_now();
    pid_t pid = run_start(NULL, ARGS(pkg, "-j", "2", "-t", "60"), NULL);
    char p1[TR_PATH], p2[TR_PATH];
    snprintf(p1, sizeof p1, "%s/child-1", state);
    snprintf(p2, sizeof p2, "%s/child-2", state);
    for (int i = 0; i < 500 && (access(p1, F_OK) != 0 || access(p2, F_OK) != 0); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    kill(pid, SIGINT);
    result r = run_finish(pid, t0);
    tap_is_int(r.status, 130, "SIGINT: status 130");
    tap_contains(r.err, "oxl test: interrupted; the running tests were killed", "named");
    tap_ok(r.seconds < 20, "promptly (%.1f s)", r.seconds);
    char *c = slurp(p1);
    long cp = atol(c);
    free(c);
    for (int i = 0; i < 200 && cp > 0 && alive(cp); i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
    tap_ok(cp > 0 && !alive(cp), "the tests' processes are gone");
    tap_is_int(servers_left(), 0, "and the fork server");
    tap_ok(dir_empty(tmpd), "and the runner's files");
    free_result(&r);
}

static void sha_hex(const char *text, char out[65]) {
    tr_sha256 c;
    unsigned char d[32];
    tr_sha256_init(&c);
    /* fed in uneven pieces: the block buffering is part of what is tested */
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += 7) tr_sha256_add(&c, text + i, n - i < 7 ? n - i : 7);
    tr_sha256_done(&c, d);
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The progress line in display columns: a CJK character takes two, a
 * combining mark none, so a name in those scripts is cut to fit the
 * terminal's width, never past it. */
static void test_progress_columns(void) {
    static const char cjk[] = "\xe6\xb8\xac"; /* U+6E2C, two columns */
    tr_buf what = {0}, want = {0};
    tr_buf_puts(&what, "sim ");
    for (int i = 0; i < 60; i++) tr_buf_puts(&what, cjk);
    /* 120 columns: 119 for the line; the counts take 21, "..." 3: 4 + 45 * 2 of the name */
    tr_buf_puts(&want, "sim ");
    for (int i = 0; i < 45; i++) tr_buf_puts(&want, cjk);
    tr_buf_puts(&want, "...: 1/10 done, 0 failed");
    tr_buf got = {0};
    tr_progress_text(&got, 120, what.s, 1, 10, 0, 0);
    tap_is_str(got.s, want.s, "120 columns: a CJK name is cut at 118 display columns (45 of its 60 characters)");
    tap_is_int((int)tr_display_cols(got.s), 118, "which tr_display_cols counts too");
    tr_buf_free(&got);
    tr_buf_free(&want);
    tr_buf_puts(&want, "sim ");
    for (int i = 0; i < 10; i++) tr_buf_puts(&want, cjk);
    tr_buf_puts(&want, "...: 1/10 done, 0 failed");
    tr_progress_text(&got, 50, what.s, 1, 10, 0, 0);
    tap_is_str(got.s, want.s, "50 columns: 10 of its characters, 48 columns");
    tr_buf_free(&got);
    tr_buf_free(&want);
    tr_buf_free(&what);
    /* a combining accent takes no column: 30 of "e\u0301" are 30 columns and fit */
    tr_buf_puts(&what, "sim ");
    for (int i = 0; i < 30; i++) tr_buf_puts(&what, "e\xcc\x81");
    tr_progress_text(&got, 60, what.s, 1, 10, 0, 0);
    tr_buf_puts(&want, what.s);
    tr_buf_puts(&want, ": 1/10 done, 0 failed");
    tap_is_str(got.s, want.s, "combining marks take no column: 55 columns fit in 60");
    tr_buf_free(&got);
    tr_buf_free(&want);
    tr_buf_free(&what);
    size_t used = 0;
    tap_is_int((int)tr_display_cols_prefix("a\xff\xe6\xb8", 10, &used), 4, "bytes of no whole sequence: a column each");
    tap_is_int((int)used, 4, "(4 columns)");
}

static void test_escapes_and_hashes(void) {
    char h[65];
    sha_hex("abc", h);
    tap_is_str(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA-256 of abc (FIPS 180-4)");
    sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", h);
    tap_is_str(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "SHA-256 of the two-block vector");
    sha_hex("", h);
    tap_is_str(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "SHA-256 of nothing");

    tr_buf b = {0};
    tr_json_str(&b, "a\"\\\n\t\x01\xff\xc3\xa9");
    tap_is_str(b.s, "\"a\\\"\\\\\\n\\t\\u0001\\ufffd\xc3\xa9\"", "JSON: escapes, control characters, bad UTF-8 kept valid");
    tr_buf_free(&b);
    tr_xml_text(&b, "<a & \"b\">\x02\xfe");
    tap_is_str(b.s, "&lt;a &amp; &quot;b&quot;&gt;\\x02\xef\xbf\xbd", "XML: entities, no control characters, bad UTF-8 replaced");
    tr_buf_free(&b);
    tr_shell_quote(&b, "it's");
    tap_is_str(b.s, "'it'\\''s'", "shell: a single quote closed, escaped, reopened");
    tr_buf_free(&b);
    tr_shell_word(&b, "pkg/a-b_c.d");
    tr_shell_word(&b, " my pkg");
    tap_is_str(b.s, "pkg/a-b_c.d' my pkg'", "shell: a plain path as it is, others quoted");
    tr_buf_free(&b);
}

static void test_bad_flags(void) {
    static const struct {
        const char *args[4];
        const char *msg;
    } cases[] = {
        {{"--kind", "both"}, "--kind takes unit or sim, not 'both'"},
        {{"--seeds", "5..1"}, "--seeds takes a..b (inclusive, 0 <= a <= b < 2^63) or a count N (1..N), not '5..1'"},
        {{"--seeds", "0"}, "not '0'"},
        {{"--seed", "x"}, "--seed takes an integer from 0 to 2^63-1, not 'x'"},
        {{"--seed", "9223372036854775808"}, "not '9223372036854775808'"},
        {{"--seed", "-3"}, "not '-3'"},
        {{"-j", "0"}, "-j takes a number of processes from 1 to 1024, not '0'"},
        {{"-t", "-1"}, "--timeout takes seconds"},
        {{"--bogus"}, "unknown option '--bogus' for 'oxl test'"},
        {{"a", "b"}, "cannot open 'a'"},
        {{"--seed", "3", "--kind", "unit"}, "--seed runs sim tests; it cannot be used with --kind unit"},
        {{"--seed", "3", "--seeds", "4"}, "--seed and --seeds cannot be used together"},
        {{"--exact"}, "--exact needs a value"},
        {{"--junit", ""}, "--junit needs a file name"},
        {{"--", "x"}, "passes no arguments to the test binary"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[6] = {0};
        int n = 0;
        for (int k = 0; k < 4 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        result r = run_env(NULL, argv);
        char what[128];
        snprintf(what, sizeof what, "%s %s", cases[i].args[0], cases[i].args[1] ? cases[i].args[1] : "");
        tap_is_int(r.status, 2, "%s: usage error", what);
        tap_contains(r.err, cases[i].msg, "%s: named message", what);
        free_result(&r);
    }
    result r = run_env(NULL, ARGS("/nonexistent/pkg"));
    tap_is_int(r.status, 2, "a missing package: status 2");
    tap_contains(r.err, "oxl test: cannot open '/nonexistent/pkg'", "named");
    free_result(&r);
}

/* --policy and --pct-depth (and their variables): the reproduce line
 * carries the policy; bad values are usage errors naming the flag or the
 * variable. */
static void test_policy(void) {
    set_tests("sim|1|9|s|fail@4\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--policy", "pct", "--pct-depth", "2"));
    tap_is_int(r.status, 1, "--policy pct: the failing seed fails");
    char want[TR_PATH + 128];
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 's' --seed 4 --policy pct --pct-depth 2\n", pkg);
    tap_contains(r.out, want, "the reproduce line carries the policy and its depth");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("OXL_SIM_POLICY=fifo"), ARGS(pkg));
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 's' --seed 4 --policy fifo\n", pkg);
    tap_contains(r.out, want, "OXL_SIM_POLICY=fifo is the default of --policy, carried too");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("OXL_SIM_POLICY=fifo"), ARGS(pkg, "--policy", "random"));
    snprintf(want, sizeof want, "reproduce: oxl test %s --exact 's' --seed 4\n", pkg);
    tap_contains(r.out, want, "the flag wins over the variable; random is the default and not written");
    free_result(&r);
    remove_failures();
    r = run_env(ENV("OXL_SIM_POLICY=pct", "OXL_SIM_PCT_DEPTH=5"), ARGS(pkg));
    snprintf(want, sizeof want, "--seed 4 --policy pct --pct-depth 5\n");
    tap_contains(r.out, want, "OXL_SIM_PCT_DEPTH is the depth's default");
    free_result(&r);
    remove_failures();
    static const struct {
        const char *env;
        const char *args[3];
        const char *msg;
    } cases[] = {
        {NULL, {"--policy", "lifo"}, "--policy takes random, fifo or pct, not 'lifo'"},
        {NULL, {"--policy", ""}, "--policy takes random, fifo or pct, not ''"},
        {NULL, {"--policy"}, "--policy needs a value"},
        {NULL, {"--policy", "pct", "--pct-depth"}, "--pct-depth needs a value"},
        {NULL, {"--pct-depth", "0"}, "--pct-depth takes a bug depth from 1 to 64, not '0'"},
        {NULL, {"--pct-depth", "65"}, "--pct-depth takes a bug depth from 1 to 64, not '65'"},
        {NULL, {"--pct-depth", "two"}, "not 'two'"},
        {NULL, {"--pct-depth", "2"}, "--pct-depth is the depth of --policy pct; it needs --policy pct"},
        {"OXL_SIM_POLICY=PCT", {NULL}, "OXL_SIM_POLICY='PCT' is not a policy: expected random, fifo or pct"},
        {"OXL_SIM_PCT_DEPTH=-1", {"--policy", "pct"}, "OXL_SIM_PCT_DEPTH='-1' is not a depth: expected an integer from 1 to 64"},
        {"OXL_SIM_PCT_DEPTH=2", {NULL}, "OXL_SIM_PCT_DEPTH='2' is the depth of the pct policy, and the policy is random"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[6] = {pkg};
        int n = 1;
        for (int k = 0; k < 3 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        const char *env[2] = {cases[i].env, NULL};
        result r2 = run_env(env, argv);
        char what[128];
        snprintf(what, sizeof what, "%s %s %s", cases[i].env ? cases[i].env : "", cases[i].args[0] ? cases[i].args[0] : "",
                 cases[i].args[1] ? cases[i].args[1] : "");
        tap_is_int(r2.status, 2, "%s: usage error", what);
        tap_contains(r2.err, cases[i].msg, "%s: named message", what);
        free_result(&r2);
    }
}

/* The trace diff against the last passing seed (tr_explain.c), with the
 * fake binary's dumps (FAKE_DUMP), and when it cannot be made. */
static void test_trace_diff(void) {
    set_tests("sim|1|9|s|fail@4\n");
    reset_state();
    result r = run_env(ENV("FAKE_DUMP=drop"), ARGS(pkg, "-j", "1"));
    tap_contains(r.out,
                 "trace diff: seed 4 (5 events) against seed 3 (5 events), the last that passed: the first 1 events "
                 "agree by kind and label\n"
                 "  they part before any network event or clock advance\n"
                 "  seed 4 (failed) goes on with: #1 @0.000000000s seq=1 task      spawn task 2 on n0\n"
                 "  seed 3 (passed) goes on with: #1 @0.000000000s seq=1 task      spawn task 3 on n0\n"
                 "  without task events (spawns, wakes, ends) the first 2 agree:\n"
                 "  from the nearest network event or clock advance:\n"
                 "    #3 @0.000001000s seq=1 send      n0 -> n1 (8 bytes)\n"
                 "  seed 4 (failed) goes on with: #4 @0.000001000s seq=1 drop      n0 -> n1 (random drop)\n"
                 "  seed 3 (passed) goes on with: #4 @0.000002000s seq=2 deliver   n0 -> n1 (8 bytes)\n",
                 "the diff: the common prefix, the first parting events, then without task events from the send");
    char *log = read_log();
    char seeds[4096];
    seeds_run(log, 0, seeds, sizeof seeds);
    tap_is_str(seeds, "1,2,3,3,4,4", "seeds 1..4, the failing seed's re-run and the last passing seed once more");
    free(log);
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=drop"), ARGS(pkg, "-j", "1", "--format", "json"));
    tap_contains(r.out,
                 "\"trace_diff\":{\"seed\":4,\"against_seed\":3,\"compared\":true,\"events\":5,\"against_events\":5,\"cut\":false,"
                 "\"all\":{\"common_prefix\":1,",
                 "JSON: trace_diff in the test event");
    tap_contains(r.out, "\"without_tasks\":{\"common_prefix\":2,\"first_difference\":\"#4 @0.000001000s seq=1 drop ",
                 "JSON: and the part without task events");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=times"), ARGS(pkg, "-j", "1"));
    tap_contains(r.out, "the first 5 events agree by kind and label, all of them (they differ in times only)\n",
                 "traces that differ only in times agree");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=bad"), ARGS(pkg, "-j", "1"));
    tap_contains(r.out, "trace diff: against seed 3, not made: no trace of seed 4: line 5 of its trace dump is malformed\n",
                 "a malformed dump: said, not compared");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=cut"), ARGS(pkg, "-j", "1"));
    tap_contains(r.out, "agree by kind and label (a trace was cut at its first 2,000,000 events: only those were compared)\n",
                 "a dump that was cut: said");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=nohead"), ARGS(pkg, "-j", "1"));
    tap_contains(r.out, "not made: no trace of seed 4: its trace dump is not one of version 2\n",
                 "a dump without its header: said");
    free_result(&r);
    remove_failures();
    reset_state();
    r = run_env(ENV("FAKE_DUMP=drop"), ARGS(pkg, "--seed", "4"));
    tap_contains(r.out, "trace diff: no seed of this test passed before seed 4 in this run: nothing to compare\n",
                 "--seed: no passing seed to compare with");
    log = read_log();
    seeds_run(log, 0, seeds, sizeof seeds);
    tap_is_str(seeds, "4,4", "and no process more than the re-run");
    free(log);
    free_result(&r);
    remove_failures();
    set_tests("sim|1|9|s|\n");
    reset_state();
    r = run_env(ENV("FAKE_DUMP=drop"), ARGS(pkg, "-j", "1"));
    log = read_log();
    seeds_run(log, 0, seeds, sizeof seeds);
    tap_is_str(seeds, "1,2,3,4,5,6,7,8,9", "a passing test: no process more");
    tap_ok(strstr(r.out, "trace diff") == NULL, "and no diff");
    free(log);
    free_result(&r);
}

int main(void) {
    harness_init("runner-test");
    test_escapes_and_hashes();
    test_progress_columns();
    test_default_run();
    test_process_env();
    test_fork_server();
    test_lowest_seed();
    test_timeout();
    test_signals();
    test_nondeterminism();
    test_formats();
    test_sharding();
    test_failures_file();
    test_selection();
    test_cache();
    test_terminal_and_interrupt();
    test_bad_flags();
    test_policy();
    test_trace_diff();
    return harness_done();
}
