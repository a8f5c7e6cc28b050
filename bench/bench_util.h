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

/* The test binary of an OxL package: `oxl build --tests dir -O2 -o out`
 * (its diagnostics to err_path). False when that fails. */
bool bench_oxl_tests(const char *oxl, const char *dir, const char *out, const char *err_path);

/* The test binary of bench/oxl_sched (source_dir is the project's), built
 * by the oxl beside the benchmark into a fresh directory under $TMPDIR;
 * its path into bin. False (with a line on stderr) when it cannot be had. */
bool bench_oxl_sched_binary(const char *source_dir, char *bin, size_t cap);
/* Removes that binary and its directory. */
void bench_oxl_sched_remove(const char *bin);

/* The least CPU time (user + system, from wait4) of `reps` runs of test
 * `index` of a test binary at seed 1 (OXL_TEST_RUN, OXL_TEST_SEED;
 * docs/test-binary.md), each a fresh process, and in *best_wall the least
 * wall time; -1 when a run does not exit 0. CPU time is what a shared
 * machine's load disturbs least: a process of some milliseconds is
 * preempted in most runs when the cores are busy. */
double bench_oxl_test_time(const char *bin, int index, int reps, double *best_wall);

/* A short and a long run of bench/oxl_sched (tests short_index and
 * long_index, 9 runs each): builds the binary, times both (CPU times
 * returned in cpu[0..1], wall times in wall[0..1]) and removes it. False
 * (said, naming who) when the binary cannot be had or a run fails. */
bool bench_oxl_sched_pair(const char *source_dir, const char *who, int short_index, int long_index, double cpu[2],
                          double wall[2]);

/* The C compiler: $CC, else cc. */
const char *bench_cc(void);

#endif
