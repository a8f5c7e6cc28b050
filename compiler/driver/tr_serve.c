/* tr_serve.c: the runner's side of the fork server (the test binary's
 * --serve, docs/test-binary.md). One server per run forks every process
 * of the run, several in flight for -j N: an exec of the test binary costs
 * several times a fork of it. A request is answered by `pid` (or `error`)
 * at once; `status` lines come as children end and are matched to the
 * processes by pid, with each child's time as the server measured it. When the server ends while children are in flight,
 * they are killed and marked lost, so the caller runs them again another
 * way: no result is lost or taken from a half-run process.
 *
 * A request need not wait for its answer (tr_server_submit): with `jobs
 * <n>` the server holds what it cannot fork yet and forks it the moment a
 * child ends, so the runner keeps requests queued there and a seed costs
 * no round trip between the runner and the server. The `pid` and `error`
 * answers come in the order of the requests (the pending list), and a
 * `lazy` request's output stays in the server's memory unless it is
 * reported: a passing seed's status carries its report line instead. */
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
    tr_proc **pending; /* sent, no `pid` or `error` yet, in order; NULL: given up */
    size_t npending, pending_cap;
    int jobs;          /* > 0: the `jobs` line to send first */
    bool jobs_sent, await_ok;
    int owed; /* unclean lazy ends the server holds its queue for (tr_server_resume) */
    unsigned long dry_round; /* 1 + the round (tr_wait_rounds) a read found nothing more */
    bool answered; /* it said `ready` (or started a process): it can serve */
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
    const char *env[sizeof unset / sizeof *unset + TR_SERVER_EXTRA_ENV + 2];
    size_t ne = 0;
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) env[ne++] = unset[i];
    for (size_t i = 0; extra && extra[i] && i < TR_SERVER_EXTRA_ENV; i++) env[ne++] = extra[i];
    /* and the dynamic loader binds every library's symbols at its exec,
     * not lazily in each forked child (a lookup and a written page per
     * first call, per process); the server drops this setting before its
     * first child, which sees the runner's environment (docs/test-binary.md) */
    if (!getenv("LD_BIND_NOW")) env[ne++] = "LD_BIND_NOW=" TR_SERVE_BIND_NOW;
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

void tr_server_set_jobs(tr_server *s, int jobs) {
    if (s && !s->jobs_sent) s->jobs = jobs;
}

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
    /* sent and not started (or not said to be): lost as well; one the
     * server forked without telling dies with it (PR_SET_PDEATHSIG). A
     * ready server that dies between a request and its answer most likely
     * forked the process, and the process killed it at once. */
    if (s->ready && s->npending > 0) s->request_lost = true;
    for (size_t i = 0; i < s->npending; i++) {
        tr_proc *p = s->pending[i];
        if (!p) continue;
        p->queued = false;
        p->ended = p->lost = true;
        p->end = tr_now();
    }
    s->npending = 0;
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

/* Undoes a field's escapes (malloc'd); NULL on a bad one. */
static char *unescape_field(const char *v) {
    char *out = tr_xmalloc(strlen(v) + 1), *o = out;
    for (const char *c = v; *c; c++) {
        if (*c != '\\') {
            *o++ = *c;
            continue;
        }
        c++;
        if (*c == '\\') *o++ = '\\';
        else if (*c == 't') *o++ = '\t';
        else if (*c == 'n') *o++ = '\n';
        else {
            free(out);
            return NULL;
        }
    }
    *o = '\0';
    return out;
}

/* A `status <pid> <wstatus> [<usec> [<report line>]]` line: true when it
 * was one (and is handled). */
static bool take_status(tr_server *s, const char *line) {
    long pid;
    int st;
    long long usec = -1;
    int used = -1;
    int n = sscanf(line, "status %ld %d %lld%n", &pid, &st, &usec, &used);
    if (n == 2) {
        char end;
        if (sscanf(line, "status %ld %d%c", &pid, &st, &end) != 2) return false;
    } else if (n != 3 || used < 0 || (line[used] && line[used] != ' ')) {
        return false;
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        tr_proc *p = s->procs[i];
        if (p->pid != (pid_t)pid) continue;
        p->wstatus = st;
        p->end = tr_now();
        /* the server's measure: the runner may have read the pid and
         * this status late, or both at once */
        if (n == 3 && usec >= 0) p->ran = (double)usec * 1e-6;
        /* a lazy request's report line: its files were not written */
        if (n == 3 && line[used] == ' ') {
            free(p->report);
            p->report = unescape_field(line + used + 1);
            if (!p->report) p->report = tr_xstrdup("");
        } else if (p->lazy && s->jobs_sent) {
            s->owed++; /* the server holds its queue until told */
        }
        p->ended = true;
        s->procs[i] = s->procs[--s->nprocs];
        break;
    }
    return true;
}

/* The answer to the oldest request without one: `pid` or `error`. */
static bool take_answer(tr_server *s, const char *line) {
    long pid;
    char end;
    bool is_pid = sscanf(line, "pid %ld%c", &pid, &end) == 1 && pid > 0;
    bool is_error = strncmp(line, "error ", 6) == 0;
    if (!s->npending || (!is_pid && !is_error)) return false;
    tr_proc *p = s->pending[0];
    memmove(s->pending, s->pending + 1, (s->npending - 1) * sizeof *s->pending);
    s->npending--;
    if (!p) {
        /* given up on (tr_server_forget): what it started dies now */
        if (is_pid) {
            kill(-(pid_t)pid, SIGKILL);
            kill((pid_t)pid, SIGKILL);
        }
        return true;
    }
    p->queued = false;
    if (is_error) {
        /* nothing runs: the caller runs it another way */
        snprintf(s->why, sizeof s->why, "it could not run a process: %.400s", line + 6);
        p->ended = p->lost = p->refused = true;
        p->end = tr_now();
        return true;
    }
    s->answered = true;
    p->pid = (pid_t)pid;
    p->start = tr_now();
    p->deadline = p->timeout > 0 ? p->start + p->timeout : 0;
    if (s->nprocs == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->procs = tr_xrealloc(s->procs, s->cap * sizeof *s->procs);
    }
    s->procs[s->nprocs++] = p;
    return true;
}

/* Any line the server says: false when it was none it may say now (the
 * server is then dead). */
static bool take_line(tr_server *s, const char *line) {
    if (!s->ready) {
        if (strcmp(line, "ready") == 0) {
            /* it can serve: when it dies now, a process it ran may have
             * killed it (requests go out before their answers are read) */
            s->ready = s->answered = true;
            return true;
        }
        snprintf(s->why, sizeof s->why, "it began with '%.400s', not 'ready'", line);
        server_dead(s, s->why);
        return false;
    }
    if (take_status(s, line)) return true;
    if (s->await_ok && strcmp(line, "ok") == 0) {
        s->await_ok = false;
        return true;
    }
    if (s->await_ok && strncmp(line, "error ", 6) == 0) {
        /* it cannot take `jobs`: not a server of this protocol */
        snprintf(s->why, sizeof s->why, "it refused 'jobs': %.400s", line + 6);
        server_dead(s, s->why);
        return false;
    }
    if (!s->await_ok && take_answer(s, line)) return true;
    snprintf(s->why, sizeof s->why, "it said '%.400s' unasked", line);
    server_dead(s, s->why);
    return false;
}

/* Reads what is there; false at the end of the server's output. */
static bool fill(tr_server *s) {
    if (s->len == sizeof s->buf) return true; /* a line that long is handled by next_line */
    size_t room = sizeof s->buf - s->len;
    ssize_t n = read(s->resp, s->buf + s->len, room);
    if (n > 0) s->len += (size_t)n;
    if ((n >= 0 && (size_t)n < room) || (n < 0 && errno == EAGAIN)) s->dry_round = tr_wait_rounds() + 1;
    return n != 0 && !(n < 0 && errno != EAGAIN && errno != EINTR);
}

/* Takes every complete line there is. */
static void take_lines(tr_server *s) {
    size_t at = 0;
    while (s->resp >= 0) {
        char *nl = memchr(s->buf + at, '\n', s->len - at);
        if (!nl) break;
        *nl = '\0';
        const char *line = s->buf + at;
        at = (size_t)(nl - s->buf) + 1;
        if (!take_line(s, line)) return;
    }
    if (s->resp < 0) return;
    memmove(s->buf, s->buf + at, s->len - at);
    s->len -= at;
    if (s->len == sizeof s->buf) server_dead(s, "it said something unreadable");
}

void tr_server_pump(tr_server *s) {
    if (!s || s->resp < 0) return;
    /* several reads when answers come faster than one buffer */
    for (int i = 0; i < 8 && s->resp >= 0; i++) {
        size_t before = s->len;
        bool open = fill(s);
        take_lines(s);
        if (!open && s->resp >= 0) server_dead(s, "it ended");
        if (s->len == before || s->len < sizeof s->buf / 2) break;
    }
}

void tr_server_pump_round(tr_server *s) {
    if (s && s->dry_round != tr_wait_rounds() + 1) tr_server_pump(s);
}

/* Waits (up to ANSWER_WAIT) until done(s, arg) or the server is gone. */
static bool await(tr_server *s, bool (*done)(const tr_server *, const void *), const void *arg) {
    double until = tr_now() + ANSWER_WAIT;
    for (;;) {
        tr_server_pump(s);
        if (s->resp < 0) return false;
        if (done(s, arg)) return true;
        double left = until - tr_now();
        if (left <= 0) {
            server_dead(s, "it did not answer in time");
            return false;
        }
        struct pollfd pf = {s->resp, POLLIN, 0};
        poll(&pf, 1, (int)(left * 1000) + 1);
    }
}

static bool is_ready(const tr_server *s, const void *arg) {
    (void)arg;
    return s->ready;
}

static bool is_started(const tr_server *s, const void *arg) {
    (void)s;
    return !((const tr_proc *)arg)->queued;
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

bool tr_server_submit(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                      double timeout, bool lazy, char *why, size_t cap) {
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
    /* `ready` first: a binary that cannot serve is found out here, before
     * anything waits on it */
    if (s->resp >= 0 && !s->ready) await(s, is_ready, NULL);
    if (s->resp < 0) {
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    tr_buf b = {0};
    if (s->jobs > 0 && !s->jobs_sent) {
        tr_buf_printf(&b, "jobs %d\n", s->jobs);
        s->jobs_sent = s->await_ok = true;
    }
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
    if (timeout > 0) tr_buf_printf(&b, "\t%.3f", timeout + LIMIT_GRACE);
    else tr_buf_puts(&b, "\t-");
    tr_buf_puts(&b, lazy ? "\tlazy\n" : "\n");
    bool sent = tr_write_all(s->req, b.s, b.len);
    tr_buf_free(&b);
    if (!sent) {
        server_dead(s, "it stopped reading");
        s->request_lost = s->request_lost || s->ready; /* a process it ran may have killed it */
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    memset(p, 0, sizeof *p);
    p->ran = -1;
    p->srv = s;
    p->queued = true;
    p->lazy = lazy;
    p->timeout = timeout;
    p->start = tr_now();
    if (s->npending == s->pending_cap) {
        s->pending_cap = s->pending_cap ? s->pending_cap * 2 : 8;
        s->pending = tr_xrealloc(s->pending, s->pending_cap * sizeof *s->pending);
    }
    s->pending[s->npending++] = p;
    return true;
}

bool tr_server_run(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                   double timeout, bool lazy, char *why, size_t cap) {
    if (!tr_server_submit(s, p, env, out, err, timeout, lazy, why, cap)) return false;
    if (!await(s, is_started, p) || p->refused) {
        /* a refusal is said in why; a dead server lost p */
        snprintf(why, cap, "%s", s->why);
        return false;
    }
    return true;
}

void tr_server_resume(tr_server *s, bool drop) {
    if (!s || s->resp < 0 || s->req < 0 || !s->jobs_sent || (!drop && !s->owed)) return;
    tr_buf b = {0};
    if (drop) {
        tr_buf_puts(&b, "drop\n");
        if (s->owed) s->owed--;
    }
    for (; s->owed > 0; s->owed--) tr_buf_puts(&b, "go\n");
    bool sent = tr_write_all(s->req, b.s, b.len);
    tr_buf_free(&b);
    if (!sent) server_dead(s, "it stopped reading");
}

void tr_server_forget(tr_server *s, tr_proc *p) {
    if (!s) return;
    for (size_t i = 0; i < s->npending; i++)
        if (s->pending[i] == p) s->pending[i] = NULL;
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i] == p) {
            s->procs[i] = s->procs[--s->nprocs];
            break;
        }
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
    free(s->pending);
    free(s);
}
