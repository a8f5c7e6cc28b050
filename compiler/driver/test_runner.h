/* test_runner.h: `oxl test`, the test runner. It builds a package's test
 * binary (through a hook, so its own tests can hand it a fake one), reads
 * the binary's `--list`, runs every unit test and every seed of every sim
 * test in a process of its own and reports (docs/testing.md). */
#ifndef OXL_TEST_RUNNER_H
#define OXL_TEST_RUNNER_H

#include <stdbool.h>

/* Exit statuses of `oxl test` (docs/testing.md). */
enum {
    TR_EXIT_PASS = 0,
    TR_EXIT_FAILED = 1,       /* a test failed, crashed or timed out */
    TR_EXIT_USAGE = 2,        /* bad flag or environment value, unreadable package */
    TR_EXIT_BUILD = 3,        /* the test binary was not built (compile, link or internal error) */
    TR_EXIT_NO_TESTS = 4,     /* no test matched the selection */
    TR_EXIT_NONDETERMINISM = 5 /* a failing seed did not fail the same way twice */
};

/* The test binary's exit status of a run that a resource of the machine
 * could not finish (OXL_EXIT_EXHAUSTED in oxl_sched.h, docs/test-binary.md). */
#define TR_EXIT_EXHAUSTED 102

/* What the runner needs from the rest of the driver. */
typedef struct tr_hooks {
    /* Builds the test binary of the package directory pkg into out.
     * Returns 0 built, 1 compile errors (already printed), 2 the package
     * cannot be read, 3 internal or link error (drv_build_test_binary). */
    int (*build)(void *ctx, const char *pkg, const char *out, bool show_commands, int opt_level);
    void *ctx;
    /* Inputs of the cache key besides the package's sources: the compiler
     * executable, the runtime library and the standard library root. Any
     * may be NULL (then it is left out of the key). */
    const char *compiler_exe;
    const char *runtime_lib;
    const char *std_root;
    /* argv[0] of oxl as the user typed it, for the reproduce line (NULL:
     * "oxl") */
    const char *argv0;
} tr_hooks;

/* Runs `oxl test` with the arguments after "test". Returns the exit status. */
int tr_main(int argc, char **argv, const tr_hooks *hooks);

/* FNV-1a 64 of "<name>\0<seed>" (seed in decimal; "-" for a unit test):
 * the frozen hash that assigns (test, seed) pairs to shards. */
unsigned long long tr_shard_hash(const char *name, bool has_seed, unsigned long long seed);

/* `oxl test` with the driver's own builder (tr_build.c); argv0 is oxl's. */
int tr_command(const char *argv0, int argc, char **argv);

#endif
