/* raft_internal.h: what the harness files share and nothing else does:
 * little-endian byte codecs, the entry encoding and the disk layout.
 * Prefix raft_. */
#ifndef RAFT_INTERNAL_H
#define RAFT_INTERNAL_H

#include "raft_harness.h"

/* ---- little-endian fields, written and read byte by byte -------------------------------------- */
/* Spelled out byte by byte so the compiler merges them into single moves. */
static inline void raft_put32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}
static inline void raft_put64(unsigned char *b, uint64_t v) {
    raft_put32(b, (uint32_t)v);
    raft_put32(b + 4, (uint32_t)(v >> 32));
}
static inline uint32_t raft_get32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t raft_get64(const unsigned char *b) {
    return (uint64_t)raft_get32(b) | (uint64_t)raft_get32(b + 4) << 32;
}

/* The servers in a member set. A set has at most RAFT_MAX_SERVERS bits, so
 * clearing them one at a time beats the library call the compiler makes
 * for __builtin_popcount on a baseline x86-64 target. */
static inline int raft_count(uint32_t set) {
    int n = 0;
    for (; set; set &= set - 1) n++;
    return n;
}

/* An entry as RAFT_ENTRY_BYTES bytes: term, type, op, key, client, seq, a, b.
 * decode fills neither hash nor chain; false on a malformed entry. */
void raft_entry_encode(const raft_entry *e, unsigned char *b);
bool raft_entry_decode(const unsigned char *b, raft_entry *e);

/* ---- the disk layout ---------------------------------------------------------------------------- */
/* "meta" holds term and vote (8 bytes); "log/<index>" one entry each, for
 * 1..last. Truncation deletes from the top down and appends go up, so
 * every prefix of the writes (what a crash keeps) is a contiguous log. */
int raft_store_meta(oxl_disk *d, uint32_t term, oxl_node_id vote);
int raft_store_entry(oxl_disk *d, uint32_t index, const raft_entry *e);
int raft_store_drop(oxl_disk *d, uint32_t index);

#endif
