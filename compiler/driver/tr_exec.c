/* tr_exec.c: the test runner's processes. Each runs in a process group of
 * its own, so a timeout or a cancelled seed kills whatever the test
 * started too. The runner blocks SIGCHLD and the terminating signals and
 * takes them with sigtimedwait: no handler runs inside the runner, and
 * Ctrl-C ends the run in an orderly way (children killed, files removed). */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

static sigset_t saved_mask;
static struct sigaction saved_chld;
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
    blocked = true;
}

void tr_signals_restore(void) {
    if (!blocked) return;
    sigaction(SIGCHLD, &saved_chld, NULL);
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

static void child_fail(const char *what, const char *arg) {
    /* stderr is the capture file by now: the message shows in the report */
    const char *e = strerror(errno);
    (void)!write(2, "oxl test: ", 10);
    (void)!write(2, what, strlen(what));
    (void)!write(2, " '", 2);
    (void)!write(2, arg, strlen(arg));
    (void)!write(2, "': ", 3);
    (void)!write(2, e, strlen(e));
    (void)!write(2, "\n", 1);
    _exit(127);
}

bool tr_proc_start(tr_proc *p, const char *exe, const char *arg, const char *const *env, const char *out,
                   const char *err, double timeout) {
    memset(p, 0, sizeof *p);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigaction(SIGCHLD, &saved_chld, NULL);
        sigprocmask(SIG_SETMASK, &saved_mask, NULL);
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(127);
        if (fd != 2) close(fd);
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) child_fail("cannot create", out);
        dup2(fd, 1);
        if (fd != 1) close(fd);
        fd = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
            dup2(fd, 0);
            if (fd != 0) close(fd);
        }
        for (const char *const *e = env; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            if (!eq) {
                unsetenv(*e);
                continue;
            }
            char name[128];
            size_t n = (size_t)(eq - *e);
            if (n >= sizeof name) continue;
            memcpy(name, *e, n);
            name[n] = '\0';
            setenv(name, eq + 1, 1);
        }
        char *argv[3] = {(char *)exe, (char *)arg, NULL};
        execv(exe, argv);
        child_fail("cannot run", exe);
    }
    /* both sides set the group, so a kill right after fork finds it */
    setpgid(pid, pid);
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
