/* test_trace_dump.h: OXL_SIM_TRACE_TEXT, a sim seed's whole trace in a
 * file (docs/test-binary.md). Not a public interface. */
#ifndef OXL_TEST_TRACE_DUMP_H
#define OXL_TEST_TRACE_DUMP_H

#include "oxl_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TEST_DUMP_MAX_EVENTS 1000000u /* past this the dump says it was cut */

typedef struct test_dump {
    const char *path; /* NULL: no dump asked for */
    char *buf;
    size_t len, cap;
    uint64_t events;
    bool cut;
} test_dump;

/* Reads OXL_SIM_TRACE_TEXT (before the run): false, said, when it is set
 * but empty. */
bool test_dump_from_env(test_dump *d);
/* Has the world's every event kept in memory from now on. */
void test_dump_attach(test_dump *d, oxl_world *w);
/* After the run has ended (the fence is off): the file, a header line
 * and the run's first `events` events, one a line (the run's: not what a
 * teardown adds). False, said, when it cannot be written. */
bool test_dump_write(test_dump *d, uint64_t seed, const char *policy, uint64_t trace_hash, uint64_t events);
void test_dump_free(test_dump *d);

#endif
