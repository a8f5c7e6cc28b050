/* fence.c: the wrappers of the fenced calls (the list is wrapped.txt; the
 * link gives each name's references to __wrap_<name>, and __real_<name> is
 * libc's own). Outside a deterministic run a wrapper costs one load and a
 * branch and passes its arguments on unchanged; inside one it fails the run
 * through fence_trip, naming the call. vfork is in fence_vfork.S: a child
 * of vfork must not return through a wrapper's frame. */
#define _GNU_SOURCE /* accept4, execvpe, secure_getenv */
#include "fence/fence.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#define FENCE_MAX_EXECL_ARGS 4096 /* arguments of an execl-style call passed on */

/* ---- clocks and sleeps ---- */

static const char *clock_name(clockid_t id, char buf[32]) {
    switch (id) {
    case CLOCK_REALTIME: return "CLOCK_REALTIME";
    case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
    case CLOCK_PROCESS_CPUTIME_ID: return "CLOCK_PROCESS_CPUTIME_ID";
    case CLOCK_THREAD_CPUTIME_ID: return "CLOCK_THREAD_CPUTIME_ID";
#ifdef CLOCK_MONOTONIC_RAW
    case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
#endif
#ifdef CLOCK_REALTIME_COARSE
    case CLOCK_REALTIME_COARSE: return "CLOCK_REALTIME_COARSE";
#endif
#ifdef CLOCK_MONOTONIC_COARSE
    case CLOCK_MONOTONIC_COARSE: return "CLOCK_MONOTONIC_COARSE";
#endif
#ifdef CLOCK_BOOTTIME
    case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
#endif
#ifdef CLOCK_TAI
    case CLOCK_TAI: return "CLOCK_TAI";
#endif
    default: snprintf(buf, 32, "clock %d", (int)id); return buf;
    }
}

FENCE_DECL(int, clock_gettime, (clockid_t id, struct timespec *ts));
int __wrap_clock_gettime(clockid_t id, struct timespec *ts) {
    if (FENCE_LIVE()) {
        char b[32];
        fence_trip(FENCE_CLOCK, CALLER, "clock_gettime(%s)", clock_name(id, b));
    }
    return __real_clock_gettime(id, ts);
}

FENCE_DECL(int, gettimeofday, (struct timeval *tv, void *tz));
int __wrap_gettimeofday(struct timeval *tv, void *tz) {
    if (FENCE_LIVE()) fence_trip(FENCE_CLOCK, CALLER, "gettimeofday()");
    return __real_gettimeofday(tv, tz);
}

FENCE_DECL(time_t, time, (time_t * t));
time_t __wrap_time(time_t *t) {
    if (FENCE_LIVE()) fence_trip(FENCE_CLOCK, CALLER, "time()");
    return __real_time(t);
}

FENCE_DECL(clock_t, clock, (void));
clock_t __wrap_clock(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_CLOCK, CALLER, "clock()");
    return __real_clock();
}

FENCE_DECL(int, timespec_get, (struct timespec * ts, int base));
int __wrap_timespec_get(struct timespec *ts, int base) {
    if (FENCE_LIVE()) fence_trip(FENCE_CLOCK, CALLER, "timespec_get(%s)", base == TIME_UTC ? "TIME_UTC" : "?");
    return __real_timespec_get(ts, base);
}

FENCE_DECL(int, nanosleep, (const struct timespec *req, struct timespec *rem));
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem) {
    if (FENCE_LIVE()) fence_trip(FENCE_SLEEP, CALLER, "nanosleep()");
    return __real_nanosleep(req, rem);
}

FENCE_DECL(int, clock_nanosleep, (clockid_t id, int flags, const struct timespec *req, struct timespec *rem));
int __wrap_clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem) {
    if (FENCE_LIVE()) {
        char b[32];
        fence_trip(FENCE_SLEEP, CALLER, "clock_nanosleep(%s)", clock_name(id, b));
    }
    return __real_clock_nanosleep(id, flags, req, rem);
}

FENCE_DECL(unsigned, sleep, (unsigned s));
unsigned __wrap_sleep(unsigned s) {
    if (FENCE_LIVE()) fence_trip(FENCE_SLEEP, CALLER, "sleep(%u)", s);
    return __real_sleep(s);
}

FENCE_DECL(int, usleep, (useconds_t us));
int __wrap_usleep(useconds_t us) {
    if (FENCE_LIVE()) fence_trip(FENCE_SLEEP, CALLER, "usleep(%u)", (unsigned)us);
    return __real_usleep(us);
}

/* ---- randomness ---- */

FENCE_DECL(ssize_t, getrandom, (void *buf, size_t n, unsigned flags));
ssize_t __wrap_getrandom(void *buf, size_t n, unsigned flags) {
    if (FENCE_LIVE()) fence_trip(FENCE_RANDOM, CALLER, "getrandom(%zu bytes)", n);
    return __real_getrandom(buf, n, flags);
}

FENCE_DECL(int, getentropy, (void *buf, size_t n));
int __wrap_getentropy(void *buf, size_t n) {
    if (FENCE_LIVE()) fence_trip(FENCE_RANDOM, CALLER, "getentropy(%zu bytes)", n);
    return __real_getentropy(buf, n);
}

FENCE_DECL(uint32_t, arc4random, (void));
uint32_t __wrap_arc4random(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_RANDOM, CALLER, "arc4random()");
    return __real_arc4random();
}

FENCE_DECL(void, arc4random_buf, (void *buf, size_t n));
void __wrap_arc4random_buf(void *buf, size_t n) {
    if (FENCE_LIVE()) fence_trip(FENCE_RANDOM, CALLER, "arc4random_buf(%zu bytes)", n);
    __real_arc4random_buf(buf, n);
}

FENCE_DECL(uint32_t, arc4random_uniform, (uint32_t n));
uint32_t __wrap_arc4random_uniform(uint32_t n) {
    if (FENCE_LIVE()) fence_trip(FENCE_RANDOM, CALLER, "arc4random_uniform(%u)", n);
    return __real_arc4random_uniform(n);
}

/* ---- files ---- */

/* Devices whose contents cannot differ between runs pass. */
static bool harmless_path(const char *path) {
    return path && (strcmp(path, "/dev/null") == 0 || strcmp(path, "/dev/zero") == 0);
}

static bool random_device(const char *path) {
    return path && (strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/random") == 0);
}

/* A file call on a path: passes for a harmless path, fails otherwise. */
#define FENCE_PATH(call, path, extra_fmt, ...)                                                          \
    do {                                                                                                \
        if (FENCE_LIVE() && !harmless_path(path)) {                                                     \
            char q_[FENCE_QUOTE_MAX];                                                                   \
            fence_trip(random_device(path) ? FENCE_RANDOM : FENCE_FILE, CALLER, call "(%s" extra_fmt ")", \
                       fence_quote(q_, path), __VA_ARGS__);                                             \
        }                                                                                               \
    } while (0)

/* open's mode argument is there only with O_CREAT or O_TMPFILE. */
static bool has_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

FENCE_DECL(int, open, (const char *path, int flags, ...));
int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (has_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    FENCE_PATH("open", path, "%s", "");
    return __real_open(path, flags, mode);
}

FENCE_DECL(int, open64, (const char *path, int flags, ...));
int __wrap_open64(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (has_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    FENCE_PATH("open64", path, "%s", "");
    return __real_open64(path, flags, mode);
}

FENCE_DECL(int, openat, (int dir, const char *path, int flags, ...));
int __wrap_openat(int dir, const char *path, int flags, ...) {
    mode_t mode = 0;
    if (has_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    FENCE_PATH("openat", path, "%s", "");
    return __real_openat(dir, path, flags, mode);
}

FENCE_DECL(int, openat64, (int dir, const char *path, int flags, ...));
int __wrap_openat64(int dir, const char *path, int flags, ...) {
    mode_t mode = 0;
    if (has_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    FENCE_PATH("openat64", path, "%s", "");
    return __real_openat64(dir, path, flags, mode);
}

/* What _FORTIFY_SOURCE turns open and openat into. */
FENCE_DECL(int, __open_2, (const char *path, int flags));
int __wrap___open_2(const char *path, int flags) {
    FENCE_PATH("open", path, "%s", "");
    return __real___open_2(path, flags);
}

FENCE_DECL(int, __open64_2, (const char *path, int flags));
int __wrap___open64_2(const char *path, int flags) {
    FENCE_PATH("open64", path, "%s", "");
    return __real___open64_2(path, flags);
}

FENCE_DECL(int, __openat_2, (int dir, const char *path, int flags));
int __wrap___openat_2(int dir, const char *path, int flags) {
    FENCE_PATH("openat", path, "%s", "");
    return __real___openat_2(dir, path, flags);
}

FENCE_DECL(int, __openat64_2, (int dir, const char *path, int flags));
int __wrap___openat64_2(int dir, const char *path, int flags) {
    FENCE_PATH("openat64", path, "%s", "");
    return __real___openat64_2(dir, path, flags);
}

FENCE_DECL(int, creat, (const char *path, mode_t mode));
int __wrap_creat(const char *path, mode_t mode) {
    FENCE_PATH("creat", path, "%s", "");
    return __real_creat(path, mode);
}

FENCE_DECL(int, creat64, (const char *path, mode_t mode));
int __wrap_creat64(const char *path, mode_t mode) {
    FENCE_PATH("creat64", path, "%s", "");
    return __real_creat64(path, mode);
}

FENCE_DECL(FILE *, fopen, (const char *path, const char *mode));
FILE *__wrap_fopen(const char *path, const char *mode) {
    char m[FENCE_QUOTE_MAX];
    FENCE_PATH("fopen", path, ", %s", fence_quote(m, mode));
    return __real_fopen(path, mode);
}

FENCE_DECL(FILE *, fopen64, (const char *path, const char *mode));
FILE *__wrap_fopen64(const char *path, const char *mode) {
    char m[FENCE_QUOTE_MAX];
    FENCE_PATH("fopen64", path, ", %s", fence_quote(m, mode));
    return __real_fopen64(path, mode);
}

FENCE_DECL(FILE *, freopen, (const char *path, const char *mode, FILE *f));
FILE *__wrap_freopen(const char *path, const char *mode, FILE *f) {
    char m[FENCE_QUOTE_MAX];
    if (path) FENCE_PATH("freopen", path, ", %s", fence_quote(m, mode));
    return __real_freopen(path, mode, f);
}

FENCE_DECL(FILE *, freopen64, (const char *path, const char *mode, FILE *f));
FILE *__wrap_freopen64(const char *path, const char *mode, FILE *f) {
    char m[FENCE_QUOTE_MAX];
    if (path) FENCE_PATH("freopen64", path, ", %s", fence_quote(m, mode));
    return __real_freopen64(path, mode, f);
}

FENCE_DECL(int, mkstemp, (char *tmpl));
int __wrap_mkstemp(char *tmpl) {
    FENCE_PATH("mkstemp", tmpl, "%s", "");
    return __real_mkstemp(tmpl);
}

FENCE_DECL(int, mkostemp, (char *tmpl, int flags));
int __wrap_mkostemp(char *tmpl, int flags) {
    FENCE_PATH("mkostemp", tmpl, "%s", "");
    return __real_mkostemp(tmpl, flags);
}

FENCE_DECL(char *, mkdtemp, (char *tmpl));
char *__wrap_mkdtemp(char *tmpl) {
    FENCE_PATH("mkdtemp", tmpl, "%s", "");
    return __real_mkdtemp(tmpl);
}

FENCE_DECL(FILE *, tmpfile, (void));
FILE *__wrap_tmpfile(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_FILE, CALLER, "tmpfile()");
    return __real_tmpfile();
}

FENCE_DECL(DIR *, opendir, (const char *path));
DIR *__wrap_opendir(const char *path) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_FILE, CALLER, "opendir(%s)", fence_quote(q, path));
    }
    return __real_opendir(path);
}

/* ---- the network ---- */

static const char *family_name(int family, char buf[32]) {
    switch (family) {
    case AF_UNIX: return "AF_UNIX";
    case AF_INET: return "AF_INET";
    case AF_INET6: return "AF_INET6";
#ifdef AF_NETLINK
    case AF_NETLINK: return "AF_NETLINK";
#endif
    default: snprintf(buf, 32, "family %d", family); return buf;
    }
}

FENCE_DECL(int, socket, (int family, int type, int protocol));
int __wrap_socket(int family, int type, int protocol) {
    if (FENCE_LIVE()) {
        char b[32];
        fence_trip(FENCE_NET, CALLER, "socket(%s)", family_name(family, b));
    }
    return __real_socket(family, type, protocol);
}

FENCE_DECL(int, socketpair, (int family, int type, int protocol, int sv[2]));
int __wrap_socketpair(int family, int type, int protocol, int sv[2]) {
    if (FENCE_LIVE()) {
        char b[32];
        fence_trip(FENCE_NET, CALLER, "socketpair(%s)", family_name(family, b));
    }
    return __real_socketpair(family, type, protocol, sv);
}

FENCE_DECL(int, connect, (int fd, const struct sockaddr *addr, socklen_t len));
int __wrap_connect(int fd, const struct sockaddr *addr, socklen_t len) {
    if (FENCE_LIVE()) fence_trip(FENCE_NET, CALLER, "connect()");
    return __real_connect(fd, addr, len);
}

FENCE_DECL(int, bind, (int fd, const struct sockaddr *addr, socklen_t len));
int __wrap_bind(int fd, const struct sockaddr *addr, socklen_t len) {
    if (FENCE_LIVE()) fence_trip(FENCE_NET, CALLER, "bind()");
    return __real_bind(fd, addr, len);
}

FENCE_DECL(int, listen, (int fd, int backlog));
int __wrap_listen(int fd, int backlog) {
    if (FENCE_LIVE()) fence_trip(FENCE_NET, CALLER, "listen()");
    return __real_listen(fd, backlog);
}

FENCE_DECL(int, accept, (int fd, struct sockaddr *addr, socklen_t *len));
int __wrap_accept(int fd, struct sockaddr *addr, socklen_t *len) {
    if (FENCE_LIVE()) fence_trip(FENCE_NET, CALLER, "accept()");
    return __real_accept(fd, addr, len);
}

FENCE_DECL(int, accept4, (int fd, struct sockaddr *addr, socklen_t *len, int flags));
int __wrap_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    if (FENCE_LIVE()) fence_trip(FENCE_NET, CALLER, "accept4()");
    return __real_accept4(fd, addr, len, flags);
}

/* ---- threads ---- */

FENCE_DECL(int, pthread_create, (pthread_t * t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg));
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    if (FENCE_LIVE()) fence_trip(FENCE_THREAD, CALLER, "pthread_create()");
    return __real_pthread_create(t, attr, fn, arg);
}

FENCE_DECL(int, thrd_create, (thrd_t * t, thrd_start_t fn, void *arg));
int __wrap_thrd_create(thrd_t *t, thrd_start_t fn, void *arg) {
    if (FENCE_LIVE()) fence_trip(FENCE_THREAD, CALLER, "thrd_create()");
    return __real_thrd_create(t, fn, arg);
}

/* ---- processes ---- */

FENCE_DECL(pid_t, fork, (void));
pid_t __wrap_fork(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_PROCESS, CALLER, "fork()");
    return __real_fork();
}

/* fence_vfork.S jumps here with its caller's return address. */
_Noreturn void fence_vfork_trip(const void *caller);
void fence_vfork_trip(const void *caller) { fence_trip(FENCE_PROCESS, caller, "vfork()"); }

FENCE_DECL(int, posix_spawn, (pid_t * pid, const char *path, const posix_spawn_file_actions_t *fa,
                              const posix_spawnattr_t *attr, char *const argv[], char *const envp[]));
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_PROCESS, CALLER, "posix_spawn(%s)", fence_quote(q, path));
    }
    return __real_posix_spawn(pid, path, fa, attr, argv, envp);
}

FENCE_DECL(int, posix_spawnp, (pid_t * pid, const char *file, const posix_spawn_file_actions_t *fa,
                               const posix_spawnattr_t *attr, char *const argv[], char *const envp[]));
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_PROCESS, CALLER, "posix_spawnp(%s)", fence_quote(q, file));
    }
    return __real_posix_spawnp(pid, file, fa, attr, argv, envp);
}

FENCE_DECL(int, system, (const char *command));
int __wrap_system(const char *command) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_PROCESS, CALLER, "system(%s)", fence_quote(q, command));
    }
    return __real_system(command);
}

FENCE_DECL(FILE *, popen, (const char *command, const char *mode));
FILE *__wrap_popen(const char *command, const char *mode) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_PROCESS, CALLER, "popen(%s)", fence_quote(q, command));
    }
    return __real_popen(command, mode);
}

#define FENCE_EXEC(call, path)                                             \
    do {                                                                   \
        if (FENCE_LIVE()) {                                                \
            char q_[FENCE_QUOTE_MAX];                                      \
            fence_trip(FENCE_PROCESS, CALLER, call "(%s)", fence_quote(q_, path)); \
        }                                                                  \
    } while (0)

FENCE_DECL(int, execve, (const char *path, char *const argv[], char *const envp[]));
int __wrap_execve(const char *path, char *const argv[], char *const envp[]) {
    FENCE_EXEC("execve", path);
    return __real_execve(path, argv, envp);
}

FENCE_DECL(int, execv, (const char *path, char *const argv[]));
int __wrap_execv(const char *path, char *const argv[]) {
    FENCE_EXEC("execv", path);
    return __real_execv(path, argv);
}

FENCE_DECL(int, execvp, (const char *file, char *const argv[]));
int __wrap_execvp(const char *file, char *const argv[]) {
    FENCE_EXEC("execvp", file);
    return __real_execvp(file, argv);
}

FENCE_DECL(int, execvpe, (const char *file, char *const argv[], char *const envp[]));
int __wrap_execvpe(const char *file, char *const argv[], char *const envp[]) {
    FENCE_EXEC("execvpe", file);
    return __real_execvpe(file, argv, envp);
}

FENCE_DECL(int, fexecve, (int fd, char *const argv[], char *const envp[]));
int __wrap_fexecve(int fd, char *const argv[], char *const envp[]) {
    if (FENCE_LIVE()) fence_trip(FENCE_PROCESS, CALLER, "fexecve()");
    return __real_fexecve(fd, argv, envp);
}

/* The execl forms pass on as their execv forms, with the arguments up to
 * the NULL (and, for execle, the environment after it) in an array. */
static size_t count_args(const char *arg0, va_list ap) {
    size_t n = 0;
    if (!arg0) return 0;
    for (n = 1; n < FENCE_MAX_EXECL_ARGS && va_arg(ap, char *); n++) {
    }
    return n;
}

static void fill_args(char **argv, size_t n, const char *arg0, va_list ap) {
    if (n) argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++) argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

int __wrap_execl(const char *path, const char *arg, ...);
int __wrap_execl(const char *path, const char *arg, ...) {
    FENCE_EXEC("execl", path);
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    if (n == FENCE_MAX_EXECL_ARGS) {
        errno = E2BIG;
        return -1;
    }
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    va_end(ap);
    return __real_execv(path, argv);
}

int __wrap_execlp(const char *file, const char *arg, ...);
int __wrap_execlp(const char *file, const char *arg, ...) {
    FENCE_EXEC("execlp", file);
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    if (n == FENCE_MAX_EXECL_ARGS) {
        errno = E2BIG;
        return -1;
    }
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    va_end(ap);
    return __real_execvp(file, argv);
}

int __wrap_execle(const char *path, const char *arg, ...);
int __wrap_execle(const char *path, const char *arg, ...) {
    FENCE_EXEC("execle", path);
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    if (n == FENCE_MAX_EXECL_ARGS) {
        errno = E2BIG;
        return -1;
    }
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    if (n) (void)va_arg(ap, char *); /* the NULL */
    char **envp = va_arg(ap, char **);
    va_end(ap);
    return __real_execve(path, argv, envp);
}

/* ---- the environment and process ids ---- */

FENCE_DECL(char *, getenv, (const char *name));
char *__wrap_getenv(const char *name) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_ENV, CALLER, "getenv(%s)", fence_quote(q, name));
    }
    return __real_getenv(name);
}

FENCE_DECL(char *, secure_getenv, (const char *name));
char *__wrap_secure_getenv(const char *name) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_ENV, CALLER, "secure_getenv(%s)", fence_quote(q, name));
    }
    return __real_secure_getenv(name);
}

FENCE_DECL(pid_t, getpid, (void));
pid_t __wrap_getpid(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_PID, CALLER, "getpid()");
    return __real_getpid();
}

FENCE_DECL(pid_t, getppid, (void));
pid_t __wrap_getppid(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_PID, CALLER, "getppid()");
    return __real_getppid();
}

/* ---- raw system calls: the fenced ones by number ---- */

typedef struct fence_sysno {
    long nr;
    const char *name;
    fence_kind kind;
} fence_sysno;

static const fence_sysno fenced_syscalls[] = {
    {SYS_clock_gettime, "SYS_clock_gettime", FENCE_CLOCK},
    {SYS_gettimeofday, "SYS_gettimeofday", FENCE_CLOCK},
#ifdef SYS_time
    {SYS_time, "SYS_time", FENCE_CLOCK},
#endif
    {SYS_nanosleep, "SYS_nanosleep", FENCE_SLEEP},
    {SYS_clock_nanosleep, "SYS_clock_nanosleep", FENCE_SLEEP},
    {SYS_getrandom, "SYS_getrandom", FENCE_RANDOM},
#ifdef SYS_open
    {SYS_open, "SYS_open", FENCE_FILE},
#endif
#ifdef SYS_creat
    {SYS_creat, "SYS_creat", FENCE_FILE},
#endif
    {SYS_openat, "SYS_openat", FENCE_FILE},
#ifdef SYS_openat2
    {SYS_openat2, "SYS_openat2", FENCE_FILE},
#endif
    {SYS_socket, "SYS_socket", FENCE_NET},
    {SYS_socketpair, "SYS_socketpair", FENCE_NET},
    {SYS_connect, "SYS_connect", FENCE_NET},
    {SYS_bind, "SYS_bind", FENCE_NET},
    {SYS_clone, "SYS_clone", FENCE_PROCESS},
#ifdef SYS_clone3
    {SYS_clone3, "SYS_clone3", FENCE_PROCESS},
#endif
#ifdef SYS_fork
    {SYS_fork, "SYS_fork", FENCE_PROCESS},
#endif
#ifdef SYS_vfork
    {SYS_vfork, "SYS_vfork", FENCE_PROCESS},
#endif
    {SYS_execve, "SYS_execve", FENCE_PROCESS},
    {SYS_execveat, "SYS_execveat", FENCE_PROCESS},
    {SYS_getpid, "SYS_getpid", FENCE_PID},
    {SYS_getppid, "SYS_getppid", FENCE_PID},
};

/* syscall takes up to six word arguments; like libc's own syscall, the
 * wrapper passes six on whatever the call uses. */
long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);
long __wrap_syscall(long nr, ...) {
    if (FENCE_LIVE()) {
        for (size_t i = 0; i < sizeof fenced_syscalls / sizeof fenced_syscalls[0]; i++)
            if (fenced_syscalls[i].nr == nr)
                fence_trip(fenced_syscalls[i].kind, CALLER, "syscall(%s)", fenced_syscalls[i].name);
    }
    va_list ap;
    va_start(ap, nr);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    return __real_syscall(nr, a, b, c, d, e, f);
}

#if !defined(__x86_64__) && !defined(__aarch64__)
/* Without fence_vfork.S: a vfork may be a fork (POSIX allows it), which
 * returns through this frame safely. */
pid_t __wrap_vfork(void);
pid_t __wrap_vfork(void) {
    if (FENCE_LIVE()) fence_trip(FENCE_PROCESS, CALLER, "vfork()");
    return __real_fork();
}
#endif
