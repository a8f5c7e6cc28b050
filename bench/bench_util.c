/* bench_util.c: see bench_util.h. */
#define _XOPEN_SOURCE 700
#include "bench_util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spawn.h>
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

const char *bench_cc(void) {
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}
