/* test_serve.h: the serve mode of a test binary (docs/test-binary.md,
 * "Serve mode"). Plain POSIX C with no runtime dependency, so the runner's
 * fake test binary (tests/runner/fake_testbin.c) serves with the same
 * loop. Not a public interface. */
#ifndef OXL_TEST_SERVE_H
#define OXL_TEST_SERVE_H

/* Reads requests from fd 0 and answers on fd 1 until fd 0 ends and every
 * child has been reaped. For each request it forks a child that leads a
 * process group of its own, has stdin from /dev/null, stdout and stderr in
 * the request's files and OXL_TEST_RUN / OXL_TEST_SEED / OXL_SIM_REPORT /
 * OXL_DATA_DIR as the request says, and then exits with run(ctx). Returns
 * the server's exit status (0 at the end of its input, 2 when it could
 * not set itself up). */
int oxl_test_serve(int (*run)(void *ctx), void *ctx);

#endif
