/* store_internal.h: std.store's file backend (store_log.c) as store.c sees
 * it: one open log per node directory, its in-memory index, and the
 * record parser (kept separate so a test can feed it any bytes). Errors
 * come back as a malloc'd text in *why; memory here is malloc'd, never
 * collected, since a store outlives any one task. Prefix store_. */
#ifndef OXL_STORE_INTERNAL_H
#define OXL_STORE_INTERNAL_H

#include "oxl_std_store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_RECORD_HEAD 8u  /* u32 payload length, u32 CRC-32 */
#define STORE_PAYLOAD_HEAD 4u /* u8 op, u8 kind, u16 key length */
#define STORE_MAX_PAYLOAD (STORE_PAYLOAD_HEAD + OXL_STORE_MAX_KEY + OXL_STORE_MAX_VALUE)
/* A log is rewritten (compacted) when its dead records outweigh the live
 * ones and pass this many bytes. */
#define STORE_COMPACT_MIN (1u << 20)

/* One parsed record; key and val point into the parsed buffer. */
typedef struct store_record {
    uint8_t op, kind; /* OXL_STORE_LOG_PUT / _DELETE; OXL_STORE_STRING ... (0 for a delete) */
    const char *key;
    size_t klen;
    const unsigned char *val;
    size_t vlen;
} store_record;

/* Parses the record at buf[0..avail): its size (header included), or 0
 * when the bytes there are not a whole valid record (torn, corrupt, or of
 * a shape the writer never makes). Reads nothing past avail. */
size_t store_record_parse(const unsigned char *buf, size_t avail, store_record *out);
/* Encodes a record into out (room for STORE_RECORD_HEAD + payload);
 * returns its size. */
size_t store_record_encode(unsigned char *out, uint8_t op, uint8_t kind, const char *key, size_t klen,
                           const void *val, size_t vlen);
uint32_t store_crc32(uint32_t crc, const void *data, size_t len); /* IEEE 802.3; start at 0 */

/* A key's entry in the index. */
typedef struct store_entry {
    char *key; /* klen bytes and a NUL; NULL = free slot */
    size_t klen;
    uint64_t hash;
    uint8_t kind;
    unsigned char *val;
    size_t vlen;
} store_entry;

typedef struct store_file store_file;

/* Opens (creating the directory and the log as needed) and replays the
 * log of dir; NULL with *why on failure. */
store_file *store_file_open(const char *dir, char **why);
void store_file_close(store_file *f);
const char *store_file_path(const store_file *f);
const store_entry *store_file_get(const store_file *f, const char *key, size_t klen);
size_t store_file_count(const store_file *f);
size_t store_file_unsynced(const store_file *f);
/* Entries in slot order, for i < capacity (free slots have key NULL). */
size_t store_file_capacity(const store_file *f);
const store_entry *store_file_slot(const store_file *f, size_t i);
/* A put (kind != 0) or delete (kind == 0) of one key: written to the log,
 * then applied to the index. false (and *why) on an I/O error, which
 * leaves both as they were. Limits were checked by the caller. */
bool store_file_write(store_file *f, const char *key, size_t klen, uint8_t kind, const void *val, size_t vlen,
                      char **why);
bool store_file_sync(store_file *f, char **why);

#endif
