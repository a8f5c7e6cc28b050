/* fence_state.c: whether the fence is armed, turned off or opened, which
 * every wrapped call reads through fence_live; the escape hatch's API. */
#include "fence/fence.h"
#include "oxl_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Atomic int fence_live;

/* Written by the thread that runs the simulation, and by allow_begin and
 * allow_end, which C code may call from any thread outside a run. */
static _Atomic int fence_depth;  /* deterministic runs under way (nested) */
static _Atomic int fence_allow;  /* open allow_begin calls */
static _Atomic int fence_on = -1; /* OXL_SIM_FENCE: -1 not read yet, 0 off, 1 on */

static void fence_update(void) {
    int live = atomic_load(&fence_depth) > 0 && atomic_load(&fence_allow) == 0 && atomic_load(&fence_on) == 1;
    atomic_store_explicit(&fence_live, live, memory_order_relaxed);
}

bool fence_config_from_env(void) {
    int on = atomic_load(&fence_on);
    if (on >= 0) return on != 2;
    on = fence_env_setting(); /* fence_live is 0 (never armed yet): a wrapped getenv passes */
    if (on < 0) {
        fprintf(stderr, "error: OXL_SIM_FENCE='%s' must be 1 or 0 (0 turns the simulation's fence off)\n",
                getenv("OXL_SIM_FENCE"));
        on = 2; /* remembered as bad: never live */
    }
    atomic_store(&fence_on, on);
    return on != 2;
}

void fence_arm(void) {
    if (!fence_config_from_env()) exit(2);
    atomic_fetch_add(&fence_depth, 1);
    fence_update();
}

void fence_disarm(void) {
    if (atomic_fetch_sub(&fence_depth, 1) <= 0) {
        fputs("oxl: internal error: the fence was disarmed more often than armed\n", stderr);
        abort();
    }
    fence_update();
}

void oxl_fence_allow_begin(void) {
    atomic_fetch_add(&fence_allow, 1);
    fence_update();
}

void oxl_fence_allow_end(void) {
    if (atomic_fetch_sub(&fence_allow, 1) <= 0) {
        atomic_fetch_add(&fence_allow, 1);
        oxl_panic_at("(C code)", 0, "oxl_fence_allow_end without a matching oxl_fence_allow_begin");
    }
    fence_update();
}

bool oxl_fence_active(void) { return atomic_load_explicit(&fence_live, memory_order_relaxed) != 0; }
