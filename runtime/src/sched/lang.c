/* lang.c: what generated OxL code calls for tasks, channels, select and its
 * main: thin word-sized wrappers over the scheduler, with OxL's panics.
 *
 * Task handles live in collected memory (a Task[T] is a value the program
 * may keep after the task's record is gone) and carry the task's result, so
 * a result that is a pointer stays visible to the collector. Between spawn
 * and its end a task's handle is only referenced from the scheduler's
 * malloc'd record, so a list rooted in a static variable keeps it (and the
 * arguments it will read) alive. */
#define _XOPEN_SOURCE 700 /* sigaltstack, SA_ONSTACK */
#include "sched_internal.h"

#include "oxl_rt.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct oxl_go_handle {
    oxl_go_handle *prev, *next; /* running handles (live_handles) */
    oxl_thunk fn;
    void *env;
    oxl_task *task;             /* NULL once a join returned (the record may be gone then) */
    uint64_t id;
    uint64_t result;
    bool cancelled;             /* what the join saw, for the joins after it */
    bool cancel_asked;          /* t.cancel() was called */
};

/* A root for the collector: bdwgc scans the program's static data. */
static oxl_go_handle *live_handles;

static void live_unlink(oxl_go_handle *h) {
    if (h->prev)
        h->prev->next = h->next;
    else if (live_handles == h)
        live_handles = h->next;
    if (h->next) h->next->prev = h->prev;
    h->prev = h->next = NULL;
}

static void *go_entry(void *arg) {
    oxl_go_handle *h = arg;
    uint64_t r = h->fn(h->env);
    h->result = r;
    h->env = NULL;
    live_unlink(h);
    return NULL;
}

oxl_go_handle *oxl_go(oxl_thunk fn, void *env, const char *file, int line) {
    oxl_go_handle *h = oxl_alloc(sizeof *h);
    h->fn = fn;
    h->env = env;
    h->next = live_handles;
    if (live_handles) live_handles->prev = h;
    live_handles = h;
    h->task = oxl_spawn_at(go_entry, h, file, line);
    h->id = oxl_task_id(h->task);
    return h;
}

void oxl_go_name(oxl_go_handle *h, const struct oxl_str_obj *name, const char *file, int line) {
    if (!h || !h->task) return;
    int64_t n = name ? name->len : 0;
    if (n == 0) oxl_panic_at(file, line, "a task's name is empty (spawn(name: ...))");
    if (n > OXL_TASK_NAME_MAX)
        oxl_panic_at(file, line, "a task's name is %" PRId64 " bytes; at most %d (spawn(name: ...))", n, OXL_TASK_NAME_MAX);
    char buf[OXL_TASK_NAME_MAX + 1];
    for (int64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name->data[i];
        if (c < 0x20 || c == 0x7f)
            oxl_panic_at(file, line, "a task's name has a control character (byte %" PRId64 "): it would break a report's lines", i);
        buf[i] = (char)c;
    }
    buf[n] = '\0';
    oxl_task_set_name(h->task, buf);
}

/* Join may be called again, and by several tasks at once: all get the same
 * result. Until one join has returned, each joins the task itself (the
 * scheduler lets several tasks wait for one, and keeps its record until
 * the last has read it); the joins after that read the handle. A task
 * that was cancelled never unlinked its handle: the join does. */
static bool join_cancelled(oxl_go_handle *h, const char *file, int line) {
    if (!h) oxl_panic_at(file, line, "join of a task that does not exist");
    if (h->task) {
        oxl_join_status st = oxl_join_at(h->task, NULL, file, line);
        h->task = NULL;
        h->cancelled = st == OXL_JOIN_CANCELLED;
        if (h->cancelled) {
            h->env = NULL;
            live_unlink(h);
        }
    }
    return h->cancelled;
}

uint64_t oxl_go_join(oxl_go_handle *h, const char *file, int line) {
    if (join_cancelled(h, file, line)) {
        char lb[64];
        const char *who = sched_task_label(sched_active(), h->id, lb, sizeof lb);
        if (h->cancel_asked)
            oxl_panic_at(file, line, "joined a cancelled task: %s was cancelled before it gave its result", who);
        oxl_panic_at(file, line, "join of %s, which was cancelled (its node was killed)", who);
    }
    return h->result;
}

void oxl_go_join_none(oxl_go_handle *h, const char *file, int line) {
    if (join_cancelled(h, file, line) && !h->cancel_asked) {
        char lb[64];
        oxl_panic_at(file, line, "join of %s, which was cancelled (its node was killed)",
                     sched_task_label(sched_active(), h->id, lb, sizeof lb));
    }
}

void oxl_go_cancel(oxl_go_handle *h, const char *file, int line) {
    if (!h) oxl_panic_at(file, line, "cancel of a task that does not exist");
    h->cancel_asked = true;
    if (h->task) oxl_task_cancel_at_wait(h->task);
}

oxl_chan *oxl_chan_make(int64_t cap, const char *file, int line) {
    if (cap < 0) oxl_panic_at(file, line, "channel capacity %" PRId64 " is negative", cap);
    if (cap > ((int64_t)1 << 24))
        oxl_panic_at(file, line, "channel capacity %" PRId64 " is above the limit (2^24)", cap);
    return oxl_chan_new((size_t)cap, sizeof(uint64_t));
}

/* oxl_chan_send_word and oxl_chan_recv_word are in chan.c, beside the
 * operations they are, so that a hop in generated code is one call. */

void oxl_chan_close_at(oxl_chan *c, const char *file, int line) {
    if (!c) oxl_panic_at(file, line, "close of a channel that does not exist");
    if (c->closed) oxl_panic_at(file, line, "close of a closed channel");
    oxl_chan_close(c);
}

int64_t oxl_chan_count(const oxl_chan *c) { return (int64_t)oxl_chan_len(c); }

int64_t oxl_select_words(int64_t n, oxl_chan **chans, const int64_t *sends, uint64_t *words, int64_t timeout,
                         int32_t *closed, const char *file, int line) {
    oxl_select_case cases[64];
    if (n < 0 || n > 64) oxl_panic_at(file, line, "select over %" PRId64 " arms (the limit is 64)", n);
    for (int64_t i = 0; i < n; i++) cases[i] = (oxl_select_case){chans[i], sends[i] != 0, &words[i]};
    oxl_chan_status st = OXL_CHAN_OK;
    size_t k = oxl_select_at(cases, (size_t)n, timeout < 0 ? -1 : timeout, &st, file, line);
    *closed = 0;
    if ((int64_t)k == n) return n;
    if (st == OXL_CHAN_CLOSED) {
        if (cases[k].send) oxl_panic_at(file, line, "send on a closed channel");
        *closed = 1;
    }
    return (int64_t)k;
}

/* ---- stack overflow ---- */

static char overflow_stack[1 << 16];

void sched_stack_overflowed(const oxl_sched *s, const oxl_task *t) {
    char msg[512];
    fflush(stdout); /* the program is ending: keep what it printed */
    char lb[64];
    int n = snprintf(msg, sizeof msg, "panic: stack overflow (a task's stack is %zu bytes)\n  in %s on %s\n",
                     t->fiber ? t->fiber->stack_size : s->opt.stack_size, sched_task_label(s, t->id, lb, sizeof lb),
                     t->node ? t->node->name : "process");
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)w;
    }
    _exit(101);
}

/* A damaged canary seen by the fiber layer as a task leaves its stack (a
 * switch, or a panic abandoning it): the task whose fiber it is. The
 * scheduler checks a task's canary itself before it lets go of its fiber
 * (a task's end, a cancelled task's last switch); a fiber no task owns
 * gets the fiber layer's own message. */
void sched_on_canary(const sched_fiber *f) {
    oxl_sched *s = sched_active();
    for (uint32_t i = 0; s && i < s->ntasks_cap; i++)
        if (s->tasks[i] && s->tasks[i]->fiber == f) sched_stack_overflowed(s, s->tasks[i]);
}

/* A fault in the guard page below the running task's stack, or for a
 * canary stack anywhere down to its region's floor guard (its gap and the
 * stacks below are mapped: a fault there is the floor's), is a runaway
 * recursion: a panic (status 101) rather than a crash. Anything else is
 * left to the default action. */
static void on_segv(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    oxl_sched *s = sched_active();
    const oxl_task *t = s ? s->current : NULL;
    const unsigned char *addr = info ? (const unsigned char *)info->si_addr : NULL;
    if (t && t->fiber && t->fiber->stack_lo && addr && addr < t->fiber->stack_lo + 256 &&
        addr >= t->fiber->fault_lo - 4096)
        sched_stack_overflowed(s, t);
    signal(sig, SIG_DFL);
    /* A real fault repeats when the instruction does, now with the default
     * action; a signal sent by kill/raise would be lost: send it again (it
     * is delivered, and kills, as this handler returns). */
    if (!info || info->si_code <= 0) raise(sig);
}

/* Also under AddressSanitizer, whose own report of the same fault would be
 * a crash to the caller. */
void oxl_catch_stack_overflow(void) {
    static bool installed;
    if (installed) return;
    installed = true;
    stack_t ss = {.ss_sp = overflow_stack, .ss_size = sizeof overflow_stack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

typedef struct main_box {
    void (*fn)(void);
} main_box;

static void *run_main(void *arg) {
    ((main_box *)arg)->fn();
    return NULL;
}

int oxl_rt_main(void (*main_fn)(void)) {
    oxl_rt_init();
    oxl_catch_stack_overflow();
    oxl_sched_options opt;
    oxl_sched_options_real_time(&opt);
    main_box box = {main_fn};
    oxl_sched_result r = oxl_sched_run(run_main, &box, &opt);
    oxl_rt_flush();
    int status = oxl_sched_exit_status(&r, stderr);
    oxl_sched_result_free(&r);
    return status;
}
