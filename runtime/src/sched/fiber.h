/* fiber.h: stackful coroutines ("fibers"), the layer the deterministic task
 * scheduler runs tasks on. Internal to the runtime.
 *
 * A fiber is a stack plus a saved register context. Switching is explicit
 * and symmetric: the running code names the fiber it leaves and the one it
 * resumes, so nothing here keeps a notion of "current fiber" (that is the
 * scheduler's job) and nothing is global. A switch is a plain register swap
 * written in assembly on x86-64 and AArch64 (no syscalls, no signal mask);
 * other targets fall back to ucontext.
 *
 * Lifecycle:
 *   - The thread that drives fibers describes its own context once with
 *     sched_fiber_init_main; that descriptor is what fibers switch back to.
 *   - sched_fiber_create takes a stack from the pool (stacks.c: a guard page
 *     or an untouched gap below it, a canary word at its lowest usable
 *     address) and prepares
 *     the first entry into fn(arg).
 *   - fn must never return: it ends with sched_fiber_exit_to. A fiber left by
 *     sched_fiber_switch is suspended and may be resumed later, or abandoned
 *     forever (a task killed while blocked).
 *   - A fiber that is not running (finished, suspended or never started) may
 *     be sched_fiber_reset to run a new entry on the same stack (pooling), or
 *     sched_fiber_free'd. Abandoning is just that: reset or free it; nothing
 *     on the abandoned stack is unwound (no cleanup of its frames runs).
 *
 * Floating point: each fiber has its own floating-point controls (x86-64:
 * x87 control word and MXCSR control bits; AArch64: FPCR), so a rounding
 * mode set with fesetround in one fiber does not leak into another. A new
 * or reset fiber starts with the controls of the code that called
 * create/reset, as a new POSIX thread inherits its creator's. The exception
 * flags (fetestexcept) are not switched: like any callee, a switch may
 * change them, so test them only over code that does not switch. (The
 * ucontext fallback happens to switch the flags too.) */
#ifndef OXL_SCHED_FIBER_H
#define OXL_SCHED_FIBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ucontext fallback is for targets without an assembly switch; the
 * macro SCHED_FIBER_FORCE_UCONTEXT selects it anywhere so it can be tested.
 * Every file that includes this header must agree on the macro. */
#if defined(SCHED_FIBER_FORCE_UCONTEXT) || (!defined(__x86_64__) && !defined(__aarch64__))
#define SCHED_FIBER_USE_UCONTEXT 1
#include <ucontext.h>
#else
#define SCHED_FIBER_USE_UCONTEXT 0
#endif

/* AddressSanitizer must hear of every switch (fiber.c); its builds take
 * the switch through fiber.c, where that is done. */
#if defined(__SANITIZE_ADDRESS__)
#define SCHED_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCHED_FIBER_ASAN 1
#endif
#endif
#ifndef SCHED_FIBER_ASAN
#define SCHED_FIBER_ASAN 0
#endif

/* x86-64 switches in inline assembly (sched_fiber_swap_regs below). */
#if !SCHED_FIBER_USE_UCONTEXT && defined(__x86_64__)
#define SCHED_FIBER_INLINE_SWAP 1
#else
#define SCHED_FIBER_INLINE_SWAP 0
#endif

/* ---- the stack pool (stacks.c) ----
 * Stacks are mapped many at a time, in regions of one size, and are
 * reused, never unmapped. A stack has a guard page right below it (the
 * kernel's light guard regions where it has them, so a region is one
 * memory mapping whatever its number of stacks). Where guard pages split
 * mappings and the budget of them is spent, a stack has instead an
 * untouched gap below it as large as itself, and its region a guard at
 * its floor: a canary stack, whose overflow only its canary shows. */
typedef struct sched_stack {
    unsigned char *lo;       /* lowest usable byte (whole pages up from here) */
    unsigned char *fault_lo; /* a fault in [fault_lo, lo) is this stack's overflow:
                                its guard page, or its gap and the stacks below it
                                down to its region's floor guard */
    bool guarded;            /* a guard page right below lo (else a canary stack) */
} sched_stack;
bool sched_stack_take(size_t size, sched_stack *out);
void sched_stack_give(size_t size, sched_stack st);
/* Maps stacks ahead of use until n of size are free (a fork server can
 * map them once for all its children). */
bool sched_stack_reserve(size_t size, size_t n);
/* Why the last take or reserve failed ("cannot map a region of task
 * stacks: Cannot allocate memory"). */
const char *sched_stack_why(void);
/* True once the kernel was found to have light guard regions (and the
 * test switch OXL_STACKS_NO_LIGHT_GUARDS does not pretend otherwise). */
bool sched_stack_light_guards(void);
/* The mappings task stacks may cost where guard pages split mappings, for
 * the kernel's vm.max_map_count: it less a margin for the rest of the
 * process (a quarter, at least 4,096). */
size_t sched_stack_budget(long max_map_count);
typedef struct sched_stack_counts {
    size_t guarded, canary; /* stacks mapped of each kind, in every pool */
    size_t mappings;        /* what their regions cost without light guards (0 with them) */
    long budget;            /* the budget without light guards; -1 with them or not known yet */
    bool light_guards;
    bool pretend;           /* OXL_STACKS_NO_LIGHT_GUARDS is set */
} sched_stack_counts;
void sched_stack_stats(sched_stack_counts *out);

/* Stack size limits accepted by sched_fiber_create (before rounding up to
 * whole pages), and a reasonable default for a task. */
#define SCHED_FIBER_MIN_STACK ((size_t)16 * 1024)
#define SCHED_FIBER_MAX_STACK ((size_t)64 * 1024 * 1024)
#define SCHED_FIBER_DEFAULT_STACK ((size_t)64 * 1024)

/* A fiber's entry. It must never return: it ends with sched_fiber_exit_to.
 * (Returning prints "fiber returned" and aborts.) */
typedef void (*sched_fiber_fn)(void *arg);

/* Kept for assertions and for the scheduler's own checks. */
typedef enum sched_fiber_state {
    SCHED_FIBER_UNUSED = 0, /* zeroed, freed, or a failed create */
    SCHED_FIBER_READY,      /* created or reset, not entered yet */
    SCHED_FIBER_RUNNING,    /* executing on this thread */
    SCHED_FIBER_SUSPENDED,  /* left by sched_fiber_switch */
    SCHED_FIBER_FINISHED,   /* left by sched_fiber_exit_to */
} sched_fiber_state;

/* The fields are private to fiber.c (tests may peek). The layout does not
 * depend on sanitizers, so instrumented and plain files can be mixed. What
 * every switch reads and writes comes first, in one cache line: a hundred
 * tasks taking turns keep only what they touch in the cache. */
typedef struct sched_fiber {
    void *sp;                /* saved stack pointer while not running; must stay first (read by the assembly) */
    void *pc;                /* x86-64: where the fiber resumes (see sched_fiber_swap_regs) */
    void *fp;                /* x86-64: its saved rbp (a general register without frame pointers) */
    uint32_t mxcsr;          /* x86-64: its saved MXCSR (the control bits are its own) */
    uint16_t fcw;            /* x86-64: its saved x87 control word */
    uint8_t state;           /* sched_fiber_state */
    bool guarded;            /* a guard page right below stack_lo (else a canary stack) */
    unsigned char *stack_lo; /* lowest usable stack byte, where the canary lives; NULL for a main fiber */
    size_t stack_size;       /* usable bytes from stack_lo up */
    uint32_t color;          /* bytes left unused at the top (see sched_fiber_set_color) */
    uint32_t canary_countdown; /* guarded stacks: switches away until the next canary check */
    sched_fiber_fn fn;       /* entry for the next first switch-in */
    void *arg;
    unsigned valgrind_id;    /* Valgrind stack registration */
    void *asan_fake_stack;   /* AddressSanitizer: fake stack saved while suspended */
    const void *asan_bottom; /* AddressSanitizer: stack bounds (learned from ASan for a main fiber) */
    size_t asan_size;
    unsigned char *fault_lo; /* sched_stack's: a fault in [fault_lo, stack_lo) is this stack's
                                overflow */
#if SCHED_FIBER_USE_UCONTEXT
    ucontext_t uc;
#endif
} sched_fiber;

/* Describes the calling thread's own stack and context, so fibers can
 * switch back to it. It owns no stack; it is RUNNING from now on. */
void sched_fiber_init_main(sched_fiber *f);

/* Takes a stack of stack_size bytes (rounded up to whole pages) from the
 * pool (a guarded one while there is one), and prepares f so that the first
 * switch to it calls fn(arg). Returns false, leaving f UNUSED, if
 * stack_size is below SCHED_FIBER_MIN_STACK or above SCHED_FIBER_MAX_STACK
 * or no stack can be had (sched_stack_why says why). */
bool sched_fiber_create(sched_fiber *f, size_t stack_size, sched_fiber_fn fn, void *arg);

/* Reuses the stack of a fiber that is not running (finished, suspended and
 * abandoned, or never started) for a new entry fn(arg). Whatever was on the
 * stack is discarded without being unwound. Returns false if f owns no stack
 * (or, with ucontext, if getcontext fails). */
bool sched_fiber_reset(sched_fiber *f, sched_fiber_fn fn, void *arg);

/* Saves the running context into from (which must be the running fiber)
 * and resumes to. Returns when something switches back to from. If from's
 * canary is damaged, calls the overflow hook instead, which by default
 * prints "fatal: task stack overflow (canary overwritten)" and aborts. */
void sched_fiber_switch(sched_fiber *from, sched_fiber *to);

/* The last switch out of a finished fiber: like sched_fiber_switch, but from
 * becomes FINISHED and is never resumed (it may be reset or freed, by the
 * fiber it switched to or anyone later; not by itself, it is still running). */
_Noreturn void sched_fiber_exit_to(sched_fiber *from, sched_fiber *to);

/* Gives f's stack back to the pool. f must not be running; a suspended
 * (abandoned) fiber is fine. Does nothing for a main fiber or an UNUSED
 * one. f becomes UNUSED. */
void sched_fiber_free(sched_fiber *f);

/* False if f's stack canary has been overwritten (true for a main fiber). */
bool sched_fiber_canary_ok(const sched_fiber *f);

/* What a damaged canary found by a switch or an exit does: the scheduler
 * reports the task's stack overflow (lang.c). The hook must not return (if
 * it does, the default message and abort follow). One for the process,
 * set before fibers run; NULL restores the default. */
typedef void (*sched_fiber_overflow_fn)(const sched_fiber *f);
void sched_fiber_on_overflow(sched_fiber_overflow_fn fn);

/* Usable stack bytes (the rounded size); 0 for a main fiber. */
size_t sched_fiber_stack_size(const sched_fiber *f);

/* Stacks are page aligned, so the hot top of every stack would fall in the
 * same cache sets and evict each other when many tasks take turns. A color
 * starts a fiber's frames color*64 bytes (mod one page) below the top,
 * spreading them over the sets. Takes effect at the next reset; a caller
 * that wants it on a new fiber resets it once after create. */
void sched_fiber_set_color(sched_fiber *f, unsigned color);

/* ---- the switch, inline ----
 * Mixed with the canary's own address, so a canary copied from elsewhere on
 * the stack does not pass. */
#define SCHED_FIBER_CANARY_SEED UINT64_C(0x5CED0F1BE2CA9A27)

static inline uint64_t sched_fiber_canary_value(const sched_fiber *f) {
    return SCHED_FIBER_CANARY_SEED ^ (uint64_t)(uintptr_t)f->stack_lo;
}

/* A damaged canary found by a switch: the overflow hook, then the default
 * message and abort. */
__attribute__((visibility("hidden"), cold, noinline, noreturn)) void sched_fiber_overflowed(const sched_fiber *f);

/* How often a switch away checks the canary of the stack it leaves. A
 * canary stack's canary is the only sign of its overflow: at every switch,
 * before any other task can run on what the overflow wrote. A guarded
 * stack's overflow faults in its guard page; its canary (a frame that
 * skipped the guard page and wrote the stack's lowest word) is checked at
 * every SCHED_FIBER_CANARY_EVERY-th switch and when the fiber finishes:
 * the canary's cache line is then not among the few lines a switch
 * touches, which a hundred tasks taking turns would otherwise keep in the
 * cache, one line each. */
#define SCHED_FIBER_CANARY_EVERY 16

/* Does this switch away from f check its canary? */
static inline __attribute__((always_inline)) bool sched_fiber_canary_due(sched_fiber *f) {
    if (!f->guarded) return true; /* a canary stack, or a main fiber (no canary) */
    if (--f->canary_countdown) return false;
    f->canary_countdown = SCHED_FIBER_CANARY_EVERY;
    return true;
}

static inline __attribute__((always_inline)) void sched_fiber_check_leaving(sched_fiber *f) {
    if (sched_fiber_canary_due(f) &&
        __builtin_expect(f->stack_lo && *(const uint64_t *)f->stack_lo != sched_fiber_canary_value(f), 0))
        sched_fiber_overflowed(f);
}

#if SCHED_FIBER_INLINE_SWAP
/* The x86-64 switch. A fiber's context is its stack pointer, where it
 * resumes, rbp and its floating-point controls, all kept in its sched_fiber:
 * the switch writes nothing on either stack. Every other register is
 * declared clobbered, so the compiler keeps across it just what is live,
 * in the frame it has anyway (a switch that pushed all callee-saved
 * registers touched a hundred sleepers' stacks a cache line more each).
 * The jump leaves from in rax (the resumed side's prev) and to in rsi (a
 * new fiber's trampoline reads itself from there, fiber_x86_64.S). Only the
 * MXCSR control bits (6-15) are switched; its exception flags stay with
 * the thread (caller-saved in the ABI), as the x87 status word does.
 * ldmxcsr and fldcw are slow, so each is skipped when nothing changes. */
#define SCHED_FIBER_X86_CLOBBERS                                                                                   \
    "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc", "xmm0", "xmm1",    \
        "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
        "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)" SCHED_FIBER_X86_AVX512_CLOBBERS
#if defined(__AVX512F__)
#define SCHED_FIBER_X86_AVX512_CLOBBERS                                                                            \
    , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",  \
        "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#else
#define SCHED_FIBER_X86_AVX512_CLOBBERS
#endif
/* where an indirect jump may land when the build marks such places (CET) */
#if defined(__CET__) && (__CET__ & 1)
#define SCHED_FIBER_X86_LANDING "endbr64\n\t"
#else
#define SCHED_FIBER_X86_LANDING
#endif
/* The resuming half, shared by a switch and an exit: from's MXCSR slot
 * holds the thread's current value, rdi is from and rsi to. */
#define SCHED_FIBER_X86_RESUME                                                                                     \
    "movl 24(%%rdi), %%eax\n\t"                                                                                   \
    "movl 24(%%rsi), %%edx\n\t"                                                                                   \
    "xorl %%eax, %%edx\n\t"                                                                                       \
    "andl $0xffc0, %%edx\n\t" /* the control bits that differ */                                                 \
    "jz 2f\n\t"                                                                                                   \
    "xorl %%eax, %%edx\n\t" /* the current flags with to's control bits */                                       \
    "movl %%edx, 24(%%rsi)\n\t"                                                                                   \
    "ldmxcsr 24(%%rsi)\n\t"                                                                                       \
    "2:\n\t"                                                                                                      \
    "fnstcw 28(%%rdi)\n\t"                                                                                        \
    "movzwl 28(%%rdi), %%eax\n\t"                                                                                 \
    "cmpw 28(%%rsi), %%ax\n\t"                                                                                    \
    "je 3f\n\t"                                                                                                   \
    "fldcw 28(%%rsi)\n\t"                                                                                         \
    "3:\n\t"                                                                                                      \
    "movq 16(%%rsi), %%rbp\n\t"                                                                                   \
    "movq 0(%%rsi), %%rsp\n\t"                                                                                    \
    "movq %%rdi, %%rax\n\t"                                                                                       \
    "jmpq *8(%%rsi)\n\t"

/* Saves the running context into from, resumes to; returns, once something
 * switches back to from, the fiber that did. No checks: see
 * sched_fiber_switch. */
static inline __attribute__((always_inline)) sched_fiber *sched_fiber_swap_regs(sched_fiber *from, sched_fiber *to) {
    sched_fiber *prev;
    __asm__ volatile("stmxcsr 24(%%rdi)\n\t"
                     "leaq 1f(%%rip), %%rcx\n\t"
                     "movq %%rsp, 0(%%rdi)\n\t"
                     "movq %%rcx, 8(%%rdi)\n\t"
                     "movq %%rbp, 16(%%rdi)\n\t" SCHED_FIBER_X86_RESUME "1:\n\t" SCHED_FIBER_X86_LANDING
                     : "=a"(prev), "+D"(from), "+S"(to)
                     :
                     : SCHED_FIBER_X86_CLOBBERS);
    return prev;
}

/* Resumes to for good: from is never resumed. */
static inline __attribute__((always_inline, noreturn)) void sched_fiber_jump_regs(sched_fiber *from, sched_fiber *to) {
    __asm__ volatile("stmxcsr 24(%%rdi)\n\t" SCHED_FIBER_X86_RESUME : "+D"(from), "+S"(to) : : "rax", SCHED_FIBER_X86_CLOBBERS);
    __builtin_unreachable();
}

/* sched_fiber_switch inline where every switch counts (the scheduler's
 * switch away from a task), with the same checks. */
static inline __attribute__((always_inline)) void sched_fiber_switch_inline(sched_fiber *from, sched_fiber *to) {
#if SCHED_FIBER_ASAN
    sched_fiber_switch(from, to);
#else
    sched_fiber_check_leaving(from);
    from->state = SCHED_FIBER_SUSPENDED;
    to->state = SCHED_FIBER_RUNNING;
    (void)sched_fiber_swap_regs(from, to);
#endif
}
#else
static inline void sched_fiber_switch_inline(sched_fiber *from, sched_fiber *to) { sched_fiber_switch(from, to); }
#endif
#endif
