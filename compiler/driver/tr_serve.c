/* tr_serve.c: the runner's side of the fork server (the test binary's
 * --serve, docs/test-binary.md). One server per run forks every process
 * of the run, several in flight for -j N: an exec of the test binary costs
 * several times a fork of it. A request is answered by `pid` (or `error`)
 * at once; `status` lines come as children end and are matched to the
 * processes by pid, with each child's time as the server measured it. When the server ends while children are in flight,
 * they are killed and marked lost, so the caller runs them again another
 * way: no result is lost or taken from a half-run process. */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ANSWER_WAIT 10.0 /* seconds for `ready` and `pid`: a fork, not a test */
#define STOP_WAIT 2.0    /* seconds for the server to exit at the end of its input */
#define LIMIT_GRACE 1.0  /* seconds the server's own limit of a process comes after the runner's */

struct tr_server {
    pid_t pid;
    int req, resp; /* -1 once closed */
    bool ready;
    char buf[1024];
    size_t len;
    tr_proc **procs; /* in flight */
    size_t nprocs, cap;
    bool answered; /* it has started a process: it can serve */
    bool request_lost; /* it was ready, took a request and died before its answer */
    char err[TR_PATH];
    char why[512];
};

static void set_why(char *why, size_t cap, const char *fmt, const char *arg) {
    snprintf(why, cap, fmt, arg);
}

static int above_stdio(int fd) {
    if (fd > 2) {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        return fd;
    }
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (moved < 0) return fd;
    close(fd);
    return moved;
}

tr_server *tr_server_start(const char *exe, const char *err, char *why, size_t cap) {
    return tr_server_start_env(exe, NULL, err, why, cap);
}

tr_server *tr_server_start_env(const char *exe, const char *const *extra, const char *err, char *why, size_t cap) {
    int in[2], out[2];
    if (pipe(in) != 0) {
        set_why(why, cap, "cannot make a pipe: %s", strerror(errno));
        return NULL;
    }
    if (pipe(out) != 0) {
        set_why(why, cap, "cannot make a pipe: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        return NULL;
    }
    /* only the server gets these, as its stdin and stdout; above 2, so
     * that moving them to 0 and 1 in the server cannot clobber one with
     * the other when the runner runs with stdin closed */
    for (int i = 0; i < 2; i++) {
        in[i] = above_stdio(in[i]);
        out[i] = above_stdio(out[i]);
    }
    /* the server's environment has none of a process's variables: each
     * child gets exactly those its request names */
    static const char *const unset[] = {"OXL_TEST_RUN", "OXL_TEST_SEED", "OXL_SIM_REPORT", "OXL_DATA_DIR"};
    const char *env[sizeof unset / sizeof *unset + TR_SERVER_EXTRA_ENV + 1];
    size_t ne = 0;
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) env[ne++] = unset[i];
    for (size_t i = 0; extra && extra[i] && i < TR_SERVER_EXTRA_ENV; i++) env[ne++] = extra[i];
    env[ne] = NULL;
    pid_t pid;
    int e = tr_spawn(&pid, exe, "--serve", env, in[0], out[1], NULL, err);
    close(in[0]);
    close(out[1]);
    if (e != 0) {
        set_why(why, cap, "it could not be started: %s", strerror(e));
        close(in[1]);
        close(out[0]);
        return NULL;
    }
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    tr_server *s = tr_xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->pid = pid;
    s->req = in[1];
    s->resp = out[0];
    snprintf(s->err, sizeof s->err, "%s", err);
    return s;
}

int tr_server_fd(const tr_server *s) { return s ? s->resp : -1; }

bool tr_server_answered(const tr_server *s) { return s && s->answered; }

bool tr_server_request_lost(const tr_server *s) { return s && s->request_lost; }

void tr_server_close_input(tr_server *s) {
    if (s && s->req >= 0) {
        close(s->req);
        s->req = -1;
    }
}

const char *tr_server_why(const tr_server *s) { return s ? s->why : ""; }

/* The server is gone or useless: kill it and its children (their results
 * are unknown: lost), and say why from its status and its stderr. */
static void server_dead(tr_server *s, const char *what) {
    if (s->resp < 0) return;
    for (size_t i = 0; i < s->nprocs; i++) {
        tr_proc *p = s->procs[i];
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        p->ended = p->lost = true;
        p->end = tr_now();
    }
    s->nprocs = 0;
    if (s->req >= 0) close(s->req);
    close(s->resp);
    s->req = s->resp = -1;
    kill(-s->pid, SIGKILL);
    kill(s->pid, SIGKILL);
    int st = 0;
    while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR) {
    }
    tr_buf b = {0};
    tr_buf_puts(&b, what);
    char sig[32];
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0) tr_buf_printf(&b, "; it exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
        tr_buf_printf(&b, "; it was killed by %s", tr_signal_name(WTERMSIG(st), sig, sizeof sig));
    size_t omitted;
    char *tail = tr_read_tail(s->err, 4096, &omitted);
    if (tail) {
        /* its last line says most */
        size_t n = strlen(tail);
        while (n && tail[n - 1] == '\n') tail[--n] = '\0';
        char *last = strrchr(tail, '\n');
        if (*tail) tr_buf_printf(&b, ": %s", last ? last + 1 : tail);
        free(tail);
    }
    snprintf(s->why, sizeof s->why, "%s", b.s ? b.s : what);
    tr_buf_free(&b);
}

/* A `status <pid> <wstatus>` line: true when it was one (and is handled). */
static bool take_status(tr_server *s, const char *line) {
    long pid;
    int st;
    long long usec = -1;
    char end;
    int n = sscanf(line, "status %ld %d %lld%c", &pid, &st, &usec, &end);
    if (n != 2 && n != 3) return false;
    for (size_t i = 0; i < s->nprocs; i++) {
        tr_proc *p = s->procs[i];
        if (p->pid != (pid_t)pid) continue;
        p->wstatus = st;
        p->end = tr_now();
        /* the server's measure: the runner may have read the pid and
         * this status late, or both at once */
        if (n == 3 && usec >= 0) p->ran = (double)usec * 1e-6;
        p->ended = true;
        s->procs[i] = s->procs[--s->nprocs];
        break;
    }
    return true;
}

/* Reads what is there; false at the end of the server's output. */
static bool fill(tr_server *s) {
    if (s->len == sizeof s->buf) return true; /* a line that long is handled by next_line */
    ssize_t n = read(s->resp, s->buf + s->len, sizeof s->buf - s->len);
    if (n > 0) s->len += (size_t)n;
    return n != 0 && !(n < 0 && errno != EAGAIN && errno != EINTR);
}

/* The next line that is not a status (statuses are handled on the way);
 * NULL when none is complete. Copies it into line. */
static bool next_line(tr_server *s, char *line, size_t cap) {
    for (;;) {
        char *nl = memchr(s->buf, '\n', s->len);
        if (!nl) {
            if (s->len == sizeof s->buf) {
                server_dead(s, "it said something unreadable");
            }
            return false;
        }
        *nl = '\0';
        size_t used = (size_t)(nl - s->buf) + 1;
        bool status = take_status(s, s->buf);
        if (!status) snprintf(line, cap, "%s", s->buf);
        memmove(s->buf, nl + 1, s->len - used);
        s->len -= used;
        if (!status) return true;
    }
}

void tr_server_pump(tr_server *s) {
    if (!s || s->resp < 0) return;
    bool open = fill(s);
    char line[sizeof s->buf];
    while (s->resp >= 0 && next_line(s, line, sizeof line)) {
        /* only statuses come unasked */
        snprintf(s->why, sizeof s->why, "it said '%.400s' unasked", line);
        server_dead(s, s->why);
    }
    if (!open && s->resp >= 0) server_dead(s, "it ended");
}

/* The answer to the last request (or `ready`), waiting for it. */
static bool answer(tr_server *s, char *line, size_t cap) {
    double until = tr_now() + ANSWER_WAIT;
    bool eof = false;
    for (;;) {
        if (s->resp < 0) return false;
        if (next_line(s, line, cap)) return true;
        if (s->resp < 0) return false;
        double left = until - tr_now();
        if (eof || left <= 0) {
            server_dead(s, eof ? "it ended" : "it did not answer in time");
            return false;
        }
        struct pollfd pf = {s->resp, POLLIN, 0};
        poll(&pf, 1, (int)(left * 1000) + 1);
        eof = !fill(s);
    }
}

/* Appends a request field: "-" for unset, else the value escaped. */
static void field(tr_buf *b, const char *v) {
    if (!v) {
        tr_buf_puts(b, "-");
        return;
    }
    for (const char *c = v; *c; c++) {
        if (*c == '\\') tr_buf_puts(b, "\\\\");
        else if (*c == '\t') tr_buf_puts(b, "\\t");
        else if (*c == '\n') tr_buf_puts(b, "\\n");
        else tr_buf_add(b, c, 1);
    }
}

bool tr_server_run(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                   double timeout, char *why, size_t cap) {
    static const char *const names[] = {"OXL_TEST_RUN", "OXL_TEST_SEED", "OXL_SIM_REPORT", "OXL_DATA_DIR"};
    const char *val[4] = {NULL, NULL, NULL, NULL};
    for (const char *const *e = env; e && *e; e++) {
        size_t len = strcspn(*e, "=");
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (strlen(names[i]) == len && strncmp(*e, names[i], len) == 0) k = i;
        if (k < 0) {
            snprintf(why, cap, "it cannot set %.*s", (int)len, *e);
            return false;
        }
        val[k] = (*e)[len] == '=' ? *e + len + 1 : NULL;
    }
    /* "-" is how a request leaves a variable unset */
    for (int i = 0; i < 4; i++)
        if (val[i] && (strcmp(val[i], "-") == 0 || !*val[i])) {
            snprintf(why, cap, "it cannot set %s to '%s'", names[i], val[i]);
            return false;
        }
    char line[sizeof s->buf];
    if (!s->ready) {
        if (!answer(s, line, sizeof line)) {
            snprintf(why, cap, "%s", s->why);
            return false;
        }
        if (strcmp(line, "ready") != 0) {
            snprintf(s->why, sizeof s->why, "it began with '%.400s', not 'ready'", line);
            server_dead(s, s->why);
            snprintf(why, cap, "%s", s->why);
            return false;
        }
        s->ready = true;
    }
    tr_buf b = {0};
    for (int i = 0; i < 3; i++) {
        field(&b, val[i]);
        tr_buf_puts(&b, "\t");
    }
    field(&b, out);
    tr_buf_puts(&b, "\t");
    field(&b, err);
    tr_buf_puts(&b, "\t");
    field(&b, val[3]);
    /* the server kills the process itself a little after the runner
     * would: the limit holds when the runner is stopped or gone */
    if (timeout > 0) tr_buf_printf(&b, "\t%.3f\n", timeout + LIMIT_GRACE);
    else tr_buf_puts(&b, "\t-\n");
    bool sent = true;
    for (size_t done = 0; done < b.len && sent;) {
        ssize_t w = write(s->req, b.s + done, b.len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) sent = false;
        else done += (size_t)w;
    }
    tr_buf_free(&b);
    if (!sent) {
        server_dead(s, "it stopped reading");
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    if (!answer(s, line, sizeof line)) {
        /* a ready server that dies between a request and its answer most
         * likely forked the process, and the process killed it at once */
        s->request_lost = true;
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    long pid;
    char end;
    if (strncmp(line, "error ", 6) == 0) {
        snprintf(why, cap, "it could not run a process: %s", line + 6);
        return false;
    }
    if (sscanf(line, "pid %ld%c", &pid, &end) != 1 || pid <= 0) {
        snprintf(s->why, sizeof s->why, "it answered '%.400s', not 'pid <n>'", line);
        server_dead(s, s->why);
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    memset(p, 0, sizeof *p);
    s->answered = true;
    p->pid = (pid_t)pid;
    p->ran = -1;
    p->srv = s;
    p->start = tr_now();
    p->deadline = timeout > 0 ? p->start + timeout : 0;
    if (s->nprocs == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->procs = tr_xrealloc(s->procs, s->cap * sizeof *s->procs);
    }
    s->procs[s->nprocs++] = p;
    tr_server_pump(s); /* statuses read with the answer */
    return true;
}

void tr_server_stop(tr_server *s) {
    if (!s) return;
    if (s->resp >= 0) {
        for (size_t i = 0; i < s->nprocs; i++) {
            kill(-s->procs[i]->pid, SIGKILL);
            kill(s->procs[i]->pid, SIGKILL);
        }
        /* at the end of its input the server reaps its children and exits */
        tr_server_close_input(s);
        double until = tr_now() + STOP_WAIT;
        bool open = true;
        while (open && tr_now() < until) {
            struct pollfd pf = {s->resp, POLLIN, 0};
            poll(&pf, 1, 50);
            open = fill(s);
            s->len = 0;
        }
        close(s->resp);
        s->resp = -1;
        if (open) {
            kill(-s->pid, SIGKILL);
            kill(s->pid, SIGKILL);
        }
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    free(s->procs);
    free(s);
}
