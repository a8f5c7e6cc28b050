/* core_internal.h: shared internals of the core runtime (runtime/src/core). */
#ifndef OXL_CORE_INTERNAL_H
#define OXL_CORE_INTERNAL_H

#include "oxl_rt.h"

#if defined(__GNUC__)
#define CORE_HIDDEN __attribute__((visibility("hidden")))
#else
#define CORE_HIDDEN
#endif

/* Panics with a printf-style message (flushes stdout first). */
CORE_HIDDEN void core_panic(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 3, 4)));
/* Panics "length n exceeds the limit (2^40)" when n > OXL_MAX_LEN. */
CORE_HIDDEN void core_check_len(int64_t n, const char *file, int line);
/* A new string object of len bytes (NUL-terminated), contents unset. */
CORE_HIDDEN struct oxl_str_obj *core_str_alloc(int64_t len);
/* Checks 0 <= from <= to <= len with the runtime's bounds messages. */
CORE_HIDDEN void core_check_range(int64_t from, int64_t to, int64_t len, const char *file, int line);

/* m's decimal digits, written backwards so that they end just before end
 * (20 bytes of room do); returns where they start. */
CORE_HIDDEN char *core_u64_dec(char *end, uint64_t m);

/* splitmix64's finalizer: every input bit reaches every output bit (the
 * map's key hash, the tail of the string hash). */
static inline uint64_t core_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    x ^= x >> 31;
    return x;
}

#endif
