/* runner_life_test: the lifecycle of `oxl test`'s processes and runs,
 * against fake_testbin (harness.h): what a seed that ends early, kills
 * its parent or leaves processes behind comes to, interrupted runs, the
 * failures file under bad input and concurrent runs, damaged cache
 * entries, and the smaller promises of the reports (seeds, names,
 * timings). */
#define _GNU_SOURCE /* pipe2 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --seed N runs N, but N is not one of the failures file's seeds. */
static void test_seed_not_replayed(void) {
    remove_failures();
    set_tests("sim|1|5|s|\n");
    result r = run_env(NULL, ARGS(pkg, "--seed", "3", "--format", "json"));
    tap_is_int(r.status, 0, "--seed 3: status 0");
    tap_contains(r.out, "\"seed\":3,\"replayed\":false,", "--seed N without a failures file: not replayed");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--seed", "3", "--format", "tap"));
    tap_contains(r.out, "    ok 1 - seed 3\n", "TAP: no (replayed) mark");
    free_result(&r);
    write_pkg_file("oxl-test-failures.txt", "4\ts\n");
    r = run_env(NULL, ARGS(pkg, "--seeds", "1..2", "--format", "json"));
    tap_contains(r.out, "\"seed\":4,\"replayed\":true,", "a remembered seed is replayed");
    tap_contains(r.out, "\"seed\":1,\"replayed\":false,", "the range's are not");
    free_result(&r);
    remove_failures();
}

/* The test binary takes OXL_SIM_TIME_LIMIT from the environment it
 * inherits; a bad value is the run's usage error, not every seed's crash. */
static void test_time_limit_variable(void) {
    set_tests("sim|1|5|s|\n");
    static const char *const bad[] = {"OXL_SIM_TIME_LIMIT=abc", "OXL_SIM_TIME_LIMIT=", "OXL_SIM_TIME_LIMIT=-1",
                                      "OXL_SIM_TIME_LIMIT=0", "OXL_SIM_TIME_LIMIT=1e99", "OXL_SIM_TIME_LIMIT=0x10",
                                      "OXL_SIM_TIME_LIMIT= 5", "OXL_SIM_TIME_LIMIT=+5", "OXL_SIM_TIME_LIMIT=inf",
                                      "OXL_SIM_TIME_LIMIT=nan", "OXL_SIM_TIME_LIMIT=5 ", "OXL_SIM_TIME_LIMIT=1e",
                                      "OXL_SIM_TIME_LIMIT=."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset_state();
        result r = run_env(ENV(bad[i]), ARGS(pkg));
        tap_is_int(r.status, 2, "%s: usage error", bad[i]);
        char want[128];
        snprintf(want, sizeof want, "oxl test: %s' is not a positive number of seconds", bad[i]);
        char *eq = strchr(want, '=');
        memmove(eq + 2, eq + 1, strlen(eq + 1) + 1);
        eq[1] = '\'';
        tap_contains(r.err, want, "%s: named", bad[i]);
        char *log = read_log();
        tap_is_int(count_lines(log, ""), 0, "%s: no seed ran", bad[i]);
        free(log);
        free_result(&r);
    }
    static const char *const good[] = {"OXL_SIM_TIME_LIMIT=2.5", "OXL_SIM_TIME_LIMIT=10", "OXL_SIM_TIME_LIMIT=.5",
                                       "OXL_SIM_TIME_LIMIT=3.", "OXL_SIM_TIME_LIMIT=1e3", "OXL_SIM_TIME_LIMIT=25E-1"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        reset_state();
        result r = run_env(ENV(good[i]), ARGS(pkg));
        tap_is_int(r.status, 0, "%s is fine", good[i]);
        free_result(&r);
    }
}

/* The reproduce line of s's output: the text after "reproduce: " up to
 * the end of its line (malloc'd), or NULL. */
static char *reproduce_of(const char *s) {
    const char *p = strstr(s, "reproduce: ");
    if (!p) return NULL;
    p += strlen("reproduce: ");
    size_t n = strcspn(p, "\n");
    char *line = tr_xmalloc(n + 1);
    memcpy(line, p, n);
    line[n] = '\0';
    return line;
}

/* What bash makes of word (one shell word, as the reproduce line has it). */
static char *bash_word(const char *word) {
    char script[TR_PATH], out[TR_PATH];
    snprintf(script, sizeof script, "%s/word.sh", work);
    snprintf(out, sizeof out, "%s/word.out", work);
    tr_buf b = {0};
    tr_buf_printf(&b, "printf '%%s' %s > '%s'\n", word, out);
    tr_write_file(script, b.s, b.len, 0644);
    tr_buf_free(&b);
    unlink(out);
    char cmd[2 * TR_PATH];
    snprintf(cmd, sizeof cmd, "bash '%s'", script);
    if (system(cmd) != 0) return NULL;
    return slurp(out);
}

/* A name with an escape sequence or a newline: the reproduce line stays
 * one line without control bytes, and pasted into bash it names the test. */
static void test_reproduce_quoting(void) {
    static const struct {
        const char *spec, *name, *what;
    } cases[] = {
        {"sim|1|3|esc \033[31mred\033[0m it's|fail@2\n", "esc \033[31mred\033[0m it's", "ESC and a quote"},
        {"sim|1|3|two\\nlines\\tand a tab|fail@2\n", "two\nlines\tand a tab", "a newline and a tab"},
        {"sim|1|3|back\\\\slash \001 bell\a|fail@2\n", "back\\slash \001 bell\a", "a backslash and control bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        remove_failures();
        set_tests(cases[i].spec);
        result r = run_env(NULL, ARGS(pkg));
        char *line = reproduce_of(r.out);
        tap_ok(line != NULL, "%s: a reproduce line", cases[i].what);
        bool clean = line != NULL;
        for (const char *c = line ? line : ""; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) clean = false;
        tap_ok(clean, "%s: no control byte in it", cases[i].what);
        const char *exact = line ? strstr(line, " --exact ") : NULL, *seed = line ? strstr(line, " --seed 2") : NULL;
        char *got = NULL;
        if (exact && seed && seed > exact) {
            char word[1024];
            snprintf(word, sizeof word, "%.*s", (int)(seed - exact - 9), exact + 9);
            got = bash_word(word);
        }
        tap_ok(got && strcmp(got, cases[i].name) == 0, "%s: bash reads the quoted name back", cases[i].what);
        if (!clean) tap_diag("the line: %s", line ? line : "(none)");
        free(got);
        free(line);
        free_result(&r);
    }
    remove_failures();
    tr_buf b = {0};
    tr_shell_quote(&b, "plain 'one'");
    tap_is_str(b.s, "'plain '\\''one'\\'''", "a name without control characters keeps its single quotes");
    tr_buf_free(&b);
}

/* Lines of the fake's log for test idx with exactly this seed text. */
static int runs_of(const char *log, int idx, const char *seed) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%d %s ", idx, seed);
    return count_lines(log, prefix);
}

/* The failures file: a seed that is not one is dropped with a warning,
 * never read as seed 0; names with control characters round-trip;
 * duplicates go with the seed's pass. */
static void test_failures_file_input(void) {
    static const char *const bad[] = {"garbage", "-5", "12345678901234567890123", "9223372036854775808", "+7",
                                      "", "07x"};
    set_tests("sim|1|3|s|\n");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "# a comment\n%s\ts\n", bad[i]);
        write_pkg_file("oxl-test-failures.txt", text);
        reset_state();
        result r = run_env(NULL, ARGS(pkg, "--format", "json"));
        char *log = read_log();
        tap_contains(r.err, "oxl-test-failures.txt:2: not '<seed><tab><test name>'", "seed '%s': the line is named",
                     bad[i]);
        tap_is_int(runs_of(log, 0, "0"), 0, "seed '%s': not run as seed 0", bad[i]);
        tap_ok(strstr(r.out, "\"replayed\":true") == NULL, "seed '%s': no seed replayed", bad[i]);
        tap_ok(failures_file() == NULL, "seed '%s': dropped when the file is rewritten", bad[i]);
        free(log);
        free_result(&r);
    }
    write_pkg_file("oxl-test-failures.txt", "9223372036854775807\ts\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg));
    char *log = read_log();
    tap_is_int(runs_of(log, 0, "9223372036854775807"), 1, "2^63-1 is a seed, run first");
    free(log);
    free_result(&r);

    /* a name with control characters is written \xNN and read back */
    remove_failures();
    set_tests("sim|1|5|bell\a esc\033 del\177 s|fail@4\n");
    r = run_env(NULL, ARGS(pkg));
    char *f = failures_file();
    tap_ok(f && strstr(f, "\n4\tbell\\x07 esc\\x1b del\177 s\n"), "a control character is written \\xNN");
    free(f);
    free_result(&r);
    set_tests("sim|1|5|bell\a esc\033 del\177 s|\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    log = read_log();
    tap_ok(strstr(r.err, "not '<seed><tab><test name>'") == NULL, "and read back without a warning");
    tap_ok(strncmp(log, "0 4 ", 4) == 0, "the remembered seed 4 runs first");
    tap_ok(failures_file() == NULL, "it passed and is gone");
    free(log);
    free_result(&r);
    write_pkg_file("oxl-test-failures.txt", "1\tbad \\x00 escape\n2\tbad \\xzz\n3\tbad \\q\n");
    r = run_env(NULL, ARGS(pkg));
    tap_is_int(count_lines(r.err, "oxl test: warning: "), 3, "\\x00, \\xzz and \\q are bad escapes");
    free_result(&r);

    /* duplicates do not survive a passing run */
    set_tests("sim|1|5|s|\n");
    write_pkg_file("oxl-test-failures.txt", "3\ts\n3\ts\n5\tother\n5\tother\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    log = read_log();
    tap_is_int(runs_of(log, 0, "3"), 1, "a seed listed twice runs once");
    f = failures_file();
    tap_ok(f && !strstr(f, "\n3\t") && strstr(f, "\n5\tother\n") && !strstr(f, "\n5\tother\n5\tother\n"),
           "it passed: both lines are gone; another test's seed stays, once");
    free(f);
    free(log);
    free_result(&r);
    remove_failures();
}

/* Two runs at once, each failing its own seed: the file keeps both (a
 * lock, a merge with what is there, an atomic rename). */
static void test_failures_file_concurrent(void) {
    set_tests("sim|1|6|alpha|fail@3 delay=300@1\nsim|1|6|beta|fail@5 delay=300@1\n");
    int lost = 0;
    for (int round = 0; round < 3; round++) {
        remove_failures();
        write_pkg_file("oxl-test-failures.txt", "2\tgamma\n");
        double t0 = tr_now();
        pid_t a = run_start_as("a", NULL, ARGS(pkg, "--exact", "alpha", "-j", "1"), NULL);
        pid_t b = run_start_as("b", NULL, ARGS(pkg, "--exact", "beta", "-j", "1"), NULL);
        result ra = run_finish_as("a", a, t0), rb = run_finish_as("b", b, t0);
        char *f = failures_file();
        if (!(f && strstr(f, "\n3\talpha\n") && strstr(f, "\n5\tbeta\n") && strstr(f, "\n2\tgamma\n"))) lost++;
        if (round == 0) tap_ok(ra.status == 1 && rb.status == 1, "both runs failed (%d, %d)", ra.status, rb.status);
        free(f);
        free_result(&ra);
        free_result(&rb);
    }
    tap_is_int(lost, 0, "no run lost the other's seeds, nor one left alone (3 rounds)");
    bool leftovers = false;
    DIR *d = opendir(pkg);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "oxl-test-failures.txt", 21) == 0 && e->d_name[21]) leftovers = true;
    if (d) closedir(d);
    tap_ok(!leftovers, "no temporary or lock file is left in the package");
    remove_failures();
}

/* Waits (up to 10 s) until the fake's log has n runs of test idx. */
static void await_runs(int idx, int n) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%d ", idx);
    for (int i = 0; i < 1000; i++) {
        char *log = read_log();
        int k = count_lines(log, prefix);
        free(log);
        if (k >= n) return;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
}

/* A run stopped by SIGINT, SIGTERM or SIGHUP in the middle of a sweep:
 * the test that was running is interrupted (with the seeds it did), the
 * later ones not run, in every format, and the status is 130, never 0. */
static void test_interrupted_run(void) {
    static const struct {
        int sig;
        const char *format, *name;
    } cases[] = {{SIGINT, "human", "SIGINT"}, {SIGTERM, "tap", "SIGTERM"}, {SIGHUP, "json", "SIGHUP"}};
    set_tests("unit|-|-|u|\nsim|1|40|slow|delay=40\nsim|1|3|later|\n");
    char junit[TR_PATH];
    snprintf(junit, sizeof junit, "%s/interrupted.xml", work);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        remove_failures();
        reset_state();
        unlink(junit);
        double t0 = tr_now();
        pid_t pid = run_start(NULL, ARGS(pkg, "-j", "1", "--format", cases[i].format, "--junit", junit), NULL);
        await_runs(1, 6);
        kill(pid, cases[i].sig);
        result r = run_finish(pid, t0);
        const char *s = cases[i].name;
        tap_is_int(r.status, 130, "%s: status 130", s);
        char *log = read_log();
        tap_is_int(count_lines(log, "2 "), 0, "%s: the later test did not run", s);
        free(log);
        if (strcmp(cases[i].format, "human") == 0) {
            tap_contains(r.out, "ok   unit  u (", "%s: the unit test passed", s);
            tap_contains(r.out, "INTR sim   slow (interrupted after ", "%s: the sim test is interrupted", s);
            tap_contains(r.out, " of 40 seeds run)\n", "%s: with the seeds it ran", s);
            tap_contains(r.out, "skip sim   later (not run: interrupted)\n", "%s: the later one not run", s);
            tap_contains(r.out, "test result: INTERRUPTED. 1 passed, 0 failed, 1 interrupted, 1 not run;",
                         "%s: the summary", s);
            tap_ok(strstr(r.out, "test result: ok") == NULL && strstr(r.out, "ok   sim   slow") == NULL,
                   "%s: never a pass", s);
        } else if (strcmp(cases[i].format, "tap") == 0) {
            tap_contains(r.out, "ok 1 - u\n# Subtest: slow\n    ok 1 - seed 1\n", "%s: the seeds done", s);
            tap_contains(r.out, "not ok 2 - slow # interrupted after ", "%s: the sim test is not ok, interrupted", s);
            tap_contains(r.out, "\n  severity: interrupted\n", "%s: its YAML says so", s);
            tap_contains(r.out, "ok 3 - later # SKIP not run: interrupted\n", "%s: the later one skipped", s);
            tap_contains(r.out, "Bail out! interrupted\n", "%s: and the run bails out", s);
        } else {
            tap_ok(json_lines(r.out) > 0, "%s: valid JSON lines", s);
            tap_contains(r.out, "\"name\":\"slow\",\"result\":\"interrupted\",\"seeds\":40,\"seeds_run\":",
                         "%s: the sim test is interrupted, with its seeds run", s);
            tap_contains(r.out, "\"name\":\"later\",\"result\":\"skip\",\"reason\":\"interrupted\",",
                         "%s: the later one skipped for it", s);
            tap_contains(r.out, "\"interrupted\":1,", "%s: counted in the end event", s);
            tap_contains(r.out, "\"exit_status\":130}", "%s: with the status", s);
        }
        char *x = slurp(junit);
        tap_contains(x, "<testcase name=\"slow\" classname=\"pkg\"", "%s: JUnit has the test", s);
        tap_contains(x, "<skipped message=\"interrupted after ", "%s: JUnit: skipped, interrupted after its seeds", s);
        tap_contains(x, "<skipped message=\"not run: interrupted\"/>", "%s: JUnit: the later one not run", s);
        tap_ok(strstr(x, "skipped=\"2\"") != NULL, "%s: JUnit counts both as skipped", s);
        free(x);
        free_result(&r);
    }
    /* unit tests: the one that runs is interrupted, the next not run */
    set_tests("unit|-|-|quick|\nunit|-|-|hangs|hang\nunit|-|-|after|\n");
    reset_state();
    double t0 = tr_now();
    pid_t pid = run_start(NULL, ARGS(pkg, "-j", "1"), NULL);
    await_runs(1, 1);
    kill(pid, SIGINT);
    result r = run_finish(pid, t0);
    tap_is_int(r.status, 130, "a unit test interrupted: status 130");
    tap_contains(r.out, "ok   unit  quick (", "the unit test before it passed");
    tap_contains(r.out, "INTR unit  hangs (interrupted)\n", "the running one is interrupted");
    tap_contains(r.out, "skip unit  after (not run: interrupted)\n", "the next one not run");
    tap_contains(r.out, "test result: INTERRUPTED. 1 passed, 0 failed, 1 interrupted, 1 not run;", "the summary");
    free_result(&r);
    remove_failures();
}

/* The "seconds" of every seed event of a JSON report, into v (at most max). */
static int seed_seconds(const char *json, double *v, int max) {
    int n = 0;
    for (const char *p = json; (p = strstr(p, "{\"event\":\"seed\"")) && n < max; p++) {
        const char *s = strstr(p, "\"seconds\":");
        const char *eol = strchr(p, '\n');
        if (s && (!eol || s < eol)) v[n++] = strtod(s + 10, NULL);
    }
    return n;
}

/* A seed's seconds are its own time, fork to end, as the fork server
 * measures it: not the runner's moments of reading the answers, which
 * come late when the runner is slow (here: stopped, again and again). */
static void test_seed_seconds(void) {
    set_tests("sim|1|12|timed|delay=30\n");
    reset_state();
    double t0 = tr_now();
    pid_t pid = run_start(NULL, ARGS(pkg, "-j", "1", "--format", "json"), NULL);
    for (;;) {
        nanosleep(&(struct timespec){0, 30000000}, NULL);
        if (waitpid(pid, NULL, WNOHANG | WNOWAIT | WEXITED) == pid) break;
        kill(pid, SIGSTOP);
        nanosleep(&(struct timespec){0, 150000000}, NULL);
        kill(pid, SIGCONT);
        siginfo_t si = {0};
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) break;
    }
    result r = run_finish(pid, t0);
    double secs[32];
    int n = seed_seconds(r.out, secs, 32), off = 0;
    for (int i = 0; i < n; i++)
        /* the bound above is loose: a loaded machine makes a fork slow too,
         * and what matters is that no seed reports less than it slept */
        if (secs[i] < 0.029 || secs[i] > 2.0) {
            off++;
            tap_diag("seed %d: %.6f s", i + 1, secs[i]);
        }
    tap_is_int(n, 12, "twelve seed events");
    tap_is_int(off, 0, "each seed of 30 ms reports 30 ms or a little more, the runner stopped or not");
    free_result(&r);
}

/* exit 0 is a pass only with the run's report line: a seed (or unit
 * test) that exits 0 before its run ended, or a binary that never says
 * it ran, fails. */
static void test_early_exit(void) {
    set_tests("unit|-|-|u quits|exit0\nunit|-|-|u fine|\nsim|1|9|s quits|exit0@4\nsim|1|5|s fine|\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--no-fail-fast", "-j", "1"));
    tap_is_int(r.status, 1, "exit(0) before the end: status 1");
    tap_contains(r.out, "FAIL unit  u quits\ntest failed\ntest crashed: exit status 0 before its run ended (no ",
                 "a unit test that exits 0 early fails");
    tap_contains(r.out, "FAIL sim   s quits\nseed 4 failed (4 of 9 seeds run)\nseed 4 crashed: exit status 0 before its "
                        "run ended (no 'oxl-sim:' report line",
                 "a seed that exits 0 early fails");
    tap_contains(r.out, "ok   unit  u fine (", "a unit test that ends passes");
    tap_contains(r.out, "ok   sim   s fine (5 seeds", "and so does a sim test");
    tap_ok(strstr(r.out, "not deterministic") == NULL, "the early exit is deterministic");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "--exact", "s quits", "--format", "json"));
    tap_contains(r.out, "\"seed\":4,\"replayed\":true,\"result\":\"crash\",\"status\":0,", "JSON: a crash with status 0");
    free_result(&r);
    remove_failures();

    /* a binary that runs its tests but never says so */
    set_tests("unit|-|-|u|\nsim|1|3|s|\n");
    r = run_env(ENV("FAKE_HANDSHAKE=0"), ARGS(pkg, "--no-fail-fast"));
    tap_is_int(r.status, 1, "no report lines at all: status 1");
    tap_contains(r.out, "seed 1 crashed: exit status 0 before its run ended", "its first seed fails");
    tap_contains(r.out, "test crashed: exit status 0 before its run ended", "its unit test fails");
    tap_contains(r.out, "test result: FAILED. 0 passed, 2 failed", "nothing passes");
    free_result(&r);
    remove_failures();
}

/* The one binary in the cache (its path into buf); false when there is
 * not exactly one. */
static bool cached_binary(char *buf, size_t cap) {
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/test-binaries", cache);
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strlen(e->d_name) == 64) {
            if (tr_pathf(buf, cap, "%s/%s", dir, e->d_name)) n++;
        }
    if (d) closedir(d);
    return n == 1;
}

/* A cache entry that is empty or cut short is found out and built again;
 * a cache that cannot take the binary (full, read-only, not a directory)
 * leaves the run to a binary built in TMPDIR, with a note that says why. */
static void test_cache_entries(void) {
    set_tests("unit|-|-|u|\nsim|1|3|s|\n");
    static const struct {
        const char *what;
        int keep_num, keep_den; /* of the entry's size */
    } damage[] = {{"a zero-byte cache entry", 0, 1}, {"a cache entry cut to half", 1, 2},
                  {"a cache entry missing its last byte", -1, 1}};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        tr_remove_tree(cache);
        result r = run_env(NULL, ARGS(pkg));
        free_result(&r);
        char bin[TR_PATH];
        struct stat st;
        bool one = cached_binary(bin, sizeof bin) && stat(bin, &st) == 0;
        off_t keep = damage[i].keep_num < 0 ? st.st_size - 1 : st.st_size * damage[i].keep_num / damage[i].keep_den;
        if (one) (void)!truncate(bin, keep);
        int b0 = count_builds();
        r = run_env(NULL, ARGS(pkg));
        const char *w = damage[i].what;
        tap_is_int(r.status, 0, "%s: the run passes", w);
        tap_contains(r.err, "oxl test: warning: the cached test binary '", "%s: is named", w);
        tap_contains(r.err, "' is damaged (", "%s: as damaged", w);
        tap_is_int(count_builds(), b0 + 1, "%s: and built again", w);
        struct stat st2;
        tap_ok(one && stat(bin, &st2) == 0 && st2.st_size == st.st_size, "%s: the entry is whole again", w);
        free_result(&r);
        b0 = count_builds();
        r = run_env(NULL, ARGS(pkg));
        tap_ok(r.status == 0 && count_builds() == b0 && !strstr(r.err, "damaged"), "%s: the next run uses it", w);
        free_result(&r);
    }

    result r;
    /* an entry that is a whole ELF file but not a test binary: another
     * program in its place lists nothing (or fails to list), which would
     * be "no tests" (or status 3) at every later run; found out by the
     * --list handshake and built again, once */
    static const struct {
        const char *prog, *why;
    } impostor[] = {{"/bin/true", "is damaged (its --list has no 'oxl-list: tests=<n>' line on stderr"},
                    {"/bin/ls", "is damaged (its --list exited with status 2); building it again"}};
    for (size_t i = 0; i < sizeof impostor / sizeof impostor[0]; i++) {
        const char *w = impostor[i].prog;
        tr_remove_tree(cache);
        r = run_env(NULL, ARGS(pkg));
        free_result(&r);
        char bin[TR_PATH];
        struct stat st;
        bool one = cached_binary(bin, sizeof bin) && stat(bin, &st) == 0;
        tap_ok(one && unlink(bin) == 0 && tr_copy_file(impostor[i].prog, bin, 0755), "%s in the cache entry's place", w);
        int b0 = count_builds();
        r = run_env(NULL, ARGS(pkg));
        tap_is_int(r.status, 0, "%s as the cached binary: the run passes", w);
        tap_contains(r.err, impostor[i].why, "%s: found out by its --list", w);
        tap_ok(!strstr(r.err, "has no tests"), "%s: not taken for a package without tests", w);
        tap_is_int(count_builds(), b0 + 1, "%s: built again once", w);
        struct stat st2;
        tap_ok(stat(bin, &st2) == 0 && st2.st_size == st.st_size, "%s: the entry is the test binary again", w);
        if (r.status) show(&r);
        free_result(&r);
        b0 = count_builds();
        r = run_env(NULL, ARGS(pkg));
        tap_ok(r.status == 0 && count_builds() == b0 && !strstr(r.err, "damaged"), "%s: the next run uses it", w);
        free_result(&r);
    }
    /* a binary whose --list fails whether cached or built: built again
     * once, then the failure is said (no loop) */
    {
        tr_remove_tree(cache);
        r = run_env(NULL, ARGS(pkg));
        free_result(&r);
        int b0 = count_builds();
        r = run_env(ENV("FAKE_LIST=fail"), ARGS(pkg));
        tap_is_int(r.status, 3, "a cached binary whose --list fails, and so does the rebuilt one: status 3");
        tap_contains(r.err, "is damaged (its --list exited with status 1); building it again", "it was built again");
        tap_contains(r.err, "oxl test: the test binary's --list exited with status 1\nfake_testbin: cannot list",
                     "then the rebuilt one's failure is said");
        tap_is_int(count_builds(), b0 + 1, "one build, not a loop");
        free_result(&r);
    }

    /* a cache directory that cannot be made: the note names it and why */
    char notdir[TR_PATH], env[TR_PATH + 32];
    snprintf(notdir, sizeof notdir, "%s/a-file", work);
    tr_write_file(notdir, "", 0, 0644);
    snprintf(env, sizeof env, "OXL_CACHE_DIR=%s/cache", notdir);
    r = run_env(ENV(env), ARGS(pkg));
    tap_is_int(r.status, 0, "a cache directory that cannot be made: the run passes");
    tap_contains(r.err, "oxl test: note: cannot use the cache directory '", "its note names the directory");
    tap_contains(r.err, "' (from OXL_CACHE_DIR): Not a directory; building in TMPDIR", "where it came from, and why");
    tap_ok(strstr(r.err, "set OXL_CACHE_DIR") == NULL, "and does not ask for a variable that is set");
    free_result(&r);
    r = run_env(ENV("OXL_CACHE_DIR", "XDG_CACHE_HOME", "HOME"), ARGS(pkg));
    tap_is_int(r.status, 0, "no cache directory at all: the run passes");
    tap_contains(r.err, "oxl test: note: no cache directory (OXL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset); "
                        "building in TMPDIR",
                 "the note says which variables are unset");
    free_result(&r);

    /* a full cache and a read-only one (each a tmpfs of the run's own) */
    tr_remove_tree(cache);
    mkdir(cache, 0755);
    r = run_env(ENV("HARNESS_CACHE=8k"), ARGS(pkg));
    if (r.status == HARNESS_NO_NAMESPACE) {
        tap_skip("no mount namespace for a tmpfs of the run's own", "a full cache filesystem");
    } else {
        tap_is_int(r.status, 0, "a full cache filesystem: the run passes");
        tap_contains(r.err, "oxl test: note: cannot store the test binary in the cache '", "a note names the cache");
        tap_contains(r.err, "No space left on device; running it from TMPDIR", "and says why");
        if (r.status) show(&r);
    }
    free_result(&r);
    r = run_env(ENV("HARNESS_CACHE=ro"), ARGS(pkg));
    if (r.status == HARNESS_NO_NAMESPACE) {
        tap_skip("no mount namespace for a tmpfs of the run's own", "a read-only cache filesystem");
    } else {
        tap_is_int(r.status, 0, "a read-only cache filesystem: the run passes");
        tap_contains(r.err, "Read-only file system; running it from TMPDIR", "the note says why");
        tap_ok(strstr(r.err, "set OXL_CACHE_DIR") == NULL, "and blames no variable");
    }
    free_result(&r);
    tap_ok(dir_empty(tmpd), "the TMPDIR builds are removed");
    tr_remove_tree(cache);
}

/* The pid in FAKE_STATE_DIR/name, or 0. */
static long recorded_pid(const char *name) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/%s", state, name);
    char *s = slurp(p);
    long pid = atol(s);
    free(s);
    return pid;
}

/* Whether every pid of the list is gone within seconds. */
static bool all_gone(const long *pids, int n, double seconds) {
    double until = tr_now() + seconds;
    for (;;) {
        bool any = false;
        for (int i = 0; i < n; i++)
            if (pids[i] > 0 && alive(pids[i])) any = true;
        if (!any) return true;
        if (tr_now() > until) return false;
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
}

/* The soft CPU-time limit of a live process in seconds; -1 for none or
 * for a process that is gone. */
static long cpu_limit(long pid) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/limits", pid);
    char *lim = read_proc(p, NULL);
    if (!lim) return -1;
    const char *cpu = strstr(lim, "Max cpu time");
    long v = cpu && strncmp(cpu + 26, "unlimited", 9) != 0 ? atol(cpu + 26) : -1;
    free(lim);
    return alive(pid) ? v : -1;
}

/* `oxl test` killed with SIGKILL while a seed spins and has a child that
 * left its session and spins too: nothing of the run is left. A server
 * learns of the runner's death and kills every child it has, also the
 * one that left (which it adopted as a subreaper); a spawned process (a
 * binary that cannot serve) carries a CPU limit a little above the run's
 * timeout instead (set right after the spawn: best effort for what it
 * forks at once), and the kernel ends it there: checked by the limit,
 * since how soon a spinning process spends 2 s of CPU depends on the
 * machine's load. */
static void test_sigkill_leaves_nothing(void) {
    static const struct {
        const char *env[3], *what;
        bool at_once;
    } cases[] = {
        {{NULL}, "the run's fork server", true},
        {{"OXL_TEST_FORK_SERVER=0", NULL}, "a server per process (OXL_TEST_FORK_SERVER=0)", true},
        {{"FAKE_SERVE=refuse", NULL}, "a binary that cannot serve (spawned)", false},
    };
    set_tests("sim|1|3|spins|spinchild@2\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset_state();
        double t0 = tr_now();
        pid_t pid = run_start(cases[i].env, ARGS(pkg, "-j", "1", "-t", "0.5"), NULL);
        for (int k = 0; k < 500 && (!recorded_pid("seed-2") || !recorded_pid("child-2")); k++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        /* a spawned process gets its limit from the runner just after it
         * starts, and it may record its pid first: the runner is killed
         * once the limit is there, as it is a moment after every spawn */
        for (int k = 0; k < 500 && !cases[i].at_once && recorded_pid("seed-2") > 0 &&
                        cpu_limit(recorded_pid("seed-2")) < 0;
             k++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        kill(pid, SIGKILL);
        result r = run_finish(pid, t0);
        const char *w = cases[i].what;
        long pids[2] = {recorded_pid("seed-2"), recorded_pid("child-2")};
        tap_ok(r.status == 128 + SIGKILL && pids[0] > 0 && pids[1] > 0, "%s: the seed and its child ran (%ld, %ld)", w,
               pids[0], pids[1]);
        if (cases[i].at_once) {
            double t1 = tr_now();
            bool gone = all_gone(pids, 2, 2);
            tap_ok(gone, "%s: the seed and its setsid'd child are gone (%.2f s)", w, tr_now() - t1);
        } else {
            /* the runner sets the limit right after the spawn: what the
             * process forks before that escapes it (a machine under load
             * may let it), so only the process itself is held to it */
            long lim = cpu_limit(pids[0]);
            if (alive(pids[0])) tap_diag("pid %ld is left with a CPU limit of %ld s", pids[0], lim);
            tap_ok(!alive(pids[0]) || (lim > 0 && lim <= 3), "%s: the process left ends within 3 s of CPU time", w);
        }
        for (int k = 0; k < 2; k++)
            if (pids[k] > 0 && alive(pids[k])) kill((pid_t)pids[k], SIGKILL); /* no need to wait for the limit */
        all_gone(pids, 2, 2);
        /* a server ends once it has killed and reaped all it had */
        double until = tr_now() + 3;
        while (servers_left() && tr_now() < until) nanosleep(&(struct timespec){0, 20000000}, NULL);
        tap_is_int(servers_left(), 0, "%s: no fork server is left", w);
        free_result(&r);
    }
    tr_remove_tree(tmpd); /* what the killed runners could not remove */
    mkdir(tmpd, 0755);
}

/* A seed that kills its parent: its parent is a fork server, never the
 * runner (in the determinism re-run a server of its own), so the runner
 * lives, reports it and writes the failures file. */
static void test_seed_kills_parent(void) {
    static const struct {
        const char *env[3], *what;
    } cases[] = {
        {{NULL}, "the run's fork server"},
        {{"OXL_TEST_FORK_SERVER=0", NULL}, "a server per process"},
    };
    set_tests("sim|1|5|hostile|killparent@3\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        remove_failures();
        reset_state();
        result r = run_env(cases[i].env, ARGS(pkg, "-j", "1", "-t", "20"));
        const char *w = cases[i].what;
        tap_is_int(r.status, 1, "%s: the runner lives and reports a failure", w);
        tap_contains(r.out, "seed 3 failed (3 of 5 seeds run)\n", "%s: the seed", w);
        tap_contains(r.out, "seed 3 crashed: SIGKILL, with the fork server that ran it", "%s: how it ended", w);
        tap_ok(strstr(r.out, "not deterministic") == NULL, "%s: the same way twice", w);
        tap_contains(r.out, "test result: FAILED. 0 passed, 1 failed", "%s: the summary", w);
        char *f = failures_file();
        tap_ok(f && strstr(f, "\n3\thostile\n"), "%s: the failures file has it", w);
        free(f);
        if (r.status != 1) show(&r);
        free_result(&r);
    }
    /* a server learns of its runner's end (its input closes) and exits
     * on its own time: given a moment, as test_sigkill_leaves_nothing
     * gives it, so a loaded machine is not a leak */
    double until = tr_now() + 3.0;
    while (servers_left() && tr_now() < until) nanosleep(&(struct timespec){0, 20000000}, NULL);
    tap_is_int(servers_left(), 0, "no fork server is left");
    remove_failures();
    /* the race above made certain: a server that dies with a request in
     * hand (its child killed it before it could say the pid) is no sign
     * the binary cannot serve, so no later process becomes the runner's
     * own child, where a seed that kills its parent would kill the runner */
    set_tests("sim|1|3|s|\n");
    result r = run_env(ENV("FAKE_SERVE=vanish"), ARGS(pkg, "-j", "1", "-t", "20"));
    tap_is_int(r.status, 1, "a server that dies with the request: the seed fails");
    tap_contains(r.out, "seed 1 crashed: SIGKILL, with the fork server that ran it", "as crashed with its server");
    tap_ok(strstr(r.err, "posix_spawn") == NULL, "and no process is spawned by the runner itself");
    if (r.status != 1) show(&r);
    free_result(&r);
    remove_failures();
}

/* Reads one line of the server's answers (up to 5 s); "" at its end. */
static void read_answer(int fd, char *line, size_t cap) {
    size_t n = 0;
    double until = tr_now() + 5;
    while (n + 1 < cap && tr_now() < until) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) continue;
        char c;
        if (read(fd, &c, 1) != 1) break;
        if (c == '\n') break;
        line[n++] = c;
    }
    line[n] = '\0';
}

/* The server kills a process at the request's limit itself, so none
 * outlives it when the runner is stopped; a bad limit is refused. */
static void test_server_limit(void) {
    set_tests("sim|1|3|hangs|hang\n");
    setenv("FAKE_STATE_DIR", state, 1);
    int in[2], out[2];
    /* close-on-exec: the server must not hold its own input open */
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) tap_bail("pipe");
    char err[TR_PATH];
    snprintf(err, sizeof err, "%s/serve.err", work);
    pid_t srv;
    int e = tr_spawn(&srv, FAKE_TESTBIN, "--serve", NULL, in[0], out[1], NULL, err);
    close(in[0]);
    close(out[1]);
    tap_is_int(e, 0, "the fake's server starts");
    char line[512], data[TR_PATH];
    read_answer(out[0], line, sizeof line);
    tap_is_str(line, "ready", "and is ready");
    snprintf(data, sizeof data, "%s/limit-data", work); /* made by the process, on first use */
    tr_buf b = {0};
    tr_buf_printf(&b, "0\t1\t1\t%s/l.out\t%s/l.err\t%s\t0.4\n", work, work, data);
    tr_buf_printf(&b, "0\t1\t1\t%s/m.out\t%s/m.err\t%s\tsoon\n", work, work, data);
    double t0 = tr_now();
    (void)!write(in[1], b.s, b.len);
    tr_buf_free(&b);
    read_answer(out[0], line, sizeof line);
    tap_ok(strncmp(line, "pid ", 4) == 0, "a request with a limit of 0.4 s: %s", line);
    read_answer(out[0], line, sizeof line);
    tap_contains(line, "error malformed request: the limit is not '-' or seconds above 0", "a limit of 'soon' is refused");
    read_answer(out[0], line, sizeof line);
    double took = tr_now() - t0;
    long pid;
    int st = -1;
    sscanf(line, "status %ld %d", &pid, &st);
    tap_ok(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the hanging process is killed (%s)", line);
    tap_ok(took >= 0.35 && took < 3, "at its limit (%.2f s)", took);
    close(in[1]);
    read_answer(out[0], line, sizeof line);
    int sst;
    waitpid(srv, &sst, 0);
    tap_ok(WIFEXITED(sst) && WEXITSTATUS(sst) == 0, "the server ends at the end of its input");
    close(out[0]);
    tr_remove_tree(data);
}

/* A seed that ran out of a resource (exit 102) fails as exhausted, named
 * so in every format; and when its re-run does not run out (a served and
 * an exec'd process have different mappings), that is no nondeterminism. */
static void test_exhausted_seed(void) {
    char junit[TR_PATH];
    snprintf(junit, sizeof junit, "%s/exhausted.xml", work);
    set_tests("sim|1|5|big|exhaust@3\n");
    remove_failures();
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "-j", "1", "--junit", junit));
    tap_is_int(r.status, 1, "an exhausted seed: status 1 (no pass)");
    tap_contains(r.out, "seed 3 failed (3 of 5 seeds run)\nseed 3 ran out of a resource (exit status 102): no verdict on "
                        "the test; its report says what ran out\n",
                 "named as a resource that ran out");
    tap_contains(r.out, "resource exhausted: cannot have a 1048576 byte task stack", "with the report");
    tap_ok(strstr(r.out, "not deterministic") == NULL, "deterministic when both runs ran out");
    char *x = slurp(junit);
    tap_contains(x, "type=\"exhausted\"", "JUnit: the failure's type is exhausted");
    free(x);
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "-j", "1", "--format", "json"));
    tap_contains(r.out, "\"seed\":3,\"replayed\":true,\"result\":\"exhausted\",\"status\":102,", "JSON: result exhausted");
    free_result(&r);

    set_tests("sim|1|5|big|exhaustonce@3\n");
    remove_failures();
    reset_state();
    r = run_env(NULL, ARGS(pkg, "-j", "1"));
    tap_is_int(r.status, 1, "a seed that ran out once: status 1, not 5");
    tap_ok(strstr(r.out, "not deterministic") == NULL && strstr(r.out, "NOT DETERMINISTIC") == NULL,
           "not called nondeterministic");
    tap_contains(r.out, "note: not compared for determinism: a run ran out of a resource (the re-run gave exit status 0",
                 "the note says why the runs were not compared");
    free_result(&r);
    r = run_env(NULL, ARGS(pkg, "-j", "1", "--format", "json", "--exact", "big"));
    free_result(&r);
    remove_failures();
}

int main(void) {
    harness_init("runner-life-test");
    test_seed_not_replayed();
    test_time_limit_variable();
    test_reproduce_quoting();
    test_failures_file_input();
    test_failures_file_concurrent();
    test_interrupted_run();
    test_seed_seconds();
    test_early_exit();
    test_cache_entries();
    test_sigkill_leaves_nothing();
    test_seed_kills_parent();
    test_server_limit();
    test_exhausted_seed();
    return harness_done();
}
