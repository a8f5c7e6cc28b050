/* oxl_fence.h: the fence around a simulation.
 *
 * Inside a deterministic run (an `oxl test` sim seed, an oxl_sched_run
 * without real_time, a World's oxl_world_run / _until / _for / _step) the C
 * calls that reach outside the simulation (clocks, real sleeps, randomness,
 * files, sockets, threads, processes, the environment, process ids) fail
 * loudly, naming the call and its caller, instead of making the run
 * nondeterministic. The fence needs the program linked with its wrappers:
 * `oxl test` links every test binary so; a C program adds the flags of
 * oxl-fence.flags (docs/simulation.md, "The fence"). Without them the
 * functions below still work and nothing is fenced.
 *
 * The escape hatch: OXL_SIM_FENCE=0 in the environment turns the fence off
 * for the process (1, empty or unset: on; any other value is an error), and
 * a call between oxl_fence_allow_begin and oxl_fence_allow_end passes. */
#ifndef OXL_FENCE_H
#define OXL_FENCE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Lets fenced calls through until the matching oxl_fence_allow_end (pairs
 * nest). For C code that knows a call cannot change the run: a debug log
 * written to a file, a read of a fixture that never changes. */
void oxl_fence_allow_begin(void);
void oxl_fence_allow_end(void);
/* True when a fenced call made here and now would fail: a deterministic run
 * is under way, the fence is on and no allow_begin is open. (It says so
 * also in a program linked without the wrappers, where nothing fails.) */
bool oxl_fence_active(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
