/* raft_storage.c: how a Raft server's durable state lies on its simulated
 * disk: the entry encoding, the meta and log keys, entry hashes and the
 * recovery read a boot (and an oracle looking at a down server) does. */
#include "raft_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hashes ------------------------------------------------------------------------------------- */
static uint64_t mix(uint64_t x) {
    /* splitmix64's finalizer */
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

uint64_t raft_entry_hash(const raft_entry *e) {
    uint64_t h = mix((uint64_t)e->term << 8 | e->type);
    h = mix(h ^ ((uint64_t)e->cmd.op | (uint64_t)e->cmd.key << 8 | (uint64_t)e->cmd.client << 16 |
                 (uint64_t)e->cmd.seq << 32));
    h = mix(h ^ (uint64_t)e->cmd.a);
    return mix(h ^ (uint64_t)e->cmd.b);
}

uint64_t raft_chain(uint64_t prev, uint64_t entry_hash) {
    return mix(prev + UINT64_C(0x9e3779b97f4a7c15) + entry_hash);
}

/* ---- the entry encoding --------------------------------------------------------------------------- */
void raft_entry_encode(const raft_entry *e, unsigned char *b) {
    raft_put32(b, e->term);
    b[4] = e->type;
    b[5] = e->cmd.op;
    b[6] = e->cmd.key;
    b[7] = e->cmd.client;
    raft_put32(b + 8, e->cmd.seq);
    raft_put64(b + 12, (uint64_t)e->cmd.a);
    raft_put64(b + 20, (uint64_t)e->cmd.b);
}

bool raft_entry_decode(const unsigned char *b, raft_entry *e) {
    e->hash = e->chain = 0; /* every other field is read below */
    e->term = raft_get32(b);
    e->type = b[4];
    e->cmd.op = b[5];
    e->cmd.key = b[6];
    e->cmd.client = b[7];
    e->cmd.seq = raft_get32(b + 8);
    e->cmd.a = (int64_t)raft_get64(b + 12);
    e->cmd.b = (int64_t)raft_get64(b + 20);
    if (e->term == 0 || e->type < RAFT_ENTRY_NOOP || e->type > RAFT_ENTRY_CONFIG) return false;
    if (e->type == RAFT_ENTRY_COMMAND && (e->cmd.op < RAFT_OP_PUT || e->cmd.op > RAFT_OP_CAS)) return false;
    if (e->type == RAFT_ENTRY_CONFIG && e->cmd.op != RAFT_OP_CONFIG) return false;
    if (e->type != RAFT_ENTRY_NOOP && (e->cmd.key >= RAFT_MAX_KEYS || e->cmd.client >= RAFT_MAX_NODES)) return false;
    return true;
}

/* ---- keys ----------------------------------------------------------------------------------------- */
#define META_KEY "meta"
#define LOG_KEY_BYTES 13 /* "log/" + 8 digits + NUL */

/* "log/00000042": fixed width, so the disk's sorted keys are in log order. */
static void log_key(char *k, uint32_t index) {
    /* two digits a step: every store and every boot's read makes one */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    memcpy(k, "log/", 4);
    for (int i = 10; i >= 4; i -= 2) {
        memcpy(k + i, pairs + 2 * (index % 100), 2);
        index /= 100;
    }
    k[12] = 0;
}

int raft_store_meta(oxl_disk *d, uint32_t term, oxl_node_id vote) {
    unsigned char b[8];
    raft_put32(b, term);
    raft_put32(b + 4, (uint32_t)vote);
    return oxl_disk_put(d, META_KEY, b, sizeof b);
}

int raft_store_entry(oxl_disk *d, uint32_t index, const raft_entry *e) {
    char k[LOG_KEY_BYTES];
    unsigned char b[RAFT_ENTRY_BYTES];
    log_key(k, index);
    raft_entry_encode(e, b);
    return oxl_disk_put(d, k, b, sizeof b);
}

int raft_store_drop(oxl_disk *d, uint32_t index) {
    char k[LOG_KEY_BYTES];
    log_key(k, index);
    return oxl_disk_del(d, k);
}

/* ---- recovery --------------------------------------------------------------------------------------- */
static bool fail_with(char *why, size_t cap, const char *text) {
    snprintf(why, cap, "%s", text);
    return false;
}

bool raft_durable_read(oxl_disk *d, raft_durable *out, char *why, size_t cap) {
    memset(out, 0, sizeof *out);
    out->vote = OXL_NO_NODE;
    const void *v;
    size_t len;
    int rc = oxl_disk_get(d, META_KEY, &v, &len);
    if (rc == OXL_DISK_OK) {
        if (len != 8) return fail_with(why, cap, "the meta record is not 8 bytes");
        out->term = raft_get32(v);
        out->vote = (oxl_node_id)raft_get32((const unsigned char *)v + 4);
        if (out->vote != OXL_NO_NODE && (out->vote < 0 || out->vote >= RAFT_MAX_SERVERS))
            return fail_with(why, cap, "the meta record votes for no server");
    } else if (rc != OXL_DISK_ENOENT) {
        return fail_with(why, cap, oxl_disk_strerror(rc));
    }
    /* The keys are the meta record and the entries: room for all of them
     * (and the sentinel) at once. */
    size_t keys = oxl_disk_key_count(d);
    uint32_t log_cap = keys < RAFT_MAX_LOG ? (uint32_t)keys + 2 : RAFT_MAX_LOG + 2;
    out->log = malloc(log_cap * sizeof *out->log); /* entries 1..last are filled in below */
    if (!out->log) return fail_with(why, cap, "out of memory");
    memset(&out->log[0], 0, sizeof out->log[0]); /* the sentinel: term 0, chain 0 */
    for (uint32_t i = 1; i <= RAFT_MAX_LOG; i++) {
        char k[LOG_KEY_BYTES];
        log_key(k, i);
        rc = oxl_disk_get(d, k, &v, &len);
        if (rc == OXL_DISK_ENOENT) break;
        if (rc != OXL_DISK_OK) return fail_with(why, cap, oxl_disk_strerror(rc));
        if (i == log_cap) {
            log_cap *= 2;
            raft_entry *g = realloc(out->log, log_cap * sizeof *g);
            if (!g) return fail_with(why, cap, "out of memory");
            out->log = g;
        }
        raft_entry *e = &out->log[i];
        if (len != RAFT_ENTRY_BYTES || !raft_entry_decode(v, e)) {
            snprintf(why, cap, "log entry %u is malformed", i);
            return false;
        }
        e->hash = raft_entry_hash(e);
        e->chain = raft_chain(out->log[i - 1].chain, e->hash);
        out->last = i;
    }
    return true;
}

void raft_durable_free(raft_durable *d) {
    free(d->log);
    memset(d, 0, sizeof *d);
}
