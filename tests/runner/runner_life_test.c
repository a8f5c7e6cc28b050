/* runner_life_test: the lifecycle of `oxl test`'s processes and runs,
 * against fake_testbin (harness.h): what a seed that ends early, kills
 * its parent or leaves processes behind comes to, interrupted runs, the
 * failures file under bad input and concurrent runs, damaged cache
 * entries, and the smaller promises of the reports (seeds, names,
 * timings). */
#define _XOPEN_SOURCE 700
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
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
                                      "OXL_SIM_TIME_LIMIT=0", "OXL_SIM_TIME_LIMIT=1e99"};
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
    result r = run_env(ENV("OXL_SIM_TIME_LIMIT=2.5"), ARGS(pkg));
    tap_is_int(r.status, 0, "OXL_SIM_TIME_LIMIT=2.5 is fine");
    free_result(&r);
}

int main(void) {
    harness_init("runner-life-test");
    test_seed_not_replayed();
    test_time_limit_variable();
    return harness_done();
}
