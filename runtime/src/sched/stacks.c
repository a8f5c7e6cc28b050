/* stacks.c: the pool task stacks come from (fiber.h, "the stack pool").
 *
 * A stack of its own mapping with a PROT_NONE guard page below it costs
 * the process two memory mappings, and the kernel allows a process 65,530
 * of them by default (vm.max_map_count): about 32,700 tasks. So stacks
 * are mapped many at a time, in regions of [guard][stack][guard][stack]...
 * of one size each, and a freed stack goes back to its pool, never to the
 * kernel, to be taken again (warm: its touched pages stay). The guard
 * pages are the kernel's light guard regions where it has them
 * (MADV_GUARD_INSTALL, Linux 6.13): a page that faults on any access
 * without splitting the region's mapping, so a region of any number of
 * stacks is one mapping.
 *
 * Elsewhere a guard page is made PROT_NONE, which splits the mapping
 * around it: two mappings a stack. Those are spent from a budget (the
 * kernel's limit, read once, less a margin for everything else the process
 * maps); once it is spent, stacks come without a guard page of their own
 * ("canary stacks"), in regions of [floor guard][gap][stack][gap][stack]...
 * that cost two mappings each whatever their number of stacks. The gap
 * below each such stack is as large as the stack and never touched (it
 * costs address space, not memory), so an overflow shorter than a stack
 * harms nothing else; the canary at the stack's low end, which the
 * scheduler checks whenever the task leaves its stack, reports it; and a
 * runaway recursion ends at the region's floor guard. Guarded stacks are
 * taken first. docs/scheduler.md ("Task stacks without light guard
 * regions") says what each kind promises.
 *
 * OXL_STACKS_NO_LIGHT_GUARDS=<mappings>, read once at process start,
 * pretends the kernel has no light guard regions and sets the budget (or
 * =max_map_count: the budget vm.max_map_count gives, as there): a
 * test-only switch that lets this kernel run the fallback.
 *
 * One pool per stack size (page-rounded); the pools are the process's,
 * shared by every thread that runs fibers, behind one lock. A region is
 * never unmapped: the pool holds at most as many stacks as were ever in
 * use at once. sched_stack_reserve maps stacks ahead of their use, so a
 * fork server can map them once for all its children. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MAP_STACK */
#endif

#include "sched/fiber.h"

#include "oxl_fence.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* Linux 6.13; older headers lack it */
#endif

/* ---- limits ---- */
#define POOL_SIZES 16            /* distinct stack sizes in one process */
#define REGION_MIN_STACKS 8      /* the first region of a size */
#define REGION_MAX_STACKS 1024   /* regions double up to this many stacks */
#define REGION_MAX_BYTES ((size_t)1 << 30) /* and this much address space */
/* A region of canary stacks: a runaway recursion in its top stack runs
 * through all of it (touching its pages) before it faults at the floor. */
#define CANARY_REGION_BYTES ((size_t)128 << 20)
/* Of the kernel's mappings, what is kept for the rest of the process
 * (libraries, malloc's, the collector's and a sanitizer's arenas): a
 * quarter, and at least this many. */
#define MAP_MARGIN_MIN 4096
/* Of the stacks' budget, what is kept for regions of canary stacks (two
 * mappings each): half, and at most this many. */
#define CANARY_RESERVE_MAX 4096
#define BUDGET_MAX 1000000000L /* the test switch's largest value */
#define TEST_SWITCH "OXL_STACKS_NO_LIGHT_GUARDS"

typedef struct stack_list {
    sched_stack *v; /* taken last in first out */
    size_t n, cap;
} stack_list;

typedef struct pool {
    size_t size;          /* usable bytes of each stack (whole pages) */
    stack_list guarded;   /* free stacks with a guard page below */
    stack_list canary;    /* free stacks with a gap below */
    size_t mapped_guarded, mapped_canary; /* stacks in its regions */
    size_t next_region;   /* stacks in the next guarded region */
} pool;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pool pools[POOL_SIZES];
static size_t npools;
static int light_guards = -1; /* MADV_GUARD_INSTALL works: -1 not yet known */
static bool pretend;          /* the test switch is set */
static long budget = -1;      /* mappings stacks may cost without light guards: -1 not read yet */
static size_t maps_used;      /* what their regions cost so far, without light guards */
static char why[256];         /* the last failure, for reports */

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* ---- the test switch ---- */

/* At process start, before any simulation (a fork server's children
 * inherit it): the environment is read here and nowhere later. */
__attribute__((constructor)) static void read_test_switch(void) {
    const char *v = getenv(TEST_SWITCH);
    if (!v || !*v) return;
    if (strcmp(v, "max_map_count") == 0) { /* the budget a kernel without them gives */
        pretend = true;
        light_guards = 0;
        return;
    }
    long n = 0;
    bool ok = true;
    for (const char *c = v; *c && ok; c++) {
        if (*c < '0' || *c > '9' || c - v >= 10) ok = false;
        else n = n * 10 + (*c - '0');
    }
    if (!ok || n > BUDGET_MAX) {
        char shown[48];
        size_t i = 0;
        for (; v[i] && i < sizeof shown - 4; i++) shown[i] = v[i] >= ' ' && v[i] < 127 ? v[i] : '?';
        strcpy(shown + i, v[i] ? "..." : "");
        fprintf(stderr,
                "error: %s='%s' must be a number of memory mappings from 0 to %ld, or max_map_count (a test-only "
                "switch: task stacks as on a kernel without light guard regions, within that many mappings or what "
                "vm.max_map_count gives; docs/scheduler.md)\n",
                TEST_SWITCH, shown, BUDGET_MAX);
        exit(2);
    }
    pretend = true;
    light_guards = 0;
    budget = n;
}

/* ---- guards and the mapping budget ---- */

size_t sched_stack_budget(long max_map_count) {
    if (max_map_count <= 0) return 0;
    long margin = max_map_count / 4 > MAP_MARGIN_MIN ? max_map_count / 4 : MAP_MARGIN_MIN;
    return max_map_count > margin ? (size_t)(max_map_count - margin) : 0;
}

/* Whether this kernel has light guard regions: asked once, of a scratch
 * mapping. Without them, the budget is read at once too. */
static void learn_guards(void) {
    if (light_guards < 0) {
        size_t page = page_size();
        void *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) {
            light_guards = madvise(m, page, MADV_GUARD_INSTALL) == 0;
            munmap(m, 2 * page);
        }
        /* no mapping at all: asked again next time, the take fails anyway */
    }
    if (light_guards == 0 && budget < 0) {
        long max = -1;
        /* the kernel's limit, not an input of the run: it decides which
         * stacks have a guard page, nothing a program can see */
        oxl_fence_allow_begin();
        FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
        if (f) {
            if (fscanf(f, "%ld", &max) != 1) max = -1;
            fclose(f);
        }
        oxl_fence_allow_end();
        budget = (long)sched_stack_budget(max > 0 ? max : 65530); /* the kernel's default when unreadable */
    }
}

/* Makes the page at guard fault on every access. */
static bool make_guard(unsigned char *guard, size_t page) {
    if (light_guards == 1) return madvise(guard, page, MADV_GUARD_INSTALL) == 0;
    return mprotect(guard, page, PROT_NONE) == 0;
}

static void say_why(const char *what, int err) {
    snprintf(why, sizeof why, "%s: %s", what, strerror(err));
}

/* ---- regions ---- */

static pool *pool_for(size_t size) {
    for (size_t i = 0; i < npools; i++)
        if (pools[i].size == size) return &pools[i];
    if (npools == POOL_SIZES) return NULL;
    pool *p = &pools[npools++];
    memset(p, 0, sizeof *p);
    p->size = size;
    p->next_region = REGION_MIN_STACKS;
    return p;
}

/* Room on l for all of the total stacks of its kind, so that a give never
 * allocates. */
static bool list_room(stack_list *l, size_t total) {
    if (total <= l->cap) return true;
    size_t cap = l->cap ? l->cap : 64;
    while (cap < total) cap *= 2;
    sched_stack *v = realloc(l->v, cap * sizeof *v);
    if (!v) return false;
    l->v = v;
    l->cap = cap;
    return true;
}

static void *map_anon(size_t len) {
    /* no commit charge: a stack's pages are real only once touched */
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) say_why("cannot map a region of task stacks", errno);
    return m == MAP_FAILED ? NULL : m;
}

/* Maps a region of n stacks of p's size, each with a guard page below it,
 * and frees them into p. */
static bool map_guarded(pool *p, size_t n) {
    size_t page = page_size(), slot = p->size + page;
    size_t len = n * slot;
    unsigned char *m = map_anon(len);
    if (!m) return false;
    if (!list_room(&p->guarded, p->mapped_guarded + n)) {
        munmap(m, len);
        say_why("cannot grow the list of free task stacks", ENOMEM);
        return false;
    }
    /* guards from the top down, stacks freed bottom last: the first taken
     * is the lowest, so a run's stacks stay together */
    size_t made = 0;
    for (size_t i = n; i-- > 0;) {
        unsigned char *guard = m + i * slot;
        if (!make_guard(guard, page)) {
            say_why("cannot make the guard page of a task stack", errno);
            break;
        }
        p->guarded.v[p->guarded.n++] = (sched_stack){guard + page, guard, true};
        made++;
    }
    p->mapped_guarded += made;
    if (light_guards == 0) maps_used += 2 * made;
    /* the stacks below the first bad guard stay unused (and mapped: they
     * are part of the region); what was made is usable */
    return made > 0;
}

/* Maps a region of n canary stacks of p's size: a floor guard, then a gap
 * and a stack for each, and frees them into p. */
static bool map_canary(pool *p, size_t n) {
    size_t page = page_size(), gap = p->size, slot = gap + p->size;
    size_t len = page + n * slot;
    unsigned char *m = map_anon(len);
    if (!m) return false;
    if (!list_room(&p->canary, p->mapped_canary + n)) {
        munmap(m, len);
        say_why("cannot grow the list of free task stacks", ENOMEM);
        return false;
    }
    if (!make_guard(m, page)) {
        say_why("cannot make the floor guard of a region of task stacks", errno);
        munmap(m, len);
        return false;
    }
    for (size_t i = n; i-- > 0;) p->canary.v[p->canary.n++] = (sched_stack){m + page + i * slot + gap, m, false};
    p->mapped_canary += n;
    maps_used += 2;
    return true;
}

/* Without light guards: how many guarded stacks the budget still has room
 * for, after what is kept for canary regions. */
static size_t guarded_room(void) {
    size_t b = (size_t)budget;
    size_t reserve = b / 2 < CANARY_RESERVE_MAX ? b / 2 : CANARY_RESERVE_MAX;
    return maps_used + reserve < b ? (b - reserve - maps_used) / 2 : 0;
}

static size_t free_stacks(const pool *p) { return p->guarded.n + p->canary.n; }

/* Stacks for p until it has at least want free; false (why set) when not
 * one could be mapped. */
static bool refill(pool *p, size_t want) {
    while (free_stacks(p) < want) {
        learn_guards();
        size_t page = page_size();
        size_t room = light_guards == 0 ? guarded_room() : SIZE_MAX;
        bool ok;
        if (room == 0) {
            /* the budget is spent: canary stacks, as many a region as its
             * byte limit allows, one at the least */
            size_t n = CANARY_REGION_BYTES / (2 * p->size);
            if (n < 1) n = 1;
            if (n > REGION_MAX_STACKS) n = REGION_MAX_STACKS;
            ok = map_canary(p, n) || (n > 1 && map_canary(p, 1));
        } else {
            size_t n = p->next_region;
            if (n * (p->size + page) > REGION_MAX_BYTES) n = REGION_MAX_BYTES / (p->size + page);
            if (n < 1) n = 1;
            if (n < want - free_stacks(p)) n = want - free_stacks(p);
            if (n > room) n = room;
            /* a smaller region may still fit where a large one did not */
            ok = map_guarded(p, n) || (n > 1 && map_guarded(p, 1));
            if (ok && p->next_region < REGION_MAX_STACKS) p->next_region *= 2;
        }
        if (!ok) return free_stacks(p) > 0 && want == 1;
    }
    return true;
}

/* ---- API ---- */

bool sched_stack_take(size_t size, sched_stack *out) {
    pthread_mutex_lock(&lock);
    pool *p = pool_for(size);
    bool ok = false;
    if (!p) snprintf(why, sizeof why, "more than %d distinct task stack sizes in one process", POOL_SIZES);
    else if (refill(p, 1)) {
        /* a guarded stack while there is one */
        *out = p->guarded.n ? p->guarded.v[--p->guarded.n] : p->canary.v[--p->canary.n];
        ok = true;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void sched_stack_give(size_t size, sched_stack st) {
    pthread_mutex_lock(&lock);
    pool *p = pool_for(size);
    /* a stack came from this pool, whose lists have room for all it mapped */
    assert(p);
    stack_list *l = st.guarded ? &p->guarded : &p->canary;
    assert(l->n < (st.guarded ? p->mapped_guarded : p->mapped_canary) && l->n < l->cap);
    l->v[l->n++] = st;
    pthread_mutex_unlock(&lock);
}

bool sched_stack_reserve(size_t size, size_t n) {
    size_t page = page_size();
    size = (size + page - 1) / page * page;
    pthread_mutex_lock(&lock);
    pool *p = pool_for(size);
    bool ok = p && refill(p, n);
    pthread_mutex_unlock(&lock);
    return ok;
}

const char *sched_stack_why(void) { return why[0] ? why : "no task stack could be had"; }

bool sched_stack_light_guards(void) { return light_guards == 1; }

void sched_stack_stats(sched_stack_counts *out) {
    pthread_mutex_lock(&lock);
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < npools; i++) {
        out->guarded += pools[i].mapped_guarded;
        out->canary += pools[i].mapped_canary;
    }
    out->light_guards = light_guards == 1;
    out->pretend = pretend;
    out->budget = light_guards == 0 ? budget : -1;
    out->mappings = light_guards == 0 ? maps_used : 0;
    pthread_mutex_unlock(&lock);
}
