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

struct oxl_service; /* oxl_rpc.h */

/* A role a simulated node serves: its name and its service's table. */
typedef struct oxl_test_role {
    const char *name;
    const struct oxl_service *service;
} oxl_test_role;

/* A simulated node of a sim test's layout (docs/language.md §12). */
typedef struct oxl_test_node {
    const char *name;      /* "api-0", "n1" */
    int64_t nroles;
    const oxl_test_role *roles;
} oxl_test_node;

/* One test, as generated code lays it out (every field a word: 11). */
typedef struct oxl_test_case {
    const char *name;      /* may hold any bytes: name_len counts them */
    int64_t name_len;
    const char *file;      /* relative to the package directory */
    int64_t line, col;
    int64_t sim;           /* 1: test sim, 0: a unit test */
    int64_t seed_first, seed_last; /* inclusive */
    void (*body)(void);
    /* a sim test's nodes, the body on the first; their roles boot and serve
     * there (oxl_rpc.h) */
    int64_t nnodes;
    const oxl_test_node *layout;
} oxl_test_case;
_Static_assert(sizeof(oxl_test_case) == 11 * sizeof(int64_t), "the generated test table has 11 words a row");
_Static_assert(sizeof(oxl_test_node) == 3 * sizeof(int64_t), "a layout node is 3 words");
_Static_assert(sizeof(oxl_test_role) == 2 * sizeof(int64_t), "a role is 2 words");

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
