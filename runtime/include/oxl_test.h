/* oxl_test.h: the main of a test binary (docs/test-binary.md). The compiler
 * emits a table of the package's tests and a C main that calls
 * oxl_test_main with it. */
#ifndef OXL_TEST_H
#define OXL_TEST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* One test, as generated code lays it out (every field a word). */
typedef struct oxl_test_case {
    const char *name;      /* may hold any bytes: name_len counts them */
    int64_t name_len;
    const char *file;      /* relative to the package directory */
    int64_t line, col;
    int64_t sim;           /* 1: test sim, 0: a unit test */
    int64_t seed_first, seed_last; /* inclusive */
    int64_t nodes;         /* with cluster(nodes: N); 0 = one node */
    void (*body)(void);
    /* with cluster(nodes: N, roles: [...]): nodes n0..n{N-1}, each serving
     * every role; without the clause, in a package with a cluster: nodes 0
     * and the first cluster's roles, one node <role>-0 each (the body runs
     * on the first). */
    const char *const *roles;
    int64_t nroles;
} oxl_test_case;

/* --list, or runs the test OXL_TEST_RUN names (with OXL_TEST_SEED for a
 * sim test). Returns the exit status: 0 passed, 101 failed, 2 bad usage. */
int oxl_test_main(int argc, char **argv, const oxl_test_case *tests, int64_t ntests);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
