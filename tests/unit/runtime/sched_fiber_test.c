/* sched_fiber_test: the fiber layer under the task scheduler: switching
 * between main and fibers and fiber to fiber, preserved registers, stack
 * alignment and floating point in fibers, per-fiber rounding mode, deep
 * recursion, stack reuse without leaking mappings, abandoned fibers, the
 * canary and the guard page (in child processes), size limits, and the
 * cost of a switch. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "sched/fiber.h"
#include "tap.h"

#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_asan.h"
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define STACK SCHED_FIBER_DEFAULT_STACK

/* Under ASan: true if no byte of f's stack is poisoned. Frames that never
 * returned leave poisoned redzones behind; a reused stack must not keep
 * them, or uninstrumented code (libc) that puts a buffer there and hands
 * it to an intercepted function gets a false report. */
static bool stack_clean(const sched_fiber *f) {
#ifdef TEST_ASAN
    return __asan_region_is_poisoned(f->stack_lo, f->stack_size) == NULL;
#else
    (void)f;
    return true;
#endif
}

#if defined(TEST_ASAN) && !SCHED_FIBER_USE_UCONTEXT
static bool stack_dirty(const sched_fiber *f) { return !stack_clean(f); }
#endif

static void never_run(void *arg) { abort(); }

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* ---- size limits, and the guard page ---- */

/* Whether reading the byte at p kills a child process with SIGSEGV (a
 * guard page: PROT_NONE, or one of the kernel's light guard regions,
 * which /proc/self/maps does not show). */
static bool faults(const volatile unsigned char *p) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        (void)*p;
        _exit(0);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

static void test_limits(void) {
    sched_fiber f;
    tap_ok(!sched_fiber_create(&f, SCHED_FIBER_MIN_STACK - 1, never_run, NULL), "a stack below 16 KiB is refused");
    tap_is_int(f.state, SCHED_FIBER_UNUSED, "a refused fiber is left unused");
    sched_fiber_free(&f); /* a no-op on an unused fiber */
    tap_ok(!sched_fiber_create(&f, SCHED_FIBER_MAX_STACK + 1, never_run, NULL), "a stack above 64 MiB is refused");

    tap_ok(sched_fiber_create(&f, SCHED_FIBER_MIN_STACK, never_run, NULL), "a 16 KiB stack is accepted");
    tap_is_uint(sched_fiber_stack_size(&f), (SCHED_FIBER_MIN_STACK + page() - 1) / page() * page(),
                "its size is whole pages");
    tap_ok(sched_fiber_canary_ok(&f), "a new fiber's canary is intact");
    tap_is_int(f.state, SCHED_FIBER_READY, "a new fiber is ready");
    sched_fiber_free(&f);

    size_t want = (20000 + page() - 1) / page() * page();
    tap_ok(sched_fiber_create(&f, 20000, never_run, NULL), "a 20000 byte stack is accepted");
    tap_is_uint(sched_fiber_stack_size(&f), want, "the size is rounded up to whole pages");
    sched_fiber_free(&f);

    tap_ok(sched_fiber_create(&f, SCHED_FIBER_MAX_STACK, never_run, NULL), "a 64 MiB stack is accepted");
    sched_fiber_free(&f);

    tap_ok(sched_fiber_create(&f, STACK, never_run, NULL), "create a fiber");
    tap_ok(faults(f.stack_lo - 1), "the byte right below the stack faults: the guard page");
    tap_ok(faults(f.stack_lo - page()), "and so does the guard page's first byte");
    tap_ok(!faults(f.stack_lo), "the stack's lowest byte does not");
    sched_fiber_free(&f);

    sched_fiber m;
    sched_fiber_init_main(&m);
    tap_is_uint(sched_fiber_stack_size(&m), 0, "a main fiber owns no stack");
    tap_ok(sched_fiber_canary_ok(&m), "a main fiber has nothing to check");
}

/* ---- ping-pong between main and a fiber ---- */

typedef struct pingpong {
    sched_fiber main, fiber;
    long value;
    int rounds;
} pingpong;

static void pingpong_fiber(void *arg) {
    pingpong *p = arg;
    for (int i = 0; i < p->rounds; i++) {
        p->value = p->value * 3 + 1; /* the reply to main's value */
        sched_fiber_switch(&p->fiber, &p->main);
    }
    p->value = -1;
    sched_fiber_exit_to(&p->fiber, &p->main);
}

static void test_pingpong(void) {
    pingpong p = {.rounds = 1000};
    sched_fiber_init_main(&p.main);
    tap_ok(sched_fiber_create(&p.fiber, STACK, pingpong_fiber, &p), "create a fiber");
    int wrong = 0;
    for (int i = 0; i < p.rounds; i++) {
        p.value = i;
        sched_fiber_switch(&p.main, &p.fiber);
        if (p.value != (long)i * 3 + 1) wrong++;
        if (p.fiber.state != SCHED_FIBER_SUSPENDED) wrong++;
    }
    tap_is_int(wrong, 0, "1000 values went to the fiber and its replies came back");
    sched_fiber_switch(&p.main, &p.fiber);
    tap_is_int(p.value, -1, "the fiber ran to its end");
    tap_is_int(p.fiber.state, SCHED_FIBER_FINISHED, "a fiber that exited is finished");
    tap_is_int(p.main.state, SCHED_FIBER_RUNNING, "main is running again");
    sched_fiber_free(&p.fiber);
}

/* ---- three fibers round-robin, switching directly to each other ---- */

#define RING_ROUNDS 50

typedef struct ring {
    sched_fiber main, f[3];
    char log[3 * RING_ROUNDS + 1];
    int len;
    unsigned long token;
} ring;

typedef struct ring_arg {
    ring *r;
    int i;
} ring_arg;

static void ring_fiber(void *arg) {
    ring_arg *a = arg;
    ring *r = a->r;
    int i = a->i;
    for (int round = 0; round < RING_ROUNDS; round++) {
        r->log[r->len++] = (char)('0' + i);
        r->token = r->token * 31 + (unsigned long)i + 1;
        if (round == RING_ROUNDS - 1) {
            /* The last round: each fiber finishes by handing over to the next. */
            sched_fiber_exit_to(&r->f[i], i < 2 ? &r->f[i + 1] : &r->main);
        }
        sched_fiber_switch(&r->f[i], &r->f[(i + 1) % 3]);
    }
    abort();
}

static void test_ring(void) {
    static ring r;
    ring_arg args[3];
    memset(&r, 0, sizeof r);
    sched_fiber_init_main(&r.main);
    bool made = true;
    for (int i = 0; i < 3; i++) {
        args[i] = (ring_arg){&r, i};
        made = sched_fiber_create(&r.f[i], STACK, ring_fiber, &args[i]) && made;
    }
    tap_ok(made, "create three fibers");
    sched_fiber_switch(&r.main, &r.f[0]);

    char want[sizeof r.log];
    unsigned long token = 0;
    for (int k = 0; k < 3 * RING_ROUNDS; k++) {
        want[k] = (char)('0' + k % 3);
        token = token * 31 + (unsigned long)(k % 3) + 1;
    }
    want[3 * RING_ROUNDS] = '\0';
    tap_is_str(r.log, want, "fibers ran round-robin, passing control directly");
    tap_is_uint(r.token, token, "a value threaded through all of them arrived intact");
    bool finished = true;
    for (int i = 0; i < 3; i++) {
        finished = finished && r.f[i].state == SCHED_FIBER_FINISHED;
        sched_fiber_free(&r.f[i]);
    }
    tap_ok(finished, "all three finished");
}

/* ---- callee-saved registers ---- */

/* Keeps many integer and floating-point values live across every switch,
 * so the compiler holds them in callee-saved registers and spill slots. */
static __attribute__((noinline)) uint64_t churn(uint64_t seed, sched_fiber *self, sched_fiber *other, int steps) {
    volatile uint64_t vseed = seed;
    uint64_t a = vseed, b = a * 3 + 1, c = a ^ 0x9E3779B97F4A7C15u, d = a + 7, e = a * 5, g = ~a, h = a << 3,
             k = a >> 2, m = a * a, n = a + 0x1234567, p = a ^ 0xFFFF, q = a * 11;
    double x = (double)(a & 0xFFFF), y = x * 0.5 + 1, z = y * 1.25, w = z - 3, u = w * w, v = u + x;
    for (int i = 0; i < steps; i++) {
        a += b ^ c;
        b = (b << 7 | b >> 57) + d;
        c ^= e + g;
        d += h * 3;
        e = e * 6364136223846793005u + k;
        g ^= m >> 3;
        h += n;
        k = k * 31 + p;
        m ^= q + a;
        n += b;
        p = p * 7 + c;
        q ^= d;
        x = x * 1.0000001 + y;
        y = y * 0.999 + z;
        z = z + w * 0.001;
        w = w * 1.001 - u * 0.0001;
        u = u * 0.5 + v;
        v = v * 0.25 + x * 0.001;
        if (self) sched_fiber_switch(self, other);
    }
    return a ^ b ^ c ^ d ^ e ^ g ^ h ^ k ^ m ^ n ^ p ^ q ^ (uint64_t)(x + y + z + w + u + v);
}

#define CHURN_STEPS 200

typedef struct churn_ctx {
    sched_fiber main, fiber;
    uint64_t result;
} churn_ctx;

static void churn_fiber(void *arg) {
    churn_ctx *c = arg;
    c->result = churn(42, &c->fiber, &c->main, CHURN_STEPS);
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void test_live_locals(void) {
    churn_ctx c;
    memset(&c, 0, sizeof c);
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, STACK, churn_fiber, &c), "create a fiber");
    uint64_t mine = churn(7, &c.main, &c.fiber, CHURN_STEPS);
    /* Main's first switch started the fiber, so the fiber still waits in its
     * last switch; one more lets it finish. */
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(c.fiber.state, SCHED_FIBER_FINISHED, "the fiber finished in step with main");
    tap_is_uint(mine, churn(7, NULL, NULL, CHURN_STEPS), "main's live locals survived 200 switches");
    tap_is_uint(c.result, churn(42, NULL, NULL, CHURN_STEPS), "the fiber's live locals survived 200 switches");
    sched_fiber_free(&c.fiber);
}

/* Loads a pattern derived from base into every callee-saved register,
 * calls sched_fiber_switch(from, to) with them in place, and, once resumed,
 * returns the OR of (register ^ expected) over all of them: 0 if the switch
 * gave back exactly what was there. So the registers the other side sees at
 * its own resumption are garbage from ours, and must be its own again. */
#if defined(__x86_64__)
#define HAVE_CLOBBER 1
static uint64_t clobber_and_switch(sched_fiber *from, sched_fiber *to, uint64_t base) {
    uint64_t bad;
    __asm__ volatile(
        "movq %%rsp, %%rax\n\t"
        "subq $128, %%rsp\n\t" /* step over the red zone */
        "andq $-16, %%rsp\n\t"
        "pushq %%rax\n\t" /* the original rsp */
        "pushq %%rbp\n\t"
        "pushq %%rdx\n\t" /* base */
        "subq $8, %%rsp\n\t" /* the call needs rsp 16-byte aligned */
        "movq %%rdx, %%rbx\n\t"
        "leaq 1(%%rdx), %%rbp\n\t"
        "leaq 2(%%rdx), %%r12\n\t"
        "leaq 3(%%rdx), %%r13\n\t"
        "leaq 4(%%rdx), %%r14\n\t"
        "leaq 5(%%rdx), %%r15\n\t"
        "call sched_fiber_switch\n\t"
        "movq 8(%%rsp), %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "movq %%rdx, %%rcx\n\t"
        "xorq %%rbx, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "leaq 1(%%rdx), %%rcx\n\t"
        "xorq %%rbp, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "leaq 2(%%rdx), %%rcx\n\t"
        "xorq %%r12, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "leaq 3(%%rdx), %%rcx\n\t"
        "xorq %%r13, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "leaq 4(%%rdx), %%rcx\n\t"
        "xorq %%r14, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "leaq 5(%%rdx), %%rcx\n\t"
        "xorq %%r15, %%rcx\n\t"
        "orq %%rcx, %%rax\n\t"
        "addq $16, %%rsp\n\t"
        "popq %%rbp\n\t"
        "popq %%rsp\n\t"
        : "=a"(bad), "+D"(from), "+S"(to), "+d"(base)
        :
        : "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
          "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "st",
          "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory", "cc");
    return bad;
}
#elif defined(__aarch64__)
#define HAVE_CLOBBER 1
/* Expected value for register number n (0 = x19 ... 10 = x29, 11.. = d8..). */
#define CLOBBER_CHECK(reg, n) "add x10, x2, #" #n "\n\t eor x9, " reg ", x10\n\t orr x0, x0, x9\n\t"
#define CLOBBER_CHECK_D(reg, n) "fmov x11, " reg "\n\t" CLOBBER_CHECK("x11", n)
static uint64_t clobber_and_switch(sched_fiber *from, sched_fiber *to, uint64_t base) {
    register uint64_t x0 __asm__("x0") = (uint64_t)(uintptr_t)from;
    register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)to;
    register uint64_t x2 __asm__("x2") = base;
    __asm__ volatile(
        "stp x29, x30, [sp, #-32]!\n\t"
        "str x2, [sp, #16]\n\t"
        "mov x19, x2\n\t"
        "add x20, x2, #1\n\t"
        "add x21, x2, #2\n\t"
        "add x22, x2, #3\n\t"
        "add x23, x2, #4\n\t"
        "add x24, x2, #5\n\t"
        "add x25, x2, #6\n\t"
        "add x26, x2, #7\n\t"
        "add x27, x2, #8\n\t"
        "add x28, x2, #9\n\t"
        "add x29, x2, #10\n\t"
        "add x9, x2, #11\n\t fmov d8, x9\n\t"
        "add x9, x2, #12\n\t fmov d9, x9\n\t"
        "add x9, x2, #13\n\t fmov d10, x9\n\t"
        "add x9, x2, #14\n\t fmov d11, x9\n\t"
        "add x9, x2, #15\n\t fmov d12, x9\n\t"
        "add x9, x2, #16\n\t fmov d13, x9\n\t"
        "add x9, x2, #17\n\t fmov d14, x9\n\t"
        "add x9, x2, #18\n\t fmov d15, x9\n\t"
        "bl sched_fiber_switch\n\t"
        "ldr x2, [sp, #16]\n\t"
        "mov x0, #0\n\t"
        CLOBBER_CHECK("x19", 0) CLOBBER_CHECK("x20", 1) CLOBBER_CHECK("x21", 2) CLOBBER_CHECK("x22", 3)
        CLOBBER_CHECK("x23", 4) CLOBBER_CHECK("x24", 5) CLOBBER_CHECK("x25", 6) CLOBBER_CHECK("x26", 7)
        CLOBBER_CHECK("x27", 8) CLOBBER_CHECK("x28", 9) CLOBBER_CHECK("x29", 10)
        CLOBBER_CHECK_D("d8", 11) CLOBBER_CHECK_D("d9", 12) CLOBBER_CHECK_D("d10", 13) CLOBBER_CHECK_D("d11", 14)
        CLOBBER_CHECK_D("d12", 15) CLOBBER_CHECK_D("d13", 16) CLOBBER_CHECK_D("d14", 17) CLOBBER_CHECK_D("d15", 18)
        "ldp x29, x30, [sp], #32\n\t"
        : "+r"(x0), "+r"(x1), "+r"(x2)
        :
        : "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18",
          "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "v0", "v1", "v2", "v3", "v4", "v5",
          "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21",
          "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "memory", "cc");
    return x0;
}
#else
#define HAVE_CLOBBER 0
#endif

#if HAVE_CLOBBER
typedef struct clobber_ctx {
    sched_fiber main, fiber;
    uint64_t fiber_bad;
} clobber_ctx;

static void clobber_fiber(void *arg) {
    clobber_ctx *c = arg;
    c->fiber_bad = clobber_and_switch(&c->fiber, &c->main, UINT64_C(0xB0B0B0B0B0B0B000));
    sched_fiber_exit_to(&c->fiber, &c->main);
}
#endif

static void test_clobber(void) {
#if HAVE_CLOBBER
    clobber_ctx c;
    memset(&c, 0, sizeof c);
    c.fiber_bad = 1;
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, STACK, clobber_fiber, &c), "create a fiber");
    /* Main switches with its registers full of one pattern; the fiber switches
     * back with another in the same registers. */
    uint64_t main_bad = clobber_and_switch(&c.main, &c.fiber, UINT64_C(0xA5A5A5A5A5A5A500));
    tap_is_uint(main_bad, 0, "main's callee-saved registers came back while the fiber had clobbered them all");
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_uint(c.fiber_bad, 0, "the fiber's callee-saved registers came back while main had clobbered them all");
    tap_is_int(c.fiber.state, SCHED_FIBER_FINISHED, "the fiber finished");
    sched_fiber_free(&c.fiber);
#else
    tap_skip("no inline assembly for this architecture", "callee-saved registers survive a full clobber");
#endif
}

/* ---- stack alignment and floating point at entry ---- */

typedef double v2d __attribute__((vector_size(16)));

/* Volatile 16-byte vectors on the stack are accessed with aligned SSE moves
 * on x86-64: a misaligned stack would fault here. */
static __attribute__((noinline)) double sse_sum(const volatile double *src) {
    volatile v2d tmp[4];
    for (int i = 0; i < 4; i++) tmp[i] = (v2d){src[i], src[i] * 2};
    v2d acc = {0, 0};
    for (int i = 0; i < 4; i++) acc += tmp[i];
    return acc[0] + acc[1];
}

typedef struct align_ctx {
    sched_fiber main, fiber;
    uintptr_t frame_mod16, local_mod32;
    double sse;
    char text[128];
    char ld_text[64];
    int entries;
} align_ctx;

/* Kept out of align_fiber: a function with an over-aligned local realigns
 * its own stack, which would hide a misaligned entry from everything after. */
static __attribute__((noinline)) uintptr_t aligned32_local_mod(void) {
    alignas(32) volatile double local[4] = {1, 2, 3, 4};
    return (uintptr_t)local & 31;
}

static void align_fiber(void *arg) {
    align_ctx *c = arg;
    /* With a frame pointer, the frame address is the entry stack pointer
     * minus the pushed frame pointer (x86-64: so entry rsp + 8 must be
     * 16-byte aligned, the ABI's rule at a call) or the frame record itself
     * (AArch64): 16-byte aligned exactly when the entry was. */
    c->frame_mod16 = (uintptr_t)__builtin_frame_address(0) & 15;
    if (c->frame_mod16 != 0) sched_fiber_exit_to(&c->fiber, &c->main); /* report, rather than fault below */
    volatile double src[4] = {1.5, 2.5, 3.5, 4.5};
    c->sse = sse_sum(src);
    snprintf(c->text, sizeof c->text, "%.3f %.2e %g %.1f", 3.14159265, 12345.678, 0.1, c->sse);
    volatile long double three = 3.0L;
    long double third = 1.0L / three;
    snprintf(c->ld_text, sizeof c->ld_text, "%.6Lf %.1Lf", third, third * three);
    c->local_mod32 = aligned32_local_mod();
    c->entries++;
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void test_alignment(void) {
    align_ctx c;
    memset(&c, 0, sizeof c);
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, STACK, align_fiber, &c), "create a fiber");
    for (int run = 0; run < 2; run++) {
        /* The second run goes through reset: the same stack, a new entry frame. */
        if (run == 1) sched_fiber_reset(&c.fiber, align_fiber, &c);
        c.frame_mod16 = c.local_mod32 = 99;
        c.text[0] = c.ld_text[0] = '\0';
        sched_fiber_switch(&c.main, &c.fiber);
        tap_is_uint(c.frame_mod16, 0, "run %d: the entry's frame is 16-byte aligned", run);
        tap_is_uint(c.local_mod32, 0, "run %d: an alignas(32) local is 32-byte aligned", run);
        tap_is_str(c.text, "3.142 1.23e+04 0.1 36.0", "run %d: SSE and printf with doubles work in a fiber", run);
        tap_is_str(c.ld_text, "0.333333 1.0", "run %d: long double works in a fiber", run);
    }
    tap_is_int(c.entries, 2, "the fiber was entered twice");
    sched_fiber_free(&c.fiber);
}

/* ---- per-fiber rounding mode ----
 * The probes convert 2.5 to an integer in the current rounding mode: 2 to
 * nearest (even), 3 upward. On x86-64 lrint uses SSE (MXCSR) and lrintl
 * the x87 (control word); on AArch64 both follow FPCR. Conversions rather
 * than arithmetic, because Valgrind honours rounding modes only in
 * conversions. */

static volatile double two_and_half = 2.5;
static volatile long double two_and_half_l = 2.5L;

typedef struct round_ctx {
    sched_fiber main, fiber;
    int mode_at_entry, mode_after_resume;
    long sse_up, x87_up, sse_after_resume;
} round_ctx;

static void round_fiber(void *arg) {
    round_ctx *c = arg;
    c->mode_at_entry = fegetround();
    fesetround(FE_UPWARD);
    c->sse_up = lrint(two_and_half);
    c->x87_up = lrintl(two_and_half_l);
    sched_fiber_switch(&c->fiber, &c->main);
    c->mode_after_resume = fegetround();
    c->sse_after_resume = lrint(two_and_half);
    fesetround(FE_TONEAREST);
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void test_rounding(void) {
    round_ctx c;
    memset(&c, 0, sizeof c);
    sched_fiber_init_main(&c.main);
    tap_is_int(fegetround(), FE_TONEAREST, "main starts rounding to nearest");
    tap_is_int(lrint(two_and_half), 2, "main's probe rounds to nearest");

    tap_ok(sched_fiber_create(&c.fiber, STACK, round_fiber, &c), "create a fiber");
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(c.mode_at_entry, FE_TONEAREST, "a new fiber starts with its creator's rounding mode");
    tap_is_int(c.sse_up, 3, "the fiber rounds upward (double)");
    tap_is_int(c.x87_up, 3, "the fiber rounds upward (long double)");
    tap_is_int(fegetround(), FE_TONEAREST, "main still rounds to nearest after the fiber set upward");
    tap_is_int(lrint(two_and_half), 2, "main's double conversion still rounds to nearest");
    tap_is_int(lrintl(two_and_half_l), 2, "main's long double conversion still rounds to nearest");

    fesetround(FE_DOWNWARD);
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(c.mode_after_resume, FE_UPWARD, "the fiber still rounds upward while main set downward");
    tap_is_int(c.sse_after_resume, 3, "and its conversions still round upward");
    tap_is_int(fegetround(), FE_DOWNWARD, "main's downward mode came back");
    fesetround(FE_TONEAREST);

    /* Inheritance at create/reset, like a new thread's. */
    fesetround(FE_TOWARDZERO);
    sched_fiber_reset(&c.fiber, round_fiber, &c);
    fesetround(FE_TONEAREST);
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(c.mode_at_entry, FE_TOWARDZERO, "a reset fiber starts with the rounding mode at reset");
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(fegetround(), FE_TONEAREST, "main is back to nearest");
    sched_fiber_free(&c.fiber);
}

/* ---- deep recursion ---- */

/* About 250 bytes of stack a level; the asm keeps the frame alive across
 * the call so the recursion cannot become a loop. */
static __attribute__((noinline)) unsigned recurse(unsigned depth, unsigned limit) {
    volatile unsigned char buf[200];
    buf[depth % sizeof buf] = (unsigned char)depth;
    unsigned r = depth >= limit ? 0 : recurse(depth + 1, limit);
    __asm__ volatile("" : : "r"(buf) : "memory");
    return r + buf[depth % sizeof buf];
}

typedef struct deep_ctx {
    sched_fiber main, fiber;
    unsigned depth, result;
} deep_ctx;

static void deep_fiber(void *arg) {
    deep_ctx *c = arg;
    c->result = recurse(0, c->depth);
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void test_deep_recursion(void) {
    deep_ctx c;
    memset(&c, 0, sizeof c);
    c.depth = 2000;
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, 1024 * 1024, deep_fiber, &c), "create a fiber with a 1 MiB stack");
    sched_fiber_switch(&c.main, &c.fiber);
    unsigned want = 0;
    for (unsigned d = 0; d <= c.depth; d++) want += (unsigned char)d;
    tap_is_uint(c.result, want, "2000 levels of recursion (about 500 KiB) ran in the fiber");
    tap_ok(sched_fiber_canary_ok(&c.fiber), "and left the canary intact");
    sched_fiber_free(&c.fiber);
}

/* ---- reuse, abandonment, and mappings ---- */

/* The process's mappings: how many, and their total size. Adjacent
 * anonymous mappings with equal permissions merge into one line, so a leak
 * can show in the size alone. */
typedef struct maps_usage {
    long lines;
    unsigned long long bytes;
} maps_usage;

static maps_usage maps_now(void) {
    maps_usage u = {-1, 0};
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return u;
    u.lines = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2) u.bytes += hi - lo;
        if (strchr(line, '\n')) u.lines++;
    }
    fclose(f);
    return u;
}

static bool maps_grew(maps_usage before, maps_usage after) {
    return before.lines <= 0 || after.lines > before.lines || after.bytes > before.bytes;
}

typedef struct reuse_ctx {
    sched_fiber main, fiber;
    bool abandon;
    long runs;
} reuse_ctx;

static void reuse_fiber(void *arg) {
    reuse_ctx *c = arg;
    /* An addressed local: under ASan's use-after-return mode this gives the
     * fiber a fake stack that must be released when it exits or is dropped. */
    alignas(16) volatile char buf[48];
    buf[c->runs % sizeof buf] = 1;
    __asm__ volatile("" : : "r"(buf) : "memory");
    c->runs++;
    if (c->abandon) sched_fiber_switch(&c->fiber, &c->main); /* never resumed */
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void reuse_cycles(reuse_ctx *c, long n) {
    for (long i = 0; i < n; i++) {
        if (!sched_fiber_reset(&c->fiber, reuse_fiber, c)) return;
        c->abandon = i % 2 == 1;
        sched_fiber_switch(&c->main, &c->fiber);
    }
}

static void create_free_cycles(reuse_ctx *c, long n) {
    for (long i = 0; i < n; i++) {
        if (!sched_fiber_create(&c->fiber, STACK, reuse_fiber, c)) return;
        c->abandon = i % 2 == 1;
        if (i % 3 != 2) sched_fiber_switch(&c->main, &c->fiber); /* every third is freed unstarted */
        sched_fiber_free(&c->fiber);
    }
}

static void test_reuse(void) {
    reuse_ctx c;
    memset(&c, 0, sizeof c);
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, STACK, reuse_fiber, &c), "create a fiber");
    reuse_cycles(&c, 100); /* warm up whatever the tools map once */
    maps_usage before = maps_now();
    c.runs = 0;
    reuse_cycles(&c, 100000);
    maps_usage after = maps_now();
    tap_is_int(c.runs, 100000, "100000 reset/run cycles on one stack, half of them abandoned mid-run");
    tap_ok(!maps_grew(before, after), "no mapping leaked (maps: %ld lines %llu KiB, then %ld lines %llu KiB)",
           before.lines, before.bytes / 1024, after.lines, after.bytes / 1024);
    sched_fiber_free(&c.fiber);

    create_free_cycles(&c, 100);
    before = maps_now();
    c.runs = 0;
    create_free_cycles(&c, 10000);
    after = maps_now();
    tap_is_int(c.runs, 6667, "10000 create/free cycles: run to the end, abandoned, or never started");
    tap_ok(!maps_grew(before, after), "no mapping leaked (maps: %ld lines %llu KiB, then %ld lines %llu KiB)",
           before.lines, before.bytes / 1024, after.lines, after.bytes / 1024);
}

/* Many stacks at once cost a mapping per region, not per stack, where
 * the kernel has light guard regions (two per stack elsewhere, as a
 * PROT_NONE guard page splits a mapping); every one has its guard; freed
 * stacks are taken again, so a second round maps nothing. */
static void test_pool(void) {
    enum { N = 3000 };
    static sched_fiber fs[N];
    static sched_fiber spare;
    /* a size of its own: nothing else of this test takes these stacks */
    size_t size = 5 * page() + SCHED_FIBER_MIN_STACK;
    maps_usage before = maps_now();
    int made = 0;
    for (int i = 0; i < N; i++) made += sched_fiber_create(&fs[i], size, never_run, NULL);
    maps_usage after = maps_now();
    tap_is_int(made, N, "%d fibers at once", N);
    long grew = after.lines - before.lines;
    if (sched_stack_light_guards())
        tap_ok(grew >= 0 && grew <= 64, "light guards: %d stacks cost %ld mappings (a region each, up to 1024 stacks)", N,
               grew);
    else
        tap_ok(grew >= 0 && grew <= 2 * N + 16, "PROT_NONE guards: %d stacks cost %ld mappings", N, grew);
    bool guarded = faults(fs[0].stack_lo - 1) && faults(fs[N / 2].stack_lo - 1) && faults(fs[N - 1].stack_lo - 1);
    tap_ok(guarded, "the first, a middle and the last stack each have a guard below");
    bool apart = true;
    for (int i = 1; i < N && apart; i++)
        if (fs[i].stack_lo == fs[i - 1].stack_lo) apart = false;
    tap_ok(apart, "no two fibers share a stack");
    for (int i = 0; i < N; i++) sched_fiber_free(&fs[i]);
    maps_usage freed = maps_now();
    for (int i = 0; i < N; i++) sched_fiber_create(&fs[i], size, never_run, NULL);
    maps_usage again = maps_now();
    tap_ok(again.lines == freed.lines && again.bytes == freed.bytes,
           "freed stacks are taken again: the second %d map nothing (%ld lines %llu KiB, then %ld lines %llu KiB)", N,
           freed.lines, freed.bytes / 1024, again.lines, again.bytes / 1024);
    tap_ok(sched_stack_reserve(size, N + 100), "a reserve maps 100 more ahead of use");
    maps_usage reserved = maps_now();
    tap_ok(sched_fiber_create(&spare, size, never_run, NULL), "and one of them is taken");
    tap_ok(maps_now().bytes == reserved.bytes, "without a mapping of its own");
    sched_fiber_free(&spare);
    for (int i = 0; i < N; i++) sched_fiber_free(&fs[i]);
}

/* A fiber suspended deep in a recursion is abandoned and freed, and a new
 * fiber (often on the same memory) runs; then the same through reset. Under
 * ASan the abandoned frames' redzones stay poisoned, and the checks below
 * look for any of it on the new stack. */
typedef struct abandon_ctx {
    sched_fiber main, fiber;
    unsigned result;
    bool resumed;
} abandon_ctx;

static void abandon_deep(void *arg) {
    abandon_ctx *c = arg;
    c->result = recurse(0, 150);
    sched_fiber_switch(&c->fiber, &c->main);
    c->resumed = true;
    sched_fiber_exit_to(&c->fiber, &c->main);
}

/* Suspends from inside the recursion, so live frames are abandoned. */
static abandon_ctx *abandon_now;
static __attribute__((noinline)) unsigned recurse_and_suspend(unsigned depth) {
    volatile unsigned char buf[200];
    buf[0] = (unsigned char)depth;
    unsigned r;
    if (depth == 150)
        sched_fiber_switch(&abandon_now->fiber, &abandon_now->main);
    r = depth >= 150 ? 0 : recurse_and_suspend(depth + 1);
    __asm__ volatile("" : : "r"(buf) : "memory");
    return r + buf[0];
}

static void abandon_in_recursion(void *arg) {
    abandon_ctx *c = arg;
    recurse_and_suspend(0);
    c->resumed = true;
    sched_fiber_exit_to(&c->fiber, &c->main);
}

static void test_abandon(void) {
    abandon_ctx c;
    memset(&c, 0, sizeof c);
    abandon_now = &c;
    sched_fiber_init_main(&c.main);
    tap_ok(sched_fiber_create(&c.fiber, STACK, abandon_in_recursion, &c), "create a fiber");
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_int(c.fiber.state, SCHED_FIBER_SUSPENDED, "the fiber is suspended 150 frames deep");
#if defined(TEST_ASAN) && !SCHED_FIBER_USE_UCONTEXT
    /* Shows the poison checks below can fail. (ASan's swapcontext
     * interceptor wipes stack shadow on its own, so not with ucontext.) */
    tap_ok(stack_dirty(&c.fiber), "ASan: its live frames have poisoned redzones");
#endif
    void *old = c.fiber.stack_lo;
    sched_fiber_free(&c.fiber);
    tap_is_int(c.fiber.state, SCHED_FIBER_UNUSED, "freeing the abandoned fiber leaves it unused");
    tap_ok(!c.resumed, "the abandoned fiber never ran again");

    tap_ok(sched_fiber_create(&c.fiber, STACK, abandon_deep, &c), "create a fiber after it");
    tap_diag("the new stack %s the freed one's memory", c.fiber.stack_lo == old ? "reuses" : "does not reuse");
    tap_ok(stack_clean(&c.fiber), "no poison carried over to the new stack");
    sched_fiber_switch(&c.main, &c.fiber);
    unsigned want = 0;
    for (unsigned d = 0; d <= 150; d++) want += (unsigned char)d;
    tap_is_uint(c.result, want, "the new fiber used the stack freely");
    /* Abandon this one too, then reset it instead of freeing. */
    sched_fiber_reset(&c.fiber, abandon_in_recursion, &c);
    sched_fiber_switch(&c.main, &c.fiber);
    sched_fiber_reset(&c.fiber, abandon_deep, &c);
    tap_ok(stack_clean(&c.fiber), "reset of an abandoned fiber leaves no poison on its stack");
    c.result = 0;
    sched_fiber_switch(&c.main, &c.fiber);
    tap_is_uint(c.result, want, "a reset after abandonment runs cleanly on the same stack");
    tap_ok(!c.resumed, "nothing abandoned was resumed");
    sched_fiber_free(&c.fiber);
}

/* ---- fatal errors, in child processes ---- */

typedef struct child_result {
    int status;
    char err[4096];
} child_result;

/* Runs body in a child with stderr captured and stdout discarded. */
static bool run_child(void (*body)(void), child_result *r) {
    memset(r, 0, sizeof *r);
    fflush(stdout);
    fflush(stderr);
    int fds[2];
    if (pipe(fds) != 0) return false;
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        FILE *null = freopen("/dev/null", "w", stdout);
        (void)null;
        body();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fds[0], r->err + len, sizeof r->err - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
        if (len == sizeof r->err - 1) {
            /* Keep draining so the child never blocks; keep the start. */
            char sink[512];
            while (read(fds[0], sink, sizeof sink) > 0) {
            }
            break;
        }
    }
    r->err[len] = '\0';
    close(fds[0]);
    return waitpid(pid, &r->status, 0) == pid;
}

static bool died_of(const child_result *r, int sig) { return WIFSIGNALED(r->status) && WTERMSIG(r->status) == sig; }

static sched_fiber child_main, child_fiber;

static void smash_canary(void) {
    /* What an overflowing frame would do: write the lowest usable word. */
    volatile uint64_t *bottom = (volatile uint64_t *)child_fiber.stack_lo;
    *bottom = 0;
}

/* A guarded stack's canary is checked at one of its next
 * SCHED_FIBER_CANARY_EVERY switches away (a canary stack's at the first). */
static void smash_then_switch(void *arg) {
    smash_canary();
    for (int i = 0; i < SCHED_FIBER_CANARY_EVERY; i++) sched_fiber_switch(&child_fiber, &child_main);
    _exit(3); /* not reached: a switch must abort */
}

static void smash_then_exit(void *arg) {
    smash_canary();
    sched_fiber_exit_to(&child_fiber, &child_main);
}

static void overflow_stack(void *arg) {
    unsigned r = recurse(0, UINT_MAX);
    _exit((int)(r & 1) + 4); /* not reached */
}

static void just_return(void *arg) {}

static void child_run(sched_fiber_fn fn) {
    sched_fiber_init_main(&child_main);
    if (!sched_fiber_create(&child_fiber, STACK, fn, NULL)) _exit(2);
    sched_fiber_switch(&child_main, &child_fiber);
    _exit(0);
}

static void child_canary_switch(void) {
    sched_fiber_init_main(&child_main);
    if (!sched_fiber_create(&child_fiber, STACK, smash_then_switch, NULL)) _exit(2);
    for (int i = 0; i < SCHED_FIBER_CANARY_EVERY; i++) sched_fiber_switch(&child_main, &child_fiber);
    _exit(0);
}
static void child_canary_exit(void) { child_run(smash_then_exit); }
static void child_returns(void) { child_run(just_return); }
static void child_guard(void) {
    /* Let the SIGSEGV kill the child, even under a sanitizer's handler. */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    child_run(overflow_stack);
}

static const char canary_msg[] = "fatal: task stack overflow (canary overwritten)\n";

static void test_fatal(void) {
    child_result r;
    if (!run_child(child_canary_switch, &r)) tap_bail("fork failed");
    tap_ok(died_of(&r, SIGABRT), "a damaged canary aborts one of the next sched_fiber_switch calls (status 0x%x)", r.status);
    tap_contains(r.err, canary_msg, "with the overflow message on stderr");
    tap_ok(strncmp(r.err, canary_msg, sizeof canary_msg - 1) == 0 || strstr(r.err, "\nfatal: task stack") != NULL,
           "on a line of its own");

    if (!run_child(child_canary_exit, &r)) tap_bail("fork failed");
    tap_ok(died_of(&r, SIGABRT), "a damaged canary aborts sched_fiber_exit_to (status 0x%x)", r.status);
    tap_contains(r.err, canary_msg, "with the overflow message on stderr");

    if (!run_child(child_guard, &r)) tap_bail("fork failed");
    tap_ok(died_of(&r, SIGSEGV), "unbounded recursion hits the guard page: SIGSEGV (status 0x%x)", r.status);

    if (!run_child(child_returns, &r)) tap_bail("fork failed");
    tap_ok(died_of(&r, SIGABRT), "a fiber function that returns aborts (status 0x%x)", r.status);
    tap_contains(r.err, "fiber returned\n", "saying so on stderr");
}

/* ---- cost of a switch ----
 * Two measurements of 10 million switches each. "Symmetric": main and the
 * fiber switch from the same loop function, so every return lands where
 * the CPU's return predictor expects: the cost of the switch alone.
 * "Asymmetric": main's loop and the fiber's loop are different code, as a
 * scheduler loop and a task are; the return out of each switch then lands
 * in the other loop and is mispredicted, which costs extra. */

#define BENCH_SWITCHES (10L * 1000 * 1000)

typedef struct bench_ctx {
    sched_fiber main, fiber;
} bench_ctx;

static __attribute__((noinline)) void bench_loop(sched_fiber *self, sched_fiber *other, long n) {
    for (long i = 0; i < n; i++) sched_fiber_switch(self, other);
}

static void bench_symmetric_fiber(void *arg) {
    bench_ctx *b = arg;
    /* One switch back for main's first entry, then one per main switch. */
    bench_loop(&b->fiber, &b->main, BENCH_SWITCHES / 2 + 1);
    sched_fiber_exit_to(&b->fiber, &b->main);
}

static void bench_asymmetric_fiber(void *arg) {
    bench_ctx *b = arg;
    for (;;) sched_fiber_switch(&b->fiber, &b->main);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void test_bench(void) {
    const char *backend = SCHED_FIBER_USE_UCONTEXT ? "ucontext"
#if defined(__x86_64__)
                                                   : "x86-64 assembly";
#elif defined(__aarch64__)
                                                   : "aarch64 assembly";
#else
                                                   : "?";
#endif
    bench_ctx b;
    memset(&b, 0, sizeof b);
    sched_fiber_init_main(&b.main);
    tap_ok(sched_fiber_create(&b.fiber, STACK, bench_symmetric_fiber, &b), "create a fiber");
    sched_fiber_switch(&b.main, &b.fiber); /* first entry, outside the timing */
    double t0 = now_ns();
    bench_loop(&b.main, &b.fiber, BENCH_SWITCHES / 2);
    double t1 = now_ns();
    sched_fiber_switch(&b.main, &b.fiber);
    tap_is_int(b.fiber.state, SCHED_FIBER_FINISHED, "10 million switches, symmetric");
    tap_diag("%.2f ns per switch, symmetric (%ld switches, %s)", (t1 - t0) / (double)BENCH_SWITCHES, BENCH_SWITCHES,
             backend);

    sched_fiber_reset(&b.fiber, bench_asymmetric_fiber, &b);
    sched_fiber_switch(&b.main, &b.fiber);
    t0 = now_ns();
    for (long i = 0; i < BENCH_SWITCHES / 2; i++) sched_fiber_switch(&b.main, &b.fiber);
    t1 = now_ns();
    tap_is_int(b.fiber.state, SCHED_FIBER_SUSPENDED, "10 million switches, asymmetric");
    tap_diag("%.2f ns per switch, asymmetric: main loop <-> fiber loop (%ld switches, %s)",
             (t1 - t0) / (double)BENCH_SWITCHES, BENCH_SWITCHES, backend);
    sched_fiber_free(&b.fiber); /* abandoned mid-loop */
}

int main(void) {
    test_limits();
    test_pingpong();
    test_ring();
    test_live_locals();
    test_clobber();
    test_alignment();
    test_rounding();
    test_deep_recursion();
    test_reuse();
    test_pool();
    test_abandon();
    test_fatal();
    test_bench();
    return tap_done();
}
