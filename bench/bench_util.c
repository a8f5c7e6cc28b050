/* bench_util.c: see bench_util.h. */
#define _DEFAULT_SOURCE /* wait4 */
#define _XOPEN_SOURCE 700
#include "bench_util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int bench_run(char *const argv[], const char *out, const char *err, double *seconds) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    double t0 = bench_now();
    pid_t pid;
    int st = -1;
    if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0 && waitpid(pid, &st, 0) == pid)
        *seconds = bench_now() - t0;
    else
        st = -1;
    posix_spawn_file_actions_destroy(&fa);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool bench_find_oxl(const char *given, char *oxl, size_t cap) {
    if (given) {
        if ((size_t)snprintf(oxl, cap, "%s", given) >= cap) return false;
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return false;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        if ((size_t)snprintf(oxl, cap, "%s/../oxl", self) >= cap) return false;
    }
    return access(oxl, X_OK) == 0;
}

bool bench_oxl_tests(const char *oxl, const char *dir, const char *out, const char *err_path) {
    char *argv[] = {(char *)oxl, "build", "--tests", (char *)dir, "-O2", "-o", (char *)out, NULL};
    double seconds;
    return bench_run(argv, NULL, err_path, &seconds) == 0;
}

bool bench_oxl_sched_binary(const char *source_dir, char *bin, size_t cap) {
    char oxl[PATH_MAX], dir[PATH_MAX], pkg[PATH_MAX], err[PATH_MAX + 8];
    if (!bench_find_oxl(NULL, oxl, sizeof oxl)) {
        fprintf(stderr, "bench: no oxl beside the benchmark\n");
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/oxl-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench: mkdtemp");
        return false;
    }
    snprintf(pkg, sizeof pkg, "%s/bench/oxl_sched", source_dir);
    snprintf(err, sizeof err, "%s/err", dir);
    if ((size_t)snprintf(bin, cap, "%s/sched_tests", dir) >= cap || !bench_oxl_tests(oxl, pkg, bin, err)) {
        fprintf(stderr, "bench: oxl build --tests %s failed (see %s)\n", pkg, err);
        return false;
    }
    return true;
}

void bench_oxl_sched_remove(const char *bin) {
    char dir[PATH_MAX], err[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", bin);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = '\0';
    snprintf(err, sizeof err, "%s/err", dir);
    unlink(bin);
    unlink(err);
    rmdir(dir);
}

enum { BENCH_MAX_ENV = 4096 };

double bench_oxl_test_time(const char *bin, int index, int reps, double *best_wall) {
    static char *env[BENCH_MAX_ENV];
    char run[32], seed[] = "OXL_TEST_SEED=1";
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", index);
    size_t n = 0;
    env[n++] = run;
    env[n++] = seed;
    for (char **e = environ; *e && n + 1 < BENCH_MAX_ENV; e++)
        if (strncmp(*e, "OXL_", 4) != 0) env[n++] = *e; /* none of the caller's OXL_ settings */
    env[n] = NULL;
    char *argv[] = {(char *)bin, NULL};
    double best = -1;
    for (int i = 0; i < reps; i++) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        double t0 = bench_now();
        pid_t pid;
        int st = -1;
        struct rusage ru;
        bool ok = posix_spawn(&pid, bin, &fa, NULL, argv, env) == 0 && wait4(pid, &st, 0, &ru) == pid;
        double wall = bench_now() - t0;
        posix_spawn_file_actions_destroy(&fa);
        if (!ok || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
        double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
        if (best < 0 || cpu < best) best = cpu;
        if (i == 0 || wall < *best_wall) *best_wall = wall;
    }
    return best;
}

const char *bench_cc(void) {
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

bool bench_oxl_sched_pair(const char *source_dir, const char *who, int short_index, int long_index, double cpu[2],
                          double wall[2]) {
    char bin[4096];
    if (!bench_oxl_sched_binary(source_dir, bin, sizeof bin)) return false;
    cpu[0] = bench_oxl_test_time(bin, short_index, 9, &wall[0]);
    cpu[1] = bench_oxl_test_time(bin, long_index, 9, &wall[1]);
    bench_oxl_sched_remove(bin);
    if (cpu[0] < 0 || cpu[1] < 0) {
        fprintf(stderr, "%s: a run of the bench/oxl_sched test binary failed\n", who);
        return false;
    }
    return true;
}
