/* tr_reproduce.c: the reproduce line of a failure, a command that gives
 * the same run when pasted into a shell: the oxl the user ran (as typed,
 * or `oxl` when PATH finds that same file), the package as it was named,
 * the test and its seed, and every setting that changes what runs: -O2,
 * -t, the time limit, the policy, the environment variables that change
 * the build or the simulation, and --failures-file, so the pasted line
 * keeps its seeds where the run did. Names are quoted for sh
 * (tr_shell_quote). */
#include "tr_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Variables that change what a seed does or what is built, kept in front
 * of the command when they are set. */
static const char *const kept_env[] = {"OXL_SIM_TIME_LIMIT", "OXL_SIM_FENCE", "OXL_STD", "OXL_RUNTIME", NULL};

/* Whether PATH's first "oxl" is the file exe names. */
static bool path_finds(const char *exe) {
    struct stat want, st;
    const char *path = getenv("PATH");
    if (!path || stat(exe, &want) != 0) return false;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        char cand[TR_PATH];
        /* an empty entry is the current directory */
        if (tr_pathf(cand, sizeof cand, "%.*s/oxl", n ? (int)n : 1, n ? p : ".") && stat(cand, &st) == 0 &&
            S_ISREG(st.st_mode) && (st.st_mode & 0111))
            return st.st_dev == want.st_dev && st.st_ino == want.st_ino;
        p += n;
        if (*p == ':') p++;
    }
    return false;
}

void tr_oxl_command(const tr_runner *r, tr_buf *b) {
    const char *a0 = r->hooks ? r->hooks->argv0 : NULL;
    if (!a0 || !*a0) tr_buf_puts(b, "oxl");
    else if (strchr(a0, '/') && path_finds(a0)) tr_buf_puts(b, "oxl");
    else tr_shell_word(b, a0);
}

/* The command of test t; with a seed (a sim test's), that seed under the
 * run's policy. The order is the reproduce line's as users know it. */
static void command(const tr_runner *r, const tr_test *t, const uint64_t *seed, tr_buf *b) {
    for (int i = 0; kept_env[i]; i++) {
        const char *v = getenv(kept_env[i]);
        if (!v) continue;
        /* --time-limit set it for the processes; the flag says it */
        if (r->o.time_limit && strcmp(kept_env[i], "OXL_SIM_TIME_LIMIT") == 0) continue;
        tr_buf_printf(b, "%s=", kept_env[i]);
        tr_shell_word(b, v);
        tr_buf_puts(b, " ");
    }
    tr_oxl_command(r, b);
    tr_buf_puts(b, " test ");
    tr_shell_word(b, r->o.pkg);
    tr_buf_puts(b, " --exact ");
    tr_shell_quote(b, t->name);
    bool sim_seed = seed && t->sim;
    if (sim_seed) tr_buf_printf(b, " --seed %" PRIu64, *seed);
    if (r->o.opt_level == 2) tr_buf_puts(b, " -O2");
    if (r->o.timeout != TR_DEFAULT_TIMEOUT) tr_buf_printf(b, " -t %g", r->o.timeout);
    if (r->o.time_limit) tr_buf_puts(b, " --time-limit "), tr_shell_word(b, r->o.time_limit);
    /* the policy is part of the seed's schedule */
    if (sim_seed && r->o.policy == TR_POLICY_FIFO) tr_buf_puts(b, " --policy fifo");
    if (sim_seed && r->o.policy == TR_POLICY_PCT)
        tr_buf_printf(b, " --policy pct --pct-depth %" PRIu64, r->o.pct_depth);
    /* where the run keeps its failing seeds (a build tree's, under
     * oxl_add_tests): the pasted line writes there too, never into the
     * package's own file */
    if (r->o.failures_file) tr_buf_puts(b, " --failures-file "), tr_shell_word(b, r->o.failures_file);
}

void tr_command_of(const tr_runner *r, const tr_test *t, tr_buf *b) { command(r, t, NULL, b); }

void tr_seed_command(const tr_runner *r, const tr_test *t, uint64_t seed, tr_buf *b) { command(r, t, &seed, b); }

void tr_reproduce_line(tr_runner *r, tr_outcome *oc) {
    tr_buf b = {0};
    tr_seed_command(r, oc->test, oc->fail.seed, &b);
    free(oc->reproduce);
    oc->reproduce = b.s;
}
