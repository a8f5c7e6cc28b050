/* runner_timeline_test.c: `oxl test --timeline` against fake_testbin
 * (docs/testing.md, Timeline): its flag's misuse said before the build,
 * and a binary that writes no trace dump (the fake ignores
 * OXL_SIM_TRACE_DUMP) said after the run, never a page or a pass. The
 * page itself is tests/runner/timeline.sh's, with real test binaries. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_misuse(void) {
    char dir_page[1100], nodir_page[1100];
    snprintf(dir_page, sizeof dir_page, "%s", work);
    snprintf(nodir_page, sizeof nodir_page, "%s/no/such/dir/run.html", work);
    const struct {
        const char *args[8];
        const char *msg;
    } cases[] = {
        {{"--timeline"}, "--timeline needs a value"},
        {{"--timeline="}, "--timeline needs a file name"},
        {{"--timeline", "run.html"}, "--timeline draws one seed of one test: it needs --exact NAME and --seed N"},
        {{"--timeline", "run.html", "--exact", "passes"}, "it needs --exact NAME and --seed N"},
        {{"--timeline", "run.html", "--seed", "3"}, "it needs --exact NAME and --seed N"},
        {{"--timeline", "run.html", "--exact", "passes", "--seed", "3", "--list"},
         "--timeline runs a seed; it cannot be used with --list"},
        {{"--timeline", dir_page, "--exact", "passes", "--seed", "3"}, "is a directory; it takes the HTML file to write"},
        {{"--timeline", nodir_page, "--exact", "passes", "--seed", "3"}, "cannot be written: no directory"},
    };
    int builds = count_builds();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[10] = {pkg};
        int n = 1;
        for (int k = 0; k < 8 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        result r = run_env(NULL, argv);
        tap_is_int(r.status, 2, "misuse %zu: a usage error", i + 1);
        tap_contains(r.err, cases[i].msg, "misuse %zu: named", i + 1);
        free_result(&r);
    }
    tap_is_int(count_builds(), builds, "every misuse is said before the test binary is built");
}

static void test_no_dump(void) {
    char page[1100];
    snprintf(page, sizeof page, "%s/pass.html", work);
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--exact", "passes", "--seed", "3", "--timeline", page));
    tap_is_int(r.status, 2, "a binary that writes no dump: a passing seed ends in a usage error");
    tap_contains(r.out, "ok   sim   passes", "the seed's own report stands");
    tap_contains(r.err, "oxl test: the timeline's run of seed 3: it wrote no trace dump", "said");
    tap_ok(access(page, F_OK) != 0, "no page is left");
    char *log = read_log();
    /* the seed, then the timeline's run of it: exec'd, with the report on */
    tap_is_int(count_lines(log, "0 3 "), 2, "the seed ran twice");
    int shared_n = 0, own_n = 0, exec_n = 0;
    count_via(log, 0, 3, &shared_n, &own_n, &exec_n);
    tap_is_int(exec_n, 1, "the timeline's run is exec'd (its environment carries the dump's path)");
    free(log);
    free_result(&r);

    snprintf(page, sizeof page, "%s/fail.html", work);
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--exact", "fails", "--seed", "3", "--timeline", page));
    tap_is_int(r.status, 1, "a failing seed keeps its status 1");
    tap_contains(r.err, "wrote no trace dump", "and the missing dump is said");
    tap_ok(access(page, F_OK) != 0, "no page is left");
    free_result(&r);

    /* exported by hand, the variable reaches no seed of a run: the fake
     * would fail on it (FAKE_TESTS rule nodumpvar) */
    char var[1200];
    snprintf(var, sizeof var, "OXL_SIM_TRACE_DUMP=%s/exported", work);
    set_tests("sim|1|10|passes|nodumpvar\n");
    r = run_env(ENV(var), ARGS(pkg, "--seeds", "1..4", "-j", "2"));
    tap_is_int(r.status, 0, "OXL_SIM_TRACE_DUMP in oxl test's environment reaches no seed");
    free_result(&r);
    set_tests("sim|1|10|passes|\nsim|1|10|fails|fail@3\nunit|-|-|u|\n");

    r = run_env(NULL, ARGS(pkg, "--exact", "nosuch", "--seed", "3", "--timeline", page));
    tap_is_int(r.status, 4, "--timeline of a test that does not exist: no test matched");
    free_result(&r);
}

int main(void) {
    harness_init("runner-timeline-test");
    set_tests("sim|1|10|passes|\nsim|1|10|fails|fail@3\nunit|-|-|u|\n");
    test_misuse();
    int builds = count_builds();
    test_no_dump();
    tap_ok(count_builds() > builds, "a run without misuse builds (so the count above can move)");
    return harness_done();
}
