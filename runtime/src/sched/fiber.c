/* fiber.c: a fiber's stack (taken from the pool of stacks.c), first entry,
 * canary, sanitizer and Valgrind bookkeeping around the context switch. The
 * switch itself is inline assembly on x86-64 (fiber.h), in fiber_aarch64.S
 * on AArch64; a ucontext version below serves other targets. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_STACK despite -D_POSIX_C_SOURCE */
#endif

#include "sched/fiber.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- tools ---- */

#if SCHED_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SCHED_FIBER_VALGRIND 1
#endif
#endif
#ifndef SCHED_FIBER_VALGRIND
#define SCHED_FIBER_VALGRIND 0
#endif

static_assert(offsetof(sched_fiber, sp) == 0, "the assembly reads and writes sp at offset 0");
static_assert(offsetof(sched_fiber, pc) == 8 && offsetof(sched_fiber, fp) == 16 && offsetof(sched_fiber, mxcsr) == 24 &&
                  offsetof(sched_fiber, fcw) == 28,
              "the x86-64 switch (fiber.h) reads and writes the context at these offsets");

/* Reports a fatal error with the least machinery possible (we may be on a
 * damaged stack), then aborts. */
static _Noreturn void die(const char *msg) {
    size_t len = strlen(msg);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, msg, len);
        if (n <= 0) break;
        msg += n;
        len -= (size_t)n;
    }
    abort();
}

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static _Atomic(sched_fiber_overflow_fn) overflow_hook;

void sched_fiber_on_overflow(sched_fiber_overflow_fn fn) { atomic_store(&overflow_hook, fn); }

void sched_fiber_overflowed(const sched_fiber *from) {
    sched_fiber_overflow_fn hook = atomic_load(&overflow_hook);
    if (hook) hook(from);
    die("fatal: task stack overflow (canary overwritten)\n");
}

/* The last switch out of a fiber checks its canary, whatever the stack. */
static void check_finishing(const sched_fiber *from) {
    if (__builtin_expect(!sched_fiber_canary_ok(from), 0)) sched_fiber_overflowed(from);
}

/* ---- AddressSanitizer ----
 * ASan must be told about every stack switch, or it reports false
 * positives (it would see an access to another fiber's stack as a wild
 * stack access) and __asan_handle_no_return would misjudge the stack. Each
 * fiber also gets its own fake stack (detect_stack_use_after_return); it is
 * saved in asan_fake_stack while the fiber is suspended. */

#if SCHED_FIBER_ASAN
static void asan_start(void **fake_save, const sched_fiber *to) {
    /* A main fiber's bounds are learned on its first switch away, before it
     * can ever be a destination. */
    assert(to->asan_bottom != NULL);
    __sanitizer_start_switch_fiber(fake_save, to->asan_bottom, to->asan_size);
}

/* After a switch lands in self: reinstate self's fake stack and record the
 * bounds ASan had for prev (this is how a main fiber's bounds are learned). */
static void asan_finish(sched_fiber *self, sched_fiber *prev) {
    __sanitizer_finish_switch_fiber(self->asan_fake_stack, &prev->asan_bottom, &prev->asan_size);
    self->asan_fake_stack = NULL; /* in use again; only a suspended fiber keeps one here */
}

/* A suspended fiber that is abandoned still owns a fake stack, which ASan
 * frees only when a fiber leaves with a NULL save. So: briefly make that
 * fake stack the current one, "leave" with NULL to destroy it, and put the
 * caller's own back, all without changing stacks. Not instrumented, so its
 * locals are on the real stack and not on a fake stack being juggled. */
__attribute__((no_sanitize_address)) static void asan_drop_fake_stack(sched_fiber *f) {
    if (f->asan_fake_stack == NULL) return;
    void *mine = NULL;
    const void *bottom = NULL;
    size_t size = 0;
    __sanitizer_start_switch_fiber(&mine, NULL, 0);
    __sanitizer_finish_switch_fiber(f->asan_fake_stack, &bottom, &size);
    __sanitizer_start_switch_fiber(NULL, bottom, size);
    __sanitizer_finish_switch_fiber(mine, NULL, NULL);
    f->asan_fake_stack = NULL;
}

/* Frames that never returned (an abandoned or finished fiber) leave their
 * redzones poisoned; reused memory must not inherit that. They lie above
 * the fiber's last saved stack pointer (it left them by a switch), so
 * only that part is unpoisoned, with a page of margin: unpoisoning writes
 * the shadow, and the shadow of a whole 1 MiB stack is 128 KiB of memory
 * that a shallow stack never touched (100,000 stacks: 13 GB). */
static void asan_unpoison_stack(const sched_fiber *f) {
    unsigned char *top = f->stack_lo + f->stack_size, *from = f->stack_lo;
    if (f->sp && (unsigned char *)f->sp - 4096 > f->stack_lo && (unsigned char *)f->sp <= top)
        from = (unsigned char *)f->sp - 4096;
    __asan_unpoison_memory_region(from, (size_t)(top - from));
}
#else
static void asan_start(void **fake_save, const sched_fiber *to) {}
static void asan_finish(sched_fiber *self, sched_fiber *prev) {}
static void asan_drop_fake_stack(sched_fiber *f) {}
static void asan_unpoison_stack(const sched_fiber *f) {}
#endif

/* ---- first entry ----
 * Every backend's first switch into a fiber lands here, on the fiber's own
 * stack, aligned as for any call. prev is the fiber that switched to us. */
static _Noreturn void enter(sched_fiber *prev, sched_fiber *self) {
#if SCHED_FIBER_ASAN
    /* No fake stack to reinstate: this fiber has not run before. */
    __sanitizer_finish_switch_fiber(NULL, &prev->asan_bottom, &prev->asan_size);
#endif
    (void)prev;
    assert(self->state == SCHED_FIBER_RUNNING);
    self->fn(self->arg);
    die("fiber returned\n");
}

/* ---- backends ----
 * Each provides:
 *   backend_prepare(f): make the first switch to f run enter(prev, f) on f's
 *     own stack;
 *   backend_swap(from, to): save into from, resume to; when from is resumed
 *     later, returns the fiber that switched to it. */

#if !SCHED_FIBER_USE_UCONTEXT

/* In the .S files. The AArch64 swap returns its from argument, which the
 * resumed side receives as the return value of its own swap call (or, for
 * a new fiber, in the return register when the trampoline starts); the
 * x86-64 switch is inline (fiber.h) and leaves the same in rax. */
__attribute__((visibility("hidden"))) void sched_fiber_asm_trampoline(void);
/* Called by the trampoline. */
__attribute__((visibility("hidden"))) _Noreturn void sched_fiber_asm_entry(sched_fiber *prev, sched_fiber *self);

void sched_fiber_asm_entry(sched_fiber *prev, sched_fiber *self) { enter(prev, self); }

#if defined(__x86_64__)
/* A new fiber resumes in the trampoline, with nothing on its stack: the
 * stack pointer 16 bytes below the (16-byte aligned) top, as the
 * trampoline's call requires, a zero rbp (ends frame-pointer chains) and
 * the floating-point controls of the code that prepares it. */
static void prepare(sched_fiber *f) {
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));

    uintptr_t top = (uintptr_t)(f->stack_lo + f->stack_size - f->color);
    assert(top % 16 == 0);
    uint64_t *frame = (uint64_t *)top - 2;
    memset(frame, 0, 2 * sizeof *frame);
    f->sp = frame;
    f->pc = (void *)(uintptr_t)sched_fiber_asm_trampoline;
    f->fp = NULL;
    f->mxcsr = mxcsr & ~UINT32_C(0x3F); /* tidy only: a switch loads just the control bits */
    f->fcw = fcw;
}
#elif defined(__aarch64__)
/* The frame sched_fiber_asm_swap pops, in 8-byte words: see
 * fiber_aarch64.S. 22 words (176 bytes) keep sp 16-byte aligned. */
enum {
    FRAME_X19 = 0,  /* x19..x28 at words 0..9 */
    FRAME_X29 = 10,
    FRAME_X30 = 11,
    FRAME_D8 = 12, /* d8..d15 at words 12..19 */
    FRAME_FPCR = 20,
    FRAME_WORDS = 22,
};
#define FRAME_PAD_WORDS 2

static void prepare(sched_fiber *f) {
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));

    uintptr_t top = (uintptr_t)(f->stack_lo + f->stack_size - f->color);
    assert(top % 16 == 0);
    uint64_t *frame = (uint64_t *)top - FRAME_PAD_WORDS - FRAME_WORDS;
    memset(frame, 0, (FRAME_WORDS + FRAME_PAD_WORDS) * sizeof *frame);
    frame[FRAME_X19] = (uint64_t)(uintptr_t)f; /* the trampoline passes it to the entry */
    frame[FRAME_X29] = 0;                      /* ends frame-pointer chains */
    frame[FRAME_X30] = (uint64_t)(uintptr_t)sched_fiber_asm_trampoline;
    frame[FRAME_FPCR] = fpcr;
    assert((uintptr_t)frame % 16 == 0);
    f->sp = frame;
}
#else
#error "assembly fiber backend without a frame layout"
#endif

static bool backend_prepare(sched_fiber *f) {
    prepare(f);
    return true;
}

#if SCHED_FIBER_INLINE_SWAP
static sched_fiber *backend_swap(sched_fiber *from, sched_fiber *to) { return sched_fiber_swap_regs(from, to); }
static _Noreturn void backend_jump(sched_fiber *from, sched_fiber *to) { sched_fiber_jump_regs(from, to); }
#else
__attribute__((visibility("hidden"))) sched_fiber *sched_fiber_asm_swap(sched_fiber *from, sched_fiber *to);
static sched_fiber *backend_swap(sched_fiber *from, sched_fiber *to) { return sched_fiber_asm_swap(from, to); }
static _Noreturn void backend_jump(sched_fiber *from, sched_fiber *to) {
    sched_fiber_asm_swap(from, to);
    die("fatal: sched_fiber: a finished fiber was resumed\n");
}
#endif

#else /* SCHED_FIBER_USE_UCONTEXT */

/* makecontext passes only ints, so the two fibers of a switch travel in
 * thread-locals: set by the switching side, read by the resumed side. */
static _Thread_local sched_fiber *uc_prev;
static _Thread_local sched_fiber *uc_next;

static void uc_entry(void) { enter(uc_prev, uc_next); }

static bool backend_prepare(sched_fiber *f) {
    if (getcontext(&f->uc) != 0) return false;
    f->uc.uc_stack.ss_sp = f->stack_lo;
    f->uc.uc_stack.ss_size = f->stack_size - f->color;
    f->uc.uc_link = NULL; /* enter never returns */
    makecontext(&f->uc, uc_entry, 0);
    return true;
}

static sched_fiber *backend_swap(sched_fiber *from, sched_fiber *to) {
    uc_prev = from;
    uc_next = to;
    if (swapcontext(&from->uc, &to->uc) != 0) die("fatal: sched_fiber: swapcontext failed\n");
    return uc_prev;
}

static _Noreturn void backend_jump(sched_fiber *from, sched_fiber *to) {
    backend_swap(from, to);
    die("fatal: sched_fiber: a finished fiber was resumed\n");
}

#endif

/* ---- API ---- */

void sched_fiber_init_main(sched_fiber *f) {
    memset(f, 0, sizeof *f);
    f->state = SCHED_FIBER_RUNNING;
}

static bool reset(sched_fiber *f, sched_fiber_fn fn, void *arg, bool used);

bool sched_fiber_create(sched_fiber *f, size_t stack_size, sched_fiber_fn fn, void *arg) {
    assert(f != NULL && fn != NULL);
    memset(f, 0, sizeof *f);
    if (stack_size < SCHED_FIBER_MIN_STACK || stack_size > SCHED_FIBER_MAX_STACK) return false;

    size_t page = page_size();
    size_t size = (stack_size + page - 1) / page * page;
    /* The guard page below turns running off the bottom into SIGSEGV
     * instead of silent corruption of whatever lies below (a canary
     * stack's gap keeps a short overflow off its neighbours, and its
     * canary tells it at the next switch). */
    sched_stack st;
    if (!sched_stack_take(size, &st)) return false;

    f->stack_lo = st.lo;
    f->fault_lo = st.fault_lo;
    f->guarded = st.guarded;
    f->stack_size = size;
    f->asan_bottom = f->stack_lo;
    f->asan_size = size;
#if SCHED_FIBER_VALGRIND
    f->valgrind_id = VALGRIND_STACK_REGISTER(f->stack_lo, f->stack_lo + size);
#endif
    f->state = SCHED_FIBER_FINISHED; /* a stack and nothing on it: what reset expects */
    /* a stack from the pool is clean: fresh, or unpoisoned when it was freed */
    if (!reset(f, fn, arg, false)) {
        sched_fiber_free(f);
        return false;
    }
    return true;
}

static bool reset(sched_fiber *f, sched_fiber_fn fn, void *arg, bool used) {
    assert(f != NULL && fn != NULL);
    assert(f->state != SCHED_FIBER_RUNNING);
    if (f->stack_lo == NULL) return false;

    asan_drop_fake_stack(f);
    if (used) asan_unpoison_stack(f);
    *(uint64_t *)f->stack_lo = sched_fiber_canary_value(f);
    f->canary_countdown = SCHED_FIBER_CANARY_EVERY;
    f->fn = fn;
    f->arg = arg;
    f->sp = NULL;
    if (!backend_prepare(f)) {
        f->state = SCHED_FIBER_FINISHED;
        return false;
    }
    f->state = SCHED_FIBER_READY;
    return true;
}

bool sched_fiber_reset(sched_fiber *f, sched_fiber_fn fn, void *arg) { return reset(f, fn, arg, true); }

/* hot: with the rest of a switch's path (.text.hot, sim_internal.h's SIM_HOT) */
__attribute__((hot)) void sched_fiber_switch(sched_fiber *from, sched_fiber *to) {
    assert(from != to);
    assert(from->state == SCHED_FIBER_RUNNING);
    assert(to->state == SCHED_FIBER_READY || to->state == SCHED_FIBER_SUSPENDED);
    sched_fiber_check_leaving(from);
    from->state = SCHED_FIBER_SUSPENDED;
    to->state = SCHED_FIBER_RUNNING;

    asan_start(&from->asan_fake_stack, to);
    sched_fiber *prev = backend_swap(from, to);
    /* Resumed: someone switched back to from. */
    asan_finish(from, prev);
    (void)prev;
}

void sched_fiber_exit_to(sched_fiber *from, sched_fiber *to) {
    assert(from != to);
    assert(from->state == SCHED_FIBER_RUNNING);
    assert(to->state == SCHED_FIBER_READY || to->state == SCHED_FIBER_SUSPENDED);
    check_finishing(from);
    from->state = SCHED_FIBER_FINISHED;
    to->state = SCHED_FIBER_RUNNING;

    /* NULL save: ASan frees this fiber's fake stack now. */
    from->asan_fake_stack = NULL;
    asan_start(NULL, to);
    backend_jump(from, to);
}

void sched_fiber_free(sched_fiber *f) {
    assert(f != NULL);
    assert(f->stack_lo == NULL || f->state != SCHED_FIBER_RUNNING);
    if (f->stack_lo == NULL) return;

    asan_drop_fake_stack(f);
    asan_unpoison_stack(f);
#if SCHED_FIBER_VALGRIND
    VALGRIND_STACK_DEREGISTER(f->valgrind_id);
#endif
    sched_stack_give(f->stack_size, (sched_stack){f->stack_lo, f->fault_lo, f->guarded});
    memset(f, 0, sizeof *f);
}

bool sched_fiber_canary_ok(const sched_fiber *f) {
    if (f->stack_lo == NULL) return true;
    return *(const uint64_t *)f->stack_lo == sched_fiber_canary_value(f);
}

size_t sched_fiber_stack_size(const sched_fiber *f) { return f->stack_size; }

void sched_fiber_set_color(sched_fiber *f, unsigned color) { f->color = (uint32_t)(color % 64) * 64; }
