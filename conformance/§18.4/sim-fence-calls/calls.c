/* The extern fns of case.oxl: one call of each kind the fence stops. Each
 * returns 1 when its call worked, as it does outside a simulation. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t oxl_fencecalls_monotonic(void) {
    struct timespec ts;
    return clock_gettime(CLOCK_MONOTONIC, &ts) == 0;
}

int64_t oxl_fencecalls_randomBytes(void) {
    unsigned char b[8];
    return getrandom(b, sizeof b, 0) == (ssize_t)sizeof b;
}

int64_t oxl_fencecalls_urandom(void) {
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f) return 0;
    unsigned char b[8];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return n == sizeof b;
}

int64_t oxl_fencecalls_readFile(void) {
    FILE *f = fopen("/etc/passwd", "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

int64_t oxl_fencecalls_openSocket(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static void *nothing(void *arg) { return arg; }

int64_t oxl_fencecalls_startThread(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0) return 0;
    return pthread_join(t, NULL) == 0;
}

int64_t oxl_fencecalls_forkChild(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int64_t oxl_fencecalls_runShell(void) { return system("exit 0") == 0; }

int64_t oxl_fencecalls_readEnv(void) { return getenv("PATH") != NULL; }

int64_t oxl_fencecalls_nap(void) { return usleep(1) == 0; }
