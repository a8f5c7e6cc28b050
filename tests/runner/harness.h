/* harness.h: what the runner's tests share: a work directory with a
 * package, `oxl test` (tr_main) run in a child against fake_testbin
 * through the build hook, and readers of what the runs left (the fake's
 * log, the failures file, JSON lines, /proc). */
#ifndef OXL_RUNNER_HARNESS_H
#define OXL_RUNNER_HARNESS_H

#include "tap.h"
#include "test_runner.h"
#include "tr_internal.h"

#include <stdbool.h>
#include <sys/types.h>

/* the work directory and, in it, the package, the fake's state
 * directory (FAKE_STATE_DIR), the cache (OXL_CACHE_DIR) and TMPDIR */
extern char work[512], pkg[1024], state[1024], cache[1024], tmpd[1024];

typedef struct result {
    int status;
    char *out, *err;
    double seconds;
} result;

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Makes the work directory and the package (a.oxl, sub/b.oxl). */
void harness_init(const char *name);
/* Removes the work directory when every test passed; the TAP status. */
int harness_done(void);

/* Starts tr_main in a child with the environment changes (NAME=value, or
 * NAME to unset) and the arguments, both NULL-terminated; stdout goes to
 * a file, or to the terminal whose name is tty. HARNESS_CACHE=SIZE (or
 * =ro) in env puts the cache directory on a tmpfs of that size (or a
 * read-only one) in a mount namespace of the child's own; the run's
 * status is HARNESS_NO_NAMESPACE when the system allows none. */
#define HARNESS_NO_NAMESPACE 77
pid_t run_start(const char *const *env, const char *const *args, const char *tty);
result run_finish(pid_t pid, double t0);
/* The same with output files named after tag, for runs side by side. */
pid_t run_start_as(const char *tag, const char *const *env, const char *const *args, const char *tty);
result run_finish_as(const char *tag, pid_t pid, double t0);
result run_env(const char *const *env, const char *const *args);
void free_result(result *r);
void show(const result *r);

char *slurp(const char *path); /* "" when unreadable */
char *read_proc(const char *path, size_t *len); /* a /proc file (they say they are empty); NULL when unreadable */
void reset_state(void);        /* an empty FAKE_STATE_DIR */
char *read_log(void);          /* the fake's log of runs */
int count_lines(const char *s, const char *prefix);
bool dir_empty(const char *path);
/* Every line one JSON object; returns the number of lines, -1 if one is bad. */
int json_lines(const char *s);

void set_tests(const char *spec); /* FAKE_TESTS */
void write_pkg_file(const char *rel, const char *text);
char *failures_file(void); /* NULL when there is none */
void remove_failures(void);
/* Seeds run for test index idx, in increasing order, as "a,b,c". */
void seeds_run(const char *log, int idx, char *buf, size_t cap);
/* How many processes of the log ran as children of a fork server that
 * forked others too (the run's), of a server that forked only them (their
 * own), and spawned ("exec"); seed (or -1 for any) selects lines of test
 * idx. */
void count_via(const char *log, int idx, long seed, int *shared_n, int *own_n, int *exec_n);
/* Fork servers of this work directory still running. */
int servers_left(void);
/* JSON lines without their "seconds" and "processes" fields. */
char *without_timing(const char *s);
bool alive(long pid); /* a process that is not a zombie */
int count_builds(void); /* calls of the build hook so far */

#endif
