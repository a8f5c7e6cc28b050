/* The extern fn of spins.oxl: a child that leaves the process group and
 * the session (setsid), then both spin. Their pids, as /proc names them,
 * go to the file SPIN_PIDS names, so the test can look for them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long proc_pid(void) {
    char buf[32];
    ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
    if (n <= 0) return (long)getpid();
    buf[n] = '\0';
    return atol(buf);
}

static void note(void) {
    const char *path = getenv("SPIN_PIDS");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "%ld\n", proc_pid());
    fclose(f);
}

void oxl_spins_spinForever(void) {
    if (fork() == 0) setsid();
    note();
    for (volatile unsigned long i = 0;; i++) {
    }
}
