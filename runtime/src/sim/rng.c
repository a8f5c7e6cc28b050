/* rng.c: seeded random streams (xoshiro256** over splitmix64). A stream is
 * a pure function of (seed, name), so streams never share state and a
 * program that draws one extra number from one stream shifts no other. */
#include "sim_internal.h"

#include <string.h>

static uint64_t rng_splitmix(uint64_t *x) {
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* FNV-1a over the bytes, then a final avalanche: content only, never an
 * address, so it is the same in every process. */
uint64_t sim_text_hash(const char *text, size_t len) {
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= UINT64_C(0x100000001B3);
    }
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    return h;
}

void oxl_rng_seed(oxl_rng *r, uint64_t seed, const char *stream) {
    const char *name = stream ? stream : "";
    uint64_t x = seed ^ sim_text_hash(name, strlen(name));
    for (int i = 0; i < 4; i++) r->s[i] = rng_splitmix(&x);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) r->s[0] = 1; /* never all zero */
}

SIM_HOT uint64_t oxl_rng_next(oxl_rng *r) { return sim_rng_next(r); }

SIM_HOT uint64_t oxl_rng_below(oxl_rng *r, uint64_t n) {
    if (n == 0) return 0;
    unsigned __int128 m = (unsigned __int128)oxl_rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (unsigned __int128)oxl_rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

SIM_HOT int64_t oxl_rng_range(oxl_rng *r, int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span == UINT64_MAX) return (int64_t)oxl_rng_next(r);
    return (int64_t)((uint64_t)lo + oxl_rng_below(r, span + 1));
}

double oxl_rng_unit(oxl_rng *r) { return (double)(oxl_rng_next(r) >> 11) * 0x1.0p-53; }

bool oxl_rng_chance(oxl_rng *r, double p) {
    if (p <= 0.0) return false;
    if (p >= 1.0) return true;
    return oxl_rng_unit(r) < p;
}
