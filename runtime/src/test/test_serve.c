/* test_serve.c: the serve mode of a test binary (docs/test-binary.md).
 * An exec of the test binary costs several times a fork of it, so the
 * runner keeps one server per run that has done the one-time setup and
 * forks a child per seed. The child is made to look like an exec'd seed:
 * its own process group, stdin from /dev/null, its output in the request's
 * files, the protocol's variables in its environment, SIGCHLD back at its
 * default, and no descriptor of the server left open.
 *
 * Requests (fd 0), one line each, seven fields separated by tabs:
 *     <OXL_TEST_RUN> <OXL_TEST_SEED> <OXL_SIM_REPORT> <stdout> <stderr> <OXL_DATA_DIR> <limit>
 * `-` leaves a variable unset (or sets no limit); backslash, tab and
 * newline in a field are written `\\`, `\t`, `\n`. The limit is seconds
 * of wall time after which the server kills the child itself, so no
 * child outlives it when the runner is stopped or gone; it also bounds the
 * child's CPU time (RLIMIT_CPU, which whatever it forks inherits).
 * Answers (fd 1), one line each:
 *     ready                   once, at start
 *     pid <pid>               a request's child was started
 *     error <message>         a request was not run (malformed, files, fork)
 *     status <pid> <wstatus> <usec>
 *                             a child ended: its wait status as waitpid
 *                             gives it, and its time from fork to end in
 *                             microseconds, measured here (the runner may
 *                             read the answers late)
 * `pid` or `error` answers the requests in order; `status` lines come as
 * children end, several may be in flight.
 *
 * Two additions make a seed cheap (docs/test-binary.md, "Fast requests"):
 * a `jobs <n>` line caps the children in flight (`ok` answers it; later
 * requests wait here, and each is forked the moment one ends, without a
 * round trip to the runner), and an eighth field `lazy` captures the
 * child's output in memory (memfds): the two files are written only when
 * the child did not end with exit 0 and a report line as its last stderr
 * line; otherwise no file is made and the status answer carries the line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "test_serve.h"
#include "fence/fence.h"

#include <errno.h>
#include <fcntl.h>
#include <gc/gc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h> /* __fpending */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SERVE_LINE 16384 /* a request: three paths and three short values */
#define SERVE_FIELDS 7
#define SERVE_MAX_FIELDS 8    /* the eighth: `lazy` */
#define SERVE_MAX_LIMIT 1e7   /* seconds a limit may say */
#define SERVE_MAX_JOBS 1024   /* what `jobs <n>` may say */
#define SERVE_MAX_QUEUED 4096 /* requests waiting for a job */
#define SERVE_REPORT_TAIL 1024 /* bytes of a lazy child's stderr read for its report line */
#define SERVE_INLINE_PATHS 240 /* bytes of a lazy child's two paths kept in its entry */
#define SERVE_SPARE_CAPTURES 8 /* memfd pairs of passed sim seeds kept for the next ones */

static int chld_pipe[2] = {-1, -1};
static volatile sig_atomic_t ending; /* SIGTERM: the parent died (or asked) */

/* SIGCHLD and SIGTERM both wake the loop through the pipe. */
static void on_signal(int sig) {
    int e = errno;
    if (sig == SIGTERM) ending = 1;
    (void)!write(chld_pipe[1], "c", 1);
    errno = e;
}

/* Answers wait in a buffer until the loop is about to sleep: a child's
 * `status` and the next one's `pid` reach the runner in one write (one
 * wakeup). A failed write means the runner is gone: nothing is left to
 * serve, and nothing of what was served may stay. */
static char out_buf[2 * SERVE_LINE];
static size_t out_len;

static void flush_answers(void) {
    for (size_t done = 0; done < out_len;) {
        ssize_t w = write(1, out_buf + done, out_len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            test_isolate_kill_all();
            _exit(3);
        }
        done += (size_t)w;
    }
    out_len = 0;
}

/* Formats into the buffer itself: a line's copy on the stack would be
 * pages the server writes after each fork, each a fault. An answer is
 * shorter than SERVE_LINE, so there is room once the buffer has less. */
static void answer(const char *fmt, ...) {
    if (sizeof out_buf - out_len < SERVE_LINE) flush_answers();
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out_buf + out_len, SERVE_LINE, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= SERVE_LINE) {
        n = SERVE_LINE - 1; /* cut, as a line is: its end is a newline */
        out_buf[out_len + (size_t)n - 1] = '\n';
    }
    out_len += (size_t)n;
}

/* Splits line into fields at tabs and undoes the escapes in place. */
static const char *split(char *line, char *f[SERVE_MAX_FIELDS], bool *lazy) {
    int n = 0;
    char *out = line;
    f[n++] = out;
    for (char *p = line; *p; p++) {
        if (*p == '\t') {
            *out++ = '\0';
            if (n == SERVE_MAX_FIELDS) return "expected 7 fields separated by tabs";
            f[n++] = out;
        } else if (*p == '\\') {
            p++;
            if (*p == '\\') *out++ = '\\';
            else if (*p == 't') *out++ = '\t';
            else if (*p == 'n') *out++ = '\n';
            else return "a backslash not followed by \\, t or n";
        } else {
            *out++ = *p;
        }
    }
    *out = '\0';
    if (n != SERVE_FIELDS && n != SERVE_MAX_FIELDS) return "expected 7 fields separated by tabs";
    *lazy = n == SERVE_MAX_FIELDS;
    if (*lazy && strcmp(f[7], "lazy") != 0) return "the eighth field is not 'lazy'";
    if (!*f[3] || !*f[4]) return "empty stdout or stderr path";
    for (int i = 0; i < SERVE_FIELDS; i++)
        if (i != 3 && i != 4 && !*f[i]) return "an empty field (write '-' to leave a variable unset)";
    if (strcmp(f[6], "-") != 0) {
        char *end;
        errno = 0;
        double limit = strtod(f[6], &end);
        if (errno || *end || !(limit > 0) || limit > SERVE_MAX_LIMIT) return "the limit is not '-' or seconds above 0";
    }
    return NULL;
}

static void set_var(const char *name, const char *value) {
    if (strcmp(value, "-") == 0) unsetenv(name);
    else setenv(name, value, 1);
}

/* A child in flight: when it was forked, when it is killed (0: never);
 * a lazy one's output in memory and the files it goes to if reported. */
typedef struct child {
    pid_t pid;
    int64_t start_ns, deadline_ns;
    int out_fd, err_fd; /* memfds; -1 for a child writing to its files */
    /* a lazy one's two paths, "<stdout>\0<stderr>\0": in place when they
     * fit (no malloc and free a seed, whose pages would be written after
     * each fork), else in paths */
    char *paths;
    size_t err_at;
    bool kept; /* on the server's CPU until another child starts (keep_child_here) */
    bool seed; /* a sim seed's (a request with a seed) */
    char inline_paths[SERVE_INLINE_PATHS];
} child;

static const char *out_path(const child *k) { return k->paths ? k->paths : k->inline_paths; }
static const char *err_path(const child *k) { return out_path(k) + k->err_at; }

typedef struct server {
    int (*run)(void *);
    void *ctx;
    int devnull;
    struct sigaction old_chld, old_term, old_pipe;
    child *kids; /* in flight */
    size_t nkids, cap;
    size_t jobs;   /* children at once (`jobs <n>`); 0: no cap */
    size_t holds;  /* lazy children that ended unclean, not yet answered by `go` or `drop` */
    /* requests waiting for a job, in order: qlen lines, each ended by a
     * NUL, from qtext + qstart on (one buffer, no malloc and free a
     * request: their pages would be written after each fork) */
    char *qtext;
    size_t qcap, qstart, qend, qlen;
    cpu_set_t cpus;  /* the server's own CPUs (a taskset's, a cpuset's): a child's too */
    /* memfd pairs (stdout, stderr) emptied for the next lazy sim seeds
     * (spare_capture); reuse: the fence is on (fence_env_setting) */
    int spare[SERVE_SPARE_CAPTURES][2];
    size_t nspare;
    bool reuse;
    bool local_fork; /* more than one of them, and not OXL_TEST_SPREAD_FORKS: keep_child_here */
} server;

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool add_child(server *s, child k) {
    if (s->nkids == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        child *n = realloc(s->kids, cap * sizeof *n);
        if (!n) return false;
        s->kids = n;
        s->cap = cap;
    }
    s->kids[s->nkids++] = k;
    return true;
}

/* (reads k only: a child closes what its server holds without writing
 * the server's pages) */
static void close_captures(const child *k) {
    if (k->out_fd >= 0) close(k->out_fd);
    if (k->err_fd >= 0) close(k->err_fd);
}

static void drop_child(child *k) {
    close_captures(k);
    free(k->paths);
    k->paths = NULL;
}

/* Takes pid off the list into *k; false when it was not there. */
static bool take_child(server *s, pid_t pid, child *k) {
    for (size_t i = 0; i < s->nkids; i++)
        if (s->kids[i].pid == pid) {
            *k = s->kids[i];
            s->kids[i] = s->kids[--s->nkids];
            return true;
        }
    return false;
}

/* A sim seed's child started while no other runs is kept on the CPU the
 * server runs on, which the server leaves to it as it waits, rather than
 * put by the kernel on an idle one: its fork, its end and the server's
 * wakeup then cross no cores (fewer TLB-flush and wakeup interrupts), a
 * tenth off a trivial seed at -j 1 on the development machine's 2-core VM
 * (docs/testing.md, "Cost per seed"). The server itself is narrowed for
 * the fork only. A kept child is let go to the server's own CPUs (a
 * taskset's, a cpuset's) as soon as another child starts, so a -j of
 * several runs on every core. A unit test (no seed: it may run threads)
 * is never kept; OXL_TEST_SPREAD_FORKS=1 keeps no child. */
static bool keep_child_here(const server *s) {
    if (!s->local_fork || s->nkids > 0) return false;
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &s->cpus)) return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
}

/* Before another child starts: the kept one may move again. */
static void let_kept_go(server *s) {
    for (size_t i = 0; i < s->nkids; i++)
        if (s->kids[i].kept) {
            sched_setaffinity(s->kids[i].pid, sizeof s->cpus, &s->cpus);
            s->kids[i].kept = false;
        }
}

/* The collector's fork handlers take its lock before a fork and, in the
 * child, release it, make it again and rebuild the thread table: five
 * pages or so written in every child, each a copy-on-write fault, a tenth
 * of a trivial seed. The server forks from its one thread and never
 * inside a collection, and the runtime starts no thread of the
 * collector's, so a child's collector needs no repair: the server has
 * none installed (0; -1 would still install them). */
void test_serve_before_gc(void) { GC_set_handle_fork(0); }

/* A memfd for a lazy child's stdout or stderr: memory, no inode on disk. */
static int capture_fd(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

/* A passed sim seed's captures, emptied, serve the next lazy sim seed: a
 * memfd made and freed is a shmem inode and a dentry each, two a seed, a
 * twentieth of a trivial one. Only with the fence on, so the seed could
 * start no process that might hold them still (a unit test's never are);
 * what its group had left is killed before its status is taken (reap).
 * True when they were kept (the caller no longer owns them). */
static bool spare_capture(server *s, const child *k) {
    if (!s->reuse || !k->seed || k->out_fd < 0 || k->err_fd < 0 || s->nspare == SERVE_SPARE_CAPTURES) return false;
    for (int i = 0; i < 2; i++) {
        int fd = i ? k->err_fd : k->out_fd;
        if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) return false;
    }
    s->spare[s->nspare][0] = k->out_fd;
    s->spare[s->nspare][1] = k->err_fd;
    s->nspare++;
    return true;
}

/* (reads s only: a child closes them too) */
static void close_spares(const server *s) {
    for (size_t i = 0; i < s->nspare; i++) {
        close(s->spare[i][0]);
        close(s->spare[i][1]);
    }
}

static void start(server *s, char *line) {
    char *f[SERVE_MAX_FIELDS];
    bool lazy = false;
    const char *why = split(line, f, &lazy);
    if (why) {
        answer("error malformed request: %s\n", why);
        return;
    }
    bool seed = strcmp(f[1], "-") != 0; /* a sim seed: fenced, no threads, no terminal */
    bool spare = lazy && seed && s->nspare > 0;
    if (spare) s->nspare--;
    int out = spare ? s->spare[s->nspare][0] : lazy ? capture_fd("stdout") : open(f[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        answer("error cannot open '%s': %s\n", f[3], strerror(errno));
        return;
    }
    int err = spare ? s->spare[s->nspare][1] : lazy ? capture_fd("stderr") : open(f[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0) {
        answer("error cannot open '%s': %s\n", f[4], strerror(errno));
        close(out);
        return;
    }
    child k = {.out_fd = -1, .err_fd = -1};
    if (lazy) {
        size_t no = strlen(f[3]) + 1, ne = strlen(f[4]) + 1;
        char *to = no + ne <= sizeof k.inline_paths ? k.inline_paths : (k.paths = malloc(no + ne));
        if (to) {
            memcpy(to, f[3], no);
            memcpy(to + no, f[4], ne);
            k.err_at = no;
        } else {
            answer("error cannot fork: out of memory\n");
            close(out);
            close(err);
            drop_child(&k);
            return;
        }
    }
    /* nothing buffered may be written twice */
    /* (checked first: a flush locks the stream, a write to libc's pages) */
    if (__fpending(stdout)) fflush(stdout);
    if (__fpending(stderr)) fflush(stderr);
    pid_t server_pid = getpid();
    /* room for it before the fork: a child the list cannot hold would
     * have no time and, worse, no entry */
    if (!add_child(s, k)) {
        answer("error cannot fork: out of memory\n");
        close(out);
        close(err);
        drop_child(&k);
        return;
    }
    s->nkids--;
    double limit = strcmp(f[6], "-") == 0 ? 0 : strtod(f[6], NULL);
    int64_t start_ns = mono_ns();
    int64_t deadline_ns = limit > 0 ? start_ns + (int64_t)(limit * 1e9) : 0;
    let_kept_go(s);
    bool kept = seed && keep_child_here(s);
    pid_t pid = fork();
    if (kept && pid != 0) sched_setaffinity(0, sizeof s->cpus, &s->cpus); /* the server's own again */
    if (pid < 0) {
        answer("error cannot fork: %s\n", strerror(errno));
        close(out);
        close(err);
        drop_child(&k);
        return;
    }
    if (pid == 0) {
        /* a process group of its own, killed with it, where no
         * terminal's signals reach it. A unit test's process may do
         * anything: it also leads a session, so it has no terminal to
         * stop on. A sim seed's cannot open one (the fence) and stays in
         * the server's session: with scheduler autogroups (Linux's
         * default) a session costs a task group, created and freed,
         * about 150 us a seed, more than the rest of a trivial seed */
        if (seed) setpgid(0, 0);
        else setsid();
        /* A child outlives no server: when the server dies before it
         * could tell the runner this child's pid, nobody else could kill
         * it, and the runner runs the seed again elsewhere. (In a pid
         * namespace of its own it sees no parent: getppid() is 0.) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != server_pid) _exit(137);
        if (limit > 0) {
            /* CPU seconds: whatever it forks, also outside its group,
             * stops spinning when the server cannot kill it */
            rlim_t cpu = (rlim_t)limit + ((double)(rlim_t)limit < limit); /* whole seconds, up */
            struct rlimit rl = {cpu, cpu + 1};
            setrlimit(RLIMIT_CPU, &rl);
        }
        sigaction(SIGCHLD, &s->old_chld, NULL);
        sigaction(SIGTERM, &s->old_term, NULL);
        sigaction(SIGPIPE, &s->old_pipe, NULL);
        dup2(s->devnull, 0);
        dup2(out, 1);
        dup2(err, 2);
        close(out);
        close(err);
        close(s->devnull);
        close(chld_pipe[0]);
        close(chld_pipe[1]);
        /* the server's answers are the server's to write: the child
         * never writes them (nor resets them: its writes are faults) */
        /* the other children's captures are not the child's. The
         * server's list and queue stay as they are: freeing them would
         * write the heap's pages, each a copy of the server's page (a
         * fault) in every child; the server is static, so they stay
         * reachable and a test that ends by exit() has no leak reported */
        for (size_t i = 0; i < s->nkids; i++) close_captures(&s->kids[i]);
        close_spares(s);
        close_captures(&k);
        set_var("OXL_TEST_RUN", f[0]);
        set_var("OXL_TEST_SEED", f[1]);
        set_var("OXL_SIM_REPORT", f[2]);
        set_var("OXL_DATA_DIR", f[5]);
        exit(s->run(s->ctx)); /* exit, not _exit: as main returning, atexit handlers flush */
    }
    /* the child's group may not exist yet when the runner learns the
     * pid: it kills the pid as well as the group (it has forked nothing
     * before setpgid or setsid, its first act) */
    if (lazy) {
        k.out_fd = out;
        k.err_fd = err;
    } else {
        close(out);
        close(err);
    }
    k.pid = pid;
    k.kept = kept;
    k.seed = seed;
    k.start_ns = start_ns;
    k.deadline_ns = deadline_ns;
    add_child(s, k); /* has room: see above */
    answer("pid %ld\n", (long)pid);
}

/* `jobs <n>`: true when line was one (answered). */
static bool set_jobs(server *s, const char *line) {
    if (strncmp(line, "jobs ", 5) != 0) return false;
    char *end;
    errno = 0;
    long n = strtol(line + 5, &end, 10);
    if (errno || *end || end == line + 5 || n < 1 || n > SERVE_MAX_JOBS)
        answer("error malformed request: jobs takes a number from 1 to %d\n", SERVE_MAX_JOBS);
    else {
        s->jobs = (size_t)n;
        answer("ok\n");
    }
    return true;
}

/* The oldest waiting request, taken off the queue (valid until the next
 * push). */
static const char *queue_pop(server *s) {
    const char *q = s->qtext + s->qstart;
    s->qstart += strlen(q) + 1;
    if (--s->qlen == 0) s->qstart = s->qend = 0;
    return q;
}

/* Appends a request; false when it does not fit. */
static bool queue_push(server *s, const char *line) {
    size_t n = strlen(line) + 1;
    if (s->qlen >= SERVE_MAX_QUEUED) return false;
    if (s->qend + n > s->qcap && s->qstart > 0) {
        /* the consumed front makes room */
        memmove(s->qtext, s->qtext + s->qstart, s->qend - s->qstart);
        s->qend -= s->qstart;
        s->qstart = 0;
    }
    if (s->qend + n > s->qcap) {
        size_t cap = s->qcap ? s->qcap : 4 * SERVE_LINE;
        while (cap < s->qend + n) cap *= 2;
        char *t = realloc(s->qtext, cap);
        if (!t) return false;
        s->qtext = t;
        s->qcap = cap;
    }
    memcpy(s->qtext + s->qend, line, n);
    s->qend += n;
    s->qlen++;
    return true;
}

/* `go` and `drop`: after a lazy child's unclean end (a failure, a crash,
 * a kill) the queue waits for the runner, which may want none of it (a
 * fail-fast run past its first failure): `go` lets it go on, `drop`
 * refuses what waits (`error dropped: not run`, each in order). */
static bool resume(server *s, const char *line) {
    bool go = strcmp(line, "go") == 0, drop = strcmp(line, "drop") == 0;
    if (!go && !drop) return false;
    if (s->holds) s->holds--;
    while (drop && s->qlen) {
        queue_pop(s);
        answer("error dropped: not run\n");
    }
    return true;
}

static void start_queued(server *s);

/* A request now, or in the queue while the jobs are all taken. */
static void take_request(server *s, char *line) {
    if (set_jobs(s, line)) return;
    if (resume(s, line)) {
        start_queued(s);
        return;
    }
    if (!s->jobs || (s->nkids < s->jobs && s->qlen == 0 && !s->holds)) {
        start(s, line);
        return;
    }
    if (!queue_push(s, line)) answer("error cannot fork: more than %d requests wait\n", SERVE_MAX_QUEUED);
}

/* Starts what waits, as far as the jobs allow. */
static void start_queued(server *s) {
    static char line[SERVE_LINE];
    while (s->qlen && s->nkids < s->jobs && !s->holds) {
        /* copied out: start() splits it in place */
        snprintf(line, sizeof line, "%s", queue_pop(s));
        start(s, line);
    }
}

/* Copies a capture into its file; false on a failure. */
static bool write_capture(int from, const char *path) {
    int to = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (to < 0) return false;
    struct stat st;
    bool ok = fstat(from, &st) == 0;
    off_t off = 0;
    while (ok && off < st.st_size) {
        ssize_t n = sendfile(to, from, &off, (size_t)(st.st_size - off));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ok = false;
    }
    return close(to) == 0 && ok;
}

/* A lazy child's last stderr line into line (escaped, as a field) when
 * it ended by exit 0 with a report line last: then no file is written.
 * Otherwise both captures go to their files and line is empty. */
static void settle_capture(child *k, int st, char *line, size_t cap) {
    line[0] = '\0';
    if (k->err_fd < 0) return;
    char tail[SERVE_REPORT_TAIL + 1];
    struct stat sb = {0};
    ssize_t n = 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && fstat(k->err_fd, &sb) == 0 && sb.st_size > 0) {
        size_t want = sb.st_size < SERVE_REPORT_TAIL ? (size_t)sb.st_size : SERVE_REPORT_TAIL;
        n = pread(k->err_fd, tail, want, sb.st_size - (off_t)want);
    }
    if (n > 1 && tail[n - 1] == '\n') {
        tail[n - 1] = '\0';
        char *last = memrchr(tail, '\n', (size_t)n - 1);
        last = last ? last + 1 : tail;
        bool whole = last != tail || (sb.st_size <= SERVE_REPORT_TAIL);
        if (whole && (strncmp(last, "oxl-sim: ", 9) == 0 || strncmp(last, "oxl-unit: ", 10) == 0) &&
            strlen(last) * 2 + 1 < cap) {
            char *o = line;
            for (const char *c = last; *c; c++) {
                if (*c == '\\' || *c == '\t' || *c == '\n') {
                    *o++ = '\\';
                    *o++ = *c == '\\' ? '\\' : *c == '\t' ? 't' : 'n';
                } else {
                    *o++ = *c;
                }
            }
            *o = '\0';
            return;
        }
    }
    /* reported: its output is wanted in full (a failure to write it shows
     * as files the runner cannot read) */
    write_capture(k->out_fd, out_path(k));
    write_capture(k->err_fd, err_path(k));
}

/* Kills the children past their limit (their status comes as they end);
 * the milliseconds until the next limit, -1 when none is set. */
static int kill_late(server *s) {
    int64_t now = mono_ns(), next = -1;
    for (size_t i = 0; i < s->nkids; i++) {
        child *k = &s->kids[i];
        if (!k->deadline_ns) continue;
        if (k->deadline_ns <= now) {
            kill(-k->pid, SIGKILL);
            kill(k->pid, SIGKILL);
            k->deadline_ns = 0;
        } else if (next < 0 || k->deadline_ns - now < next) {
            next = k->deadline_ns - now;
        }
    }
    return next < 0 ? -1 : (int)(next / 1000000) + 1;
}

/* Reaps every ended child. WNOWAIT first: while the child is a zombie its
 * group id cannot be reused, so killing what is left of its group cannot
 * hit another process. */
static void reap(server *s) {
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) return;
        pid_t pid = si.si_pid;
        kill(-pid, SIGKILL);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        int64_t end_ns = mono_ns();
        child k;
        if (!take_child(s, pid, &k)) continue; /* an orphan a child left, adopted by this subreaper */
        char line[2 * SERVE_REPORT_TAIL + 2];
        settle_capture(&k, st, line, sizeof line);
        if (k.err_fd >= 0 && !line[0] && s->jobs) s->holds++; /* until the runner's `go` or `drop` */
        if (line[0] && spare_capture(s, &k)) k.out_fd = k.err_fd = -1;
        drop_child(&k);
        /* the next waiting request starts before this answer is written:
         * its `pid` goes out with this `status` */
        start_queued(s);
        answer("status %ld %d %lld%s%s\n", (long)pid, st, (long long)((end_ns - k.start_ns) / 1000),
               line[0] ? " " : "", line);
    }
}

int oxl_test_serve(int (*run)(void *ctx), void *ctx) {
    /* the runner starts a server with LD_BIND_NOW=oxl-serve (when it has
     * no LD_BIND_NOW of its own): every symbol was bound at this exec, once
     * for all children, which must not see the setting */
    const char *bind = getenv("LD_BIND_NOW");
    if (bind && strcmp(bind, "oxl-serve") == 0) unsetenv("LD_BIND_NOW");
    static server s; /* static: what a child inherits of it stays reachable (start) */
    s = (server){.run = run, .ctx = ctx, .devnull = open("/dev/null", O_RDWR)};
    const char *spread = getenv("OXL_TEST_SPREAD_FORKS");
    if (spread && *spread && strcmp(spread, "0") != 0 && strcmp(spread, "1") != 0) {
        fprintf(stderr, "error: --serve: OXL_TEST_SPREAD_FORKS='%s' must be 0 or 1\n", spread);
        return 2;
    }
    s.reuse = fence_env_setting() == 1;
    s.local_fork = sched_getaffinity(0, sizeof s.cpus, &s.cpus) == 0 && CPU_COUNT(&s.cpus) > 1 &&
                   !(spread && strcmp(spread, "1") == 0);
    if (s.devnull < 0 || pipe(chld_pipe) != 0) {
        fprintf(stderr, "error: --serve: cannot set up: %s\n", strerror(errno));
        return 2;
    }
    for (int i = 0; i < 2; i++) fcntl(chld_pipe[i], F_SETFL, fcntl(chld_pipe[i], F_GETFL) | O_NONBLOCK);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &s.old_chld);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, &s.old_term);
    /* a runner gone is a failed write, not a death before the cleanup */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &s.old_pipe);
    test_isolate_begin();
    answer("ready\n");
    static char buf[SERVE_LINE];
    size_t len = 0;
    bool input = true, skipping = false;
    while ((input || s.nkids > 0 || s.qlen > 0) && !ending) {
        flush_answers();
        struct pollfd pf[2] = {{chld_pipe[0], POLLIN, 0}, {0, POLLIN, 0}};
        if (poll(pf, input ? 2 : 1, kill_late(&s)) < 0) {
            if (errno != EINTR) break;
            continue;
        }
        if (pf[0].revents) {
            char drain[64];
            while (read(chld_pipe[0], drain, sizeof drain) > 0) {
            }
            reap(&s);
        }
        if (!input || !pf[1].revents) continue;
        ssize_t n = read(0, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            input = false;
            if (len && !skipping) answer("error malformed request: the input ended inside a line\n");
            continue;
        }
        len += (size_t)n;
        char *p = buf, *nl;
        while ((nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
            *nl = '\0';
            if (skipping) skipping = false;
            else take_request(&s, p);
            p = nl + 1;
        }
        len -= (size_t)(p - buf);
        memmove(buf, p, len);
        if (len == sizeof buf - 1) {
            /* no request is this long: answer once, drop it up to its newline */
            if (!skipping) answer("error malformed request: longer than %d bytes\n", SERVE_LINE - 1);
            skipping = true;
            len = 0;
        }
    }
    if (!ending) reap(&s);
    flush_answers();
    /* the parent died (PR_SET_PDEATHSIG) or asked: what runs dies; at the
     * end of the input, what the children left behind (adopted) */
    test_isolate_kill_all();
    for (size_t i = 0; i < s.nkids; i++) drop_child(&s.kids[i]);
    close_spares(&s);
    free(s.kids);
    free(s.qtext);
    return 0;
}
