/* sim_determinism_test: the same seed run in fresh processes (different
 * environment size, so a different stack layout, and a different ASLR draw)
 * gives the same trace hash for 50 seeds; different seeds give different
 * hashes. The child mode prints "seed hash" lines. */
#include "sim_toy_register.h"
#include "tap.h"

#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { SEEDS = 50 };

static uint64_t run_seed(uint64_t seed) {
    oxl_world_options o = oxl_world_options_default(seed);
    abd_config cfg = abd_config_default(ABD_CORRECT);
    cfg.ops_per_client = 10;
    oxl_world *w = oxl_world_new(&o);
    abd_scenario(w, &cfg);
    uint64_t h = oxl_world_trace_hash(w);
    oxl_world_free(w);
    return h;
}

static int child_main(void) {
    /* Allocate a little first, so the heap layout differs too. */
    void *shift = malloc((size_t)getpid() % 4096 + 1);
    for (uint64_t s = 1; s <= SEEDS; s++) printf("%" PRIu64 " %016" PRIx64 "\n", s, run_seed(s));
    free(shift);
    return 0;
}

/* Runs this binary as a child with padding in its environment; reads the
 * hashes it prints. Returns false if it could not run. */
static bool run_child(size_t padding, uint64_t *hashes) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    char *pad = malloc(padding + 16);
    memcpy(pad, "OXL_PAD=", 8);
    memset(pad + 8, 'x', padding);
    pad[8 + padding] = 0;
    char *envp[] = {"OXL_DETERMINISM_CHILD=1", pad, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {"sim_determinism_test", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(pad);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return false;
    }
    FILE *in = fdopen(fds[0], "r");
    int got = 0;
    uint64_t seed, hash;
    while (in && fscanf(in, "%" SCNu64 " %" SCNx64, &seed, &hash) == 2)
        if (seed >= 1 && seed <= SEEDS) hashes[seed - 1] = hash, got++;
    if (in) fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == SEEDS && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
    if (getenv("OXL_DETERMINISM_CHILD")) return child_main();
    uint64_t here[SEEDS], a[SEEDS], b[SEEDS];
    for (uint64_t s = 1; s <= SEEDS; s++) here[s - 1] = run_seed(s);
    tap_ok(run_child(10, a), "first child process ran %d seeds", SEEDS);
    tap_ok(run_child(70000, b), "second child process (another environment) ran %d seeds", SEEDS);
    int same = 0;
    for (int i = 0; i < SEEDS; i++) same += here[i] == a[i] && a[i] == b[i];
    tap_is_int(same, SEEDS, "every seed has the same trace hash in three processes");
    int distinct = 0;
    for (int i = 0; i < SEEDS; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++) dup = dup || here[j] == here[i];
        distinct += !dup;
    }
    tap_is_int(distinct, SEEDS, "different seeds give different hashes");
    uint64_t again = run_seed(7);
    tap_is_uint(again, here[6], "a rerun in the same process matches too");
    return tap_done();
}
