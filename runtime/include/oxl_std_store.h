/* oxl_std_store.h: the C side of std.store (std/store/store.oxl), the
 * running node's durable key/value store.
 *
 * Fault model. Two backends, chosen at every call:
 * - In a simulation (a scheduler run that is not real-time) the store is
 *   the current node's simulated disk (oxl_disk, oxl_sim.h): a write is
 *   visible at once and durable only after a successful sync; a crash of
 *   the node keeps a seeded prefix of its unsynced writes (never a later
 *   write without the earlier ones) and drops the rest; synced writes
 *   survive every restart; disk.fail rates make a write fail (changing
 *   nothing) or a sync fail (leaving the writes unsynced), reported as
 *   kind "io". A task of the process node (no NodeState) has no disk: its
 *   call panics.
 * - Otherwise (`oxl run`, unit tests: a real-time run, or no run at all) the
 *   store is an append-only log, $OXL_DATA_DIR/<node>/store.log (the node's
 *   data_dir when it has one; <node> is "process" for the process node),
 *   written with write(2) at every put and delete and made durable by
 *   fsync(2) in sync. It is replayed at first use; a torn or corrupt tail
 *   (a crash in the middle of a write, bytes that fail their checksum) ends
 *   the log there and is cut off. OXL_DATA_DIR unset or unusable panics,
 *   naming the variable, the path and the reason. A real I/O error is
 *   reported as kind "io".
 * The formats are in docs/language.md (§13, std.store).
 *
 * Results cross the extern boundary as lists (an extern cannot return an
 * optional): a write returns [] on success or [kind, message]; a read
 * returns [] for a missing key or [value]. Panics (a value read as another
 * kind, OXL_DATA_DIR, the process node in a simulation) name the OxL
 * caller's line. Nothing here is thread-safe: call it from the thread that
 * runs OxL code. */
#ifndef OXL_STD_STORE_H
#define OXL_STD_STORE_H

#include "oxl_rt.h"
#include "oxl_sim.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- limits (the same in both backends: a program that passes in a
 * simulation meets no new limit under `oxl run`) ---- */
#define OXL_STORE_MAX_KEY OXL_DISK_MAX_KEY             /* bytes of a key (1..=255, no NUL) */
#define OXL_STORE_MAX_VALUE (OXL_DISK_MAX_VALUE - 1u)   /* bytes of a value: the disk's 1 MiB less the kind tag */
#define OXL_STORE_MAX_KEYS OXL_DISK_MAX_ENTRIES         /* keys per node */
#define OXL_STORE_MAX_UNSYNCED OXL_DISK_MAX_PENDING     /* writes since the last sync */
#define OXL_STORE_MAX_OPEN 1025                         /* file stores open at once (nodes + process) */

/* The kind tag: the first byte of a value on the simulated disk, the kind
 * byte of a log record. An Int is 8 bytes, little-endian two's complement. */
enum {
    OXL_STORE_STRING = 'S',
    OXL_STORE_BYTES = 'B',
    OXL_STORE_INT = 'I',
};

/* ---- the file log (docs/language.md §13) ---- */
#define OXL_STORE_LOG_FILE "store.log"
#define OXL_STORE_LOG_MAGIC "OXLSTORE"  /* 8 bytes, then u32 version, u32 zero */
#define OXL_STORE_LOG_VERSION 1u
#define OXL_STORE_LOG_HEADER 16u
#define OXL_STORE_LOG_PUT 1u            /* record ops */
#define OXL_STORE_LOG_DELETE 2u

/* ---- the extern fns of std/store/store.oxl ---- */
oxl_list oxl_std_store_native_putString(oxl_string key, oxl_string value);
oxl_list oxl_std_store_native_putBytes(oxl_string key, oxl_bytes value);
oxl_list oxl_std_store_native_putInt(oxl_string key, int64_t value);
oxl_list oxl_std_store_native_getString(oxl_string key); /* [] or [String] */
oxl_list oxl_std_store_native_getBytes(oxl_string key);  /* [] or [Bytes] */
oxl_list oxl_std_store_native_getInt(oxl_string key);    /* [] or [Int] */
oxl_list oxl_std_store_native_delete(oxl_string key);
oxl_list oxl_std_store_native_sync(void);
oxl_list oxl_std_store_keys(void); /* the keys in bytewise order */

/* Forgets every open file store (closing its log), so the next call
 * replays the log from the file: what a process restart does. For tests;
 * the simulated backend is untouched. */
void oxl_std_store_close_all(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
