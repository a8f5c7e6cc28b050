/* test_isolate.c: what keeps the fork server's children from outliving it
 * (docs/test-binary.md, Serve mode). A test is arbitrary code: its
 * process may fork, and what it forks may leave the process group and the
 * session (setsid), where no kill of the group reaches it.
 *
 * So the server is a subreaper (PR_SET_CHILD_SUBREAPER): whatever its
 * children leave behind when they end is reparented to the server, not to
 * init, and at the server's end (the end of its input, or its parent's
 * death, which it learns as SIGTERM through PR_SET_PDEATHSIG) the server
 * kills every child it has, adopted or forked, until none is left. Its
 * forked children also die with it (their own PR_SET_PDEATHSIG, in
 * test_serve.c), should it be killed outright.
 *
 * Why not a pid namespace of their own: a test's process would then see
 * itself under another pid than /proc shows (the runner's /proc), so
 * /proc/<getpid()> would be another process, and LeakSanitizer, which
 * reads /proc/<pid>/task at exit, fails in every sanitizer build; a
 * namespace of its own /proc needs a mount namespace and rights an
 * unprivileged runner does not have everywhere. The subreaper gives the
 * same promise where it matters (nothing survives the runner) with
 * nothing of the test's process changed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test_serve.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_ROUNDS 2000 /* of a millisecond: what forks while it is killed is caught too */

void test_isolate_begin(void) {
    /* its parent's death comes as SIGTERM, which the server handles by
     * killing all it has (a SIGKILL would leave it no time to) */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Sends SIGKILL to every child of the calling process (also to its
 * process group, when it leads one); true when there was any. The
 * children of a process are listed in /proc/self/task/<tid>/children
 * (one thread here), or, without that file, found by their parent pid. */
static bool kill_children(void) {
    bool any = false;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
    FILE *f = fopen(path, "r");
    if (f) {
        long pid;
        while (fscanf(f, "%ld", &pid) == 1) {
            kill(-(pid_t)pid, SIGKILL);
            kill((pid_t)pid, SIGKILL);
            any = true;
        }
        fclose(f);
        return any;
    }
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t self = getpid();
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char stat[300], buf[512];
        snprintf(stat, sizeof stat, "/proc/%s/stat", e->d_name);
        FILE *s = fopen(stat, "r");
        if (!s) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, s);
        fclose(s);
        buf[n] = '\0';
        char *rp = strrchr(buf, ')');
        long ppid;
        if (rp && sscanf(rp + 2, "%*c %ld", &ppid) == 1 && ppid == (long)self) {
            pid_t pid = (pid_t)atol(e->d_name);
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            any = true;
        }
    }
    if (d) closedir(d);
    return any;
}

void test_isolate_kill_all(void) {
    for (int round = 0; round < KILL_ROUNDS; round++) {
        bool any = kill_children();
        int st;
        pid_t pid;
        while ((pid = waitpid(-1, &st, WNOHANG)) > 0) any = true;
        if (!any && pid < 0 && errno == ECHILD) return;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}
