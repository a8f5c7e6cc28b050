/* tr_explore.c: `oxl test --in-process` (docs/testing.md, "In-process
 * sweeps"): a sim test's seeds run one after the other in one long-lived
 * process, the test binary's --explore (docs/test-binary.md), which costs
 * a seed its run and no fork. Only a seed that passed there is reported
 * from there; a seed that did not (a failure, a crash, a hang) is handed
 * back so the caller runs it in a fresh process, whose result is the one
 * reported. There is one explorer a job (-j); seeds go to them in turns
 * and are reported in order, as process mode reports them. After every
 * EXPLORE_CANARY_EVERY seeds an explorer runs its first passing seed
 * again: another trace means a run left state behind that changed a later
 * one, and the mode stops with `state leaked between seeds`. */
#define _GNU_SOURCE /* pipe2 */
#include "tr_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXPLORE_IN_FLIGHT 64         /* requests sent ahead of their answers */
#define EXPLORE_CANARY_EVERY 100     /* seeds between two runs of the canary */
#define EXPLORE_AHEAD 16             /* rounds of seeds answered ahead of the oldest unanswered */
#define EXPLORE_MAX_CANARY_EVERY 1000000000ull


/* A seed sent to an explorer, in the run's order. */
typedef struct pending {
    tr_item it;
    int status;  /* its explorer's answer; -1 it died or hung on it */
    bool answered;
} pending;

typedef struct explorer {
    pid_t pid;   /* 0: stopped */
    int req, resp;
    char buf[4096];
    size_t len;
    /* the answers awaited, oldest first: a position in the run's ring, or
     * -1 for a run of the canary */
    long q[EXPLORE_IN_FLIGHT + 2];
    size_t head, n;
    tr_buf out;  /* requests not yet written */
    bool has_canary;
    tr_item canary;
    uint64_t canary_trace, since_canary, answered;
    double head_since;
} explorer;

typedef struct explore {
    tr_runner *r;
    const tr_test *t;
    tr_gen *g;
    explorer *xs;
    int nx;
    pending *ring; /* positions [head, next) of this sweep, mod ring_cap */
    uint64_t ring_cap;
    uint64_t head, next;
    uint64_t every;
    bool gen_done;
} explore;

/* OXL_TEST_CANARY_EVERY: seeds between canary runs; 0 when it is bad (said). */
static uint64_t canary_every(void) {
    const char *v = getenv("OXL_TEST_CANARY_EVERY");
    uint64_t n = EXPLORE_CANARY_EVERY;
    if (v && (!tr_parse_u64(v, &n) || n < 1 || n > EXPLORE_MAX_CANARY_EVERY)) {
        fprintf(stderr, "oxl test: OXL_TEST_CANARY_EVERY='%s' is not a number of seeds from 1 to %llu\n", v,
                (unsigned long long)EXPLORE_MAX_CANARY_EVERY);
        return 0;
    }
    return n;
}

bool tr_explore_check_env(void) { return canary_every() != 0; }

static bool ex_start(tr_runner *r, explorer *x) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return false;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    static const char *const env[] = {"OXL_TEST_RUN", "OXL_TEST_SEED", "OXL_SIM_REPORT", "OXL_DATA_DIR", NULL};
    /* what the runs print is not kept: a seed that does not pass is run
     * again in a fresh process, whose output is reported */
    int e = tr_spawn(&x->pid, r->bin, "--explore", env, in[0], out[1], NULL, "/dev/null");
    close(in[0]);
    close(out[1]);
    if (e != 0) {
        close(in[1]);
        close(out[0]);
        x->pid = 0;
        errno = e;
        return false;
    }
    x->req = in[1];
    x->resp = out[0];
    fcntl(x->resp, F_SETFL, fcntl(x->resp, F_GETFL) | O_NONBLOCK);
    x->head_since = tr_now();
    return true;
}

static void ex_stop(explorer *x) {
    if (x->pid > 0) {
        close(x->req);
        close(x->resp);
        kill(-x->pid, SIGKILL);
        kill(x->pid, SIGKILL);
        while (waitpid(x->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    x->pid = 0;
    x->n = 0;
    tr_buf_free(&x->out);
}

static void ex_send(explorer *x, const tr_item *it, long at) {
    tr_buf_printf(&x->out, "%d\t%" PRIu64 "\n", it->test->index, it->seed);
    if (x->n == 0) x->head_since = tr_now();
    x->q[(x->head + x->n++) % (EXPLORE_IN_FLIGHT + 2)] = at;
}

static bool ex_flush(explorer *x) {
    bool ok = tr_write_all(x->req, x->out.s, x->out.len);
    x->out.len = 0;
    return ok;
}

/* Every explorer stopped; every position not reported given back, in order. */
static void stop_all(explore *e) {
    for (int i = 0; i < e->nx; i++) ex_stop(&e->xs[i]);
    for (uint64_t p = e->head; p < e->next; p++) tr_gen_give_back(e->g, &e->ring[p % e->ring_cap].it);
    e->head = e->next;
}

/* An explorer died or hangs: the seed it ran did not pass there. */
static void ex_died(explore *e, explorer *x) {
    for (size_t i = 0; i < x->n; i++) {
        long at = x->q[(x->head + i) % (EXPLORE_IN_FLIGHT + 2)];
        if (at < 0) continue;
        pending *p = &e->ring[(uint64_t)at % e->ring_cap];
        p->answered = true;
        p->status = -1;
        break; /* its oldest seed; what it had after that is given back with it */
    }
    ex_stop(x);
}

/* Sends x seeds until it has EXPLORE_IN_FLIGHT, when it is down to half. */
static bool refill(explore *e, explorer *x) {
    if (x->pid <= 0 || e->gen_done || x->n > EXPLORE_IN_FLIGHT / 2) return true;
    while (x->n < EXPLORE_IN_FLIGHT && e->next - e->head < e->ring_cap) {
        tr_item it;
        if (!tr_gen_next(e->r, e->g, &it)) {
            e->gen_done = true;
            break;
        }
        pending *p = &e->ring[e->next % e->ring_cap];
        memset(p, 0, sizeof *p);
        p->it = it;
        ex_send(x, &it, (long)(e->next % e->ring_cap));
        e->next++;
    }
    return ex_flush(x);
}

/* Takes x's answers: false when its canary ran differently (said). */
static bool take_answers(explore *e, explorer *x) {
    ssize_t got = read(x->resp, x->buf + x->len, sizeof x->buf - 1 - x->len);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        ex_died(e, x);
        return true;
    }
    if (got > 0) x->len += (size_t)got;
    char *nl;
    while (x->pid > 0 && x->n > 0 && (nl = memchr(x->buf, '\n', x->len))) {
        *nl = '\0';
        long at = x->q[x->head];
        uint64_t seed, trace;
        int status;
        long long usec;
        char end;
        bool ok = sscanf(x->buf, "done %" SCNu64 " %d %" SCNx64 " %lld%c", &seed, &status, &trace, &usec, &end) == 4;
        size_t used = (size_t)(nl - x->buf) + 1;
        memmove(x->buf, x->buf + used, x->len - used);
        x->len -= used;
        pending *p = at >= 0 ? &e->ring[(uint64_t)at % e->ring_cap] : NULL;
        if (!ok || seed != (p ? p->it.seed : x->canary.seed)) {
            ex_died(e, x); /* not an explorer of this protocol: as if it died on this seed */
            return true;
        }
        x->head = (x->head + 1) % (EXPLORE_IN_FLIGHT + 2);
        x->n--;
        x->head_since = tr_now();
        if (!p) {
            if (status == 0 && trace == x->canary_trace) continue;
            tr_clear_progress(e->r);
            fprintf(stderr,
                    "oxl test: error: --in-process: state leaked between seeds in '%s': seed %" PRIu64
                    " ran again in the explorer ended with status %d and trace %016" PRIx64
                    ", where its first run there passed with trace %016" PRIx64
                    "; the rest of its seeds run in process mode\n",
                    e->t->shown, seed, status, trace, x->canary_trace);
            return false;
        }
        p->answered = true;
        p->status = status;
        p->it.trace = trace;
        p->it.seconds = (double)usec * 1e-6;
        x->answered++;
        if (status != 0) continue;
        if (!x->has_canary) {
            x->has_canary = true;
            x->canary = p->it;
            x->canary_trace = trace;
        } else if (++x->since_canary >= e->every && x->n < EXPLORE_IN_FLIGHT + 1) {
            /* after what is in flight: it runs on what all of that left */
            x->since_canary = 0;
            ex_send(x, &x->canary, -1);
        }
    }
    if (x->pid > 0 && x->out.len && !ex_flush(x)) ex_died(e, x);
    return true;
}

int tr_explore(tr_runner *r, const tr_test *t, tr_gen *g, uint64_t *pos, uint64_t total, const char *what,
               tr_item_done_fn done, void *ctx) {
    explore e = {.r = r, .t = t, .g = g, .nx = r->o.jobs};
    e.every = canary_every(); /* good: tr_setup_env checked it */
    if (!e.every) return TR_EXPLORE_UNAVAILABLE;
    e.xs = calloc((size_t)e.nx, sizeof *e.xs);
    /* room for answers ahead of the oldest seed not yet answered: an
     * explorer that is done with its seeds goes on while another's
     * oldest runs, rather than waiting on it */
    e.ring_cap = (uint64_t)e.nx * (EXPLORE_IN_FLIGHT + 2) * EXPLORE_AHEAD;
    e.ring = malloc(e.ring_cap * sizeof *e.ring);
    int *fds = malloc((size_t)e.nx * sizeof *fds);
    if (!e.xs || !e.ring || !fds) abort();
    int why = TR_EXPLORE_DONE;
    for (int i = 0; i < e.nx; i++)
        if (!ex_start(r, &e.xs[i])) {
            tr_clear_progress(r);
            fprintf(stderr, "oxl test: warning: --in-process: the test binary cannot be started as an explorer: %s; "
                            "'%s' runs in process mode\n", strerror(errno), t->shown);
            why = TR_EXPLORE_UNAVAILABLE;
            goto out;
        }
    double since = tr_now(), last_progress = 0;
    for (;;) {
        for (int i = 0; i < e.nx; i++)
            if (!refill(&e, &e.xs[i])) ex_died(&e, &e.xs[i]);
        uint64_t answered = 0;
        for (int i = 0; i < e.nx; i++) answered += e.xs[i].answered;
        /* report in order what has passed; stop at what has not */
        while (e.head < e.next && e.ring[e.head % e.ring_cap].answered) {
            pending *p = &e.ring[e.head % e.ring_cap];
            if (p->status == -1 && !answered) {
                /* its explorer died on its first seed, and no other has
                 * answered: not a leak (nothing ran before it), a binary
                 * that cannot explore; a seed that crashes anyway is
                 * reported by process mode */
                tr_clear_progress(r);
                fprintf(stderr, "oxl test: warning: --in-process: the test binary did not explore (its explorer "
                                "ended before its first answer); '%s' runs in process mode\n", t->shown);
                why = TR_EXPLORE_UNAVAILABLE;
                goto out;
            }
            if (p->status != 0) {
                why = TR_EXPLORE_STOPPED;
                goto out;
            }
            e.head++;
            p->it.done = true;
            p->it.res = TR_RES_PASS;
            p->it.has_trace = true;
            done(r, &p->it, (*pos)++, ctx);
        }
        int live = 0, nfds = 0, busy = 0;
        double wait = r->tty ? 0.1 : 1.0, now = tr_now();
        for (int i = 0; i < e.nx; i++) {
            explorer *x = &e.xs[i];
            if (x->pid <= 0) continue;
            live++;
            busy += x->n > 0; /* seeds or a canary awaited */
            fds[nfds++] = x->resp;
            if (r->o.timeout > 0 && x->n > 0) {
                double left = x->head_since + r->o.timeout - now;
                if (left < wait) wait = left;
            }
        }
        if (e.head == e.next && (e.gen_done || !live) && !busy) break;
        if (!live) {
            if (!answered) {
                /* on their first seeds, with nothing run before: not a
                 * leak, a binary that cannot explore (a seed that crashes
                 * anyway is reported by process mode) */
                tr_clear_progress(r);
                fprintf(stderr, "oxl test: warning: --in-process: the test binary did not explore (its explorer "
                                "ended before its first answer); '%s' runs in process mode\n", t->shown);
                why = TR_EXPLORE_UNAVAILABLE;
                goto out;
            }
            why = TR_EXPLORE_STOPPED; /* every explorer died: from the oldest unreported seed */
            goto out;
        }
        if (!tr_wait_event(wait, fds, (size_t)nfds)) {
            r->interrupted = true;
            for (int i = 0; i < e.nx; i++) ex_stop(&e.xs[i]);
            e.head = e.next; /* not run: an interrupt ends the run */
            goto out;
        }
        now = tr_now();
        for (int i = 0; i < e.nx; i++) {
            explorer *x = &e.xs[i];
            if (x->pid <= 0) continue;
            if (!take_answers(&e, x)) {
                why = TR_EXPLORE_LEAKED;
                goto out;
            }
            if (x->pid > 0 && x->n > 0 && r->o.timeout > 0 && now - x->head_since >= r->o.timeout)
                ex_died(&e, x); /* a seed hangs */
        }
        if (what && now - last_progress >= 0.1) {
            tr_show_progress(r, what, *pos, total, 0, since);
            last_progress = now;
        }
    }
out:
    stop_all(&e);
    free(e.xs);
    free(e.ring);
    free(fds);
    return why;
}
