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

int main(void) {
    harness_init("runner-life-test");
    test_seed_not_replayed();
    test_time_limit_variable();
    test_reproduce_quoting();
    return harness_done();
}
