/* tr_gdb.c: `oxl test --gdb --exact NAME [--seed N] [-- gdb-args]`: the
 * one selected test (a sim test's one seed) run under gdb in the
 * foreground, with the environment the runner gives its processes
 * (OXL_TEST_RUN, OXL_TEST_SEED, OXL_SIM_REPORT=1, OXL_DATA_DIR, the run's
 * OXL_SIM_POLICY and OXL_SIM_PCT_DEPTH), so a failure seen in a report
 * can be stepped through, and a breakpoint on the runtime's one panic
 * entry (oxl_panic_at), so `run` stops where the panic is, with the
 * panicking task's stack, before the run ends. The arguments after `--`
 * go to gdb after that breakpoint, before the program (`-batch -ex run
 * -ex bt`). */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every panic (assert, panic(), a runtime check, a std.test control's
 * misuse) goes through it (runtime/include/oxl_rt.h). */
#define TR_GDB_PANIC_ENTRY "oxl_panic_at"

int tr_run_gdb(tr_runner *r) {
    if (r->nsel != 1) {
        fprintf(stderr,
                "oxl test: --gdb runs one test: %zu match (name it with --exact NAME, and a sim test's seed with "
                "--seed N)\n",
                r->nsel);
        return TR_EXIT_USAGE;
    }
    const tr_test *t = r->sel[0];
    if (t->sim && !r->o.has_seed) {
        fprintf(stderr, "oxl test: --gdb: '%s' is a sim test: name the seed to debug with --seed N\n", t->shown);
        return TR_EXIT_USAGE;
    }
    char data[TR_PATH];
    if (!tr_pathf(data, sizeof data, "%s/gdb-data", r->tmp) || mkdir(data, 0700) != 0) {
        fprintf(stderr, "oxl test: cannot create '%s': %s\n", data, strerror(errno));
        return TR_EXIT_USAGE;
    }
    size_t n = (size_t)r->o.gdb_nargs;
    const char **argv = tr_xmalloc((n + 6) * sizeof *argv);
    size_t k = 0;
    argv[k++] = "gdb";
    argv[k++] = "-ex";
    argv[k++] = "break " TR_GDB_PANIC_ENTRY;
    for (size_t i = 0; i < n; i++) argv[k++] = r->o.gdb_args[i];
    argv[k++] = "--args";
    argv[k++] = r->bin;
    argv[k] = NULL;
    char run[32], seed[48];
    snprintf(run, sizeof run, "%d", t->index);
    snprintf(seed, sizeof seed, "%" PRIu64, r->o.seed);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "oxl test: cannot fork: %s\n", strerror(errno));
        free(argv);
        return TR_EXIT_USAGE;
    }
    if (pid == 0) {
        setenv("OXL_TEST_RUN", run, 1);
        if (t->sim) setenv("OXL_TEST_SEED", seed, 1);
        else unsetenv("OXL_TEST_SEED");
        setenv("OXL_SIM_REPORT", "1", 1);
        setenv("OXL_DATA_DIR", data, 1);
        /* the run's policy and the rest a sim process gets (NAME=VALUE
         * set, a bare NAME unset), as tr_batch gives them */
        for (size_t i = 0; r->sim_env[i]; i++) {
            const char *eq = strchr(r->sim_env[i], '=');
            if (eq) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(eq - r->sim_env[i]), r->sim_env[i]);
                setenv(name, eq + 1, 1);
            } else {
                unsetenv(r->sim_env[i]);
            }
        }
        tr_signals_restore();
        execvp("gdb", (char *const *)argv);
        fprintf(stderr, "oxl test: --gdb: cannot run gdb: %s\n", strerror(errno));
        _exit(127);
    }
    free(argv);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) return TR_EXIT_USAGE;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
