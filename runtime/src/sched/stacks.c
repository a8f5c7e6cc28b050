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
 * stacks is one mapping. Elsewhere a guard page is made PROT_NONE, which
 * splits the mapping around it: two mappings a stack, as before, and
 * running out of them is reported as what it is (sched_stack_why).
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

typedef struct pool {
    size_t size;          /* usable bytes of each stack (whole pages) */
    unsigned char **free; /* stack_lo of each free stack, taken last in first out */
    size_t nfree, cap;
    size_t mapped;        /* stacks in its regions */
    size_t next_region;   /* stacks in the next region */
} pool;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pool pools[POOL_SIZES];
static size_t npools;
static int light_guards = -1; /* MADV_GUARD_INSTALL works: -1 not yet known */
static char why[256];         /* the last failure, for reports */

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

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

/* Makes the page at guard fault on every access. */
static bool make_guard(unsigned char *guard, size_t page) {
    if (light_guards != 0) {
        if (madvise(guard, page, MADV_GUARD_INSTALL) == 0) {
            light_guards = 1;
            return true;
        }
        if (light_guards == 1 || (errno != EINVAL && errno != ENOSYS)) return false;
        light_guards = 0; /* this kernel has none: PROT_NONE pages from now on */
    }
    return mprotect(guard, page, PROT_NONE) == 0;
}

static void say_why(const char *what, int err) {
    snprintf(why, sizeof why, "%s: %s", what, strerror(err));
}

/* Maps a region of n stacks of p's size and frees them into p. */
static bool map_region(pool *p, size_t n) {
    size_t page = page_size(), slot = p->size + page;
    size_t len = n * slot;
    /* no commit charge: a stack's pages are real only once touched */
    unsigned char *m =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) {
        say_why("cannot map a region of task stacks", errno);
        return false;
    }
    /* room for every stack the pool has, all given back at once */
    if (p->mapped + n > p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (cap < p->mapped + n) cap *= 2;
        unsigned char **f = realloc(p->free, cap * sizeof *f);
        if (!f) {
            munmap(m, len);
            say_why("cannot grow the list of free task stacks", ENOMEM);
            return false;
        }
        p->free = f;
        p->cap = cap;
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
        p->free[p->nfree++] = guard + page;
        made++;
    }
    p->mapped += made;
    if (made < n) {
        /* the stacks below the first bad guard stay unused (and mapped:
         * they are part of the region); what was made is usable */
        return made > 0;
    }
    return true;
}

/* Stacks for p until it has at least want free; false (why set) when not
 * one could be mapped. */
static bool refill(pool *p, size_t want) {
    while (p->nfree < want) {
        size_t n = p->next_region;
        size_t page = page_size();
        if (n * (p->size + page) > REGION_MAX_BYTES) n = REGION_MAX_BYTES / (p->size + page);
        if (n < 1) n = 1;
        if (n < want - p->nfree) n = want - p->nfree;
        if (!map_region(p, n)) {
            /* a smaller region may still fit where a large one did not */
            if (n > 1 && map_region(p, 1)) continue;
            return p->nfree > 0 && want == 1;
        }
        if (p->next_region < REGION_MAX_STACKS) p->next_region *= 2;
    }
    return true;
}

bool sched_stack_take(size_t size, unsigned char **lo) {
    pthread_mutex_lock(&lock);
    pool *p = pool_for(size);
    bool ok = false;
    if (!p) snprintf(why, sizeof why, "more than %d distinct task stack sizes in one process", POOL_SIZES);
    else if (refill(p, 1)) {
        *lo = p->free[--p->nfree];
        ok = true;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void sched_stack_give(size_t size, unsigned char *lo) {
    pthread_mutex_lock(&lock);
    pool *p = pool_for(size);
    /* a stack came from this pool, whose list has room for all it mapped */
    assert(p && p->nfree < p->mapped && p->mapped <= p->cap);
    p->free[p->nfree++] = lo;
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
