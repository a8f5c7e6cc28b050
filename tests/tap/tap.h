/* tap.h: a tiny Test Anything Protocol helper for the project's C tests.
 *
 * Usage: call the checks, then return tap_done() from main. Output goes to
 * stdout (TAP 13); diagnostics to stdout as '#' lines so prove and ctest
 * logs keep them in order. The exit status is 0 only if every check passed
 * and at least one ran. */
#ifndef OXL_TAP_H
#define OXL_TAP_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF(f, a)
#endif

void tap_plan(int n);
bool tap_ok(bool cond, const char *fmt, ...) TAP_PRINTF(2, 3);
bool tap_is_int(int64_t got, int64_t want, const char *fmt, ...) TAP_PRINTF(3, 4);
bool tap_is_uint(uint64_t got, uint64_t want, const char *fmt, ...) TAP_PRINTF(3, 4);
bool tap_is_str(const char *got, const char *want, const char *fmt, ...) TAP_PRINTF(3, 4);
/* Passes when needle occurs in haystack. */
bool tap_contains(const char *haystack, const char *needle, const char *fmt, ...) TAP_PRINTF(3, 4);
void tap_skip(const char *why, const char *fmt, ...) TAP_PRINTF(2, 3);
void tap_diag(const char *fmt, ...) TAP_PRINTF(1, 2);
void tap_bail(const char *fmt, ...) TAP_PRINTF(1, 2); /* prints Bail out! and exits 1 */
int tap_failures(void);
int tap_done(void); /* prints the plan if none was given; returns the exit status */

#endif
