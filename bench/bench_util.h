/* bench_util.h: what the benchmarks share: a monotonic clock and timing a
 * spawned command. Prefix: bench_. */
#ifndef OXL_BENCH_UTIL_H
#define OXL_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* Runs argv (argv[0] searched in PATH) with stdout to out and stderr to err
 * (files created or truncated; NULL means /dev/null); sets *seconds to its
 * wall time. Returns its exit status, -1 when it could not run or was
 * killed by a signal. */
int bench_run(char *const argv[], const char *out, const char *err, double *seconds);

/* The oxl to measure: `given` when not NULL, else the one beside the
 * benchmark's directory (build/bench/../oxl). False when it is not an
 * executable (or the path does not fit). */
bool bench_find_oxl(const char *given, char *oxl, size_t cap);

/* The C compiler: $CC, else cc. */
const char *bench_cc(void);

#endif
