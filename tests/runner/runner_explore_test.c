/* runner_explore_test: `oxl test --in-process` against fake_testbin's
 * explorer (its --explore, the runtime's own loop): seeds that pass run
 * in the explorer only; a failing seed is confirmed in a fresh process
 * and reported from there; a canary that runs differently, or a seed that
 * fails only in the explorer, stops the mode with `state leaked between
 * seeds` and the sweep goes on in process mode; an explorer that crashes
 * costs the seed it ran, which a fresh process decides; bad settings are
 * refused by name. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* Lines of log for test 0's seed seed run in the explorer, and in
 * processes ("<index> <seed> <pid> ..." for a process). */
static void where(const char *log, int seed, int *explored, int *processes) {
    char pre[64];
    int plen = snprintf(pre, sizeof pre, "0 %d ", seed);
    *explored = *processes = 0;
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= (size_t)plen && strncmp(p, pre, (size_t)plen) == 0) {
            if (len == (size_t)plen + 7 && strncmp(p + plen, "explore", 7) == 0) ++*explored;
            else ++*processes;
        }
        p += len + (nl ? 1 : 0);
    }
}

static void test_passing_sweep(void) {
    set_tests("sim|1|60|sweep|\n");
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--in-process", "-j", "1"));
    tap_is_int(r.status, 0, "a passing sweep passes in process");
    tap_contains(r.out, "test result: ok. 1 passed, 0 failed", "and says so");
    char *log = read_log();
    int ex = 0, pr = 0, all_ex = 0, all_pr = 0;
    for (int s = 1; s <= 60; s++) {
        where(log, s, &ex, &pr);
        all_ex += ex == 1;
        all_pr += pr;
    }
    tap_is_int(all_ex, 60, "every seed ran once in the explorer");
    tap_is_int(all_pr, 0, "and none in a process of its own");
    /* the canary (its first seed, every 100 seeds by default): 60 seeds, none */
    free(log);
    free_result(&r);

    /* the canary runs every OXL_TEST_CANARY_EVERY seeds */
    reset_state();
    r = run_env(ENV("OXL_TEST_CANARY_EVERY=10"), ARGS(pkg, "--in-process", "-j", "1"));
    tap_is_int(r.status, 0, "with a canary every 10 seeds it passes");
    log = read_log();
    where(log, 1, &ex, &pr);
    tap_is_int(ex, 6, "seed 1, the canary, ran once and again after every 10 seeds after it: 1 + 5 times");
    free(log);
    free_result(&r);

    /* one explorer a job, the seeds reported in order */
    set_tests("sim|1|300|sweep|\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--in-process", "-j", "2", "--format", "json"));
    tap_is_int(r.status, 0, "-j 2: two explorers pass a sweep");
    log = read_log();
    where(log, 1, &ex, &pr);
    int first = ex;
    where(log, 65, &ex, &pr);
    tap_ok(first >= 1 && ex >= 1, "seeds 1 and 65 each ran in an explorer (%d, %d)", first, ex);
    free(log);
    bool in_order = true;
    long last = 0;
    for (const char *p = r.out; (p = strstr(p, "\"event\":\"seed\"")); p++) {
        const char *sd = strstr(p, "\"seed\":");
        long sdv = sd ? strtol(sd + 7, NULL, 10) : -1;
        if (sdv != last + 1) in_order = false;
        last = sdv;
    }
    tap_ok(in_order && last == 300, "and the 300 seeds are reported in order (last %ld)", last);
    free_result(&r);
}

static void test_failing_seed(void) {
    set_tests("sim|1|60|sweep|fail@17 out\n");
    remove_failures();
    reset_state();
    result r = run_env(NULL, ARGS(pkg, "--in-process"));
    tap_is_int(r.status, 1, "a failing seed fails the run");
    tap_contains(r.out, "seed 17 failed (17 of 60 seeds run)", "the first failing seed, counted as in process mode");
    tap_contains(r.out, "--- stderr of seed 17 ---", "with the stderr of its fresh process");
    tap_contains(r.out, "assertion failed: fake failure at seed 17", "as that process wrote it");
    char *log = read_log();
    int ex, pr;
    where(log, 17, &ex, &pr);
    tap_is_int(ex, 1, "it failed in the explorer once");
    tap_is_int(pr, 2, "and ran in two fresh processes: the confirmation and the determinism re-run");
    where(log, 18, &ex, &pr);
    tap_is_int(pr, 0, "nothing after it ran in a process (the explorer may have run it ahead, unreported)");
    tap_ok(strstr(r.out, "seed 18") == NULL, "nor is said");
    free(log);
    free_result(&r);
    remove_failures();
}

static void test_leaks(void) {
    /* a canary that runs differently */
    set_tests("sim|1|400|leaky|leak\n");
    reset_state();
    result r = run_env(ENV("OXL_TEST_CANARY_EVERY=10"), ARGS(pkg, "--in-process", "-j", "1"));
    tap_is_int(r.status, 0, "a leaking test still gets its verdict (from process mode)");
    tap_contains(r.err, "oxl test: error: --in-process: state leaked between seeds in 'leaky': seed 1 ran again",
                 "the leak is an error naming the test and the canary seed");
    tap_contains(r.err, "the rest of its seeds run in process mode", "and says what happens next");
    char *log = read_log();
    int ex, pr;
    where(log, 400, &ex, &pr);
    tap_ok(pr == 1, "the last seed ran in a process of its own (%d, %d)", ex, pr);
    where(log, 5, &ex, &pr);
    tap_ok(ex == 1 && pr == 0, "an early one in the explorer (%d, %d)", ex, pr);
    free(log);
    free_result(&r);

    /* a seed that fails only in the explorer */
    set_tests("sim|1|40|sometimes|explorefail@9\n");
    remove_failures();
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--in-process", "-j", "1"));
    tap_is_int(r.status, 0, "a seed that passes in a fresh process passes");
    tap_contains(r.err, "state leaked between seeds in 'sometimes': seed 9 did not pass in the explorer and passes in a "
                        "fresh process",
                 "and the difference is the leak error");
    log = read_log();
    where(log, 10, &ex, &pr);
    tap_ok(pr == 1, "the seeds after it run in process mode (%d, %d)", ex, pr);
    free(log);
    free_result(&r);

    /* an explorer that crashes: the seed runs in a fresh process, which decides */
    set_tests("sim|1|40|crashy|crash@6\n");
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--in-process", "-j", "1"));
    tap_is_int(r.status, 0, "an explorer that crashed on a seed that passes in a fresh process: a pass");
    tap_contains(r.err, "seed 6 did not pass in the explorer", "said as a difference");
    log = read_log();
    where(log, 6, &ex, &pr);
    tap_ok(ex == 1 && pr == 1, "seed 6 ran in both (%d, %d)", ex, pr);
    free(log);
    free_result(&r);

    /* a crash in both: reported as in process mode */
    set_tests("sim|1|40|crashy|crash@6 segv@6\n");
    remove_failures();
    reset_state();
    r = run_env(NULL, ARGS(pkg, "--in-process"));
    tap_is_int(r.status, 1, "a seed that crashes the explorer and its fresh process fails");
    tap_contains(r.out, "seed 6 crashed: SIGSEGV", "reported as process mode reports it");
    free_result(&r);
    remove_failures();
}

static void test_refusals(void) {
    set_tests("sim|1|5|sweep|\n");
    reset_state();
    result r = run_env(ENV("OXL_TEST_CANARY_EVERY=0"), ARGS(pkg, "--in-process"));
    tap_is_int(r.status, 2, "OXL_TEST_CANARY_EVERY=0 is a usage error");
    tap_contains(r.err, "OXL_TEST_CANARY_EVERY='0' is not a number of seeds from 1 to 1000000000", "by name");
    free_result(&r);
    reset_state();
    r = run_env(ENV("FAKE_EXPLORE=refuse"), ARGS(pkg, "--in-process"));
    tap_is_int(r.status, 0, "a binary that cannot explore still runs its seeds");
    tap_contains(r.err, "--in-process: the test binary did not explore (its explorer ended before its first answer)",
                 "in process mode, said");
    char *log = read_log();
    int ex, pr;
    where(log, 5, &ex, &pr);
    tap_ok(ex == 0 && pr == 1, "each in a process (%d, %d)", ex, pr);
    free(log);
    free_result(&r);
    tap_is_int(servers_left(), 0, "no fork server or explorer is left");
}

int main(void) {
    harness_init("runner-explore-test");
    test_passing_sweep();
    test_failing_seed();
    test_leaks();
    test_refusals();
    return harness_done();
}
