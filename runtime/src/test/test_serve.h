/* test_serve.h: the serve mode of a test binary (docs/test-binary.md,
 * "Serve mode"). Plain POSIX C with no runtime dependency, so the runner's
 * fake test binary (tests/runner/fake_testbin.c) serves with the same
 * loop. Not a public interface. */
#ifndef OXL_TEST_SERVE_H
#define OXL_TEST_SERVE_H

#include <stdint.h>
#include <sys/types.h>

/* Reads requests from fd 0 and answers on fd 1 until fd 0 ends and every
 * child has been reaped. For each request it forks a child that leads a
 * session and process group of its own, has stdin from /dev/null, stdout
 * and stderr in the request's files and OXL_TEST_RUN / OXL_TEST_SEED /
 * OXL_SIM_REPORT / OXL_DATA_DIR as the request says, and then exits with
 * run(ctx); the server kills it at the request's limit. Returns
 * the server's exit status (0 at the end of its input, 2 when it could
 * not set itself up). */
int oxl_test_serve(int (*run)(void *ctx), void *ctx);

/* In a process that will serve, before the collector starts: the
 * collector installs no fork handlers (test_serve.c says why). */
void test_serve_before_gc(void);

/* test_explore.c: the explorer (`--explore`): reads `<index>\t<seed>`
 * lines and answers each `done <seed> <status> <trace> <usec>` after
 * run_seed, in this one process (docs/test-binary.md, "Explore mode").
 * Returns its exit status (0 at the end of its input). */
int oxl_test_explore(int (*run_seed)(void *ctx, uint64_t index, uint64_t seed, uint64_t *trace), void *ctx);

/* test_isolate.c: that the server's children do not outlive it. begin,
 * once before the first fork: the server learns its parent's death as
 * SIGTERM and adopts what its children leave behind (a subreaper).
 * kill_all, at its end: every child it has, forked or adopted, is killed
 * and reaped, until none is left. */
void test_isolate_begin(void);
void test_isolate_kill_all(void);

#endif
