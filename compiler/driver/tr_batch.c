/* tr_batch.c: one batch of processes (the unit tests, a sim test's seeds,
 * a determinism re-run), -j at a time, each in a slot with its own capture
 * files and data directory. Results are handed on in the batch's order,
 * so a parallel run reports what a sequential one would.
 *
 * A process is forked by the run's fork server (the test binary's
 * --serve), or by a server of its own (an exec each: the determinism
 * re-run, OXL_TEST_FORK_SERVER=0, and every process after the shared
 * server died), and spawned only when the binary cannot serve at all. So
 * a process is never the runner's child while it can be a server's: its
 * parent is a server that dies with the runner, and one that kills its
 * parent kills only that server (it is then reported so, and runs the same
 * way again). */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Requests queued in the shared server a job, besides the one running:
 * it forks the next the moment one ends even while the runner has not
 * looked (a fail-fast run drops what is queued past a failure: see
 * tr_serve.c). The runner tops the queue up only once half of it has
 * gone, several requests at a time: each request that finds the server
 * asleep wakes it on the CPU its seed runs on, and a write a seed cost
 * a trivial seed about a tenth (docs/testing.md, Cost per seed). */
#define TR_QUEUED_PER_JOB 15
#define TR_QUEUED_MAX 512 /* in all, far below the server's SERVE_MAX_QUEUED */

typedef struct slot {
    tr_proc p;
    tr_server *own; /* the server of this process alone, if it has one */
    bool busy;
    uint64_t pos;
    char out[TR_PATH], err[TR_PATH], data[TR_PATH], serve_err[TR_PATH];
    off_t out_shown, err_shown; /* --no-capture: bytes copied so far */
} slot;

/* The window of positions [head, next) of a batch. */
typedef struct window {
    tr_item *items;
    uint64_t head, next;
    size_t cap;
} window;

static tr_item *win_at(window *w, uint64_t pos) { return &w->items[pos % w->cap]; }

static void win_push(window *w, const tr_item *it) {
    if (w->next - w->head == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        tr_item *n = tr_xmalloc(cap * sizeof *n);
        for (uint64_t p = w->head; p < w->next; p++) n[p % cap] = w->items[p % w->cap];
        free(w->items);
        w->items = n;
        w->cap = cap;
    }
    w->items[w->next % w->cap] = *it;
    w->next++;
}

static bool find_trace(const char *last, uint64_t *trace);

/* The last line of text that starts with prefix, or NULL. */
static const char *last_line(const char *text, const char *prefix) {
    const char *last = NULL;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        if (p == text || p[-1] == '\n') last = p;
    return last;
}

/* The sim report line, `oxl-sim: seed=<n> trace=<hex> ...`, the last of
 * stderr: false when there is none for this seed (the run did not reach
 * its end: docs/test-binary.md); *has_trace when its trace reads. */
static bool find_sim_report(const char *text, uint64_t seed, bool *has_trace, uint64_t *trace) {
    *has_trace = false;
    const char *last = last_line(text, "oxl-sim: seed=");
    if (!last) return false;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(last + 14, &end, 10);
    if (errno || end == last + 14 || *end != ' ' || n != seed) return false;
    *has_trace = find_trace(last, trace);
    return true;
}

/* The unit report line, `oxl-unit: test=<index> done`. */
static bool find_unit_report(const char *text, int index) {
    char want[64];
    snprintf(want, sizeof want, "oxl-unit: test=%d done", index);
    const char *last = last_line(text, want);
    return last && (last[strlen(want)] == '\n' || last[strlen(want)] == '\0');
}

/* The trace of the sim report line that starts at last. */
static bool find_trace(const char *last, uint64_t *trace) {
    const char *t = strstr(last, " trace=");
    const char *eol = strchr(last, '\n');
    if (!t || (eol && t > eol)) return false;
    t += 7;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = t[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return false;
        v = v << 4 | (uint64_t)d;
    }
    if (t[16] != ' ' && t[16] != '\n' && t[16] != '\0') return false;
    *trace = v;
    return true;
}

/* What an ended process leaves is removed after the next processes have
 * started: off the path from one process to the next. */
static void trash(tr_runner *r, const char *path) {
    if (r->ntrash == r->trash_cap) {
        r->trash_cap = r->trash_cap ? r->trash_cap * 2 : 16;
        r->trash = tr_xrealloc(r->trash, r->trash_cap * sizeof *r->trash);
    }
    snprintf(r->trash[r->ntrash++], TR_PATH, "%s", path);
}

static void empty_trash(tr_runner *r) {
    for (size_t i = 0; i < r->ntrash; i++) tr_remove_tree(r->trash[i]);
    r->ntrash = 0;
}

/* What the slot's last process left, removed later (trash). A process
 * that reported its end through a lazy request made no capture files; one
 * that stored nothing made no data directory (its removal is one failed
 * lstat). */
static void trash_slot(tr_runner *r, slot *s) {
    trash(r, s->data);
    if (s->p.report) return;
    trash(r, s->out);
    trash(r, s->err);
}

/* A fork server failed: said once. One that never started a process
 * means the binary cannot serve, and every later process is spawned; one
 * that did (and then died: a process may have killed it) leaves every
 * later process to a server of its own. */
static void serve_fail(tr_runner *r, const char *why, bool cannot_serve) {
    r->shared_off = true;
    if (cannot_serve) r->servers_off = true;
    if (r->serve_warned && !(cannot_serve && !r->spawn_warned)) return;
    r->serve_warned = true;
    if (cannot_serve) r->spawn_warned = true;
    tr_clear_progress(r);
    fprintf(stderr, "oxl test: warning: the fork server failed: %s; each process is started %s from now on\n", why,
            cannot_serve ? "with posix_spawn" : "in a fork server of its own");
}

/* A server for this slot's process alone: it is forked, and the server
 * told to end once it has run it. False (with the reason said) when the
 * binary cannot serve. */
static bool start_own_server(tr_runner *r, slot *s, const char *const *env, const char *const *extra) {
    char why[1024];
    tr_pathf(s->serve_err, sizeof s->serve_err, "%s/serve-%lu.err", r->tmp, r->counter);
    s->own = tr_server_start_env(r->bin, extra, s->serve_err, why, sizeof why);
    if (s->own && tr_server_run(s->own, &s->p, env, s->out, s->err, r->o.timeout, !r->o.no_capture, why, sizeof why)) {
        tr_server_close_input(s->own);
        return true;
    }
    if (tr_server_request_lost(s->own)) {
        /* it died with the process's request in hand, before the `pid`
         * answer was read: nothing else ran there, so the process took it
         * down (a server's children die with it). The process has ended,
         * lost with its server: a crash, never spawned by the runner. */
        memset(&s->p, 0, sizeof s->p);
        s->p.start = s->p.end = tr_now();
        s->p.ran = -1;
        s->p.srv = s->own;
        s->p.ended = s->p.lost = true;
        return true;
    }
    tr_server_stop(s->own);
    s->own = NULL;
    serve_fail(r, why, true);
    return false;
}

/* A process's own server, once the process has ended. */
static void stop_own_server(tr_runner *r, slot *s) {
    if (!s->own) return;
    tr_server_stop(s->own);
    s->own = NULL;
    trash(r, s->serve_err);
}

/* Fresh names of a data directory and capture files for the slot's next
 * process. The directory is not made: the runtime makes it on the first
 * use of storage (docs/test-binary.md), so a process that stores nothing
 * costs no mkdir and no rmdir. */
static bool fresh_paths(tr_runner *r, slot *s) {
    ++r->counter;
    tr_pathf(s->data, sizeof s->data, "%s/data-%lu", r->tmp, r->counter);
    /* new files each time rather than truncated ones: ext4 writes a file
     * truncated to zero out when it is closed (auto_da_alloc), a disk
     * write per process */
    tr_pathf(s->out, sizeof s->out, "%s/out-%lu", r->tmp, r->counter);
    tr_pathf(s->err, sizeof s->err, "%s/err-%lu", r->tmp, r->counter);
    return true;
}

static bool start_slot(tr_runner *r, slot *s, tr_item *it, uint64_t pos) {
    s->own = NULL;
    if (!fresh_paths(r, s)) return false;
    char run[48], seed[48], data[TR_PATH + 16];
    snprintf(run, sizeof run, "OXL_TEST_RUN=%d", it->test->index);
    snprintf(seed, sizeof seed, "OXL_TEST_SEED=%" PRIu64, it->seed);
    snprintf(data, sizeof data, "OXL_DATA_DIR=%s", s->data);
    /* OXL_SIM_REPORT=1 for every process: its report line is how a run
     * says it reached its end, and a sim seed's also has its trace */
    const char *env[5] = {run, it->test->sim ? seed : "OXL_TEST_SEED", data, "OXL_SIM_REPORT=1", NULL};
    const char *full[5 + TR_SERVER_EXTRA_ENV] = {env[0], env[1], env[2], env[3]};
    /* the run's policy, and a trace dump's file: in the environment of the
     * process and of a server of its own (a request carries only the four
     * above); the shared server has the policy from its start */
    const char *extra[TR_SERVER_EXTRA_ENV + 1];
    size_t ne = 0, nenv = 4;
    char dump[TR_PATH + 32];
    for (size_t i = 0; r->sim_env[i]; i++) {
        extra[ne++] = r->sim_env[i];
        if (r->trace_dump && strcmp(r->sim_env[i], "OXL_SIM_TRACE_DUMP") == 0) {
            snprintf(dump, sizeof dump, "OXL_SIM_TRACE_DUMP=%s", r->trace_dump);
            extra[ne - 1] = dump;
        }
    }
    extra[ne] = NULL;
    for (size_t i = 0; i < ne; i++) full[nenv++] = extra[i];
    full[nenv] = NULL;
    bool served = false;
    if (!r->shared_off && !r->own_server && !r->trace_dump) {
        char why[1024];
        if (!r->srv) {
            char err[TR_PATH];
            tr_pathf(err, sizeof err, "%s/serve.err", r->tmp);
            r->srv = tr_server_start_env(r->bin, r->sim_env, err, why, sizeof why);
            if (!r->srv) serve_fail(r, why, true);
            /* -j processes at once in the server; the runner keeps more
             * requests queued there (TR_QUEUED_PER_JOB, TR_QUEUED_MAX) */
            tr_server_set_jobs(r->srv, r->o.jobs);
        }
        if (r->srv && !r->shared_off) {
            served = tr_server_submit(r->srv, &s->p, env, s->out, s->err, r->o.timeout, !r->o.no_capture, why, sizeof why);
            if (!served) {
                /* the server may have forked a child into these paths
                 * before it failed (it dies with the server): start
                 * again another way, in paths of its own */
                serve_fail(r, why, !tr_server_answered(r->srv) && !tr_server_request_lost(r->srv));
                trash_slot(r, s);
                return start_slot(r, s, it, pos);
            }
        }
    }
    if (!served && !r->servers_off) {
        served = start_own_server(r, s, env, extra);
        if (!served) {
            trash_slot(r, s);
            return start_slot(r, s, it, pos);
        }
    }
    if (!served && !tr_proc_start(&s->p, r->bin, NULL, full, s->out, s->err, r->o.timeout)) {
        fprintf(stderr, "oxl test: cannot start a process: %s\n", strerror(errno));
        tr_remove_tree(s->data);
        return false;
    }
    s->busy = true;
    s->pos = pos;
    s->out_shown = s->err_shown = 0;
    if (r->o.no_capture) tr_stream_begin(r, it);
    return true;
}

static void finish_slot(tr_runner *r, slot *s, tr_item *it) {
    it->done = true;
    it->wstatus = s->p.wstatus;
    it->timed_out = s->p.timed_out;
    it->seconds = s->p.ran >= 0 ? s->p.ran : s->p.end - s->p.start;
    char *report = s->p.report; /* the report line; no files were written */
    if (s->p.lost) {
        /* its own server died with it in flight: nothing else ran there,
         * so the process took its server down (it killed its parent) */
        it->server_died = true;
        it->wstatus = SIGKILL; /* as waitpid says "killed by SIGKILL" */
    }
    stop_own_server(r, s);
    if (it->timed_out) it->res = TR_RES_TIMEOUT;
    else if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) == 0) it->res = TR_RES_PASS;
    else if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) == 101) it->res = TR_RES_FAIL;
    else if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) == TR_EXIT_EXHAUSTED) it->res = TR_RES_EXHAUSTED;
    else it->res = TR_RES_CRASH;
    /* exit 0 is a pass only with the report line the binary prints at the
     * end of its run, the last of its stderr: an exit(0) in a C extern, or
     * a binary that is no test binary of this protocol, is not a pass */
    size_t om = 0;
    char *err = report ? tr_xstrdup(report) : tr_read_tail(s->err, it->res == TR_RES_PASS ? 4096 : TR_SHOW_BYTES, &om);
    bool reported = false;
    if (err && it->test->sim) reported = find_sim_report(err, it->seed, &it->has_trace, &it->trace);
    else if (err) reported = find_unit_report(err, it->test->index);
    if (it->res == TR_RES_PASS && !reported) {
        it->res = TR_RES_CRASH;
        it->incomplete = true;
        if (!report) {
            free(err);
            err = tr_read_tail(s->err, TR_SHOW_BYTES, &om);
        }
    }
    if (it->res != TR_RES_PASS) {
        it->err = err;
        it->err_omitted = om;
        it->out = report ? tr_xstrdup("") : tr_read_tail(s->out, TR_SHOW_BYTES, &it->out_omitted);
    } else {
        free(err);
    }
    trash_slot(r, s);
    free(s->p.report);
    s->p.report = NULL;
    s->busy = false;
    r->procs_run++;
}

void tr_free_item(tr_item *it) {
    free(it->out);
    free(it->err);
    it->out = it->err = NULL;
}

uint64_t tr_run_batch(tr_runner *r, tr_gen *g, bool stop_on_fail, uint64_t total, const char *what,
                      tr_item_done_fn done, void *ctx) {
    /* through the shared server -j run at once and as many again wait
     * there, each forked as one ends; any other way, -j at once */
    int queued = r->o.jobs * TR_QUEUED_PER_JOB < TR_QUEUED_MAX ? r->o.jobs * TR_QUEUED_PER_JOB : TR_QUEUED_MAX;
    int nslots = r->o.jobs + queued;
    slot *slots = tr_xmalloc((size_t)nslots * sizeof *slots);
    int *fds = tr_xmalloc(((size_t)nslots + 1) * sizeof *fds);
    for (int i = 0; i < nslots; i++) {
        slots[i].busy = false;
        slots[i].p.report = NULL;
    }
    window w = {0};
    uint64_t stop = UINT64_MAX, emitted = 0, failed = 0;
    bool exhausted = false, broken = false;
    int busy = 0;
    double since = tr_now(), last_progress = 0;
    for (;;) {
        /* --no-capture shows each process's output as it comes: no
         * request queued behind a running one */
        bool direct = r->shared_off || r->own_server || r->o.no_capture;
        int room = direct ? r->o.jobs : nslots;
        bool top_up = direct || busy <= room - (queued + 1) / 2;
        while (top_up && !r->interrupted && !broken && busy < room && !exhausted && w.next < stop) {
            tr_item it;
            if (!tr_gen_next(r, g, &it)) {
                exhausted = true;
                break;
            }
            uint64_t pos = w.next;
            win_push(&w, &it);
            slot *s = NULL;
            for (int i = 0; i < nslots && !s; i++)
                if (!slots[i].busy) s = &slots[i];
            if (!start_slot(r, s, win_at(&w, pos), pos)) {
                broken = true; /* reported; the run ends as interrupted */
                w.next--;
                break;
            }
            busy++;
        }
        empty_trash(r); /* while the new processes run */
        if (busy == 0) break;
        double timeout = r->tty || r->o.no_capture ? 0.1 : 1.0;
        size_t nfds = 0;
        if (r->srv) fds[nfds++] = tr_server_fd(r->srv);
        for (int i = 0; i < nslots; i++) {
            if (!slots[i].busy || !slots[i].p.srv) continue;
            if (slots[i].own) fds[nfds++] = tr_server_fd(slots[i].own);
            if (slots[i].p.ended) timeout = 0; /* its status came with another answer */
        }
        if (!tr_wait_event(timeout, fds, nfds)) r->interrupted = true;
        /* what waits in the server is not wanted: refused there, never forked */
        if (r->interrupted || broken) tr_server_resume(r->srv, true);
        uint64_t unstarted = 0;
        for (int i = 0; i < nslots; i++) {
            slot *s = &slots[i];
            if (!s->busy) continue;
            /* one that ended before the interrupt keeps its result: with
             * requests queued in the server, the next may have started
             * before the runner read this one's status */
            if ((r->interrupted || broken) && s->p.srv) tr_server_pump(s->p.srv);
            if ((r->interrupted || broken) && !(s->p.srv && s->p.ended && !s->p.lost)) {
                tr_proc_kill(&s->p);
                if (s->p.refused) unstarted++;
                stop_own_server(r, s);
                tr_remove_tree(s->data);
                s->busy = false;
                busy--;
                continue;
            }
            bool ended = tr_proc_poll(&s->p);
            if (r->o.no_capture) tr_stream_files(r, s->out, s->err, &s->out_shown, &s->err_shown);
            if (!ended) continue;
            if (s->p.lost && !s->own) {
                /* the shared server died under it: run it again in a
                 * server of its own, in fresh files and a fresh data
                 * directory (if it killed the server, it kills only that
                 * one, and is reported so) */
                serve_fail(r, tr_server_why(r->srv), false);
                trash_slot(r, s);
                s->busy = false;
                if (!start_slot(r, s, win_at(&w, s->pos), s->pos)) {
                    broken = true;
                    busy--;
                }
                continue;
            }
            tr_item *it = win_at(&w, s->pos);
            finish_slot(r, s, it);
            busy--;
            if (it->res != TR_RES_PASS) {
                failed++;
                if (stop_on_fail && s->pos < stop) {
                    stop = s->pos;
                    /* everything queued in the server is above it */
                    tr_server_resume(r->srv, true);
                    for (int k = 0; k < nslots; k++) {
                        if (slots[k].busy && slots[k].pos > stop) {
                            tr_proc_kill(&slots[k].p);
                            stop_own_server(r, &slots[k]);
                            tr_remove_tree(slots[k].data);
                            slots[k].busy = false;
                            busy--;
                        }
                    }
                }
            }
        }
        /* the last positions taken, never started: a unit test among them
         * was not run (rather than interrupted) */
        if (unstarted && g->units) g->upos -= unstarted;
        tr_server_resume(r->srv, false); /* the server's queue goes on */
        while (w.head < w.next && w.head <= stop && win_at(&w, w.head)->done) {
            tr_item *it = win_at(&w, w.head);
            done(r, it, w.head, ctx);
            tr_free_item(it);
            w.head++;
            emitted++;
        }
        /* items after the stop that finished before it was known */
        if (stop != UINT64_MAX && w.head > stop) {
            for (uint64_t p = w.head; p < w.next; p++) tr_free_item(win_at(&w, p));
            w.head = w.next;
        }
        double now = tr_now();
        if (what && now - last_progress >= 0.1) {
            tr_show_progress(r, what, emitted, total, failed, since);
            last_progress = now;
        }
        if (r->interrupted && busy == 0) break;
    }
    for (uint64_t p = w.head; p < w.next; p++) tr_free_item(win_at(&w, p));
    free(w.items);
    free(slots);
    free(fds);
    empty_trash(r);
    if (broken) r->interrupted = true;
    return emitted;
}
