/* The extern fns of case.oxl: a call the C side lets through the fence on
 * purpose, between oxl_fence_allow_begin and oxl_fence_allow_end. */
#include "oxl_fence.h"

#include <stdint.h>
#include <stdlib.h>

int64_t oxl_fenceallow_fenceActive(void) { return oxl_fence_active(); }

/* Whether the variable is set, read with the fence open around the call. */
int64_t oxl_fenceallow_pathIsSet(void) {
    oxl_fence_allow_begin();
    int64_t active = oxl_fence_active();
    const char *path = getenv("PATH");
    oxl_fence_allow_end();
    return !active && path != NULL;
}
