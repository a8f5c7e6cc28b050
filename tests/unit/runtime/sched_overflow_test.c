/* sched_overflow_test: a task that overflows its stack ends the program
 * with "panic: stack overflow (a task's stack is N bytes)" naming the task
 * and its node, status 101, whatever kind of stack it had: a guarded one
 * (the fault in its guard page) or, where guard pages split mappings and
 * their budget is spent, a canary stack (its canary, checked as the task
 * switches away, ends or is cancelled; a runaway recursion at its region's
 * floor guard). ctest runs this twice: as it is (light guard regions on
 * this kernel: every stack guarded) and as sched_overflow_fallback, with
 * OXL_STACKS_NO_LIGHT_GUARDS=16, where the tasks below get canary stacks;
 * there an overrun into a canary stack's gap harms no other stack. Each
 * case runs in a child process. And the switch's values: a number of
 * mappings, or max_map_count (read inside a run: this test is linked with
 * the fence's wrappers), anything else refused at process start. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "sched/fiber.h"
#include "sched/sched_internal.h"
#include "tap.h"
#include "test_asan.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK (64 * 1024)

static bool canary_mode; /* the run's tasks get canary stacks */

static sched_fiber *my_fiber(void) { return sched_active()->current->fiber; }

/* ---- what the tasks do ---- */

/* Frames of 512 bytes or more, every byte written, down to stop: an
 * overflow that cannot skip a word. The asm keeps each frame alive across
 * the call so that the recursion cannot become a loop. */
static __attribute__((noinline)) unsigned dig(const unsigned char *stop, unsigned n) {
    volatile unsigned char buf[512];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(n + i);
    unsigned r = (const unsigned char *)buf > stop ? dig(stop, n + 1) : 0;
    __asm__ volatile("" : : "r"(buf) : "memory");
    return r + buf[n % sizeof buf];
}

/* Without a bound (the limit is never reached). */
static __attribute__((noinline)) unsigned runaway(unsigned n, unsigned limit) {
    volatile unsigned char buf[512];
    buf[n % sizeof buf] = (unsigned char)n;
    unsigned r = n >= limit ? 0 : runaway(n + 1, limit);
    __asm__ volatile("" : : "r"(buf) : "memory");
    return r + buf[(n + 7) % sizeof buf];
}

static volatile unsigned sink;

static void smash_canary(void) {
    /* what an overflowing frame does to the lowest usable word */
    *(volatile uint64_t *)my_fiber()->stack_lo = 0;
}

static void *helper(void *arg) { return arg; }

/* A switch away for real: another task is ready when it yields or blocks
 * (FIFO: the helper runs first), so the fiber layer's check sees it. */
static void switch_away(bool sleep) {
    oxl_spawn(helper, NULL);
    if (sleep)
        oxl_sleep(OXL_MS);
    else
        oxl_yield();
}

static bool want_bottom; /* the child's run_case.bottom, in canary mode */

static void *t_runaway(void *arg) {
    sched_fiber *f = my_fiber();
    /* right above the floor guard: the stack, its gap, the guard page */
    if (want_bottom && f->stack_lo - f->stack_size - sysconf(_SC_PAGESIZE) != f->fault_lo) _exit(6);
    sink = runaway(0, UINT32_MAX);
    return arg;
}

/* 8 KiB past the bottom and back, then a switch away: a guard page faults
 * on the way down; a canary stack's gap takes it and its canary tells. */
static void *t_overrun_then_yield(void *arg) {
    sink = dig(my_fiber()->stack_lo - 8192, 0);
    switch_away(false);
    return arg;
}

static void *t_smash_then_yield(void *arg) {
    smash_canary();
    switch_away(false);
    return arg;
}

/* A task that never ends: its canary is found by its switches away (on a
 * guarded stack at one of its next SCHED_FIBER_CANARY_EVERY, on a canary
 * stack at the first), not at its end. */
static void *t_smash_then_yield_on(void *arg) {
    smash_canary();
    for (int i = 0; i <= SCHED_FIBER_CANARY_EVERY; i++) switch_away(false);
    _exit(7); /* not found: the run must not get here */
}

/* On a canary stack the very first switch away finds it. */
static void *t_smash_then_yield_once_on(void *arg) {
    smash_canary();
    switch_away(false);
    _exit(8); /* not found at once */
}

static void *t_smash_then_sleep(void *arg) {
    smash_canary();
    switch_away(true);
    return arg;
}

/* Nobody else ready: the sleep drives the World from the task's own
 * fiber, which then goes on without a switch, and ends. */
static void *t_smash_then_lone_sleep(void *arg) {
    smash_canary();
    oxl_sleep(OXL_MS);
    return arg;
}

static void *t_smash_then_end(void *arg) {
    smash_canary();
    return arg;
}

static void *t_smash_then_kill_own_node(void *arg) {
    smash_canary();
    oxl_node_kill(oxl_node_current());
    return arg; /* not reached: the kill ends the task */
}

/* ---- runs ---- */

typedef struct run_case {
    oxl_task_fn fn;
    const char *name; /* the task's name */
    bool bottom;      /* canary mode: the task's stack is the lowest of a fresh region */
} run_case;

static void *root(void *arg) {
    const run_case *rc = arg;
    oxl_node_config cfg = {.name = "n1"};
    oxl_node *n1 = oxl_node_new(&cfg);
    oxl_task *t = oxl_spawn_on_node(n1, rc->fn, NULL);
    if (!t) return NULL;
    oxl_task_set_name(t, rc->name);
    void *v;
    oxl_join(t, &v);
    oxl_sleep(OXL_SEC); /* the node's kill, if any, takes its time */
    return NULL;
}

/* Canary mode: takes (and keeps) the pool's guarded stacks, so that every
 * stack the run takes is a canary stack. */
static void spend_guarded_stacks(void) {
    for (int i = 0; i < 10000; i++) {
        sched_stack st;
        if (!sched_stack_take(STACK, &st)) _exit(3);
        if (!st.guarded) {
            sched_stack_give(STACK, st);
            return;
        }
    }
    _exit(4);
}

typedef struct child_out {
    int status;
    char err[4096];
} child_out;

/* Runs rc in a child: the overflow handler on, as programs and test
 * binaries have it. */
static void run_child(const run_case *rc, child_out *out) {
    memset(out, 0, sizeof *out);
    fflush(stdout);
    int fds[2];
    if (pipe(fds) != 0) tap_bail("pipe");
    pid_t pid = fork();
    if (pid < 0) tap_bail("fork");
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        oxl_catch_stack_overflow();
        if (canary_mode) spend_guarded_stacks();
        if (canary_mode && rc->bottom) {
            /* all but the top stack of the canary region are taken and
             * kept: the root task takes that one, and the task after it
             * the lowest of a new region, right above its floor guard */
            sched_stack_counts c;
            sched_stack_stats(&c);
            want_bottom = true;
            for (size_t i = 0; i + 1 < c.canary; i++) {
                sched_stack st;
                if (!sched_stack_take(STACK, &st)) _exit(5);
            }
        }
        oxl_sched_options o;
        oxl_sched_options_default(&o, 1);
        o.stack_size = STACK;
        o.policy = OXL_POLICY_FIFO;
        oxl_sched_result r = oxl_sched_run(root, (void *)rc, &o);
        int st = oxl_sched_exit_status(&r, stderr);
        _exit(st == 0 ? 0 : 50 + st % 50);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < sizeof out->err && (k = read(fds[0], out->err + len, sizeof out->err - 1 - len)) > 0)
        len += (size_t)k;
    out->err[len] = '\0';
    close(fds[0]);
    waitpid(pid, &out->status, 0);
}

static void expect_overflow_at(oxl_task_fn fn, const char *name, bool bottom, const char *what) {
    run_case rc = {fn, name, bottom};
    child_out out;
    run_child(&rc, &out);
    tap_ok(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 101, "%s: status 101 (0x%x)", what, out.status);
    char want[160];
    snprintf(want, sizeof want, "panic: stack overflow (a task's stack is %d bytes)\n  in %s on n1\n", STACK, name);
    tap_contains(out.err, want, "%s: the report names the task and its node", what);
}

static void expect_overflow(oxl_task_fn fn, const char *name, const char *what) {
    expect_overflow_at(fn, name, false, what);
}

/* ---- the gap ---- */

#define PATTERN_BYTES 4096

typedef struct gap_run {
    oxl_chan *go;
    unsigned char *below_lo; /* stack_lo of the task taken first */
    unsigned char *above_lo;
    bool waiting, intact, overran;
} gap_run;

static gap_run gr;

/* Taken first: the lower stack. Its top frames hold a pattern while the
 * other task overruns. */
static void *gap_below(void *arg) {
    volatile unsigned char pat[PATTERN_BYTES];
    for (size_t i = 0; i < sizeof pat; i++) pat[i] = (unsigned char)(i * 7 + 1);
    gr.below_lo = my_fiber()->stack_lo;
    gr.waiting = true;
    long token;
    oxl_chan_recv(gr.go, &token);
    bool ok = true;
    for (size_t i = 0; i < sizeof pat; i++) ok = ok && pat[i] == (unsigned char)(i * 7 + 1);
    gr.intact = ok;
    return arg;
}

/* Writes every byte of the gap below its stack but the stack's own, then
 * switches away: nothing to report, nothing harmed. */
static void *gap_above(void *arg) {
    sched_fiber *f = my_fiber();
    gr.above_lo = f->stack_lo;
    if (gr.waiting && !f->guarded && f->stack_lo - f->stack_size >= f->fault_lo) {
        memset(f->stack_lo - f->stack_size, 0xA5, f->stack_size);
        gr.overran = true;
    }
    oxl_yield();
    long token = 1;
    oxl_chan_send(gr.go, &token);
    return arg;
}

static void *gap_root(void *arg) {
    gr.go = oxl_chan_new(0, sizeof(long));
    oxl_task *a = oxl_spawn(gap_below, NULL);
    oxl_yield(); /* a runs first, up to its receive */
    oxl_task *b = oxl_spawn(gap_above, NULL);
    void *v;
    oxl_join(a, &v);
    oxl_join(b, &v);
    return arg;
}

static void test_gap(void) {
    if (!canary_mode) {
        tap_skip("every stack has a guard page here (sched_overflow_fallback runs it)",
                 "an overrun into a canary stack's gap harms no other stack");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        oxl_catch_stack_overflow();
        spend_guarded_stacks();
        oxl_sched_options o;
        oxl_sched_options_default(&o, 1);
        o.stack_size = STACK;
        o.policy = OXL_POLICY_FIFO;
        oxl_sched_result r = oxl_sched_run(gap_root, NULL, &o);
        /* stacks are taken lowest first: b's gap lies right above a's stack */
        bool adjacent = gr.above_lo == gr.below_lo + 2 * STACK;
        _exit(r.status != OXL_SCHED_FINISHED ? 10 : !gr.overran ? 11 : !adjacent ? 12 : !gr.intact ? 13 : 0);
    }
    int st;
    waitpid(pid, &st, 0);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "a task that writes the whole gap below its canary stack (its stack's size) and switches away: the run "
           "finishes, and the stack right below keeps its frames (status 0x%x; 10 not finished, 11 no gap or no "
           "frames below yet, 12 not adjacent, 13 harmed)",
           st);
}

/* ---- the switch's values ---- */

/* Runs this binary again with OXL_STACKS_NO_LIGHT_GUARDS=value and
 * --print-mode; its status, with stdout and stderr in out. */
static int run_with_switch(const char *value, char *out, size_t cap) {
    int fds[2];
    if (pipe(fds) != 0) tap_bail("pipe");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) tap_bail("fork");
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[1]);
        setenv("OXL_STACKS_NO_LIGHT_GUARDS", value, 1);
        execl("/proc/self/exe", "sched_overflow_test", "--print-mode", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < cap && (k = read(fds[0], out + len, cap - 1 - len)) > 0) len += (size_t)k;
    while (len > 0 && out[len - 1] == '\n') len--; /* one TAP line */
    out[len] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_switch_values(void) {
    char out[1024];
    tap_is_int(run_with_switch("300", out, sizeof out), 0, "OXL_STACKS_NO_LIGHT_GUARDS=300 is taken");
    tap_contains(out, "light guards 0, pretend 1, budget 300", "as a budget of 300 mappings without light guards (%s)",
                 out);
    tap_is_int(run_with_switch("0", out, sizeof out), 0, "0 is taken too (every stack a canary stack)");
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long limit = -1;
    if (f) {
        if (fscanf(f, "%ld", &limit) != 1) limit = -1;
        fclose(f);
    }
    int st = run_with_switch("max_map_count", out, sizeof out);
    char want[96];
    snprintf(want, sizeof want, "light guards 0, pretend 1, budget %zu", sched_stack_budget(limit > 0 ? limit : 65530));
    tap_ok(st == 0 && strstr(out, want) != NULL,
           "max_map_count: the budget vm.max_map_count (%ld) gives, read inside a run through the fence (status %d: %s)",
           limit, st, out);
    const char *bad[] = {"abc", "-5", "12x", " 7", "1000000001", "99999999999999999999", "max_map_count2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = run_with_switch(bad[i], out, sizeof out);
        snprintf(want, sizeof want, "error: OXL_STACKS_NO_LIGHT_GUARDS='%s' must be a number of memory mappings",
                 bad[i]);
        tap_ok(st == 2 && strstr(out, want) != NULL, "'%s' is refused at process start, with status 2 and a message "
               "naming the variable (status %d: %s)", bad[i], st, out);
    }
}

static void *print_mode_root(void *arg) { return arg; }

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--print-mode") == 0) {
        /* the pool's first stack is the root task's, taken inside a
         * deterministic run: the fence is armed there (this test is linked
         * with its wrappers), and reading vm.max_map_count must pass it */
        oxl_sched_options o;
        oxl_sched_options_default(&o, 1);
        oxl_sched_result r = oxl_sched_run(print_mode_root, NULL, &o);
        if (r.status != OXL_SCHED_FINISHED) return 3;
        oxl_sched_result_free(&r);
        sched_stack_counts c;
        sched_stack_stats(&c);
        printf("light guards %d, pretend %d, budget %ld\n", c.light_guards, c.pretend, c.budget);
        return 0;
    }
    oxl_rt_init();
    /* learns the kind of stacks this process has */
    if (!sched_stack_reserve(STACK, 1)) tap_bail("no task stack: %s", sched_stack_why());
    sched_stack_counts c;
    sched_stack_stats(&c);
    canary_mode = !c.light_guards;
    tap_diag("%s", c.light_guards ? "light guard regions: every stack has a guard page"
                   : c.pretend ? "OXL_STACKS_NO_LIGHT_GUARDS: the run's tasks get canary stacks"
                               : "PROT_NONE guards: the run's tasks get canary stacks");
    if (canary_mode) {
        tap_ok(c.budget >= 0, "without light guards the mapping budget is known (%ld)", c.budget);
        sched_stack st;
        spend_guarded_stacks();
        tap_ok(sched_stack_take(STACK, &st) && !st.guarded && st.fault_lo < st.lo - STACK,
               "past the budget a stack has no guard page, and a gap of its size below it");
        sched_stack_give(STACK, st);
    }

    /* on a canary stack: through its gap to the floor guard */
    expect_overflow_at(t_runaway, "deep", true, "a runaway recursion");
    /* on a canary stack: through the root task's stack below it too.
     * AddressSanitizer reports that as the write into the other stack's
     * frames that it is (docs/scheduler.md) */
#ifdef TEST_ASAN
    if (canary_mode)
        tap_skip("AddressSanitizer reports the write into the stack below first",
                 "a runaway recursion through the stack below it");
    else
#endif
        expect_overflow(t_runaway, "deep2", "a runaway recursion with a stack below it in its region");
    expect_overflow(t_overrun_then_yield, "over", "an overrun of 8 KiB, back, then a yield to another task");
    expect_overflow(t_smash_then_yield, "smash-yield", "a damaged canary, then a yield to another task");
    expect_overflow(t_smash_then_yield_on, "smash-yields",
                    "a damaged canary, then yields to other tasks without end (found by a switch away)");
    if (canary_mode)
        expect_overflow(t_smash_then_yield_once_on, "smash-once",
                        "a damaged canary on a canary stack, then a yield: found by that switch");
    expect_overflow(t_smash_then_sleep, "smash-sleep", "a damaged canary, then a sleep, another task ready");
    expect_overflow(t_smash_then_lone_sleep, "smash-lone", "a damaged canary, then a sleep with nobody else ready");
    expect_overflow(t_smash_then_end, "smash-end", "a damaged canary, then the task's end");
    expect_overflow(t_smash_then_kill_own_node, "smash-kill", "a damaged canary, then a kill of its own node");
    test_gap();
    test_switch_values();

    /* budgets from the kernel's limit: a quarter kept, at least 4,096 */
    tap_is_int((long)sched_stack_budget(65530), 65530 - 16382, "the default limit leaves 49,148 mappings to stacks");
    tap_is_int((long)sched_stack_budget(10000), 10000 - 4096, "a small one keeps 4,096");
    tap_is_int((long)sched_stack_budget(3000), 0, "one below the margin leaves none (every stack a canary stack)");
    return tap_done();
}
