/* tr_exec.c: the test runner's processes. Each runs in a process group of
 * its own, so a timeout or a cancelled seed kills whatever the test
 * started too. The runner blocks SIGCHLD and the terminating signals and
 * takes them with sigtimedwait: no handler runs inside the runner, and
 * Ctrl-C ends the run in an orderly way (children killed, files removed). */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double tr_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

extern char **environ;

static sigset_t saved_mask;
static struct sigaction saved_chld, saved_pipe;
static bool blocked;

static void on_chld(int sig) { (void)sig; }

void tr_signals_block(void) {
    if (blocked) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, &saved_mask);
    /* SIGCHLD ignored would reap children behind the runner's back */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &saved_chld);
    /* `oxl test | head`: a closed stdout must not kill the runner and
     * leave its tests running in their own process groups */
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, &saved_pipe);
    blocked = true;
}

void tr_signals_restore(void) {
    if (!blocked) return;
    sigaction(SIGCHLD, &saved_chld, NULL);
    sigaction(SIGPIPE, &saved_pipe, NULL);
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    blocked = false;
}

bool tr_wait_event(double timeout) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (timeout < 0) timeout = 0;
    struct timespec ts;
    ts.tv_sec = (time_t)timeout;
    ts.tv_nsec = (long)((timeout - (double)ts.tv_sec) * 1e9);
    int sig = sigtimedwait(&set, NULL, &ts);
    return !(sig == SIGINT || sig == SIGTERM || sig == SIGHUP);
}

/* The environment of a child: the runner's without the names env sets or
 * unsets, then env's settings. */
static char **child_env(const char *const *env) {
    size_t n = 0, k = 0;
    for (char **e = environ; *e; e++) n++;
    for (const char *const *e = env; e && *e; e++) n++;
    char **out = tr_xmalloc((n + 1) * sizeof *out);
    for (char **e = environ; *e; e++) {
        bool replaced = false;
        for (const char *const *v = env; v && *v && !replaced; v++) {
            size_t len = strcspn(*v, "=");
            replaced = strncmp(*e, *v, len) == 0 && (*e)[len] == '=';
        }
        if (!replaced) out[k++] = *e;
    }
    for (const char *const *v = env; v && *v; v++)
        if (strchr(*v, '=')) out[k++] = (char *)*v;
    out[k] = NULL;
    return out;
}

/* posix_spawn, not fork: the oxl executable maps LLVM, and copying its
 * page tables for every seed would cost more than the seed itself. */
bool tr_proc_start(tr_proc *p, const char *exe, const char *arg, const char *const *env, const char *out,
                   const char *err, double timeout) {
    memset(p, 0, sizeof *p);
    fflush(stdout);
    fflush(stderr);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    sigset_t def, mask;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGHUP);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGCHLD);
    if (blocked) mask = saved_mask;
    else sigprocmask(SIG_SETMASK, NULL, &mask);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &mask);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char **envp = child_env(env);
    char *argv[3] = {(char *)exe, (char *)arg, NULL};
    pid_t pid;
    int e = posix_spawn(&pid, exe, &fa, &at, argv, envp);
    free(envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (e != 0) {
        errno = e;
        return false;
    }
    p->pid = pid;
    p->start = tr_now();
    p->deadline = timeout > 0 ? p->start + timeout : 0;
    return true;
}

static void reap(tr_proc *p) {
    int st = 0;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR) {
    }
    p->wstatus = st;
    p->end = tr_now();
    p->pid = 0;
}

void tr_proc_kill(tr_proc *p) {
    if (!p->pid) return;
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    reap(p);
    p->killed = true;
}

bool tr_proc_poll(tr_proc *p) {
    if (!p->pid) return true;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    /* WNOWAIT: the zombie keeps the group's id from being reused while
     * the rest of the group is killed */
    if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
        kill(-p->pid, SIGKILL);
        reap(p);
        return true;
    }
    if (p->deadline > 0 && tr_now() >= p->deadline) {
        tr_proc_kill(p);
        p->timed_out = true;
        return true;
    }
    return false;
}

const char *tr_signal_name(int sig, char *buf, size_t cap) {
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
                 {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
                 {SIGQUIT, "SIGQUIT"}, {SIGTRAP, "SIGTRAP"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},
                 {SIGHUP, "SIGHUP"},   {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGSYS, "SIGSYS"},
                 {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    snprintf(buf, cap, "signal %d", sig);
    return buf;
}
