/* fence_test: the fence (runtime/src/fence/) in a C program linked with its
 * wrappers (oxl_fence_link): every wrapped call fails a deterministic run
 * naming itself and its caller's line, passes unchanged outside one and in
 * a real-time run, and passes inside one through oxl_fence_allow_begin or
 * with OXL_SIM_FENCE=0; a World run by the C API is fenced too; a bad
 * OXL_SIM_FENCE is named. */
#define _GNU_SOURCE /* accept4, execvpe, secure_getenv */
#include "oxl_fence.h"
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- one call of each wrapped function ---- */

static void *noop(void *arg) { return arg; }
static int noop_thrd(void *arg) { return 0; }

static void call_clock_gettime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
}
static void call_gettimeofday(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
}
static void call_time(void) { (void)time(NULL); }
static void call_clock(void) { (void)clock(); }
static void call_timespec_get(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
}
static void call_nanosleep(void) { nanosleep(&(struct timespec){0, 1}, NULL); }
static void call_clock_nanosleep(void) { clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){0, 1}, NULL); }
static void call_sleep(void) { sleep(0); }
static void call_usleep(void) { usleep(0); }
static void call_getrandom(void) {
    char b[4];
    (void)getrandom(b, sizeof b, 0);
}
static void call_getentropy(void) {
    char b[4];
    (void)getentropy(b, sizeof b);
}
static void call_arc4random(void) { (void)arc4random(); }
static void call_arc4random_buf(void) {
    char b[4];
    arc4random_buf(b, sizeof b);
}
static void call_arc4random_uniform(void) { (void)arc4random_uniform(6); }
static void call_open(void) { close(open("/etc/passwd", O_RDONLY)); }
static void call_open64(void) { close(open64("/etc/passwd", O_RDONLY)); }
static void call_openat(void) { close(openat(AT_FDCWD, "/etc/passwd", O_RDONLY)); }
static void call_creat(void) { close(creat("/nonexistent/fence_test", 0600)); }
static void call_fopen(void) {
    FILE *f = fopen("/etc/passwd", "r");
    if (f) fclose(f);
}
static void call_freopen(void) { (void)freopen("/etc/passwd", "r", stdin); }
static void call_mkstemp(void) {
    char t[] = "/tmp/fence-XXXXXX";
    int fd = mkstemp(t);
    if (fd >= 0) close(fd), unlink(t);
}
static void call_mkostemp(void) {
    char t[] = "/tmp/fence-XXXXXX";
    int fd = mkostemp(t, 0);
    if (fd >= 0) close(fd), unlink(t);
}
static void call_mkdtemp(void) {
    char t[] = "/tmp/fence-XXXXXX";
    if (mkdtemp(t)) rmdir(t);
}
static void call_tmpfile(void) {
    FILE *f = tmpfile();
    if (f) fclose(f);
}
static void call_opendir(void) {
    DIR *d = opendir("/");
    if (d) closedir(d);
}
static void call_socket(void) { close(socket(AF_INET, SOCK_STREAM, 0)); }
static void call_socketpair(void) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
}
static void call_connect(void) { connect(-1, NULL, 0); }
static void call_bind(void) { bind(-1, NULL, 0); }
static void call_listen(void) { listen(-1, 1); }
static void call_accept(void) { accept(-1, NULL, NULL); }
static void call_accept4(void) { accept4(-1, NULL, NULL, 0); }
static void call_getaddrinfo(void) {
    struct addrinfo *res = NULL;
    if (getaddrinfo("localhost", NULL, NULL, &res) == 0) freeaddrinfo(res);
}
static void call_gethostbyname(void) { (void)gethostbyname("localhost"); }
static void call_pthread_create(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, noop, NULL) == 0) pthread_join(t, NULL);
}
static void call_thrd_create(void) {
    thrd_t t;
    if (thrd_create(&t, noop_thrd, NULL) == thrd_success) thrd_join(t, NULL);
}
static void call_fork(void) {
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, NULL, 0);
}
static void call_vfork(void) {
    pid_t p = vfork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, NULL, 0);
}
static void call_posix_spawn(void) {
    pid_t p;
    char *argv[] = {"true", NULL};
    if (posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ) == 0) waitpid(p, NULL, 0);
}
static void call_posix_spawnp(void) {
    pid_t p;
    char *argv[] = {"true", NULL};
    if (posix_spawnp(&p, "true", NULL, NULL, argv, environ) == 0) waitpid(p, NULL, 0);
}
static void call_system(void) { (void)system("exit 0"); }
static void call_popen(void) {
    FILE *f = popen("exit 0", "r");
    if (f) pclose(f);
}
/* The exec calls name a file that does not exist, so they return. */
static void call_execve(void) { execve("/nonexistent", (char *[]){"x", NULL}, environ); }
static void call_execv(void) { execv("/nonexistent", (char *[]){"x", NULL}); }
static void call_execvp(void) { execvp("/nonexistent", (char *[]){"x", NULL}); }
static void call_execvpe(void) { execvpe("/nonexistent", (char *[]){"x", NULL}, environ); }
static void call_fexecve(void) { fexecve(-1, (char *[]){"x", NULL}, environ); }
static void call_execl(void) { execl("/nonexistent", "x", (char *)NULL); }
static void call_execlp(void) { execlp("/nonexistent", "x", (char *)NULL); }
static void call_execle(void) { execle("/nonexistent", "x", (char *)NULL, environ); }
static void call_getenv(void) { (void)getenv("HOME"); }
static void call_secure_getenv(void) { (void)secure_getenv("HOME"); }
static void call_getpid(void) { (void)getpid(); }
static void call_getppid(void) { (void)getppid(); }
static void call_syscall(void) { (void)syscall(SYS_getrandom, NULL, 0, 0); }

typedef struct fenced_call {
    void (*fn)(void);
    const char *message; /* what the fence's panic names */
    const char *advice;
} fenced_call;

static const fenced_call calls[] = {
    {call_clock_gettime, "clock_gettime(CLOCK_REALTIME)", "use std.time"},
    {call_gettimeofday, "gettimeofday()", "use std.time"},
    {call_time, "time()", "use std.time"},
    {call_clock, "clock()", "use std.time"},
    {call_timespec_get, "timespec_get(TIME_UTC)", "use std.time"},
    {call_nanosleep, "nanosleep()", "use std.time.sleep"},
    {call_clock_nanosleep, "clock_nanosleep(CLOCK_MONOTONIC)", "use std.time.sleep"},
    {call_sleep, "sleep(0)", "use std.time.sleep"},
    {call_usleep, "usleep(0)", "use std.time.sleep"},
    {call_getrandom, "getrandom(4 bytes)", "use sim.rand()"},
    {call_getentropy, "getentropy(4 bytes)", "use sim.rand()"},
    {call_arc4random, "arc4random()", "use sim.rand()"},
    {call_arc4random_buf, "arc4random_buf(4 bytes)", "use sim.rand()"},
    {call_arc4random_uniform, "arc4random_uniform(6)", "use sim.rand()"},
    {call_open, "open(\"/etc/passwd\")", "files are outside"},
    {call_open64, "open64(\"/etc/passwd\")", "files are outside"},
    {call_openat, "openat(\"/etc/passwd\")", "files are outside"},
    {call_creat, "creat(\"/nonexistent/fence_test\")", "files are outside"},
    {call_fopen, "fopen(\"/etc/passwd\", \"r\")", "files are outside"},
    {call_freopen, "freopen(\"/etc/passwd\", \"r\")", "files are outside"},
    {call_mkstemp, "mkstemp(\"/tmp/fence-XXXXXX\")", "files are outside"},
    {call_mkostemp, "mkostemp(\"/tmp/fence-XXXXXX\")", "files are outside"},
    {call_mkdtemp, "mkdtemp(\"/tmp/fence-XXXXXX\")", "files are outside"},
    {call_tmpfile, "tmpfile()", "files are outside"},
    {call_opendir, "opendir(\"/\")", "files are outside"},
    {call_socket, "socket(AF_INET)", "real sockets"},
    {call_socketpair, "socketpair(AF_UNIX)", "real sockets"},
    {call_connect, "connect()", "real sockets"},
    {call_bind, "bind()", "real sockets"},
    {call_listen, "listen()", "real sockets"},
    {call_accept, "accept()", "real sockets"},
    {call_accept4, "accept4()", "real sockets"},
    {call_getaddrinfo, "getaddrinfo(\"localhost\")", "real sockets"},
    {call_gethostbyname, "gethostbyname(\"localhost\")", "real sockets"},
    {call_pthread_create, "pthread_create()", "use spawn"},
    {call_thrd_create, "thrd_create()", "use spawn"},
    {call_fork, "fork()", "processes are outside"},
    {call_vfork, "vfork()", "processes are outside"},
    {call_posix_spawn, "posix_spawn(\"/bin/true\")", "processes are outside"},
    {call_posix_spawnp, "posix_spawnp(\"true\")", "processes are outside"},
    {call_system, "system(\"exit 0\")", "processes are outside"},
    {call_popen, "popen(\"exit 0\")", "processes are outside"},
    {call_execve, "execve(\"/nonexistent\")", "processes are outside"},
    {call_execv, "execv(\"/nonexistent\")", "processes are outside"},
    {call_execvp, "execvp(\"/nonexistent\")", "processes are outside"},
    {call_execvpe, "execvpe(\"/nonexistent\")", "processes are outside"},
    {call_fexecve, "fexecve()", "processes are outside"},
    {call_execl, "execl(\"/nonexistent\")", "processes are outside"},
    {call_execlp, "execlp(\"/nonexistent\")", "processes are outside"},
    {call_execle, "execle(\"/nonexistent\")", "processes are outside"},
    {call_getenv, "getenv(\"HOME\")", "the environment is outside"},
    {call_secure_getenv, "secure_getenv(\"HOME\")", "the environment is outside"},
    {call_getpid, "getpid()", "process ids differ"},
    {call_getppid, "getppid()", "process ids differ"},
    {call_syscall, "syscall(SYS_getrandom)", "use sim.rand()"},
};
#define NCALLS (sizeof calls / sizeof calls[0])

/* ---- runs ---- */

static void *call_root(void *arg) {
    ((const fenced_call *)arg)->fn();
    return NULL;
}

static oxl_sched_result sim_run(void *(*root)(void *), void *arg, bool real_time) {
    oxl_sched_options o;
    if (real_time)
        oxl_sched_options_real_time(&o);
    else
        oxl_sched_options_default(&o, 1);
    return oxl_sched_run(root, arg, &o);
}

static void test_every_call_is_fenced(void) {
    for (size_t i = 0; i < NCALLS; i++) {
        oxl_sched_result r = sim_run(call_root, (void *)&calls[i], false);
        char want[256];
        snprintf(want, sizeof want, "panic: fence: %s called from fence_test.c:", calls[i].message);
        bool ok = r.status == OXL_SCHED_PANICKED && r.report && strstr(r.report, want) &&
                  strstr(r.report, calls[i].advice) && strstr(r.report, " inside a simulation; ");
        tap_ok(ok, "%s fails a deterministic run, naming the call, its line and the advice", calls[i].message);
        if (!ok) tap_diag("status %d, report: %s", (int)r.status, r.report ? r.report : "(none)");
        oxl_sched_result_free(&r);
    }
}

/* The panic names the caller's function and line, the one of the call. */
static int line_of_call;
static void *getenv_root(void *arg) {
    line_of_call = __LINE__ + 1;
    const char *v = getenv("HOME");
    return (void *)v;
}

static void test_the_caller_is_named(void) {
    oxl_sched_result r = sim_run(getenv_root, NULL, false);
    char want[128];
    snprintf(want, sizeof want, "called from fence_test.c:%d (in getenv_root)", line_of_call);
    tap_contains(r.report ? r.report : "", want, "the message names the file, line and function of the call");
    tap_contains(r.report ? r.report : "", "\n  at (C code):0", "and, without an OxL caller, says so");
    oxl_sched_result_free(&r);
}

/* Outside a deterministic run every wrapper passes its call on. */
static void test_outside_a_run(void) {
    tap_ok(!oxl_fence_active(), "no fence outside a run");
    struct timespec ts = {0, 0};
    tap_ok(clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 1700000000, "clock_gettime reads the clock");
    tap_ok(time(NULL) > 1700000000, "time reads the clock");
    tap_ok(getenv("PATH") != NULL, "getenv reads the environment");
    tap_ok(syscall(SYS_getpid) == getpid(), "syscall passes its number and arguments on");
    int fd = open("/etc/passwd", O_RDONLY);
    tap_ok(fd >= 0, "open opens");
    close(fd);
    char path[] = "/tmp/oxl-fence-test-XXXXXX";
    int tmp = mkstemp(path);
    close(tmp);
    unlink(path);
    mode_t mask = umask(0);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0640);
    umask(mask);
    struct stat st;
    tap_ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640, "open with O_CREAT passes its mode on");
    close(fd);
    unlink(path);
    FILE *f = fopen("/etc/passwd", "r");
    tap_ok(f != NULL, "fopen opens");
    if (f) fclose(f);
    pthread_t t;
    tap_ok(pthread_create(&t, NULL, noop, NULL) == 0 && pthread_join(t, NULL) == 0, "pthread_create starts a thread");
    int st2 = -1;
    pid_t p = vfork();
    if (p == 0) _exit(7);
    tap_ok(p > 0 && waitpid(p, &st2, 0) == p && WIFEXITED(st2) && WEXITSTATUS(st2) == 7,
           "vfork returns twice through its wrapper");
    p = fork();
    if (p == 0) {
        char *env[] = {"FENCE_TEST=42", NULL};
        execle("/bin/sh", "sh", "-c", "exit $FENCE_TEST", (char *)NULL, env);
        _exit(1);
    }
    tap_ok(p > 0 && waitpid(p, &st2, 0) == p && WIFEXITED(st2) && WEXITSTATUS(st2) == 42,
           "execle passes its arguments and environment on");
    p = fork();
    if (p == 0) {
        execlp("sh", "sh", "-c", "exit 3", (char *)NULL);
        _exit(1);
    }
    tap_ok(p > 0 && waitpid(p, &st2, 0) == p && WIFEXITED(st2) && WEXITSTATUS(st2) == 3,
           "execlp passes its arguments on");
}

static void *devnull_root(void *arg) {
    int fd = open("/dev/null", O_WRONLY);
    FILE *f = fopen("/dev/zero", "r");
    bool ok = fd >= 0 && f;
    if (fd >= 0) close(fd);
    if (f) fclose(f);
    return ok ? (void *)1 : NULL;
}

static void *allow_root(void *arg) {
    bool *seen = arg;
    seen[0] = oxl_fence_active();
    oxl_fence_allow_begin();
    oxl_fence_allow_begin();
    oxl_fence_allow_end();
    seen[1] = !oxl_fence_active() && getenv("PATH") != NULL;
    oxl_fence_allow_end();
    seen[2] = oxl_fence_active();
    return NULL;
}

static void *unbalanced_root(void *arg) {
    oxl_fence_allow_end();
    return NULL;
}

static void *clock_root(void *arg) {
    struct timespec ts = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec || ts.tv_nsec ? (void *)1 : NULL;
}

static void test_passes_inside(void) {
    oxl_sched_result r = sim_run(devnull_root, NULL, false);
    tap_ok(r.status == OXL_SCHED_FINISHED && r.value, "/dev/null and /dev/zero open inside a run");
    oxl_sched_result_free(&r);
    bool seen[3] = {false, false, false};
    r = sim_run(allow_root, seen, false);
    tap_ok(r.status == OXL_SCHED_FINISHED && seen[0], "the fence is active inside a run");
    tap_ok(seen[1], "between oxl_fence_allow_begin and _end (nested) a call passes");
    tap_ok(seen[2], "and after the last _end the fence is back");
    oxl_sched_result_free(&r);
    r = sim_run(unbalanced_root, NULL, false);
    tap_contains(r.report ? r.report : "", "panic: oxl_fence_allow_end without a matching oxl_fence_allow_begin",
                 "an unbalanced oxl_fence_allow_end fails the run");
    oxl_sched_result_free(&r);
    r = sim_run(clock_root, NULL, true);
    tap_ok(r.status == OXL_SCHED_FINISHED && r.value, "a real-time run is not fenced");
    oxl_sched_result_free(&r);
    r = sim_run(clock_root, NULL, false);
    tap_ok(r.status == OXL_SCHED_PANICKED, "and the same call in a deterministic run after it is");
    oxl_sched_result_free(&r);
    tap_ok(!oxl_fence_active(), "after a run the fence is down again");
}

/* ---- in a child process (this program run again): what ends it ---- */

static const char *self_path;

typedef struct child_out {
    int status; /* exit status, 128 + signal */
    char err[4096];
} child_out;

/* Runs `<this program> mode` with OXL_SIM_FENCE set to fence (NULL: unset)
 * and its stderr captured. */
static child_out in_child(const char *mode, const char *fence) {
    child_out c = {-1, ""};
    int fds[2];
    if (pipe(fds) != 0) tap_bail("pipe");
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        if (fence)
            setenv("OXL_SIM_FENCE", fence, 1);
        else
            unsetenv("OXL_SIM_FENCE");
        execl(self_path, self_path, mode, (char *)NULL);
        _exit(99);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n < sizeof c.err - 1 && (got = read(fds[0], c.err + n, sizeof c.err - 1 - n)) > 0) n += (size_t)got;
    c.err[n] = '\0';
    close(fds[0]);
    int st;
    waitpid(p, &st, 0);
    c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return c;
}

/* A protocol node of the C API reading the clock at its start. */
typedef struct clock_proc {
    oxl_process base;
} clock_proc;
static const int line_of_time = __LINE__ + 2;
static void cp_start(oxl_process *self, oxl_ctx c) {
    (void)time(NULL);
}
static void cp_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {}
static void cp_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops cp_ops = {cp_start, cp_message, cp_destroy};
static oxl_process *cp_new(oxl_ctx c, void *arg) {
    clock_proc *p = calloc(1, sizeof *p);
    p->base.ops = &cp_ops;
    return &p->base;
}

static int child_main(const char *mode) {
    if (strcmp(mode, "world") == 0) {
        oxl_world_options o = oxl_world_options_default(3);
        oxl_world *w = oxl_world_new(&o);
        oxl_world_add_node(w, "a", cp_new, NULL);
        oxl_world_run(w);
        oxl_world_free(w);
        return 0;
    }
    if (strcmp(mode, "clock") == 0) {
        oxl_sched_result r = sim_run(clock_root, NULL, false);
        int status = r.status == OXL_SCHED_FINISHED && r.value ? 0 : 1;
        oxl_sched_result_free(&r);
        return status;
    }
    return 98;
}

static void test_in_children(void) {
    child_out c = in_child("world", NULL);
    tap_is_int(c.status, 101, "a World run by the C API is fenced: the process ends with status 101");
    char want[128];
    snprintf(want, sizeof want, "panic: fence: time() called from fence_test.c:%d (in cp_start)", line_of_time);
    tap_contains(c.err, want, "naming the call and its line");
    c = in_child("clock", NULL);
    tap_is_int(c.status, 1, "unset, OXL_SIM_FENCE is on");
    c = in_child("clock", "");
    tap_is_int(c.status, 1, "empty, it is on");
    c = in_child("clock", "1");
    tap_is_int(c.status, 1, "1: on");
    c = in_child("clock", "0");
    tap_is_int(c.status, 0, "OXL_SIM_FENCE=0 turns the fence off");
    c = in_child("clock", "yes");
    tap_is_int(c.status, 2, "a bad OXL_SIM_FENCE ends the program with status 2");
    tap_contains(c.err, "error: OXL_SIM_FENCE='yes' must be 1 or 0", "naming the variable and its value");
}

int main(int argc, char **argv) {
    oxl_rt_init();
    self_path = argv[0];
    if (argc == 2) return child_main(argv[1]);
    test_outside_a_run();
    test_every_call_is_fenced();
    test_the_caller_is_named();
    test_passes_inside();
    test_in_children();
    return tap_done();
}
