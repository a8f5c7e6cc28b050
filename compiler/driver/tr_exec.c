/* tr_exec.c: the test runner's processes. Each runs in a process group of
 * its own, so a timeout or a cancelled seed kills whatever the test
 * started too. The runner blocks SIGCHLD and the terminating signals and
 * unblocks them only while it waits in tr_wait_event, whose poll also
 * watches the fork server's answers; their handlers only write a byte to
 * a pipe that poll sees (and note a terminating one), so Ctrl-C ends the
 * run in an orderly way (children killed, files removed). */
#define _GNU_SOURCE /* POSIX_SPAWN_SETSID, prlimit */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
static struct sigaction saved_chld, saved_pipe, saved_stop[3];
static const int stop_sigs[3] = {SIGINT, SIGTERM, SIGHUP};
static bool blocked;
static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_seen;

static void on_signal(int sig) {
    int e = errno;
    if (sig != SIGCHLD) stop_seen = 1;
    if (wake_pipe[1] >= 0) (void)!write(wake_pipe[1], "s", 1);
    errno = e;
}

static void cloexec_nonblock(int fd) {
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void tr_signals_block(void) {
    if (blocked) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, &saved_mask);
    stop_seen = 0;
    if (wake_pipe[0] < 0 && pipe(wake_pipe) == 0) {
        cloexec_nonblock(wake_pipe[0]);
        cloexec_nonblock(wake_pipe[1]);
    }
    /* SIGCHLD ignored would reap children behind the runner's back */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &saved_chld);
    sa.sa_flags = 0;
    for (int i = 0; i < 3; i++) sigaction(stop_sigs[i], &sa, &saved_stop[i]);
    /* `oxl test | head`: a closed stdout must not kill the runner and
     * leave its tests running in their own process groups */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &saved_pipe);
    blocked = true;
}

void tr_signals_restore(void) {
    if (!blocked) return;
    sigaction(SIGCHLD, &saved_chld, NULL);
    sigaction(SIGPIPE, &saved_pipe, NULL);
    for (int i = 0; i < 3; i++) sigaction(stop_sigs[i], &saved_stop[i], NULL);
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    blocked = false;
}

static unsigned long wait_rounds;

unsigned long tr_wait_rounds(void) { return wait_rounds; }

bool tr_wait_event(double timeout, const int *fds, size_t n) {
    wait_rounds++;
    if (timeout < 0) timeout = 0;
    struct pollfd pf[TR_MAX_JOBS + 2] = {{wake_pipe[0], POLLIN, 0}};
    size_t np = 1;
    for (size_t i = 0; i < n && np < sizeof pf / sizeof pf[0]; i++)
        if (fds[i] >= 0) pf[np++] = (struct pollfd){fds[i], POLLIN, 0};
    sigset_t open;
    sigprocmask(SIG_SETMASK, NULL, &open);
    sigdelset(&open, SIGCHLD);
    sigdelset(&open, SIGINT);
    sigdelset(&open, SIGTERM);
    sigdelset(&open, SIGHUP);
    /* the signals are let in only while it sleeps, at once with the sleep
     * (one system call, not a mask set before and after a poll: this runs
     * once a seed); one that comes before it also wrote to the pipe */
    long ms = (long)(timeout * 1000 + 0.5);
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    if (stop_seen || (ppoll(pf, (nfds_t)np, &ts, &open) > 0 && (pf[0].revents & POLLIN))) {
        char drain[64];
        while (wake_pipe[0] >= 0 && read(wake_pipe[0], drain, sizeof drain) > 0) {
        }
    }
    return !stop_seen;
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
 * page tables for every process would cost more than the process itself
 * (the fork server forks the small test binary instead). */
int tr_spawn(pid_t *pid, const char *exe, const char *arg, const char *const *env, int in_fd, int out_fd,
             const char *out, const char *err) {
    fflush(stdout);
    fflush(stderr);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
    /* a session (and process group) of its own: no terminal's signals
     * reach it, and its group is killed with it */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char **envp = child_env(env);
    char *argv[3] = {(char *)exe, (char *)arg, NULL};
    int e = posix_spawn(pid, exe, &fa, &at, argv, envp);
    free(envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return e;
}

bool tr_proc_start(tr_proc *p, const char *exe, const char *arg, const char *const *env, const char *out,
                   const char *err, double timeout) {
    memset(p, 0, sizeof *p);
    pid_t pid;
    int e = tr_spawn(&pid, exe, arg, env, -1, -1, out, err);
    if (e != 0) {
        errno = e;
        return false;
    }
    p->pid = pid;
    p->ran = -1;
    p->start = tr_now();
    p->deadline = timeout > 0 ? p->start + timeout : 0;
    if (timeout > 0) {
        /* spawned, it is the runner's child, which no server kills when
         * the runner is gone: its CPU time (and that of what it forks)
         * is bounded instead */
        rlim_t cpu = (rlim_t)timeout + 2; /* the server's limit, rounded up */
        struct rlimit rl = {cpu, cpu + 1};
        prlimit(pid, RLIMIT_CPU, &rl, NULL);
    }
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
    if (!p->pid && !p->queued) return;
    if (!p->srv) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        reap(p);
        return;
    }
    /* the server reaps it and tells; killed is the result either way. A
     * queued one is killed once its pid comes; an ended child is reaped,
     * its pid no longer its own, so the answers are read before a kill */
    double until = tr_now() + 10;
    bool killed = false;
    for (;;) {
        tr_server_pump(p->srv);
        if (p->ended) break;
        if (p->pid && !killed) {
            kill(-p->pid, SIGKILL);
            kill(p->pid, SIGKILL);
            killed = true;
        }
        if (tr_server_fd(p->srv) < 0 || tr_now() >= until) break;
        struct pollfd pf = {tr_server_fd(p->srv), POLLIN, 0};
        poll(&pf, 1, 100);
    }
    if (!p->ended) {
        p->end = tr_now();
        tr_server_forget(p->srv, p); /* the slot is reused: no answer may land in it */
    }
    p->lost = false;
    p->queued = false;
    p->pid = 0;
    free(p->report); /* a killed process's result is not taken */
    p->report = NULL;
}

/* A process past its deadline is first asked to end (SIGTERM: a test
 * binary writes out what its stdout still buffers, then dies of it) and
 * killed with its whole group when it has ended or the grace has passed;
 * either way it is marked timed out. */
#define TR_TERM_GRACE 0.5 /* seconds */
static bool past_deadline(tr_proc *p) {
    double now = tr_now();
    if (p->deadline <= 0 || now < p->deadline) return false;
    if (p->term_at == 0 && p->pid > 0) {
        kill(p->pid, SIGTERM);
        p->term_at = now;
        return false;
    }
    if (p->term_at > 0 && now < p->term_at + TR_TERM_GRACE) return false;
    tr_proc_kill(p);
    p->timed_out = true;
    return true;
}

bool tr_proc_poll(tr_proc *p) {
    if (!p->pid && !p->queued) return true;
    if (p->srv) {
        if (!p->ended) tr_server_pump_round(p->srv);
        if (!p->ended && p->queued) return false; /* waits in the server: no deadline runs yet */
        if (p->ended) {
            /* killed by the server at its own limit, a little after ours
             * (the runner was slow to look): a timeout all the same; so is
             * an end after the SIGTERM of its deadline */
            if (p->deadline > 0 && !p->lost && WIFSIGNALED(p->wstatus) && WTERMSIG(p->wstatus) == SIGKILL &&
                p->end >= p->deadline)
                p->timed_out = true;
            if (p->term_at > 0 && !p->lost) p->timed_out = true;
            p->pid = 0;
            return true;
        }
        return past_deadline(p);
    }
    siginfo_t info;
    memset(&info, 0, sizeof info);
    /* WNOWAIT: the zombie keeps the group's id from being reused while
     * the rest of the group is killed */
    if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
        kill(-p->pid, SIGKILL);
        reap(p);
        if (p->term_at > 0) p->timed_out = true; /* it ended after its deadline's SIGTERM */
        return true;
    }
    return past_deadline(p);
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
