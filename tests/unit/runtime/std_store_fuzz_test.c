/* std_store_fuzz_test: the file log's reader against damaged files. A log
 * of seeded operations is truncated, bit-flipped, overwritten and extended
 * at random; every damaged copy must open without a crash, hold exactly
 * the state after the records that lie wholly before the first damaged
 * byte, and be cut back to their end. The record parser alone gets random
 * and mutated buffers of exact size (so ASan sees any read past them).
 * OXL_STORE_FUZZ_ITERS=<n> runs longer. */
#include "oxl_sim.h"
#include "std/store_internal.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPS 60

static char dir[256], logp[300];

/* The index as one canonical line: key=kind:hex;... in bytewise key order. */
static int cmp_entry(const void *a, const void *b) {
    const store_entry *x = *(const store_entry *const *)a, *y = *(const store_entry *const *)b;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

static char *state_text(store_file *f) {
    size_t cap = store_file_capacity(f), n = 0, len = 1;
    const store_entry **es = calloc(cap ? cap : 1, sizeof *es);
    for (size_t i = 0; i < cap; i++) {
        const store_entry *e = store_file_slot(f, i);
        if (e->key) {
            es[n++] = e;
            len += e->klen + 2 * e->vlen + 8;
        }
    }
    qsort(es, n, sizeof *es, cmp_entry);
    char *out = malloc(len), *p = out;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, es[i]->key, es[i]->klen);
        p += es[i]->klen;
        p += sprintf(p, "=%c:", es[i]->kind);
        for (size_t j = 0; j < es[i]->vlen; j++) p += sprintf(p, "%02x", es[i]->val[j]);
        *p++ = ';';
    }
    *p = '\0';
    free(es);
    return out;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) tap_bail("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) tap_bail("short read of %s", path);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Rewrites the file in place: no truncation to zero, which ext4
 * (auto_da_alloc) answers with a flush at close. */
static void spill(const char *path, const unsigned char *b, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT, 0666);
    if (fd < 0 || (n && pwrite(fd, b, n, 0) != (ssize_t)n) || ftruncate(fd, (off_t)n) != 0)
        tap_bail("cannot write %s", path);
    close(fd);
}

static long size_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(void) {
    const char *it_env = getenv("OXL_STORE_FUZZ_ITERS");
    long iters = it_env ? atol(it_env) : 3000;
    snprintf(dir, sizeof dir, "%s/oxl-store-fuzz-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) tap_bail("mkdtemp failed");
    snprintf(logp, sizeof logp, "%s/%s", dir, OXL_STORE_LOG_FILE);

    /* the reference log: snapshot[k] and end[k] after k operations */
    oxl_rng rng;
    oxl_rng_seed(&rng, 2026, "store-fuzz");
    char *snapshot[OPS + 1];
    long end[OPS + 1];
    char *why = NULL;
    store_file *f = store_file_open(dir, &why);
    if (!f) tap_bail("open: %s", why);
    snapshot[0] = state_text(f);
    end[0] = size_of(logp);
    for (int k = 1; k <= OPS; k++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", (int)oxl_rng_below(&rng, 12));
        unsigned char val[40];
        size_t vlen = (size_t)oxl_rng_below(&rng, sizeof val);
        for (size_t i = 0; i < vlen; i++) val[i] = (unsigned char)('a' + oxl_rng_below(&rng, 26));
        uint64_t what = oxl_rng_below(&rng, 4);
        uint8_t kind = what == 0 ? OXL_STORE_STRING : what == 1 ? OXL_STORE_BYTES : what == 2 ? OXL_STORE_INT : 0;
        if (kind == OXL_STORE_INT) vlen = 8;
        if (kind == 0 && !store_file_get(f, key, strlen(key))) kind = OXL_STORE_STRING; /* only real deletes */
        if (!store_file_write(f, key, strlen(key), kind, val, kind ? vlen : 0, &why)) tap_bail("write: %s", why);
        snapshot[k] = state_text(f);
        end[k] = size_of(logp);
    }
    store_file_sync(f, &why);
    store_file_close(f);
    size_t len;
    unsigned char *orig = slurp(logp, &len);
    tap_is_int((long)len, end[OPS], "the reference log holds %d records (%zu bytes)", OPS, len);

    long crashes_avoided = 0, bad_state = 0, bad_cut = 0, reopen_failed = 0;
    long kinds[4] = {0};
    unsigned char *buf = malloc(len + 64);
    for (long it = 0; it < iters; it++) {
        memcpy(buf, orig, len);
        size_t n = len, first; /* first damaged byte */
        int mode = (int)oxl_rng_below(&rng, 4);
        kinds[mode]++;
        if (mode == 0) { /* truncate anywhere, the header too */
            n = (size_t)oxl_rng_below(&rng, len + 1);
            first = n;
        } else if (mode == 1) { /* flip 1..4 bits past the header */
            first = len;
            int flips = 1 + (int)oxl_rng_below(&rng, 4);
            for (int i = 0; i < flips; i++) {
                size_t at = OXL_STORE_LOG_HEADER + (size_t)oxl_rng_below(&rng, len - OXL_STORE_LOG_HEADER);
                buf[at] ^= (unsigned char)(1u << oxl_rng_below(&rng, 8));
                if (at < first) first = at;
            }
        } else if (mode == 2) { /* overwrite a span with random bytes, then truncate maybe */
            size_t at = OXL_STORE_LOG_HEADER + (size_t)oxl_rng_below(&rng, len - OXL_STORE_LOG_HEADER);
            size_t span = 1 + (size_t)oxl_rng_below(&rng, 32);
            if (at + span > len) span = len - at;
            bool changed = false;
            for (size_t i = 0; i < span; i++) {
                unsigned char b = (unsigned char)oxl_rng_below(&rng, 256);
                changed = changed || b != buf[at + i];
                buf[at + i] = b;
            }
            first = changed ? at : len;
            if (oxl_rng_chance(&rng, 0.5)) n = at + span;
        } else { /* append random bytes (a torn next record) */
            size_t extra = 1 + (size_t)oxl_rng_below(&rng, 64);
            for (size_t i = 0; i < extra; i++) buf[len + i] = (unsigned char)oxl_rng_below(&rng, 256);
            if (extra >= 4 && oxl_rng_chance(&rng, 0.5)) { /* with a plausible length */
                buf[len] = (unsigned char)(extra - 8);
                buf[len + 1] = buf[len + 2] = buf[len + 3] = 0;
            }
            n = len + extra;
            first = len;
        }
        /* the flips may have landed on bytes a mutation restored; recompute */
        size_t diff = 0;
        while (diff < n && diff < len && buf[diff] == orig[diff]) diff++;
        if (diff < first) first = diff;
        int intact = 0;
        while (intact < OPS && (size_t)end[intact + 1] <= first) intact++;
        spill(logp, buf, n);
        store_file *g = store_file_open(dir, &why);
        if (!g) {
            reopen_failed++;
            if (reopen_failed <= 3) tap_diag("iteration %ld (mode %d): open failed: %s", it, mode, why);
            free(why);
            why = NULL;
            continue;
        }
        crashes_avoided++;
        char *got = state_text(g);
        if (strcmp(got, snapshot[intact]) != 0) {
            if (++bad_state <= 3)
                tap_diag("iteration %ld (mode %d, first damaged byte %zu): state is not the %d-record prefix", it,
                         mode, first, intact);
        }
        free(got);
        long want_size = end[intact]; /* end[0] is the header alone, which a torn one is rewritten to */
        if (size_of(logp) != want_size && ++bad_cut <= 3)
            tap_diag("iteration %ld (mode %d): file is %ld bytes, expected %ld", it, mode, size_of(logp), want_size);
        /* a write after the cut must read back after the next open */
        if (it % 16 == 0) {
            store_file_write(g, "after", 5, OXL_STORE_STRING, "x", 1, &why);
            store_file_close(g);
            g = store_file_open(dir, &why);
            if (!g || !store_file_get(g, "after", 5)) bad_cut++;
        }
        store_file_close(g);
    }
    tap_is_int(reopen_failed, 0, "every damaged log past its header opens (%ld of %ld iterations)", crashes_avoided,
               iters);
    tap_is_int(bad_state, 0, "each holds exactly the records before the first damaged byte");
    tap_is_int(bad_cut, 0, "each is cut back to the end of those records, and a later write reads back");
    tap_diag("mutations: %ld truncations, %ld bit flips, %ld overwritten spans, %ld appended tails", kinds[0], kinds[1],
             kinds[2], kinds[3]);

    /* the parser alone: random buffers and mutated records of exact size */
    long parsed = 0, out_of_bounds = 0;
    for (long it = 0; it < iters * 20; it++) {
        size_t n = (size_t)oxl_rng_below(&rng, 300);
        unsigned char *b = malloc(n ? n : 1);
        if (it % 2 == 0 || n < STORE_RECORD_HEAD + STORE_PAYLOAD_HEAD + 1) {
            for (size_t i = 0; i < n; i++) b[i] = (unsigned char)oxl_rng_below(&rng, 256);
        } else { /* a valid record, then damaged and cut to n */
            unsigned char rec[STORE_RECORD_HEAD + STORE_PAYLOAD_HEAD + 300];
            size_t klen = 1 + (size_t)oxl_rng_below(&rng, 8), vlen = (size_t)oxl_rng_below(&rng, 200);
            char key[16];
            memset(key, 'k', sizeof key);
            unsigned char val[200];
            memset(val, 'v', sizeof val);
            size_t rn = store_record_encode(rec, OXL_STORE_LOG_PUT, OXL_STORE_BYTES, key, klen, val, vlen);
            if (oxl_rng_chance(&rng, 0.5)) rec[oxl_rng_below(&rng, rn)] ^= (unsigned char)(1u << oxl_rng_below(&rng, 8));
            memcpy(b, rec, n < rn ? n : rn);
            for (size_t i = rn; i < n; i++) b[i] = 0;
        }
        store_record r;
        size_t k = store_record_parse(b, n, &r);
        if (k) {
            parsed++;
            const unsigned char *lo = b, *hi = b + n;
            if (k > n || (const unsigned char *)r.key < lo || (const unsigned char *)r.key + r.klen > hi ||
                (r.vlen && (r.val < lo || r.val + r.vlen > hi)))
                out_of_bounds++;
        }
        free(b);
    }
    tap_is_int(out_of_bounds, 0, "the parser never points outside its buffer (%ld of %ld parsed as records)", parsed,
               iters * 20);

    for (int k = 0; k <= OPS; k++) free(snapshot[k]);
    free(orig);
    free(buf);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) tap_diag("could not remove %s", dir);
    return tap_done();
}
