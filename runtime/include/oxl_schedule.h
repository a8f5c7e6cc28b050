/* oxl_schedule.h: the schedule file, a recorded or shrunk run of one sim
 * test's seed: the scheduler's decisions and the World's faults
 * (docs/testing.md, "Shrinking a failure"). The reader and writer use
 * nothing but the C library, so both the test binary and `oxl test`
 * compile them. */
#ifndef OXL_SCHEDULE_H
#define OXL_SCHEDULE_H

#include "oxl_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OXL_SCHEDULE_VERSION 1
#define OXL_SCHEDULE_MAX_BYTES (64u << 20)      /* of a file */
#define OXL_SCHEDULE_MAX_DECISIONS (1u << 24)
#define OXL_SCHEDULE_MAX_FAULTS (1u << 20)
#define OXL_SCHEDULE_MAX_TEXT 4096              /* a test name, a failure */

typedef struct oxl_schedule {
    char binary[65];       /* the test binary's identity (64 hex digits), "" when not named */
    char *test;            /* the test's name (malloc'd) */
    uint64_t seed;
    uint32_t *decisions;   /* the policy's choices, in order (malloc'd) */
    size_t ndecisions;
    oxl_fault *faults;     /* the faults that fire (malloc'd) */
    size_t nfaults;
    char *failure;         /* what the run came to, "site\tmessage prefix"; NULL = not said */
} oxl_schedule;

/* "partition", "block", ...; NULL for a bad kind. */
const char *oxl_fault_kind_name(oxl_fault_kind k);
/* The kind of a name, or OXL_FAULT_NKINDS. */
oxl_fault_kind oxl_fault_kind_of(const char *name);

/* Reads a file's text into out (freed with oxl_schedule_free, also on
 * failure). False, with "line N: why" in err, when the text is not a
 * schedule of this version. */
bool oxl_schedule_parse(const char *text, size_t len, oxl_schedule *out, char *err, size_t errcap);
/* The file's text (malloc'd, NUL-terminated); *len its length. */
char *oxl_schedule_format(const oxl_schedule *s, size_t *len);
void oxl_schedule_free(oxl_schedule *s);

#ifdef __cplusplus
}
#endif
#endif
