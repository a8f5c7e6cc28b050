/* fence.h: the fence's internal interface (the public one is oxl_fence.h).
 *
 * fence_state.c holds the state and is linked into every program: the
 * scheduler and the World arm the fence around a deterministic run.
 * fence.c holds the __wrap_ functions and fence_trip.c the failure report;
 * both are linked only into programs built with the wrappers
 * (-Wl,--wrap=<each name of wrapped.txt>), whose references to a wrapped
 * function go to __wrap_<name> and whose __real_<name> is libc's.
 *
 * The runtime's own calls go through the wrappers too. Each is made where
 * no deterministic run is under way; runtime code that must make one inside
 * a run (std.store's files under OXL_DATA_DIR) brackets it with
 * oxl_fence_allow_begin / _end. ctest fence_runtime_calls lists every such
 * call (tests/unit/runtime/fence_runtime_calls.sh): add a new one there with
 * the reason it cannot trip. */
#ifndef OXL_FENCE_INTERNAL_H
#define OXL_FENCE_INTERNAL_H

#include "oxl_fence.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Nonzero while a fenced call must fail: a deterministic run is under way,
 * OXL_SIM_FENCE is not 0, and no allow_begin is open. Read on every wrapped
 * call, so it is one word; written only when one of those changes. */
extern _Atomic int fence_live;
#define FENCE_LIVE() __builtin_expect(atomic_load_explicit(&fence_live, memory_order_relaxed) != 0, 0)

/* A deterministic run starts or ends (they nest: a World stepped inside a
 * scheduler run). The first arming reads OXL_SIM_FENCE; a bad value ends
 * the program with status 2 and a message naming it. */
void fence_arm(void);
void fence_disarm(void);

/* OXL_SIM_FENCE as it is now: 1 on (unset, empty or 1), 0 off, -1 any
 * other value. Reads the environment and nothing else: nothing is kept or
 * printed, so a fork server can ask and its children still say a bad
 * value themselves (fence_config_from_env). Inline: the fork server's
 * loop is also built into a fake test binary without the fence. */
static inline int fence_env_setting(void) {
    const char *v = getenv("OXL_SIM_FENCE");
    if (!v || !*v || strcmp(v, "1") == 0) return 1;
    return strcmp(v, "0") == 0 ? 0 : -1;
}

/* Reads and checks OXL_SIM_FENCE once (later calls return the first
 * answer). False, with the message on stderr, when it is not 0, 1 or empty. */
bool fence_config_from_env(void);

/* For the wrappers (fence.c, fence_names.c): the return address of a
 * wrapper's caller, and __real_name and __wrap_name declared with one
 * parameter list. */
#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))
#define FENCE_DECL(ret, name, params) \
    ret __real_##name params;         \
    ret __wrap_##name params

/* What a fenced call reaches, which decides the advice of its message. */
typedef enum fence_kind {
    FENCE_CLOCK,
    FENCE_SLEEP,
    FENCE_RANDOM,
    FENCE_FILE,
    FENCE_NET,
    FENCE_THREAD,
    FENCE_PROCESS,
    FENCE_ENV,
    FENCE_PID,
} fence_kind;

/* Fails the run for a fenced call: `call` describes it (printf format),
 * caller is the return address inside the code that made it. In a task the
 * run stops with the panic `fence: <call> called from <file>:<line> (<fn>)
 * inside a simulation; <advice>` at the OxL line of the extern call (exit
 * status 101 with the seed's report); outside a task the program prints it
 * and exits with 101. */
_Noreturn void fence_trip(fence_kind kind, const void *caller, const char *call, ...)
    __attribute__((format(printf, 3, 4), cold));

/* `s` as a double-quoted C string, escaped and cut at 200 bytes (NULL is
 * written NULL), in buf: the path or name a message shows. Returns buf. */
#define FENCE_QUOTE_MAX 1024
const char *fence_quote(char buf[FENCE_QUOTE_MAX], const char *s);

#endif
